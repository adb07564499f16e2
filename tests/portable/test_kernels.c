/* Range and team kernels: every index visited once, team scratch and barriers, and the
 * policy checks. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tests/kernels/tpt_kernels.h"

TestSuite(kernels, .init = tpt_setup, .fini = tpt_teardown);

Test(kernels, range_kernel_visits_every_index_once) {
  for (int c = 0; c < tpt_sizes_count; ++c) {
    int64_t n = tpt_sizes[c];
    int64_t *out = tpt_alloc_poisoned(sizeof(int64_t) * (size_t)(n + 1));
    TPT_OK(tpt_range_affine(tpt_space, out, n));
    int64_t *h = tpt_host_alloc(sizeof(int64_t) * (size_t)(n + 1));
    tpt_to_host(h, out, sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; ++i)
      cr_assert_eq(h[i], 3 * i + 1, "n=%lld i=%lld", (long long)n, (long long)i);
    cr_assert_eq(h[n], -1, "wrote past the end for n=%lld", (long long)n);
    tpt_free(out);
    free(h);
  }
}

Test(kernels, range2_kernel_visits_every_pair_once) {
  const int64_t shapes[][2] = {{0, 5}, {5, 0}, {1, 1}, {3, 97}, {97, 3}, {1001, 37}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
    int64_t n0 = shapes[c][0], n1 = shapes[c][1], n = n0 * n1;
    int64_t *out = tpt_alloc_poisoned(sizeof(int64_t) * (size_t)(n + 1));
    TPT_OK(tpt_range2_index(tpt_space, out, n0, n1));
    int64_t *h = tpt_host_alloc(sizeof(int64_t) * (size_t)(n + 1));
    tpt_to_host(h, out, sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t i = 0; i < n0; ++i)
      for (int64_t j = 0; j < n1; ++j)
        cr_assert_eq(h[i * n1 + j], 100003 * i + j, "%lldx%lld at (%lld,%lld)", (long long)n0,
                     (long long)n1, (long long)i, (long long)j);
    cr_assert_eq(h[n], -1);
    tpt_free(out);
    free(h);
  }
}

Test(kernels, range_reduce_kernel_matches_reference) {
  tpt_rng rng = tpt_rng_fresh();
  for (int c = 0; c < tpt_sizes_count; ++c) {
    int64_t n = tpt_sizes[c];
    double *x = tpt_host_alloc(sizeof(double) * (size_t)n), ref = 0;
    for (int64_t i = 0; i < n; ++i) {
      x[i] = tpt_uniform(&rng, -1, 1);
      ref += x[i] * x[i];
    }
    double *dx = n ? tpt_to_space(x, sizeof(double) * (size_t)n) : NULL;
    double *dr = tpt_alloc_poisoned(sizeof(double)), got = 0;
    TPT_OK(tpt_range_sum_squares(tpt_space, dx, n, dr));
    tpt_to_host(&got, dr, sizeof got);
    cr_assert(fabs(got - ref) <= 1e-12 * (ref + 1), "n=%lld: %.17g vs %.17g", (long long)n, got,
              ref);
    tpt_free(dx), tpt_free(dr);
    free(x);
  }
}

/* |got - want| in units of want's last place (want > 0 and finite). */
static double ulps_off(long double got, long double want, int mantissa_bits) {
  return (double)(fabsl(got - want) / ldexpl(1.0L, ilogbl(want) - mantissa_bits));
}

