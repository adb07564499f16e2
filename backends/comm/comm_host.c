/* Collectives on host memory by MPI. MPI counts are ints: large arrays go in chunks (a
 * billion-nonzero exchange moves more than 2^31 bytes between two ranks), and the
 * exchanges are point-to-point so that no displacement has to fit an int. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backends/comm/tp_comm_internal.h"
#include "portable/tp_error.h"

enum { CHUNK_BYTES = 1 << 30 };

MPI_Datatype tp_comm_mpi_type(tp_dtype dtype) {
  switch (dtype) {
  case TP_DTYPE_F32: return MPI_FLOAT;
  case TP_DTYPE_F64: return MPI_DOUBLE;
  case TP_DTYPE_I8: return MPI_INT8_T;
  case TP_DTYPE_U8: return MPI_UINT8_T;
  case TP_DTYPE_I32: return MPI_INT32_T;
  case TP_DTYPE_I64: return MPI_INT64_T;
  case TP_DTYPE_U32: return MPI_UINT32_T;
  case TP_DTYPE_U64: return MPI_UINT64_T;
  }
  return MPI_DATATYPE_NULL;
}

static MPI_Op mpi_op(tp_comm_op op) {
  return op == TP_COMM_MAX ? MPI_MAX : op == TP_COMM_MIN ? MPI_MIN : MPI_SUM;
}

/* Elements of dtype per chunk. */
static int64_t chunk_count(tp_dtype dtype) { return (int64_t)(CHUNK_BYTES / tp_dtype_size(dtype)); }

tp_status tp_comm_mpi_allreduce(tp_comm *c, void *buf, int64_t count, tp_dtype dtype,
                                tp_comm_op op) {
  const int64_t per = chunk_count(dtype);
  char *p = (char *)buf;
  for (int64_t done = 0; done < count; done += per) {
    int n = (int)(count - done < per ? count - done : per);
    TP_TRY(tp_comm_check_mpi(c,
                             MPI_Allreduce(MPI_IN_PLACE, p + done * tp_dtype_size(dtype), n,
                                           tp_comm_mpi_type(dtype), mpi_op(op), c->mpi),
                             "MPI_Allreduce"));
  }
  return TP_SUCCESS;
}

tp_status tp_comm_mpi_broadcast(tp_comm *c, void *buf, int64_t count, tp_dtype dtype, int root) {
  const int64_t per = chunk_count(dtype);
  char *p = (char *)buf;
  for (int64_t done = 0; done < count; done += per) {
    int n = (int)(count - done < per ? count - done : per);
    TP_TRY(tp_comm_check_mpi(
        c, MPI_Bcast(p + done * tp_dtype_size(dtype), n, tp_comm_mpi_type(dtype), root, c->mpi),
        "MPI_Bcast"));
  }
  return TP_SUCCESS;
}

/* Rank r's part of count elements reduced onto it, in chunks. */
static tp_status reduce_to(tp_comm *c, const char *send, char *recv, int64_t count, tp_dtype dtype,
                           int root) {
  const int64_t per = chunk_count(dtype);
  const size_t size = tp_dtype_size(dtype);
  for (int64_t done = 0; done < count; done += per) {
    int n = (int)(count - done < per ? count - done : per);
    TP_TRY(tp_comm_check_mpi(c,
                             MPI_Reduce(send + done * size,
                                        c->rank == root ? recv + done * size : NULL, n,
                                        tp_comm_mpi_type(dtype), MPI_SUM, root, c->mpi),
                             "MPI_Reduce"));
  }
  return TP_SUCCESS;
}

/* MPI_Reduce_scatter when every part's count fits an int. */
static int small_parts(const tp_comm *c, const int64_t *counts, int *ints) {
  for (int r = 0; r < c->size; ++r) {
    if (counts[r] > INT_MAX / 2)
      return 0;
    ints[r] = (int)counts[r];
  }
  return 1;
}

