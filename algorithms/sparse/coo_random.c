/* Random sparse tensors with skewed indices: draw n's index in mode m is
 * floor(u^skew[m] * dims[m]) with u the n-th uniform of mode m's stream, its value the
 * n-th of the value stream (tp_random_internal.h), so every draw is computed on its own
 * and the result depends on the seed only, not on the thread count. Duplicates are then
 * summed (binary tensors keep 1). Skewed indices go through the C library's pow. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/dense/tp_random_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"

/* Streams of one seed. */
enum { STREAM_VALUES = 3, STREAM_INDEX = 32 /* + mode */ };

static double skew_of(const tp_coo_random_options *o, int m) {
  return o->skew[m] == 0.0 ? 1.0 : o->skew[m];
}

static tp_status check_options(const tp_coo_random_options *o) {
  TP_CHECK_ARG(o, "the options are NULL");
  tp_coo shape;
  memset(&shape, 0, sizeof shape);
  shape.dtype = o->dtype, shape.order = o->order, shape.nnz = o->nnz;
  if (o->order >= 1 && o->order <= TP_COO_MAX_ORDER)
    memcpy(shape.dims, o->dims, sizeof(int64_t) * (size_t)o->order);
  TP_TRY(tp_coo_check(&shape));
  for (int m = 0; m < o->order; ++m)
    TP_CHECK_ARG(isfinite(o->skew[m]) && o->skew[m] >= 0,
                 "skew[%d] = %g, must be finite and "
                 "positive (0 means 1)",
                 m, o->skew[m]);
  TP_CHECK_ARG(o->values == TP_COO_VALUES_UNIFORM || o->values == TP_COO_VALUES_PARETO ||
                   o->values == TP_COO_VALUES_ONES,
               "values %d is not a tp_coo_values", (int)o->values);
  TP_CHECK_ARG(o->values != TP_COO_VALUES_PARETO || (isfinite(o->alpha) && o->alpha > 0),
               "the Pareto shape alpha = %g, must be finite and positive", o->alpha);
  return TP_SUCCESS;
}

static int64_t draw_index(uint64_t key, int64_t n, double skew, int64_t dim) {
  double u = (double)(tpi_rng_draw(key, (uint64_t)n) >> 11) * TP_RNG_TWO_POW_M53;
  double x = skew == 1.0 ? u : pow(u, skew);
  int64_t i = (int64_t)(x * (double)dim);
  return i < dim - 1 ? i : dim - 1;
}

/* Pareto values beyond the dtype's range are clamped to its largest finite value. */
static double draw_value(const tp_coo_random_options *o, uint64_t key, int64_t n) {
  if (o->values == TP_COO_VALUES_ONES)
    return 1.0;
  double u = tpi_rng_uniform(tpi_rng_draw(key, (uint64_t)n), o->dtype);
  if (o->values == TP_COO_VALUES_UNIFORM)
    return u;
  double v = pow(1.0 - u, -1.0 / o->alpha);
  double top = o->dtype == TP_DTYPE_F32 ? FLT_MAX : DBL_MAX;
  return v < top ? v : top;
}

/* Draws first .. first + t->nnz - 1 into t. */
static void draw_nonzeros(const tp_coo_random_options *o, int64_t first, tp_coo *t) {
  uint64_t value_key = tpi_rng_stream_key(o->seed, STREAM_VALUES);
  for (int m = 0; m < o->order; ++m) {
    uint64_t key = tpi_rng_stream_key(o->seed, STREAM_INDEX + (uint64_t)m);
    double skew = skew_of(o, m);
    int64_t *idx = t->indices[m];
    TP_HOST_OMP(omp parallel for schedule(static))
    for (int64_t n = 0; n < t->nnz; ++n)
      idx[n] = draw_index(key, first + n, skew, o->dims[m]);
  }
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t n = 0; n < t->nnz; ++n)
    tpi_coo_set_value(t, n, draw_value(o, value_key, first + n));
}

/* After merging: binary tensors back to 1, sums past the dtype's range clamped. */
static void fix_merged_values(const tp_coo_random_options *o, tp_coo *t) {
  double top = o->dtype == TP_DTYPE_F32 ? FLT_MAX : DBL_MAX;
  for (int64_t k = 0; k < t->nnz; ++k) {
    double v = tpi_coo_value(t, k);
    if (o->values == TP_COO_VALUES_ONES)
      tpi_coo_set_value(t, k, 1.0);
    else if (!isfinite(v))
      tpi_coo_set_value(t, k, top);
  }
}

tp_status tp_coo_random(const tp_coo_random_options *opt, tp_coo *host, int64_t *merged) {
  return tp_coo_random_part(opt, 0, opt ? opt->nnz : 0, host, merged);
}

tp_status tp_coo_random_part(const tp_coo_random_options *opt, int64_t first, int64_t count,
                             tp_coo *host, int64_t *merged) {
  if (merged)
    *merged = 0;
  TP_CHECK_ARG(host, "host is NULL");
  memset(host, 0, sizeof *host);
  TP_TRY(check_options(opt));
  TP_CHECK_ARG(first >= 0 && count >= 0 && first <= opt->nnz - count,
               "draws [%lld, %lld) "
               "are not within the %lld draws",
               (long long)first, (long long)(first + count), (long long)opt->nnz);
  TP_TRY(tpi_coo_host_alloc(opt->dtype, opt->order, opt->dims, count, host));
  draw_nonzeros(opt, first, host);
  tp_status st = tpi_coo_merge_duplicates(host, merged);
  if (st != TP_SUCCESS) {
    tpi_coo_host_free(host);
    memset(host, 0, sizeof *host);
    return st;
  }
  fix_merged_values(opt, host);
  return TP_SUCCESS;
}
