/* One reduction over the threads of a team (lane 0 of each contributes; every thread
 * gets the result): a fixed tree in shared memory, so the join order never changes.
 * Included with
 *   TEAM_REDUCE_NAME  the function's name
 *   TEAM_REDUCE_T     the type reduced
 *   TEAM_REDUCE_JOIN  its join, a function of two TEAM_REDUCE_T
 * by team_template.h (sum, min and max of each numeric type) and tp_gpu.h (arg-max), and
 * undefines them at its end.
 * generates: tp_team_sum_<T> tp_team_min_<T> tp_team_max_<T> for T in i32 u32 i64 u64 f32
 * f64 (tp_team_sum_f64), tp_team_argmax_abs_f32 tp_team_argmax_abs_f64 */

TP_DEVICE TEAM_REDUCE_T TEAM_REDUCE_NAME(const tp_team *t, TEAM_REDUCE_T v) {
  TEAM_REDUCE_T *buf = (TEAM_REDUCE_T *)t->reduce_buffer;
  __syncthreads();
  if (t->vector_lane == 0)
    buf[t->team_rank] = v;
  __syncthreads();
  for (int s = tpg_pow2_ceil(t->team_size) >> 1; s > 0; s >>= 1) {
    if (t->vector_lane == 0 && t->team_rank < s && t->team_rank + s < t->team_size)
      buf[t->team_rank] = TEAM_REDUCE_JOIN(buf[t->team_rank], buf[t->team_rank + s]);
    __syncthreads();
  }
  return buf[0];
}

#undef TEAM_REDUCE_NAME
#undef TEAM_REDUCE_T
#undef TEAM_REDUCE_JOIN
