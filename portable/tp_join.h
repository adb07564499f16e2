/* Join operations of the built-in reductions (sum, min, max, arg-max of |x|).
 * min and max propagate NaN; arg-max ranks NaN above every number and breaks ties
 * by the smallest index, so every backend returns the same element. */
#ifndef TP_JOIN_H
#define TP_JOIN_H

#include <math.h>
#include "tenport/primitives.h"

#define TP_DEFINE_FLOAT_JOINS(sfx, T)                       \
  TP_INLINE T tp_join_sum_##sfx(T a, T b) { return a + b; } \
  TP_INLINE T tp_join_min_##sfx(T a, T b) {                 \
    if (a != a)                                             \
      return a;                                             \
    if (b != b)                                             \
      return b;                                             \
    return b < a ? b : a;                                   \
  }                                                         \
  TP_INLINE T tp_join_max_##sfx(T a, T b) {                 \
    if (a != a)                                             \
      return a;                                             \
    if (b != b)                                             \
      return b;                                             \
    return b > a ? b : a;                                   \
  }

#define TP_DEFINE_INT_JOINS(sfx, T)                                 \
  TP_INLINE T tp_join_sum_##sfx(T a, T b) { return a + b; }         \
  TP_INLINE T tp_join_min_##sfx(T a, T b) { return b < a ? b : a; } \
  TP_INLINE T tp_join_max_##sfx(T a, T b) { return b > a ? b : a; }

TP_DEFINE_FLOAT_JOINS(f32, float)
TP_DEFINE_FLOAT_JOINS(f64, double)
TP_DEFINE_INT_JOINS(i32, int32_t)
TP_DEFINE_INT_JOINS(i64, int64_t)
TP_DEFINE_INT_JOINS(u32, uint32_t)
TP_DEFINE_INT_JOINS(u64, uint64_t)

#define TP_DEFINE_ARGMAX_JOIN(sfx, T)                                                        \
  TP_INLINE tp_argmax_##sfx tp_argmax_##sfx##_identity(void) {                               \
    tp_argmax_##sfx r;                                                                       \
    r.value = 0;                                                                             \
    r.index = -1;                                                                            \
    return r;                                                                                \
  }                                                                                          \
  TP_INLINE tp_argmax_##sfx tp_argmax_##sfx##_make(T value, int64_t index) {                 \
    tp_argmax_##sfx r;                                                                       \
    r.value = value;                                                                         \
    r.index = index;                                                                         \
    return r;                                                                                \
  }                                                                                          \
  TP_INLINE tp_argmax_##sfx tp_join_argmax_abs_##sfx(tp_argmax_##sfx a, tp_argmax_##sfx b) { \
    if (a.index < 0)                                                                         \
      return b;                                                                              \
    if (b.index < 0)                                                                         \
      return a;                                                                              \
    T fa = a.value < 0 ? -a.value : a.value;                                                 \
    T fb = b.value < 0 ? -b.value : b.value;                                                 \
    int a_nan = fa != fa, b_nan = fb != fb;                                                  \
    if (a_nan != b_nan)                                                                      \
      return a_nan ? a : b;                                                                  \
    if (!a_nan && fa != fb)                                                                  \
      return fa > fb ? a : b;                                                                \
    return a.index <= b.index ? a : b;                                                       \
  }

TP_DEFINE_ARGMAX_JOIN(f32, float)
TP_DEFINE_ARGMAX_JOIN(f64, double)

#endif
