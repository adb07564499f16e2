/* A dense tensor spread over a grid of ranks: each mode cut into slabs as even as the
 * shape allows, each rank holding its block (slab c_m of every mode) in its space, read
 * from a .npy by positioned reads, made in place (a planted low-rank tensor), or filled
 * by the caller; and CP-ALS on it, each rank running tenport's dense MTTKRP (BLOCKED and
 * the partial-contraction sweep included) on its block. */
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "portable/tp_clock.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "algorithms/dense/tp_random_internal.h"
#include "portable/tp_error.h"

struct tp_dist_dense {
  tp_comm *comm; /* the caller's; not owned */
  tp_space *space;
  tp_grid grid;
  tp_dtype dtype;
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t *bounds[TP_DENSE_MAX_ORDER];
  tpi_cp_layout layout;
  tp_dense block; /* in the space; a slab without rows holds one zero row */
  double fill_seconds;
};

/* ---- making ------------------------------------------------------------------------- */

static tp_status even_bounds(tp_dist_dense *X) {
  for (int m = 0; m < X->order; ++m) {
    int p = X->grid.parts[m];
    X->bounds[m] = (int64_t *)malloc(sizeof(int64_t) * (size_t)(p + 1));
    if (!X->bounds[m])
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d slab bounds", p);
    for (int c = 0; c <= p; ++c)
      X->bounds[m][c] = tpi_even_slab_begin(X->dims[m], p, c);
  }
  return TP_SUCCESS;
}

static tp_status alloc_block(tp_dist_dense *X, tp_layout layout) {
  int64_t dims[TP_DENSE_MAX_ORDER];
  int empty = 0;
  for (int m = 0; m < X->order; ++m) {
    dims[m] = X->layout.rows[m] > 0 ? X->layout.rows[m] : 1;
    empty |= X->layout.rows[m] == 0;
  }
  TP_TRY(tp_dense_alloc(X->space, X->dtype, X->order, dims, layout, &X->block));
  return empty ? tp_memset(X->space, X->block.data, 0,
                           (size_t)tp_dense_count(&X->block) * tp_dtype_size(X->dtype))
               : TP_SUCCESS;
}

static tp_status check_shape(tp_comm *comm, tp_dtype dtype, int order, const int64_t *dims,
                             const tp_grid *grid) {
  TP_CHECK_ARG(dtype == TP_DTYPE_F32 || dtype == TP_DTYPE_F64,
               "dtype %s is not float32 or "
               "float64",
               tp_dtype_name(dtype));
  TP_CHECK_ARG(order >= 2 && order <= TP_DENSE_MAX_ORDER, "order %d is outside [2, %d]", order,
               TP_DENSE_MAX_ORDER);
  for (int m = 0; m < order; ++m)
    TP_CHECK_ARG(dims[m] >= 1, "dims[%d] = %lld, must be at least 1", m, (long long)dims[m]);
  TP_CHECK_ARG(grid->order == order, "the grid has %d modes, the tensor %d", grid->order, order);
  TP_CHECK_ARG(tpi_grid_size(grid) == tp_comm_size(comm),
               "the grid holds %lld ranks, the "
               "communicator %d",
               (long long)tpi_grid_size(grid), tp_comm_size(comm));
  return TP_SUCCESS;
}

