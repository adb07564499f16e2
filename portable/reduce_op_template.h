/* One global reduction on its range-reduce kernel: reduce_template.h includes it once per
 * operation with
 *   REDUCE_OP                 the operation's part of the names (sum, min, max, argmax)
 *   REDUCE_OP_API             the public function's name (tp_reduce_sum_f32)
 *   REDUCE_OP_T               the type of a partial and of the result
 *   REDUCE_OP_JOIN            the join of two partials (tp_join_sum_f64)
 *   REDUCE_OP_IDENTITY        the join's identity
 *   REDUCE_OP_ITEM(x, i)      element i, whose value is x, as a partial
 * and undefines them at its end. It uses reduce_template.h's REDUCE_T, REDUCE_KERNEL and
 * REDUCE_ARGS. */

typedef struct REDUCE_ARGS(REDUCE_OP) {
  const REDUCE_T *x;
} REDUCE_ARGS(REDUCE_OP);

TP_RANGE_REDUCE_KERNEL(REDUCE_KERNEL(REDUCE_OP), REDUCE_ARGS(REDUCE_OP), REDUCE_OP_T,
                       REDUCE_OP_JOIN, REDUCE_OP_IDENTITY, i, a, acc) {
  *acc = REDUCE_OP_JOIN(*acc, REDUCE_OP_ITEM(a.x[i], i));
}

tp_status REDUCE_OP_API(tp_space *space, const REDUCE_T *x, int64_t n, REDUCE_OP_T *result) {
  TP_TRY(tp_check_reduce_args(space, x, n, result));
  REDUCE_ARGS(REDUCE_OP) args;
  args.x = x;
  return TP_LAUNCHER(REDUCE_KERNEL(REDUCE_OP))(space, n, args, result);
}

#undef REDUCE_OP
#undef REDUCE_OP_API
#undef REDUCE_OP_T
#undef REDUCE_OP_JOIN
#undef REDUCE_OP_IDENTITY
#undef REDUCE_OP_ITEM
