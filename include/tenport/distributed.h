/* Tensors spread over the ranks of a communicator, and CP-ALS on them: the
 * medium-grained decomposition of SPLATT and GenTen. The ranks form a grid over the
 * modes (parts[0] x ... x parts[d-1] = P); each mode's indices are cut into parts[m]
 * slabs holding about the same number of nonzeros; the rank at grid coordinates
 * (c_0, ..., c_{d-1}) holds the nonzeros of its block (slab c_m of every mode) and, for
 * each mode m, the factor rows of its slab c_m. Those rows are shared by the P /
 * parts[m] ranks of the slab (its layer), each of which owns an equal run of them: it
 * solves for them and sends them to the others. */
#ifndef TENPORT_DISTRIBUTED_H
#define TENPORT_DISTRIBUTED_H

#include <stdint.h>

#include "tenport/comm.h"
#include "tenport/cp_als.h"
#include "tenport/cp_apr.h"
#include "tenport/gcp.h"
#include "tenport/export.h"
#include "tenport/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ranks along each mode. */
typedef struct tp_grid {
  int order;
  int parts[TP_COO_MAX_ORDER];
} tp_grid;

/* The grid for a tensor of these dims on `ranks` ranks, as SPLATT chooses it: the prime
 * factors of ranks, largest first, each to the mode with the most indices per part. */
TP_API tp_status tp_grid_choose(int order, const int64_t *dims, int ranks, tp_grid *grid);

/* "2x2x1" into a grid of that many modes; TP_ERROR_INVALID_ARGUMENT saying why not. */
TP_API tp_status tp_grid_parse(const char *text, tp_grid *grid);

/* ---- reading a share of a file ---------------------------------------------------- */

/* Each rank reads about 1/P of a sparse tensor file (collective): of a .tpb its share of
 * the nonzeros by positioned reads of each array, of a .tns its share of the bytes after
 * any header (which every rank reads: its order, dims and index base are the tensor's),
 * cut at line ends (a malformed line is reported with its line number in the whole file, by
 * whichever rank read it, and every rank fails with that message). *share gets the
 * nonzeros read (global zero-based indices, duplicates summed within the share) with the
 * whole tensor's dims: the header's, the given dims, or each mode's largest index over
 * all ranks. order and dims as for tp_coo_read_tns (0 and NULL: from the file). The file
 * must be a regular file (positioned reads). */
TP_API tp_status tp_coo_read_share(tp_comm *comm, const char *path, tp_dtype dtype, int order,
                                   const int64_t *dims, tp_coo *share, tp_coo_read_info *info);

/* ---- a distributed sparse tensor ---------------------------------------------------- */

typedef struct tp_dist_coo tp_dist_coo;

/* Spreads the nonzeros every rank holds (share: host memory, global indices, the same
 * order, dims and dtype on every rank, duplicates anywhere) over the grid (NULL: chosen
 * by tp_grid_choose; its product must be the communicator's size): slabs balanced by
 * nonzero count, one exchange (alltoallv) to the owners, duplicates summed there, and
 * each rank's block built as FLYCOO in the space (tp_flycoo_create; opts may be NULL).
 * A mode cut into several slabs is cut after its indices are relabelled: index i of n
 * becomes (i s) mod n for a step s near n / golden ratio, so that a run of heavy indices
 * (a power law's head) is spread over every slab instead of falling in one
 * (TENPORT_RELABEL=0 on any rank: natural order; modes of more than 2^32 indices keep
 * it). Factors in and out are in the tensor's own indices.
 * Collective; a failure on any rank is every rank's error. */
TP_API tp_status tp_dist_coo_create(tp_comm *comm, tp_space *space, const tp_coo *share,
                                    const tp_grid *grid, const tp_flycoo_options *opts,
                                    tp_dist_coo **X);
TP_API void tp_dist_coo_destroy(tp_dist_coo **X);

typedef struct tp_dist_coo_info {
  tp_grid grid;
  int coords[TP_COO_MAX_ORDER]; /* this rank's place in the grid */
  tp_dtype dtype;
  int order;
  int64_t dims[TP_COO_MAX_ORDER]; /* the whole tensor */
  int64_t nnz;                    /* all ranks, duplicates summed */
  int64_t local_nnz, min_local_nnz, max_local_nnz;
  /* this rank's rows and those it solves, in relabelled indices (see tp_dist_coo_create) */
  int64_t slab_begin[TP_COO_MAX_ORDER], slab_end[TP_COO_MAX_ORDER];
  int64_t own_begin[TP_COO_MAX_ORDER], own_end[TP_COO_MAX_ORDER];
  double exchange_seconds, build_seconds;
} tp_dist_coo_info;

