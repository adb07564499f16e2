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
 * Solvers:
 * - L-BFGS-B (Byrd, Lu, Nocedal & Zhu; version 3.0 of Morales & Nocedal), the
 *   quasi-Newton step on the host, each function and gradient in the space, with the
 *   defaults the Tensor Toolbox for Python (pyttb) gives it: at most 1000 iterations,
 *   factr 1e7, 10 correction pairs, projected-gradient tolerance 1e-5, 15000 evaluations.
 * - GCP-Adam (Kolda & Hong, SIMODS 2020): steps of Adam along gradients estimated from
 *   samples of the entries, drawn in the space; epochs of epoch_iters steps, after each
 *   the objective estimated on one fixed sample; an epoch whose estimate rises is undone
 *   and the step multiplied by decay, and more than max_fails such epochs end the run.
 *   Dense tensors are sampled uniformly (each sample weighted N / S); sparse ones are
 *   stratified: nonzeros (weight nnz / S) and entries drawn uniformly over the whole
 *   tensor that count only when they are zeros (weight N / S, an unbiased sum over the
 *   zeros). The sampled gradient is the MTTKRP of the sampled tensor. The defaults
 *   are pyttb's: rate 1e-3, decay 0.1, max_fails 1, 1000 epochs of 1000 steps, the
 *   sample counts below. A run is a function of its seed: the samples are drawn from
 *   counters and every sum has a fixed order, whatever the threads or the GPU. A
 *   sparse tensor never takes its dense form.
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
  TP_GCP_SOLVER_LBFGSB = 0, /* full gradient with bounds */
  TP_GCP_SOLVER_ADAM = 1    /* stochastic gradient, Adam's steps */
} tp_gcp_solver;

/* What the progress callback sees after every L-BFGS-B iteration or Adam epoch. */
typedef struct tp_gcp_progress {
  int iteration;        /* 1-based: the iteration, or the epoch */
  int evaluations;      /* function and gradient evaluations (Adam: steps) so far */
  double loss;          /* the objective at the new iterate (Adam: its estimate) */
  double gradient_norm; /* L-BFGS-B: the projected gradient's largest |entry|; Adam: 0 */
  double seconds;       /* since the start of the run */
  double step;          /* Adam: the epoch's step size; L-BFGS-B: 0 */
  int failed;           /* Adam: the epoch raised the estimate and was undone */
} tp_gcp_progress;

typedef void (*tp_gcp_progress_fn)(const tp_gcp_progress *p, void *user);

typedef struct tp_gcp_options {
  int64_t rank;
  tp_gcp_loss loss;       /* default gaussian */
  double loss_param;      /* the loss's parameter (tp_gcp_loss_has_param); default 0: unset */
  tp_gcp_solver solver;   /* default L-BFGS-B */
  double lower;           /* the factors' lower bound; NAN (the default): the loss's own
                             (tp_gcp_loss_lower_bound). A bound below the loss's is refused
                             when the loss needs m >= 0 */
  uint64_t seed;          /* random start; default 1 */
  const tp_kruskal *init; /* start in host memory, or NULL: factors uniform in [0, 1) from
                             seed (tp_kruskal_random), scaled so that ||M|| = ||X|| (its
                             observed entries). Either start has lambda spread over the
                             factors and each component's columns brought to one 2-norm
                             (the Tensor Toolbox's normalize("all"); M is unchanged) */
  int max_iters;          /* default 1000 */
  int max_evals;          /* default 15000 */
  double factr;           /* stop when the objective's relative reduction is below
                             factr * machine epsilon; default 1e7 */
  double pgtol;           /* stop when the projected gradient's largest |entry| is below
                             it; default 1e-5 */
  int memory;             /* L-BFGS correction pairs; default 10 */
  double max_seconds;     /* stop after the iteration that ends past it (0: none) */
  /* GCP-Adam (solver TP_GCP_SOLVER_ADAM) */
  int epochs;                  /* at most this many epochs; default 1000 */
  int epoch_iters;             /* steps per epoch; default 1000 */
  double rate;                 /* Adam's step size; default 1e-3 */
  double decay;                /* the step's factor after a failed epoch; default 0.1 */
  int max_fails;               /* failed epochs allowed; default 1 */
  double f_est_tol;            /* stop once the estimate is below it; default -INFINITY */
  double beta1, beta2, eps;    /* Adam's; defaults 0.9, 0.999, 1e-8 */
  int64_t gradient_samples;    /* per step: dense entries, or sparse nonzeros. 0: dense
                                min(max(1000, 10 N / epochs), N); sparse min(max(1000,
                                3 nnz / epochs), nnz) */
  int64_t gradient_zeros;      /* sparse: zero draws per step; 0: as many as nonzeros,
                                at most the zeros */
  int64_t function_samples;    /* the fixed estimate's. 0: dense min(max(N / 10, 10^6), N);
                                sparse min(max(nnz / 100, 10^5), nnz) */
  int64_t function_zeros;      /* sparse: 0: as many as its nonzeros, at most the zeros */
  int normalize;               /* final model: unit 2-norm columns, weights in lambda, components by
                             decreasing lambda (default 1); 0: lambda = 1, the factors as
                             optimised */
  tp_gcp_progress_fn progress; /* may be NULL */
  void *progress_user;
  const volatile int *cancel; /* read after every iteration: nonzero stops the run with
                                 TP_ERROR_CANCELLED */
} tp_gcp_options;

typedef struct tp_gcp_result {
  int iterations;  /* L-BFGS-B iterations, or Adam epochs */
  int evaluations; /* function and gradient evaluations, or Adam steps */
  double loss;     /* the objective of the returned model (Adam on a sparse tensor:
                          its estimate, loss_is_estimate) */
  int loss_is_estimate;
  double initial_loss; /* at the start */
  double gradient_norm;
  int converged; /* factr or pgtol ended the run */
  int stopped_by_time;
  char stop_reason[64]; /* L-BFGS-B's last task, or "max_iters", "max_evals", "max_seconds";
                           Adam: "epochs", "max_fails", "f_est_tol", "max_seconds" */
  int failed_epochs;
  double seconds;
  double eval_seconds; /* in function and gradient evaluations */
  double data_norm2;   /* ||W X||^2: the observed entries' sum of squares (the nonzeros'
                          for Adam on a sparse tensor), so that a Gaussian fit is
                          1 - sqrt(loss / data_norm2) */
} tp_gcp_result;

TP_API tp_gcp_options tp_gcp_options_default(void);

/* Prints "iter %4d  loss %.10e  |pg| %.3e  %.3f s" (Adam: "epoch %4d  loss estimate
 * %.10e  step %.1e  %.3f s", and "failed: undone") to the FILE* passed as user (stdout
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
 * zeros that count in the objective). The L-BFGS-B solver forms the dense tensor in
 * the space, so it needs twice the dense tensor's bytes there (TP_ERROR_OUT_OF_MEMORY
 * names the size); missing: NULL, or the coordinates (values ignored) of the entries
 * that are missing. Adam samples the nonzeros in the space and never forms the dense
 * tensor (missing entries are not supported with it: NULL). Every dim must be below
 * 2^32 for Adam's samples. */
TP_API tp_status tp_gcp_sparse(tp_space *space, const tp_coo *X, const tp_coo *missing,
                               const tp_gcp_options *opts, tp_kruskal *model,
                               tp_gcp_result *result);

#ifdef __cplusplus
}
#endif
#endif
