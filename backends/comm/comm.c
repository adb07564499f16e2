/* The communicator: made from the caller's MPI communicator, its node-local rank (to
 * choose a GPU), agreement on failures, and the collectives on data in its space, which
 * go to NCCL, straight to MPI (host memory), or through a host buffer to MPI (device
 * memory without NCCL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "portable/tp_clock.h"
#include "backends/comm/tp_comm_internal.h"
#include "portable/tp_error.h"

int tp_comm_has_mpi(void) { return 1; }

int tp_comm_has_nccl(void) { return tp_comm_nccl_built(); }

tp_status tp_comm_fatal(tp_comm *c, const char *call, const char *why) {
  fprintf(stderr, "tenport: rank %d of %d: %s failed: %s; aborting every rank\n", c->rank, c->size,
          call, why);
  fflush(stderr);
  MPI_Abort(c->mpi, 1);
  return TP_ERROR(TP_ERROR_DEVICE, "rank %d: %s failed: %s", c->rank, call, why);
}

tp_status tp_comm_check_mpi(tp_comm *c, int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return TP_SUCCESS;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
    snprintf(text, sizeof text, "MPI error %d", rc);
  return tp_comm_fatal(c, call, text);
}

/* ---- making and ending ------------------------------------------------------------- */

static tp_status node_ranks(tp_comm *c) {
  MPI_Comm node;
  TP_TRY(tp_comm_check_mpi(
      c, MPI_Comm_split_type(c->mpi, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node),
      "MPI_Comm_split_type"));
  MPI_Comm_rank(node, &c->node_rank);
  MPI_Comm_size(node, &c->node_size);
  MPI_Comm_free(&node);
  return TP_SUCCESS;
}

/* TENPORT_NO_NCCL (set, not "0") stages GPU data through the host even where NCCL is
 * built in: the path of builds without it, and a way around a NCCL that misbehaves. */
static int nccl_wanted(void) {
  const char *no = getenv("TENPORT_NO_NCCL");
  return tp_comm_nccl_built() && !(no && *no && strcmp(no, "0") != 0);
}

static tp_status bind_space(tp_comm *c, tp_space *space) {
  c->space = space;
  if (!space)
    return TP_SUCCESS;
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  c->gpu = info.is_gpu;
  return c->gpu && nccl_wanted() ? tp_comm_nccl_create(c) : TP_SUCCESS;
}

/* A communicator over mpi, which it owns from here on. */
static tp_status make(tp_comm **comm, MPI_Comm mpi, tp_space *space) {
  tp_comm *c = (tp_comm *)calloc(1, sizeof *c);
  if (!c) {
    MPI_Comm_free(&mpi);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for a communicator");
  }
  c->mpi = mpi;
  MPI_Comm_set_errhandler(mpi, MPI_ERRORS_RETURN);
  tp_status watchdog = tp_comm_watchdog_from_env();
  if (watchdog != TP_SUCCESS) {
    tp_comm_destroy(&c);
    return watchdog;
  }
  MPI_Comm_rank(mpi, &c->rank);
  MPI_Comm_size(mpi, &c->size);
  tp_status st = node_ranks(c);
  if (st == TP_SUCCESS)
    st = bind_space(c, space);
  if (st != TP_SUCCESS) {
    tp_comm_destroy(&c);
    return st;
  }
  *comm = c;
  return TP_SUCCESS;
}

tp_status tp_comm_create(tp_comm **comm, const void *mpi_comm, tp_space *space) {
  TP_CHECK_ARG(comm && mpi_comm, "comm and mpi_comm must not be NULL");
  *comm = NULL;
  int ready = 0;
  MPI_Initialized(&ready);
  TP_CHECK_ARG(ready, "MPI is not initialised: call MPI_Init before tp_comm_create");
  MPI_Comm dup;
  if (MPI_Comm_dup(*(const MPI_Comm *)mpi_comm, &dup) != MPI_SUCCESS)
    return TP_ERROR(TP_ERROR_DEVICE, "MPI_Comm_dup failed");
  return make(comm, dup, space);
}

static int world_started; /* tp_comm_init_world called MPI_Init */

