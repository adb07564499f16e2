/* CP-APR's kernels for one precision (TP_REAL, TP_SFX): Phi in two passes (each nonzero's
 * x / max(m, eps), then each (row, column) of Phi summed over the row's nonzeros in their
 * mode order: no atomics, a fixed order), the KKT check, the multiplicative update, the
 * inadmissible zeros' offset and the log-likelihood's terms. Included by
 * cp_apr_f32_kernels.c and cp_apr_f64_kernels.c. */
#include <math.h>
#include <string.h>

#include "portable/tp_portable.h"
#include "algorithms/cp_apr/tp_cp_apr_internal.h"
#include "portable/tp_error.h"

#define FN(name) TP_PASTE3(name, _, TP_SFX)

typedef struct FN(apr_args) {
  const int64_t *idx[TP_COO_MAX_ORDER];
  const int64_t *rowptr, *perm;
  const TP_REAL *values;
  const TP_REAL *A[TP_COO_MAX_ORDER]; /* the factors; B in place of mode n's */
  const double *lambda;               /* log terms: R weights; else NULL */
  TP_REAL *Phi;
  double *v;
  int64_t R;
  double eps;
  int d, n;
} FN(apr_args);

/* The model's entry at nonzero j (mode n's row from A[n], which is B), times lambda when
 * given. */
TP_INLINE double FN(apr_model_at)(const FN(apr_args) * a, int64_t j) {
  double m = 0.0;
  for (int64_t r = 0; r < a->R; ++r) {
    double p = a->lambda ? a->lambda[r] : 1.0;
    for (int k = 0; k < a->d; ++k)
      p *= (double)a->A[k][a->idx[k][j] * a->R + r];
    m += p;
  }
  return m;
}

TP_RANGE_KERNEL(FN(apr_ratio), FN(apr_args), j, a) {
  const double m = FN(apr_model_at)(&a, j);
  a.v[j] = (double)a.values[j] / (m > a.eps ? m : a.eps);
}

/* Phi[i, r] = sum over row i's nonzeros j of v_j prod_{k != n} A_k[i_k, r]. */
TP_RANGE2_KERNEL(FN(apr_phi_rows), FN(apr_args), i, r, a) {
  double s = 0.0;
  for (int64_t p = a.rowptr[i]; p < a.rowptr[i + 1]; ++p) {
    const int64_t j = a.perm[p];
    double w = a.v[j];
    for (int k = 0; k < a.d; ++k)
      if (k != a.n)
        w *= (double)a.A[k][a.idx[k][j] * a.R + r];
    s += w;
  }
  a.Phi[i * a.R + r] = (TP_REAL)s;
}

TP_RANGE_KERNEL(FN(apr_log_term), FN(apr_args), j, a) {
  const double x = (double)a.values[j];
  a.v[j] = x > 0 ? x * log(FN(apr_model_at)(&a, j)) : 0.0;
}

static void FN(apr_fill)(FN(apr_args) * a, const tpi_apr_tensor *t, const tp_kruskal *M) {
  memset(a, 0, sizeof *a);
  a->d = t->X.order, a->R = M->rank, a->values = (const TP_REAL *)t->X.values;
  for (int k = 0; k < a->d; ++k)
    a->idx[k] = t->X.indices[k], a->A[k] = (const TP_REAL *)M->factors[k];
}

tp_status FN(tpi_apr_phi)(tp_space *space, const tpi_apr_phi *q) {
  FN(apr_args) a;
  FN(apr_fill)(&a, q->t, q->M);
  a.n = q->n, a.eps = q->eps, a.v = q->v, a.Phi = (TP_REAL *)q->Phi;
  a.A[q->n] = (const TP_REAL *)q->B;
  a.rowptr = q->t->rowptr[q->n], a.perm = q->t->perm[q->n];
  if (q->t->X.nnz > 0)
    TP_TRY(TP_LAUNCHER(FN(apr_ratio))(space, q->t->X.nnz, a));
  return TP_LAUNCHER(FN(apr_phi_rows))(space, q->t->X.dims[q->n], a.R, a);
}

tp_status FN(tpi_apr_log_terms)(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M,
                                const double *lambda, double *terms) {
  FN(apr_args) a;
  FN(apr_fill)(&a, t, M);
  a.lambda = lambda, a.v = terms;
  return t->X.nnz > 0 ? TP_LAUNCHER(FN(apr_log_term))(space, t->X.nnz, a) : TP_SUCCESS;
}

/* ---- entrywise, over I x R ---------------------------------------------------------------- */

typedef struct FN(apr_entry_args) {
  TP_REAL *A;
  const TP_REAL *Phi;
  double *kkt;
  double kappa, kappa_tol, inadmissible_phi;
} FN(apr_entry_args);

TP_RANGE_KERNEL(FN(apr_kkt), FN(apr_entry_args), e, a) {
  const double b = (double)a.A[e], slack = 1.0 - (double)a.Phi[e];
  const double m = b < slack ? b : slack;
  a.kkt[e] = m < 0 ? -m : m;
}

TP_RANGE_KERNEL(FN(apr_multiply), FN(apr_entry_args), e, a) {
  a.A[e] = (TP_REAL)((double)a.A[e] * (double)a.Phi[e]);
}

TP_RANGE_KERNEL(FN(apr_scooch), FN(apr_entry_args), e, a) {
  if ((double)a.Phi[e] > a.inadmissible_phi && (double)a.A[e] < a.kappa_tol)
    a.A[e] = (TP_REAL)((double)a.A[e] + a.kappa);
}

tp_status FN(tpi_apr_kkt)(tp_space *space, const void *B, const void *Phi, int64_t count,
                          double *kkt) {
  FN(apr_entry_args) a;
  memset(&a, 0, sizeof a);
  a.A = (TP_REAL *)B, a.Phi = (const TP_REAL *)Phi, a.kkt = kkt;
  return TP_LAUNCHER(FN(apr_kkt))(space, count, a);
}

tp_status FN(tpi_apr_multiply)(tp_space *space, void *B, const void *Phi, int64_t count) {
  FN(apr_entry_args) a;
  memset(&a, 0, sizeof a);
  a.A = (TP_REAL *)B, a.Phi = (const TP_REAL *)Phi;
  return TP_LAUNCHER(FN(apr_multiply))(space, count, a);
}

tp_status FN(tpi_apr_scooch)(tp_space *space, void *A, const void *Phi, int64_t count,
                             const tp_cp_apr_options *o) {
  FN(apr_entry_args) a;
  memset(&a, 0, sizeof a);
  a.A = (TP_REAL *)A, a.Phi = (const TP_REAL *)Phi, a.kappa = o->kappa, a.kappa_tol = o->kappa_tol;
  a.inadmissible_phi = o->inadmissible_phi;
  return TP_LAUNCHER(FN(apr_scooch))(space, count, a);
}

#undef FN
