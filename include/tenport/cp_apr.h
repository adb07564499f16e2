/* CP-APR: Poisson maximum-likelihood CP of a count tensor with nonnegative factors
 * (Chi and Kolda, "On tensors, sparsity, and nonnegative factorizations", SIMAX 2012),
 * by multiplicative updates (CP-APR-MU), as the Tensor Toolbox's cp_apr and pyttb's run it.
 *
 * The model M = [[lambda; A_1, ..., A_d]] maximises the log-likelihood
 *     sum_i (x_i log m_i - m_i)
 * over nonnegative factors. Each outer iteration visits every mode n: entries of A_n
 * below kappa_tol whose last Phi exceeded 1 (inadmissible zeros; inadmissible_phi) are
 * raised by kappa
 * (from the second iteration on); lambda moves into the factor, B = A_n diag(lambda);
 * then up to max_inner multiplicative updates B <- B .* Phi with
 *     Phi = (X ./ max(B Pi^T, eps)) Pi,   Pi = the Khatri-Rao product of the other factors,
 * each preceded by the KKT check max |min(B, 1 - Phi)| < tol, which ends the mode's inner
 * loop; finally the columns of B are normalised to sum 1, their sums becoming lambda. The
 * run converges when no mode needed an update in an iteration.
 *
 * Phi of a sparse tensor is computed over its nonzeros only (the zeros contribute 0 to
 * X ./ M), row by row of mode n from the nonzeros sorted by their mode-n index: each
 * nonzero is read once per inner iteration, without atomics, so results do not depend on
 * scheduling. */
#ifndef TENPORT_CP_APR_H
#define TENPORT_CP_APR_H

#include <stdint.h>

#include "tenport/dense.h"
#include "tenport/export.h"
#include "tenport/sparse.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_cp_apr_progress {
  int iteration;  /* outer iterations done */
  int inner;      /* inner iterations of this outer one, all modes */
  double kkt;     /* the largest KKT violation of the modes this iteration */
  double seconds; /* since the start */
} tp_cp_apr_progress;

typedef void (*tp_cp_apr_progress_fn)(const tp_cp_apr_progress *p, void *user);

typedef struct tp_cp_apr_options {
  int64_t rank;
  int max_iters;                  /* outer iterations; default 1000 */
  int max_inner;                  /* multiplicative updates per mode and iteration; default 10 */
  double tol;                     /* on the KKT violation; default 1e-4 */
  double kappa;                   /* the inadmissible zeros' offset; default 1e-2 */
  double kappa_tol;               /* below it an entry counts as zero; default 1e-10 */
  double eps;                     /* the model's floor in X ./ M; default 1e-10 */
  double inadmissible_phi;        /* an entry below kappa_tol is an inadmissible zero when its
                              last Phi exceeds this: 1 (default; Chi and Kolda, and the
                              Tensor Toolbox: the zeros whose gradient 1 - Phi is
                              negative), or 0 as pyttb's cp_apr has it */
  uint64_t seed;                  /* random start (factors uniform in [0, 1)); default 1 */
  const tp_kruskal *init;         /* start in host memory (its factors, nonnegative; lambda
                             ignored), or NULL */
  tp_cp_apr_progress_fn progress; /* may be NULL */
  void *progress_user;
} tp_cp_apr_options;

TP_API tp_cp_apr_options tp_cp_apr_options_default(void);

typedef struct tp_cp_apr_result {
  int iterations; /* outer */
  int64_t inner;  /* inner iterations in all, every mode */
  double kkt;     /* the last iteration's largest KKT violation */
  double loglik;  /* sum (x log m - m) of the final model */
  int converged;
  double seconds;       /* the call after its argument checks */
  double setup_seconds; /* of seconds: the nonzeros laid out per mode, the allocations,
                           the start (and, over ranks, their agreement) */
} tp_cp_apr_result;

/* CP-APR of a sparse count tensor X (host memory; nonnegative values, the counts; at
 * most 2^31 - 1 nonzeros) into model (in the space, X's dtype, dims and rank): lambda the
 * column sums moved out of the factors, every factor's columns summing to 1 (the Tensor
 * Toolbox's normalisation of a CP-APR model). A negative or non-finite value is refused
 * by its indices. result may be NULL. */
TP_API tp_status tp_cp_apr_sparse(tp_space *space, const tp_coo *X, const tp_cp_apr_options *opts,
                                  tp_kruskal *model, tp_cp_apr_result *result);

#ifdef __cplusplus
}
#endif
#endif