tp_status tp_comm_init_world(tp_comm **comm, tp_space *space) {
  TP_CHECK_ARG(comm, "comm is NULL");
  *comm = NULL;
  int ready = 0, provided = 0;
  MPI_Initialized(&ready);
  if (!ready) {
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      return TP_ERROR(TP_ERROR_DEVICE, "MPI_Init_thread failed");
    world_started = 1;
  }
  MPI_Comm world = MPI_COMM_WORLD;
  return tp_comm_create(comm, &world, space);
}

tp_status tp_comm_finalize_world(tp_comm **comm) {
  tp_comm_destroy(comm);
  int done = 0;
  MPI_Finalized(&done);
  if (world_started && !done)
    MPI_Finalize();
  world_started = 0;
  return TP_SUCCESS;
}

tp_status tp_comm_with_space(tp_comm *comm, tp_space *space, tp_comm **out) {
  TP_CHECK_ARG(comm && out, "comm and out must not be NULL");
  *out = NULL;
  MPI_Comm dup;
  TP_TRY(tp_comm_check_mpi(comm, MPI_Comm_dup(comm->mpi, &dup), "MPI_Comm_dup"));
  return make(out, dup, space);
}

tp_status tp_comm_check_space(const tp_comm *comm, tp_space *space) {
  TP_CHECK_ARG(comm, "comm must not be NULL");
  if (comm->space == space)
    return TP_SUCCESS;
  int gpu = 0;
  if (space) {
    tp_space_info info;
    TP_TRY(tp_space_get_info(space, &info));
    gpu = info.is_gpu;
  }
  if (!gpu && !comm->gpu)
    return TP_SUCCESS; /* host memory on both sides */
  return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "the communicator moves data in %s, but the run's data is in %s: make "
                  "the communicator for this space (tp_comm_with_space)",
                  comm->gpu ? "another GPU space's memory" : "host memory",
                  gpu ? "a GPU space's memory" : "host memory");
}

tp_status tp_comm_destroy(tp_comm **comm) {
  if (!comm || !*comm)
    return TP_SUCCESS;
  tp_comm *c = *comm;
  tp_comm_nccl_destroy(c);
  if (c->mpi != MPI_COMM_NULL)
    MPI_Comm_free(&c->mpi);
  free(c->stage);
  free(c);
  *comm = NULL;
  return TP_SUCCESS;
}

tp_status tp_comm_split(tp_comm *comm, int color, int key, tp_comm **sub) {
  TP_CHECK_ARG(comm && sub, "comm and sub must not be NULL");
  *sub = NULL;
  MPI_Comm part;
  TP_TRY(tp_comm_check_mpi(comm, MPI_Comm_split(comm->mpi, color, key, &part), "MPI_Comm_split"));
  return make(sub, part, comm->space);
}

int tp_comm_rank(const tp_comm *c) { return c ? c->rank : 0; }
int tp_comm_size(const tp_comm *c) { return c ? c->size : 1; }
int tp_comm_node_rank(const tp_comm *c) { return c ? c->node_rank : 0; }
int tp_comm_node_size(const tp_comm *c) { return c ? c->node_size : 1; }
int tp_comm_uses_nccl(const tp_comm *c) { return c && c->nccl; }
double tp_comm_seconds(const tp_comm *c) { return c ? c->seconds : 0.0; }

/* ---- agreement ------------------------------------------------------------------------ */

enum { AGREE_TEXT = 2048 };

typedef struct agreement {
  int status;
  char text[AGREE_TEXT];
} agreement;

tp_status tp_comm_agree(tp_comm *c, tp_status local) {
  TP_CHECK_ARG(c, "comm is NULL");
  double t0 = tp_wall_seconds();
  int mine = local != TP_SUCCESS ? c->rank : c->size, first = c->size;
  tp_comm_watch_begin(c, "the agreement on a failure (MPI_Allreduce)");
  int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c->mpi);
  tp_comm_watch_end();
  TP_TRY(tp_comm_check_mpi(c, rc, "MPI_Allreduce"));
  agreement a;
  memset(&a, 0, sizeof a);
  if (first < c->size) {
    if (c->rank == first) {
      a.status = (int)local;
      snprintf(a.text, sizeof a.text, "%s", *tp_last_error() ? tp_last_error() : "failed");
    }
    TP_TRY(
        tp_comm_check_mpi(c, MPI_Bcast(&a, (int)sizeof a, MPI_BYTE, first, c->mpi), "MPI_Bcast"));
  }
  c->seconds += tp_wall_seconds() - t0;
  if (first == c->size)
    return TP_SUCCESS;
  return TP_ERROR((tp_status)a.status, "rank %d: %s", first, a.text);
}

