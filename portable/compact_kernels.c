/* Stream compaction: tile counts of the kept elements, a scan of the counts, then each
 * tile writes its kept elements from its offset, in order. */
/* generates: compact_32_scatter compact_64_scatter compact_count compact_indices_scatter */
#include "portable/tp_portable.h"
#include "portable/tp_tiling.h"

enum { COMPACT_ITEMS = 16 };

typedef struct compact_count_args {
  const uint8_t *flags;
  int64_t *tile_counts;
  int64_t n, tile;
} compact_count_args;

TP_TEAM_KERNEL(compact_count, compact_count_args, team, a) {
  int64_t begin = team->league_rank * a.tile;
  int64_t end = tp_min_i64(begin + a.tile, a.n);
  int64_t kept = 0;
  TP_TEAM_VECTOR_FOR_SUM(team, i, begin, end, kept) { kept += a.flags[i] != 0; }
  kept = tp_vector_sum_i64(team, kept);
  kept = tp_team_sum_i64(team, kept);
  TP_TEAM_SINGLE(team) { a.tile_counts[team->league_rank] = kept; }
}

/* Positions of a round's kept elements: flags are staged striped (coalesced) and read
 * blocked, so each thread owns COMPACT_ITEMS consecutive elements. */
typedef struct compact_round {
  int first;    /* first element of the thread's block within the round */
  int64_t next; /* output position of the thread's first kept element */
  int64_t kept; /* elements the whole round keeps */
} compact_round;

TP_DEVICE compact_round compact_plan_round(const tp_team *team, const uint8_t *flags, int64_t base,
                                           int64_t len, int64_t carry) {
  uint8_t *stage = (uint8_t *)team->scratch;
  const int threads = team->team_size * team->vector_length;
  const int tid = team->team_rank * team->vector_length + team->vector_lane;
  TP_UNROLL for (int k = 0; k < COMPACT_ITEMS; ++k) {
    int e = k * threads + tid;
    stage[e] = e < len ? (uint8_t)(flags[base + e] != 0) : (uint8_t)0;
  }
  tp_team_barrier(team);
  compact_round r;
  r.first = tid * COMPACT_ITEMS;
  int64_t mine = 0;
  TP_UNROLL for (int k = 0; k < COMPACT_ITEMS; ++k) mine += stage[r.first + k];
  r.next = carry + tp_team_vector_exclusive_scan_i64(team, mine, &r.kept);
  return r;
}

#define SCATTER_NAME compact_indices_scatter
#define SCATTER_T int64_t
#define SCATTER_VALUE e
#include "portable/compact_scatter_template.h"

#define SCATTER_NAME compact_32_scatter
#define SCATTER_T uint32_t
#define SCATTER_VALUE a.in[e]
#include "portable/compact_scatter_template.h"

#define SCATTER_NAME compact_64_scatter
#define SCATTER_T uint64_t
#define SCATTER_VALUE a.in[e]
#include "portable/compact_scatter_template.h"

/* Counts and offsets of every tile; *offsets is a temporary of the space. */
static tp_status compact_offsets(tp_space *space, const uint8_t *flags, int64_t n,
                                 const tp_tile_plan *plan, int64_t **offsets, int64_t *count) {
  TP_TRY(tp_temp_alloc(space, sizeof(int64_t) * (size_t)plan->tiles, (void **)offsets));
  compact_count_args c;
  c.flags = flags;
  c.tile_counts = *offsets;
  c.n = n;
  c.tile = plan->tile;
  tp_team_policy p = tp_team_policy_make(plan->tiles, plan->team_size, plan->vector_length, 0);
  tp_status st = compact_count_launch(space, p, c);
  if (st == TP_SUCCESS)
    st = tp_exclusive_scan_i64(space, *offsets, *offsets, plan->tiles, count);
  if (st != TP_SUCCESS)
    tp_temp_release(space, *offsets);
  return st;
}

static tp_status compact_check(tp_space *space, const void *in, const uint8_t *flags, int64_t n,
                               const void *out, const int64_t *count, int needs_in) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(n >= 0, "element count %lld is negative", (long long)n);
  TP_CHECK_ARG(count, "count must not be NULL");
  TP_CHECK_ARG(n == 0 || (flags && out && (in || !needs_in)), "NULL input or output array");
  return TP_SUCCESS;
}

/* Runs one of the scatter kernels above; `which` selects it. */
enum { COMPACT_INDICES, COMPACT_32, COMPACT_64 };

static tp_status compact_run(tp_space *space, int which, const void *in, const uint8_t *flags,
                             int64_t n, void *out, int64_t *count) {
  TP_TRY(compact_check(space, in, flags, n, out, count, which != COMPACT_INDICES));
  if (n == 0)
    return tp_memset(space, count, 0, sizeof *count);
  tp_tile_plan plan;
  TP_TRY(tp_plan_tiles(space, n, COMPACT_ITEMS, TP_TILE_TEAM, 1, &plan));
  int64_t *offsets = NULL;
  TP_TRY(compact_offsets(space, flags, n, &plan, &offsets, count));
  tp_team_policy p =
      tp_team_policy_make(plan.tiles, plan.team_size, plan.vector_length, (size_t)plan.round);
  tp_status st;
  if (which == COMPACT_INDICES) {
    compact_indices_scatter_args a;
    a.in = NULL, a.flags = flags, a.out = (int64_t *)out, a.tile_offsets = offsets;
    a.n = n, a.tile = plan.tile;
    st = compact_indices_scatter_launch(space, p, a);
  } else if (which == COMPACT_32) {
    compact_32_scatter_args a;
    a.in = (const uint32_t *)in, a.flags = flags, a.out = (uint32_t *)out;
    a.tile_offsets = offsets, a.n = n, a.tile = plan.tile;
    st = compact_32_scatter_launch(space, p, a);
  } else {
    compact_64_scatter_args a;
    a.in = (const uint64_t *)in, a.flags = flags, a.out = (uint64_t *)out;
    a.tile_offsets = offsets, a.n = n, a.tile = plan.tile;
    st = compact_64_scatter_launch(space, p, a);
  }
  tp_temp_release(space, offsets);
  return st;
}

tp_status tp_compact_indices(tp_space *space, const uint8_t *flags, int64_t n, int64_t *out,
                             int64_t *count) {
  return compact_run(space, COMPACT_INDICES, NULL, flags, n, out, count);
}

#define TP_DEFINE_COMPACT(sfx, T, which)                                                    \
  tp_status tp_compact_##sfx(tp_space *space, const T *in, const uint8_t *flags, int64_t n, \
                             T *out, int64_t *count) {                                      \
    return compact_run(space, which, in, flags, n, out, count);                             \
  }

TP_DEFINE_COMPACT(u32, uint32_t, COMPACT_32)
TP_DEFINE_COMPACT(i32, int32_t, COMPACT_32)
TP_DEFINE_COMPACT(f32, float, COMPACT_32)
TP_DEFINE_COMPACT(u64, uint64_t, COMPACT_64)
TP_DEFINE_COMPACT(i64, int64_t, COMPACT_64)
TP_DEFINE_COMPACT(f64, double, COMPACT_64)
