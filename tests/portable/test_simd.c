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

/* run_f32 and run_f64: every operation on rows rows of one width, from test_simd_template.h. */
#define TPT_T float
#define TPT_SFX f32
#define TPT_EPS FLT_EPSILON
#define TPT_SUM_TOL 1e-5
#include "tests/portable/test_simd_template.h"
#define TPT_T double
#define TPT_SFX f64
#define TPT_EPS DBL_EPSILON
#define TPT_SUM_TOL 1e-12
#include "tests/portable/test_simd_template.h"

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
