/* SIMD-array test kernels (simd_kernels.c): every operation of portable/tp_simd.h,
 * applied inside a range kernel over rows, for f32 and f64 and every width tp_simd.h
 * defines. Row r works on elements [r W, r W + W) of its inputs. */
#ifndef TPT_SIMD_KERNELS_H
#define TPT_SIMD_KERNELS_H

#include <stdint.h>

#include "tenport/tenport.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* The widths tp_simd.h defines (portable/simd_widths_template.h), which the entry points accept. */
#define TPT_SIMD_WIDTHS \
  { 1, 2, 3, 4, 8, 12, 16, 32 }
#define TPT_SIMD_WIDTH_COUNT 8

/* Outputs of W values per row, in vec[] of the output structs. With x = load(a + r W),
 * y = load(b + r W), z = load(c + r W), s = s[r] and n = n[r] (0 <= n <= W), row r stores
 * at vec[op] + r W: */
enum {
  TPT_SIMD_FILL,    /* fill(s) */
  TPT_SIMD_ZERO,    /* zero() */
  TPT_SIMD_COPY,    /* x: load then store */
  TPT_SIMD_LOAD_N,  /* load_n(a + r W, n) */
  TPT_SIMD_STORE_N, /* store_n(.., x, n): only the first n elements are written */
  TPT_SIMD_ADD,     /* add(x, y) */
  TPT_SIMD_SUB,     /* sub(x, y) */
  TPT_SIMD_MUL,     /* mul(x, y) */
  TPT_SIMD_SCALE,   /* scale(x, s) */
  TPT_SIMD_FMA,     /* fma(x, y, z) */
  TPT_SIMD_FMA_S,   /* fma_s(x, s, z) */
  TPT_SIMD_MAX,     /* max(x, y) */
  TPT_SIMD_VEC_OUTS
};

/* ... and one value per row: hsum[r] = hsum(x), dot[r] = dot(x, y). */
typedef struct tpt_simd_out_f32 {
  float *vec[TPT_SIMD_VEC_OUTS];
  float *hsum, *dot;
} tpt_simd_out_f32;
typedef struct tpt_simd_out_f64 {
  double *vec[TPT_SIMD_VEC_OUTS];
  double *hsum, *dot;
} tpt_simd_out_f64;

/* Runs every operation on rows rows of width `width`. Fails with
 * TP_ERROR_INVALID_ARGUMENT for a width tp_simd.h does not define, a negative rows, or a
 * NULL pointer when rows > 0; n[r] outside [0, width] is not checked (space memory). */
tp_status tpt_simd_ops_f32(tp_space *space, int width, int64_t rows, const float *a, const float *b,
                           const float *c, const float *s, const int32_t *n,
                           const tpt_simd_out_f32 *out);
tp_status tpt_simd_ops_f64(tp_space *space, int width, int64_t rows, const double *a,
                           const double *b, const double *c, const double *s, const int32_t *n,
                           const tpt_simd_out_f64 *out);

TP_EXTERN_C_END
#endif
