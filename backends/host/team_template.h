/* The team and lane operations of one numeric type on the host, where a team is one
 * thread of one lane: every shuffle reads the caller's own value back, a reduction over
 * team threads returns its input and an exclusive scan returns 0. tp_host.h includes it once per
 * type through portable/team_types_template.h, with TEAM_T (the type) and TEAM_SFX (its
 * suffix); it undefines both at its end.
 * generates: tp_vector_shfl_<T> tp_vector_shfl_xor_<T> tp_vector_shfl_up_<T>
 * tp_team_sum_<T> tp_team_min_<T> tp_team_max_<T> tp_team_exclusive_scan_<T> for T in i32
 * u32 i64 u64 f32 f64 (tp_vector_shfl_xor_f64, tp_team_exclusive_scan_i64) */

#define TEAM_NAME(base) TP_PASTE(base, TEAM_SFX)

TP_DEVICE TEAM_T TEAM_NAME(tp_vector_shfl_)(const tp_team *t, TEAM_T v, int src_lane) {
  (void)t, (void)src_lane;
  return v;
}
TP_DEVICE TEAM_T TEAM_NAME(tp_vector_shfl_xor_)(const tp_team *t, TEAM_T v, int lane_mask) {
  (void)t, (void)lane_mask;
  return v;
}
TP_DEVICE TEAM_T TEAM_NAME(tp_vector_shfl_up_)(const tp_team *t, TEAM_T v, int delta) {
  (void)t, (void)delta;
  return v;
}

TP_DEVICE TEAM_T TEAM_NAME(tp_team_sum_)(const tp_team *t, TEAM_T v) {
  (void)t;
  return v;
}
TP_DEVICE TEAM_T TEAM_NAME(tp_team_min_)(const tp_team *t, TEAM_T v) {
  (void)t;
  return v;
}
TP_DEVICE TEAM_T TEAM_NAME(tp_team_max_)(const tp_team *t, TEAM_T v) {
  (void)t;
  return v;
}

TP_DEVICE TEAM_T TEAM_NAME(tp_team_exclusive_scan_)(const tp_team *t, TEAM_T v, TEAM_T *total) {
  (void)t;
  if (total)
    *total = v;
  return (TEAM_T)0;
}

#undef TEAM_NAME
#undef TEAM_T
#undef TEAM_SFX
