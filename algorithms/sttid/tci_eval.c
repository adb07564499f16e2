/* Entries and whole tensors from a tensor train in TCI form, and the preparation they
 * share (checks, core row indices, cross LU factors).
 *
 * One entry is a chain of row vectors: w = [1], then per mode w <- w Z_k(:, u_k, :) with
 * Z_k = G_k X_k^{-1}: the core rows of slice u_k combined, then one solve with X_k's LU
 * factors. Each call checks the tensor train and factors its crosses, so it costs about
 * as much as reading the cores; many entries are cheaper through tp_tci_to_dense or
 * tp_tci_error's shared walk.
 *
 * The whole tensor is contracted left to right with the dense interpolation matrices
 * Z_k = G_k X_k^{-1} (Z_{d-1} = G_{d-1}): A_0 = Z_0, A_k = A_{k-1} Z_k, where A_k's rows
 * are (u_0..u_k) with u_0 fastest, so the last A is the tensor in first-index-fastest
 * layout. Rows of Z_k at pivot rows are exactly unit vectors (the paper's identity
 * block), so the rebuilt tensor interpolates the pivots; entries take the same route
 * (tpi_tci_interpolate). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sttid/tp_tci_internal.h"

/* ---- preparation --------------------------------------------------------------------- */

/* Marks bond k's pivot rows in core k's row index. A pivot row without entries, or one
 * given twice, would make X_k singular. */
static tp_status mark_pivots(const tp_tci *t, int k, tpi_tci_core_rows *rows) {
  for (int64_t a = 0; a < t->ranks[k + 1]; ++a) {
    int64_t q = tpi_tci_core_rows_find(rows, t->pivot_rows[k][a]);
    if (q < 0)
      return TP_ERROR(TP_ERROR_NUMERICAL,
                      "TCI: bond %d's pivot row %lld (row %lld of M_%d) "
                      "holds no core entry, so the cross matrix is singular",
                      k, (long long)a, (long long)t->pivot_rows[k][a], k);
    if (rows->pivot[q] >= 0)
      return TP_ERROR(TP_ERROR_NUMERICAL,
                      "TCI: bond %d gives row %lld of M_%d as pivots %lld "
                      "and %lld, so the cross matrix is singular",
                      k, (long long)t->pivot_rows[k][a], k, (long long)rows->pivot[q],
                      (long long)a);
    rows->pivot[q] = a;
  }
  return TP_SUCCESS;
}

tp_status tpi_tci_prepare(const tp_tci *t, tpi_tci_prepared *p) {
  memset(p, 0, sizeof *p);
  TP_TRY(tpi_tci_check_contents(t));
  p->t = t;
  tp_status st = TP_SUCCESS;
  for (int k = 0; k < t->order && st == TP_SUCCESS; ++k)
    st = tpi_tci_core_rows_build(&t->cores[k], &p->rows[k]);
  for (int k = 0; k + 1 < t->order && st == TP_SUCCESS; ++k)
    st = mark_pivots(t, k, &p->rows[k]);
  for (int k = 0; k + 1 < t->order && st == TP_SUCCESS; ++k)
    st = tpi_tci_lu_factor(t, k, &p->rows[k], &p->lu[k]);
  if (st != TP_SUCCESS)
    tpi_tci_prepared_free(p);
  return st;
}

void tpi_tci_prepared_free(tpi_tci_prepared *p) {
  if (!p)
    return;
  for (int k = 0; k < TP_COO_MAX_ORDER; ++k)
    tpi_tci_core_rows_free(&p->rows[k]);
  for (int k = 0; k + 1 < TP_COO_MAX_ORDER; ++k)
    tpi_tci_lu_free(&p->lu[k]);
  memset(p, 0, sizeof *p);
}

/* ---- interpolation ------------------------------------------------------------------- */

/* out += x G_k(row q, :). */
static void add_core_row(const tpi_tci_prepared *p, int k, int64_t q, double x, double *out) {
  const tp_coo *g = &p->t->cores[k];
  const double *val = (const double *)g->values;
  const int64_t *right = g->indices[2];
  for (int64_t e = p->rows[k].ptr[q]; e < p->rows[k].ptr[q + 1]; ++e)
    out[right[e]] += x * val[e];
}

void tpi_tci_interpolation_row(const tpi_tci_prepared *p, int k, int64_t q, double *row) {
  const tp_tci *t = p->t;
  memset(row, 0, (size_t)t->ranks[k + 1] * sizeof(double));
  int64_t a = p->rows[k].pivot[q];
  if (a >= 0) {
    row[a] = 1;
    return;
  }
  add_core_row(p, k, q, 1, row);
  if (k + 1 < t->order)
    tpi_tci_lu_solve_row(&p->lu[k], row);
}

