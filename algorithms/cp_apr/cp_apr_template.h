/* CP-APR's kernels for one precision (TP_REAL, TP_SFX): Pi (the other factors' rows'
 * product at each nonzero, in mode n's order, formed once per mode), Phi in passes over
 * it (each nonzero's x / max(m, eps), then each (row, column) of Phi summed over the
 * row's nonzeros in their mode order, by segments: no atomics, a fixed order), the KKT
 * check, the
 * multiplicative update, the inadmissible zeros' offset and the log-likelihood's terms.
 * Included by cp_apr_f32_kernels.c and cp_apr_f64_kernels.c. */
#include <math.h>
#include <string.h>

#include "portable/tp_portable.h"
#include "algorithms/cp_apr/tp_cp_apr_internal.h"
#include "portable/tp_error.h"

#define FN(name) TP_PASTE3(name, _, TP_SFX)

/* The log-likelihood's terms: every factor at every nonzero. */
typedef struct FN(apr_args) {
  const int64_t *idx[TP_COO_MAX_ORDER];
  const TP_REAL *values;
  const TP_REAL *A[TP_COO_MAX_ORDER];
  const double *lambda; /* R weights */
  double *v;
  int64_t R;
  int d;
} FN(apr_args);

/* The model's entry at nonzero j, times lambda. */
TP_INLINE double FN(apr_model_at)(const FN(apr_args) * a, int64_t j) {
  double m = 0.0;
  for (int64_t r = 0; r < a->R; ++r) {
    double p = a->lambda[r];
    for (int k = 0; k < a->d; ++k)
      p *= (double)a->A[k][a->idx[k][j] * a->R + r];
    m += p;
  }
  return m;
}

/* The per-nonzero kernels take arguments without arrays: one indexed at run time keeps
 * the whole argument block in memory, and the host's launch then copies it for every
 * work item. */

/* Pi[p, r] = A[idx[p], r] (first) or Pi[p, r] * A[idx[p], r]: one factor k != n of Pi. */
typedef struct FN(apr_pi_args) {
  const int64_t *idx;
  const TP_REAL *A;
  TP_REAL *Pi;
  int64_t R;
  int first;
} FN(apr_pi_args);

TP_RANGE2_KERNEL(FN(apr_pi_rows), FN(apr_pi_args), p, r, a) {
  const TP_REAL f = a.A[a.idx[p] * a.R + r];
  a.Pi[p * a.R + r] = a.first ? f : a.Pi[p * a.R + r] * f;
}

/* Phi's passes over mode n's nonzeros (rows[p] their mode-n index). */
typedef struct FN(apr_phi_args) {
  const int64_t *rows, *rowptr;
  const TP_REAL *B, *Pi, *x;
  TP_REAL *Phi;
  double *v, *pieces;
  int64_t R, nnz;
  double eps;
} FN(apr_phi_args);

/* v[p] = x / max(m, eps) at nonzero p, m = B's row times Pi's. */
TP_RANGE_KERNEL(FN(apr_ratio), FN(apr_phi_args), p, a) {
  const TP_REAL *b = a.B + a.rows[p] * a.R, *pi = a.Pi + p * a.R;
  double m = 0.0;
  for (int64_t r = 0; r < a.R; ++r)
    m += (double)b[r] * (double)pi[r];
  a.v[p] = (double)a.x[p] / (m > a.eps ? m : a.eps);
}

/* Phi[i, r] = sum over row i's nonzeros p of v[p] Pi[p, r], in two phases so that a
 * row of many nonzeros (a power-law tensor's) is not one thread's: the nonzeros are cut
 * into pieces of TPI_APR_PIECE, and so each row into segments; phase 1, one work item per
 * (piece, column), sums each segment of its piece in order, into Phi when the segment is
 * its whole row, else into the piece's slot (head: the segment at the piece's start;
 * tail: the one starting inside it and running on into the next piece); phase 2 adds a
 * longer row's segments in order. The order of every sum is fixed by the layout alone. */
