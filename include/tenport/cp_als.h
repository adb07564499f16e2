/* CP-ALS for dense tensors: alternating least squares for a rank-R CP decomposition,
 * as in GenTen and the Tensor Toolbox. Per mode n: G = MTTKRP(X, U, n), V = Hadamard
 * product of the Grams U_m^T U_m (m != n), U_n = G (V + reg I)^{-1} (Cholesky; a
 * rank-revealing pivoted Cholesky when V is not numerically positive definite), then
 * column normalisation into lambda (2-norm on the first iteration, max-norm after).
 * fit = 1 - ||X - M|| / ||X||, from ||X||^2, the Grams, lambda and the last updated
 * mode's MTTKRP (M is never formed). Stops when |fit - previous fit| < tol, after
 * max_iters, or once max_seconds have passed.
 *
 * Between iterations (from the third on) a line search extrapolates the factors along
 * the last iteration's change, U + s (U - U_previous) with s = it^(1/p) (Bro's step;
 * p = 3, grown by one after four rejections in a row), and keeps the extrapolated
 * factors only when their fit is higher than the iteration's own: it never lowers the
 * fit, and it leads the iteration out of the long plateaus ("swamps") in which plain
 * ALS stops early. Its trial costs one MTTKRP and the Grams. */
#ifndef TENPORT_CP_ALS_H
#define TENPORT_CP_ALS_H

#include <stdint.h>

#include "tenport/dense.h"
#include "tenport/export.h"
#include "tenport/mttkrp.h"
#include "tenport/sparse_mttkrp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the progress callback sees after every iteration. */
typedef struct tp_cp_als_progress {
  int iteration; /* 1-based */
  double fit;
  double delta_fit;    /* fit - previous fit (the first iteration: fit) */
  double seconds;      /* wall time of this iteration */
  int fallback_solves; /* solves this iteration that needed the rank-revealing fallback */
  int start;           /* 0-based: which of the 1 + restarts starts runs */
  int extrapolated;    /* 1 when the line search's extrapolation was kept this iteration */
} tp_cp_als_progress;

typedef void (*tp_cp_als_progress_fn)(const tp_cp_als_progress *p, void *user);

/* How the first start's factors are made when no init is given. */
typedef enum tp_cp_init_method {
  TP_CP_INIT_RANDOM = 0, /* uniform random factors drawn from seed (default) */
  TP_CP_INIT_NVECS = 1   /* the leading eigenvectors of each mode's Gram X_(k) X_(k)^T, as
                            the Tensor Toolbox's nvecs (tp_cp_nvecs_dense, _coo) */
} tp_cp_init_method;

/* The modes whose factors a run may fix (bits of fixed_modes). */
#define TP_CP_MAX_FIXED_MODES 32

typedef struct tp_cp_als_options {
  int64_t rank;
  double tol;             /* on |delta fit|; default 1e-4 */
  int max_iters;          /* default 50 */
  uint64_t seed;          /* random initial guess; default 1 */
  const tp_kruskal *init; /* initial guess in host memory (lambda ignored), or NULL */
  tp_mttkrp_options mttkrp;
  int reuse_partials; /* share partial contractions across modes (default 1) */
  int normalize;      /* final normalisation (default 1): unit 2-norm columns, lambda >= 0,
                          components sorted by lambda (largest first), and signs fixed as
                          the Tensor Toolbox's fixsigns does: in each component the entry
                          of largest magnitude of each factor is made positive, flipping
                          factors in pairs (at most one stays negative). With fixed modes
                          only the free factors are scaled and flipped, and the
                          components keep their order. */
  tp_cp_als_progress_fn progress; /* may be NULL */
  void *progress_user;
  double reg;                    /* ridge (L2) regularisation: each solve is U (V + reg I) = G; the
                          fit reported is still 1 - ||X - M|| / ||X||. default 0 */
  uint32_t fixed_modes;          /* bit k set: factor k keeps its initial value (from init, else
                           from init_method); at least one mode must stay free. default 0 */
  tp_cp_init_method init_method; /* the first start's factors when init is NULL */
  double max_seconds;            /* stop after the iteration that ends past this many seconds of the
                          whole run, restarts included (0: no limit). default 0 */
  int restarts;                  /* further starts from random factors (seeds seed + 1, ...,
                          seed + restarts) after the first; the model of the highest final
                          fit is returned. default 0 */
  int line_search;               /* extrapolation between iterations, kept only when it raises the
                          fit (see the top). default 1 */
  const volatile int *cancel;    /* if not NULL, read after every iteration (after the progress
                          callback, which may set it): nonzero stops the run with
                          TP_ERROR_CANCELLED. Distributed, any rank's flag stops every
                          rank. default NULL */
  int nonneg; /* 1: nonnegative factors. Each mode's update is HALS (hierarchical ALS:
                 column by column, each entry the nonnegative least-squares minimiser with
                 the others fixed), up to 10 sweeps a row, fewer once a sweep moves the
                 row by 1% of the first's, from the factor the model holds, instead of the
                 unconstrained solve; the line search's trial is cut at 0 and the free
                 factors of the start are taken in absolute value. The MTTKRP, Grams, fit,
                 restarts and time limit are CP-ALS's. Fixed modes keep their values. A
                 column an update sets to 0 (lambda 0) is left alone by the other modes.
                 default 0 */
} tp_cp_als_options;

