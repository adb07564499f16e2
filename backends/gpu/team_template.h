/* The team and lane operations of one numeric type on GPUs: lane shuffles within the
 * calling thread's vector group (lanes 0..vector_length-1), reductions over team threads
 * (team_reduce_template.h) and the exclusive scan over team threads. tp_gpu.h includes it once per
 * type through portable/team_types_template.h, with TEAM_T (the type) and TEAM_SFX (its
 * suffix); it undefines both at its end.
 * generates: tp_vector_shfl_<T> tp_vector_shfl_xor_<T> tp_vector_shfl_up_<T>
 * tp_team_sum_<T> tp_team_min_<T> tp_team_max_<T> tp_team_exclusive_scan_<T> for T in i32
 * u32 i64 u64 f32 f64 (tp_vector_shfl_xor_f64, tp_team_exclusive_scan_i64) */

#define TEAM_NAME(base) TP_PASTE(base, TEAM_SFX)

TP_DEVICE TEAM_T TEAM_NAME(tp_vector_shfl_)(const tp_team *t, TEAM_T v, int src_lane) {
  return tpg_shfl(t->group_mask, v, src_lane, t->vector_length);
}
TP_DEVICE TEAM_T TEAM_NAME(tp_vector_shfl_xor_)(const tp_team *t, TEAM_T v, int lane_mask) {
  return tpg_shfl_xor(t->group_mask, v, lane_mask, t->vector_length);
}
TP_DEVICE TEAM_T TEAM_NAME(tp_vector_shfl_up_)(const tp_team *t, TEAM_T v, int delta) {
  return tpg_shfl_up(t->group_mask, v, delta, t->vector_length);
}

#define TEAM_REDUCE_NAME TEAM_NAME(tp_team_sum_)
#define TEAM_REDUCE_T TEAM_T
#define TEAM_REDUCE_JOIN TEAM_NAME(tp_join_sum_)
#include "backends/gpu/team_reduce_template.h"

#define TEAM_REDUCE_NAME TEAM_NAME(tp_team_min_)
#define TEAM_REDUCE_T TEAM_T
#define TEAM_REDUCE_JOIN TEAM_NAME(tp_join_min_)
#include "backends/gpu/team_reduce_template.h"

#define TEAM_REDUCE_NAME TEAM_NAME(tp_team_max_)
#define TEAM_REDUCE_T TEAM_T
#define TEAM_REDUCE_JOIN TEAM_NAME(tp_join_max_)
#include "backends/gpu/team_reduce_template.h"

/* Exclusive scan over team threads (lane 0 of each contributes); *total gets the sum. */
TP_DEVICE TEAM_T TEAM_NAME(tp_team_exclusive_scan_)(const tp_team *t, TEAM_T v, TEAM_T *total) {
  TEAM_T *buf = (TEAM_T *)t->reduce_buffer;
  __syncthreads();
  if (t->vector_lane == 0)
    buf[t->team_rank] = v;
  __syncthreads();
  if (t->team_rank == 0 && t->vector_lane == 0) {
    TEAM_T run = 0;
    for (int k = 0; k < t->team_size; ++k) {
      TEAM_T x = buf[k];
      buf[k] = run;
      run = run + x;
    }
    buf[t->team_size] = run;
  }
  __syncthreads();
  if (total)
    *total = buf[t->team_size];
  return buf[t->team_rank];
}

#undef TEAM_NAME
#undef TEAM_T
#undef TEAM_SFX