void tpi_tci_interpolate(const tpi_tci_prepared *p, int k, const double *w, int64_t u, double *out,
                         double *scratch) {
  const tp_tci *t = p->t;
  const tpi_tci_core_rows *rows = &p->rows[k];
  size_t bytes = (size_t)t->ranks[k + 1] * sizeof(double);
  memset(out, 0, bytes);
  int64_t s = tpi_tci_core_rows_slice(rows, u);
  if (s < 0)
    return;
  memset(scratch, 0, bytes);
  int units = 0;
  for (int64_t i = rows->slice_ptr[s]; i < rows->slice_ptr[s + 1]; ++i) {
    int64_t q = rows->by_slice[i];
    double x = w[rows->left[q]];
    if (x != 0 && rows->pivot[q] >= 0)
      scratch[rows->pivot[q]] += x, units = 1;
    else if (x != 0)
      add_core_row(p, k, q, x, out);
  }
  if (k + 1 < t->order)
    tpi_tci_lu_solve_row(&p->lu[k], out);
  for (int64_t b = 0; units && b < t->ranks[k + 1]; ++b)
    out[b] += scratch[b];
}

/* ---- one entry ----------------------------------------------------------------------- */

static int64_t largest_rank(const tp_tci *t) {
  int64_t r = 1;
  for (int k = 0; k <= t->order; ++k)
    r = t->ranks[k] > r ? t->ranks[k] : r;
  return r;
}

tp_status tp_tci_evaluate(const tp_tci *t, const int64_t *index, double *value) {
  TP_CHECK_ARG(index && value, "tp_tci_evaluate: index and value must not be NULL");
  TP_TRY(tpi_tci_check(t));
  for (int m = 0; m < t->order; ++m)
    TP_CHECK_ARG(index[m] >= 0 && index[m] < t->dims[m],
                 "tp_tci_evaluate: mode %d index %lld is outside [0, %lld)", m, (long long)index[m],
                 (long long)t->dims[m]);
  tpi_tci_prepared p;
  TP_TRY(tpi_tci_prepare(t, &p));
  int64_t r = largest_rank(t);
  double *w = (double *)calloc((size_t)r, sizeof(double));
  double *v = (double *)calloc((size_t)r, sizeof(double));
  double *scratch = (double *)calloc((size_t)r, sizeof(double));
  if (!w || !v || !scratch) {
    free(w), free(v), free(scratch), tpi_tci_prepared_free(&p);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "tp_tci_evaluate: no host memory for rank %lld",
                    (long long)r);
  }
  w[0] = 1;
  for (int k = 0; k < t->order; ++k) {
    tpi_tci_interpolate(&p, k, w, index[k], v, scratch);
    double *swap = w;
    w = v, v = swap;
  }
  *value = w[0];
  free(w), free(v), free(scratch);
  tpi_tci_prepared_free(&p);
  return TP_SUCCESS;
}

/* ---- the whole tensor ---------------------------------------------------------------- */

/* a * b, or -1 when it exceeds limit (no overflow either way: a, b >= 1). */
static int64_t product_within(int64_t a, int64_t b, int64_t limit) {
  return a > limit / b ? -1 : a * b;
}

/* Every array the contraction holds (A_k and Z_k) within max_elements, so a malformed
 * tensor train with ranks beyond its unfoldings' sizes cannot ask for more. */
static tp_status check_sizes(const tp_tci *t, int64_t max_elements) {
  int64_t rows = 1;
  for (int k = 0; k < t->order; ++k) {
    int64_t z = product_within(t->ranks[k], t->dims[k], max_elements);
    z = z < 0 ? -1 : product_within(z, t->ranks[k + 1], max_elements);
    rows = rows < 0 ? -1 : product_within(rows, t->dims[k], max_elements);
    int64_t a = rows < 0 ? -1 : product_within(rows, t->ranks[k + 1], max_elements);
    if (z < 0 || a < 0)
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "tp_tci_to_dense: core %d's contraction needs %s of more than "
                      "max_elements = %lld entries (ranks %lld and %lld)",
                      k, z < 0 ? "an interpolation matrix" : "a partial tensor",
                      (long long)max_elements, (long long)t->ranks[k], (long long)t->ranks[k + 1]);
  }
  return TP_SUCCESS;
}

