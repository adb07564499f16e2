/* Collectives on GPU data by NCCL, on the space's stream: the NCCL communicator is made
 * over the same ranks (the unique id travels by MPI), on the space's device. Parts of
 * different sizes go as grouped reduces, broadcasts and point-to-point sends, so no part
 * is padded. Work is enqueued; the space's later work (and its copies to the host) comes
 * after it on the same stream. */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <string.h>

#include "backends/comm/tp_comm_internal.h"
#include "portable/tp_error.h"

int tp_comm_nccl_built(void) { return 1; }

static ncclComm_t nccl_of(const tp_comm *c) { return (ncclComm_t)c->nccl; }

static cudaStream_t stream_of(const tp_comm *c) { return (cudaStream_t)tp_space_stream(c->space); }

static tp_status check(tp_comm *c, ncclResult_t r, const char *call) {
  if (r == ncclSuccess)
    return TP_SUCCESS;
  char why[512];
  snprintf(why, sizeof why, "%s (%s)", ncclGetErrorString(r), ncclGetLastError(nccl_of(c)));
  if (c->nccl)
    ncclCommAbort(nccl_of(c));
  c->nccl = NULL;
  return tp_comm_fatal(c, call, why);
}

static ncclDataType_t nccl_type(tp_dtype dtype) {
  switch (dtype) {
  case TP_DTYPE_F32: return ncclFloat32;
  case TP_DTYPE_F64: return ncclFloat64;
  case TP_DTYPE_I8: return ncclInt8;
  case TP_DTYPE_U8: return ncclUint8;
  case TP_DTYPE_I32: return ncclInt32;
  case TP_DTYPE_I64: return ncclInt64;
  case TP_DTYPE_U32: return ncclUint32;
  case TP_DTYPE_U64: return ncclUint64;
  }
  return ncclUint8;
}

static ncclRedOp_t nccl_op(tp_comm_op op) {
  return op == TP_COMM_MAX ? ncclMax : op == TP_COMM_MIN ? ncclMin : ncclSum;
}

tp_status tp_comm_nccl_create(tp_comm *c) {
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  if (c->rank == 0 && ncclGetUniqueId(&id) != ncclSuccess)
    memset(&id, 0xff, sizeof id); /* every rank sees the failure below */
  TP_TRY(tp_comm_check_mpi(c, MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->mpi),
                           "MPI_Bcast of the NCCL id"));
  tp_space_info info;
  TP_TRY(tp_space_get_info(c->space, &info));
  if (cudaSetDevice(info.device) != cudaSuccess)
    return tp_comm_fatal(c, "cudaSetDevice", "cannot select the space's GPU");
  ncclComm_t comm = NULL;
  ncclResult_t r = ncclCommInitRank(&comm, c->size, id, c->rank);
  if (r != ncclSuccess)
    return check(c, r, "ncclCommInitRank");
  c->nccl = comm;
  return TP_SUCCESS;
}

void tp_comm_nccl_destroy(tp_comm *c) {
  if (c->nccl)
    ncclCommDestroy(nccl_of(c));
  c->nccl = NULL;
}

tp_status tp_comm_nccl_allreduce(tp_comm *c, void *buf, int64_t count, tp_dtype dtype,
                                 tp_comm_op op) {
  if (count == 0)
    return TP_SUCCESS;
  return check(c,
               ncclAllReduce(buf, buf, (size_t)count, nccl_type(dtype), nccl_op(op), nccl_of(c),
                             stream_of(c)),
               "ncclAllReduce");
}

tp_status tp_comm_nccl_broadcast(tp_comm *c, void *buf, int64_t count, tp_dtype dtype, int root) {
  if (count == 0)
    return TP_SUCCESS;
  return check(
      c, ncclBroadcast(buf, buf, (size_t)count, nccl_type(dtype), root, nccl_of(c), stream_of(c)),
      "ncclBroadcast");
}

/* Runs the calls between ncclGroupStart and ncclGroupEnd; a failure inside is reported
 * (and the communicator aborted) by the caller's check. */
static tp_status group_end(tp_comm *c, ncclResult_t inside, const char *call) {
  ncclResult_t end = ncclGroupEnd();
  TP_TRY(check(c, inside, call));
  return check(c, end, "ncclGroupEnd");
}

tp_status tp_comm_nccl_reduce_scatter(tp_comm *c, const void *send, void *recv,
                                      const int64_t *counts, tp_dtype dtype) {
  const size_t size = tp_dtype_size(dtype);
  ncclResult_t r = ncclGroupStart();
  int64_t offset = 0;
  for (int root = 0; root < c->size && r == ncclSuccess; ++root) {
    if (counts[root] > 0)
      r = ncclReduce((const char *)send + offset * size, recv, (size_t)counts[root],
                     nccl_type(dtype), ncclSum, root, nccl_of(c), stream_of(c));
    offset += counts[root];
  }
  return group_end(c, r, "ncclReduce");
}

tp_status tp_comm_nccl_allgatherv(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                                  tp_dtype dtype) {
  const size_t size = tp_dtype_size(dtype);
  ncclResult_t r = ncclGroupStart();
  int64_t offset = 0;
  for (int root = 0; root < c->size && r == ncclSuccess; ++root) {
    if (counts[root] > 0)
      r = ncclBroadcast(send, (char *)recv + offset * size, (size_t)counts[root], nccl_type(dtype),
                        root, nccl_of(c), stream_of(c));
    offset += counts[root];
  }
  return group_end(c, r, "ncclBroadcast");
}

tp_status tp_comm_nccl_alltoallv(tp_comm *c, const void *send, const int64_t *send_counts,
                                 void *recv, const int64_t *recv_counts, tp_dtype dtype) {
  const size_t size = tp_dtype_size(dtype);
  int64_t sent = 0, received = 0;
  ncclResult_t r = ncclGroupStart();
  for (int peer = 0; peer < c->size && r == ncclSuccess; ++peer) {
    if (peer == c->rank && send_counts[peer] > 0 &&
        cudaMemcpyAsync((char *)recv + received * size, (const char *)send + sent * size,
                        (size_t)send_counts[peer] * size, cudaMemcpyDeviceToDevice,
                        stream_of(c)) != cudaSuccess)
      r = ncclUnhandledCudaError;
    if (peer != c->rank && send_counts[peer] > 0)
      r = ncclSend((const char *)send + sent * size, (size_t)send_counts[peer], nccl_type(dtype),
                   peer, nccl_of(c), stream_of(c));
    if (peer != c->rank && recv_counts[peer] > 0 && r == ncclSuccess)
      r = ncclRecv((char *)recv + received * size, (size_t)recv_counts[peer], nccl_type(dtype),
                   peer, nccl_of(c), stream_of(c));
    sent += send_counts[peer], received += recv_counts[peer];
  }
  return group_end(c, r, "ncclSend/ncclRecv");
}
