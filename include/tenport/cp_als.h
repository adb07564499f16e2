/* CP-ALS for dense tensors: alternating least squares for a rank-R CP decomposition,
 * as in GenTen and the Tensor Toolbox. Per mode n: G = MTTKRP(X, U, n), V = Hadamard
 * product of the Grams U_m^T U_m (m != n), U_n = G V^{-1} (Cholesky; a rank-revealing
 * pivoted Cholesky when V is not numerically positive definite), then column
 * normalisation into lambda (2-norm on the first iteration, max-norm after).
 * fit = 1 - ||X - M|| / ||X||, from ||X||^2, the Grams, lambda and the last mode's MTTKRP
 * (M is never formed). Stops when |fit - previous fit| < tol or after max_iters. */
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
  int iteration;       /* 1-based */
  double fit;
  double delta_fit;    /* fit - previous fit (the first iteration: fit) */
  double seconds;      /* wall time of this iteration */
  int fallback_solves; /* solves this iteration that needed the rank-revealing fallback */
} tp_cp_als_progress;

typedef void (*tp_cp_als_progress_fn)(const tp_cp_als_progress *p, void *user);

typedef struct tp_cp_als_options {
  int64_t rank;
  double tol;          /* on |delta fit|; default 1e-4 */
  int max_iters;       /* default 50 */
  uint64_t seed;       /* random initial guess; default 1 */
  const tp_kruskal *init; /* initial guess in host memory (lambda ignored), or NULL */
  tp_mttkrp_options mttkrp;
  int reuse_partials;  /* share partial contractions across modes (default 1) */
  int normalize;       /* final normalisation to unit columns and sort by lambda (default 1) */
  tp_cp_als_progress_fn progress; /* may be NULL */
  void *progress_user;
} tp_cp_als_options;

typedef struct tp_cp_als_result {
  int iterations;
  double fit;
  int converged;        /* |delta fit| < tol was reached */
  int fallback_solves;  /* total solves that used the rank-revealing fallback */
  int passes_per_iteration; /* full reads of the tensor per iteration by the MTTKRPs */
  double seconds;
  double setup_seconds; /* of seconds, before the first iteration: the tensor's norm, the
                           starting factors, their Grams and, distributed, the first use
                           of every communicator */
  double comm_seconds;  /* distributed runs: in collectives after setup (setup warms the
                           communicators up; tenport/distributed.h) */
  double mttkrp_seconds; /* distributed runs: in this rank's MTTKRPs (0 in one process,
                            where they are not waited for one by one) */
} tp_cp_als_result;

TP_API tp_cp_als_options tp_cp_als_options_default(void);

/* Prints "iter %4d  fit %.10f  delta %+.3e  %.3f s" (and the fallback count when
 * nonzero) to the FILE* passed as user (stdout when NULL). */
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

/* ||X - M||_F computed explicitly by forming M element by element, in double precision
 * on host data: for tests on small tensors. */
TP_API tp_status tp_cp_residual_reference(const tp_dense *host_X, const tp_kruskal *host_model,
                                          double *residual_norm);

#ifdef __cplusplus
}
#endif
#endif