static double *alloc_zeros(int64_t n) {
  if ((uint64_t)n > SIZE_MAX / sizeof(double))
    return NULL;
  return (double *)calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

/* Z_k dense, row (left, u) at (left * dims[k] + u) * ranks[k+1]. Rows without entries
 * stay zero. */
static tp_status interpolation_matrix(const tpi_tci_prepared *p, int k, double **out) {
  const tp_tci *t = p->t;
  const tpi_tci_core_rows *rows = &p->rows[k];
  int64_t r = t->ranks[k + 1];
  double *z = alloc_zeros(t->ranks[k] * t->dims[k] * r);
  if (!z)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "tp_tci_to_dense: no host memory for core %d's %lld x %lld x %lld "
                    "interpolation matrix",
                    k, (long long)t->ranks[k], (long long)t->dims[k], (long long)r);
  TP_HOST_OMP(omp parallel for schedule(dynamic, 64) if (rows->n > 256))
  for (int64_t q = 0; q < rows->n; ++q)
    tpi_tci_interpolation_row(p, k, q, z + rows->key[q] * r);
  *out = z;
  return TP_SUCCESS;
}

/* b((u * np + p) * rz + c) = sum_j a(p * ra + j) z((j * n + u) * rz + c): the next partial
 * tensor, its new mode slowest so that u_0 stays fastest. Zero entries of a (the cores
 * are sparse) are skipped. */
static void contract(const double *a, int64_t np, int64_t ra, const double *z, int64_t n,
                     int64_t rz, double *b) {
  TP_HOST_OMP(omp parallel for schedule(static) if ((double)(np * n) * ra * rz > 65536))
  for (int64_t q = 0; q < np * n; ++q) {
    int64_t u = q / np, p = q % np;
    double *out = b + q * rz;
    for (int64_t j = 0; j < ra; ++j) {
      double x = a[p * ra + j];
      if (x == 0)
        continue;
      const double *zr = z + (j * n + u) * rz;
      for (int64_t c = 0; c < rz; ++c)
        out[c] += x * zr[c];
    }
  }
}

/* A_k for k = 1..d-1, the last one written into dst. */
static tp_status contract_all(const tpi_tci_prepared *p, double *a, double *dst) {
  const tp_tci *t = p->t;
  int64_t np = t->dims[0];
  tp_status st = TP_SUCCESS;
  for (int k = 1; k < t->order && st == TP_SUCCESS; ++k) {
    double *z = NULL;
    st = interpolation_matrix(p, k, &z);
    int last = k + 1 == t->order;
    double *b = last ? dst : alloc_zeros(np * t->dims[k] * t->ranks[k + 1]);
    if (st == TP_SUCCESS && !b)
      st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "tp_tci_to_dense: no host memory for the partial tensor of modes 0..%d", k);
    if (st == TP_SUCCESS)
      contract(a, np, t->ranks[k], z, t->dims[k], t->ranks[k + 1], b);
    free(z), free(a);
    a = last ? NULL : b;
    np *= t->dims[k];
  }
  free(a);
  return st;
}

tp_status tp_tci_to_dense(const tp_tci *t, int64_t max_elements, tp_dense *out) {
  TP_CHECK_ARG(out, "tp_tci_to_dense: the output is NULL");
  memset(out, 0, sizeof *out);
  TP_TRY(tpi_tci_check(t));
  TP_CHECK_ARG(max_elements >= 1, "tp_tci_to_dense: max_elements %lld must be positive",
               (long long)max_elements);
  int64_t total;
  TP_TRY(tp_checked_product(t->dims, t->order, "tp_tci_to_dense", &total));
  TP_CHECK_ARG(total <= max_elements,
               "tp_tci_to_dense: the tensor has %lld entries, more than max_elements = %lld",
               (long long)total, (long long)max_elements);
  TP_TRY(check_sizes(t, max_elements));
  tpi_tci_prepared p;
  TP_TRY(tpi_tci_prepare(t, &p));
  double *a = NULL;
  tp_status st = tp_dense_alloc(NULL, TP_DTYPE_F64, t->order, t->dims, TP_LAYOUT_LEFT, out);
  if (st == TP_SUCCESS)
    memset(out->data, 0, (size_t)total * sizeof(double));
  if (st == TP_SUCCESS)
    st = interpolation_matrix(&p, 0, &a); /* A_0 = Z_0, its one row block */
  if (st == TP_SUCCESS)
    st = contract_all(&p, a, (double *)out->data);
  tpi_tci_prepared_free(&p);
  if (st != TP_SUCCESS) {
    tp_dense_free(NULL, out);
    memset(out, 0, sizeof *out);
  }
  return st;
}
