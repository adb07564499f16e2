/* Compressed coordinates of a sparse matrix (see tp_sttid_compress.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "algorithms/sttid/tp_sttid_compress.h"

static int bits_for(uint64_t max_value) {
  int b = 1;
  while (b < 64 && (max_value >> b) != 0)
    ++b;
  return b;
}

/* Sorted (key, position) pairs of n keys below bound. */
static tp_status sort_with_positions(const uint64_t *keys_in, int64_t n, uint64_t bound,
                                     uint64_t **keys, int64_t **pos) {
  uint64_t *k = (uint64_t *)malloc(2 * (size_t)(n + 1) * sizeof *k);
  int64_t *p = (int64_t *)malloc(2 * (size_t)(n + 1) * sizeof *p);
  if (!k || !p) {
    free(k), free(p);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "PRRLU: no host memory to sort %lld keys",
                    (long long)n);
  }
  for (int64_t e = 0; e < n; ++e)
    k[e] = keys_in[e], p[e] = e;
  tp_status st = tpi_radix_sort_u64(k, p, k + n + 1, p + n + 1, n, bits_for(bound));
  if (st != TP_SUCCESS) {
    free(k), free(p);
    return st;
  }
  *keys = k, *pos = p;
  return TP_SUCCESS;
}

/* Renumbers the values of x (each below bound) densely in increasing order: ids[e] gets
 * the new number of x[e], *uniq the distinct values in order, *count their number. */
static tp_status renumber(const int64_t *x, int64_t n, int64_t bound, uint32_t *ids, int64_t **uniq,
                          int64_t *count) {
  uint64_t *k;
  int64_t *p;
  TP_TRY(sort_with_positions((const uint64_t *)x, n, (uint64_t)bound, &k, &p));
  int64_t *u = (int64_t *)malloc((size_t)(n + 1) * sizeof *u);
  if (!u) {
    free(k), free(p);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "PRRLU: no host memory to renumber indices");
  }
  int64_t c = 0;
  for (int64_t e = 0; e < n; ++e) {
    if (e == 0 || k[e] != k[e - 1])
      u[c++] = (int64_t)k[e];
    ids[p[e]] = (uint32_t)(c - 1);
  }
  free(k), free(p);
  *uniq = u, *count = c;
  return TP_SUCCESS;
}

static tp_status check_entries(const tp_spmat *m) {
  TP_CHECK_ARG(m->nnz == 0 || (m->row && m->col && m->values),
               "PRRLU: the matrix's arrays are NULL");
  if (m->nnz >= ((int64_t)1 << 31))
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                    "PRRLU: %lld entries; the sparse PRRLU takes fewer than 2^31",
                    (long long)m->nnz);
  for (int64_t e = 0; e < m->nnz; ++e) {
    if (m->row[e] < 0 || m->row[e] >= m->rows || m->col[e] < 0 || m->col[e] >= m->cols)
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "PRRLU: entry %lld at (%lld, %lld) is outside the %lld x %lld matrix",
                      (long long)e, (long long)m->row[e], (long long)m->col[e], (long long)m->rows,
                      (long long)m->cols);
    if (!isfinite(m->values[e]))
      return TP_ERROR(TP_ERROR_NUMERICAL, "PRRLU: entry %lld at (%lld, %lld) is %g", (long long)e,
                      (long long)m->row[e], (long long)m->col[e], m->values[e]);
  }
  return TP_SUCCESS;
}

/* A repeated (row, col) would make two entries share one hash key. */
static tp_status check_unique(const tpi_sttid_compressed *c, const tp_spmat *m) {
  uint64_t *keys = (uint64_t *)malloc((size_t)(c->nnz + 1) * sizeof *keys), *k;
  int64_t *p;
  if (!keys)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "PRRLU: no host memory for the entry keys");
  for (int64_t e = 0; e < c->nnz; ++e)
    keys[e] = (uint64_t)c->row[e] * (uint64_t)c->cols + c->col[e];
  tp_status st = sort_with_positions(keys, c->nnz, (uint64_t)c->rows * (uint64_t)c->cols, &k, &p);
  free(keys);
  TP_TRY(st);
  for (int64_t e = 1; e < c->nnz; ++e)
    if (k[e] == k[e - 1]) {
      int64_t at = p[e];
      free(k), free(p);
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "PRRLU: the matrix holds (%lld, %lld) twice; sum duplicates first",
                      (long long)m->row[at], (long long)m->col[at]);
    }
  free(k), free(p);
  return TP_SUCCESS;
}

tp_status tpi_sttid_compress(const tp_spmat *m, tpi_sttid_compressed *out) {
  TP_CHECK_ARG(m && out, "PRRLU: matrix and output must not be NULL");
  memset(out, 0, sizeof *out);
  TP_TRY(check_entries(m));
  const int64_t n = m->nnz;
  out->nnz = n;
  out->row = (uint32_t *)malloc((size_t)(n + 1) * sizeof(uint32_t));
  out->col = (uint32_t *)malloc((size_t)(n + 1) * sizeof(uint32_t));
  out->values = (double *)malloc((size_t)(n + 1) * sizeof(double));
  tp_status st = TP_SUCCESS;
  if (!out->row || !out->col || !out->values)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "PRRLU: no host memory for %lld entries", (long long)n);
  if (st == TP_SUCCESS)
    st = renumber(m->row, n, m->rows, out->row, &out->row_ids, &out->rows);
  if (st == TP_SUCCESS)
    st = renumber(m->col, n, m->cols, out->col, &out->col_ids, &out->cols);
  if (st == TP_SUCCESS) {
    memcpy(out->values, m->values, (size_t)n * sizeof(double));
    st = check_unique(out, m);
  }
  if (st != TP_SUCCESS)
    tpi_sttid_compressed_free(out);
  return st;
}

void tpi_sttid_compressed_free(tpi_sttid_compressed *c) {
  if (!c)
    return;
  free(c->row), free(c->col), free(c->values), free(c->row_ids), free(c->col_ids);
  memset(c, 0, sizeof *c);
}
