/* How a distributed CP-ALS spreads the factor matrices: the rank at grid coordinates c
 * holds, of mode m, the rows of slab c_m; the ranks of that slab (its layer: the same
 * c_m, ordered by world rank) own equal runs of those rows, every row owned by one rank
 * of the whole world. */
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "portable/tp_error.h"

/* Rows [rows * j / q, rows * (j + 1) / q) of a slab go to layer rank j. */
static int64_t run_begin(int64_t rows, int j, int q) { return rows * j / q; }

static tp_status layer_of(tp_comm *world, const int *coords, int m, int64_t rows,
                          tpi_cp_layout *l) {
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

tp_status tpi_cp_layout_create(tp_comm *world, const tp_grid *grid, int64_t *const *bounds,
                               tpi_cp_layout *layout) {
  memset(layout, 0, sizeof *layout);
  layout->world = world;
  layout->order = grid->order;
  int coords[TP_COO_MAX_ORDER];
  tpi_grid_coords(grid, tp_comm_rank(world), coords);
  tp_status st = TP_SUCCESS;
  for (int m = 0; m < grid->order && st == TP_SUCCESS; ++m) {
    layout->dims[m] = bounds[m][grid->parts[m]];
    layout->slab_begin[m] = bounds[m][coords[m]];
    layout->rows[m] = bounds[m][coords[m] + 1] - bounds[m][coords[m]];
    tpi_cp_relabel_make(layout->dims[m], 0, &layout->relabel[m]);
    st = layer_of(world, coords, m, layout->rows[m], layout);
  }
  if (st != TP_SUCCESS)
    tpi_cp_layout_free(layout);
  return st;
}

void tpi_cp_layout_free(tpi_cp_layout *layout) {
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m) {
    tp_comm_destroy(&layout->layer[m]);
    free(layout->layer_rows[m]);
    layout->layer_rows[m] = NULL;
  }
}

/* ---- the whole factors on every rank --------------------------------------------------- */

/* Every rank's owned rows of factor k (their global first rows and counts gathered first)
 * into the host model's factor k. */
static tp_status gather_factor(tp_space *space, const tpi_cp_layout *l, const tp_kruskal *local,
                               int k, tp_kruskal *model, void *buf) {
  const int P = tp_comm_size(l->world);
  const int64_t R = model->rank;
  const size_t elem = tp_dtype_size(model->dtype);
  int64_t *first = (int64_t *)malloc(sizeof(int64_t) * 3 * (size_t)P), *ones = first + P;
  int64_t *counts = first + 2 * P;
  if (!first)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", P);
  int64_t mine[2] = {l->slab_begin[k] + l->own_offset[k], l->own_rows[k] * R};
  for (int r = 0; r < P; ++r)
    ones[r] = 1;
  tp_status st = tp_comm_allgatherv_host(l->world, &mine[0], first, ones, TP_DTYPE_I64);
  if (st == TP_SUCCESS)
    st = tp_comm_allgatherv_host(l->world, &mine[1], counts, ones, TP_DTYPE_I64);
  if (st == TP_SUCCESS && mine[1] > 0)
    st = tp_copy_to_host(space, buf,
                         (const char *)local->factors[k] + elem * (size_t)(l->own_offset[k] * R),
                         elem * (size_t)mine[1]);
  char *all = (char *)buf + elem * (size_t)(l->own_rows[k] * R);
  if (st == TP_SUCCESS)
    st = tp_comm_allgatherv_host(l->world, buf, all, counts, model->dtype);
  const tpi_cp_relabel *relabel = &l->relabel[k];
  for (int64_t r = 0, at = 0; st == TP_SUCCESS && r < P; at += counts[r++]) {
    const char *from = all + elem * (size_t)at;
    if (relabel->step == 1) {
      memcpy((char *)model->factors[k] + elem * (size_t)(first[r] * R), from,
             elem * (size_t)counts[r]);
      continue;
    }
    for (int64_t row = first[r]; row < first[r] + counts[r] / R; ++row, from += elem * (size_t)R)
      memcpy((char *)model->factors[k] + elem * (size_t)(tpi_cp_relabel_index(relabel, row) * R),
             from, elem * (size_t)R);
  }
  free(first);
  return st;
}

tp_status tpi_cp_layout_gather(tp_space *space, const tpi_cp_layout *l, const tp_kruskal *local,
                               tp_kruskal *model) {
  const size_t elem = tp_dtype_size(model->dtype);
  int64_t most = 0;
  for (int k = 0; k < l->order; ++k)
    most = l->dims[k] > most ? l->dims[k] : most;
  void *buf = malloc(elem * (size_t)(2 * most * model->rank)); /* own rows, then all */
  if (!buf)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory to gather the factors");
  tp_status st = tp_copy_to_host(space, model->lambda, local->lambda, elem * (size_t)model->rank);
  for (int k = 0; k < l->order && st == TP_SUCCESS; ++k)
    st = gather_factor(space, l, local, k, model, buf);
  free(buf);
  return st;
}
