/* Exclusive scan for one element type, instantiated by scan_kernels.c with SCAN_T (the type)
 * and SCAN_SFX (its suffix). Reduce-then-scan: tile sums, a recursive scan of the
 * tile sums, then each tile scanned from its offset. */

#define SCAN_NAME(base) TP_PASTE(base, SCAN_SFX)
#define SCAN_OP(op) TP_PASTE3(op, _, SCAN_SFX)
/* Elements per thread per round: 64 bytes' worth. */
#define SCAN_ITEMS ((int)(64 / sizeof(SCAN_T)))
/* Padding of the staging buffer so blocked reads hit distinct banks. */
#define SCAN_PAD(e) ((e) + (e) / (int)(128 / sizeof(SCAN_T)))

typedef struct SCAN_NAME(scan_reduce_args_) {
  const SCAN_T *in;
  SCAN_T *tile_sums;
  int64_t n, tile;
} SCAN_NAME(scan_reduce_args_);

TP_TEAM_KERNEL(SCAN_NAME(scan_reduce_), SCAN_NAME(scan_reduce_args_), team, a) {
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const int64_t round = (int64_t)threads * SCAN_ITEMS;
  const int64_t begin = team->league_rank * a.tile;
  const int64_t end = tp_min_i64(begin + a.tile, a.n);
  SCAN_T sum = 0;
  for (int64_t base = begin; base < end; base += round) {
    const int64_t len = tp_min_i64(round, end - base);
    TP_UNROLL for (int k = 0; k < SCAN_ITEMS; ++k) { /* independent, coalesced loads */
      int e = k * threads + tid;
      if (e < len)
        sum += a.in[base + e];
    }
  }
  sum = SCAN_OP(tp_vector_sum)(team, sum);
  sum = SCAN_OP(tp_team_sum)(team, sum);
  TP_TEAM_SINGLE(team) { a.tile_sums[team->league_rank] = sum; }
}

typedef struct SCAN_NAME(scan_tiles_args_) {
  const SCAN_T *in;
  SCAN_T *out;
  const SCAN_T *tile_offsets; /* NULL: a single tile starting at 0 */
  SCAN_T *total;              /* NULL: not wanted */
  int64_t n, tile;
} SCAN_NAME(scan_tiles_args_);

TP_TEAM_KERNEL_BOUNDED(SCAN_NAME(scan_tiles_), SCAN_NAME(scan_tiles_args_), 256, SCAN_MIN_TEAMS,
                       team, a) {
  SCAN_T *stage = (SCAN_T *)team->scratch;
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const int64_t round = (int64_t)threads * SCAN_ITEMS;
  const int64_t tile_begin = team->league_rank * a.tile;
  const int64_t tile_end = tp_min_i64(tile_begin + a.tile, a.n);
  SCAN_T carry = a.tile_offsets ? a.tile_offsets[team->league_rank] : (SCAN_T)0;
  for (int64_t base = tile_begin; base < tile_end; base += round) {
    const int64_t len = tp_min_i64(round, tile_end - base);
    TP_UNROLL for (int k = 0; k < SCAN_ITEMS; ++k) { /* striped, coalesced loads */
      int e = k * threads + tid;
      stage[SCAN_PAD(e)] = e < len ? a.in[base + e] : (SCAN_T)0;
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
        a.out[base + e] = stage[SCAN_PAD(e)];
    }
    carry += round_total;
    tp_team_barrier(team);
  }
  if (a.total && team->league_rank == team->league_size - 1) {
    TP_TEAM_SINGLE(team) { *a.total = carry; }
  }
}

static tp_status SCAN_NAME(scan_run_)(tp_space *space, const SCAN_T *in, SCAN_T *out, int64_t n,
                                      SCAN_T *total) {
  tp_tile_plan plan;
  TP_TRY(tp_plan_tiles(space, n, SCAN_ITEMS, TP_TILE_TEAM, SCAN_GPU_ROUNDS, &plan));
  size_t stage_bytes = sizeof(SCAN_T) * (size_t)(SCAN_PAD(plan.round) + 1);
  SCAN_T *tile_sums = NULL;
  if (plan.tiles > 1) {
    TP_TRY(tp_temp_alloc(space, sizeof(SCAN_T) * (size_t)plan.tiles, (void **)&tile_sums));
    SCAN_NAME(scan_reduce_args_) r;
    r.in = in;
    r.tile_sums = tile_sums;
    r.n = n;
    r.tile = plan.tile;
    tp_team_policy rp = tp_team_policy_make(plan.tiles, plan.team_size, plan.vector_length, 0);
    tp_status st = TP_LAUNCHER(SCAN_NAME(scan_reduce_))(space, rp, r);
    if (st == TP_SUCCESS)
      st = SCAN_NAME(scan_run_)(space, tile_sums, tile_sums, plan.tiles, NULL);
    if (st != TP_SUCCESS) {
      tp_temp_release(space, tile_sums);
      return st;
    }
  }
  SCAN_NAME(scan_tiles_args_) s;
  s.in = in;
  s.out = out;
  s.tile_offsets = tile_sums;
  s.total = total;
  s.n = n;
  s.tile = plan.tile;
  tp_team_policy sp =
      tp_team_policy_make(plan.tiles, plan.team_size, plan.vector_length, stage_bytes);
  tp_status st = TP_LAUNCHER(SCAN_NAME(scan_tiles_))(space, sp, s);
  tp_temp_release(space, tile_sums);
  return st;
}

tp_status SCAN_NAME(tp_exclusive_scan_)(tp_space *space, const SCAN_T *in, SCAN_T *out, int64_t n,
                                        SCAN_T *total) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(n >= 0, "element count %lld is negative", (long long)n);
  TP_CHECK_ARG(n == 0 || (in && out), "in and out must not be NULL");
  if (n == 0) {
    if (total)
      TP_TRY(tp_memset(space, total, 0, sizeof *total));
    return TP_SUCCESS;
  }
  return SCAN_NAME(scan_run_)(space, in, out, n, total);
}

#undef SCAN_NAME
#undef SCAN_OP
#undef SCAN_ITEMS
#undef SCAN_PAD
