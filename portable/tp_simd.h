/* SIMD arrays of compile-time width W: a thread's W values, kept in registers on GPUs
 * and in vector lanes on CPUs. Types are named tp_<T>x<W> (tp_f64x4) and their
 * operations tp_<T>x<W>_<op> (tp_f64x4_fma), generated once per type and width.
 *
 *   zero, fill(s), load(p), load_n(p, n), store(p, a), store_n(p, a, n)
 *   add(a, b), sub(a, b), mul(a, b), scale(a, s), fma(a, b, c) = a*b + c,
 *   fma_s(a, s, c) = a*s + c, max(a, b) = b > a ? b : a, hsum(a), dot(a, b)
 *
 * load_n reads the first n (0 <= n <= W) elements and zeroes the other lanes; store_n
 * writes the first n and leaves memory past them untouched, so ragged tails need no
 * separate code. fma rounds once where the compiler contracts a*b + c (nvcc does by
 * default, the host build without -mfma does not). */
#ifndef TP_SIMD_H
#define TP_SIMD_H

#define TP_LANE_LOOP(k, W) TP_LANES for (int k = 0; k < (W); ++k)

#define TP_DEFINE_SIMD(sfx, T, W)                                                              \
  typedef struct tp_##sfx##x##W {                                                              \
    T v[W];                                                                                    \
  } tp_##sfx##x##W;                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_fill(T s) {                                        \
    tp_##sfx##x##W r;                                                                          \
    TP_LANE_LOOP(k, W) r.v[k] = s;                                                             \
    return r;                                                                                  \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_zero(void) { return tp_##sfx##x##W##_fill((T)0); } \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_load(const T *p) {                                 \
    tp_##sfx##x##W r;                                                                          \
    TP_LANE_LOOP(k, W) r.v[k] = p[k];                                                          \
    return r;                                                                                  \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_load_n(const T *p, int n) {                        \
    tp_##sfx##x##W r;                                                                          \
    TP_LANE_LOOP(k, W) r.v[k] = k < n ? p[k] : (T)0;                                           \
    return r;                                                                                  \
  }                                                                                            \
  TP_INLINE void tp_##sfx##x##W##_store(T *p, tp_##sfx##x##W a) {                              \
    TP_LANE_LOOP(k, W) p[k] = a.v[k];                                                          \
  }                                                                                            \
  TP_INLINE void tp_##sfx##x##W##_store_n(T *p, tp_##sfx##x##W a, int n) {                     \
    TP_LANE_LOOP(k, W) if (k < n) p[k] = a.v[k];                                               \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_add(tp_##sfx##x##W a, tp_##sfx##x##W b) {          \
    TP_LANE_LOOP(k, W) a.v[k] += b.v[k];                                                       \
    return a;                                                                                  \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_sub(tp_##sfx##x##W a, tp_##sfx##x##W b) {          \
    TP_LANE_LOOP(k, W) a.v[k] -= b.v[k];                                                       \
    return a;                                                                                  \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_mul(tp_##sfx##x##W a, tp_##sfx##x##W b) {          \
    TP_LANE_LOOP(k, W) a.v[k] *= b.v[k];                                                       \
    return a;                                                                                  \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_scale(tp_##sfx##x##W a, T s) {                     \
    TP_LANE_LOOP(k, W) a.v[k] *= s;                                                            \
    return a;                                                                                  \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_fma(tp_##sfx##x##W a, tp_##sfx##x##W b,            \
                                                tp_##sfx##x##W c) {                            \
    TP_LANE_LOOP(k, W) c.v[k] += a.v[k] * b.v[k];                                              \
    return c;                                                                                  \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_fma_s(tp_##sfx##x##W a, T s, tp_##sfx##x##W c) {   \
    TP_LANE_LOOP(k, W) c.v[k] += a.v[k] * s;                                                   \
    return c;                                                                                  \
  }                                                                                            \
  TP_INLINE tp_##sfx##x##W tp_##sfx##x##W##_max(tp_##sfx##x##W a, tp_##sfx##x##W b) {          \
    TP_LANE_LOOP(k, W) a.v[k] = b.v[k] > a.v[k] ? b.v[k] : a.v[k];                             \
    return a;                                                                                  \
  }                                                                                            \
  TP_INLINE T tp_##sfx##x##W##_hsum(tp_##sfx##x##W a) {                                        \
    T s = 0;                                                                                   \
    TP_UNROLL for (int k = 0; k < (W); ++k) s += a.v[k];                                       \
    return s;                                                                                  \
  }                                                                                            \
  TP_INLINE T tp_##sfx##x##W##_dot(tp_##sfx##x##W a, tp_##sfx##x##W b) {                       \
    return tp_##sfx##x##W##_hsum(tp_##sfx##x##W##_mul(a, b));                                  \
  }

#define TP_DEFINE_SIMD_WIDTHS(sfx, T) \
  TP_DEFINE_SIMD(sfx, T, 1)           \
  TP_DEFINE_SIMD(sfx, T, 2)           \
  TP_DEFINE_SIMD(sfx, T, 3)           \
  TP_DEFINE_SIMD(sfx, T, 4)           \
  TP_DEFINE_SIMD(sfx, T, 8)           \
  TP_DEFINE_SIMD(sfx, T, 12)          \
  TP_DEFINE_SIMD(sfx, T, 16)          \
  TP_DEFINE_SIMD(sfx, T, 32)

TP_DEFINE_SIMD_WIDTHS(f32, float)
TP_DEFINE_SIMD_WIDTHS(f64, double)

#endif