TP_API tp_status tp_dist_coo_get_info(const tp_dist_coo *X, tp_dist_coo_info *info);

/* CP-ALS of a distributed sparse tensor with the options and the result of
 * tp_cp_als_sparse (result->comm_seconds: time in collectives). model is a host Kruskal
 * tensor of the whole dims on every rank (tp_kruskal_alloc(NULL, ...)); every rank gets
 * the final lambda and factors. The random start is the one tp_cp_als_sparse makes for
 * the same seed, and opts->init (host, whole dims, the same on every rank) is taken as
 * it is, so that the answer does not depend on the number of ranks beyond rounding.
 * Collective. */
TP_API tp_status tp_cp_als_sparse_dist(tp_space *space, tp_dist_coo *X,
                                       const tp_cp_als_options *opts, tp_kruskal *model,
                                       tp_cp_als_result *result);

/* ---- a distributed dense tensor ---------------------------------------------------- */

/* Each mode cut into parts[m] slabs as even as the shape allows (a mode shorter than its
 * part count leaves some slabs without rows); each rank holds its block in the space, in
 * the given layout. */
typedef struct tp_dist_dense tp_dist_dense;

/* Makes the blocks (not filled) over the grid (NULL: chosen by tp_grid_choose).
 * Collective. */
TP_API tp_status tp_dist_dense_create(tp_comm *comm, tp_space *space, tp_dtype dtype, int order,
                                      const int64_t *dims, tp_layout layout, const tp_grid *grid,
                                      tp_dist_dense **X);
/* Each rank reads its block of a .npy of the tensor's shape and layout (C order: RIGHT,
 * Fortran order: LEFT), by positioned reads (tp_npy_read_block). Collective. */
TP_API tp_status tp_dist_dense_read_npy(tp_dist_dense *X, const char *path);
/* tp_dist_dense_create from a .npy's header, then tp_dist_dense_read_npy; dtype float32
 * or float64 converts, anything else keeps the file's float type (float64 for others). */
TP_API tp_status tp_dist_dense_create_npy(tp_comm *comm, tp_space *space, const char *path,
                                          tp_dtype dtype, const tp_grid *grid, tp_dist_dense **X);
/* Each rank makes its block of tp_dense_random_planted's tensor of this rank, noise and
 * seed, in place: the blocks hold the whole tensor a single process would make, and no
 * rank holds more than its block. Collective. */
TP_API tp_status tp_dist_dense_random_planted(tp_dist_dense *X, int64_t rank, double noise,
                                              uint64_t seed);
/* This rank's block (in the space), for a caller that fills it itself; the info says
 * which rows of each mode it holds. */
TP_API tp_dense *tp_dist_dense_block(tp_dist_dense *X);
TP_API void tp_dist_dense_destroy(tp_dist_dense **X);

typedef struct tp_dist_dense_info {
  tp_grid grid;
  int coords[TP_DENSE_MAX_ORDER];
  tp_dtype dtype;
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t slab_begin[TP_DENSE_MAX_ORDER], slab_end[TP_DENSE_MAX_ORDER];
  int64_t own_begin[TP_DENSE_MAX_ORDER], own_end[TP_DENSE_MAX_ORDER];
  double fill_seconds; /* the last read or generation */
} tp_dist_dense_info;

TP_API tp_status tp_dist_dense_get_info(const tp_dist_dense *X, tp_dist_dense_info *info);

/* CP-ALS of a distributed dense tensor, with the options, result and model of
 * tp_cp_als_sparse_dist (opts->mttkrp and reuse_partials apply to each rank's block). */
TP_API tp_status tp_cp_als_dense_dist(tp_space *space, tp_dist_dense *X,
                                      const tp_cp_als_options *opts, tp_kruskal *model,
                                      tp_cp_als_result *result);

/* Generalized CP (tp_gcp) of a distributed dense tensor, with a mask spread over the
 * same grid (NULL: every entry observed; X's dtype, nonzero where observed). Every rank
 * holds the whole model (model: in the space, the whole dims) and gets the same one.
 *   L-BFGS-B: each rank evaluates its block, the objective and gradient are summed over
 *   the ranks, and every rank takes the same steps: the model is the single process's
 *   up to rounding.
 *   GCP-Adam: each rank draws its part of every sample from its block (the whole
 *   tensor's sample sizes, the options' or their defaults for the whole tensor, split
 *   over the blocks by their entries, each block's draws weighted by its own size), and
 *   the sampled gradients and estimates are summed over the ranks: one rank draws what
 *   one process does; more ranks draw other samples of the same sizes.
 * max_seconds and cancel are refused: the ranks must stop together. Collective. */
