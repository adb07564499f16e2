/* Global reductions against double-precision references on random data. */
#include <float.h>
#include <limits.h>
#include <math.h>

#include "tests/common/tpt.h"

TestSuite(reduce, .init = tpt_setup, .fini = tpt_teardown);

Test(reduce, float_sums_min_max_match_reference) {
  tpt_rng rng = tpt_rng_fresh();
  for (int c = 0; c < tpt_sizes_count; ++c) {
    int64_t n = tpt_sizes[c];
    double *x = tpt_host_alloc(sizeof(double) * (size_t)n);
    float *xf = tpt_host_alloc(sizeof(float) * (size_t)n);
    double sum = 0, sumf = 0, lo = INFINITY, hi = -INFINITY;
    float lof = INFINITY, hif = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
      x[i] = tpt_uniform(&rng, -100, 100);
      xf[i] = (float)x[i];
      sum += x[i];
      sumf += xf[i];
      lo = fmin(lo, x[i]), hi = fmax(hi, x[i]);
      lof = fminf(lof, xf[i]), hif = fmaxf(hif, xf[i]);
    }
    double *dx = tpt_to_space(x, sizeof(double) * (size_t)n);
    float *dxf = tpt_to_space(xf, sizeof(float) * (size_t)n);
    double *r = tpt_alloc_poisoned(4 * sizeof(double));
    float *rf = tpt_alloc_poisoned(2 * sizeof(float));
    TPT_OK(tp_reduce_sum_f64(tpt_space, dx, n, r));
    TPT_OK(tp_reduce_min_f64(tpt_space, dx, n, r + 1));
    TPT_OK(tp_reduce_max_f64(tpt_space, dx, n, r + 2));
    TPT_OK(tp_reduce_sum_f32(tpt_space, dxf, n, r + 3));
    TPT_OK(tp_reduce_min_f32(tpt_space, dxf, n, rf));
    TPT_OK(tp_reduce_max_f32(tpt_space, dxf, n, rf + 1));
    double got[4];
    float gotf[2];
    tpt_to_host(got, r, sizeof got);
    tpt_to_host(gotf, rf, sizeof gotf);
    double tol = 1e-13 * (double)(n + 1) * 100;
    cr_assert(fabs(got[0] - sum) <= tol, "sum_f64 n=%lld: %.17g vs %.17g", (long long)n, got[0],
              sum);
    cr_assert_eq(got[1], lo, "min_f64 n=%lld", (long long)n);
    cr_assert_eq(got[2], hi, "max_f64 n=%lld", (long long)n);
    cr_assert(fabs(got[3] - sumf) <= tol, "sum_f32 n=%lld: %.17g vs %.17g", (long long)n, got[3],
              sumf);
    cr_assert_eq(gotf[0], lof, "min_f32 n=%lld", (long long)n);
    cr_assert_eq(gotf[1], hif, "max_f32 n=%lld", (long long)n);
    tpt_free(dx), tpt_free(dxf), tpt_free(r), tpt_free(rf);
    free(x), free(xf);
  }
}

Test(reduce, integer_sums_min_max_are_exact) {
  tpt_rng rng = tpt_rng_fresh();
  for (int c = 0; c < tpt_sizes_count; ++c) {
    int64_t n = tpt_sizes[c];
    int32_t *a = tpt_host_alloc(sizeof(int32_t) * (size_t)n);
    int64_t *b = tpt_host_alloc(sizeof(int64_t) * (size_t)n);
    int64_t suma = 0, sumb = 0, lob = INT64_MAX, hib = INT64_MIN;
    int32_t loa = INT32_MAX, hia = INT32_MIN;
    for (int64_t i = 0; i < n; ++i) {
      a[i] = (int32_t)tpt_int(&rng, INT32_MIN, INT32_MAX); /* i64 accumulation: no overflow */
      b[i] = tpt_int(&rng, -((int64_t)1 << 40), (int64_t)1 << 40);
      suma += a[i], sumb += b[i];
      loa = a[i] < loa ? a[i] : loa, hia = a[i] > hia ? a[i] : hia;
      lob = b[i] < lob ? b[i] : lob, hib = b[i] > hib ? b[i] : hib;
    }
    int32_t *da = tpt_to_space(a, sizeof(int32_t) * (size_t)n);
    int64_t *db = tpt_to_space(b, sizeof(int64_t) * (size_t)n);
    int64_t *r = tpt_alloc_poisoned(4 * sizeof(int64_t));
    int32_t *ri = tpt_alloc_poisoned(2 * sizeof(int32_t));
    TPT_OK(tp_reduce_sum_i32(tpt_space, da, n, r));
    TPT_OK(tp_reduce_sum_i64(tpt_space, db, n, r + 1));
    TPT_OK(tp_reduce_min_i64(tpt_space, db, n, r + 2));
    TPT_OK(tp_reduce_max_i64(tpt_space, db, n, r + 3));
    TPT_OK(tp_reduce_min_i32(tpt_space, da, n, ri));
    TPT_OK(tp_reduce_max_i32(tpt_space, da, n, ri + 1));
    int64_t got[4];
    int32_t goti[2];
    tpt_to_host(got, r, sizeof got);
    tpt_to_host(goti, ri, sizeof goti);
    cr_assert_eq(got[0], suma, "sum_i32 n=%lld", (long long)n);
    cr_assert_eq(got[1], sumb, "sum_i64 n=%lld", (long long)n);
    cr_assert_eq(got[2], lob, "min_i64 n=%lld", (long long)n);
    cr_assert_eq(got[3], hib, "max_i64 n=%lld", (long long)n);
    cr_assert_eq(goti[0], loa, "min_i32 n=%lld", (long long)n);
    cr_assert_eq(goti[1], hia, "max_i32 n=%lld", (long long)n);
    tpt_free(da), tpt_free(db), tpt_free(r), tpt_free(ri);
    free(a), free(b);
  }
}

