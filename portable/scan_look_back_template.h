/* Single-pass exclusive scan with decoupled look-back, for one integer type; included
 * by scan.c with SCAN_T and SCAN_SFX before scan_template.h, which calls it on GPU
 * spaces. Generates: scan_look_back_<sfx> (the kernel) and scan_look_back_run_<sfx>.
 *
 * Each team scans one round of the input in shared memory, publishes the round's sum
 * (its aggregate), learns the sum of every element before it from the words the teams
 * before it published, publishes its inclusive prefix, and writes its round: the input
 * is read once and the output written once (reduce-then-scan reads the input twice).
 *
 * Integers only: their sums do not depend on the order of the additions, and the order
 * here depends on which words were published when a team looked. Floating scans keep
 * reduce-then-scan, whose sums are the same from run to run. */

#define SCAN_LB_NAME(base) TP_PASTE(base, SCAN_SFX)
#define SCAN_LB_OP(op) TP_PASTE3(op, _, SCAN_SFX)
#define SCAN_LB_ITEMS ((int)(SCAN_LB_THREAD_BYTES / sizeof(SCAN_T)))
#define SCAN_LB_PAD(e) ((e) + (e) / (int)(128 / sizeof(SCAN_T)))

typedef struct SCAN_LB_NAME(scan_look_back_args_) {
  const SCAN_T *in;
  SCAN_T *out;
  SCAN_T *total;           /* NULL: not wanted */
  uint64_t *words;         /* [tiles][2][SCAN_LB_HALVES]: a tile's own sum (its aggregate),
                              then its inclusive prefix, in tagged halves; 0: not yet */
  int64_t n, round;
  int patience;            /* tp_look_back_patience("TENPORT_SCAN_PATIENCE") */
  int aggregates_only;     /* tests: no tile after the first publishes an inclusive prefix,
                              so that every look-back walks to the start */
} SCAN_LB_NAME(scan_look_back_args_);

/* What the team's look-back shares through scratch: the tile it stopped at (or -1),
 * whether the walk is over, and the sum found so far. */
typedef struct SCAN_LB_NAME(scan_look_back_state_) {
  int64_t tile;
  SCAN_T before;
  int done;
} SCAN_LB_NAME(scan_look_back_state_);
typedef char SCAN_LB_NAME(scan_look_back_state_fits_)
    [sizeof(SCAN_LB_NAME(scan_look_back_state_)) <= SCAN_LB_STATE_BYTES ? 1 : -1];

/* A published value travels in tagged words, one per 32 bits of it: a word is written
 * once (from 0), and tells by its tag that its half is there. Without flags to release
 * the values, neither side needs a fence (a fence per word made the look-back 2x slower
 * than reduce-then-scan on an H100). */
#define SCAN_LB_HALVES ((int)(sizeof(SCAN_T) / 4))
#define SCAN_LB_TAG ((uint64_t)1 << 32)

/* Publishes tile's aggregate or inclusive prefix. */
TP_DEVICE void SCAN_LB_NAME(scan_publish_)(SCAN_LB_NAME(scan_look_back_args_) a, int64_t tile,
                                           uint32_t kind, SCAN_T value) {
  uint64_t *slot = a.words + (2 * tile + (kind == SCAN_LB_INCLUSIVE)) * SCAN_LB_HALVES;
  const uint64_t bits = (uint64_t)value;
  for (int h = 0; h < SCAN_LB_HALVES; ++h)
    tp_atomic_store_relaxed_u64(slot + h, SCAN_LB_TAG | (uint32_t)(bits >> (32 * h)));
}

/* The value of a slot whose words all carry the tag, or 0 (and *whole 0) otherwise. */
TP_DEVICE SCAN_T SCAN_LB_NAME(scan_slot_value_)(const uint64_t *w, int *whole) {
  uint64_t bits = 0;
  *whole = 1;
  for (int h = 0; h < SCAN_LB_HALVES; ++h) {
    *whole &= (w[h] & SCAN_LB_TAG) != 0;
    bits |= (uint64_t)(uint32_t)w[h] << (32 * h);
  }
  return *whole ? (SCAN_T)bits : (SCAN_T)0;
}

