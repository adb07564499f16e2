/* Tiling of one-dimensional primitives (scan, compaction, sort): the array is cut into
 * tiles, one team each; a team walks its tile in rounds of team_threads * items
 * elements staged through team scratch. GPUs use one round per tile (many small
 * tiles); CPUs use few large tiles, one or a few per thread. */
#ifndef TP_TILING_H
#define TP_TILING_H

#include "portable/tp_portable.h"

typedef struct tp_tile_plan {
  int team_size, vector_length;
  int64_t round; /* elements per round: team threads x lanes x items */
  int64_t tile;  /* elements per tile, a multiple of round */
  int64_t tiles;
} tp_tile_plan;

/* GPU teams: gpu_team threads (8 unless a primitive wants more) of 32 lanes, walking
 * gpu_rounds rounds per tile. */
enum { TP_TILE_TEAM = 8, TP_TILE_VECTOR = 32 };

static inline tp_status tp_plan_tiles(tp_space *space, int64_t n, int items, int gpu_team,
                                      int gpu_rounds, tp_tile_plan *plan) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  if (info.is_gpu) {
    plan->team_size = gpu_team;
    plan->vector_length =
        TP_TILE_VECTOR < info.max_vector_length ? TP_TILE_VECTOR : info.max_vector_length;
    plan->round = (int64_t)plan->team_size * plan->vector_length * items;
    plan->tile = plan->round * gpu_rounds;
  } else {
    plan->team_size = 1;
    plan->vector_length = 1;
    plan->round = items;
    int64_t per_thread = tp_ceil_div_i64(n, 4 * (int64_t)info.compute_units);
    /* at most 2^31 elements, so a tile's counts fit 32 bits */
    int64_t tile = tp_min_i64(tp_max_i64(per_thread, 4096), (int64_t)1 << 31);
    plan->tile = tile / plan->round * plan->round;
  }
  plan->tiles = n > 0 ? tp_ceil_div_i64(n, plan->tile) : 0;
  return TP_SUCCESS;
}

#endif
