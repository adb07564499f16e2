/* The communication layer: the few collectives distributed methods need, between the
 * ranks of an MPI communicator, on data in a space. GPU data moves by NCCL when the build
 * has it (one rank per GPU), else it is staged through the host and MPI (a CUDA-aware MPI
 * is never assumed); host data moves by MPI. Optional at build time (-Dmpi, -Dnccl): a
 * build without MPI has the same API, where tp_comm_create fails with
 * TP_ERROR_NOT_SUPPORTED.
 *
 * Every call is collective over the communicator: all its ranks make it, in the same
 * order, with matching arguments. A rank whose local work failed says so through
 * tp_comm_agree, so that every rank ends with the same error instead of waiting for it;
 * a failure of MPI or NCCL itself leaves the collective state unknown, so the
 * communicator is aborted (MPI_Abort) after the message, naming the rank and the call,
 * is printed on stderr. */
#ifndef TENPORT_COMM_H
#define TENPORT_COMM_H

#include <stdint.h>

#include "tenport/export.h"
#include "tenport/npy.h"
#include "tenport/space.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_comm tp_comm;

/* 1 when this build has MPI (tp_comm_create can work), and when it has NCCL. */
TP_API int tp_comm_has_mpi(void);
TP_API int tp_comm_has_nccl(void);

/* 1 when the process was started by an MPI launcher (mpirun, srun): the environment
 * names a world of ranks. Needs no MPI call. */
TP_API int tp_comm_launched(void);

/* A communicator over the caller's MPI communicator (mpi_comm points to an MPI_Comm;
 * it is duplicated, so tenport's messages never mix with the caller's; MPI must be
 * initialised). space (may be NULL for host-only work) is where the collectives' data
 * lives; with a GPU space and NCCL in the build, a NCCL communicator is made over the
 * same ranks on the space's device and stream. */
TP_API tp_status tp_comm_create(tp_comm **comm, const void *mpi_comm, tp_space *space);
/* Sets *comm to NULL; safe on NULL. */
TP_API tp_status tp_comm_destroy(tp_comm **comm);

/* For programs that own MPI, such as the tenport command: initialises MPI (threads
 * funnelled) unless it is already, and makes a communicator over MPI_COMM_WORLD.
 * tp_comm_finalize_world destroys it and ends MPI if tp_comm_init_world started it.
 * Libraries embedding tenport use tp_comm_create on their own communicator instead. */
TP_API tp_status tp_comm_init_world(tp_comm **comm, tp_space *space);
TP_API tp_status tp_comm_finalize_world(tp_comm **comm);

/* A communicator over the same ranks whose data lives in another space (NCCL set up on
 * its device): made once each rank has chosen its GPU (tp_comm_node_rank). Collective. */
TP_API tp_status tp_comm_with_space(tp_comm *comm, tp_space *space, tp_comm **out);
/* TP_SUCCESS when comm's collectives take data in space's memory (comm made for space,
 * or both in host memory); otherwise an error naming both, since a GPU space's data
 * handed to a communicator of host memory would reach MPI as device pointers. The
 * distributed entry points that take a comm and a space check this on every rank
 * (tp_dist_coo_create, tp_dist_dense_create, tp_gcp_sparse_dist, tp_cp_apr_sparse_dist). */
TP_API tp_status tp_comm_check_space(const tp_comm *comm, tp_space *space);

TP_API int tp_comm_rank(const tp_comm *comm);
TP_API int tp_comm_size(const tp_comm *comm);
/* The rank among the ranks of this node and their number (to choose a GPU each). */
TP_API int tp_comm_node_rank(const tp_comm *comm);
TP_API int tp_comm_node_size(const tp_comm *comm);
/* 1 when device data moves by NCCL (not with TENPORT_NO_NCCL set in the environment,
 * which stages it through the host instead). */
TP_API int tp_comm_uses_nccl(const tp_comm *comm);
/* Seconds spent in this communicator's collectives so far (agreement included). */
TP_API double tp_comm_seconds(const tp_comm *comm);

/* The ranks of comm with the same color, ordered by key then rank (MPI_Comm_split),
 * in the same space. Collective over comm. */
TP_API tp_status tp_comm_split(tp_comm *comm, int color, int key, tp_comm **sub);

/* Every rank passes the status of its own work (its last error, if any, is its
 * message). All ranks return TP_SUCCESS when every status was TP_SUCCESS; otherwise all
 * return the failing rank's status (the lowest failing rank), with the message
 * "rank R: <its message>". */
TP_API tp_status tp_comm_agree(tp_comm *comm, tp_status local);

/* A time limit for each collective, in seconds (0, the default: none): a process that
 * waits longer in one (another rank was stopped, or hangs) ends every rank through
 * MPI_Abort, with a message naming the collective. The environment variable
 * TENPORT_COMM_TIMEOUT sets it when the first communicator is made. Not supported
 * without MPI. */
TP_API tp_status tp_comm_set_timeout(double seconds);

typedef enum tp_comm_op { TP_COMM_SUM = 0, TP_COMM_MAX = 1, TP_COMM_MIN = 2 } tp_comm_op;

/* ---- collectives on data in the communicator's space (host memory when it has none);
 * counts are elements of dtype (float32/64, int32/64, uint8/32/64). In place where a
 * single buffer is given. */

TP_API tp_status tp_comm_allreduce(tp_comm *comm, void *buf, int64_t count, tp_dtype dtype,
                                   tp_comm_op op);
TP_API tp_status tp_comm_broadcast(tp_comm *comm, void *buf, int64_t count, tp_dtype dtype,
                                   int root);
/* send holds the sum of counts[0..size) elements, rank r's part at offset
 * counts[0] + ... + counts[r-1]; rank r receives the sum over ranks of its part. */
TP_API tp_status tp_comm_reduce_scatter(tp_comm *comm, const void *send, void *recv,
                                        const int64_t *counts, tp_dtype dtype);
/* Rank r sends counts[r] elements; every rank receives all parts, in rank order. */
TP_API tp_status tp_comm_allgatherv(tp_comm *comm, const void *send, void *recv,
                                    const int64_t *counts, tp_dtype dtype);
/* send_counts[r] elements go to rank r (consecutive parts of send, in rank order);
 * recv_counts[r] come from rank r (consecutive parts of recv). */
TP_API tp_status tp_comm_alltoallv(tp_comm *comm, const void *send, const int64_t *send_counts,
                                   void *recv, const int64_t *recv_counts, tp_dtype dtype);

/* The same on host memory whatever the space (small arrays: Grams, counts, norms). */
TP_API tp_status tp_comm_allreduce_host(tp_comm *comm, void *buf, int64_t count, tp_dtype dtype,
                                        tp_comm_op op);
TP_API tp_status tp_comm_broadcast_host(tp_comm *comm, void *buf, int64_t count, tp_dtype dtype,
                                        int root);
TP_API tp_status tp_comm_allgatherv_host(tp_comm *comm, const void *send, void *recv,
                                         const int64_t *counts, tp_dtype dtype);
TP_API tp_status tp_comm_alltoallv_host(tp_comm *comm, const void *send, const int64_t *send_counts,
                                        void *recv, const int64_t *recv_counts, tp_dtype dtype);

#ifdef __cplusplus
}
#endif
#endif