/* Tile p's published word: 0 when none, else its kind, with its value in *value. Both
 * slots are loaded at once (one round trip). */
TP_DEVICE uint32_t SCAN_LB_NAME(scan_read_word_)(SCAN_LB_NAME(scan_look_back_args_) a,
                                                 int64_t p, SCAN_T *value) {
  uint64_t w[2 * SCAN_LB_HALVES];
  TP_UNROLL for (int k = 0; k < 2 * SCAN_LB_HALVES; ++k)
    w[k] = tp_atomic_load_relaxed_u64(a.words + 2 * p * SCAN_LB_HALVES + k);
  int whole;
  *value = SCAN_LB_NAME(scan_slot_value_)(w + SCAN_LB_HALVES, &whole);
  if (whole)
    return SCAN_LB_INCLUSIVE;
  *value = SCAN_LB_NAME(scan_slot_value_)(w, &whole);
  return whole ? SCAN_LB_AGGREGATE : 0;
}

/* One window of the look-back, by the lanes of one team thread: lane l looks at tile
 * *p - l (a tile before 0 reads as an inclusive 0). The lanes poll together until every
 * tile nearer than the nearest inclusive one has published, at most `patience` times.
 * Adds to *before the words up to the nearest inclusive one and returns 1; or, with no
 * inclusive word in the window, adds them all, moves *p a window back and returns 2;
 * or adds the words before the nearest unpublished tile, sets *p to that tile and
 * returns 0. Every lane gets the same result. */
TP_DEVICE int SCAN_LB_NAME(scan_look_back_window_)(const tp_team *team,
                                                   SCAN_LB_NAME(scan_look_back_args_) a,
                                                   int64_t *p, SCAN_T *before) {
  const int width = team->vector_length, lane = team->vector_lane;
  const int64_t q = *p - lane;
  uint32_t kind = 0;
  SCAN_T value = 0;
  uint64_t waiting = 0, inclusive = 0;
  for (int poll = 0; poll < a.patience; ++poll) {
    kind = q < 0 ? (uint32_t)SCAN_LB_INCLUSIVE : SCAN_LB_NAME(scan_read_word_)(a, q, &value);
    inclusive = tp_vector_ballot(team, kind == SCAN_LB_INCLUSIVE);
    waiting = tp_vector_ballot(team, kind == 0) &
              tp_scan_lanes_below(inclusive ? tp_ctz64(inclusive) : width);
    if (!waiting)
      break;
  }
  const int stalled = waiting ? tp_ctz64(waiting) : -1;
  const int nearest = inclusive ? tp_ctz64(inclusive) : width;
  const int counted = stalled >= 0 ? stalled : nearest < width ? nearest + 1 : width;
  *before += SCAN_LB_OP(tp_vector_sum)(team, lane < counted ? value : (SCAN_T)0);
  if (stalled >= 0) {
    *p -= stalled;
    return 0;
  }
  *p -= width;
  return nearest < width ? 1 : 2;
}

/* The sum of tile p's input, by the whole team: the look-back's way past a tile that has
 * not published (no GPU promises that a block starts before those after it). */
TP_DEVICE SCAN_T SCAN_LB_NAME(scan_tile_sum_)(const tp_team *team,
                                              SCAN_LB_NAME(scan_look_back_args_) a, int64_t p) {
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const int64_t begin = p * a.round, len = tp_min_i64(a.round, a.n - begin);
  SCAN_T sum = 0;
  for (int64_t e = tid; e < len; e += threads)
    sum += a.in[begin + e];
  sum = SCAN_LB_OP(tp_vector_sum)(team, sum);
  return SCAN_LB_OP(tp_team_sum)(team, sum);
}