/* ---- data in the space ------------------------------------------------------------------ */

/* A host buffer of at least bytes for GPU data on its way through MPI. */
static tp_status stage(tp_comm *c, size_t bytes, void **p) {
  if (c->stage_bytes < bytes) {
    void *q = realloc(c->stage, bytes);
    if (!q)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory to stage %zu bytes", bytes);
    c->stage = q, c->stage_bytes = bytes;
  }
  *p = c->stage;
  return TP_SUCCESS;
}

static int64_t total(const tp_comm *c, const int64_t *counts) {
  int64_t n = 0;
  for (int r = 0; r < c->size; ++r)
    n += counts[r];
  return n;
}

static int on_host(const tp_comm *c) { return !c->gpu; }

static tp_status check_counts(const tp_comm *c, const int64_t *counts, const char *what) {
  TP_CHECK_ARG(counts, "%s is NULL", what);
  for (int r = 0; r < c->size; ++r)
    TP_CHECK_ARG(counts[r] >= 0, "%s[%d] = %lld is negative", what, r, (long long)counts[r]);
  return TP_SUCCESS;
}

static tp_status check_dtype(tp_dtype dtype) {
  TP_CHECK_ARG(tp_dtype_size(dtype) > 0, "dtype %d is not a tp_dtype", (int)dtype);
  return TP_SUCCESS;
}

/* The clock of a collective. GPU data moves on the space's stream: the clock starts once
 * the work queued before the collective is done (else the kernels it waits for count as
 * communication), and stops when the collective is (an NCCL one is only queued). */
static tp_status timed_start(tp_comm *c, double *t0, const char *what) {
  tp_status st = c->gpu ? tp_space_fence(c->space) : TP_SUCCESS;
  *t0 = tp_wall_seconds();
  tp_comm_watch_begin(c, what);
  return st;
}

static tp_status timed_stop(tp_comm *c, tp_status st, double t0) {
  if (st == TP_SUCCESS && c->nccl)
    st = tp_space_fence(c->space);
  tp_comm_watch_end();
  c->seconds += tp_wall_seconds() - t0;
  return st;
}

/* Returns the status of the collective expr (run only if the clock started), adding its
 * time to the communicator's; what names it for the watchdog. */
#define TIMED(c, what, expr)                                                         \
  do {                                                                               \
    double timed_t0_;                                                                \
    tp_status timed_st_ = timed_start((c), &timed_t0_, (what));                      \
    return timed_stop((c), timed_st_ == TP_SUCCESS ? (expr) : timed_st_, timed_t0_); \
  } while (0)

static tp_status staged_allreduce(tp_comm *c, void *buf, int64_t n, tp_dtype dtype, tp_comm_op op) {
  size_t bytes = (size_t)n * tp_dtype_size(dtype);
  void *h = NULL;
  TP_TRY(stage(c, bytes, &h));
  TP_TRY(tp_copy_to_host(c->space, h, buf, bytes));
  TP_TRY(tp_comm_mpi_allreduce(c, h, n, dtype, op));
  return tp_copy_to_device(c->space, buf, h, bytes);
}

static tp_status allreduce(tp_comm *c, void *buf, int64_t n, tp_dtype dtype, tp_comm_op op) {
  if (c->nccl)
    return tp_comm_nccl_allreduce(c, buf, n, dtype, op);
  return on_host(c) ? tp_comm_mpi_allreduce(c, buf, n, dtype, op)
                    : staged_allreduce(c, buf, n, dtype, op);
}

