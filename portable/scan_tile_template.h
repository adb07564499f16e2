/* What a team does with one span of the input, for one element type: its sum, and its
 * exclusive scan from a carry. Both scans' kernels are made of these (reduce-then-scan,
 * scan_template.h; the single pass, scan_look_back_template.h). Included by scan.c with
 * SCAN_T and SCAN_SFX; defines SCAN_NAME, SCAN_OP, SCAN_ITEMS and SCAN_PAD, which
 * scan_template.h undefines. A team walks the span in rounds of its threads x SCAN_ITEMS
 * elements. */

#define SCAN_NAME(base) TP_PASTE(base, SCAN_SFX)
#define SCAN_OP(op) TP_PASTE3(op, _, SCAN_SFX)
/* Elements per thread per round: 64 bytes' worth. */
#define SCAN_ITEMS ((int)(64 / sizeof(SCAN_T)))
/* Padding of the staging buffer so blocked reads hit distinct banks. */
#define SCAN_PAD(e) ((e) + (e) / (int)(128 / sizeof(SCAN_T)))

/* Elements of team scratch that scan_span_write_ stages a round in. */
TP_INLINE size_t SCAN_NAME(scan_stage_elements_)(int64_t round) {
  return (size_t)SCAN_PAD(round) + 1;
}

/* The sum of in[begin, end); every thread of the team gets it. */
TP_DEVICE SCAN_T SCAN_NAME(scan_span_sum_)(const tp_team *team, const SCAN_T *in, int64_t begin,
                                           int64_t end) {
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const int64_t round = (int64_t)threads * SCAN_ITEMS;
  SCAN_T sum = 0;
  for (int64_t base = begin; base < end; base += round) {
    const int64_t len = tp_min_i64(round, end - base);
    TP_UNROLL for (int k = 0; k < SCAN_ITEMS; ++k) { /* independent, coalesced loads */
      int e = k * threads + tid;
      if (e < len)
        sum += in[base + e];
    }
  }
  sum = SCAN_OP(tp_vector_sum)(team, sum);
  return SCAN_OP(tp_team_sum)(team, sum);
}

/* out[e] = carry + in[begin] + ... + in[e - 1] for e in [begin, end), a round at a time
 * through `stage` (scan_stage_elements_ of team scratch); returns carry plus the span's
 * sum. */
TP_DEVICE SCAN_T SCAN_NAME(scan_span_write_)(const tp_team *team, SCAN_T *stage, const SCAN_T *in,
                                             SCAN_T *out, int64_t begin, int64_t end,
                                             SCAN_T carry) {
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const int64_t round = (int64_t)threads * SCAN_ITEMS;
  for (int64_t base = begin; base < end; base += round) {
    const int64_t len = tp_min_i64(round, end - base);
    TP_UNROLL for (int k = 0; k < SCAN_ITEMS; ++k) { /* striped, coalesced loads */
      int e = k * threads + tid;
      stage[SCAN_PAD(e)] = e < len ? in[base + e] : (SCAN_T)0;
    }
    tp_team_barrier(team);
    SCAN_T run = 0;
    TP_UNROLL for (int k = 0; k < SCAN_ITEMS; ++k) /* blocked: my consecutive items */
        run += stage[SCAN_PAD(tid * SCAN_ITEMS + k)];
    SCAN_T round_total;
    SCAN_T prefix = carry + SCAN_OP(tp_team_vector_exclusive_scan)(team, run, &round_total);
    TP_UNROLL for (int k = 0; k < SCAN_ITEMS; ++k) { /* second read: fewer registers */
      SCAN_T x = stage[SCAN_PAD(tid * SCAN_ITEMS + k)];
      stage[SCAN_PAD(tid * SCAN_ITEMS + k)] = prefix;
      prefix += x;
    }
    tp_team_barrier(team);
    TP_UNROLL for (int k = 0; k < SCAN_ITEMS; ++k) {
      int e = k * threads + tid;
      if (e < len)
        out[base + e] = stage[SCAN_PAD(e)];
    }
    carry += round_total;
    tp_team_barrier(team);
  }
  return carry;
}
