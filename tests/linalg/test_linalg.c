/* The example algorithm kernel: squared row norms with a team reduction and an atomic. */
#include <math.h>
#include <string.h>

#include "portable/tp_gemm_provider.h"
#include "tests/common/tpt.h"

TestSuite(linalg, .init = tpt_setup, .fini = tpt_teardown);

Test(linalg, row_norms_match_reference_on_awkward_shapes) {
  tpt_rng rng = tpt_rng_fresh();
  /* {40, 20, 21} guards the team barrier between the rows' sums and their copy-out
   * (tools/ci/mutations.sh, mutation 1): its 8-lane vectors make teams of 16 threads, in
   * which thread 1 copies out row 8, written by thread 8. The HIP CPU runtime resumes
   * fibers at a block barrier threadIdx.y fastest, so without the barrier thread 1's
   * lane 0 copies row 8 out before thread 8 has run. With 32-lane vectors (teams of 4)
   * only thread 0's lanes 1..15 read other threads' rows, and the runtime resumes them
   * after every thread's lane 0 has reached the barrier: the race stays hidden. */
  const int64_t shapes[][3] = {{0, 4, 4},    {1, 1, 1},        {17, 3, 5},
                               {16, 32, 32}, {100, 1, 1},      {97, 97, 101},
                               {1000, 7, 7}, {33, 1000, 1003}, {40, 20, 21}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
    int64_t m = shapes[c][0], n = shapes[c][1], ld = shapes[c][2];
    double *A = tpt_host_alloc(sizeof(double) * (size_t)(m * ld));
    double *ref = tpt_host_alloc(sizeof(double) * (size_t)m), total = 0;
    for (int64_t i = 0; i < m; ++i) {
      ref[i] = 0;
      for (int64_t j = 0; j < ld; ++j) {
        A[i * ld + j] = j < n ? tpt_uniform(&rng, -2, 2) : NAN; /* padding is never read */
        if (j < n)
          ref[i] += A[i * ld + j] * A[i * ld + j];
      }
      total += ref[i];
    }
    double *dA = tpt_to_space(A, sizeof(double) * (size_t)(m * ld));
    double *dn = tpt_alloc_poisoned(sizeof(double) * (size_t)(m + 1));
    double *dt = tpt_alloc_poisoned(sizeof(double));
    TPT_OK(tp_row_norms2_f64(tpt_space, dA, m, n, ld, dn, dt));
    double *got = tpt_host_alloc(sizeof(double) * (size_t)(m + 1)), gt;
    tpt_to_host(got, dn, sizeof(double) * (size_t)(m + 1));
    tpt_to_host(&gt, dt, sizeof gt);
    for (int64_t i = 0; i < m; ++i)
      cr_assert(tpt_rel_diff(got[i], ref[i]) <= 1e-13, "%lldx%lld row %lld: %.17g vs %.17g",
                (long long)m, (long long)n, (long long)i, got[i], ref[i]);
    cr_assert(isnan(got[m]), "wrote past the last row");
    cr_assert(fabs(gt - total) <= 1e-12 * (total + 1), "total %.17g vs %.17g", gt, total);
    tpt_free(dA), tpt_free(dn), tpt_free(dt);
    free(A), free(ref), free(got);
  }
}

Test(linalg, bad_shapes_are_rejected) {
  double *d = tpt_alloc_poisoned(64);
  TPT_FAILS_WITH(tp_row_norms2_f64(tpt_space, d, 2, 4, 3, d, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_row_norms2_f64(tpt_space, d, -1, 4, 4, d, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_row_norms2_f64(tpt_space, NULL, 2, 4, 4, d, NULL), TP_ERROR_INVALID_ARGUMENT);
  tpt_free(d);
}

/* Reference: C = alpha op(A) op(B) + beta C in double precision, row-major. */
static void ref_gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                     int64_t lda, const double *B, int64_t ldb, double beta, double *C,
                     int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += (ta ? A[p * lda + i] : A[i * lda + p]) * (tb ? B[j * ldb + p] : B[p * ldb + j]);
      C[i * ldc + j] = alpha * s + (beta == 0 ? 0 : beta * C[i * ldc + j]);
    }
}

typedef tp_status (*gemm_fn)(tp_space *, tp_transpose, tp_transpose, int64_t, int64_t, int64_t,
                             double, const double *, int64_t, const double *, int64_t, double,
                             double *, int64_t);

