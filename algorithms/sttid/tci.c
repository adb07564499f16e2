/* Tensor trains in TCI form: freeing, the global multi-indices of the pivots, the checks
 * every user of a tp_tci runs first (a tensor train may come from a file or be built by
 * hand, so nothing about its shape or contents is taken on trust), and the row index of
 * a core that evaluation and the error walk through. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/sttid.h"
#include "portable/tp_error.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "algorithms/sttid/tp_tci_internal.h"

void tp_tci_free(tp_tci *t) {
  if (!t)
    return;
  int order = t->order < 0 ? 0 : t->order > TP_COO_MAX_ORDER ? TP_COO_MAX_ORDER : t->order;
  for (int k = 0; k < order; ++k)
    tp_coo_free(NULL, &t->cores[k]);
  for (int k = 0; k + 1 < order; ++k)
    free(t->pivot_rows[k]), free(t->pivot_cols[k]);
  memset(t, 0, sizeof *t);
}

/* ---- the descriptor ------------------------------------------------------------------ */

static tp_status check_core(const tp_tci *t, int k) {
  const tp_coo *g = &t->cores[k];
  TP_CHECK_ARG(g->dtype == TP_DTYPE_F64 && g->order == 3,
               "TCI: core %d must be an f64 tensor of order 3 (it has dtype %s, order %d)", k,
               tp_dtype_name(g->dtype), g->order);
  TP_CHECK_ARG(g->dims[0] == t->ranks[k] && g->dims[1] == t->dims[k] &&
                   g->dims[2] == t->ranks[k + 1],
               "TCI: core %d has shape %lld x %lld x %lld; ranks and dims say %lld x %lld x %lld",
               k, (long long)g->dims[0], (long long)g->dims[1], (long long)g->dims[2],
               (long long)t->ranks[k], (long long)t->dims[k], (long long)t->ranks[k + 1]);
  return tpi_coo_check_arrays(g);
}

tp_status tpi_tci_check(const tp_tci *t) {
  TP_CHECK_ARG(t, "the TCI is NULL");
  int d = t->order;
  TP_CHECK_ARG(d >= 2 && d <= TP_COO_MAX_ORDER, "TCI: order %d is outside [2, %d]", d,
               TP_COO_MAX_ORDER);
  TP_CHECK_ARG(t->ranks[0] == 1 && t->ranks[d] == 1,
               "TCI: the boundary ranks are %lld and %lld; both must be 1", (long long)t->ranks[0],
               (long long)t->ranks[d]);
  for (int k = 0; k < d; ++k) {
    TP_CHECK_ARG(t->dims[k] >= 1, "TCI: dims[%d] = %lld, must be at least 1", k,
                 (long long)t->dims[k]);
    TP_CHECK_ARG(t->ranks[k + 1] >= 1, "TCI: ranks[%d] = %lld, must be at least 1", k + 1,
                 (long long)t->ranks[k + 1]);
    int64_t row_dims[2] = {t->ranks[k], t->dims[k]}, rows;
    TP_TRY(tp_checked_product(row_dims, 2, "TCI bond rows", &rows));
    TP_TRY(check_core(t, k));
  }
  for (int k = 0; k + 1 < d; ++k)
    TP_CHECK_ARG(t->pivot_rows[k] && t->pivot_cols[k],
                 "TCI: bond %d's pivot rows or columns are NULL", k);
  return TP_SUCCESS;
}

/* ---- the contents -------------------------------------------------------------------- */

/* -1, 0 or 1 as entry e of a core comes before, at or after entry e - 1. */
static int compare_previous(const tp_coo *g, int64_t e) {
  for (int m = 0; m < 3; ++m) {
    int64_t a = g->indices[m][e - 1], b = g->indices[m][e];
    if (a != b)
      return a < b ? 1 : -1;
  }
  return 0;
}

static tp_status check_core_contents(const tp_tci *t, int k) {
  const tp_coo *g = &t->cores[k];
  tp_status st = tp_coo_validate(g);
  if (st != TP_SUCCESS) {
    char why[512]; /* the message is rewritten below, so it is copied out first */
    snprintf(why, sizeof why, "%s", tp_last_error());
    return TP_ERROR(st, "TCI: core %d: %s", k, why);
  }
  for (int64_t e = 1; e < g->nnz; ++e)
    if (compare_previous(g, e) <= 0)
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "TCI: core %d: entry %lld %s entry %lld; cores must be sorted by index "
                      "without repeated coordinates",
                      k, (long long)e, compare_previous(g, e) ? "comes before" : "repeats",
                      (long long)(e - 1));
  return TP_SUCCESS;
}

