/* How a distributed CP-ALS spreads the factor matrices: the rank at grid coordinates c
 * holds, of mode m, the rows of slab c_m; the ranks of that slab (its layer: the same
 * c_m, ordered by world rank) own equal runs of those rows, every row owned by one rank
 * of the whole world. */
#include <stdlib.h>
#include <string.h>

#include "tp_dist_internal.h"
#include "tp_error.h"

/* Rows [rows * j / q, rows * (j + 1) / q) of a slab go to layer rank j. */
static int64_t run_begin(int64_t rows, int j, int q) { return rows * j / q; }

static tp_status layer_of(tp_comm *world, const int *coords, int m, int64_t rows,
                          tp_cp_layout *l) {
  TP_TRY(tp_comm_split(world, coords[m], tp_comm_rank(world), &l->layer[m]));
  int q = tp_comm_size(l->layer[m]), j = tp_comm_rank(l->layer[m]);
  l->layer_rows[m] = (int64_t *)malloc(sizeof(int64_t) * (size_t)q);
  if (!l->layer_rows[m])
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for a layer of %d ranks", q);
  for (int k = 0; k < q; ++k)
    l->layer_rows[m][k] = run_begin(rows, k + 1, q) - run_begin(rows, k, q);
  l->own_offset[m] = run_begin(rows, j, q);
  l->own_rows[m] = l->layer_rows[m][j];
  return TP_SUCCESS;
}

tp_status tp_cp_layout_create(tp_comm *world, const tp_grid *grid,
                              int64_t *const *bounds, tp_cp_layout *layout) {
  memset(layout, 0, sizeof *layout);
  layout->world = world;
  layout->order = grid->order;
  int coords[TP_COO_MAX_ORDER];
  tp_grid_coords(grid, tp_comm_rank(world), coords);
  tp_status st = TP_SUCCESS;
  for (int m = 0; m < grid->order && st == TP_SUCCESS; ++m) {
    layout->dims[m] = bounds[m][grid->parts[m]];
    layout->slab_begin[m] = bounds[m][coords[m]];
    layout->rows[m] = bounds[m][coords[m] + 1] - bounds[m][coords[m]];
    st = layer_of(world, coords, m, layout->rows[m], layout);
  }
  if (st != TP_SUCCESS)
    tp_cp_layout_free(layout);
  return st;
}

void tp_cp_layout_free(tp_cp_layout *layout) {
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m) {
    tp_comm_destroy(&layout->layer[m]);
    free(layout->layer_rows[m]);
    layout->layer_rows[m] = NULL;
  }
}