typedef struct tp_cp_als_result {
  int iterations;
  double fit;
  int converged;            /* |delta fit| < tol was reached */
  int fallback_solves;      /* total solves that used the rank-revealing fallback */
  int passes_per_iteration; /* full reads of the tensor per iteration by the MTTKRPs */
  double seconds;
  double setup_seconds;  /* of seconds, before the first iteration: the tensor's norm, the
                           starting factors, their Grams and, distributed, the first use
                           of every communicator */
  double comm_seconds;   /* distributed runs: in collectives after setup (setup warms the
                           communicators up; tenport/distributed.h) */
  double mttkrp_seconds; /* distributed runs: in this rank's MTTKRPs (0 in one process,
                            where they are not waited for one by one) */
  int stopped_by_time;   /* max_seconds ended the run */
  int extrapolations;    /* line-search extrapolations kept (the returned start's) */
  int starts;            /* starts run (1 + restarts, fewer when max_seconds ended it) */
  int best_start;        /* 0-based: the start whose model is returned */
} tp_cp_als_result;

TP_API tp_cp_als_options tp_cp_als_options_default(void);

/* Prints "iter %4d  fit %.10f  delta %+.3e  %.3f s" (and the fallback count when
 * nonzero, and "extrapolated" when the line search's step was kept) to the FILE* passed
 * as user (stdout when NULL). */
TP_API void tp_cp_als_print_progress(const tp_cp_als_progress *p, void *user);

/* Decomposes X (data in memory the space's device can access). *model describes such
 * memory too, from tp_kruskal_alloc(space, ...) or the caller's own allocation (for
 * example cudaMalloc on the space's device): lambda holds rank values and factors[k]
 * dims[k] x rank (row-major), apart from X, with X's dtype, order and dims and
 * opts->rank; tenport neither tracks nor frees it. On return it holds lambda and the
 * factors. result may be NULL. Errors: rank < 1, non-finite values in X or init, a zero
 * tensor, shapes that disagree. */
TP_API tp_status tp_cp_als(tp_space *space, const tp_dense *X, const tp_cp_als_options *opts,
                           tp_kruskal *model, tp_cp_als_result *result);

/* CP-ALS of a sparse tensor in FLYCOO form (tp_flycoo_create), with the same options,
 * model and result: each mode's MTTKRP is FLYCOO's, one pass over the nonzeros per mode
 * (with dynamic remapping or a record copy per mode, as the tensor was built;
 * opts->mttkrp and reuse_partials do not apply). The fit uses
 * ||X||^2 of the tensor the nonzeros add up to (duplicates summed). */
TP_API tp_status tp_cp_als_sparse(tp_space *space, tp_flycoo *X, const tp_cp_als_options *opts,
                                  tp_kruskal *model, tp_cp_als_result *result);

/* nvecs initial factors into host_init (host, allocated by the caller with X's dtype,
 * order, dims and rank; lambda set to 1): factor k holds the eigenvectors of the
 * largest eigenvalues of Y_k = X_(k) X_(k)^T, each with its entry of largest magnitude
 * positive. Dense: Y_k is formed in the space by GEMMs over the tensor's slabs (I_k^2
 * doubles; TP_ERROR_OUT_OF_MEMORY names the size when it does not fit). Sparse: Y_k is
 * applied without being formed, through the nonzeros that share their other indices
 * (no MTTKRP). The eigenvectors come from a symmetric eigensolver (cyclic Jacobi) when
 * I_k is small, else from subspace iteration with Rayleigh-Ritz. Columns beyond I_k (rank
 * > I_k) are drawn as the random start's, from seed. */
TP_API tp_status tp_cp_nvecs_dense(tp_space *space, const tp_dense *X, uint64_t seed,
                                   tp_kruskal *host_init);
TP_API tp_status tp_cp_nvecs_coo(const tp_coo *host, uint64_t seed, tp_kruskal *host_init);

/* ||X - M||_F computed explicitly by forming M element by element, in double precision
 * on host data: for tests on small tensors. */
TP_API tp_status tp_cp_residual_reference(const tp_dense *host_X, const tp_kruskal *host_model,
                                          double *residual_norm);

#ifdef __cplusplus
}
#endif
#endif