/* Columns of M_k, prod(dims[k+1..d-1]), or INT64_MAX when that product does not fit
 * (then any column >= 0 is representable). */
static int64_t bond_cols(const tp_tci *t, int k) {
  int64_t p = 1;
  for (int m = k + 1; m < t->order; ++m) {
    if (p > INT64_MAX / t->dims[m])
      return INT64_MAX;
    p *= t->dims[m];
  }
  return p;
}

/* The pivots of bond k: rows in [0, ranks[k] * dims[k]), columns in [0, cols). A pivot row
 * given twice or without core entries makes the cross singular, which tpi_tci_prepare
 * reports when it marks the pivots. */
static tp_status check_bond_pivots(const tp_tci *t, int k) {
  int64_t rows = t->ranks[k] * t->dims[k], cols = bond_cols(t, k), r = t->ranks[k + 1];
  for (int64_t a = 0; a < r; ++a) {
    int64_t i = t->pivot_rows[k][a], j = t->pivot_cols[k][a];
    TP_CHECK_ARG(i >= 0 && i < rows, "TCI: bond %d's pivot row %lld is %lld, outside [0, %lld)", k,
                 (long long)a, (long long)i, (long long)rows);
    TP_CHECK_ARG(j >= 0 && j < cols, "TCI: bond %d's pivot column %lld is %lld, outside [0, %lld)",
                 k, (long long)a, (long long)j, (long long)cols);
  }
  return TP_SUCCESS;
}

tp_status tpi_tci_check_contents(const tp_tci *t) {
  TP_TRY(tpi_tci_check(t));
  for (int k = 0; k < t->order; ++k)
    TP_TRY(check_core_contents(t, k));
  for (int k = 0; k + 1 < t->order; ++k)
    TP_TRY(check_bond_pivots(t, k));
  return TP_SUCCESS;
}

/* ---- pivot multi-indices ------------------------------------------------------------- */

static tp_status check_pivot_query(const tp_tci *t, int bond, int64_t a, const int64_t *index) {
  TP_TRY(tpi_tci_check(t));
  TP_CHECK_ARG(index, "TCI pivot index: the output array is NULL");
  TP_CHECK_ARG(bond >= 0 && bond + 1 < t->order, "TCI: bond %d is outside [0, %d)", bond,
               t->order - 1);
  TP_CHECK_ARG(a >= 0 && a < t->ranks[bond + 1],
               "TCI: pivot %lld of bond %d is outside "
               "[0, %lld)",
               (long long)a, bond, (long long)t->ranks[bond + 1]);
  return TP_SUCCESS;
}

/* A pivot row of bond k is left * dims[k] + u_k with left a pivot row of bond k - 1, so
 * the multi-index unwinds from bond k back to bond 0. */
tp_status tp_tci_pivot_row_index(const tp_tci *t, int bond, int64_t a, int64_t *index) {
  TP_TRY(check_pivot_query(t, bond, a, index));
  int64_t position = a;
  for (int k = bond; k >= 0; --k) {
    int64_t row = t->pivot_rows[k][position];
    TP_CHECK_ARG(row >= 0 && row < t->ranks[k] * t->dims[k],
                 "TCI: bond %d's pivot row %lld is %lld, outside [0, %lld)", k, (long long)position,
                 (long long)row, (long long)(t->ranks[k] * t->dims[k]));
    index[k] = row % t->dims[k];
    position = row / t->dims[k];
  }
  return TP_SUCCESS;
}

/* A pivot column is the C-order linear index of (u_{k+1}, ..., u_{d-1}). */
tp_status tp_tci_pivot_col_index(const tp_tci *t, int bond, int64_t a, int64_t *index) {
  TP_TRY(check_pivot_query(t, bond, a, index));
  int64_t col = t->pivot_cols[bond][a], rest = col;
  for (int m = t->order - 1; m > bond; --m) {
    index[m - bond - 1] = rest % t->dims[m];
    rest /= t->dims[m];
  }
  TP_CHECK_ARG(col >= 0 && rest == 0,
               "TCI: bond %d's pivot column %lld is %lld, outside the "
               "column range of the later modes",
               bond, (long long)a, (long long)col);
  return TP_SUCCESS;
}

/* ---- the rows of a core -------------------------------------------------------------- */