static void check_gemm(gemm_fn fn, const char *which) {
  tpt_rng rng = tpt_rng_fresh();
  /* the last two have long inner dimensions: the portable GEMM splits their sums */
  const int64_t shapes[][3] = {{1, 1, 1},      {5, 7, 3},    {33, 31, 17}, {64, 64, 64},
                               {97, 1, 50},    {1, 97, 50},  {40, 45, 0},  {0, 8, 8},
                               {32, 32, 5003}, {40, 3, 2100}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int with_beta = 0; with_beta < 2; ++with_beta) {
          int64_t m = shapes[c][0], n = shapes[c][1], k = shapes[c][2];
          int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
          int64_t arows = ta ? k : m, brows = tb ? n : k;
          double *A = tpt_host_alloc(sizeof(double) * (size_t)(arows * lda + 1));
          double *B = tpt_host_alloc(sizeof(double) * (size_t)(brows * ldb + 1));
          double *C = tpt_host_alloc(sizeof(double) * (size_t)(m * ldc + 1));
          double *R = tpt_host_alloc(sizeof(double) * (size_t)(m * ldc + 1));
          for (int64_t i = 0; i < arows * lda; ++i)
            A[i] = tpt_uniform(&rng, -1, 1);
          for (int64_t i = 0; i < brows * ldb; ++i)
            B[i] = tpt_uniform(&rng, -1, 1);
          for (int64_t i = 0; i < m * ldc; ++i)
            C[i] = R[i] = with_beta ? tpt_uniform(&rng, -1, 1) : NAN; /* beta 0 ignores C */
          double alpha = 1.5, beta = with_beta ? -0.5 : 0.0;
          ref_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, R, ldc);
          double *dA = tpt_to_space(A, sizeof(double) * (size_t)(arows * lda + 1));
          double *dB = tpt_to_space(B, sizeof(double) * (size_t)(brows * ldb + 1));
          double *dC = tpt_to_space(C, sizeof(double) * (size_t)(m * ldc + 1));
          TPT_OK(fn(tpt_space, ta ? TP_TRANS : TP_NO_TRANS, tb ? TP_TRANS : TP_NO_TRANS, m, n, k,
                    alpha, dA, lda, dB, ldb, beta, dC, ldc));
          tpt_to_host(C, dC, sizeof(double) * (size_t)(m * ldc));
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j)
              cr_assert(fabs(C[i * ldc + j] - R[i * ldc + j]) <= 1e-12 * (double)(k + 1),
                        "%s %lldx%lldx%lld ta=%d tb=%d beta=%g at (%lld,%lld): %.17g vs %.17g",
                        which, (long long)m, (long long)n, (long long)k, ta, tb, beta, (long long)i,
                        (long long)j, C[i * ldc + j], R[i * ldc + j]);
          tpt_free(dA), tpt_free(dB), tpt_free(dC);
          free(A), free(B), free(C), free(R);
        }
}

Test(linalg, gemm_matches_reference) { check_gemm(tp_gemm_f64, tp_gemm_provider()); }

Test(linalg, portable_gemm_matches_reference) { check_gemm(tp_gemm_portable_f64, "portable"); }

/* Batched, with batch strides, and with sums long enough to be split into pieces. */
Test(linalg, portable_batched_gemm_matches_reference) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t shapes[][3] = {{5, 7, 3}, {32, 32, 4100}, {3, 33, 2049}};
  const int64_t batch = 3;
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
    const int64_t m = shapes[c][0], n = shapes[c][1], k = shapes[c][2];
    const int64_t sa = m * k + 5, sb = k * n + 2, sc = m * n + 1; /* op(A) = A^T: k x m */
    double *A = tpt_host_alloc(sizeof(double) * (size_t)(batch * sa));
    double *B = tpt_host_alloc(sizeof(double) * (size_t)(batch * sb));
    double *C = tpt_host_alloc(sizeof(double) * (size_t)(batch * sc));
    double *R = tpt_host_alloc(sizeof(double) * (size_t)(batch * sc));
    for (int64_t i = 0; i < batch * sa; ++i)
      A[i] = tpt_uniform(&rng, -1, 1);
    for (int64_t i = 0; i < batch * sb; ++i)
      B[i] = tpt_uniform(&rng, -1, 1);
    for (int64_t i = 0; i < batch * sc; ++i)
      C[i] = R[i] = tpt_uniform(&rng, -1, 1);
    for (int64_t b = 0; b < batch; ++b)
      ref_gemm(1, 0, m, n, k, 0.75, A + b * sa, m, B + b * sb, n, 2.0, R + b * sc, n);
    double *dA = tpt_to_space(A, sizeof(double) * (size_t)(batch * sa));
    double *dB = tpt_to_space(B, sizeof(double) * (size_t)(batch * sb));
    double *dC = tpt_to_space(C, sizeof(double) * (size_t)(batch * sc));
    TPT_OK(tp_gemm_portable_batched_f64(tpt_space, TP_TRANS, TP_NO_TRANS, m, n, k, 0.75, dA, m, sa,
                                        dB, n, sb, 2.0, dC, n, sc, batch));
    tpt_to_host(C, dC, sizeof(double) * (size_t)(batch * sc));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t e = 0; e < m * n; ++e)
        cr_assert(fabs(C[b * sc + e] - R[b * sc + e]) <= 1e-12 * (double)(k + 1),
                  "%lldx%lldx%lld, batch %lld, element %lld: %.17g vs %.17g", (long long)m,
                  (long long)n, (long long)k, (long long)b, (long long)e, C[b * sc + e],
                  R[b * sc + e]);
    for (int64_t b = 0; b < batch; ++b) /* the gaps between the batch's matrices stay */
      cr_assert(C[b * sc + m * n] == R[b * sc + m * n], "batch %lld: the gap was written",
                (long long)b);
    tpt_free(dA), tpt_free(dB), tpt_free(dC);
    free(A), free(B), free(C), free(R);
  }
}

