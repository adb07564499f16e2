/* The global reductions of one element type: tp_reduce_{sum,min,max}_<T>, and with
 * REDUCE_ARGMAX tp_reduce_argmax_abs_<T>, each on its range-reduce kernel. reduce_kernels.c
 * includes this file once per type with
 *   REDUCE_T, REDUCE_SFX          the element type and its suffix (float, f32)
 *   REDUCE_SUM_T, REDUCE_SUM_SFX  the type sums accumulate in (double, f64)
 *   REDUCE_MIN_IDENTITY           the largest value of REDUCE_T (+inf for floats)
 *   REDUCE_MAX_IDENTITY           the smallest (-inf)
 *   REDUCE_ARGMAX                 defined for the floating-point types
 * and undefines them at its end.
 * generates: the kernels reduce_sum_f32 reduce_sum_f64 reduce_sum_i32 reduce_sum_i64
 * reduce_min_f32 reduce_min_f64 reduce_min_i32 reduce_min_i64 reduce_max_f32 reduce_max_f64
 * reduce_max_i32 reduce_max_i64 reduce_argmax_f32 reduce_argmax_f64, each with its _final
 * kernel (reduce_sum_f32_final) and _args type; the functions tp_reduce_sum_<T>
 * tp_reduce_min_<T> tp_reduce_max_<T> for T in f32 f64 i32 i64, tp_reduce_argmax_abs_f32
 * tp_reduce_argmax_abs_f64 */

#define REDUCE_KERNEL(op) TP_PASTE3(reduce_, op, TP_PASTE(_, REDUCE_SFX))
#define REDUCE_ARGS(op) TP_PASTE(REDUCE_KERNEL(op), _args)
#define REDUCE_JOIN(op, sfx) TP_PASTE3(tp_join_, op, TP_PASTE(_, sfx))

/* sum: in REDUCE_SUM_T */
#define REDUCE_OP sum
#define REDUCE_OP_API TP_PASTE(tp_reduce_sum_, REDUCE_SFX)
#define REDUCE_OP_T REDUCE_SUM_T
#define REDUCE_OP_JOIN REDUCE_JOIN(sum, REDUCE_SUM_SFX)
#define REDUCE_OP_IDENTITY 0
#define REDUCE_OP_ITEM(x, i) ((REDUCE_SUM_T)(x))
#include "portable/reduce_op_template.h"

#define REDUCE_OP min
#define REDUCE_OP_API TP_PASTE(tp_reduce_min_, REDUCE_SFX)
#define REDUCE_OP_T REDUCE_T
#define REDUCE_OP_JOIN REDUCE_JOIN(min, REDUCE_SFX)
#define REDUCE_OP_IDENTITY REDUCE_MIN_IDENTITY
#define REDUCE_OP_ITEM(x, i) (x)
#include "portable/reduce_op_template.h"

#define REDUCE_OP max
#define REDUCE_OP_API TP_PASTE(tp_reduce_max_, REDUCE_SFX)
#define REDUCE_OP_T REDUCE_T
#define REDUCE_OP_JOIN REDUCE_JOIN(max, REDUCE_SFX)
#define REDUCE_OP_IDENTITY REDUCE_MAX_IDENTITY
#define REDUCE_OP_ITEM(x, i) (x)
#include "portable/reduce_op_template.h"

#ifdef REDUCE_ARGMAX
/* arg-max of |x|: the pair (x[i], i) that tp_join_argmax_abs_<T> ranks first */
#define REDUCE_PAIR TP_PASTE(tp_argmax_, REDUCE_SFX)
#define REDUCE_OP argmax
#define REDUCE_OP_API TP_PASTE(tp_reduce_argmax_abs_, REDUCE_SFX)
#define REDUCE_OP_T REDUCE_PAIR
#define REDUCE_OP_JOIN REDUCE_JOIN(argmax_abs, REDUCE_SFX)
#define REDUCE_OP_IDENTITY TP_PASTE(REDUCE_PAIR, _identity)()
#define REDUCE_OP_ITEM(x, i) TP_PASTE(REDUCE_PAIR, _make)(x, i)
#include "portable/reduce_op_template.h"

#undef REDUCE_PAIR
#undef REDUCE_ARGMAX
#endif

#undef REDUCE_KERNEL
#undef REDUCE_ARGS
#undef REDUCE_JOIN
#undef REDUCE_T
#undef REDUCE_SFX
#undef REDUCE_SUM_T
#undef REDUCE_SUM_SFX
#undef REDUCE_MIN_IDENTITY
#undef REDUCE_MAX_IDENTITY
