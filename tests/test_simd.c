/* SIMD arrays (portable/tp_simd.h): every operation, for f32 and f64 and every width,
 * computed inside a kernel and compared with a scalar loop on the host. Results must be
 * equal where the arithmetic is exact; fma, hsum and dot may be contracted or reordered by
 * a compiler (nvcc fuses a*b + c), so on full-precision inputs they get a tolerance
 * relative to the magnitudes involved, and on small dyadic inputs (every result exact)
 * they must be equal too. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tests/kernels/tpt_simd_kernels.h"

TestSuite(simd, .init = tpt_setup, .fini = tpt_teardown);

static const int widths[] = TPT_SIMD_WIDTHS;
static const char *const op_names[TPT_SIMD_VEC_OUTS] = {"fill",    "zero", "load/store", "load_n",
                                                        "store_n", "add",  "sub",        "mul",
                                                        "scale",   "fma",  "fma_s",      "max"};

/* Asserts only when cond fails: cheap inside loops. */
#define CHECK(cond, ...)            \
  do {                              \
    if (!(cond))                    \
      cr_assert(cond, __VA_ARGS__); \
  } while (0)

/* Whether the bytes at p are still the 0xFF poison of tpt_alloc_poisoned. */
static int is_poison(const void *p, size_t bytes) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < bytes; ++i)
    if (c[i] != 0xFF)
      return 0;
  return 1;
}

/* Inputs: full-precision values, or (exact) multiples of 1/8 in [-8, 8], whose products
 * and sums of up to 32 products are exact even in f32. */
static double draw(tpt_rng *rng, int exact, double range) {
  return exact ? (double)tpt_int(rng, -64, 64) / 8 : tpt_uniform(rng, -range, range);
}

