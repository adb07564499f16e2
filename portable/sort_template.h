/* Stable LSD radix sort for one (key, value) type pair, instantiated by sort_kernels.c with
 * SORT_KEY_T, SORT_VAL_T, SORT_HAS_VALUES (0 or 1) and SORT_SFX.
 *
 * Each pass sorts by 8 bits. A tile ranks its keys in rounds: a team thread ranks its
 * contiguous segment lane-parallel (lanes with equal digits found by tp_vector_match,
 * the lowest lane counting for all of them), per-thread counts are prefixed across
 * threads, the round is staged digit-sorted in team scratch and written out in order,
 * so equal keys keep their input order. Where each tile's digits go comes from:
 *   GPU spaces (onesweep): the digit counts of every pass, from one read of the keys
 *      before the first pass, and a decoupled look-back over the tiles before it, so
 *      that a pass is one kernel that reads and writes the pairs once;
 *   host spaces: per pass, a histogram of every tile's digits
 *      (counts[digit * tiles + tile]) and its exclusive scan, then the scatter. */

#define SORT_NAME(base) TP_PASTE(base, SORT_SFX)

typedef struct SORT_NAME(sort_hist_args_) {
  const SORT_KEY_T *keys;
  uint32_t *counts32; /* counts in 32 bits when n < 2^32 (half the scan traffic), */
  int64_t *counts64;  /* else in 64 bits */
  int64_t n, tile, tiles;
  int shift, bits;
} SORT_NAME(sort_hist_args_);

/* Histogram rows of a team: team threads share SORT_HIST_ROWS rows round-robin, so few
 * lanes collide on a counter and few counters need clearing and summing. */
TP_INLINE int SORT_NAME(sort_hist_rows_)(int team_size) {
  return team_size < SORT_HIST_ROWS ? team_size : SORT_HIST_ROWS;
}

/* Digit counts of one tile: team-scope atomics into the team's rows, then the rows'
 * sums to the counts. */
TP_TEAM_KERNEL(SORT_NAME(sort_hist_), SORT_NAME(sort_hist_args_), team, a) {
  const int nrows = SORT_NAME(sort_hist_rows_)(team->team_size);
  uint32_t *rows = (uint32_t *)team->scratch;
  uint32_t *my_row = rows + SORT_RADIX * (team->team_rank % nrows);
  const int lanes = team->vector_length;
  const int64_t round = (int64_t)team->team_size * lanes * SORT_ITEMS;
  const int64_t begin = team->league_rank * a.tile;
  const int64_t end = tp_min_i64(begin + a.tile, a.n);
  const uint32_t mask = (1u << a.bits) - 1u;
  TP_TEAM_VECTOR_FOR(team, k, 0, SORT_RADIX * nrows) { rows[k] = 0; }
  tp_team_barrier(team);
  for (int64_t base = begin; base < end; base += round) {
    const int64_t len = tp_min_i64(round, end - base);
    uint32_t digit[SORT_ITEMS];
    TP_UNROLL for (int k = 0; k < SORT_ITEMS; ++k) { /* all loads first, then count */
      int64_t e = ((int64_t)team->team_rank * SORT_ITEMS + k) * lanes + team->vector_lane;
      digit[k] = e < len ? (uint32_t)(a.keys[base + e] >> a.shift) & mask : SORT_RADIX;
    }
    TP_UNROLL for (int k = 0; k < SORT_ITEMS; ++k) {
      if (digit[k] < SORT_RADIX)
        tp_atomic_add_u32_team(&my_row[digit[k]], 1u);
    }
  }
  tp_team_barrier(team);
  TP_TEAM_VECTOR_FOR(team, d, 0, SORT_RADIX) {
    uint32_t total = 0;
    for (int r = 0; r < nrows; ++r)
      total += rows[SORT_RADIX * r + d];
    int64_t at = d * a.tiles + team->league_rank;
    if (a.counts32)
      a.counts32[at] = total;
    else
      a.counts64[at] = total;
  }
}

