/* SS-HOPM: eigenpairs of many small symmetric tensors (Kolda & Mayo's shifted
 * symmetric higher-order power method, batched as in Ballard, Kolda & Plantenga).
 *
 * An eigenpair (lambda, x) of a symmetric tensor A of order m and dimension n
 * satisfies A x^(m-1) = lambda x with |x| = 1. The solver runs V starting vectors on
 * each of T tensors (stored by unique values, see symtensor.h) and reports, per
 * (tensor, start), the final lambda, x, a flag and the iteration count.
 *
 * Units: each tensor A is iterated divided by its Frobenius norm
 * s = |A|_F = sqrt(sum_j multinomial_j a_j^2) (the norm of the full tensor, which
 * bounds every |lambda|; s = 1 for a tensor of zeros) and lambda is scaled back by s,
 * so the solver on c A gives c lambda with the same x, flag and iteration count for
 * every c > 0 up to rounding (bit for bit for c = 2^k away from the ends of the type's
 * range). tol and tau are therefore relative to s: a run converges when
 * |delta lambda| < tol s. A fixed shift alpha is in the tensor's units. */
#ifndef TENPORT_SSHOPM_H
#define TENPORT_SSHOPM_H

#include <stdint.h>

#include "tenport/export.h"
#include "tenport/space.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest dimension n the batched solver takes (iterates live in registers or
 * thread-local arrays). */
#define TP_SSHOPM_MAX_DIM 16

typedef enum tp_sshopm_shift {
  TP_SHIFT_FIXED = 0,   /* alpha as given: >= 0 convex (maxima), < 0 concave (minima) */
  TP_SHIFT_ADAPTIVE = 1 /* Kolda & Mayo 2014: smallest shift that keeps the map
                           convex (or concave) at each iterate, with margin tau */
} tp_sshopm_shift;

typedef enum tp_sshopm_kernel {
  TP_SSHOPM_KERNEL_AUTO = 0,    /* unrolled if generated for (m, n), else generic */
  TP_SSHOPM_KERNEL_GENERIC = 1, /* loops over index classes; any (m, n) */
  TP_SSHOPM_KERNEL_UNROLLED = 2 /* generated straight-line code; fails if absent */
} tp_sshopm_kernel;

/* Per (tensor, start) outcome. */
typedef enum tp_sshopm_flag {
  TP_SSHOPM_CONVERGED = 0,      /* |lambda_{k+1} - lambda_k| < tol (and the xtol test) */
  TP_SSHOPM_ZERO_ITERATE = 1,   /* the shifted update vanished: x cannot be normalised */
  TP_SSHOPM_MAX_ITERATIONS = 2, /* max_iterations reached without converging */
  TP_SSHOPM_NONFINITE = 3,      /* the tensor holds a NaN or an infinity: lambda and x are
                                   NaN, iterations 0; the other tensors run as usual */
  TP_SSHOPM_LAMBDA_OVERFLOW = 4 /* lambda is beyond the type's range (values near its
                                   limit): lambda is +-inf, x the last (unit) iterate;
                                   whether the run converged is not reported */
} tp_sshopm_flag;

typedef struct tp_sshopm_options {
  tp_sshopm_shift shift; /* default TP_SHIFT_ADAPTIVE */
  double alpha;          /* fixed shift (TP_SHIFT_FIXED); default 0 */
  int concave;           /* adaptive shift only: seek minima instead of maxima */
  double tau;            /* adaptive margin, relative to s; default 1e-6 */
  double tol;            /* on |delta lambda| / s; 0 runs exactly max_iterations; default
                            1e-10 (1e-6 is a sensible choice in f32) */
  double xtol;           /* if > 0, convergence also needs |x_{k+1} - x_k| <= xtol: lambda
                            settles quadratically faster than x, so |delta lambda| alone
                            stops with |A x^(m-1) - lambda x| ~ sqrt(tol); default 0 */
  int max_iterations;    /* default 1000 */
  tp_sshopm_kernel kernel;
} tp_sshopm_options;

TP_API void tp_sshopm_options_init(tp_sshopm_options *options);

/* The batch: T tensors of U = C(m+n-1, m) unique values each (T x U, row-major) and
 * V starting vectors shared by all tensors (V x n, row-major, unit norm). */
typedef struct tp_sshopm_problem {
  int order, dim;
  int64_t num_tensors;
  int num_starts;
} tp_sshopm_problem;

/* Outputs, all in the space, indexed by t * V + v: lambda and iterations (T x V),
 * x (T x V x n), flag (T x V, a tp_sshopm_flag). iterations may be NULL. */
typedef struct tp_sshopm_out_f32 {
  float *lambda, *x;
  int8_t *flag;
  int32_t *iterations;
} tp_sshopm_out_f32;
typedef struct tp_sshopm_out_f64 {
  double *lambda, *x;
  int8_t *flag;
  int32_t *iterations;
} tp_sshopm_out_f64;

/* Runs the batch. tensors and starts are in the space. A tensor with a non-finite
 * value gets TP_SSHOPM_NONFINITE in every run; non-finite starts, bad shapes and
 * options are reported before any work. */
TP_API tp_status tp_sshopm_f32(tp_space *space, const tp_sshopm_problem *problem,
                               const float *tensors, const float *starts,
                               const tp_sshopm_options *options, const tp_sshopm_out_f32 *out);
TP_API tp_status tp_sshopm_f64(tp_space *space, const tp_sshopm_problem *problem,
                               const double *tensors, const double *starts,
                               const tp_sshopm_options *options, const tp_sshopm_out_f64 *out);

