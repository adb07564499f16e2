/* From a bond's pivots to its core and the next residual (Algorithm 1, lines 4-12). The
 * core and the residual are skeletons of the input: they hold input entries only. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "algorithms/sttid/tp_sttid_internal.h"

/* Sorted (index, position) pairs of a pivot list, for lookups by binary search. */
typedef struct pivot_lookup {
  int64_t n;
  int64_t *key, *pos;
} pivot_lookup;

static int compare_pairs(const void *a, const void *b) {
  int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
  return x < y ? -1 : x > y;
}

static tp_status lookup_make(const int64_t *list, int64_t n, pivot_lookup *lk) {
  int64_t *pairs = (int64_t *)malloc(2 * (size_t)(n + 1) * sizeof *pairs);
  lk->key = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
  lk->pos = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
  if (!pairs || !lk->key || !lk->pos) {
    free(pairs), free(lk->key), free(lk->pos);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TT-ID: no host memory for %lld pivots", (long long)n);
  }
  for (int64_t a = 0; a < n; ++a)
    pairs[2 * a] = list[a], pairs[2 * a + 1] = a;
  qsort(pairs, (size_t)n, 2 * sizeof(int64_t), compare_pairs);
  for (int64_t a = 0; a < n; ++a)
    lk->key[a] = pairs[2 * a], lk->pos[a] = pairs[2 * a + 1];
  lk->n = n;
  free(pairs);
  return TP_SUCCESS;
}

/* Position of x in the pivot list, or -1. */
static int64_t lookup_find(const pivot_lookup *lk, int64_t x) {
  int64_t lo = 0, hi = lk->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (lk->key[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < lk->n && lk->key[lo] == x ? lk->pos[lo] : -1;
}

static void lookup_free(pivot_lookup *lk) { free(lk->key), free(lk->pos); }

tp_status tpi_ttid_bond_matrix(const tp_coo *t, int k, const tpi_ttid_residual *res, tp_spmat *m) {
  int64_t cols = 1;
  if (k + 1 < t->order)
    TP_TRY(tp_checked_product(t->dims + k + 1, t->order - k - 1, "TT-ID bond columns", &cols));
  int64_t rows_dims[2] = {res->rank_left, t->dims[k]}, rows;
  TP_TRY(tp_checked_product(rows_dims, 2, "TT-ID bond rows", &rows));
  TP_TRY(tp_spmat_alloc(rows, cols, res->n, m));
  const double *val = (const double *)t->values;
  TP_HOST_OMP(omp parallel for schedule(static) if (res->n > 65536))
  for (int64_t q = 0; q < res->n; ++q) {
    int64_t e = res->entry[q], col = 0;
    for (int mode = k + 1; mode < t->order; ++mode)
      col = col * t->dims[mode] + t->indices[mode][e];
    m->row[q] = res->left[q] * t->dims[k] + t->indices[k][e];
    m->col[q] = col;
    m->values[q] = val[e];
  }
  return TP_SUCCESS;
}

/* Fills a core from the residual entries selected by pos (position of their column among
 * the pivots, or -1 to skip). */
static tp_status core_from(const tp_coo *t, int k, const tpi_ttid_residual *res,
                           const int64_t *right, int64_t rank_right, tp_coo *core) {
  int64_t count = 0;
  for (int64_t q = 0; q < res->n; ++q)
    count += right[q] >= 0;
  int64_t dims[3] = {res->rank_left, t->dims[k], rank_right};
  TP_TRY(tpi_coo_host_alloc(TP_DTYPE_F64, 3, dims, count, core));
  const double *val = (const double *)t->values;
  double *out = (double *)core->values;
  int64_t c = 0;
  for (int64_t q = 0; q < res->n; ++q) {
    if (right[q] < 0)
      continue;
    core->indices[0][c] = res->left[q];
    core->indices[1][c] = t->indices[k][res->entry[q]];
    core->indices[2][c] = right[q];
    out[c++] = val[res->entry[q]];
  }
  tp_status st = tpi_coo_sort(core);
  if (st != TP_SUCCESS)
    tpi_coo_host_free(core);
  return st;
}

tp_status tpi_ttid_core(const tp_coo *t, int k, const tpi_ttid_residual *res, const tp_spmat *m,
                        const tp_prrlu_result *piv, tp_coo *core) {
  pivot_lookup lk;
  TP_TRY(lookup_make(piv->cols, piv->rank, &lk));
  int64_t *right = (int64_t *)malloc((size_t)(res->n + 1) * sizeof *right);
  if (!right) {
    lookup_free(&lk);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TT-ID: no host memory for core %d", k);
  }
  TP_HOST_OMP(omp parallel for schedule(static) if (res->n > 65536))
  for (int64_t q = 0; q < res->n; ++q)
    right[q] = lookup_find(&lk, m->col[q]);
  tp_status st = core_from(t, k, res, right, piv->rank, core);
  free(right);
  lookup_free(&lk);
  return st;
}

tp_status tpi_ttid_last_core(const tp_coo *t, const tpi_ttid_residual *res, tp_coo *core) {
  int64_t *right = (int64_t *)calloc((size_t)(res->n + 1), sizeof *right);
  if (!right)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TT-ID: no host memory for the last core");
  tp_status st = core_from(t, t->order - 1, res, right, 1, core);
  free(right);
  return st;
}

tp_status tpi_ttid_next_residual(const tpi_ttid_residual *res, const tp_spmat *m,
                                 const tp_prrlu_result *piv, tpi_ttid_residual *next) {
  memset(next, 0, sizeof *next);
  pivot_lookup lk;
  TP_TRY(lookup_make(piv->rows, piv->rank, &lk));
  int64_t *left = (int64_t *)malloc((size_t)(res->n + 1) * sizeof *left);
  next->entry = (int64_t *)malloc((size_t)(res->n + 1) * sizeof(int64_t));
  next->left = (int64_t *)malloc((size_t)(res->n + 1) * sizeof(int64_t));
  if (!left || !next->entry || !next->left) {
    free(left), lookup_free(&lk), tpi_ttid_residual_free(next);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TT-ID: no host memory for the residual");
  }
  TP_HOST_OMP(omp parallel for schedule(static) if (res->n > 65536))
  for (int64_t q = 0; q < res->n; ++q)
    left[q] = lookup_find(&lk, m->row[q]);
  for (int64_t q = 0; q < res->n; ++q)
    if (left[q] >= 0) {
      next->entry[next->n] = res->entry[q];
      next->left[next->n++] = left[q];
    }
  next->rank_left = piv->rank;
  free(left);
  lookup_free(&lk);
  return TP_SUCCESS;
}

void tpi_ttid_residual_free(tpi_ttid_residual *r) {
  if (!r)
    return;
  free(r->entry), free(r->left);
  memset(r, 0, sizeof *r);
}
