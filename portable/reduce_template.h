/* The global reductions of one element type: tp_reduce_{sum,min,max}_<T>, and with
 * REDUCE_ARGMAX tp_reduce_argmax_abs_<T>, each on its range-reduce kernel. reduce.c
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
typedef struct REDUCE_ARGS(sum) {
  const REDUCE_T *x;
} REDUCE_ARGS(sum);

TP_RANGE_REDUCE_KERNEL(REDUCE_KERNEL(sum), REDUCE_ARGS(sum), REDUCE_SUM_T,
                       REDUCE_JOIN(sum, REDUCE_SUM_SFX), 0, i, a, acc) {
  *acc = REDUCE_JOIN(sum, REDUCE_SUM_SFX)(*acc, (REDUCE_SUM_T)a.x[i]);
}

tp_status TP_PASTE(tp_reduce_sum_, REDUCE_SFX)(tp_space *space, const REDUCE_T *x, int64_t n,
                                               REDUCE_SUM_T *result) {
  TP_TRY(tp_check_reduce_args(space, x, n, result));
  REDUCE_ARGS(sum) args;
  args.x = x;
  return TP_LAUNCHER(REDUCE_KERNEL(sum))(space, n, args, result);
}

/* min */
typedef struct REDUCE_ARGS(min) {
  const REDUCE_T *x;
} REDUCE_ARGS(min);

TP_RANGE_REDUCE_KERNEL(REDUCE_KERNEL(min), REDUCE_ARGS(min), REDUCE_T, REDUCE_JOIN(min, REDUCE_SFX),
                       REDUCE_MIN_IDENTITY, i, a, acc) {
  *acc = REDUCE_JOIN(min, REDUCE_SFX)(*acc, (REDUCE_T)a.x[i]);
}

tp_status TP_PASTE(tp_reduce_min_, REDUCE_SFX)(tp_space *space, const REDUCE_T *x, int64_t n,
                                               REDUCE_T *result) {
  TP_TRY(tp_check_reduce_args(space, x, n, result));
  REDUCE_ARGS(min) args;
  args.x = x;
  return TP_LAUNCHER(REDUCE_KERNEL(min))(space, n, args, result);
}

/* max */
typedef struct REDUCE_ARGS(max) {
  const REDUCE_T *x;
} REDUCE_ARGS(max);

TP_RANGE_REDUCE_KERNEL(REDUCE_KERNEL(max), REDUCE_ARGS(max), REDUCE_T, REDUCE_JOIN(max, REDUCE_SFX),
                       REDUCE_MAX_IDENTITY, i, a, acc) {
  *acc = REDUCE_JOIN(max, REDUCE_SFX)(*acc, (REDUCE_T)a.x[i]);
}

tp_status TP_PASTE(tp_reduce_max_, REDUCE_SFX)(tp_space *space, const REDUCE_T *x, int64_t n,
                                               REDUCE_T *result) {
  TP_TRY(tp_check_reduce_args(space, x, n, result));
  REDUCE_ARGS(max) args;
  args.x = x;
  return TP_LAUNCHER(REDUCE_KERNEL(max))(space, n, args, result);
}

#ifdef REDUCE_ARGMAX
/* arg-max of |x|: the pair (x[i], i) that tp_join_argmax_abs_<T> ranks first */
#define REDUCE_PAIR TP_PASTE(tp_argmax_, REDUCE_SFX)

typedef struct REDUCE_ARGS(argmax) {
  const REDUCE_T *x;
} REDUCE_ARGS(argmax);

TP_RANGE_REDUCE_KERNEL(REDUCE_KERNEL(argmax), REDUCE_ARGS(argmax), REDUCE_PAIR,
                       REDUCE_JOIN(argmax_abs, REDUCE_SFX), TP_PASTE(REDUCE_PAIR, _identity)(), i,
                       a, acc) {
  *acc = REDUCE_JOIN(argmax_abs, REDUCE_SFX)(*acc, TP_PASTE(REDUCE_PAIR, _make)(a.x[i], i));
}

tp_status TP_PASTE(tp_reduce_argmax_abs_, REDUCE_SFX)(tp_space *space, const REDUCE_T *x, int64_t n,
                                                      REDUCE_PAIR *result) {
  TP_TRY(tp_check_reduce_args(space, x, n, result));
  REDUCE_ARGS(argmax) args;
  args.x = x;
  return TP_LAUNCHER(REDUCE_KERNEL(argmax))(space, n, args, result);
}

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
