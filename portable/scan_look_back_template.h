/* Single-pass exclusive scan with decoupled look-back, for one integer type; included
 * by scan.c with SCAN_T and SCAN_SFX after scan_tile_template.h and before
 * scan_template.h, which calls it on GPU spaces. Generates: scan_look_back_<sfx> (the
 * kernel) and scan_look_back_run_<sfx>.
 *
 * Each team takes one tile of a few rounds: it sums the tile, publishes the sum (its
 * aggregate), learns the sum of every element before it from the words the teams before
 * it published, publishes its inclusive prefix, and scans the tile from there, reading
 * it a second time. The tile is small enough that the second read finds it in the
 * device's cache, so the input crosses the memory bus once and the output once
 * (reduce-then-scan reads the input twice), and the team never holds more than a round.
 *
 * Integers only: their sums do not depend on the order of the additions, and the order
 * here depends on which words were published when a team looked. Floating scans keep
 * reduce-then-scan, whose sums are the same from run to run. */

#define SCAN_LB_NAME(base) TP_PASTE(base, SCAN_SFX)
#define SCAN_LB_OP(op) TP_PASTE3(op, _, SCAN_SFX)

typedef struct SCAN_LB_NAME(scan_look_back_args_) {
  const SCAN_T *in;
  SCAN_T *out;
  SCAN_T *total;   /* NULL: not wanted */
  uint64_t *words; /* [tiles][2][SCAN_LB_HALVES]: a tile's own sum (its aggregate),
                              then its inclusive prefix, in tagged halves; 0: not yet */
  int64_t n, tile;
  int patience;        /* tp_look_back_patience("TENPORT_SCAN_PATIENCE") */
  int chunked;         /* in is 16-byte aligned: full tiles are summed in chunks */
  int aggregates_only; /* tests: no tile after the first publishes an inclusive prefix,
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
TP_DEVICE uint32_t SCAN_LB_NAME(scan_read_word_)(SCAN_LB_NAME(scan_look_back_args_) a, int64_t p,
                                                 SCAN_T *value) {
  uint64_t w[2 * SCAN_LB_HALVES];
  TP_UNROLL for (int k = 0; k < 2 * SCAN_LB_HALVES; ++k) w[k] =
      tp_atomic_load_relaxed_u64(a.words + 2 * p * SCAN_LB_HALVES + k);
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
                                                   SCAN_LB_NAME(scan_look_back_args_) a, int64_t *p,
                                                   SCAN_T *before) {
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
  const int64_t begin = p * a.tile;
  return SCAN_NAME(scan_span_sum_)(team, a.in, begin, tp_min_i64(begin + a.tile, a.n));
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
                                                 SCAN_LB_NAME(scan_look_back_state_) * s,
                                                 SCAN_T tile_sum) {
  const int64_t tile = team->league_rank;
  TP_TEAM_SINGLE(team) {
    SCAN_LB_NAME(scan_publish_)
    (a, tile, tile == 0 ? SCAN_LB_INCLUSIVE : SCAN_LB_AGGREGATE, tile_sum);
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

/* The sum of a full tile (every tile but maybe the last) of a 16-byte aligned input is
 * read in 16-byte chunks: a quarter of the load instructions. Without it the single pass
 * issued the instructions of both reduce-then-scan kernels and was slower than they are
 * (perf/results/2026-11-28-h200-scan-single-pass-cache). The scan of the tile that
 * follows keeps the element-wise rounds, whose stores fill whole sectors. */
#define SCAN_LB_CHUNK ((int)(16 / sizeof(SCAN_T)))
#define SCAN_LB_CHUNKS (SCAN_ITEMS / SCAN_LB_CHUNK) /* a thread's chunks per round */

typedef struct SCAN_LB_NAME(scan_chunk_) {
  TP_ALIGNAS(16) SCAN_T v[SCAN_LB_CHUNK];
} SCAN_LB_NAME(scan_chunk_);

/* The sum of the full tile at `begin`, its chunks striped over the team (coalesced);
 * every thread gets it. */
TP_DEVICE SCAN_T SCAN_LB_NAME(scan_full_tile_sum_)(const tp_team *team, const SCAN_T *in,
                                                   int64_t begin, int64_t tile) {
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const SCAN_LB_NAME(scan_chunk_) *chunks = (const SCAN_LB_NAME(scan_chunk_) *)(in + begin);
  const int64_t count = tile / SCAN_LB_CHUNK, step = (int64_t)threads * SCAN_LB_CHUNKS;
  SCAN_T sum = 0;
  for (int64_t q = tid; q < count; q += step) {
    SCAN_LB_NAME(scan_chunk_) x[SCAN_LB_CHUNKS];
    TP_UNROLL for (int j = 0; j < SCAN_LB_CHUNKS; ++j) x[j] = chunks[q + j * threads];
    TP_UNROLL for (int j = 0; j < SCAN_LB_CHUNKS; ++j) {
      TP_UNROLL for (int i = 0; i < SCAN_LB_CHUNK; ++i) sum += x[j].v[i];
    }
  }
  sum = SCAN_LB_OP(tp_vector_sum)(team, sum);
  return SCAN_LB_OP(tp_team_sum)(team, sum);
}

/* One tile per team: sum it, look back, scan it. When the scan is in place, the fence
 * keeps this tile's aggregate ahead of its outputs for a team that reads the tile's
 * input past its patience and then finds the tile still unpublished. */
TP_TEAM_KERNEL_BOUNDED(SCAN_LB_NAME(scan_look_back_), SCAN_LB_NAME(scan_look_back_args_), 256,
                       SCAN_LB_MIN_TEAMS, team, a) {
  SCAN_LB_NAME(scan_look_back_state_) *s = (SCAN_LB_NAME(scan_look_back_state_) *)team->scratch;
  SCAN_T *stage = (SCAN_T *)((unsigned char *)team->scratch + SCAN_LB_STATE_BYTES);
  const int64_t begin = team->league_rank * a.tile;
  const int64_t end = tp_min_i64(begin + a.tile, a.n);
  SCAN_T tile_sum = a.chunked && end - begin == a.tile
                        ? SCAN_LB_NAME(scan_full_tile_sum_)(team, a.in, begin, a.tile)
                        : SCAN_NAME(scan_span_sum_)(team, a.in, begin, end);
  SCAN_T before = SCAN_LB_NAME(scan_tile_before_)(team, a, s, tile_sum);
  if (a.in == a.out) {
    TP_TEAM_SINGLE(team) { tp_memory_fence(); }
    tp_team_barrier(team);
  }
  SCAN_NAME(scan_span_write_)(team, stage, a.in, a.out, begin, end, before);
}

/* The scan of n elements, SCAN_LB_ROUNDS rounds of the team's threads per tile; 0 < n. */
static tp_status SCAN_LB_NAME(scan_look_back_run_)(tp_space *space, const SCAN_T *in, SCAN_T *out,
                                                   int64_t n, SCAN_T *total) {
  tp_tile_plan plan;
  TP_TRY(tp_plan_tiles(space, n, SCAN_ITEMS, TP_TILE_TEAM, SCAN_LB_ROUNDS, &plan));
  const size_t word_bytes = sizeof(uint64_t) * 2 * SCAN_LB_HALVES * (size_t)plan.tiles;
  void *words = NULL;
  TP_TRY(tp_temp_alloc(space, word_bytes, &words));
  SCAN_LB_NAME(scan_look_back_args_) a;
  a.in = in, a.out = out, a.total = total, a.n = n, a.tile = plan.tile;
  a.chunked = (uintptr_t)in % 16 == 0;
  a.words = (uint64_t *)words;
  a.patience = tp_look_back_patience("TENPORT_SCAN_PATIENCE");
  a.aggregates_only = getenv("TENPORT_SCAN_AGGREGATES_ONLY") != NULL;
  size_t scratch =
      SCAN_LB_STATE_BYTES + sizeof(SCAN_T) * SCAN_NAME(scan_stage_elements_)(plan.round);
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
#undef SCAN_LB_HALVES
#undef SCAN_LB_CHUNK
#undef SCAN_LB_CHUNKS
#undef SCAN_LB_TAG
