/* Exclusive scans of every type against a sequential reference. */
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(scan, .init = tpt_setup, .fini = tpt_teardown);

/* Integer scans are exact; in_place reuses the input array as the output. */
#define CHECK_INT_SCAN(sfx, T, lo, hi)                                                         \
  static void check_scan_##sfx(tpt_rng *rng, int64_t n, int in_place) {                        \
    T *x = tpt_host_alloc(sizeof(T) * (size_t)n);                                              \
    T *ref = tpt_host_alloc(sizeof(T) * (size_t)(n + 1));                                      \
    T run = 0;                                                                                 \
    for (int64_t i = 0; i < n; ++i) {                                                          \
      x[i] = (T)tpt_int(rng, lo, hi);                                                          \
      ref[i] = run;                                                                            \
      run += x[i];                                                                             \
    }                                                                                          \
    T *din = tpt_to_space(x, sizeof(T) * (size_t)n);                                           \
    T *dout = in_place ? din : tpt_alloc_poisoned(sizeof(T) * (size_t)(n + 1));                \
    T *dtot = tpt_alloc_poisoned(sizeof(T));                                                   \
    TPT_OK(tp_exclusive_scan_##sfx(tpt_space, din, dout, n, dtot));                            \
    T *got = tpt_host_alloc(sizeof(T) * (size_t)(n + 1));                                      \
    T total;                                                                                   \
    tpt_to_host(got, dout, sizeof(T) * (size_t)(in_place ? n : n + 1));                        \
    tpt_to_host(&total, dtot, sizeof total);                                                   \
    for (int64_t i = 0; i < n; ++i)                                                            \
      cr_assert_eq(got[i], ref[i], #sfx " n=%lld in_place=%d at %lld", (long long)n, in_place, \
                   (long long)i);                                                              \
    if (!in_place) {                                                                           \
      T poison;                                                                                \
      memset(&poison, 0xFF, sizeof poison);                                                    \
      cr_assert_eq(got[n], poison, #sfx ": wrote past the end");                               \
    }                                                                                          \
    cr_assert_eq(total, run, #sfx " n=%lld: total", (long long)n);                             \
    tpt_free(din);                                                                             \
    if (!in_place)                                                                             \
      tpt_free(dout);                                                                          \
    tpt_free(dtot);                                                                            \
    free(x), free(ref), free(got);                                                             \
  }

CHECK_INT_SCAN(i32, int32_t, -1000, 1000)
CHECK_INT_SCAN(i64, int64_t, -((int64_t)1 << 40), (int64_t)1 << 40)
CHECK_INT_SCAN(u32, uint32_t, 0, 3000)
CHECK_INT_SCAN(u64, uint64_t, 0, (int64_t)1 << 40)

static const int64_t scan_sizes[] = {0,    1,    2,    3,     31,      97,     1000,
                                     4095, 4096, 4097, 65537, 1000003, 5000011};

Test(scan, integer_types_match_sequential_reference) {
  tpt_rng rng = tpt_rng_fresh();
  for (size_t c = 0; c < sizeof scan_sizes / sizeof scan_sizes[0]; ++c)
    for (int in_place = 0; in_place < 2; ++in_place) {
      check_scan_i32(&rng, scan_sizes[c], in_place);
      check_scan_i64(&rng, scan_sizes[c], in_place);
      check_scan_u32(&rng, scan_sizes[c], in_place);
      check_scan_u64(&rng, scan_sizes[c], in_place);
    }
}

/* Floating scans agree with a double-precision reference to rounding. */
Test(scan, floating_types_match_reference_to_rounding) {
  tpt_rng rng = tpt_rng_fresh();
  for (size_t c = 0; c < sizeof scan_sizes / sizeof scan_sizes[0]; ++c) {
    int64_t n = scan_sizes[c];
    double *x = tpt_host_alloc(sizeof(double) * (size_t)n);
    float *xf = tpt_host_alloc(sizeof(float) * (size_t)n);
    double *ref = tpt_host_alloc(sizeof(double) * (size_t)n);
    double *reff = tpt_host_alloc(sizeof(double) * (size_t)n);
    double run = 0, runf = 0, abs_run = 0;
    for (int64_t i = 0; i < n; ++i) {
      x[i] = tpt_uniform(&rng, -1, 1);
      xf[i] = (float)x[i];
      ref[i] = run, reff[i] = runf;
      run += x[i], runf += xf[i], abs_run += fabs(x[i]);
    }
    double *dx = tpt_to_space(x, sizeof(double) * (size_t)n);
    float *dxf = tpt_to_space(xf, sizeof(float) * (size_t)n);
    double *dy = tpt_alloc_poisoned(sizeof(double) * (size_t)n + 8);
    float *dyf = tpt_alloc_poisoned(sizeof(float) * (size_t)n + 8);
    double *tot = tpt_alloc_poisoned(sizeof(double));
    float *totf = tpt_alloc_poisoned(sizeof(float));
    TPT_OK(tp_exclusive_scan_f64(tpt_space, dx, dy, n, tot));
    TPT_OK(tp_exclusive_scan_f32(tpt_space, dxf, dyf, n, totf));
    double *y = tpt_host_alloc(sizeof(double) * (size_t)n), t;
    float *yf = tpt_host_alloc(sizeof(float) * (size_t)n), tf;
    tpt_to_host(y, dy, sizeof(double) * (size_t)n);
    tpt_to_host(yf, dyf, sizeof(float) * (size_t)n);
    tpt_to_host(&t, tot, sizeof t);
    tpt_to_host(&tf, totf, sizeof tf);
    double tol = 1e-14 * (abs_run + 1) * 8, tolf = 1e-6 * (abs_run + 1) * 8;
    for (int64_t i = 0; i < n; ++i) {
      cr_assert(fabs(y[i] - ref[i]) <= tol, "f64 n=%lld at %lld: %.17g vs %.17g", (long long)n,
                (long long)i, y[i], ref[i]);
      cr_assert(fabs(yf[i] - reff[i]) <= tolf, "f32 n=%lld at %lld: %.9g vs %.9g", (long long)n,
                (long long)i, yf[i], reff[i]);
    }
    cr_assert(fabs(t - run) <= tol && fabs(tf - runf) <= tolf, "totals, n=%lld", (long long)n);
    tpt_free(dx), tpt_free(dxf), tpt_free(dy), tpt_free(dyf), tpt_free(tot), tpt_free(totf);
    free(x), free(xf), free(ref), free(reff), free(y), free(yf);
  }
}

/* inf, NaN and values of very different magnitude: every prefix must be the plain
 * left-to-right sum (exactly, for these inputs; to rounding after 1e20), including the
 * prefixes before an inf. */
Test(scan, floating_specials_and_magnitudes_propagate_like_sequential_sums) {
  const int64_t n = 70001;
  const int64_t where[] = {0, 3, 8, 17, 4095, 4096, 16383, 16384, 50000, n - 1};
  for (int kind = 0; kind < 3; ++kind)
    for (size_t w = 0; w < sizeof where / sizeof where[0]; ++w) {
      double *x = tpt_host_alloc(sizeof(double) * (size_t)n);
      float *xf = tpt_host_alloc(sizeof(float) * (size_t)n);
      for (int64_t i = 0; i < n; ++i)
        x[i] = (double)(i % 7); /* small integers: every partial sum is exact */
      x[where[w]] = kind == 0 ? INFINITY : (kind == 1 ? NAN : 1e20);
      for (int64_t i = 0; i < n; ++i)
        xf[i] = kind == 2 && i == where[w] ? 1e20f : (float)x[i];
      double *dx = tpt_to_space(x, sizeof(double) * (size_t)n);
      float *dxf = tpt_to_space(xf, sizeof(float) * (size_t)n);
      double *dy = tpt_alloc_poisoned(sizeof(double) * (size_t)n);
      float *dyf = tpt_alloc_poisoned(sizeof(float) * (size_t)n);
      TPT_OK(tp_exclusive_scan_f64(tpt_space, dx, dy, n, NULL));
      TPT_OK(tp_exclusive_scan_f32(tpt_space, dxf, dyf, n, NULL));
      double *y = tpt_host_alloc(sizeof(double) * (size_t)n);
      float *yf = tpt_host_alloc(sizeof(float) * (size_t)n);
      tpt_to_host(y, dy, sizeof(double) * (size_t)n);
      tpt_to_host(yf, dyf, sizeof(float) * (size_t)n);
      double run = 0;
      for (int64_t i = 0; i < n; ++i) {
        /* after 1e20 sums round, and sequential sums drop the small terms that tile
         * sums keep: agreement to 1e-14 */
        int same = (isnan(run) && isnan(y[i])) || y[i] == run ||
                   (kind == 2 && i > where[w] && fabs(y[i] - run) <= 1e-14 * run);
        cr_assert(same, "f64 kind %d special at %lld: out[%lld] = %g, expected %g", kind,
                  (long long)where[w], (long long)i, y[i], run);
        if (kind != 2) { /* f32: exact below 2^24, and for the specials */
          int same_f = (isnan(run) && isnan(yf[i])) || yf[i] == (float)run;
          cr_assert(same_f, "f32 kind %d special at %lld: out[%lld] = %g, expected %g", kind,
                    (long long)where[w], (long long)i, (double)yf[i], run);
        } else if (i <= where[w]) {
          cr_assert_eq(yf[i], (float)run, "f32 before 1e20 at %lld: out[%lld]", (long long)where[w],
                       (long long)i);
        }
        run += x[i];
      }
      tpt_free(dx), tpt_free(dxf), tpt_free(dy), tpt_free(dyf);
      free(x), free(xf), free(y), free(yf);
    }
}

Test(scan, total_is_optional_and_bad_arguments_are_rejected) {
  int32_t h[5] = {1, 2, 3, 4, 5}, got[5];
  int32_t *d = tpt_to_space(h, sizeof h);
  TPT_OK(tp_exclusive_scan_i32(tpt_space, d, d, 5, NULL));
  tpt_to_host(got, d, sizeof got);
  cr_assert(got[0] == 0 && got[1] == 1 && got[4] == 10);
  TPT_FAILS_WITH(tp_exclusive_scan_i32(tpt_space, d, d, -1, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_exclusive_scan_i32(tpt_space, NULL, d, 5, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_exclusive_scan_i32(NULL, d, d, 5, NULL), TP_ERROR_INVALID_ARGUMENT);
  tpt_free(d);
}