Test(kernels, rsqrt_is_within_two_ulp_over_the_whole_range) {
  enum { n = 4099 };
  tpt_rng rng = tpt_rng_fresh();
  float *x32 = tpt_host_alloc(sizeof(float) * n), *r32 = tpt_host_alloc(sizeof(float) * n);
  double *x64 = tpt_host_alloc(sizeof(double) * n), *r64 = tpt_host_alloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) { /* log-uniform from the subnormals up; the largest finite */
    x32[i] = (float)exp2(tpt_uniform(&rng, -149, 127.5)); /* values are set below, exactly */
    x64[i] = exp2(tpt_uniform(&rng, -1074, 1023.5));
  }
  x32[0] = FLT_MIN, x32[1] = FLT_MAX, x32[2] = 1, x32[3] = 4, x32[4] = 0x1p-149f;
  x64[0] = DBL_MIN, x64[1] = DBL_MAX, x64[2] = 1, x64[3] = 4, x64[4] = 0x1p-1074;
  x32[5] = 0, x64[5] = 0, x32[6] = INFINITY, x64[6] = INFINITY;
  float *d32 = tpt_to_space(x32, sizeof(float) * n), *o32 = tpt_alloc_poisoned(sizeof(float) * n);
  double *d64 = tpt_to_space(x64, sizeof(double) * n);
  double *o64 = tpt_alloc_poisoned(sizeof(double) * n);
  TPT_OK(tpt_range_rsqrt(tpt_space, d32, d64, o32, o64, n));
  tpt_to_host(r32, o32, sizeof(float) * n);
  tpt_to_host(r64, o64, sizeof(double) * n);
  cr_assert(r32[5] == INFINITY && r64[5] == INFINITY, "rsqrt(0): %g, %g", r32[5], r64[5]);
  cr_assert(r32[6] == 0 && r64[6] == 0, "rsqrt(inf): %g, %g", r32[6], r64[6]);
  for (int i = 0; i < n; ++i) {
    if (i == 5 || i == 6)
      continue;
    long double want32 = 1.0L / sqrtl((long double)x32[i]);
    long double want64 = 1.0L / sqrtl((long double)x64[i]);
    cr_assert(ulps_off(r32[i], want32, 23) <= 2, "f32 rsqrt(%a) = %a, want %La", x32[i], r32[i],
              want32);
    cr_assert(ulps_off(r64[i], want64, 52) <= 2, "f64 rsqrt(%a) = %a, want %La", x64[i], r64[i],
              want64);
  }
  tpt_free(d32), tpt_free(o32), tpt_free(d64), tpt_free(o64);
  free(x32), free(r32), free(x64), free(r64);
}

Test(kernels, negative_range_is_rejected) {
  TPT_FAILS_WITH(tpt_range_affine(tpt_space, NULL, -1), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "affine") != NULL, "message names the kernel: %s",
            tp_last_error());
}

Test(kernels, overflowing_range2_is_rejected) {
  TPT_FAILS_WITH(tpt_range2_index(tpt_space, NULL, (int64_t)1 << 40, (int64_t)1 << 40),
                 TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tpt_range2_index(tpt_space, NULL, -2, 5), TP_ERROR_INVALID_ARGUMENT);
}

Test(kernels, team_loops_cover_every_index_once) {
  const int shapes[][2] = {{1, 1}, {4, 1}, {3, 8}, {7, 4}, {32, 32}, {8, 32}, {1, 32}, {128, 1}};
  const int64_t leagues[] = {0, 1, 5, 131};
  const int64_t rows_list[] = {1, 13, 100};
  const int cols_list[] = {1, 3, 33, 70};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (size_t l = 0; l < 4; ++l)
      for (size_t r = 0; r < 3; ++r)
        for (size_t c = 0; c < 4; ++c) {
          int64_t league = leagues[l], rows = rows_list[r];
          int cols = cols_list[c];
          size_t count = (size_t)(league * rows * cols);
          int32_t *d = tpt_alloc_poisoned(sizeof(int32_t) * (count + 1));
          TPT_OK(tp_memset(tpt_space, d, 0, sizeof(int32_t) * count));
          tp_team_policy p = tp_team_policy_make(league, shapes[s][0], shapes[s][1], 0);
          p.schedule = (c % 2) ? TP_SCHEDULE_DYNAMIC : TP_SCHEDULE_STATIC;
          TPT_OK(tpt_team_cover(tpt_space, p, rows, cols, d));
          int32_t *h = tpt_host_alloc(sizeof(int32_t) * (count + 1));
          tpt_to_host(h, d, sizeof(int32_t) * (count + 1));
          for (size_t i = 0; i < count; ++i)
            cr_assert_eq(
                h[i], 1, "team %dx%d league %lld rows %lld cols %d: entry %zu seen %d times",
                shapes[s][0], shapes[s][1], (long long)league, (long long)rows, cols, i, h[i]);
          cr_assert_eq(h[count], -1, "wrote past the end");
          tpt_free(d);
          free(h);
        }
}