tp_status tp_comm_allreduce(tp_comm *c, void *buf, int64_t count, tp_dtype dtype, tp_comm_op op) {
  TP_CHECK_ARG(c && (buf || count == 0) && count >= 0, "bad arguments");
  TP_TRY(check_dtype(dtype));
  TIMED(c, "an allreduce", allreduce(c, buf, count, dtype, op));
}

static tp_status staged_broadcast(tp_comm *c, void *buf, int64_t n, tp_dtype dtype, int root) {
  size_t bytes = (size_t)n * tp_dtype_size(dtype);
  void *h = NULL;
  TP_TRY(stage(c, bytes, &h));
  if (c->rank == root)
    TP_TRY(tp_copy_to_host(c->space, h, buf, bytes));
  TP_TRY(tp_comm_mpi_broadcast(c, h, n, dtype, root));
  return c->rank == root ? TP_SUCCESS : tp_copy_to_device(c->space, buf, h, bytes);
}

static tp_status broadcast(tp_comm *c, void *buf, int64_t n, tp_dtype dtype, int root) {
  if (c->nccl)
    return tp_comm_nccl_broadcast(c, buf, n, dtype, root);
  return on_host(c) ? tp_comm_mpi_broadcast(c, buf, n, dtype, root)
                    : staged_broadcast(c, buf, n, dtype, root);
}

tp_status tp_comm_broadcast(tp_comm *c, void *buf, int64_t count, tp_dtype dtype, int root) {
  TP_CHECK_ARG(c && (buf || count == 0) && count >= 0, "bad arguments");
  TP_CHECK_ARG(root >= 0 && root < c->size, "root %d is not a rank of %d", root, c->size);
  TP_TRY(check_dtype(dtype));
  TIMED(c, "a broadcast", broadcast(c, buf, count, dtype, root));
}

static tp_status staged_reduce_scatter(tp_comm *c, const void *send, void *recv,
                                       const int64_t *counts, tp_dtype dtype) {
  size_t size = tp_dtype_size(dtype), in = (size_t)total(c, counts) * size;
  size_t out = (size_t)counts[c->rank] * size;
  char *h = NULL;
  TP_TRY(stage(c, in + out, (void **)&h));
  TP_TRY(tp_copy_to_host(c->space, h, send, in));
  TP_TRY(tp_comm_mpi_reduce_scatter(c, h, h + in, counts, dtype));
  return tp_copy_to_device(c->space, recv, h + in, out);
}

static tp_status reduce_scatter(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                                tp_dtype dtype) {
  if (c->nccl)
    return tp_comm_nccl_reduce_scatter(c, send, recv, counts, dtype);
  return on_host(c) ? tp_comm_mpi_reduce_scatter(c, send, recv, counts, dtype)
                    : staged_reduce_scatter(c, send, recv, counts, dtype);
}

tp_status tp_comm_reduce_scatter(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                                 tp_dtype dtype) {
  TP_CHECK_ARG(c, "comm is NULL");
  TP_TRY(check_dtype(dtype));
  TP_TRY(check_counts(c, counts, "counts"));
  TIMED(c, "a reduce-scatter", reduce_scatter(c, send, recv, counts, dtype));
}

static tp_status staged_allgatherv(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                                   tp_dtype dtype) {
  size_t size = tp_dtype_size(dtype), all = (size_t)total(c, counts) * size;
  int64_t before = 0;
  for (int r = 0; r < c->rank; ++r)
    before += counts[r];
  char *h = NULL;
  TP_TRY(stage(c, all, (void **)&h));
  TP_TRY(
      tp_copy_to_host(c->space, h + (size_t)before * size, send, (size_t)counts[c->rank] * size));
  TP_TRY(tp_comm_mpi_allgatherv(c, h + (size_t)before * size, h, counts, dtype));
  return tp_copy_to_device(c->space, recv, h, all);
}

static tp_status allgatherv(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                            tp_dtype dtype) {
  if (c->nccl)
    return tp_comm_nccl_allgatherv(c, send, recv, counts, dtype);
  return on_host(c) ? tp_comm_mpi_allgatherv(c, send, recv, counts, dtype)
                    : staged_allgatherv(c, send, recv, counts, dtype);
}

