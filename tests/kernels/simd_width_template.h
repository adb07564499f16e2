/* One kernel of simd_kernels_template.h: every operation of tp_<sfx>x<W> on row r, for the
 * type of that template (TPT_T, TPT_SFX, its SIMD_ARGS and SIMD_KERNEL) and the width
 * TPT_W its includer defines (this file undefines TPT_W at its end, and has no include
 * guard).
 * generates: simd_f32_1 simd_f32_2 simd_f32_3 simd_f32_4 simd_f32_8 simd_f32_12 simd_f32_16
 * simd_f32_32 simd_f64_1 simd_f64_2 simd_f64_3 simd_f64_4 simd_f64_8 simd_f64_12
 * simd_f64_16 simd_f64_32 */

#define SIMD_V TP_PASTE(TP_PASTE3(tp_, TPT_SFX, x), TPT_W) /* tp_f32x4 */
#define SIMD_OP(op) TP_PASTE3(SIMD_V, _, op)               /* tp_f32x4_add */

TP_RANGE_KERNEL(SIMD_KERNEL(TPT_W), SIMD_ARGS, r, a) {
  const int64_t o = r * (TPT_W);
  TPT_T *const *v = a.out.vec;
  SIMD_V x = SIMD_OP(load)(a.a + o);
  SIMD_V y = SIMD_OP(load)(a.b + o);
  SIMD_V z = SIMD_OP(load)(a.c + o);
  TPT_T s = a.s[r];
  int n = a.n[r];
  SIMD_OP(store)(v[TPT_SIMD_FILL] + o, SIMD_OP(fill)(s));
  SIMD_OP(store)(v[TPT_SIMD_ZERO] + o, SIMD_OP(zero)());
  SIMD_OP(store)(v[TPT_SIMD_COPY] + o, x);
  SIMD_OP(store)(v[TPT_SIMD_LOAD_N] + o, SIMD_OP(load_n)(a.a + o, n));
  SIMD_OP(store_n)(v[TPT_SIMD_STORE_N] + o, x, n);
  SIMD_OP(store)(v[TPT_SIMD_ADD] + o, SIMD_OP(add)(x, y));
  SIMD_OP(store)(v[TPT_SIMD_SUB] + o, SIMD_OP(sub)(x, y));
  SIMD_OP(store)(v[TPT_SIMD_MUL] + o, SIMD_OP(mul)(x, y));
  SIMD_OP(store)(v[TPT_SIMD_SCALE] + o, SIMD_OP(scale)(x, s));
  SIMD_OP(store)(v[TPT_SIMD_FMA] + o, SIMD_OP(fma)(x, y, z));
  SIMD_OP(store)(v[TPT_SIMD_FMA_S] + o, SIMD_OP(fma_s)(x, s, z));
  SIMD_OP(store)(v[TPT_SIMD_MAX] + o, SIMD_OP(max)(x, y));
  a.out.hsum[r] = SIMD_OP(hsum)(x);
  a.out.dot[r] = SIMD_OP(dot)(x, y);
}

#undef SIMD_V
#undef SIMD_OP
#undef TPT_W
