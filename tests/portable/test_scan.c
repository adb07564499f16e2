/* Exclusive scans of every type against a sequential reference. */
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(scan, .init = tpt_setup, .fini = tpt_teardown);

/* check_scan_T(rng, n, in_place) for the integer types, from test_scan_template.h. */
#define TPT_T int32_t
#define TPT_SFX i32
#define TPT_LO -1000
#define TPT_HI 1000
#include "tests/portable/test_scan_template.h"
#define TPT_T int64_t
#define TPT_SFX i64
#define TPT_LO -((int64_t)1 << 40)
#define TPT_HI ((int64_t)1 << 40)
#include "tests/portable/test_scan_template.h"
#define TPT_T uint32_t
#define TPT_SFX u32
#define TPT_LO 0
#define TPT_HI 3000
#include "tests/portable/test_scan_template.h"
#define TPT_T uint64_t
#define TPT_SFX u64
#define TPT_LO 0
#define TPT_HI ((int64_t)1 << 40)
#include "tests/portable/test_scan_template.h"

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