tp_status tp_dist_dense_create(tp_comm *comm, tp_space *space, tp_dtype dtype, int order,
                               const int64_t *dims, tp_layout layout, const tp_grid *grid,
                               tp_dist_dense **X) {
  TP_CHECK_ARG(comm && space && dims && X, "comm, space, dims and X must not be NULL");
  *X = NULL;
  TP_TRY(tp_comm_agree(comm, tp_comm_check_space(comm, space)));
  tp_grid chosen;
  if (!grid)
    TP_TRY(tp_grid_choose(order, dims, tp_comm_size(comm), &chosen));
  TP_TRY(check_shape(comm, dtype, order, dims, grid ? grid : &chosen));
  tp_dist_dense *d = (tp_dist_dense *)calloc(1, sizeof *d);
  tp_status st =
      tp_comm_agree(comm, d ? TP_SUCCESS : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory"));
  if (st != TP_SUCCESS) {
    free(d);
    return st;
  }
  d->comm = comm, d->space = space, d->grid = grid ? *grid : chosen;
  d->dtype = dtype, d->order = order;
  memcpy(d->dims, dims, sizeof(int64_t) * (size_t)order);
  st = tp_comm_agree(comm, even_bounds(d));
  if (st == TP_SUCCESS)
    st = tpi_cp_layout_create(comm, &d->grid, d->bounds, &d->layout);
  if (st == TP_SUCCESS)
    st = tp_comm_agree(comm, alloc_block(d, layout));
  if (st != TP_SUCCESS) {
    tp_dist_dense_destroy(&d);
    return st;
  }
  *X = d;
  return TP_SUCCESS;
}

void tp_dist_dense_destroy(tp_dist_dense **X) {
  if (!X || !*X)
    return;
  tp_dist_dense *d = *X;
  if (d->block.data)
    tp_dense_free(d->space, &d->block);
  tpi_cp_layout_free(&d->layout);
  for (int m = 0; m < TP_DENSE_MAX_ORDER; ++m)
    free(d->bounds[m]);
  free(d);
  *X = NULL;
}

tp_dense *tp_dist_dense_block(tp_dist_dense *X) { return X ? &X->block : NULL; }

tp_comm *tpi_dist_dense_comm(const tp_dist_dense *X) { return X ? X->comm : NULL; }

tp_status tp_dist_dense_get_info(const tp_dist_dense *X, tp_dist_dense_info *info) {
  TP_CHECK_ARG(X && info, "X and info must not be NULL");
  memset(info, 0, sizeof *info);
  info->grid = X->grid, info->dtype = X->dtype, info->order = X->order;
  memcpy(info->dims, X->dims, sizeof info->dims);
  tpi_grid_coords(&X->grid, tp_comm_rank(X->comm), info->coords);
  for (int m = 0; m < X->order; ++m) {
    const tpi_cp_layout *l = &X->layout;
    info->slab_begin[m] = l->slab_begin[m], info->slab_end[m] = l->slab_begin[m] + l->rows[m];
    info->own_begin[m] = l->slab_begin[m] + l->own_offset[m];
    info->own_end[m] = info->own_begin[m] + l->own_rows[m];
  }
  info->fill_seconds = X->fill_seconds;
  return TP_SUCCESS;
}

/* ---- filling the blocks ---------------------------------------------------------------- */

/* Every rank has rows in every mode: else its block is the zero row it was made with. */
static int has_rows(const tp_dist_dense *X) {
  for (int m = 0; m < X->order; ++m)
    if (X->layout.rows[m] == 0)
      return 0;
  return 1;
}

/* The block on the host (in the block's layout) into the space. */
static tp_status upload(tp_dist_dense *X, const void *host) {
  return tp_copy_to_device(X->space, X->block.data, host,
                           (size_t)tp_dense_count(&X->block) * tp_dtype_size(X->dtype));
}

static tp_status read_my_block(tp_dist_dense *X, const char *path) {
  if (!has_rows(X))
    return TP_SUCCESS;
  size_t bytes = (size_t)tp_dense_count(&X->block) * tp_dtype_size(X->dtype);
  void *host = malloc(bytes);
  if (!host)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for a block of %zu bytes", bytes);
  tp_npy_header h;
  tp_status st = tp_npy_read_block(path, X->layout.slab_begin, X->layout.rows, X->dtype, host, &h);
  if (st == TP_SUCCESS && h.fortran_order != (X->block.layout == TP_LAYOUT_LEFT))
    st = TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "%s is in %s order, the tensor was made for the "
                  "other",
                  path, h.fortran_order ? "Fortran" : "C");
  if (st == TP_SUCCESS)
    st = upload(X, host);
  free(host);
  return st;
}

tp_status tp_dist_dense_read_npy(tp_dist_dense *X, const char *path) {
  TP_CHECK_ARG(X && path, "X and path must not be NULL");
  double t0 = tp_wall_seconds();
  TP_TRY(tp_comm_agree(X->comm, read_my_block(X, path)));
  X->fill_seconds = tp_wall_seconds() - t0;
  return TP_SUCCESS;
}