/* 1 if generated straight-line kernels exist for (m, n). */
TP_API int tp_sshopm_has_unrolled(int order, int dim);

/* V starting vectors (host, V x n): entries uniform in [-1, 1], normalised; the same
 * seed gives the same vectors on every backend. */
TP_API tp_status tp_sshopm_random_starts_f64(uint64_t seed, int dim, int num_starts,
                                             double *starts);

/* ---- post-processing of one tensor's results (host) ---------------------------- */

typedef enum tp_eig_kind {
  TP_EIG_LOCAL_MAX = 0, /* projected Hessian negative definite */
  TP_EIG_LOCAL_MIN = 1, /* projected Hessian positive definite */
  TP_EIG_SADDLE = 2,    /* projected Hessian indefinite */
  TP_EIG_DEGENERATE = 3 /* projected Hessian singular to within hessian_tol */
} tp_eig_kind;

/* lambda_tol and hessian_tol are relative to the tensor's Frobenius norm s (see the
 * top of this file), so that c A gives the pairs of A, lambda scaled by c. */
typedef struct tp_eig_merge_options {
  double dot_tol;     /* same eigenvector if |x.y| >= 1 - dot_tol; default 1e-4 */
  double lambda_tol;  /* and |lambda - mu| <= lambda_tol * s; default 1e-4 */
  double hessian_tol; /* |eigenvalue| <= hessian_tol * s is zero; default 1e-6 */
} tp_eig_merge_options;

TP_API void tp_eig_merge_options_init(tp_eig_merge_options *options);

/* Distinct eigenpairs of one tensor, sorted by lambda, largest first. Arrays hold
 * up to V pairs; x is V x n. starts counts the runs that reached each pair. */
typedef struct tp_eigenpairs {
  int count;
  double *lambda, *x;
  tp_eig_kind *kind;
  int *starts;
} tp_eigenpairs;

/* Merges the converged runs (flag == TP_SSHOPM_CONVERGED; others are ignored) of
 * one tensor into distinct eigenpairs, classifies each from the eigenvalues of the
 * projected Hessian (m-1) A x^(m-2) - lambda I on the tangent space of the sphere,
 * and ranks them by lambda. All arrays are on the host; out's arrays must hold V
 * pairs (with V = 0 the run and output arrays may be NULL).
 *
 * Each converged run's x is normalised and its lambda recomputed in double as A x^m
 * (on A / s, then scaled back); runs match when |x.y| >= 1 - dot_tol and their
 * lambdas agree to lambda_tol. A tensor with a non-finite value has no pairs (count 0,
 * not an error), nor has a tensor of zeros (every unit x is an eigenvector of it, with
 * lambda = 0, and none is isolated). Each pair reports the matching run with the
 * smallest residual |A x^(m-1) - lambda x|.
 * Signs: for odd m, (lambda, x) and (-lambda, -x) are the same pair; it is reported
 * with lambda >= 0 (for lambda = 0, the first nonzero entry of x positive), and its
 * kind refers to that representative (the negated pair has the opposite kind: a
 * maximum with lambda < 0 is reported as a minimum). For even m, x and -x are the
 * same eigenvector; x is reported with its largest |entry| positive. For n = 1 the
 * tangent space is empty and the pair is reported as TP_EIG_LOCAL_MAX. Ties in
 * lambda are ordered by kind, then by x lexicographically.
 *
 * Fails with TP_ERROR_INVALID_ARGUMENT on NULL pointers, a bad shape, V < 0, negative
 * or non-finite tolerances, or a flag that is no tp_sshopm_flag; with
 * TP_ERROR_NUMERICAL on a converged run whose lambda or x is not finite or whose |x|
 * differs from 1 by more than 1e-3, or on an eigenvalue beyond the range of double. */
TP_API tp_status tp_sshopm_eigenpairs_f64(int order, int dim, const double *tensor, int num_starts,
                                          const double *lambda, const double *x, const int8_t *flag,
                                          const tp_eig_merge_options *options, tp_eigenpairs *out);

/* The distinct eigenpairs of a batch of tensors, each as tp_sshopm_eigenpairs_f64 gives
 * them, in compact arrays: tensor t's pairs are [first[t], first[t + 1]). */
typedef struct tp_eigenpairs_batch {
  int64_t tensors;
  int64_t *first;     /* tensors + 1 offsets */
  double *lambda, *x; /* every pair's; x: pairs x n */
  tp_eig_kind *kind;
  int *starts;
} tp_eigenpairs_batch;

/* T tensors (tensor_values: T x U unique values, host) and their V runs each (lambda and
 * flag T x V, x T x V x n, host), merged tensor by tensor as tp_sshopm_eigenpairs_f64
 * does, in parallel over the tensors on the host's cores (one thread on the serial
 * backend). *out's arrays are allocated here; free them with tp_eigenpairs_batch_free.
 * A failure (those of tp_sshopm_eigenpairs_f64, or TP_ERROR_OUT_OF_MEMORY) names the
 * tensor of the smallest index that failed, whatever the threads' schedule, and leaves
 * *out empty. */
TP_API tp_status tp_sshopm_eigenpairs_batch_f64(int order, int dim, int64_t tensors,
                                                const double *tensor_values, int num_starts,
                                                const double *lambda, const double *x,
                                                const int8_t *flag,
                                                const tp_eig_merge_options *options,
                                                tp_eigenpairs_batch *out);

/* Frees the arrays of a batch and empties it; safe on an empty or zeroed batch. */
TP_API void tp_eigenpairs_batch_free(tp_eigenpairs_batch *batch);

#ifdef __cplusplus
}
#endif
#endif
