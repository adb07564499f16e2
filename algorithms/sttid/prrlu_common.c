/* Options, results and stop reasons shared by the PRRLU implementations. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sttid/tp_prrlu_internal.h"

const char *tp_prrlu_stop_name(tp_prrlu_stop stop) {
  switch (stop) {
  case TP_PRRLU_STOP_RANK: return "rank limit";
  case TP_PRRLU_STOP_TOLERANCE: return "tolerance";
  case TP_PRRLU_STOP_EXHAUSTED: return "exhausted";
  case TP_PRRLU_STOP_ROUNDOFF: return "round-off";
  }
  return "unknown";
}

tp_status tpi_prrlu_check_options(const tp_prrlu_options *opt, int64_t rows, int64_t cols,
                                  int64_t *limit) {
  TP_CHECK_ARG(opt, "PRRLU options are NULL");
  TP_CHECK_ARG(opt->rmax >= 1, "PRRLU: rmax %lld must be at least 1", (long long)opt->rmax);
  TP_CHECK_ARG(isfinite(opt->eps) && opt->eps >= 0, "PRRLU: eps %g must be finite and non-negative",
               opt->eps);
  TP_CHECK_ARG(rows >= 1 && cols >= 1, "PRRLU: matrix shape %lld x %lld is invalid",
               (long long)rows, (long long)cols);
  int64_t lim = opt->rmax;
  lim = rows < lim ? rows : lim;
  lim = cols < lim ? cols : lim;
  *limit = lim;
  return TP_SUCCESS;
}

tp_status tpi_prrlu_result_init(tp_prrlu_result *r, int64_t capacity) {
  memset(r, 0, sizeof *r);
  size_t n = (size_t)(capacity > 0 ? capacity : 1);
  r->rows = (int64_t *)malloc(n * sizeof(int64_t));
  r->cols = (int64_t *)malloc(n * sizeof(int64_t));
  r->pivots = (double *)malloc(n * sizeof(double));
  if (!r->rows || !r->cols || !r->pivots) {
    tp_prrlu_result_free(r);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "PRRLU: no host memory for %lld pivots",
                    (long long)capacity);
  }
  return TP_SUCCESS;
}

void tp_prrlu_result_free(tp_prrlu_result *r) {
  if (!r)
    return;
  free(r->rows), free(r->cols), free(r->pivots);
  memset(r, 0, sizeof *r);
}
