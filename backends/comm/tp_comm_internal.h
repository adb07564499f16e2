/* Inside the communication layer: the communicator's state, MPI's types for tenport's,
 * the fatal path, and the NCCL half (comm_nccl.c in builds with NCCL, comm_nccl_none.c
 * otherwise). */
#ifndef TP_COMM_INTERNAL_H
#define TP_COMM_INTERNAL_H

#include <mpi.h>
#include <stddef.h>

#include "tenport/comm.h"

struct tp_comm {
  MPI_Comm mpi; /* tenport's own duplicate (or split) of the caller's */
  int rank, size, node_rank, node_size;
  tp_space *space; /* where the collectives' data lives; NULL: host memory */
  int gpu;         /* the space's memory is device memory */
  void *nccl;      /* the NCCL communicator over the same ranks, or NULL */
  void *stage;     /* host buffer for GPU data moved by MPI */
  size_t stage_bytes;
  double seconds; /* in collectives so far */
};

MPI_Datatype tp_comm_mpi_type(tp_dtype dtype);

/* A failed MPI or NCCL call: the collective state is unknown, so the message (rank, call,
 * reason) goes to stderr and the communicator is aborted. Returns TP_ERROR_DEVICE for
 * the compiler's sake. */
tp_status tp_comm_fatal(tp_comm *c, const char *call, const char *why);
/* Checks an MPI return code. */
tp_status tp_comm_check_mpi(tp_comm *c, int rc, const char *call);

/* ---- the watchdog (comm_watchdog.c) ---------------------------------------------- */
/* Reads TENPORT_COMM_TIMEOUT once (the first communicator made). */
tp_status tp_comm_watchdog_from_env(void);
/* The process waits in the collective what of c from now / no longer. */
void tp_comm_watch_begin(tp_comm *c, const char *what);
void tp_comm_watch_end(void);

/* ---- host collectives on MPI (comm_host.c) --------------------------------------- */
tp_status tp_comm_mpi_allreduce(tp_comm *c, void *buf, int64_t count, tp_dtype dtype,
                                tp_comm_op op);
tp_status tp_comm_mpi_broadcast(tp_comm *c, void *buf, int64_t count, tp_dtype dtype, int root);
tp_status tp_comm_mpi_reduce_scatter(tp_comm *c, const void *send, void *recv,
                                     const int64_t *counts, tp_dtype dtype);
tp_status tp_comm_mpi_allgatherv(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                                 tp_dtype dtype);
tp_status tp_comm_mpi_alltoallv(tp_comm *c, const void *send, const int64_t *send_counts,
                                void *recv, const int64_t *recv_counts, tp_dtype dtype);

/* ---- NCCL (comm_nccl.c / comm_nccl_none.c) ---------------------------------------- */
int tp_comm_nccl_built(void);
tp_status tp_comm_nccl_create(tp_comm *c);
void tp_comm_nccl_destroy(tp_comm *c);
tp_status tp_comm_nccl_allreduce(tp_comm *c, void *buf, int64_t count, tp_dtype dtype,
                                 tp_comm_op op);
tp_status tp_comm_nccl_broadcast(tp_comm *c, void *buf, int64_t count, tp_dtype dtype, int root);
tp_status tp_comm_nccl_reduce_scatter(tp_comm *c, const void *send, void *recv,
                                      const int64_t *counts, tp_dtype dtype);
tp_status tp_comm_nccl_allgatherv(tp_comm *c, const void *send, void *recv, const int64_t *counts,
                                  tp_dtype dtype);
tp_status tp_comm_nccl_alltoallv(tp_comm *c, const void *send, const int64_t *send_counts,
                                 void *recv, const int64_t *recv_counts, tp_dtype dtype);

#endif
