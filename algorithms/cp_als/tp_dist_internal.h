/* Inside distributed CP-ALS: the grid arithmetic, a distributed sparse tensor's state,
 * and the layout the iteration (cp_als.c) follows when factors are spread over ranks. */
#ifndef TP_DIST_INTERNAL_H
#define TP_DIST_INTERNAL_H

#include <stdint.h>

#include "tenport/distributed.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* The communicator a distributed dense tensor was made on (cp_dist_dense.c). */
tp_comm *tpi_dist_dense_comm(const tp_dist_dense *X);
/* The first index of slab c of a mode of n indices cut into parts even slabs, as a
 * distributed dense tensor cuts them (c = parts: n). */
static inline int64_t tpi_even_slab_begin(int64_t n, int parts, int c) { return n * c / parts; }

/* The ranks' shares of one sparse tensor agree on its order, dtype and dims; else every
 * rank fails with the same message (cp_dist_coo.c). Collective. */
tp_status tpi_coo_shares_agree(tp_comm *comm, const tp_coo *share);

/* ---- the grid (cp_grid.c) ---------------------------------------------------------- */

int64_t tpi_grid_size(const tp_grid *grid);
/* Mode 0 varies slowest. */
void tpi_grid_coords(const tp_grid *grid, int rank, int *coords);
int tpi_grid_rank(const tp_grid *grid, const int *coords);

/* ---- relabelled indices (cp_relabel.c) ----------------------------------------------
 * A distributed sparse tensor's split modes number their indices anew before they are
 * cut into slabs: index i of a mode of count indices is row (i step) mod count of the
 * factors inside CP-ALS, step near count / golden ratio and prime to count. A power law
 * puts a tensor's heavy rows first, so natural slabs would hand one rank every heavy row:
 * its nonzeros reuse few rows, stay in cache, and it waits for the others (a 2 x 2 x 1
 * grid's heavy-row rank took half their MTTKRP time). The step spreads every run of
 * consecutive indices evenly over the slabs. Only the edges translate: the nonzeros'
 * exchange, the starting factors and the gathered answer. step 1 is the identity (modes
 * not split, or of more than 2^32 indices, or TENPORT_RELABEL=0). */
typedef struct tpi_cp_relabel {
  uint64_t count, step, inverse; /* inverse: step's inverse modulo count */
} tpi_cp_relabel;

/* The relabelling of a mode of count indices; spread = 0 gives the identity. */
void tpi_cp_relabel_make(int64_t count, int spread, tpi_cp_relabel *r);
/* Whether distributed sparse tensors spread their split modes (TENPORT_RELABEL=0: not). */
int tpi_cp_relabel_wanted(void);

/* The row inside CP-ALS of the tensor's index i, and back. */
static inline int64_t tpi_cp_relabel_row(const tpi_cp_relabel *r, int64_t i) {
  return r->step == 1 ? i : (int64_t)(((uint64_t)i * r->step) % r->count);
}
static inline int64_t tpi_cp_relabel_index(const tpi_cp_relabel *r, int64_t row) {
  return r->step == 1 ? row : (int64_t)(((uint64_t)row * r->inverse) % r->count);
}

/* ---- how the factors are spread (cp_layout.c) ----------------------------------------
 * For each mode: the rows this rank holds (its slab: global rows slab_begin ..
 * slab_begin + rows - 1), the run of them it owns (solves and sends), and the layer
 * (the ranks holding the same slab), with every layer rank's owned row count. */
typedef struct tpi_cp_layout {
  tp_comm *world;
  int order;
  int64_t dims[TP_COO_MAX_ORDER]; /* the whole tensor's */
  int64_t slab_begin[TP_COO_MAX_ORDER], rows[TP_COO_MAX_ORDER];
  int64_t own_offset[TP_COO_MAX_ORDER], own_rows[TP_COO_MAX_ORDER]; /* within the slab */
  tp_comm *layer[TP_COO_MAX_ORDER];
  int64_t *layer_rows[TP_COO_MAX_ORDER];          /* owned rows of each layer rank */
  struct tpi_cp_row_plan *plan[TP_COO_MAX_ORDER]; /* sparse row exchange; NULL: whole slabs */
  tpi_cp_relabel relabel[TP_COO_MAX_ORDER]; /* rows are relabelled indices (identity: dense) */
} tpi_cp_layout;