static tp_status plant_my_block(tp_dist_dense *X, int64_t rank, double noise, uint64_t seed) {
  tp_kruskal truth;
  tp_dense host;
  memset(&host, 0, sizeof host);
  TP_TRY(tp_kruskal_alloc(NULL, X->dtype, X->order, X->dims, rank, &truth));
  tp_status st = tp_kruskal_random(&truth, tpi_rng_planted_seed(seed));
  if (st == TP_SUCCESS && has_rows(X))
    st = tp_dense_alloc(NULL, X->dtype, X->order, X->block.dims, X->block.layout, &host);
  if (st == TP_SUCCESS && has_rows(X))
    st = tpi_dense_random_planted_block(&host, X->layout.slab_begin, &truth, noise, seed);
  if (st == TP_SUCCESS && has_rows(X))
    st = upload(X, host.data);
  if (host.data)
    tp_dense_free(NULL, &host);
  tp_kruskal_free(NULL, &truth);
  return st;
}

tp_status tp_dist_dense_random_planted(tp_dist_dense *X, int64_t rank, double noise,
                                       uint64_t seed) {
  TP_CHECK_ARG(X && rank >= 1, "X is NULL or the rank is below 1");
  double t0 = tp_wall_seconds();
  TP_TRY(tp_comm_agree(X->comm, plant_my_block(X, rank, noise, seed)));
  X->fill_seconds = tp_wall_seconds() - t0;
  return TP_SUCCESS;
}

tp_status tp_dist_dense_create_npy(tp_comm *comm, tp_space *space, const char *path, tp_dtype dtype,
                                   const tp_grid *grid, tp_dist_dense **X) {
  TP_CHECK_ARG(comm && path && X, "comm, path and X must not be NULL");
  *X = NULL;
  tp_input *in = NULL;
  tp_npy_header h;
  memset(&h, 0, sizeof h);
  tp_status st = tp_input_open(&in, path);
  if (st == TP_SUCCESS)
    st = tp_npy_peek_header(in, &h);
  tp_input_close(&in);
  TP_TRY(tp_comm_agree(comm, st));
  if (dtype != TP_DTYPE_F32 && dtype != TP_DTYPE_F64) /* the file's float type */
    dtype = h.dtype == TP_DTYPE_F32 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  TP_TRY(tp_dist_dense_create(comm, space, dtype, h.ndim, h.shape,
                              h.fortran_order ? TP_LAYOUT_LEFT : TP_LAYOUT_RIGHT, grid, X));
  st = tp_dist_dense_read_npy(*X, path);
  if (st != TP_SUCCESS)
    tp_dist_dense_destroy(X);
  return st;
}

/* ---- CP-ALS ------------------------------------------------------------------------------ */

tp_status tp_cp_als_dense_dist(tp_space *space, tp_dist_dense *X, const tp_cp_als_options *opts,
                               tp_kruskal *model, tp_cp_als_result *result) {
  TP_CHECK_ARG(space && X && opts && model, "space, X, opts and model must not be NULL");
  TP_TRY(tp_kruskal_check(model));
  TP_CHECK_ARG(model->order == X->order && model->dtype == X->dtype && model->rank == opts->rank,
               "the model must be %s, of order %d and rank %lld", tp_dtype_name(X->dtype), X->order,
               (long long)opts->rank);
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(model->dims[k] == X->dims[k], "model dims[%d] = %lld, the tensor's %lld", k,
                 (long long)model->dims[k], (long long)X->dims[k]);
  tp_kruskal local;
  memset(&local, 0, sizeof local);
  TP_TRY(tp_comm_agree(
      X->comm, tp_kruskal_alloc(space, X->dtype, X->order, X->block.dims, opts->rank, &local)));
  tpi_cp_dense_source source;
  tpi_cp_tensor t = tpi_cp_dense_tensor(&source, &X->block, &opts->mttkrp);
  t.layout = &X->layout;
  t.nvecs = NULL; /* of the block only: the start is given (opts->init) instead */
  tp_cp_als_result res;
  memset(&res, 0, sizeof res);
  tp_status st = tpi_cp_als_run(space, &t, opts, &local, &res);
  if (st == TP_SUCCESS)
    st = tpi_cp_layout_gather(space, &X->layout, &local, model);
  tp_kruskal_free(space, &local);
  if (st == TP_SUCCESS && result)
    *result = res;
  return st;
}