typedef struct SORT_NAME(sort_scatter_args_) {
  const SORT_KEY_T *keys_in;
  const SORT_VAL_T *vals_in;
  SORT_KEY_T *keys_out;
  SORT_VAL_T *vals_out;
  const uint32_t *offsets32; /* scanned counts, as in sort_hist_args_ */
  const int64_t *offsets64;
  int64_t n, tile, tiles;
  int shift, bits;
} SORT_NAME(sort_scatter_args_);

/* Team scratch of the scatter and onesweep kernels, for a team of team_size threads. */
typedef struct SORT_NAME(sort_scratch_) {
  int64_t *digit_next; /* [RADIX] for the move: digit d's next global slot less round_start[d] */
  /* 16 bits suffice: a round holds at most 65535 keys (checked by the host code). */
  uint16_t *thread_hist; /* [team_size][RADIX] counts, then prefixes across threads */
  uint16_t *round_count; /* [RADIX] */
  uint16_t *round_start; /* [RADIX] exclusive scan of round_count */
  SORT_KEY_T *stage_keys;
  SORT_VAL_T *stage_vals;
} SORT_NAME(sort_scratch_);

TP_INLINE size_t SORT_NAME(sort_scratch_bytes_)(int team_size, int64_t round) {
  return sizeof(int64_t) * SORT_RADIX + sizeof(uint16_t) * SORT_RADIX * (size_t)team_size +
         2 * sizeof(uint16_t) * SORT_RADIX + sizeof(SORT_KEY_T) * (size_t)round +
         (SORT_HAS_VALUES ? sizeof(SORT_VAL_T) * (size_t)round : 0);
}

TP_DEVICE SORT_NAME(sort_scratch_)
    SORT_NAME(sort_scratch_carve_)(const tp_team *team, int64_t round) {
  SORT_NAME(sort_scratch_) s;
  s.digit_next = (int64_t *)team->scratch;
  s.thread_hist = (uint16_t *)(s.digit_next + SORT_RADIX);
  s.round_count = s.thread_hist + SORT_RADIX * team->team_size;
  s.round_start = s.round_count + SORT_RADIX;
  s.stage_keys = (SORT_KEY_T *)(s.round_start + SORT_RADIX);
  s.stage_vals = (SORT_VAL_T *)(s.stage_keys + round);
  return s;
}

/* round_start = exclusive scan of round_count over the digits, team-wide. */
TP_DEVICE void SORT_NAME(sort_scan_digits_)(const tp_team *team, SORT_NAME(sort_scratch_) s) {
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const int per = (SORT_RADIX + threads - 1) / threads;
  const int first = tid * per < SORT_RADIX ? tid * per : SORT_RADIX;
  const int last = first + per < SORT_RADIX ? first + per : SORT_RADIX;
  uint32_t mine = 0;
  for (int d = first; d < last; ++d)
    mine += s.round_count[d];
  uint32_t prefix = tp_team_vector_exclusive_scan_u32(team, mine, NULL);
  for (int d = first; d < last; ++d) {
    s.round_start[d] = (uint16_t)prefix;
    prefix += s.round_count[d];
  }
}

/* Ranks the len keys of one round, round_keys[0, len): my_hist[d] counts this team
 * thread's keys of digit d, place[k] is key k's place (lanes on consecutive keys).
 * `full` (len is a whole round) is a constant at each call: full rounds' code has no
 * bounds checks and matches 8 digit bits, not 9. */
