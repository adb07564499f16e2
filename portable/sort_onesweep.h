/* What every instantiation of the radix sort (sort_template.h) shares: a key's place in
 * its round, and for onesweep the look-back words, the tables a sort allocates and the
 * digit starts of every pass.
 * Included once, by sort.c, after SORT_RADIX and SORT_RADIX_BITS. */
#ifndef TP_SORT_ONESWEEP_H
#define TP_SORT_ONESWEEP_H

/* A key's place in its round: its digit (SORT_RADIX for a slot past the round's end) in
 * the low 16 bits, its rank among this team thread's keys of that digit in the high 16
 * (a round holds under 2^16 keys). */
enum { SORT_PLACE_RANK_SHIFT = 16 };
TP_INLINE uint32_t tp_sort_place_digit(uint32_t place) { return place & 0xffffu; }
TP_INLINE uint32_t tp_sort_place_rank(uint32_t place) { return place >> SORT_PLACE_RANK_SHIFT; }

/* Bits sorted by the pass that starts at bit `shift` of a sort that ends at end_bit. */
TP_INLINE int tp_sort_pass_bits(int shift, int end_bit) {
  return end_bit - shift < SORT_RADIX_BITS ? end_bit - shift : SORT_RADIX_BITS;
}

/* A look-back word: a tag (pass << 2 | kind) in the top byte, a count below it. A word
 * with another pass's tag, or zero, is not published yet: the words are zeroed once per
 * sort and each pass writes over the last one's. */
enum { SORT_LB_AGGREGATE = 1, SORT_LB_INCLUSIVE = 2, SORT_LB_TAG_SHIFT = 56 };
#define SORT_LB_COUNT_MASK ((((uint64_t)1) << SORT_LB_TAG_SHIFT) - 1u)

/* (pass << 2 | kind) must fit the top byte: fewer than 64 passes. */
typedef char tp_sort_passes_fit_the_tag[(64 + SORT_RADIX_BITS - 1) / SORT_RADIX_BITS < 64 ? 1 : -1];

TP_INLINE uint64_t tp_sort_look_back_word(int pass, int kind, uint64_t count) {
  return ((uint64_t)((pass << 2) | kind) << SORT_LB_TAG_SHIFT) | count;
}

/* Publishes tile's count of digit d for the tiles after it (the count travels in the
 * word, so a relaxed store suffices). */
TP_DEVICE void tp_sort_publish(uint64_t *words, int64_t tile, int d, int pass, int kind,
                               uint64_t count) {
  tp_atomic_store_relaxed_u64(&words[tile * SORT_RADIX + d],
                              tp_sort_look_back_word(pass, kind, count));
}

/* How often the look-back polls a tile's unpublished word before it counts that tile's
 * keys itself (sort_tile_digit_count_). Tiles are numbered by league rank, and no GPU
 * promises that a block starts before those after it: an endless wait could wait on a
 * block that cannot start while the waiting ones hold the device. A ticket taken at the
 * start would order them, but puts an atomic per tile on the sort's critical path
 * (perf/results/2026-11-27-sort-look-back/README.md). The environment's
 * TENPORT_SORT_PATIENCE overrides it (tests set 1 to take the counting path at every
 * wait). */
#define SORT_LB_PATIENCE 4096

static int tp_sort_look_back_patience(void) {
  const char *v = getenv("TENPORT_SORT_PATIENCE");
  int patience = v ? atoi(v) : 0;
  return patience > 0 ? patience : SORT_LB_PATIENCE;
}

/* Whether tiles after the first publish inclusive counts. The environment's
 * TENPORT_SORT_AGGREGATES_ONLY=1 turns them off, so that every look-back walks back to
 * tile 0, across many windows (tests). */
static int tp_sort_look_back_inclusive(void) {
  const char *v = getenv("TENPORT_SORT_AGGREGATES_ONLY");
  return !(v && atoi(v) == 1);
}

/* Words a look-back reads at once: the walk back over tiles that have published waits
 * out one memory round trip per window, not per tile. 4 was the fastest: 16 spills
 * registers, and 8 was slower than 4. */
#ifndef SORT_LB_WINDOW
#define SORT_LB_WINDOW 4
#endif

/* Walks back from tile *p, adding digit d's published counts to *before, until a tile
 * whose word holds an inclusive count (returns 1), or one whose word is still
 * unpublished after `patience` polls (returns 0, *p is that tile). A published word
 * only goes from an aggregate to an inclusive count, so either read of it is right. */