Test(linalg, gemm_rejects_bad_leading_dimensions) {
  double *d = tpt_alloc_poisoned(1024);
  TPT_FAILS_WITH(tp_gemm_f64(tpt_space, TP_NO_TRANS, TP_NO_TRANS, 4, 4, 4, 1, d, 3, d, 4, 0, d, 4),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_gemm_f64(tpt_space, TP_NO_TRANS, TP_NO_TRANS, 4, 4, -1, 1, d, 4, d, 4, 0, d, 4),
                 TP_ERROR_INVALID_ARGUMENT);
  tpt_free(d);
}

/* BLIS's own settings, where BLIS is linked (weak: absent elsewhere, and then NULL). */
extern int64_t bli_thread_get_num_threads(void) __attribute__((weak));
extern int64_t bli_thread_get_jc_nt(void) __attribute__((weak));
extern int64_t bli_thread_get_pc_nt(void) __attribute__((weak));
extern int64_t bli_thread_get_ic_nt(void) __attribute__((weak));
extern int64_t bli_thread_get_jr_nt(void) __attribute__((weak));
extern int64_t bli_thread_get_ir_nt(void) __attribute__((weak));
extern void bli_thread_set_num_threads(int64_t n) __attribute__((weak));
extern void bli_thread_set_ways(int64_t jc, int64_t pc, int64_t ic, int64_t jr, int64_t ir)
    __attribute__((weak));

/* BLIS's thread count and ways of parallelism, and the threads they make (ways that are
 * set win over the count). */
typedef struct blis_setting {
  int64_t count, ways[5];
} blis_setting;

static blis_setting blis_now(void) {
  blis_setting s = {bli_thread_get_num_threads(),
                    {bli_thread_get_jc_nt(), bli_thread_get_pc_nt(), bli_thread_get_ic_nt(),
                     bli_thread_get_jr_nt(), bli_thread_get_ir_nt()}};
  return s;
}

static int64_t blis_threads(blis_setting s) {
  int64_t product = 1, set = 0;
  for (int w = 0; w < 5; ++w)
    if (s.ways[w] > 0)
      product *= s.ways[w], set = 1;
  return set ? product : (s.count > 0 ? s.count : 1);
}

/* From the setting in place: one thread between tpi_blas_single_thread and
 * tpi_blas_threads_restore, and that setting again after. */
static void check_single_then_back(const char *what) {
  const blis_setting before = blis_now();
  tpi_blas_threads saved;
  tpi_blas_single_thread(&saved);
  cr_expect_eq(blis_threads(blis_now()), 1, "%s: %lld threads inside", what,
               (long long)blis_threads(blis_now()));
  tpi_blas_threads_restore(&saved);
  const blis_setting after = blis_now();
  cr_expect(memcmp(&before, &after, sizeof before) == 0,
            "%s: count %lld ways %lld %lld %lld after, count %lld ways %lld %lld %lld before", what,
            (long long)after.count, (long long)after.ways[0], (long long)after.ways[2],
            (long long)after.ways[4], (long long)before.count, (long long)before.ways[0],
            (long long)before.ways[2], (long long)before.ways[4]);
}

/* tpi_blas_single_thread gives the system BLIS one thread and tpi_blas_threads_restore puts
 * back what was set before, a count or ways of parallelism (GCP's L-BFGS-B calls the
 * system BLAS between them). */
Test(linalg, blas_threads_are_one_then_put_back) {
  if (strcmp(tp_gemm_provider(), "BLIS") != 0 || !bli_thread_set_num_threads)
    cr_skip_test("provider %s: no hold on the system BLAS's threads", tp_gemm_provider());
  bli_thread_set_ways(-1, -1, -1, -1, -1);
  bli_thread_set_num_threads(3);
  check_single_then_back("count 3");
  bli_thread_set_ways(2, 1, 3, 1, 1);
  check_single_then_back("ways 2 x 3");
  bli_thread_set_ways(-1, -1, -1, -1, -1);
  bli_thread_set_num_threads(1);
  tpi_blas_threads saved;
  tpi_blas_single_thread(&saved);
  cr_expect_eq(saved.changed, 0, "one thread already: nothing to change");
  tpi_blas_threads_restore(&saved);
}