TP_DEVICE void SORT_NAME(sort_rank_round_)(const tp_team *team, SORT_NAME(sort_scratch_) s,
                                           const SORT_KEY_T *round_keys, int len, int full,
                                           int shift, uint32_t mask, uint32_t place[SORT_ITEMS]) {
  const int lanes = team->vector_length, me = team->team_rank;
  const int first = me * SORT_ITEMS * lanes + team->vector_lane;
  uint16_t *my_hist = s.thread_hist + SORT_RADIX * me;
  TP_TEAM_VECTOR_FOR(team, k, 0, SORT_RADIX * team->team_size) { s.thread_hist[k] = 0; }
  tp_team_barrier(team);
  /* The keys of a batch are loaded before its first ballot, so their loads overlap (a
   * load per ballot round waited out the memory latency SORT_ITEMS times in a row).
   * Only the digits stay in registers; keys and values are read again when staged
   * (from L2), which leaves room for more teams per multiprocessor. */
  for (int k0 = 0; k0 < SORT_ITEMS; k0 += SORT_RANK_BATCH) {
    TP_UNROLL for (int k = k0; k < k0 + SORT_RANK_BATCH; ++k) {
      const int e = first + k * lanes;
      place[k] = full || e < len ? (uint32_t)(round_keys[e] >> shift) & mask : SORT_RADIX;
    }
    TP_UNROLL for (int k = k0; k < k0 + SORT_RANK_BATCH; ++k) {
      const uint32_t d = place[k];
      const uint64_t peers = tp_vector_match(team, d, full ? SORT_RADIX_BITS : SORT_RADIX_BITS + 1);
      const int leader = tp_ctz64(peers);
      uint32_t before = 0;
      if ((full || d < SORT_RADIX) && leader == team->vector_lane) {
        before = my_hist[d];
        my_hist[d] = (uint16_t)(before + (uint32_t)tp_popc64(peers));
      }
      before = tp_vector_shfl_u32(team, before, leader);
      const uint64_t below = ((uint64_t)1 << team->vector_lane) - 1u;
      place[k] = d | (before + (uint32_t)tp_popc64(peers & below)) << SORT_PLACE_RANK_SHIFT;
      tp_vector_sync(team);
    }
  }
  tp_team_barrier(team);
  /* Per digit: counts of earlier threads, and the round's total. */
  TP_TEAM_VECTOR_FOR(team, d, 0, SORT_RADIX) {
    uint32_t run = 0;
    for (int t = 0; t < team->team_size; ++t) {
      uint32_t c = s.thread_hist[SORT_RADIX * t + d];
      s.thread_hist[SORT_RADIX * t + d] = (uint16_t)run;
      run += c;
    }
    s.round_count[d] = (uint16_t)run;
  }
  tp_team_barrier(team);
  SORT_NAME(sort_scan_digits_)(team, s);
  tp_team_barrier(team);
}

/* Stages the ranked round digit-sorted in scratch, then writes it out in order (runs of
 * equal digits are coalesced). The key staged at e goes to slot digit_next[d] + e: the
 * caller sets digit_next[d] to digit d's first slot of the round less round_start[d]. */
TP_DEVICE void SORT_NAME(sort_move_round_)(const tp_team *team, SORT_NAME(sort_scratch_) s,
                                           const SORT_KEY_T *round_keys,
                                           const SORT_VAL_T *round_vals, SORT_KEY_T *keys_out,
                                           SORT_VAL_T *vals_out, int len, int full, int shift,
                                           uint32_t mask, const uint32_t place[SORT_ITEMS]) {
  const int lanes = team->vector_length, me = team->team_rank;
  const int first = me * SORT_ITEMS * lanes + team->vector_lane;
  const uint16_t *my_hist = s.thread_hist + SORT_RADIX * me;
  TP_UNROLL for (int k = 0; k < SORT_ITEMS; ++k) {
    const uint32_t d = tp_sort_place_digit(place[k]);
    if (full || d < SORT_RADIX) {
      const int e = first + k * lanes;
      const uint32_t slot = s.round_start[d] + my_hist[d] + tp_sort_place_rank(place[k]);
      s.stage_keys[slot] = round_keys[e];
      if (SORT_HAS_VALUES)
        s.stage_vals[slot] = round_vals[e];
    }
  }
  tp_team_barrier(team);
  const int threads = team->team_size * lanes; /* a round is SORT_ITEMS keys a thread */
  TP_UNROLL for (int i = 0; i < SORT_ITEMS; ++i) {
    const int e = me * lanes + team->vector_lane + i * threads;
    if (full || e < len) {
      const SORT_KEY_T k = s.stage_keys[e];
      const int64_t slot = s.digit_next[(uint32_t)(k >> shift) & mask] + e;
      keys_out[slot] = k;
      if (SORT_HAS_VALUES)
        vals_out[slot] = s.stage_vals[e];
    }
  }
  tp_team_barrier(team);
}