#define SIMD_CHECK(sfx, T, EPS, SUM_TOL)                                                           \
  static void run_##sfx(tpt_rng *rng, int width, int64_t rows, int exact) {                        \
    const int W = width;                                                                           \
    const int64_t len = rows * W;                                                                  \
    /* every output gets one spare row, which must stay poisoned */                                \
    const size_t vec_bytes = sizeof(T) * (size_t)(len + W);                                        \
    const size_t row_bytes = sizeof(T) * (size_t)(rows + 1);                                       \
    T *a = tpt_host_alloc(sizeof(T) * (size_t)len), *b = tpt_host_alloc(sizeof(T) * (size_t)len);  \
    T *c = tpt_host_alloc(sizeof(T) * (size_t)len), *s = tpt_host_alloc(sizeof(T) * (size_t)rows); \
    int32_t *n = tpt_host_alloc(sizeof(int32_t) * (size_t)rows);                                   \
    for (int64_t i = 0; i < len; ++i) {                                                            \
      a[i] = (T)draw(rng, exact, 1);                                                               \
      b[i] = (T)draw(rng, exact, 1);                                                               \
      c[i] = (T)draw(rng, exact, 1);                                                               \
    }                                                                                              \
    for (int64_t r = 0; r < rows; ++r) {                                                           \
      s[r] = (T)draw(rng, exact, 2);                                                               \
      n[r] = (int32_t)(r % (W + 1)); /* every n in 0..W */                                         \
    }                                                                                              \
    T *da = rows ? tpt_to_space(a, sizeof(T) * (size_t)len) : NULL;                                \
    T *db = rows ? tpt_to_space(b, sizeof(T) * (size_t)len) : NULL;                                \
    T *dc = rows ? tpt_to_space(c, sizeof(T) * (size_t)len) : NULL;                                \
    T *ds = rows ? tpt_to_space(s, sizeof(T) * (size_t)rows) : NULL;                               \
    int32_t *dn = rows ? tpt_to_space(n, sizeof(int32_t) * (size_t)rows) : NULL;                   \
    tpt_simd_out_##sfx out;                                                                        \
    for (int k = 0; k < TPT_SIMD_VEC_OUTS; ++k)                                                    \
      out.vec[k] = tpt_alloc_poisoned(vec_bytes);                                                  \
    out.hsum = tpt_alloc_poisoned(row_bytes);                                                      \
    out.dot = tpt_alloc_poisoned(row_bytes);                                                       \
    TPT_OK(tpt_simd_ops_##sfx(tpt_space, W, rows, da, db, dc, ds, dn, &out));                      \
    T *got = tpt_host_alloc(vec_bytes), *hs = tpt_host_alloc(row_bytes);                           \
    T *hd = tpt_host_alloc(row_bytes);                                                             \
    tpt_to_host(hs, out.hsum, row_bytes);                                                          \
    tpt_to_host(hd, out.dot, row_bytes);                                                           \
    for (int op = 0; op < TPT_SIMD_VEC_OUTS; ++op) {                                               \
      tpt_to_host(got, out.vec[op], vec_bytes);                                                    \
      for (int64_t r = 0; r < rows; ++r)                                                           \
        for (int k = 0; k < W; ++k) {                                                              \
          int64_t e = r * W + k;                                                                   \
          T x = a[e], y = b[e], z = c[e], g = got[e], want = 0;                                    \
          double tol = 0; /* exact unless set */                                                   \
          switch (op) {                                                                            \
          case TPT_SIMD_FILL: want = s[r]; break;                                                  \
          case TPT_SIMD_ZERO: want = 0; break;                                                     \
          case TPT_SIMD_COPY: want = x; break;                                                     \
          case TPT_SIMD_LOAD_N: want = k < n[r] ? x : (T)0; break;                                 \
          case TPT_SIMD_STORE_N: want = x; break;                                                  \
          case TPT_SIMD_ADD: want = x + y; break;                                                  \
          case TPT_SIMD_SUB: want = x - y; break;                                                  \
          case TPT_SIMD_MUL: want = x * y; break;                                                  \
          case TPT_SIMD_SCALE: want = x * s[r]; break;                                             \
          case TPT_SIMD_FMA:                                                                       \
            want = (T)((double)x * y + z);                                                         \
            tol = exact ? 0 : 2 * EPS * (fabs((double)x * y) + fabs((double)z));                   \
            break;                                                                                 \
          case TPT_SIMD_FMA_S:                                                                     \
            want = (T)((double)x * s[r] + z);                                                      \
            tol = exact ? 0 : 2 * EPS * (fabs((double)x * s[r]) + fabs((double)z));                \
            break;                                                                                 \
          case TPT_SIMD_MAX: want = y > x ? y : x; break;                                          \
          }                                                                                        \
          if (op == TPT_SIMD_STORE_N && k >= n[r]) {                                               \
            CHECK(is_poison(&got[e], sizeof(T)),                                                   \
                  "%s W=%d rows=%lld row %lld n=%d: "                                              \
                  "element %d past n was written (%.9g)",                                          \
                  op_names[op], W, (long long)rows, (long long)r, n[r], k, (double)g);             \
            continue;                                                                              \
          }                                                                                        \
          CHECK(tol > 0 ? fabs((double)g - (double)want) <= tol                                    \
                        : (g == want && signbit(g) == signbit(want)),                              \
                "%s W=%d rows=%lld%s row %lld element %d (n=%d): got %.17g, expected "             \
                "%.17g",                                                                           \
                op_names[op], W, (long long)rows, exact ? " exact" : "", (long long)r, k, n[r],    \
                (double)g, (double)want);                                                          \
        }                                                                                          \
      CHECK(is_poison(got + len, sizeof(T) * (size_t)W),                                           \
            "%s W=%d rows=%lld: wrote past "                                                       \
            "the last row",                                                                        \
            op_names[op], W, (long long)rows);                                                     \
    }                                                                                              \
    for (int64_t r = 0; r < rows; ++r) {                                                           \
      double sum = 0, mag = 0, dot = 0, dmag = 0;                                                  \
      T sum_t = 0, dot_t = 0; /* the same order and precision as tp_simd.h */                      \
      for (int k = 0; k < W; ++k) {                                                                \
        T x = a[r * W + k], y = b[r * W + k];                                                      \
        sum += x, mag += fabs((double)x), sum_t += x;                                              \
        dot += (double)x * y, dmag += fabs((double)x * y), dot_t += (T)(x * y);                    \
      }                                                                                            \
      if (exact) {                                                                                 \
        CHECK(hs[r] == sum_t && hd[r] == dot_t,                                                    \
              "exact W=%d row %lld: hsum %.17g (%.17g)"                                            \
              " dot %.17g (%.17g)",                                                                \
              W, (long long)r, (double)hs[r], (double)sum_t, (double)hd[r], (double)dot_t);        \
      } else {                                                                                     \
        CHECK(fabs(hs[r] - sum) <= SUM_TOL * mag,                                                  \
              "hsum W=%d rows=%lld row %lld: %.17g "                                               \
              "vs %.17g",                                                                          \
              W, (long long)rows, (long long)r, (double)hs[r], sum);                               \
        CHECK(fabs(hd[r] - dot) <= SUM_TOL * dmag,                                                 \
              "dot W=%d rows=%lld row %lld: %.17g "                                                \
              "vs %.17g",                                                                          \
              W, (long long)rows, (long long)r, (double)hd[r], dot);                               \
      }                                                                                            \
    }                                                                                              \
    cr_assert(is_poison(hs + rows, sizeof(T)) && is_poison(hd + rows, sizeof(T)),                  \
              "hsum/dot W=%d rows=%lld: wrote past the last row", W, (long long)rows);             \
    for (int k = 0; k < TPT_SIMD_VEC_OUTS; ++k)                                                    \
      tpt_free(out.vec[k]);                                                                        \
    tpt_free(out.hsum), tpt_free(out.dot);                                                         \
    tpt_free(da), tpt_free(db), tpt_free(dc), tpt_free(ds), tpt_free(dn);                          \
    free(a), free(b), free(c), free(s), free(n), free(got), free(hs), free(hd);                    \
  }

