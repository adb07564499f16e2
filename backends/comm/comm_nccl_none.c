/* The NCCL half of a build without NCCL: device data is staged through the host. */
#include "backends/comm/tp_comm_internal.h"
#include "portable/tp_error.h"

int tp_comm_nccl_built(void) { return 0; }

tp_status tp_comm_nccl_create(tp_comm *c) {
  (void)c;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "this tenport was built without NCCL");
}

void tp_comm_nccl_destroy(tp_comm *c) { (void)c; }

#define NEVER TP_ERROR(TP_ERROR_INTERNAL, "NCCL called in a build without it")

tp_status tp_comm_nccl_allreduce(tp_comm *c, void *b, int64_t n, tp_dtype t, tp_comm_op op) {
  return (void)c, (void)b, (void)n, (void)t, (void)op, NEVER;
}
tp_status tp_comm_nccl_broadcast(tp_comm *c, void *b, int64_t n, tp_dtype t, int root) {
  return (void)c, (void)b, (void)n, (void)t, (void)root, NEVER;
}
tp_status tp_comm_nccl_reduce_scatter(tp_comm *c, const void *s, void *r, const int64_t *n,
                                      tp_dtype t) {
  return (void)c, (void)s, (void)r, (void)n, (void)t, NEVER;
}
tp_status tp_comm_nccl_allgatherv(tp_comm *c, const void *s, void *r, const int64_t *n,
                                  tp_dtype t) {
  return (void)c, (void)s, (void)r, (void)n, (void)t, NEVER;
}
tp_status tp_comm_nccl_alltoallv(tp_comm *c, const void *s, const int64_t *sn, void *r,
                                 const int64_t *rn, tp_dtype t) {
  return (void)c, (void)s, (void)sn, (void)r, (void)rn, (void)t, NEVER;
}