/* One round of a host pass's tile: rank, then move from the digits' next slots. */
TP_DEVICE void SORT_NAME(sort_scatter_round_)(const tp_team *team, SORT_NAME(sort_scratch_) s,
                                              SORT_NAME(sort_scatter_args_) a, int64_t base,
                                              int len, int full) {
  const uint32_t mask = (1u << a.bits) - 1u;
  uint32_t place[SORT_ITEMS];
  SORT_NAME(sort_rank_round_)(team, s, a.keys_in + base, len, full, a.shift, mask, place);
  TP_TEAM_VECTOR_FOR(team, d, 0, SORT_RADIX) { s.digit_next[d] -= s.round_start[d]; }
  tp_team_barrier(team);
  SORT_NAME(sort_move_round_)
  (team, s, a.keys_in + base, SORT_HAS_VALUES ? a.vals_in + base : NULL, a.keys_out, a.vals_out,
   len, full, a.shift, mask, place);
  TP_TEAM_VECTOR_FOR(team, d, 0, SORT_RADIX) {
    s.digit_next[d] += s.round_start[d] + s.round_count[d];
  }
  tp_team_barrier(team);
}

TP_TEAM_KERNEL_BOUNDED(SORT_NAME(sort_scatter_), SORT_NAME(sort_scatter_args_), 32 * SORT_GPU_TEAM,
                       TP_SORT_MIN_TEAMS, team, a) {
  const int64_t round = (int64_t)team->team_size * team->vector_length * SORT_ITEMS;
  const int64_t tile_begin = team->league_rank * a.tile;
  const int64_t tile_end = tp_min_i64(tile_begin + a.tile, a.n);
  SORT_NAME(sort_scratch_) s = SORT_NAME(sort_scratch_carve_)(team, round);
  TP_TEAM_VECTOR_FOR(team, d, 0, SORT_RADIX) {
    int64_t at = d * a.tiles + team->league_rank;
    s.digit_next[d] = a.offsets32 ? (int64_t)a.offsets32[at] : a.offsets64[at];
  }
  for (int64_t base = tile_begin; base < tile_end; base += round) {
    const int len = (int)tp_min_i64(round, tile_end - base);
    if (len == round)
      SORT_NAME(sort_scatter_round_)(team, s, a, base, len, 1);
    else
      SORT_NAME(sort_scatter_round_)(team, s, a, base, len, 0);
  }
}

/* ---- onesweep (GPU spaces) ------------------------------------------------------
 * Adinets and Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
 * GPUs" (2022): one kernel counts the digits of every pass in a single read of the
 * keys; each pass is then one kernel whose tiles find where their digits go by
 * decoupled look-back over the tiles before them, so a pass reads and writes the pairs
 * once (no histogram read, no scan of per-tile counts). */

typedef struct SORT_NAME(sort_all_digits_args_) {
  const SORT_KEY_T *keys;
  uint64_t *counts; /* [passes][RADIX], zeroed by the caller */
  int64_t n, chunk;
  int begin_bit, end_bit, passes;
} SORT_NAME(sort_all_digits_args_);

/* Digit counts of every pass over one chunk: team-scope atomics into rows of team
 * scratch (as sort_hist_), then the rows' sums added to the global counts. */
