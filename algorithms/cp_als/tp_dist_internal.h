/* Inside distributed CP-ALS: the grid arithmetic, a distributed sparse tensor's state,
 * and the layout the iteration (cp_als.c) follows when factors are spread over ranks. */
#ifndef TP_DIST_INTERNAL_H
#define TP_DIST_INTERNAL_H

#include <stdint.h>

#include "tenport/distributed.h"
#include "tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* ---- the grid (cp_grid.c) ---------------------------------------------------------- */

int64_t tp_grid_size(const tp_grid *grid);
/* Mode 0 varies slowest. */
void tp_grid_coords(const tp_grid *grid, int rank, int *coords);
int tp_grid_rank(const tp_grid *grid, const int *coords);

/* ---- how the factors are spread (cp_layout.c) ----------------------------------------
 * For each mode: the rows this rank holds (its slab: global rows slab_begin ..
 * slab_begin + rows - 1), the run of them it owns (solves and sends), and the layer
 * (the ranks holding the same slab), with every layer rank's owned row count. */
typedef struct tp_cp_layout {
  tp_comm *world;
  int order;
  int64_t dims[TP_COO_MAX_ORDER]; /* the whole tensor's */
  int64_t slab_begin[TP_COO_MAX_ORDER], rows[TP_COO_MAX_ORDER];
  int64_t own_offset[TP_COO_MAX_ORDER], own_rows[TP_COO_MAX_ORDER]; /* within the slab */
  tp_comm *layer[TP_COO_MAX_ORDER];
  int64_t *layer_rows[TP_COO_MAX_ORDER]; /* owned rows of each layer rank */
} tp_cp_layout;

/* The layout of a grid for a tensor whose slab boundaries per mode are bounds[m]
 * (parts[m] + 1 values): the layers are split from world. Collective. */
tp_status tp_cp_layout_create(tp_comm *world, const tp_grid *grid,
                              int64_t *const *bounds, tp_cp_layout *layout);
void tp_cp_layout_free(tp_cp_layout *layout);

/* Every rank's owned rows of the local model (this rank's slabs, in the space) into the
 * host model of the whole dims on every rank; lambda is copied. Collective. */
tp_status tp_cp_layout_gather(tp_space *space, const tp_cp_layout *layout,
                              const tp_kruskal *local, tp_kruskal *model);

/* ---- a distributed sparse tensor (cp_dist_coo.c) ------------------------------------ */

struct tp_dist_coo {
  tp_comm *comm;                      /* the caller's; not owned */
  tp_grid grid;
  int coords[TP_COO_MAX_ORDER];
  tp_dtype dtype;
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
  int64_t nnz, local_nnz, min_local_nnz, max_local_nnz;
  double norm2;                       /* ||X||^2 of the whole tensor */
  int64_t *bounds[TP_COO_MAX_ORDER];  /* slab boundaries, parts[m] + 1 each */
  tp_cp_layout layout;
  tp_coo block;                       /* host: the block, local indices */
  tp_flycoo *fly;                     /* the block in the space */
  double exchange_seconds, build_seconds;
};

TP_EXTERN_C_END

#endif