static int64_t entry_key(const tp_coo *g, int64_t e) {
  return g->indices[0][e] * g->dims[1] + g->indices[1][e];
}

static int bits_for(int64_t max_value) {
  int bits = 1;
  while (bits < 63 && (max_value >> bits) != 0)
    ++bits;
  return bits;
}

/* by_slice and the slices: the rows sorted by u * ranks + left, unique and within 64
 * bits (tpi_tci_check bounds ranks * dims), then cut into runs of equal u. */
static tp_status order_by_slice(tpi_tci_core_rows *rows, int64_t r, int64_t n) {
  int64_t m = rows->n;
  uint64_t *keys = (uint64_t *)malloc((size_t)(2 * m + 1) * sizeof(uint64_t));
  int64_t *tmp = (int64_t *)malloc((size_t)(m + 1) * sizeof(int64_t));
  tp_status st = TP_SUCCESS;
  if (!keys || !tmp)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TCI: no host memory to order %lld core rows",
                  (long long)m);
  for (int64_t q = 0; st == TP_SUCCESS && q < m; ++q)
    keys[q] = (uint64_t)((rows->key[q] % n) * r + rows->left[q]), rows->by_slice[q] = q;
  if (st == TP_SUCCESS)
    st = tpi_radix_sort_u64(keys, rows->by_slice, keys + m, tmp, m, bits_for(r * n - 1));
  for (int64_t i = 0; st == TP_SUCCESS && i < m; ++i)
    if (i == 0 || keys[i] / (uint64_t)r != keys[i - 1] / (uint64_t)r) {
      rows->slice_u[rows->slices] = (int64_t)(keys[i] / (uint64_t)r);
      rows->slice_ptr[rows->slices++] = i;
    }
  rows->slice_ptr[rows->slices] = m;
  free(keys), free(tmp);
  return st;
}

tp_status tpi_tci_core_rows_build(const tp_coo *core, tpi_tci_core_rows *rows) {
  memset(rows, 0, sizeof *rows);
  int64_t m = 0;
  for (int64_t e = 0; e < core->nnz; ++e)
    m += e == 0 || entry_key(core, e) != entry_key(core, e - 1);
  size_t bytes = (size_t)(m + 1) * sizeof(int64_t);
  rows->key = (int64_t *)malloc(bytes), rows->left = (int64_t *)malloc(bytes);
  rows->ptr = (int64_t *)malloc(bytes), rows->pivot = (int64_t *)malloc(bytes);
  rows->slice_u = (int64_t *)malloc(bytes), rows->slice_ptr = (int64_t *)malloc(bytes);
  rows->by_slice = (int64_t *)malloc(bytes);
  if (!rows->key || !rows->left || !rows->ptr || !rows->pivot || !rows->slice_u ||
      !rows->slice_ptr || !rows->by_slice) {
    tpi_tci_core_rows_free(rows);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TCI: no host memory to index %lld core rows",
                    (long long)m);
  }
  for (int64_t e = 0; e < core->nnz; ++e)
    if (e == 0 || entry_key(core, e) != entry_key(core, e - 1)) {
      rows->key[rows->n] = entry_key(core, e), rows->left[rows->n] = core->indices[0][e];
      rows->pivot[rows->n] = -1, rows->ptr[rows->n++] = e;
    }
  rows->ptr[rows->n] = core->nnz;
  tp_status st = order_by_slice(rows, core->dims[0], core->dims[1]);
  if (st != TP_SUCCESS)
    tpi_tci_core_rows_free(rows);
  return st;
}

/* Position of the first of n increasing values that is >= x. */
static int64_t lower_bound(const int64_t *v, int64_t n, int64_t x) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (v[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int64_t tpi_tci_core_rows_find(const tpi_tci_core_rows *rows, int64_t key) {
  int64_t q = lower_bound(rows->key, rows->n, key);
  return q < rows->n && rows->key[q] == key ? q : -1;
}

int64_t tpi_tci_core_rows_slice(const tpi_tci_core_rows *rows, int64_t u) {
  int64_t s = lower_bound(rows->slice_u, rows->slices, u);
  return s < rows->slices && rows->slice_u[s] == u ? s : -1;
}

void tpi_tci_core_rows_free(tpi_tci_core_rows *rows) {
  if (!rows)
    return;
  free(rows->key), free(rows->left), free(rows->ptr), free(rows->pivot);
  free(rows->slice_u), free(rows->slice_ptr), free(rows->by_slice);
  memset(rows, 0, sizeof *rows);
}