TP_API tp_status tp_gcp_dense_dist(tp_space *space, tp_dist_dense *X, tp_dist_dense *mask,
                                   const tp_gcp_options *opts, tp_kruskal *model,
                                   tp_gcp_result *result);

/* Generalized CP of a sparse tensor given as the ranks' shares of its nonzeros (global
 * indices, the whole dims on every rank, duplicates anywhere: tp_coo_read_share), with
 * missing: NULL, or each rank's share of the coordinates not observed (L-BFGS-B only, as
 * tp_gcp_sparse). The tensor is cut into the blocks of a distributed dense tensor over
 * grid (NULL: tp_grid_choose's for the dims; each mode in even slabs) and every nonzero
 * is sent to its block's rank in one exchange.
 *   L-BFGS-B: each block is made dense in the space (the whole tensor then fits in the
 *   ranks' memory together, as tp_gcp_sparse needs it in one process) and
 *   tp_gcp_dense_dist runs: the model is tp_gcp_sparse's up to rounding.
 *   GCP-Adam: each block stays sparse; each rank draws its part of every stratified
 *   sample from its block: the whole tensor's nonzero draws split over the blocks by
 *   their nonzeros and its zero draws by their entries, each weighted by its block's
 *   counts, so that the sum over the ranks estimates the whole objective and gradient.
 *   One rank draws what one process does. The blocks are even index ranges, so a
 *   block holding a power law's heavy rows holds more nonzeros and draws more samples.
 * model and result as tp_gcp_dense_dist's; max_seconds and cancel are refused.
 * Collective; a failure on any rank is every rank's. */
TP_API tp_status tp_gcp_sparse_dist(tp_comm *comm, tp_space *space, const tp_coo *share,
                                    const tp_coo *missing, const tp_grid *grid,
                                    const tp_gcp_options *opts, tp_kruskal *model,
                                    tp_gcp_result *result);

/* CP-APR (tp_cp_apr_sparse) of a count tensor given as the ranks' shares of its nonzeros
 * (global indices, the whole dims on every rank, duplicates anywhere: tp_coo_read_share).
 * Every rank holds the whole model (model: in the space, the whole dims) and computes
 * each Phi from its own nonzeros; the Phis are summed over the ranks, so every rank takes
 * the same steps and the model is the single process's up to the rounding of those
 * sums. The shares need no exchange (each nonzero counts where it is). A failure on any
 * rank is every rank's. Collective. */
TP_API tp_status tp_cp_apr_sparse_dist(tp_comm *comm, tp_space *space, const tp_coo *share,
                                       const tp_cp_apr_options *opts, tp_kruskal *model,
                                       tp_cp_apr_result *result);

/* ---- rows spread over ranks ----------------------------------------------------------
 * Arrays of independent rows (voxels, tensors: every dimension but the trailing ones
 * flattened in C order), each rank working on a contiguous range of them. */

/* Part `part` of n items cut into `parts` ranges as even as possible, in order: items
 * [n * part / parts, n * (part + 1) / parts) (computed without overflow), so the sizes
 * differ by at most one and a part may be empty when n < parts. first and count may be
 * NULL. Errors: TP_ERROR_INVALID_ARGUMENT (n < 0, parts < 1, part outside [0, parts)). */
TP_API tp_status tp_even_range(int64_t n, int parts, int part, int64_t *first, int64_t *count);

/* Writes one .npy file whose rows several ranks hold, each rank its slab, with the bytes
 * tp_npy_write (C order) gives for the whole array. shape (ndim dimensions, the same on
 * every rank) is the whole array's; its rows are the C-order flattening of the first
 * lead_ndim dimensions (0: one row), each holding the product of the others' elements.
 * This rank holds rows [first_row, first_row + rows) in data (C order, host memory);
 * the ranks' ranges must cover every row exactly once. Rank 0 owns the file: set is its
 * output set (NULL on the other ranks, where it is ignored), to which path is added; it
 * writes the header into the temporary and sizes it (tp_output_set_share), its name is
 * broadcast, every rank writes its slab at its offset (tp_output_write_at), and rank 0
 * marks the file done. Nothing replaces path until rank 0 commits the set, which it does
 * after this call succeeded (every rank returns the same status); a failure on any rank
 * is every rank's (tp_comm_agree's "rank R: ..." message), and the temporary goes with
 * the uncommitted set. Every rank opens the temporary by its name: ranks on several
 * nodes need the folder on a file system they share. comm may be NULL for a single
 * process (set then required). Collective. */
TP_API tp_status tp_npy_write_rows_dist(tp_comm *comm, tp_output_set *set, const char *path,
                                        tp_dtype dtype, int ndim, const int64_t *shape,
                                        int lead_ndim, int64_t first_row, int64_t rows,
                                        const void *data);

#ifdef __cplusplus
}
#endif
#endif
