/* Global reductions of arrays: sum, min, max and arg-max of |x|, one range-reduce
 * kernel per operation and type (reduce_template.h, once per type). */
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

#define REDUCE_T float
#define REDUCE_SFX f32
#define REDUCE_SUM_T double
#define REDUCE_SUM_SFX f64
#define REDUCE_MIN_IDENTITY ((float)INFINITY)
#define REDUCE_MAX_IDENTITY (-(float)INFINITY)
#define REDUCE_ARGMAX
#include "portable/reduce_template.h"

#define REDUCE_T double
#define REDUCE_SFX f64
#define REDUCE_SUM_T double
#define REDUCE_SUM_SFX f64
#define REDUCE_MIN_IDENTITY ((double)INFINITY)
#define REDUCE_MAX_IDENTITY (-(double)INFINITY)
#define REDUCE_ARGMAX
#include "portable/reduce_template.h"

#define REDUCE_T int32_t
#define REDUCE_SFX i32
#define REDUCE_SUM_T int64_t
#define REDUCE_SUM_SFX i64
#define REDUCE_MIN_IDENTITY INT32_MAX
#define REDUCE_MAX_IDENTITY INT32_MIN
#include "portable/reduce_template.h"

#define REDUCE_T int64_t
#define REDUCE_SFX i64
#define REDUCE_SUM_T int64_t
#define REDUCE_SUM_SFX i64
#define REDUCE_MIN_IDENTITY INT64_MAX
#define REDUCE_MAX_IDENTITY INT64_MIN
#include "portable/reduce_template.h"