TP_TEAM_KERNEL(SORT_NAME(sort_all_digits_), SORT_NAME(sort_all_digits_args_), team, a) {
  const int nrows = SORT_NAME(sort_hist_rows_)(team->team_size);
  const int table = SORT_RADIX * a.passes;
  uint32_t *rows = (uint32_t *)team->scratch;
  uint32_t *my_row = rows + table * (team->team_rank % nrows);
  const int64_t begin = team->league_rank * a.chunk;
  const int64_t end = tp_min_i64(begin + a.chunk, a.n);
  TP_TEAM_VECTOR_FOR(team, k, 0, table * nrows) { rows[k] = 0; }
  tp_team_barrier(team);
  TP_TEAM_VECTOR_FOR(team, e, begin, end) {
    const SORT_KEY_T key = a.keys[e];
    for (int p = 0; p < a.passes; ++p) {
      const int shift = a.begin_bit + p * SORT_RADIX_BITS;
      const int bits = tp_sort_pass_bits(shift, a.end_bit);
      const uint32_t d = (uint32_t)(key >> shift) & ((1u << bits) - 1u);
      tp_atomic_add_u32_team(&my_row[SORT_RADIX * p + d], 1u);
    }
  }
  tp_team_barrier(team);
  TP_TEAM_VECTOR_FOR(team, k, 0, table) {
    uint32_t total = 0;
    for (int r = 0; r < nrows; ++r)
      total += rows[table * r + k];
    if (total)
      tp_atomic_add_u64(&a.counts[k], (uint64_t)total);
  }
}

typedef struct SORT_NAME(sort_onesweep_args_) {
  const SORT_KEY_T *keys_in;
  const SORT_VAL_T *vals_in;
  SORT_KEY_T *keys_out;
  SORT_VAL_T *vals_out;
  const int64_t *digit_start; /* [RADIX] this pass's first slot of each digit */
  uint64_t *look_back;        /* [tiles][RADIX] tp_sort_look_back words */
  int64_t n;
  int shift, bits, pass;
  int patience;  /* tp_sort_look_back_patience() */
  int inclusive; /* tp_sort_look_back_inclusive() */
} SORT_NAME(sort_onesweep_args_);

/* Keys of digit d in tile p (one round of `round` keys): the look-back's way past a
 * tile that has not published its count. 32-bit indices: a round is under 2^16 keys,
 * and the registers this path holds are taken from the hot path's. */
TP_DEVICE uint32_t SORT_NAME(sort_tile_digit_count_)(const SORT_KEY_T *keys, int64_t p,
                                                     int64_t round, int64_t n, int shift,
                                                     uint32_t mask, uint32_t d) {
  const SORT_KEY_T *tile_keys = keys + p * round;
  const int len = (int)tp_min_i64(round, n - p * round);
  uint32_t count = 0;
  for (int e = 0; e < len; ++e)
    count += ((uint32_t)(tile_keys[e] >> shift) & mask) == d;
  return count;
}

/* Digit d's keys in the tiles before `tile`, by a decoupled look-back: this tile's count
 * is published first, then with the tiles' before it (unless a.inclusive is off, for
 * tests). One thread per digit. */
TP_DEVICE int64_t SORT_NAME(sort_digit_before_)(SORT_NAME(sort_onesweep_args_) a, int64_t tile,
                                                int64_t round, uint32_t mask, int d,
                                                uint32_t count) {
  const int kind = tile == 0 ? SORT_LB_INCLUSIVE : SORT_LB_AGGREGATE;
  tp_sort_publish(a.look_back, tile, d, a.pass, kind, count);
  uint64_t before = 0;
  for (int64_t p = tile - 1; p >= 0; --p) {
    if (tp_sort_look_back_walk(a.look_back, &p, d, a.pass, a.patience, &before))
      break;
    before +=
        SORT_NAME(sort_tile_digit_count_)(a.keys_in, p, round, a.n, a.shift, mask, (uint32_t)d);
  }
  if (tile > 0 && a.inclusive)
    tp_sort_publish(a.look_back, tile, d, a.pass, SORT_LB_INCLUSIVE, before + count);
  return (int64_t)before;
}

/* One pass of one tile (a tile is one round on GPUs): rank it, look back for each
 * digit's place, move. */
