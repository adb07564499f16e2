/* Join operations of the built-in reductions (sum, min, max, arg-max of |x|).
 * min and max propagate NaN; arg-max ranks NaN above every number and breaks ties
 * by the smallest index, so every backend returns the same element. */
#ifndef TP_JOIN_H
#define TP_JOIN_H

#include <math.h>
#include "tenport/primitives.h"
#include "portable/tp_paste.h"

#define TP_DEFINE_INT_JOINS(sfx, T)                                 \
  TP_INLINE T tp_join_sum_##sfx(T a, T b) { return a + b; }         \
  TP_INLINE T tp_join_min_##sfx(T a, T b) { return b < a ? b : a; } \
  TP_INLINE T tp_join_max_##sfx(T a, T b) { return b > a ? b : a; }

TP_DEFINE_INT_JOINS(i32, int32_t)
TP_DEFINE_INT_JOINS(i64, int64_t)
TP_DEFINE_INT_JOINS(u32, uint32_t)
TP_DEFINE_INT_JOINS(u64, uint64_t)

#define JOIN_T float
#define JOIN_SFX f32
#include "portable/join_float_template.h"

#define JOIN_T double
#define JOIN_SFX f64
#include "portable/join_float_template.h"

#endif
