/* The dense reference PRRLU: complete pivoting over the active submatrix, the same tie
 * rule, update and stops as the sparse one, in the plainest form. */
#include <stdlib.h>

#include "portable/tp_error.h"
#include "algorithms/sttid/tp_prrlu_internal.h"
#include "algorithms/sttid/tp_prrlu_stop_rule.h"

/* Largest |a| over active rows and columns, ties to the smallest linear index (the scan
 * runs in linear-index order and only a strictly larger magnitude replaces the best). */
static void find_pivot(const double *a, int64_t rows, int64_t cols, const char *row_done,
                       const char *col_done, int64_t *pi, int64_t *pj) {
  double best = 0;
  *pi = *pj = -1;
  for (int64_t i = 0; i < rows; ++i) {
    if (row_done[i])
      continue;
    for (int64_t j = 0; j < cols; ++j)
      if (!col_done[j] && fabs(a[i * cols + j]) > best)
        best = fabs(a[i * cols + j]), *pi = i, *pj = j;
  }
}

static void eliminate(double *a, int64_t rows, int64_t cols, const char *row_done,
                      const char *col_done, int64_t pi, int64_t pj) {
  const double p = a[pi * cols + pj];
  for (int64_t i = 0; i < rows; ++i) {
    if (row_done[i] || i == pi || a[i * cols + pj] == 0)
      continue;
    const double l = a[i * cols + pj] / p;
    for (int64_t j = 0; j < cols; ++j)
      if (!col_done[j] && j != pj && a[pi * cols + j] != 0)
        a[i * cols + j] = fma(-l, a[pi * cols + j], a[i * cols + j]);
  }
}

tp_status tp_prrlu_dense(double *a, int64_t rows, int64_t cols, const tp_prrlu_options *opt,
                         tp_prrlu_result *result) {
  TP_CHECK_ARG(result, "PRRLU result is NULL");
  int64_t limit;
  TP_TRY(tpi_prrlu_check_options(opt, rows, cols, &limit));
  TP_CHECK_ARG(a, "PRRLU: the matrix is NULL");
  for (int64_t k = 0; k < rows * cols; ++k)
    if (!isfinite(a[k]))
      return TP_ERROR(TP_ERROR_NUMERICAL, "PRRLU: entry (%lld, %lld) is not finite",
                      (long long)(k / cols), (long long)(k % cols));
  double start = tp_wall_seconds();
  TP_TRY(tpi_prrlu_result_init(result, limit));
  char *row_done = (char *)calloc((size_t)rows, 1), *col_done = (char *)calloc((size_t)cols, 1);
  if (!row_done || !col_done) {
    free(row_done), free(col_done), tp_prrlu_result_free(result);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "PRRLU: no host memory for the pivot flags");
  }
  result->stop = TP_PRRLU_STOP_RANK;
  result->threshold = opt->eps_relative ? 0 : opt->eps;
  for (int64_t s = 0; s < limit; ++s) {
    int64_t pi, pj;
    find_pivot(a, rows, cols, row_done, col_done, &pi, &pj);
    if (pi < 0) {
      result->stop = TP_PRRLU_STOP_EXHAUSTED;
      break;
    }
    const double p = a[pi * cols + pj];
    if (s == 0)
      result->first_pivot = fabs(p), result->threshold = tpi_prrlu_threshold(opt, fabs(p));
    int stop = tp_prrlu_magnitude_stop(fabs(p), result->threshold, s, result->first_pivot);
    if (stop >= 0) {
      result->stop = (tp_prrlu_stop)stop;
      break;
    }
    result->rows[s] = pi, result->cols[s] = pj, result->pivots[s] = p;
    result->rank = s + 1;
    eliminate(a, rows, cols, row_done, col_done, pi, pj);
    row_done[pi] = col_done[pj] = 1;
  }
  free(row_done), free(col_done);
  result->seconds = tp_wall_seconds() - start;
  return TP_SUCCESS;
}
