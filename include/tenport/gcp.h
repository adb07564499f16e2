/* Generalized CP (GCP; Hong, Kolda & Duersch, SIAM Review 2020): a rank-R CP model M of
 * a tensor X that minimises sum_i w_i f(x_i, m_i) over its entries, f the loss of the
 * data's distribution (tp_gcp_loss) and w_i the mask (1: observed, 0: missing; all 1
 * without a mask), with every factor entry >= a lower bound.
 *
 * The gradient with respect to factor k is the MTTKRP of the elementwise derivative
 * tensor Y (y_i = w_i df/dm (x_i, m_i)) with the other factors; the function, Y and the
 * model's entries come from one pass over X in the space, the MTTKRPs are the dense
 * ones of tenport/mttkrp.h.
 *
 * Solver: L-BFGS-B (Byrd, Lu, Nocedal & Zhu; version 3.0 of Morales & Nocedal), the
 * quasi-Newton step on the host, each function and gradient in the space, with the
 * defaults the Tensor Toolbox for Python (pyttb) gives it: at most 1000 iterations,
 * factr 1e7, 10 correction pairs, projected-gradient tolerance 1e-5, 15000 evaluations.
 *
 * The losses, with eps = 1e-10 (x the data, m the model; lower: the factors' default
 * bound):
 *   gaussian           (x - m)^2                                              lower -inf
 *   poisson            m - x log(m + eps)                                     lower 0
 *   poisson-log        exp(m) - x m                                           lower -inf
 *   bernoulli-odds     log(m + 1) - x log(m + eps)                            lower 0
 *   bernoulli-logit    log(exp(m) + 1) - x m                                  lower -inf
 *   gamma              x / (m + eps) + log(m + eps)                           lower 0
 *   rayleigh           2 log(m + eps) + (pi / 4) (x / (m + eps))^2            lower 0
 *   negative-binomial  (r + x) log(m + 1) - x log(m + eps), r the trials      lower 0
 *   huber              (x - m)^2 if |x - m| < d, else 2 d |x - m| - d^2       lower -inf
 *   beta               (m + eps)^b / b - x (m + eps)^(b - 1) / (b - 1)        lower 0
 *   zt-poisson         m - x log(m + eps) + log(1 - exp(-m) + eps)            lower 0
 * The data must suit the loss (observed entries only): nonnegative integers for the
 * Poisson family and negative-binomial, 0 or 1 for the Bernoulli ones, positive values
 * for gamma and rayleigh, nonnegative ones for beta, finite values for every loss. */
#ifndef TENPORT_GCP_H
#define TENPORT_GCP_H

#include <stdint.h>

#include "tenport/cp_als.h"
#include "tenport/dense.h"
#include "tenport/export.h"
#include "tenport/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_gcp_loss {
  TP_GCP_GAUSSIAN = 0,
  TP_GCP_POISSON,
  TP_GCP_POISSON_LOG,
  TP_GCP_BERNOULLI_ODDS,
  TP_GCP_BERNOULLI_LOGIT,
  TP_GCP_GAMMA,
  TP_GCP_RAYLEIGH,
  TP_GCP_NEGATIVE_BINOMIAL, /* param: the number of trials r > 0 */
  TP_GCP_HUBER,             /* param: the threshold d > 0 */
  TP_GCP_BETA,              /* param: b, not 0 or 1 */
  TP_GCP_ZT_POISSON,
  TP_GCP_LOSS_COUNT
} tp_gcp_loss;

/* "gaussian", "poisson", ... as in the table above; NULL for a value out of range. */
TP_API const char *tp_gcp_loss_name(tp_gcp_loss loss);
/* The loss of a name (the table's, case-sensitive); TP_ERROR_INVALID_ARGUMENT listing
 * the names otherwise. */
TP_API tp_status tp_gcp_loss_from_name(const char *name, tp_gcp_loss *loss);
/* 1 when the loss needs its parameter (negative-binomial, huber, beta). */
TP_API int tp_gcp_loss_has_param(tp_gcp_loss loss);
/* The factors' default lower bound for the loss: 0 or -INFINITY. */
TP_API double tp_gcp_loss_lower_bound(tp_gcp_loss loss);
/* f(x, m) and df/dm (x, m) in double precision on the host (either output may be NULL):
 * the definitions the kernels evaluate, for tests and other drivers. */
TP_API tp_status tp_gcp_loss_eval(tp_gcp_loss loss, double param, double x, double m, double *f,
                                  double *dfdm);