TP_DEVICE int tp_sort_look_back_walk(const uint64_t *words, int64_t *p, int d, int pass,
                                     int patience, uint64_t *before) {
  const uint64_t aggregate = (uint64_t)((pass << 2) | SORT_LB_AGGREGATE);
  const uint64_t inclusive = (uint64_t)((pass << 2) | SORT_LB_INCLUSIVE);
  for (;;) {
    uint64_t w[SORT_LB_WINDOW];
    TP_UNROLL for (int j = 0; j < SORT_LB_WINDOW; ++j) /* tile 0's count is inclusive */
        w[j] = *p - j >= 0 ? tp_atomic_load_relaxed_u64(&words[(*p - j) * SORT_RADIX + d]) : 0;
    TP_UNROLL for (int j = 0; j < SORT_LB_WINDOW; ++j) {
      uint64_t tag = w[j] >> SORT_LB_TAG_SHIFT;
      for (int poll = 1; poll < patience && tag != aggregate && tag != inclusive; ++poll) {
        w[j] = tp_atomic_load_relaxed_u64(&words[*p * SORT_RADIX + d]);
        tag = w[j] >> SORT_LB_TAG_SHIFT;
      }
      if (tag != aggregate && tag != inclusive)
        return 0;
      *before += w[j] & SORT_LB_COUNT_MASK;
      if (tag == inclusive)
        return 1;
      --*p;
    }
  }
}

/* The tables of one onesweep sort, in one temporary: the look-back words, and every
 * pass's digit counts and starts. */
typedef struct tp_sort_onesweep_tables {
  void *block;
  uint64_t *look_back; /* [tiles][RADIX] */
  uint64_t *counts;    /* [passes][RADIX] */
  int64_t *starts;     /* [passes][RADIX] */
} tp_sort_onesweep_tables;

static tp_status tp_sort_onesweep_tables_make(tp_space *space, const tp_tile_plan *plan, int passes,
                                              tp_sort_onesweep_tables *t) {
  const size_t words = (size_t)plan->tiles * SORT_RADIX, table = (size_t)passes * SORT_RADIX;
  const size_t bytes = sizeof(uint64_t) * (words + 2 * table);
  memset(t, 0, sizeof *t);
  TP_TRY(tp_temp_alloc(space, bytes, &t->block));
  t->look_back = (uint64_t *)t->block;
  t->counts = t->look_back + words;
  t->starts = (int64_t *)(t->counts + table);
  tp_status st = tp_memset(space, t->block, 0, bytes);
  if (st != TP_SUCCESS) {
    tp_temp_release(space, t->block);
    t->block = NULL;
  }
  return st;
}

static void tp_sort_onesweep_tables_free(tp_space *space, tp_sort_onesweep_tables *t) {
  tp_temp_release(space, t->block);
  t->block = NULL;
}

/* Teams of the counting kernel: a few per multiprocessor, each chunk at most 2^31 keys
 * (its counts are 32-bit), at most one per tile. */
static int64_t tp_sort_count_teams(tp_space *space, const tp_tile_plan *plan, int64_t n) {
  tp_space_info info;
  int64_t teams =
      4 * (int64_t)(tp_space_get_info(space, &info) == TP_SUCCESS ? info.compute_units : 1);
  teams = tp_max_i64(teams, tp_ceil_div_i64(n, (int64_t)1 << 31));
  return tp_max_i64(1, tp_min_i64(teams, plan->tiles));
}

typedef struct sort_digit_starts_args {
  const uint64_t *counts;
  int64_t *starts;
} sort_digit_starts_args;

/* starts = exclusive scan of counts over the digits, one team per pass. */
TP_TEAM_KERNEL(sort_digit_starts, sort_digit_starts_args, team, a) {
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  const int per = (SORT_RADIX + threads - 1) / threads;
  const int first = tid * per < SORT_RADIX ? tid * per : SORT_RADIX;
  const int last = first + per < SORT_RADIX ? first + per : SORT_RADIX;
  const uint64_t *counts = a.counts + SORT_RADIX * team->league_rank;
  int64_t *starts = a.starts + SORT_RADIX * team->league_rank;
  uint64_t mine = 0;
  for (int d = first; d < last; ++d)
    mine += counts[d];
  uint64_t prefix = tp_team_vector_exclusive_scan_u64(team, mine, NULL);
  for (int d = first; d < last; ++d) {
    starts[d] = (int64_t)prefix;
    prefix += counts[d];
  }
}

static tp_status tp_sort_digit_starts(tp_space *space, const tp_sort_onesweep_tables *t,
                                      int passes) {
  sort_digit_starts_args a;
  a.counts = t->counts, a.starts = t->starts;
  tp_tile_plan plan;
  TP_TRY(tp_plan_tiles(space, SORT_RADIX, 1, TP_TILE_TEAM, 1, &plan));
  tp_team_policy policy = tp_team_policy_make(passes, plan.team_size, plan.vector_length, 0);
  return TP_LAUNCHER(sort_digit_starts)(space, policy, a);
}

/* Onesweep pays off with many small tiles that run at once (a GPU's, and the HIP CPU
 * runtime's blocks); host spaces keep the histogram-scan-scatter passes over their few
 * large tiles. */
static int tp_sort_onesweep_wanted(tp_space *space) {
  tp_space_info info;
  return tp_space_get_info(space, &info) == TP_SUCCESS && info.is_gpu;
}

#endif