tp_status tp_comm_allgatherv(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                             tp_dtype dtype) {
  TP_CHECK_ARG(c, "comm is NULL");
  TP_TRY(check_dtype(dtype));
  TP_TRY(check_counts(c, counts, "counts"));
  TIMED(c, "an allgather", allgatherv(c, send, recv, counts, dtype));
}

static tp_status staged_alltoallv(tp_comm *c, const void *send, const int64_t *send_counts,
                                  void *recv, const int64_t *recv_counts, tp_dtype dtype) {
  size_t size = tp_dtype_size(dtype);
  size_t out = (size_t)total(c, send_counts) * size, in = (size_t)total(c, recv_counts) * size;
  char *h = NULL;
  TP_TRY(stage(c, out + in, (void **)&h));
  TP_TRY(tp_copy_to_host(c->space, h, send, out));
  TP_TRY(tp_comm_mpi_alltoallv(c, h, send_counts, h + out, recv_counts, dtype));
  return tp_copy_to_device(c->space, recv, h + out, in);
}

static tp_status alltoallv(tp_comm *c, const void *send, const int64_t *send_counts, void *recv,
                           const int64_t *recv_counts, tp_dtype dtype) {
  if (c->nccl)
    return tp_comm_nccl_alltoallv(c, send, send_counts, recv, recv_counts, dtype);
  return on_host(c) ? tp_comm_mpi_alltoallv(c, send, send_counts, recv, recv_counts, dtype)
                    : staged_alltoallv(c, send, send_counts, recv, recv_counts, dtype);
}

tp_status tp_comm_alltoallv(tp_comm *c, const void *send, const int64_t *send_counts, void *recv,
                            const int64_t *recv_counts, tp_dtype dtype) {
  TP_CHECK_ARG(c, "comm is NULL");
  TP_TRY(check_dtype(dtype));
  TP_TRY(check_counts(c, send_counts, "send_counts"));
  TP_TRY(check_counts(c, recv_counts, "recv_counts"));
  TIMED(c, "an all-to-all exchange", alltoallv(c, send, send_counts, recv, recv_counts, dtype));
}

/* ---- host memory whatever the space ------------------------------------------------------ */

tp_status tp_comm_allreduce_host(tp_comm *c, void *buf, int64_t count, tp_dtype dtype,
                                 tp_comm_op op) {
  TP_CHECK_ARG(c && (buf || count == 0) && count >= 0, "bad arguments");
  TP_TRY(check_dtype(dtype));
  TIMED(c, "an allreduce", tp_comm_mpi_allreduce(c, buf, count, dtype, op));
}

tp_status tp_comm_broadcast_host(tp_comm *c, void *buf, int64_t count, tp_dtype dtype, int root) {
  TP_CHECK_ARG(c && (buf || count == 0) && count >= 0, "bad arguments");
  TP_CHECK_ARG(root >= 0 && root < c->size, "root %d is not a rank of %d", root, c->size);
  TP_TRY(check_dtype(dtype));
  TIMED(c, "a broadcast", tp_comm_mpi_broadcast(c, buf, count, dtype, root));
}

tp_status tp_comm_allgatherv_host(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                                  tp_dtype dtype) {
  TP_CHECK_ARG(c, "comm is NULL");
  TP_TRY(check_dtype(dtype));
  TP_TRY(check_counts(c, counts, "counts"));
  TIMED(c, "an allgather", tp_comm_mpi_allgatherv(c, send, recv, counts, dtype));
}

tp_status tp_comm_alltoallv_host(tp_comm *c, const void *send, const int64_t *send_counts,
                                 void *recv, const int64_t *recv_counts, tp_dtype dtype) {
  TP_CHECK_ARG(c, "comm is NULL");
  TP_TRY(check_dtype(dtype));
  TP_TRY(check_counts(c, send_counts, "send_counts"));
  TP_TRY(check_counts(c, recv_counts, "recv_counts"));
  TIMED(c, "an all-to-all exchange",
        tp_comm_mpi_alltoallv(c, send, send_counts, recv, recv_counts, dtype));
}
