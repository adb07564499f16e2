/* Team and vector collectives for the built-in types, written once on the backends'
 * team reductions and lane shuffles.
 *
 *   tp_team_{sum,min,max}_T(team, v)      over team threads (lane 0's value counts)
 *   tp_team_argmax_abs_T(team, v)         same, for tp_argmax_T pairs
 *   tp_team_exclusive_scan_T(team, v, &total)
 *   tp_vector_{sum,min,max}_T(team, v)    over the lanes of the calling team thread
 *   tp_vector_argmax_abs_T(team, v)
 *   tp_vector_inclusive_scan_T(team, v)
 *
 * All are collective: every thread of the team (or every lane of the thread) must
 * call them, outside divergent branches. */
#ifndef TP_COLLECTIVES_H
#define TP_COLLECTIVES_H

/* Butterfly reduction over lanes: every lane gets the same, deterministic result. */
#define TP_DEFINE_VECTOR_REDUCE(fname, T, sfx, join)                                    \
  TP_DEVICE T fname(const tp_team *t, T v) {                                            \
    for (int off = t->vector_length >> 1; off > 0; off >>= 1)                           \
      v = join(v, tp_vector_shfl_xor_##sfx(t, v, off));                                 \
    return v;                                                                           \
  }

#define TP_DEFINE_VECTOR_INCLUSIVE_SCAN(fname, T, sfx)                                  \
  TP_DEVICE T fname(const tp_team *t, T v) {                                            \
    for (int off = 1; off < t->vector_length; off <<= 1) {                              \
      T y = tp_vector_shfl_up_##sfx(t, v, off);                                         \
      if (t->vector_lane >= off)                                                        \
        v = v + y;                                                                      \
    }                                                                                   \
    return v;                                                                           \
  }

#define TP_DEFINE_NUMERIC_COLLECTIVES(sfx, T)                                           \
  TP_DEFINE_TEAM_REDUCE(tp_team_sum_##sfx, T, tp_join_sum_##sfx)                        \
  TP_DEFINE_TEAM_REDUCE(tp_team_min_##sfx, T, tp_join_min_##sfx)                        \
  TP_DEFINE_TEAM_REDUCE(tp_team_max_##sfx, T, tp_join_max_##sfx)                        \
  TP_DEFINE_TEAM_SCAN(tp_team_exclusive_scan_##sfx, T)                                  \
  TP_DEFINE_VECTOR_REDUCE(tp_vector_sum_##sfx, T, sfx, tp_join_sum_##sfx)               \
  TP_DEFINE_VECTOR_REDUCE(tp_vector_min_##sfx, T, sfx, tp_join_min_##sfx)               \
  TP_DEFINE_VECTOR_REDUCE(tp_vector_max_##sfx, T, sfx, tp_join_max_##sfx)               \
  TP_DEFINE_VECTOR_INCLUSIVE_SCAN(tp_vector_inclusive_scan_##sfx, T, sfx)

TP_DEFINE_NUMERIC_COLLECTIVES(i32, int32_t)
TP_DEFINE_NUMERIC_COLLECTIVES(u32, uint32_t)
TP_DEFINE_NUMERIC_COLLECTIVES(i64, int64_t)
TP_DEFINE_NUMERIC_COLLECTIVES(u64, uint64_t)
TP_DEFINE_NUMERIC_COLLECTIVES(f32, float)
TP_DEFINE_NUMERIC_COLLECTIVES(f64, double)

#define TP_DEFINE_ARGMAX_COLLECTIVES(sfx, T)                                            \
  TP_DEFINE_TEAM_REDUCE(tp_team_argmax_abs_##sfx, tp_argmax_##sfx, tp_join_argmax_abs_##sfx) \
  TP_DEVICE tp_argmax_##sfx tp_vector_argmax_abs_##sfx(const tp_team *t,                \
                                                        tp_argmax_##sfx v) {            \
    for (int off = t->vector_length >> 1; off > 0; off >>= 1) {                         \
      tp_argmax_##sfx other;                                                            \
      other.value = tp_vector_shfl_xor_##sfx(t, v.value, off);                          \
      other.index = tp_vector_shfl_xor_i64(t, v.index, off);                            \
      v = tp_join_argmax_abs_##sfx(v, other);                                           \
    }                                                                                   \
    return v;                                                                           \
  }

TP_DEFINE_ARGMAX_COLLECTIVES(f32, float)
TP_DEFINE_ARGMAX_COLLECTIVES(f64, double)

#endif