TP_RANGE2_KERNEL(FN(apr_phi_segments), FN(apr_phi_args), k, r, a) {
  const int64_t first = k * TPI_APR_PIECE;
  const int64_t end = first + TPI_APR_PIECE < a.nnz ? first + TPI_APR_PIECE : a.nnz;
  for (int64_t p = first; p < end;) {
    const int64_t row = a.rows[p];
    const int row_start = p == 0 || a.rows[p - 1] != row;
    double s = 0.0;
    int64_t q = p;
    do {
      s += a.v[q] * (double)a.Pi[q * a.R + r];
      ++q;
    } while (q < end && a.rows[q] == row);
    if (row_start && (q == a.nnz || a.rows[q] != row))
      a.Phi[row * a.R + r] = (TP_REAL)s;
    else
      a.pieces[TPI_APR_PIECE_SLOT(p) * a.R + r] = s;
    p = q;
  }
}

/* Phase 2, per (row, column): an empty row is 0; a row of several segments is their sum. */
TP_RANGE2_KERNEL(FN(apr_phi_rows), FN(apr_phi_args), i, r, a) {
  const int64_t first = a.rowptr[i], end = a.rowptr[i + 1];
  if (first == end) {
    a.Phi[i * a.R + r] = (TP_REAL)0;
    return;
  }
  const int64_t next = (first / TPI_APR_PIECE + 1) * TPI_APR_PIECE;
  if (next >= end)
    return; /* one segment: phase 1 wrote it */
  double s = a.pieces[TPI_APR_PIECE_SLOT(first) * a.R + r];
  for (int64_t q = next; q < end; q += TPI_APR_PIECE)
    s += a.pieces[TPI_APR_PIECE_SLOT(q) * a.R + r];
  a.Phi[i * a.R + r] = (TP_REAL)s;
}

TP_RANGE_KERNEL(FN(apr_log_term), FN(apr_args), j, a) {
  const double x = (double)a.values[j];
  a.v[j] = x > 0 ? x * log(FN(apr_model_at)(&a, j)) : 0.0;
}

/* Pi is a product in the factors' precision, one factor at a time in mode order. */
tp_status FN(tpi_apr_pi)(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M, int n,
                         void *Pi) {
  const tp_coo *X = &t->X[n];
  FN(apr_pi_args) a = {NULL, NULL, (TP_REAL *)Pi, M->rank, 1};
  for (int k = 0; k < X->order && X->nnz > 0; ++k) {
    if (k == n)
      continue;
    a.idx = X->indices[k], a.A = (const TP_REAL *)M->factors[k];
    TP_TRY(TP_LAUNCHER(FN(apr_pi_rows))(space, X->nnz, a.R, a));
    a.first = 0;
  }
  return TP_SUCCESS;
}

tp_status FN(tpi_apr_phi)(tp_space *space, const tpi_apr_phi *q) {
  const tp_coo *X = &q->t->X[q->n];
  FN(apr_phi_args) a;
  memset(&a, 0, sizeof a);
  a.rows = X->indices[q->n], a.rowptr = q->t->rowptr[q->n];
  a.B = (const TP_REAL *)q->B, a.Pi = (const TP_REAL *)q->Pi, a.x = (const TP_REAL *)X->values;
  a.Phi = (TP_REAL *)q->Phi, a.v = q->v, a.pieces = q->pieces, a.R = q->M->rank;
  a.nnz = X->nnz, a.eps = q->eps;
  if (X->nnz > 0) {
    TP_TRY(TP_LAUNCHER(FN(apr_ratio))(space, X->nnz, a));
    TP_TRY(TP_LAUNCHER(FN(apr_phi_segments))(space, (X->nnz + TPI_APR_PIECE - 1) / TPI_APR_PIECE,
                                             a.R, a));
  }
  return TP_LAUNCHER(FN(apr_phi_rows))(space, X->dims[q->n], a.R, a);
}

tp_status FN(tpi_apr_log_terms)(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M,
                                const double *lambda, double *terms) {
  const tp_coo *X = &t->X[0];
  FN(apr_args) a;
  memset(&a, 0, sizeof a);
  a.d = X->order, a.R = M->rank, a.values = (const TP_REAL *)X->values;
  for (int k = 0; k < a.d; ++k)
    a.idx[k] = X->indices[k], a.A[k] = (const TP_REAL *)M->factors[k];
  a.lambda = lambda, a.v = terms;
  return t->X[0].nnz > 0 ? TP_LAUNCHER(FN(apr_log_term))(space, t->X[0].nnz, a) : TP_SUCCESS;
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
