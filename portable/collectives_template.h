/* The lane collectives of one numeric type, written once on the backend's lane shuffles
 * and team scans: butterfly reductions and the inclusive scan over the lanes of the
 * calling team thread, and the exclusive scan over every thread and lane of the team.
 * tp_collectives.h includes this file once per type with COLL_T (the type) and COLL_SFX
 * (its suffix), and with COLL_ARGMAX for f32 and f64; it undefines them at its end.
 * generates: tp_vector_sum_<T> tp_vector_min_<T> tp_vector_max_<T>
 * tp_vector_inclusive_scan_<T> tp_team_vector_exclusive_scan_<T> for T in i32 u32 i64 u64
 * f32 f64 (tp_vector_sum_f64), tp_vector_argmax_abs_f32 tp_vector_argmax_abs_f64 */

#define COLL_NAME(base) TP_PASTE(base, COLL_SFX)

/* Butterfly reductions over lanes: every lane gets the same, deterministic result. */
TP_DEVICE COLL_T COLL_NAME(tp_vector_sum_)(const tp_team *t, COLL_T v) {
  for (int off = t->vector_length >> 1; off > 0; off >>= 1)
    v = COLL_NAME(tp_join_sum_)(v, COLL_NAME(tp_vector_shfl_xor_)(t, v, off));
  return v;
}

TP_DEVICE COLL_T COLL_NAME(tp_vector_min_)(const tp_team *t, COLL_T v) {
  for (int off = t->vector_length >> 1; off > 0; off >>= 1)
    v = COLL_NAME(tp_join_min_)(v, COLL_NAME(tp_vector_shfl_xor_)(t, v, off));
  return v;
}

TP_DEVICE COLL_T COLL_NAME(tp_vector_max_)(const tp_team *t, COLL_T v) {
  for (int off = t->vector_length >> 1; off > 0; off >>= 1)
    v = COLL_NAME(tp_join_max_)(v, COLL_NAME(tp_vector_shfl_xor_)(t, v, off));
  return v;
}

TP_DEVICE COLL_T COLL_NAME(tp_vector_inclusive_scan_)(const tp_team *t, COLL_T v) {
  for (int off = 1; off < t->vector_length; off <<= 1) {
    COLL_T y = COLL_NAME(tp_vector_shfl_up_)(t, v, off);
    if (t->vector_lane >= off)
      v = v + y;
  }
  return v;
}

/* Exclusive scan over every thread and lane of the team, in (team_rank, lane) order;
 * *total (may be NULL) gets the team's sum. Lane prefixes come from shuffling the
 * inclusive scan up one lane, never from subtracting, so inf, NaN and values of very
 * different magnitude keep their plain running sums. */
TP_DEVICE COLL_T COLL_NAME(tp_team_vector_exclusive_scan_)(const tp_team *t, COLL_T v,
                                                           COLL_T *total) {
  COLL_T inclusive = COLL_NAME(tp_vector_inclusive_scan_)(t, v);
  COLL_T before = COLL_NAME(tp_vector_shfl_up_)(t, inclusive, 1);
  COLL_T lane_prefix = t->vector_lane == 0 ? (COLL_T)0 : before;
  COLL_T group_total = COLL_NAME(tp_vector_shfl_)(t, inclusive, t->vector_length - 1);
  return COLL_NAME(tp_team_exclusive_scan_)(t, group_total, total) + lane_prefix;
}

#ifdef COLL_ARGMAX
/* Butterfly over lanes of (value, index) pairs. */
TP_DEVICE COLL_NAME(tp_argmax_)
    COLL_NAME(tp_vector_argmax_abs_)(const tp_team *t, COLL_NAME(tp_argmax_) v) {
  for (int off = t->vector_length >> 1; off > 0; off >>= 1) {
    COLL_NAME(tp_argmax_) other;
    other.value = COLL_NAME(tp_vector_shfl_xor_)(t, v.value, off);
    other.index = tp_vector_shfl_xor_i64(t, v.index, off);
    v = COLL_NAME(tp_join_argmax_abs_)(v, other);
  }
  return v;
}
#undef COLL_ARGMAX
#endif

#undef COLL_NAME
#undef COLL_T
#undef COLL_SFX
