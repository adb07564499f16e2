/* Global reductions of arrays: sum, min, max and arg-max of |x|, one range-reduce
 * kernel per operation and type. */
/* generates: reduce_argmax_f32 reduce_argmax_f32_final reduce_argmax_f64 reduce_argmax_f64_final
 * reduce_max_f32 reduce_max_f32_final reduce_max_f64 reduce_max_f64_final reduce_max_i32
 * reduce_max_i32_final reduce_max_i64 reduce_max_i64_final reduce_min_f32 reduce_min_f32_final
 * reduce_min_f64 reduce_min_f64_final reduce_min_i32 reduce_min_i32_final reduce_min_i64
 * reduce_min_i64_final reduce_sum_f32 reduce_sum_f32_final reduce_sum_f64 reduce_sum_f64_final
 * reduce_sum_i32 reduce_sum_i32_final reduce_sum_i64 reduce_sum_i64_final */
#include <float.h>
#include <limits.h>

#include "portable/tp_portable.h"

static tp_status tp_check_reduce_args(tp_space *space, const void *x, int64_t n,
                                      const void *result) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(n >= 0, "element count %lld is negative", (long long)n);
  TP_CHECK_ARG(n == 0 || x, "x must not be NULL");
  TP_CHECK_ARG(result, "result must not be NULL");
  return TP_SUCCESS;
}

/* name: the public function; T: element type; A: accumulator type. */
#define TP_DEFINE_REDUCE(op, sfx, T, asfx, A, identity)                                 \
  typedef struct reduce_##op##_##sfx##_args {                                           \
    const T *x;                                                                         \
  } reduce_##op##_##sfx##_args;                                                         \
  TP_RANGE_REDUCE_KERNEL(reduce_##op##_##sfx, reduce_##op##_##sfx##_args, A,            \
                         tp_join_##op##_##asfx, identity, i, a, acc) {                  \
    *acc = tp_join_##op##_##asfx(*acc, (A)a.x[i]);                                      \
  }                                                                                     \
  tp_status tp_reduce_##op##_##sfx(tp_space *space, const T *x, int64_t n, A *result) { \
    TP_TRY(tp_check_reduce_args(space, x, n, result));                                  \
    reduce_##op##_##sfx##_args args;                                                    \
    args.x = x;                                                                         \
    return reduce_##op##_##sfx##_launch(space, n, args, result);                        \
  }

TP_DEFINE_REDUCE(sum, f32, float, f64, double, 0.0)
TP_DEFINE_REDUCE(sum, f64, double, f64, double, 0.0)
TP_DEFINE_REDUCE(sum, i32, int32_t, i64, int64_t, 0)
TP_DEFINE_REDUCE(sum, i64, int64_t, i64, int64_t, 0)
TP_DEFINE_REDUCE(min, f32, float, f32, float, (float)INFINITY)
TP_DEFINE_REDUCE(min, f64, double, f64, double, (double)INFINITY)
TP_DEFINE_REDUCE(min, i32, int32_t, i32, int32_t, INT32_MAX)
TP_DEFINE_REDUCE(min, i64, int64_t, i64, int64_t, INT64_MAX)
TP_DEFINE_REDUCE(max, f32, float, f32, float, -(float)INFINITY)
TP_DEFINE_REDUCE(max, f64, double, f64, double, -(double)INFINITY)
TP_DEFINE_REDUCE(max, i32, int32_t, i32, int32_t, INT32_MIN)
TP_DEFINE_REDUCE(max, i64, int64_t, i64, int64_t, INT64_MIN)

#define TP_DEFINE_ARGMAX_REDUCE(sfx, T)                                                       \
  typedef struct reduce_argmax_##sfx##_args {                                                 \
    const T *x;                                                                               \
  } reduce_argmax_##sfx##_args;                                                               \
  TP_RANGE_REDUCE_KERNEL(reduce_argmax_##sfx, reduce_argmax_##sfx##_args, tp_argmax_##sfx,    \
                         tp_join_argmax_abs_##sfx, tp_argmax_##sfx##_identity(), i, a, acc) { \
    *acc = tp_join_argmax_abs_##sfx(*acc, tp_argmax_##sfx##_make(a.x[i], i));                 \
  }                                                                                           \
  tp_status tp_reduce_argmax_abs_##sfx(tp_space *space, const T *x, int64_t n,                \
                                       tp_argmax_##sfx *result) {                             \
    TP_TRY(tp_check_reduce_args(space, x, n, result));                                        \
    reduce_argmax_##sfx##_args args;                                                          \
    args.x = x;                                                                               \
    return reduce_argmax_##sfx##_launch(space, n, args, result);                              \
  }

TP_DEFINE_ARGMAX_REDUCE(f32, float)
TP_DEFINE_ARGMAX_REDUCE(f64, double)