/* Settles tile p's sum after the team read it from the input: if p published meanwhile,
 * its word is taken instead (an in-place scan may have overwritten the input since; the
 * fence orders the input reads before this look at the flag). Otherwise the sum is
 * published for p, so that the tiles after this one pass p without reading it again.
 * Returns 1 when p's word was inclusive (the walk is over). One thread. */
TP_DEVICE int SCAN_LB_NAME(scan_settle_tile_)(SCAN_LB_NAME(scan_look_back_args_) a, int64_t p,
                                              SCAN_T read_sum, SCAN_T *before) {
  tp_memory_fence();
  SCAN_T published;
  uint32_t kind = SCAN_LB_NAME(scan_read_word_)(a, p, &published);
  if (kind == 0) {
    published = read_sum;
    SCAN_LB_NAME(scan_publish_)(a, p, SCAN_LB_AGGREGATE, read_sum);
  }
  *before += published;
  return kind == SCAN_LB_INCLUSIVE;
}

/* The look-back past tile *p, which did not publish: the team sums its input, and the
 * lanes of team thread 0 (which walk) take the settled sum and move *p past it (to -1
 * when its word turned out inclusive: the walk is over). */
TP_DEVICE void SCAN_LB_NAME(scan_look_past_)(const tp_team *team,
                                             SCAN_LB_NAME(scan_look_back_args_) a, int64_t *p,
                                             SCAN_T *before) {
  SCAN_T read_sum = SCAN_LB_NAME(scan_tile_sum_)(team, a, *p);
  if (team->team_rank != 0)
    return;
  SCAN_T found = 0;
  int over = 0;
  TP_VECTOR_SINGLE(team) { over = SCAN_LB_NAME(scan_settle_tile_)(a, *p, read_sum, &found); }
  *before += SCAN_LB_OP(tp_vector_shfl)(team, found, 0);
  *p = tp_vector_shfl_i32(team, over, 0) ? -1 : *p - 1;
}

/* The sum of every element before this team's tile (every thread gets it), after
 * publishing the tile's own sum; publishes the tile's inclusive prefix. The lanes of
 * team thread 0 walk back; the whole team sums a tile that has not published. */
TP_DEVICE SCAN_T SCAN_LB_NAME(scan_tile_before_)(const tp_team *team,
                                                 SCAN_LB_NAME(scan_look_back_args_) a,
                                                 SCAN_LB_NAME(scan_look_back_state_) *s,
                                                 SCAN_T tile_sum) {
  const int64_t tile = team->league_rank;
  TP_TEAM_SINGLE(team) {
    SCAN_LB_NAME(scan_publish_)(a, tile, tile == 0 ? SCAN_LB_INCLUSIVE : SCAN_LB_AGGREGATE,
                                tile_sum);
  }
  int64_t p = tile - 1; /* the walk's state, in the lanes of team thread 0 */
  SCAN_T before = 0;
  for (;;) {
    if (team->team_rank == 0) {
      int step = 2;
      while (step == 2)
        step = SCAN_LB_NAME(scan_look_back_window_)(team, a, &p, &before);
      TP_VECTOR_SINGLE(team) {
        s->done = step;
        s->tile = p;
        s->before = before;
      }
    }
    tp_team_barrier(team);
    if (s->done)
      break;
    p = s->tile; /* the whole team sums tile p */
    SCAN_LB_NAME(scan_look_past_)(team, a, &p, &before);
    tp_team_barrier(team); /* s is written again by the next window */
  }
  before = s->before;
  TP_TEAM_SINGLE(team) {
    if (tile > 0 && !a.aggregates_only)
      SCAN_LB_NAME(scan_publish_)(a, tile, SCAN_LB_INCLUSIVE, before + tile_sum);
    if (a.total && tile == team->league_size - 1)
      *a.total = before + tile_sum;
  }
  return before;
}

