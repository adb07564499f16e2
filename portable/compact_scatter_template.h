/* One scatter kernel of the stream compaction: each tile writes its kept elements from
 * its offset, in order. compact_kernels.c includes this file once per kernel with
 *   SCATTER_NAME   the kernel's name
 *   SCATTER_T      the type of the elements written
 *   SCATTER_VALUE  what is written for kept element e (an expression of e and the
 *                  kernel's arguments a: e itself, or a.in[e])
 * and undefines them at its end.
 * generates: compact_indices_scatter compact_32_scatter compact_64_scatter (the kernels)
 * and their argument types compact_indices_scatter_args compact_32_scatter_args
 * compact_64_scatter_args */

#define SCATTER_ARGS TP_PASTE(SCATTER_NAME, _args)

typedef struct SCATTER_ARGS {
  const SCATTER_T *in;
  const uint8_t *flags;
  SCATTER_T *out;
  const int64_t *tile_offsets;
  int64_t n, tile;
} SCATTER_ARGS;

TP_TEAM_KERNEL(SCATTER_NAME, SCATTER_ARGS, team, a) {
  const uint8_t *stage = (const uint8_t *)team->scratch;
  const int64_t round = (int64_t)team->team_size * team->vector_length * COMPACT_ITEMS;
  const int64_t tile_begin = team->league_rank * a.tile;
  const int64_t tile_end = tp_min_i64(tile_begin + a.tile, a.n);
  int64_t carry = a.tile_offsets[team->league_rank];
  for (int64_t base = tile_begin; base < tile_end; base += round) {
    int64_t len = tp_min_i64(round, tile_end - base);
    compact_round r = compact_plan_round(team, a.flags, base, len, carry);
    for (int k = 0; k < COMPACT_ITEMS; ++k)
      if (stage[r.first + k]) {
        int64_t e = base + r.first + k;
        a.out[r.next++] = SCATTER_VALUE;
      }
    carry += r.kept;
    tp_team_barrier(team);
  }
}

#undef SCATTER_ARGS
#undef SCATTER_NAME
#undef SCATTER_T
#undef SCATTER_VALUE