/* Values drawn from a small set, so the largest magnitude appears many times and the
 * smallest index must win. */
Test(reduce, argmax_abs_breaks_ties_by_smallest_index) {
  tpt_rng rng = tpt_rng_fresh();
  for (int c = 0; c < tpt_sizes_count; ++c) {
    int64_t n = tpt_sizes[c];
    double *x = tpt_host_alloc(sizeof(double) * (size_t)n);
    float *xf = tpt_host_alloc(sizeof(float) * (size_t)n);
    int64_t best = -1;
    for (int64_t i = 0; i < n; ++i) {
      x[i] = (double)tpt_int(&rng, -4, 4);
      xf[i] = (float)x[i];
      if (best < 0 || fabs(x[i]) > fabs(x[best]))
        best = i;
    }
    double *dx = tpt_to_space(x, sizeof(double) * (size_t)n);
    float *dxf = tpt_to_space(xf, sizeof(float) * (size_t)n);
    tp_argmax_f64 *r = tpt_alloc_poisoned(sizeof(tp_argmax_f64));
    tp_argmax_f32 *rf = tpt_alloc_poisoned(sizeof(tp_argmax_f32));
    TPT_OK(tp_reduce_argmax_abs_f64(tpt_space, dx, n, r));
    TPT_OK(tp_reduce_argmax_abs_f32(tpt_space, dxf, n, rf));
    tp_argmax_f64 got;
    tp_argmax_f32 gotf;
    tpt_to_host(&got, r, sizeof got);
    tpt_to_host(&gotf, rf, sizeof gotf);
    cr_assert_eq(got.index, best, "f64 n=%lld: index %lld, expected %lld", (long long)n,
                 (long long)got.index, (long long)best);
    cr_assert_eq(gotf.index, best, "f32 n=%lld: index %lld, expected %lld", (long long)n,
                 (long long)gotf.index, (long long)best);
    if (n > 0) {
      cr_assert_eq(got.value, x[best]);
      cr_assert_eq(gotf.value, xf[best]);
    }
    tpt_free(dx), tpt_free(dxf), tpt_free(r), tpt_free(rf);
    free(x), free(xf);
  }
}

Test(reduce, nan_propagates_through_min_max_and_wins_argmax) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t n = 50021;
  double *x = tpt_host_alloc(sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = tpt_uniform(&rng, -1e6, 1e6);
  int64_t where = tpt_int(&rng, 0, n - 1);
  x[where] = NAN;
  x[n - 1] = NAN; /* a second NaN later: the first must win */
  double *dx = tpt_to_space(x, sizeof(double) * (size_t)n);
  double *r = tpt_alloc_poisoned(2 * sizeof(double));
  tp_argmax_f64 *ra = tpt_alloc_poisoned(sizeof(tp_argmax_f64));
  TPT_OK(tp_reduce_min_f64(tpt_space, dx, n, r));
  TPT_OK(tp_reduce_max_f64(tpt_space, dx, n, r + 1));
  TPT_OK(tp_reduce_argmax_abs_f64(tpt_space, dx, n, ra));
  double got[2];
  tp_argmax_f64 am;
  tpt_to_host(got, r, sizeof got);
  tpt_to_host(&am, ra, sizeof am);
  cr_assert(isnan(got[0]) && isnan(got[1]), "min/max must be NaN");
  cr_assert_eq(am.index, where < n - 1 ? where : n - 1);
  tpt_free(dx), tpt_free(r), tpt_free(ra);
  free(x);
}

Test(reduce, empty_input_gives_identities) {
  double *r = tpt_alloc_poisoned(3 * sizeof(double));
  int32_t *ri = tpt_alloc_poisoned(2 * sizeof(int32_t));
  tp_argmax_f64 *ra = tpt_alloc_poisoned(sizeof(tp_argmax_f64));
  TPT_OK(tp_reduce_sum_f64(tpt_space, NULL, 0, r));
  TPT_OK(tp_reduce_min_f64(tpt_space, NULL, 0, r + 1));
  TPT_OK(tp_reduce_max_f64(tpt_space, NULL, 0, r + 2));
  TPT_OK(tp_reduce_min_i32(tpt_space, NULL, 0, ri));
  TPT_OK(tp_reduce_max_i32(tpt_space, NULL, 0, ri + 1));
  TPT_OK(tp_reduce_argmax_abs_f64(tpt_space, NULL, 0, ra));
  double got[3];
  int32_t goti[2];
  tp_argmax_f64 am;
  tpt_to_host(got, r, sizeof got);
  tpt_to_host(goti, ri, sizeof goti);
  tpt_to_host(&am, ra, sizeof am);
  cr_assert_eq(got[0], 0.0);
  cr_assert(isinf(got[1]) && got[1] > 0);
  cr_assert(isinf(got[2]) && got[2] < 0);
  cr_assert_eq(goti[0], INT32_MAX);
  cr_assert_eq(goti[1], INT32_MIN);
  cr_assert_eq(am.index, -1);
  tpt_free(r), tpt_free(ri), tpt_free(ra);
}

Test(reduce, bad_arguments_are_rejected) {
  double *r = tpt_alloc_poisoned(sizeof(double));
  TPT_FAILS_WITH(tp_reduce_sum_f64(tpt_space, NULL, 5, r), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_reduce_sum_f64(tpt_space, r, -1, r), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_reduce_sum_f64(tpt_space, r, 1, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_reduce_sum_f64(NULL, r, 1, r), TP_ERROR_INVALID_ARGUMENT);
  tpt_free(r);
}
