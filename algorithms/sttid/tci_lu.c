/* LU factors of the cross matrices X_k = M_k(I_k, J_k) and row-vector solves with them.
 *
 * X_k is never stored: its row a is core k's row at pivot row I_k[a] (a core holds
 * M_k(:, J_k), and its third index is already the position among the pivot columns).
 * The pivots came from complete pivoting, so taking rows and columns in pivot order
 * needs no further pivoting and keeps |L| <= 1. The factorisation is up-looking and
 * row by row: row i of X is scattered into a dense accumulator of length r, the earlier
 * rows of U are subtracted in order, and what is left splits into row i of L and of U.
 * Both factors are kept row-wise, which is the order the row-vector solves read them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sttid/tp_tci_internal.h"

/* ---- growing row storage ------------------------------------------------------------- */

/* The off-diagonal entries of one factor; fill is unknown in advance, so it grows. */
typedef struct lu_store {
  int64_t n, cap;
  int64_t *col;
  double *val;
} lu_store;

static tp_status store_push(lu_store *s, int64_t col, double v) {
  if (s->n == s->cap) {
    int64_t cap = s->cap ? 2 * s->cap : 64;
    int64_t *c = (int64_t *)realloc(s->col, (size_t)cap * sizeof(int64_t));
    if (c)
      s->col = c;
    double *x = c ? (double *)realloc(s->val, (size_t)cap * sizeof(double)) : NULL;
    if (!x)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TCI LU: no host memory for %lld factor entries",
                      (long long)cap);
    s->val = x, s->cap = cap;
  }
  s->col[s->n] = col, s->val[s->n++] = v;
  return TP_SUCCESS;
}

/* ---- factorisation ------------------------------------------------------------------- */

/* acc = row a of X_k (acc is zero on entry). */
static void scatter_cross_row(const tp_tci *t, int k, const tpi_tci_core_rows *rows, int64_t a,
                              double *acc) {
  const tp_coo *g = &t->cores[k];
  int64_t q = tpi_tci_core_rows_find(rows, t->pivot_rows[k][a]);
  if (q < 0)
    return; /* an empty row: the zero diagonal reports it */
  for (int64_t e = rows->ptr[q]; e < rows->ptr[q + 1]; ++e)
    acc[g->indices[2][e]] = ((const double *)g->values)[e];
}

/* Subtracts the multiples of U's rows 0..i-1 that zero acc[0..i-1]; the multipliers are
 * left in acc[0..i-1]. Row j of U only touches columns > j, so increasing j is enough. */
static void eliminate_row(const tpi_tci_lu *lu, int64_t i, double *acc) {
  for (int64_t j = 0; j < i; ++j) {
    if (acc[j] == 0)
      continue;
    double l = acc[j] / lu->u_diag[j];
    acc[j] = l;
    for (int64_t p = lu->u_ptr[j]; p < lu->u_ptr[j + 1]; ++p)
      acc[lu->u_col[p]] -= l * lu->u_val[p];
  }
}

/* Moves acc's nonzeros into row i of L (columns < i) and U (diagonal, columns > i) and
 * clears acc. */
static tp_status harvest_row(tpi_tci_lu *lu, int64_t i, double *acc, lu_store *l, lu_store *u) {
  tp_status st = TP_SUCCESS;
  for (int64_t j = 0; j < lu->r && st == TP_SUCCESS; ++j) {
    if (acc[j] != 0 && j != i)
      st = store_push(j < i ? l : u, j, acc[j]);
    acc[j] = 0;
  }
  lu->l_ptr[i + 1] = l->n, lu->u_ptr[i + 1] = u->n;
  lu->u_col = u->col, lu->u_val = u->val; /* the next rows eliminate with U so far */
  return st;
}

static tp_status singular(const tp_tci *t, int k, int64_t i, double diag) {
  return TP_ERROR(TP_ERROR_NUMERICAL,
                  "TCI: bond %d's cross matrix is singular: U(%lld, %lld) = %g in its LU "
                  "factors (pivot row %lld, column %lld of M_%d)",
                  k, (long long)i, (long long)i, diag, (long long)t->pivot_rows[k][i],
                  (long long)t->pivot_cols[k][i], k);
}

static tp_status factor_rows(const tp_tci *t, int k, const tpi_tci_core_rows *rows, tpi_tci_lu *lu,
                             double *acc) {
  lu_store l, u;
  memset(&l, 0, sizeof l), memset(&u, 0, sizeof u);
  tp_status st = TP_SUCCESS;
  for (int64_t i = 0; i < lu->r && st == TP_SUCCESS; ++i) {
    scatter_cross_row(t, k, rows, i, acc);
    eliminate_row(lu, i, acc);
    lu->u_diag[i] = acc[i];
    if (!(fabs(acc[i]) > 0) || !isfinite(acc[i]))
      st = singular(t, k, i, acc[i]);
    else
      st = harvest_row(lu, i, acc, &l, &u);
  }
  /* the factor owns the arrays from here, on failure too (tpi_tci_lu_free frees them) */
  lu->l_col = l.col, lu->l_val = l.val, lu->u_col = u.col, lu->u_val = u.val;
  return st;
}

tp_status tpi_tci_lu_factor(const tp_tci *t, int bond, const tpi_tci_core_rows *rows,
                            tpi_tci_lu *lu) {
  memset(lu, 0, sizeof *lu);
  int64_t r = t->ranks[bond + 1];
  lu->r = r;
  lu->l_ptr = (int64_t *)calloc((size_t)(r + 1), sizeof(int64_t));
  lu->u_ptr = (int64_t *)calloc((size_t)(r + 1), sizeof(int64_t));
  lu->u_diag = (double *)malloc((size_t)r * sizeof(double));
  double *acc = (double *)calloc((size_t)r, sizeof(double));
  tp_status st = TP_SUCCESS;
  if (!lu->l_ptr || !lu->u_ptr || !lu->u_diag || !acc)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TCI LU: no host memory for a %lld x %lld cross",
                  (long long)r, (long long)r);
  else
    st = factor_rows(t, bond, rows, lu, acc);
  free(acc);
  if (st != TP_SUCCESS)
    tpi_tci_lu_free(lu);
  return st;
}

void tpi_tci_lu_free(tpi_tci_lu *lu) {
  if (!lu)
    return;
  free(lu->l_ptr), free(lu->l_col), free(lu->l_val);
  free(lu->u_ptr), free(lu->u_col), free(lu->u_val), free(lu->u_diag);
  memset(lu, 0, sizeof *lu);
}

/* ---- solves -------------------------------------------------------------------------- */

/* y X = w as z U = w, then y L = z. Row i of U is finished once z_i is known, so both
 * sweeps push a solved value along its row (axpy form), reading each factor row-wise. */
void tpi_tci_lu_solve_row(const tpi_tci_lu *lu, double *w) {
  for (int64_t i = 0; i < lu->r; ++i) {
    double z = w[i] / lu->u_diag[i];
    w[i] = z;
    if (z != 0)
      for (int64_t p = lu->u_ptr[i]; p < lu->u_ptr[i + 1]; ++p)
        w[lu->u_col[p]] -= z * lu->u_val[p];
  }
  for (int64_t i = lu->r - 1; i > 0; --i) {
    double y = w[i];
    if (y != 0)
      for (int64_t p = lu->l_ptr[i]; p < lu->l_ptr[i + 1]; ++p)
        w[lu->l_col[p]] -= y * lu->l_val[p];
  }
}