/* The layout of a grid for a tensor whose slab boundaries per mode are bounds[m]
 * (parts[m] + 1 values): the layers are split from world. Collective. Rows are indices
 * (identity relabellings) unless the caller sets layout->relabel after. */
tp_status tpi_cp_layout_create(tp_comm *world, const tp_grid *grid, int64_t *const *bounds,
                               tpi_cp_layout *layout);
void tpi_cp_layout_free(tpi_cp_layout *layout);

/* Every rank's owned rows of the local model (this rank's slabs, in the space) into the
 * host model of the whole dims on every rank, each row at its index; lambda is copied.
 * Collective. */
tp_status tpi_cp_layout_gather(tp_space *space, const tpi_cp_layout *layout,
                               const tp_kruskal *local, tp_kruskal *model);

/* ---- the sparse row exchange (cp_row_exchange.c, cp_rows_kernels.c) ---------------------------
 * A rank's nonzeros touch few rows of its slab when the tensor is sparse and skewed:
 * instead of reducing and gathering whole slabs, each rank sends the owners only the
 * rows it touches, and receives only those. Per mode, the layer's ranks agree on it when
 * it moves less than half of what a whole slab does over NCCL, and always through MPI,
 * whose reductions run on one thread (TENPORT_ROW_EXCHANGE=sparse or dense forces the
 * choice). */
typedef struct tpi_cp_row_plan {
  int64_t touched;                  /* rows of the slab this rank touches (sorted, by owner) */
  int64_t received;                 /* rows it receives as owner, grouped by source rank */
  int64_t *touched_rows;            /* space: slab rows */
  int64_t *received_rows;           /* space: rows within the owned run */
  int64_t *received_from;           /* host, q + 1: where each source's rows start */
  int64_t *send_elems, *recv_elems; /* host, q each: rows x R per layer rank */
  void *touched_buf, *received_buf; /* space: touched x R, received x R values */
} tpi_cp_row_plan;

/* The plans of every mode of X's layout for rank R (collective over the layers). */
struct tp_dist_coo;
tp_status tpi_cp_row_plans_create(tp_space *space, struct tp_dist_coo *X, int64_t R);
void tpi_cp_row_plans_free(tp_space *space, tpi_cp_layout *layout);

/* G (the slab's partial MTTKRP rows) summed into G_own (own_rows rows) on their owners. */
tp_status tpi_cp_rows_reduce(tp_space *space, const tpi_cp_layout *l, int n, tp_dtype dtype,
                             int64_t R, const void *G, void *G_own);
/* The owners' rows of factor n (the slab's rows, this rank's own run at own_offset) to
 * every rank of the layer that touches them. */
tp_status tpi_cp_rows_share(tp_space *space, const tpi_cp_layout *l, int n, tp_dtype dtype,
                            int64_t R, void *factor);

/* Row moves in the space (cp_rows_kernels.c): packed row k = src row rows[k]; dst row rows[k] =
 * (add: +=) packed row k. Rows of R values of dtype f32 or f64. */
tp_status tpi_cp_rows_gather(tp_space *space, tp_dtype dtype, const void *src, const int64_t *rows,
                             int64_t count, int64_t R, void *packed);
tp_status tpi_cp_rows_scatter(tp_space *space, tp_dtype dtype, const void *packed,
                              const int64_t *rows, int64_t count, int64_t R, void *dst, int add);

/* ---- a distributed sparse tensor (cp_dist_coo.c) ------------------------------------ */

struct tp_dist_coo {
  tp_comm *comm; /* the caller's; not owned */
  tp_grid grid;
  int coords[TP_COO_MAX_ORDER];
  tp_dtype dtype;
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
  int64_t nnz, local_nnz, min_local_nnz, max_local_nnz;
  double norm2;                      /* ||X||^2 of the whole tensor */
  double norm2_scaled, norm2_scale;  /* ||X s||^2 and s (portable/tp_norm_scale.h) */
  int64_t *bounds[TP_COO_MAX_ORDER]; /* slab boundaries (of rows), parts[m] + 1 each */
  tpi_cp_relabel relabel[TP_COO_MAX_ORDER];
  tpi_cp_layout layout;
  tp_coo block;   /* host: the block, local indices */
  tp_flycoo *fly; /* the block in the space */
  double exchange_seconds, build_seconds;
};

TP_EXTERN_C_END

#endif
