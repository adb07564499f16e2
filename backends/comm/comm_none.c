/* The communication layer of a build without MPI: the same API, where making a
 * communicator is not supported; the queries answer as for a single process. */
#include "tenport/comm.h"
#include "portable/tp_error.h"

#define NO_MPI "this tenport was built without MPI (configure with -Dmpi=enabled)"

int tp_comm_has_mpi(void) { return 0; }

tp_status tp_comm_set_timeout(double seconds) {
  (void)seconds;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, NO_MPI);
}
int tp_comm_has_nccl(void) { return 0; }

tp_status tp_comm_create(tp_comm **comm, const void *mpi_comm, tp_space *space) {
  (void)mpi_comm, (void)space;
  if (comm)
    *comm = NULL;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, NO_MPI);
}

tp_status tp_comm_destroy(tp_comm **comm) {
  if (comm)
    *comm = NULL;
  return TP_SUCCESS;
}

tp_status tp_comm_init_world(tp_comm **comm, tp_space *space) {
  return tp_comm_create(comm, NULL, space);
}

tp_status tp_comm_finalize_world(tp_comm **comm) { return tp_comm_destroy(comm); }

tp_status tp_comm_with_space(tp_comm *comm, tp_space *space, tp_comm **out) {
  (void)comm;
  return tp_comm_create(out, NULL, space);
}

tp_status tp_comm_check_space(const tp_comm *comm, tp_space *space) {
  (void)comm, (void)space;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, NO_MPI);
}

int tp_comm_rank(const tp_comm *c) { return (void)c, 0; }
int tp_comm_size(const tp_comm *c) { return (void)c, 1; }
int tp_comm_node_rank(const tp_comm *c) { return (void)c, 0; }
int tp_comm_node_size(const tp_comm *c) { return (void)c, 1; }
int tp_comm_uses_nccl(const tp_comm *c) { return (void)c, 0; }
double tp_comm_seconds(const tp_comm *c) { return (void)c, 0.0; }

tp_status tp_comm_split(tp_comm *comm, int color, int key, tp_comm **sub) {
  (void)comm, (void)color, (void)key;
  if (sub)
    *sub = NULL;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, NO_MPI);
}

tp_status tp_comm_agree(tp_comm *comm, tp_status local) { return (void)comm, local; }

#define UNSUPPORTED TP_ERROR(TP_ERROR_NOT_SUPPORTED, NO_MPI)

tp_status tp_comm_allreduce(tp_comm *c, void *b, int64_t n, tp_dtype t, tp_comm_op op) {
  return (void)c, (void)b, (void)n, (void)t, (void)op, UNSUPPORTED;
}
tp_status tp_comm_broadcast(tp_comm *c, void *b, int64_t n, tp_dtype t, int root) {
  return (void)c, (void)b, (void)n, (void)t, (void)root, UNSUPPORTED;
}
tp_status tp_comm_reduce_scatter(tp_comm *c, const void *s, void *r, const int64_t *n, tp_dtype t) {
  return (void)c, (void)s, (void)r, (void)n, (void)t, UNSUPPORTED;
}
tp_status tp_comm_allgatherv(tp_comm *c, const void *s, void *r, const int64_t *n, tp_dtype t) {
  return (void)c, (void)s, (void)r, (void)n, (void)t, UNSUPPORTED;
}
tp_status tp_comm_alltoallv(tp_comm *c, const void *s, const int64_t *sn, void *r,
                            const int64_t *rn, tp_dtype t) {
  return (void)c, (void)s, (void)sn, (void)r, (void)rn, (void)t, UNSUPPORTED;
}
tp_status tp_comm_allreduce_host(tp_comm *c, void *b, int64_t n, tp_dtype t, tp_comm_op op) {
  return (void)c, (void)b, (void)n, (void)t, (void)op, UNSUPPORTED;
}
tp_status tp_comm_broadcast_host(tp_comm *c, void *b, int64_t n, tp_dtype t, int root) {
  return (void)c, (void)b, (void)n, (void)t, (void)root, UNSUPPORTED;
}
tp_status tp_comm_allgatherv_host(tp_comm *c, const void *s, void *r, const int64_t *n,
                                  tp_dtype t) {
  return (void)c, (void)s, (void)r, (void)n, (void)t, UNSUPPORTED;
}
tp_status tp_comm_alltoallv_host(tp_comm *c, const void *s, const int64_t *sn, void *r,
                                 const int64_t *rn, tp_dtype t) {
  return (void)c, (void)s, (void)sn, (void)r, (void)rn, (void)t, UNSUPPORTED;
}
