#include "portable/tp_portable.h"
#include "tests/kernels/tpt_simd_kernels.h"

/* Every operation of tp_<sfx>x<W>, on row r. */
#define TPT_SIMD_KERNEL(sfx, T, W)                                                       \
  TP_RANGE_KERNEL(simd_##sfx##_##W, simd_##sfx##_args, r, a) {                           \
    const int64_t o = r * (W);                                                           \
    T *const *v = a.out.vec;                                                             \
    tp_##sfx##x##W x = tp_##sfx##x##W##_load(a.a + o);                                   \
    tp_##sfx##x##W y = tp_##sfx##x##W##_load(a.b + o);                                   \
    tp_##sfx##x##W z = tp_##sfx##x##W##_load(a.c + o);                                   \
    T s = a.s[r];                                                                        \
    int n = a.n[r];                                                                      \
    tp_##sfx##x##W##_store(v[TPT_SIMD_FILL] + o, tp_##sfx##x##W##_fill(s));              \
    tp_##sfx##x##W##_store(v[TPT_SIMD_ZERO] + o, tp_##sfx##x##W##_zero());               \
    tp_##sfx##x##W##_store(v[TPT_SIMD_COPY] + o, x);                                     \
    tp_##sfx##x##W##_store(v[TPT_SIMD_LOAD_N] + o, tp_##sfx##x##W##_load_n(a.a + o, n)); \
    tp_##sfx##x##W##_store_n(v[TPT_SIMD_STORE_N] + o, x, n);                             \
    tp_##sfx##x##W##_store(v[TPT_SIMD_ADD] + o, tp_##sfx##x##W##_add(x, y));             \
    tp_##sfx##x##W##_store(v[TPT_SIMD_SUB] + o, tp_##sfx##x##W##_sub(x, y));             \
    tp_##sfx##x##W##_store(v[TPT_SIMD_MUL] + o, tp_##sfx##x##W##_mul(x, y));             \
    tp_##sfx##x##W##_store(v[TPT_SIMD_SCALE] + o, tp_##sfx##x##W##_scale(x, s));         \
    tp_##sfx##x##W##_store(v[TPT_SIMD_FMA] + o, tp_##sfx##x##W##_fma(x, y, z));          \
    tp_##sfx##x##W##_store(v[TPT_SIMD_FMA_S] + o, tp_##sfx##x##W##_fma_s(x, s, z));      \
    tp_##sfx##x##W##_store(v[TPT_SIMD_MAX] + o, tp_##sfx##x##W##_max(x, y));             \
    a.out.hsum[r] = tp_##sfx##x##W##_hsum(x);                                            \
    a.out.dot[r] = tp_##sfx##x##W##_dot(x, y);                                           \
  }

#define TPT_SIMD_TYPE(sfx, T)                                                                      \
  typedef struct simd_##sfx##_args {                                                               \
    const T *a, *b, *c, *s;                                                                        \
    const int32_t *n;                                                                              \
    tpt_simd_out_##sfx out;                                                                        \
  } simd_##sfx##_args;                                                                             \
                                                                                                   \
  TPT_SIMD_KERNEL(sfx, T, 1)                                                                       \
  TPT_SIMD_KERNEL(sfx, T, 2)                                                                       \
  TPT_SIMD_KERNEL(sfx, T, 3)                                                                       \
  TPT_SIMD_KERNEL(sfx, T, 4)                                                                       \
  TPT_SIMD_KERNEL(sfx, T, 8)                                                                       \
  TPT_SIMD_KERNEL(sfx, T, 12)                                                                      \
  TPT_SIMD_KERNEL(sfx, T, 16)                                                                      \
  TPT_SIMD_KERNEL(sfx, T, 32)                                                                      \
                                                                                                   \
  tp_status tpt_simd_ops_##sfx(tp_space *space, int width, int64_t rows, const T *a, const T *b,   \
                               const T *c, const T *s, const int32_t *n,                           \
                               const tpt_simd_out_##sfx *out) {                                    \
    TP_CHECK_ARG(out, "out must not be NULL");                                                     \
    TP_CHECK_ARG(rows >= 0, "row count %lld is negative", (long long)rows);                        \
    int missing = !a || !b || !c || !s || !n || !out->hsum || !out->dot;                           \
    for (int k = 0; k < TPT_SIMD_VEC_OUTS; ++k)                                                    \
      missing |= !out->vec[k];                                                                     \
    TP_CHECK_ARG(rows == 0 || !missing, "an input or output pointer is NULL");                     \
    simd_##sfx##_args args;                                                                        \
    args.a = a;                                                                                    \
    args.b = b;                                                                                    \
    args.c = c;                                                                                    \
    args.s = s;                                                                                    \
    args.n = n;                                                                                    \
    args.out = *out;                                                                               \
    switch (width) {                                                                               \
    case 1: return simd_##sfx##_1_launch(space, rows, args);                                       \
    case 2: return simd_##sfx##_2_launch(space, rows, args);                                       \
    case 3: return simd_##sfx##_3_launch(space, rows, args);                                       \
    case 4: return simd_##sfx##_4_launch(space, rows, args);                                       \
    case 8: return simd_##sfx##_8_launch(space, rows, args);                                       \
    case 12: return simd_##sfx##_12_launch(space, rows, args);                                     \
    case 16: return simd_##sfx##_16_launch(space, rows, args);                                     \
    case 32: return simd_##sfx##_32_launch(space, rows, args);                                     \
    default:                                                                                       \
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "SIMD width %d is not one of tp_simd.h's widths", \
                      width);                                                                      \
    }                                                                                              \
  }

TPT_SIMD_TYPE(f32, float)
TPT_SIMD_TYPE(f64, double)