TP_DEVICE void SORT_NAME(sort_onesweep_tile_)(const tp_team *team, SORT_NAME(sort_onesweep_args_) a,
                                              int64_t round, int len, int full) {
  const uint32_t mask = (1u << a.bits) - 1u;
  SORT_NAME(sort_scratch_) s = SORT_NAME(sort_scratch_carve_)(team, round);
  const int64_t tile = team->league_rank, base = tile * round;
  uint32_t place[SORT_ITEMS];
  SORT_NAME(sort_rank_round_)(team, s, a.keys_in + base, len, full, a.shift, mask, place);
  TP_TEAM_VECTOR_FOR(team, d, 0, SORT_RADIX) {
    s.digit_next[d] = a.digit_start[d] - s.round_start[d] +
                      SORT_NAME(sort_digit_before_)(a, tile, round, mask, (int)d, s.round_count[d]);
  }
  tp_team_barrier(team);
  SORT_NAME(sort_move_round_)
  (team, s, a.keys_in + base, SORT_HAS_VALUES ? a.vals_in + base : NULL, a.keys_out, a.vals_out,
   len, full, a.shift, mask, place);
}

TP_TEAM_KERNEL_BOUNDED(SORT_NAME(sort_onesweep_), SORT_NAME(sort_onesweep_args_),
                       32 * SORT_GPU_TEAM, TP_SORT_MIN_TEAMS, team, a) {
  const int64_t round = (int64_t)team->team_size * team->vector_length * SORT_ITEMS;
  const int len = (int)tp_min_i64(round, a.n - team->league_rank * round);
  if (len == round)
    SORT_NAME(sort_onesweep_tile_)(team, a, round, len, 1);
  else
    SORT_NAME(sort_onesweep_tile_)(team, a, round, len, 0);
}

/* Every pass by onesweep, ping-ponging between (keys, vals) and the temporaries; on
 * return *k_last and *v_last hold the sorted pairs. */
static tp_status SORT_NAME(sort_onesweep_run_)(tp_space *space, const tp_tile_plan *plan,
                                               SORT_KEY_T *keys, SORT_VAL_T *vals,
                                               SORT_KEY_T *keys_tmp, SORT_VAL_T *vals_tmp,
                                               int64_t n, int begin_bit, int end_bit,
                                               SORT_KEY_T **k_last, SORT_VAL_T **v_last) {
  const int passes = (end_bit - begin_bit + SORT_RADIX_BITS - 1) / SORT_RADIX_BITS;
  tp_sort_onesweep_tables t;
  TP_TRY(tp_sort_onesweep_tables_make(space, plan, passes, &t));
  tp_status st = TP_SUCCESS;
  SORT_NAME(sort_all_digits_args_) h;
  h.keys = keys, h.counts = t.counts, h.n = n, h.begin_bit = begin_bit, h.end_bit = end_bit;
  h.passes = passes;
  int64_t teams = tp_sort_count_teams(space, plan, n);
  h.chunk = tp_ceil_div_i64(n, teams);
  tp_team_policy hp = tp_team_policy_make(teams, plan->team_size, plan->vector_length,
                                          sizeof(uint32_t) * SORT_RADIX * (size_t)passes *
                                              SORT_NAME(sort_hist_rows_)(plan->team_size));
  TP_TRY_GOTO(st, TP_LAUNCHER(SORT_NAME(sort_all_digits_))(space, hp, h), done);
  TP_TRY_GOTO(st, tp_sort_digit_starts(space, &t, passes), done);
  {
    SORT_NAME(sort_onesweep_args_) a;
    a.n = n, a.look_back = t.look_back;
    a.patience = tp_sort_look_back_patience();
    a.inclusive = tp_sort_look_back_inclusive();
    SORT_KEY_T *k_src = keys, *k_dst = keys_tmp;
    SORT_VAL_T *v_src = vals, *v_dst = vals_tmp;
    tp_team_policy sp =
        tp_team_policy_make(plan->tiles, plan->team_size, plan->vector_length,
                            SORT_NAME(sort_scratch_bytes_)(plan->team_size, plan->round));
    for (int p = 0; p < passes; ++p) {
      a.keys_in = k_src, a.vals_in = v_src, a.keys_out = k_dst, a.vals_out = v_dst;
      a.shift = begin_bit + p * SORT_RADIX_BITS;
      a.bits = tp_sort_pass_bits(a.shift, end_bit);
      a.pass = p;
      a.digit_start = t.starts + SORT_RADIX * p;
      TP_TRY_GOTO(st, TP_LAUNCHER(SORT_NAME(sort_onesweep_))(space, sp, a), done);
      SORT_KEY_T *kt = k_src;
      k_src = k_dst, k_dst = kt;
      SORT_VAL_T *vt = v_src;
      v_src = v_dst, v_dst = vt;
    }
    *k_last = k_src, *v_last = v_src;
  }
done:
  tp_sort_onesweep_tables_free(space, &t);
  return st;
}

