/* Exclusive scan for one element type, instantiated by scan.c with SCAN_T (the type),
 * SCAN_SFX (its suffix) and SCAN_LOOK_BACK (1: GPU spaces scan in a single pass,
 * scan_look_back_template.h), after scan_tile_template.h. Generates: scan_reduce_<sfx>,
 * scan_tiles_<sfx> (kernels) and tp_exclusive_scan_<sfx>. Reduce-then-scan: tile sums, a
 * recursive scan of the tile sums, then each tile scanned from its offset. */

typedef struct SCAN_NAME(scan_reduce_args_) {
  const SCAN_T *in;
  SCAN_T *tile_sums;
  int64_t n, tile;
} SCAN_NAME(scan_reduce_args_);

TP_TEAM_KERNEL(SCAN_NAME(scan_reduce_), SCAN_NAME(scan_reduce_args_), team, a) {
  const int64_t begin = team->league_rank * a.tile;
  SCAN_T sum = SCAN_NAME(scan_span_sum_)(team, a.in, begin, tp_min_i64(begin + a.tile, a.n));
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
  const int64_t begin = team->league_rank * a.tile;
  SCAN_T carry = a.tile_offsets ? a.tile_offsets[team->league_rank] : (SCAN_T)0;
  carry = SCAN_NAME(scan_span_write_)(team, (SCAN_T *)team->scratch, a.in, a.out, begin,
                                      tp_min_i64(begin + a.tile, a.n), carry);
  if (a.total && team->league_rank == team->league_size - 1) {
    TP_TEAM_SINGLE(team) { *a.total = carry; }
  }
}

static tp_status SCAN_NAME(scan_run_)(tp_space *space, const SCAN_T *in, SCAN_T *out, int64_t n,
                                      SCAN_T *total) {
  tp_tile_plan plan;
  TP_TRY(tp_plan_tiles(space, n, SCAN_ITEMS, TP_TILE_TEAM, SCAN_GPU_ROUNDS, &plan));
#if SCAN_LOOK_BACK
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  if (info.is_gpu && plan.tiles > 1)
    return SCAN_NAME(scan_look_back_run_)(space, in, out, n, total);
#endif
  size_t stage_bytes = sizeof(SCAN_T) * SCAN_NAME(scan_stage_elements_)(plan.round);
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