SIMD_CHECK(f32, float, FLT_EPSILON, 1e-5)
SIMD_CHECK(f64, double, DBL_EPSILON, 1e-12)

/* Row counts: none, one (only n = 0), W + 1 (each n once), and enough rows for the
 * CPU backends to go parallel and a GPU to use many blocks. */
static void run_all(void (*run)(tpt_rng *, int, int64_t, int), int exact) {
  tpt_rng rng = tpt_rng_fresh();
  for (int w = 0; w < TPT_SIMD_WIDTH_COUNT; ++w) {
    int W = widths[w];
    const int64_t rows[] = {0, 1, W + 1, 4099 + W};
    for (int r = 0; r < 4; ++r)
      run(&rng, W, rows[r], exact);
  }
}

Test(simd, f32_ops_match_scalar_loop) { run_all(run_f32, 0); }
Test(simd, f64_ops_match_scalar_loop) { run_all(run_f64, 0); }
Test(simd, f32_ops_are_exact_on_dyadic_inputs) { run_all(run_f32, 1); }
Test(simd, f64_ops_are_exact_on_dyadic_inputs) { run_all(run_f64, 1); }

Test(simd, bad_widths_and_arguments_are_rejected) {
  double *p = tpt_alloc_poisoned(sizeof(double) * 64);
  int32_t *n = tpt_alloc_poisoned(sizeof(int32_t) * 4);
  tpt_simd_out_f64 out;
  for (int k = 0; k < TPT_SIMD_VEC_OUTS; ++k)
    out.vec[k] = p;
  out.hsum = out.dot = p;
  const int bad[] = {0, -1, 5, 6, 7, 33, 64};
  for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); ++i) {
    TPT_FAILS_WITH(tpt_simd_ops_f64(tpt_space, bad[i], 1, p, p, p, p, n, &out),
                   TP_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(tp_last_error(), "width") != NULL, "message names the width: %s",
              tp_last_error());
  }
  TPT_FAILS_WITH(tpt_simd_ops_f64(tpt_space, 4, -1, p, p, p, p, n, &out),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tpt_simd_ops_f64(tpt_space, 4, 1, p, p, p, p, n, NULL), TP_ERROR_INVALID_ARGUMENT);
  out.vec[TPT_SIMD_MAX] = NULL;
  TPT_FAILS_WITH(tpt_simd_ops_f64(tpt_space, 4, 1, p, p, p, p, n, &out), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(tpt_simd_ops_f64(tpt_space, 4, 0, p, p, p, p, n, &out)); /* nothing to write */
  tpt_simd_out_f32 outf;
  memset(&outf, 0, sizeof outf);
  TPT_FAILS_WITH(tpt_simd_ops_f32(tpt_space, 8, 2, NULL, NULL, NULL, NULL, NULL, &outf),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tpt_simd_ops_f32(tpt_space, 12 + 1, 0, NULL, NULL, NULL, NULL, NULL, &outf),
                 TP_ERROR_INVALID_ARGUMENT);
  tpt_free(p), tpt_free(n);
}