/* One pass by bits [shift, shift + bits) from (keys_in, vals_in) to (keys_out, vals_out). */
static tp_status SORT_NAME(sort_pass_)(tp_space *space, const tp_tile_plan *plan, void *counts,
                                       int wide, const SORT_KEY_T *keys_in,
                                       const SORT_VAL_T *vals_in, SORT_KEY_T *keys_out,
                                       SORT_VAL_T *vals_out, int64_t n, int shift, int bits) {
  SORT_NAME(sort_hist_args_) h;
  h.keys = keys_in;
  h.counts32 = wide ? NULL : (uint32_t *)counts;
  h.counts64 = wide ? (int64_t *)counts : NULL;
  h.n = n;
  h.tile = plan->tile;
  h.tiles = plan->tiles;
  h.shift = shift;
  h.bits = bits;
  tp_team_policy hp = tp_team_policy_make(plan->tiles, plan->team_size, plan->vector_length,
                                          sizeof(uint32_t) * SORT_RADIX *
                                              SORT_NAME(sort_hist_rows_)(plan->team_size));
  TP_TRY(TP_LAUNCHER(SORT_NAME(sort_hist_))(space, hp, h));
  int64_t ncounts = SORT_RADIX * plan->tiles;
  if (wide)
    TP_TRY(tp_exclusive_scan_i64(space, h.counts64, h.counts64, ncounts, NULL));
  else
    TP_TRY(tp_exclusive_scan_u32(space, h.counts32, h.counts32, ncounts, NULL));
  SORT_NAME(sort_scatter_args_) sc;
  sc.keys_in = keys_in;
  sc.vals_in = vals_in;
  sc.keys_out = keys_out;
  sc.vals_out = vals_out;
  sc.offsets32 = h.counts32;
  sc.offsets64 = h.counts64;
  sc.n = n;
  sc.tile = plan->tile;
  sc.tiles = plan->tiles;
  sc.shift = shift;
  sc.bits = bits;
  tp_team_policy sp =
      tp_team_policy_make(plan->tiles, plan->team_size, plan->vector_length,
                          SORT_NAME(sort_scratch_bytes_)(plan->team_size, plan->round));
  return TP_LAUNCHER(SORT_NAME(sort_scatter_))(space, sp, sc);
}

/* After an odd number of passes the sorted pairs are in the temporaries. */
static tp_status SORT_NAME(sort_copy_back_)(tp_space *space, SORT_KEY_T *keys, SORT_VAL_T *vals,
                                            const SORT_KEY_T *k_src, const SORT_VAL_T *v_src,
                                            int64_t n) {
  if (k_src == keys)
    return TP_SUCCESS;
  TP_TRY(tp_copy_on_device(space, keys, k_src, sizeof(SORT_KEY_T) * (size_t)n));
  if (SORT_HAS_VALUES)
    TP_TRY(tp_copy_on_device(space, vals, v_src, sizeof(SORT_VAL_T) * (size_t)n));
  return TP_SUCCESS;
}