/* One reduce_scatter, or one reduce per destination rank for parts of any size. */
tp_status tp_comm_mpi_reduce_scatter(tp_comm *c, const void *send, void *recv,
                                     const int64_t *counts, tp_dtype dtype) {
  const size_t size = tp_dtype_size(dtype);
  int *ints = (int *)malloc(sizeof(int) * (size_t)c->size);
  if (!ints)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", c->size);
  if (small_parts(c, counts, ints)) {
    tp_status st = tp_comm_check_mpi(
        c, MPI_Reduce_scatter(send, recv, ints, tp_comm_mpi_type(dtype), MPI_SUM, c->mpi),
        "MPI_Reduce_scatter");
    free(ints);
    return st;
  }
  free(ints);
  int64_t offset = 0;
  for (int r = 0; r < c->size; ++r) {
    TP_TRY(reduce_to(c, (const char *)send + offset * size, (char *)recv, counts[r], dtype, r));
    offset += counts[r];
  }
  return TP_SUCCESS;
}

tp_status tp_comm_mpi_allgatherv(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                                 tp_dtype dtype) {
  const size_t size = tp_dtype_size(dtype);
  int64_t offset = 0;
  for (int r = 0; r < c->rank; ++r)
    offset += counts[r];
  if (counts[c->rank] > 0 && (const char *)send != (char *)recv + offset * size)
    memmove((char *)recv + offset * size, send, (size_t)counts[c->rank] * size);
  offset = 0;
  for (int r = 0; r < c->size; ++r) {
    TP_TRY(tp_comm_mpi_broadcast(c, (char *)recv + offset * size, counts[r], dtype, r));
    offset += counts[r];
  }
  return TP_SUCCESS;
}

/* ---- the exchange -------------------------------------------------------------------- */

typedef struct exchange {
  MPI_Request *requests;
  int count, cap;
} exchange;

static tp_status post(tp_comm *c, exchange *x, int send, char *p, int64_t bytes, int peer) {
  for (int64_t done = 0; done < bytes; done += CHUNK_BYTES) {
    int n = (int)(bytes - done < CHUNK_BYTES ? bytes - done : CHUNK_BYTES);
    if (x->count == x->cap) {
      int cap = x->cap ? 2 * x->cap : 64;
      MPI_Request *r = (MPI_Request *)realloc(x->requests, sizeof *r * (size_t)cap);
      if (!r)
        return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d MPI requests", cap);
      x->requests = r, x->cap = cap;
    }
    int tag = (int)(done / CHUNK_BYTES); /* chunks of one pair match in order */
    int rc = send ? MPI_Isend(p + done, n, MPI_BYTE, peer, tag, c->mpi, &x->requests[x->count])
                  : MPI_Irecv(p + done, n, MPI_BYTE, peer, tag, c->mpi, &x->requests[x->count]);
    TP_TRY(tp_comm_check_mpi(c, rc, send ? "MPI_Isend" : "MPI_Irecv"));
    ++x->count;
  }
  return TP_SUCCESS;
}

static tp_status post_all(tp_comm *c, exchange *x, const char *send, const int64_t *send_counts,
                          char *recv, const int64_t *recv_counts, size_t size) {
  int64_t sent = 0, received = 0;
  for (int r = 0; r < c->size; ++r) {
    int64_t out = send_counts[r] * (int64_t)size, in = recv_counts[r] * (int64_t)size;
    if (r == c->rank && out > 0)
      memcpy(recv + received, send + sent, (size_t)out);
    else {
      TP_TRY(post(c, x, 0, recv + received, in, r));
      TP_TRY(post(c, x, 1, (char *)send + sent, out, r));
    }
    sent += out, received += in;
  }
  return TP_SUCCESS;
}

tp_status tp_comm_mpi_alltoallv(tp_comm *c, const void *send, const int64_t *send_counts,
                                void *recv, const int64_t *recv_counts, tp_dtype dtype) {
  TP_CHECK_ARG(send_counts[c->rank] == recv_counts[c->rank],
               "rank %d sends %lld elements to "
               "itself but expects %lld",
               c->rank, (long long)send_counts[c->rank], (long long)recv_counts[c->rank]);
  exchange x = {NULL, 0, 0};
  tp_status st = post_all(c, &x, (const char *)send, send_counts, (char *)recv, recv_counts,
                          tp_dtype_size(dtype));
  if (st == TP_SUCCESS && x.count > 0)
    st = tp_comm_check_mpi(c, MPI_Waitall(x.count, x.requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
  free(x.requests);
  return st;
}
