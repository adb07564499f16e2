/* Team and vector collectives for the built-in types, written once on the backends'
 * team reductions and lane shuffles.
 *
 *   tp_team_{sum,min,max}_T(team, v)      over team threads (lane 0's value counts)
 *   tp_team_argmax_abs_T(team, v)         same, for tp_argmax_T pairs
 *   tp_team_exclusive_scan_T(team, v, &total)
 *   tp_vector_{sum,min,max}_T(team, v)    over the lanes of the calling team thread
 *   tp_vector_argmax_abs_T(team, v)
 *   tp_vector_inclusive_scan_T(team, v)
 *   tp_team_vector_exclusive_scan_T(team, v, &total)  over every thread and lane
 *
 * All are collective: every thread of the team (or every lane of the thread) must
 * call them, outside divergent branches. */
#ifndef TP_COLLECTIVES_H
#define TP_COLLECTIVES_H

/* Butterfly reduction over lanes: every lane gets the same, deterministic result. */
#define TP_DEFINE_VECTOR_REDUCE(fname, T, sfx, join)          \
  TP_DEVICE T fname(const tp_team *t, T v) {                  \
    for (int off = t->vector_length >> 1; off > 0; off >>= 1) \
      v = join(v, tp_vector_shfl_xor_##sfx(t, v, off));       \
    return v;                                                 \
  }

#define TP_DEFINE_VECTOR_INCLUSIVE_SCAN(fname, T, sfx)     \
  TP_DEVICE T fname(const tp_team *t, T v) {               \
    for (int off = 1; off < t->vector_length; off <<= 1) { \
      T y = tp_vector_shfl_up_##sfx(t, v, off);            \
      if (t->vector_lane >= off)                           \
        v = v + y;                                         \
    }                                                      \
    return v;                                              \
  }

/* Exclusive scan over every thread and lane of the team, in (team_rank, lane) order;
 * *total (may be NULL) gets the team's sum. Lane prefixes come from shuffling the
 * inclusive scan up one lane, never from subtracting, so inf, NaN and values of very
 * different magnitude keep their plain running sums. */
#define TP_DEFINE_TEAM_VECTOR_SCAN(fname, T, sfx)                             \
  TP_DEVICE T fname(const tp_team *t, T v, T *total) {                        \
    T inclusive = tp_vector_inclusive_scan_##sfx(t, v);                       \
    T before = tp_vector_shfl_up_##sfx(t, inclusive, 1);                      \
    T lane_prefix = t->vector_lane == 0 ? (T)0 : before;                      \
    T group_total = tp_vector_shfl_##sfx(t, inclusive, t->vector_length - 1); \
    return tp_team_exclusive_scan_##sfx(t, group_total, total) + lane_prefix; \
  }

#define TP_DEFINE_NUMERIC_COLLECTIVES(sfx, T)                             \
  TP_DEFINE_TEAM_REDUCE(tp_team_sum_##sfx, T, tp_join_sum_##sfx)          \
  TP_DEFINE_TEAM_REDUCE(tp_team_min_##sfx, T, tp_join_min_##sfx)          \
  TP_DEFINE_TEAM_REDUCE(tp_team_max_##sfx, T, tp_join_max_##sfx)          \
  TP_DEFINE_TEAM_SCAN(tp_team_exclusive_scan_##sfx, T)                    \
  TP_DEFINE_VECTOR_REDUCE(tp_vector_sum_##sfx, T, sfx, tp_join_sum_##sfx) \
  TP_DEFINE_VECTOR_REDUCE(tp_vector_min_##sfx, T, sfx, tp_join_min_##sfx) \
  TP_DEFINE_VECTOR_REDUCE(tp_vector_max_##sfx, T, sfx, tp_join_max_##sfx) \
  TP_DEFINE_VECTOR_INCLUSIVE_SCAN(tp_vector_inclusive_scan_##sfx, T, sfx) \
  TP_DEFINE_TEAM_VECTOR_SCAN(tp_team_vector_exclusive_scan_##sfx, T, sfx)

TP_DEFINE_NUMERIC_COLLECTIVES(i32, int32_t)
TP_DEFINE_NUMERIC_COLLECTIVES(u32, uint32_t)
TP_DEFINE_NUMERIC_COLLECTIVES(i64, int64_t)
TP_DEFINE_NUMERIC_COLLECTIVES(u64, uint64_t)
TP_DEFINE_NUMERIC_COLLECTIVES(f32, float)
TP_DEFINE_NUMERIC_COLLECTIVES(f64, double)

#define TP_DEFINE_ARGMAX_COLLECTIVES(sfx, T)                                                  \
  TP_DEFINE_TEAM_REDUCE(tp_team_argmax_abs_##sfx, tp_argmax_##sfx, tp_join_argmax_abs_##sfx)  \
  TP_DEVICE tp_argmax_##sfx tp_vector_argmax_abs_##sfx(const tp_team *t, tp_argmax_##sfx v) { \
    for (int off = t->vector_length >> 1; off > 0; off >>= 1) {                               \
      tp_argmax_##sfx other;                                                                  \
      other.value = tp_vector_shfl_xor_##sfx(t, v.value, off);                                \
      other.index = tp_vector_shfl_xor_i64(t, v.index, off);                                  \
      v = tp_join_argmax_abs_##sfx(v, other);                                                 \
    }                                                                                         \
    return v;                                                                                 \
  }

TP_DEFINE_ARGMAX_COLLECTIVES(f32, float)
TP_DEFINE_ARGMAX_COLLECTIVES(f64, double)

#endif
