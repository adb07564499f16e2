/* The SIMD array of one type and width, tp_<T>x<W> (tp_f64x4), and its operations
 * tp_<T>x<W>_<op>. portable/simd_widths_template.h includes this file once per width with
 * SIMD_W (the width), SIMD_T (float or double) and SIMD_SFX (f32 or f64) defined; it
 * undefines SIMD_W at its end.
 * generates: the types tp_f32x1 tp_f32x2 tp_f32x3 tp_f32x4 tp_f32x8 tp_f32x12 tp_f32x16
 * tp_f32x32 tp_f64x1 tp_f64x2 tp_f64x3 tp_f64x4 tp_f64x8 tp_f64x12 tp_f64x16 tp_f64x32, and
 * for each type tp_<T>x<W> the functions tp_<T>x<W>_fill _zero _load _load_n _store
 * _store_n _add _sub _mul _scale _fma _fma_s _max _hsum _dot (tp_f64x4_fma_s) */

#define SIMD TP_PASTE(TP_PASTE3(tp_, SIMD_SFX, x), SIMD_W)
#define SIMD_OP(op) TP_PASTE3(SIMD, _, op)

typedef struct SIMD {
  SIMD_T v[SIMD_W];
} SIMD;

TP_INLINE SIMD SIMD_OP(fill)(SIMD_T s) {
  SIMD r;
  TP_LANE_LOOP(k, SIMD_W) r.v[k] = s;
  return r;
}

TP_INLINE SIMD SIMD_OP(zero)(void) { return SIMD_OP(fill)((SIMD_T)0); }

TP_INLINE SIMD SIMD_OP(load)(const SIMD_T *p) {
  SIMD r;
  TP_LANE_LOOP(k, SIMD_W) r.v[k] = p[k];
  return r;
}

TP_INLINE SIMD SIMD_OP(load_n)(const SIMD_T *p, int n) {
  SIMD r;
  TP_LANE_LOOP(k, SIMD_W) r.v[k] = k < n ? p[k] : (SIMD_T)0;
  return r;
}

TP_INLINE void SIMD_OP(store)(SIMD_T *p, SIMD a) { TP_LANE_LOOP(k, SIMD_W) p[k] = a.v[k]; }

TP_INLINE void SIMD_OP(store_n)(SIMD_T *p, SIMD a, int n) {
  TP_LANE_LOOP(k, SIMD_W) if (k < n) p[k] = a.v[k];
}

TP_INLINE SIMD SIMD_OP(add)(SIMD a, SIMD b) {
  TP_LANE_LOOP(k, SIMD_W) a.v[k] += b.v[k];
  return a;
}

TP_INLINE SIMD SIMD_OP(sub)(SIMD a, SIMD b) {
  TP_LANE_LOOP(k, SIMD_W) a.v[k] -= b.v[k];
  return a;
}

TP_INLINE SIMD SIMD_OP(mul)(SIMD a, SIMD b) {
  TP_LANE_LOOP(k, SIMD_W) a.v[k] *= b.v[k];
  return a;
}

TP_INLINE SIMD SIMD_OP(scale)(SIMD a, SIMD_T s) {
  TP_LANE_LOOP(k, SIMD_W) a.v[k] *= s;
  return a;
}

TP_INLINE SIMD SIMD_OP(fma)(SIMD a, SIMD b, SIMD c) {
  TP_LANE_LOOP(k, SIMD_W) c.v[k] += a.v[k] * b.v[k];
  return c;
}

TP_INLINE SIMD SIMD_OP(fma_s)(SIMD a, SIMD_T s, SIMD c) {
  TP_LANE_LOOP(k, SIMD_W) c.v[k] += a.v[k] * s;
  return c;
}

TP_INLINE SIMD SIMD_OP(max)(SIMD a, SIMD b) {
  TP_LANE_LOOP(k, SIMD_W) a.v[k] = b.v[k] > a.v[k] ? b.v[k] : a.v[k];
  return a;
}

TP_INLINE SIMD_T SIMD_OP(hsum)(SIMD a) {
  SIMD_T s = 0;
  TP_UNROLL for (int k = 0; k < (SIMD_W); ++k) s += a.v[k];
  return s;
}

TP_INLINE SIMD_T SIMD_OP(dot)(SIMD a, SIMD b) { return SIMD_OP(hsum)(SIMD_OP(mul)(a, b)); }

#undef SIMD
#undef SIMD_OP
#undef SIMD_W