Test(kernels, team_scratch_is_private_and_barrier_orders_it) {
  tpt_rng rng = tpt_rng_fresh();
  const int shapes[][2] = {{1, 1}, {5, 4}, {8, 32}, {64, 2}};
  const int64_t lens[] = {1, 17, 1000, 4093};
  for (size_t s = 0; s < 4; ++s)
    for (size_t k = 0; k < 4; ++k) {
      int64_t league = 37, len = lens[k], n = league * len;
      double *h = tpt_host_alloc(sizeof(double) * (size_t)n);
      for (int64_t i = 0; i < n; ++i)
        h[i] = tpt_uniform(&rng, -5, 5);
      double *in = tpt_to_space(h, sizeof(double) * (size_t)n);
      double *out = tpt_alloc_poisoned(sizeof(double) * (size_t)n);
      tp_team_policy p =
          tp_team_policy_make(league, shapes[s][0], shapes[s][1], sizeof(double) * (size_t)len);
      TPT_OK(tpt_team_scratch_reverse(tpt_space, p, in, out, len));
      double *back = tpt_host_alloc(sizeof(double) * (size_t)n);
      tpt_to_host(back, out, sizeof(double) * (size_t)n);
      for (int64_t t = 0; t < league; ++t)
        for (int64_t i = 0; i < len; ++i)
          cr_assert_eq(back[t * len + i], h[t * len + len - 1 - i],
                       "team %lld element %lld (shape %dx%d, len %lld)", (long long)t, (long long)i,
                       shapes[s][0], shapes[s][1], (long long)len);
      tpt_free(in), tpt_free(out);
      free(h), free(back);
    }
}

Test(kernels, bad_policies_are_rejected_with_the_field_named) {
  tp_team_policy p = tp_team_policy_make(-1, 1, 1, 0);
  TPT_FAILS_WITH(tpt_team_noop(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "league") != NULL, "%s", tp_last_error());
  p = tp_team_policy_make(4, 0, 1, 0);
  TPT_FAILS_WITH(tpt_team_noop(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "team size") != NULL, "%s", tp_last_error());
  p = tp_team_policy_make(4, 4, 3, 0);
  TPT_FAILS_WITH(tpt_team_noop(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "vector length") != NULL, "%s", tp_last_error());
  p = tp_team_policy_make(4, 4, 128, 0);
  TPT_FAILS_WITH(tpt_team_noop(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  p = tp_team_policy_make(4, 1, 1, (size_t)1 << 40);
  TPT_FAILS_WITH(tpt_team_noop(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "scratch") != NULL, "%s", tp_last_error());
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  if (info.is_gpu) {
    p = tp_team_policy_make(4, 2 * info.max_team_threads, 1, 0);
    TPT_FAILS_WITH(tpt_team_noop(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  }
  p = tp_team_policy_make(0, 1, 1, 0); /* an empty league is fine */
  TPT_OK(tpt_team_noop(tpt_space, p));
  p = tp_team_policy_make(3, 16, 8, 0); /* 128 threads: over the kernel's bound of 64 */
  TPT_FAILS_WITH(tpt_team_bounded_noop(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "bound of 64") != NULL, "%s", tp_last_error());
  p = tp_team_policy_make(3, 8, 8, 0);
  TPT_OK(tpt_team_bounded_noop(tpt_space, p));
}
