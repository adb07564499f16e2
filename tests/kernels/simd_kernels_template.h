/* The SIMD test kernels of simd_kernels.c for one element type: the includer defines TPT_T
 * (float or double) and TPT_SFX (f32 or f64), and includes this file once per type (it
 * undefines both at its end, and has no include guard). Each width's kernel comes from
 * simd_width_template.h.
 * generates: simd_f32_1 simd_f32_2 simd_f32_3 simd_f32_4 simd_f32_8 simd_f32_12 simd_f32_16
 * simd_f32_32 simd_f64_1 simd_f64_2 simd_f64_3 simd_f64_4 simd_f64_8 simd_f64_12
 * simd_f64_16 simd_f64_32 (the kernels), simd_f32_args, simd_f64_args, tpt_simd_ops_f32 and
 * tpt_simd_ops_f64. */

#define SIMD_ARGS TP_PASTE3(simd_, TPT_SFX, _args)
#define SIMD_OUT TP_PASTE(tpt_simd_out_, TPT_SFX)
/* The kernel of width w: simd_f32_4. */
#define SIMD_KERNEL(w) TP_PASTE3(simd_, TPT_SFX, TP_PASTE(_, w))

typedef struct SIMD_ARGS {
  const TPT_T *a, *b, *c, *s;
  const int32_t *n;
  SIMD_OUT out;
} SIMD_ARGS;

#define TPT_W 1
#include "tests/kernels/simd_width_template.h"
#define TPT_W 2
#include "tests/kernels/simd_width_template.h"
#define TPT_W 3
#include "tests/kernels/simd_width_template.h"
#define TPT_W 4
#include "tests/kernels/simd_width_template.h"
#define TPT_W 8
#include "tests/kernels/simd_width_template.h"
#define TPT_W 12
#include "tests/kernels/simd_width_template.h"
#define TPT_W 16
#include "tests/kernels/simd_width_template.h"
#define TPT_W 32
#include "tests/kernels/simd_width_template.h"

tp_status TP_PASTE(tpt_simd_ops_, TPT_SFX)(tp_space *space, int width, int64_t rows, const TPT_T *a,
                                           const TPT_T *b, const TPT_T *c, const TPT_T *s,
                                           const int32_t *n, const SIMD_OUT *out) {
  TP_CHECK_ARG(out, "out must not be NULL");
  TP_CHECK_ARG(rows >= 0, "row count %lld is negative", (long long)rows);
  int missing = !a || !b || !c || !s || !n || !out->hsum || !out->dot;
  for (int k = 0; k < TPT_SIMD_VEC_OUTS; ++k)
    missing |= !out->vec[k];
  TP_CHECK_ARG(rows == 0 || !missing, "an input or output pointer is NULL");
  SIMD_ARGS args;
  args.a = a;
  args.b = b;
  args.c = c;
  args.s = s;
  args.n = n;
  args.out = *out;
  switch (width) {
  case 1: return TP_LAUNCHER(SIMD_KERNEL(1))(space, rows, args);
  case 2: return TP_LAUNCHER(SIMD_KERNEL(2))(space, rows, args);
  case 3: return TP_LAUNCHER(SIMD_KERNEL(3))(space, rows, args);
  case 4: return TP_LAUNCHER(SIMD_KERNEL(4))(space, rows, args);
  case 8: return TP_LAUNCHER(SIMD_KERNEL(8))(space, rows, args);
  case 12: return TP_LAUNCHER(SIMD_KERNEL(12))(space, rows, args);
  case 16: return TP_LAUNCHER(SIMD_KERNEL(16))(space, rows, args);
  case 32: return TP_LAUNCHER(SIMD_KERNEL(32))(space, rows, args);
  default:
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "SIMD width %d is not one of tp_simd.h's widths",
                    width);
  }
}

#undef SIMD_ARGS
#undef SIMD_OUT
#undef SIMD_KERNEL
#undef TPT_T
#undef TPT_SFX