static tp_status SORT_NAME(sort_run_)(tp_space *space, SORT_KEY_T *keys, SORT_VAL_T *vals,
                                      int64_t n, int begin_bit, int end_bit) {
  const int key_bits = (int)(8 * sizeof(SORT_KEY_T));
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(n >= 0, "element count %lld is negative", (long long)n);
  TP_CHECK_ARG(n == 0 || keys, "keys must not be NULL");
  TP_CHECK_ARG(!SORT_HAS_VALUES || n == 0 || vals, "values must not be NULL");
  TP_CHECK_ARG(0 <= begin_bit && begin_bit <= end_bit && end_bit <= key_bits,
               "bit range [%d, %d) is not inside the %d-bit keys", begin_bit, end_bit, key_bits);
  if (n <= 1 || begin_bit == end_bit)
    return TP_SUCCESS;
  /* GPU teams of SORT_GPU_TEAM threads unless their scratch does not fit (64 KiB of
   * shared memory on AMD GPUs): then the largest smaller team that fits. */
  int team = SORT_GPU_TEAM;
  while (team > 1 &&
         SORT_NAME(sort_scratch_bytes_)(team, (int64_t)team * TP_TILE_VECTOR * SORT_ITEMS) >
             tp_team_scratch_limit(space, team))
    team /= 2;
  tp_tile_plan plan;
  /* one round per GPU tile: a onesweep tile ranks and moves one round */
  TP_TRY(tp_plan_tiles(space, n, SORT_ITEMS, team, 1, &plan));
  if (plan.round > 65535)
    return TP_ERROR(TP_ERROR_INTERNAL, "sort rounds of %lld keys overflow 16-bit counts",
                    (long long)plan.round);
  const int wide = n > tp_sort_narrow_limit;
  const size_t count_bytes = wide ? sizeof(int64_t) : sizeof(uint32_t);
  SORT_KEY_T *keys_tmp = NULL;
  SORT_VAL_T *vals_tmp = NULL;
  void *counts = NULL;
  const int onesweep = tp_sort_onesweep_wanted(space);
  tp_status st;
  TP_TRY_GOTO(st, tp_temp_alloc(space, sizeof(SORT_KEY_T) * (size_t)n, (void **)&keys_tmp), done);
  if (SORT_HAS_VALUES)
    TP_TRY_GOTO(st, tp_temp_alloc(space, sizeof(SORT_VAL_T) * (size_t)n, (void **)&vals_tmp), done);
  if (!onesweep) /* the host passes' per-tile digit counts */
    TP_TRY_GOTO(st, tp_temp_alloc(space, count_bytes * SORT_RADIX * (size_t)plan.tiles, &counts),
                done);
  if (onesweep) {
    SORT_KEY_T *k_src = NULL;
    SORT_VAL_T *v_src = NULL;
    TP_TRY_GOTO(st,
                SORT_NAME(sort_onesweep_run_)(space, &plan, keys, vals, keys_tmp, vals_tmp, n,
                                              begin_bit, end_bit, &k_src, &v_src),
                done);
    TP_TRY_GOTO(st, SORT_NAME(sort_copy_back_)(space, keys, vals, k_src, v_src, n), done);
  } else {
    SORT_KEY_T *k_src = keys, *k_dst = keys_tmp;
    SORT_VAL_T *v_src = vals, *v_dst = vals_tmp;
    for (int shift = begin_bit; shift < end_bit; shift += SORT_RADIX_BITS) {
      int bits = end_bit - shift < SORT_RADIX_BITS ? end_bit - shift : SORT_RADIX_BITS;
      TP_TRY_GOTO(st,
                  SORT_NAME(sort_pass_)(space, &plan, counts, wide, k_src, v_src, k_dst, v_dst, n,
                                        shift, bits),
                  done);
      SORT_KEY_T *kt = k_src;
      k_src = k_dst, k_dst = kt;
      SORT_VAL_T *vt = v_src;
      v_src = v_dst, v_dst = vt;
    }
    TP_TRY_GOTO(st, SORT_NAME(sort_copy_back_)(space, keys, vals, k_src, v_src, n), done);
  }
done:
  tp_temp_release(space, counts);
  tp_temp_release(space, vals_tmp);
  tp_temp_release(space, keys_tmp);
  return st;
}

#undef SORT_NAME