typedef enum tp_gcp_solver {
  TP_GCP_SOLVER_LBFGSB = 0 /* full gradient, bounds: the only solver so far */
} tp_gcp_solver;

/* What the progress callback sees after every L-BFGS-B iteration. */
typedef struct tp_gcp_progress {
  int iteration;        /* 1-based */
  int evaluations;      /* function and gradient evaluations so far */
  double loss;          /* the objective at the new iterate */
  double gradient_norm; /* the projected gradient's largest |entry| */
  double seconds;       /* since the start of the run */
} tp_gcp_progress;

typedef void (*tp_gcp_progress_fn)(const tp_gcp_progress *p, void *user);

typedef struct tp_gcp_options {
  int64_t rank;
  tp_gcp_loss loss;            /* default gaussian */
  double loss_param;           /* the loss's parameter (tp_gcp_loss_has_param); default 0: unset */
  tp_gcp_solver solver;        /* default L-BFGS-B */
  double lower;                /* the factors' lower bound; NAN (the default): the loss's own
                                  (tp_gcp_loss_lower_bound). A bound below the loss's is
                                  refused when the loss needs m >= 0 */
  uint64_t seed;               /* random start; default 1 */
  const tp_kruskal *init;      /* start in host memory, or NULL: factors uniform in [0, 1)
                                  from seed (tp_kruskal_random), scaled so that ||M|| = ||X||
                                  (its observed entries), each factor by the same amount */
  int max_iters;               /* default 1000 */
  int max_evals;               /* default 15000 */
  double factr;                /* stop when the objective's relative reduction is below
                                  factr * machine epsilon; default 1e7 */
  double pgtol;                /* stop when the projected gradient's largest |entry| is
                                  below it; default 1e-5 */
  int memory;                  /* L-BFGS correction pairs; default 10 */
  double max_seconds;          /* stop after the iteration that ends past it (0: none) */
  int normalize;               /* final model: unit 2-norm columns, weights in lambda,
                                  components by decreasing lambda (default 1); 0: lambda = 1,
                                  the factors as optimised */
  tp_gcp_progress_fn progress; /* may be NULL */
  void *progress_user;
  const volatile int *cancel; /* read after every iteration: nonzero stops the run with
                                 TP_ERROR_CANCELLED */
} tp_gcp_options;

typedef struct tp_gcp_result {
  int iterations;
  int evaluations;
  double loss;         /* the objective of the returned model */
  double initial_loss; /* at the start */
  double gradient_norm;
  int converged; /* factr or pgtol ended the run */
  int stopped_by_time;
  char stop_reason[64]; /* L-BFGS-B's last task, or "max_iters", "max_evals", "max_seconds" */
  double seconds;
  double eval_seconds; /* in function and gradient evaluations */
} tp_gcp_result;

TP_API tp_gcp_options tp_gcp_options_default(void);

/* Prints "iter %4d  loss %.10e  |pg| %.3e  %.3f s" to the FILE* passed as user (stdout
 * when NULL). */
TP_API void tp_gcp_print_progress(const tp_gcp_progress *p, void *user);

/* GCP of a dense tensor X in the space (float32 or float64). mask: NULL, or a tensor
 * in the space of X's dtype, dims and layout whose nonzero entries mark the observed
 * ones; entries of X where the mask is 0 are never read as data (they may be NaN).
 * *model as for tp_cp_als (memory of the space, X's dtype, order, dims and
 * opts->rank). result may be NULL. The space holds X, the mask, the derivative tensor
 * (X's size) and the factors. */
TP_API tp_status tp_gcp(tp_space *space, const tp_dense *X, const tp_dense *mask,
                        const tp_gcp_options *opts, tp_kruskal *model, tp_gcp_result *result);

/* GCP of a sparse tensor in host memory (duplicates summed; unstored entries are
 * zeros that count in the objective): the L-BFGS-B solver forms the dense tensor in
 * the space, so it needs twice the dense tensor's bytes there (TP_ERROR_OUT_OF_MEMORY
 * names the size). missing: NULL, or the coordinates (values ignored) of the entries
 * that are missing. */
TP_API tp_status tp_gcp_sparse(tp_space *space, const tp_coo *X, const tp_coo *missing,
                               const tp_gcp_options *opts, tp_kruskal *model,
                               tp_gcp_result *result);

#ifdef __cplusplus
}
#endif
#endif