/* One tile (one round) per team: stage, scan, look back, write. */
TP_TEAM_KERNEL_BOUNDED(SCAN_LB_NAME(scan_look_back_), SCAN_LB_NAME(scan_look_back_args_), 256, SCAN_MIN_TEAMS, team, a) {
  SCAN_LB_NAME(scan_look_back_state_) *s = (SCAN_LB_NAME(scan_look_back_state_) *)team->scratch;
  SCAN_T *stage = (SCAN_T *)((unsigned char *)team->scratch + SCAN_LB_STATE_BYTES);
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const int64_t base = team->league_rank * a.round;
  const int64_t len = tp_min_i64(a.round, a.n - base);
  TP_UNROLL for (int k = 0; k < SCAN_LB_ITEMS; ++k) { /* striped, coalesced loads */
    int e = k * threads + tid;
    stage[SCAN_LB_PAD(e)] = e < len ? a.in[base + e] : (SCAN_T)0;
  }
  tp_team_barrier(team);
  SCAN_T run = 0;
  TP_UNROLL for (int k = 0; k < SCAN_LB_ITEMS; ++k) /* blocked: my consecutive items */
    run += stage[SCAN_LB_PAD(tid * SCAN_LB_ITEMS + k)];
  SCAN_T tile_sum;
  SCAN_T prefix = SCAN_LB_OP(tp_team_vector_exclusive_scan)(team, run, &tile_sum);
  prefix += SCAN_LB_NAME(scan_tile_before_)(team, a, s, tile_sum);
  TP_UNROLL for (int k = 0; k < SCAN_LB_ITEMS; ++k) {
    SCAN_T x = stage[SCAN_LB_PAD(tid * SCAN_LB_ITEMS + k)];
    stage[SCAN_LB_PAD(tid * SCAN_LB_ITEMS + k)] = prefix;
    prefix += x;
  }
  tp_team_barrier(team);
  TP_UNROLL for (int k = 0; k < SCAN_LB_ITEMS; ++k) {
    int e = k * threads + tid;
    if (e < len)
      a.out[base + e] = stage[SCAN_LB_PAD(e)];
  }
}

/* The scan of n elements, one round of the team's threads per tile; 0 < n. */
static tp_status SCAN_LB_NAME(scan_look_back_run_)(tp_space *space, const SCAN_T *in,
                                                   SCAN_T *out, int64_t n, SCAN_T *total) {
  tp_tile_plan plan;
  TP_TRY(tp_plan_tiles(space, n, SCAN_LB_ITEMS, TP_TILE_TEAM, 1, &plan));
  const size_t tiles = (size_t)plan.tiles;
  const size_t word_bytes = sizeof(uint64_t) * 2 * SCAN_LB_HALVES * tiles;
  void *words = NULL;
  TP_TRY(tp_temp_alloc(space, word_bytes, &words));
  SCAN_LB_NAME(scan_look_back_args_) a;
  a.in = in, a.out = out, a.total = total, a.n = n, a.round = plan.round;
  a.words = (uint64_t *)words;
  a.patience = tp_look_back_patience("TENPORT_SCAN_PATIENCE");
  a.aggregates_only = getenv("TENPORT_SCAN_AGGREGATES_ONLY") != NULL;
  size_t scratch = SCAN_LB_STATE_BYTES + sizeof(SCAN_T) * (size_t)(SCAN_LB_PAD(plan.round) + 1);
  tp_team_policy policy =
      tp_team_policy_make(plan.tiles, plan.team_size, plan.vector_length, scratch);
  tp_status st = tp_memset(space, words, 0, word_bytes);
  if (st == TP_SUCCESS)
    st = TP_LAUNCHER(SCAN_LB_NAME(scan_look_back_))(space, policy, a);
  tp_temp_release(space, words);
  return st;
}

#undef SCAN_LB_NAME
#undef SCAN_LB_OP
#undef SCAN_LB_ITEMS
#undef SCAN_LB_PAD
#undef SCAN_LB_HALVES
#undef SCAN_LB_TAG
