/* A sparse tensor spread over a grid of ranks (the medium-grained decomposition): every
 * split mode's indices relabelled (cp_relabel.c) and cut into slabs of about equal
 * nonzero counts (from the histogram of all ranks' shares), the nonzeros sent to the rank of their block in one exchange, the
 * duplicates summed there, and the block built as FLYCOO with indices local to its
 * slabs. Every step ends with an agreement, so a rank that failed never leaves the others
 * waiting. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_clock.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "portable/tp_norm_scale.h"
#include "algorithms/sparse/tp_sparse_internal.h"

/* ---- the shape every rank must share ------------------------------------------------- */

/* order, dtype and dims the same on every rank: their minima equal their maxima. */
tp_status tpi_coo_shares_agree(tp_comm *comm, const tp_coo *share) {
  int64_t v[2 + TP_COO_MAX_ORDER], lo[2 + TP_COO_MAX_ORDER];
  memset(v, 0, sizeof v);
  v[0] = share->order, v[1] = share->dtype;
  for (int m = 0; m < share->order; ++m)
    v[2 + m] = share->dims[m];
  memcpy(lo, v, sizeof v);
  TP_TRY(tp_comm_allreduce_host(comm, v, 2 + TP_COO_MAX_ORDER, TP_DTYPE_I64, TP_COMM_MAX));
  TP_TRY(tp_comm_allreduce_host(comm, lo, 2 + TP_COO_MAX_ORDER, TP_DTYPE_I64, TP_COMM_MIN));
  if (memcmp(v, lo, sizeof v) != 0)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "the ranks' shares disagree on the order, "
                    "dtype or dims (rank %d: order %d, %s, dims[0] = %lld)",
                    tp_comm_rank(comm), share->order, tp_dtype_name(share->dtype),
                    (long long)share->dims[0]);
  return TP_SUCCESS;
}

static tp_status check_grid(const tp_comm *comm, const tp_coo *share, const tp_grid *grid) {
  TP_CHECK_ARG(grid->order == share->order, "the grid has %d modes, the tensor %d", grid->order,
               share->order);
  TP_CHECK_ARG(tpi_grid_size(grid) == tp_comm_size(comm),
               "the grid holds %lld ranks, the "
               "communicator %d",
               (long long)tpi_grid_size(grid), tp_comm_size(comm));
  return TP_SUCCESS;
}

/* ---- slabs balanced by nonzeros ------------------------------------------------------- */

/* Boundaries of parts slabs of n indices: the first index where the nonzeros before it
 * reach k / parts of all, for k = 1 .. parts - 1. */
static void cut(const int64_t *count, int64_t n, int parts, int64_t *bounds) {
  int64_t total = 0, seen = 0, i = 0;
  for (int64_t j = 0; j < n; ++j)
    total += count[j];
  bounds[0] = 0, bounds[parts] = n;
  for (int k = 1; k < parts; ++k) {
    double target = (double)total * k / parts;
    if (total == 0) { /* nothing to balance: equal index ranges */
      bounds[k] = n * k / parts;
      continue;
    }
    while (i < n && (double)seen < target)
      seen += count[i++];
    bounds[k] = i > bounds[k - 1] ? i : bounds[k - 1];
  }
}

static tp_status slab_bounds(tp_dist_coo *X, const tp_coo *share, int m) {
  int64_t n = X->dims[m];
  int64_t *count = (int64_t *)calloc((size_t)n, sizeof *count);
  X->bounds[m] = (int64_t *)malloc(sizeof(int64_t) * (size_t)(X->grid.parts[m] + 1));
  if (!count || !X->bounds[m]) {
    free(count);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "no memory for the histogram of mode %d (%lld "
                    "indices)",
                    m, (long long)n);
  }
  for (int64_t k = 0; k < share->nnz; ++k)
    ++count[tpi_cp_relabel_row(&X->relabel[m], share->indices[m][k])];
  tp_status st = tp_comm_allreduce_host(X->comm, count, n, TP_DTYPE_I64, TP_COMM_SUM);
  if (st == TP_SUCCESS)
    cut(count, n, X->grid.parts[m], X->bounds[m]);
  free(count);
  return st;
}

/* ---- the exchange ----------------------------------------------------------------------- */

/* A nonzero on its way: its global rows (relabelled indices), then its value as a
 * double. */
static size_t record_words(int order) { return (size_t)order + 1; }

static int slab_of(const int64_t *bounds, int parts, int64_t i) {
  int lo = 0, hi = parts; /* bounds[lo] <= i < bounds[hi] */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (bounds[mid] <= i)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static int owner(const tp_dist_coo *X, const tp_coo *share, int64_t k) {
  int c[TP_COO_MAX_ORDER];
  for (int m = 0; m < X->order; ++m)
    c[m] = slab_of(X->bounds[m], X->grid.parts[m],
                   tpi_cp_relabel_row(&X->relabel[m], share->indices[m][k]));
  return tpi_grid_rank(&X->grid, c);
}

/* The share is packed in chunks on all host cores: chunk c's records for rank r follow
 * chunk c - 1's, so each rank's records keep the nonzeros' order whatever the chunking
 * (the serial build packs the same bytes). */
enum { PACK_CHUNK_MIN = 1024, PACK_CHUNKS_MAX = 256 };

typedef struct exchange {
  int *dest;                          /* share->nnz: each nonzero's rank */
  int64_t *send_counts, *recv_counts; /* per rank, in words */
  int chunks;
  int64_t *chunk_at;    /* chunks x P: words of chunk c for rank r, then where they go */
  int64_t *send, *recv; /* records; the value's word holds a double */
  int64_t received;     /* nonzeros */
} exchange;

static void exchange_free(exchange *x) {
  free(x->dest), free(x->send_counts), free(x->recv_counts), free(x->chunk_at);
  free(x->send), free(x->recv);
  memset(x, 0, sizeof *x);
}

static int64_t chunk_begin(int64_t nnz, int chunks, int c) { return nnz * c / chunks; }

/* Each nonzero's rank, and the words each chunk sends each rank. */
static void count_destinations(const tp_dist_coo *X, const tp_coo *share, exchange *x) {
  const int P = tp_comm_size(X->comm);
  const int64_t w = (int64_t)record_words(X->order);
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1))
  for (int c = 0; c < x->chunks; ++c) {
    int64_t *mine = x->chunk_at + (size_t)c * (size_t)P;
    for (int64_t k = chunk_begin(share->nnz, x->chunks, c);
         k < chunk_begin(share->nnz, x->chunks, c + 1); ++k) {
      x->dest[k] = owner(X, share, k);
      mine[x->dest[k]] += w;
    }
  }
  for (int c = 0; c < x->chunks; ++c)
    for (int r = 0; r < P; ++r)
      x->send_counts[r] += x->chunk_at[(size_t)c * (size_t)P + (size_t)r];
}

static tp_status plan(tp_dist_coo *X, const tp_coo *share, exchange *x) {
  int P = tp_comm_size(X->comm);
  size_t w = record_words(X->order);
  int64_t chunks = share->nnz / PACK_CHUNK_MIN;
  x->chunks = chunks < 1 ? 1 : chunks > PACK_CHUNKS_MAX ? PACK_CHUNKS_MAX : (int)chunks;
  x->dest = (int *)malloc(sizeof(int) * (size_t)(share->nnz ? share->nnz : 1));
  x->send_counts = (int64_t *)calloc((size_t)P, sizeof(int64_t));
  x->recv_counts = (int64_t *)calloc((size_t)P, sizeof(int64_t));
  x->chunk_at = (int64_t *)calloc((size_t)x->chunks * (size_t)P, sizeof(int64_t));
  x->send = (int64_t *)malloc(sizeof(int64_t) * w * (size_t)(share->nnz ? share->nnz : 1));
  if (!x->dest || !x->send_counts || !x->recv_counts || !x->chunk_at || !x->send)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to send %lld nonzeros",
                    (long long)share->nnz);
  count_destinations(X, share, x);
  int64_t one[64], *ones = P <= 64 ? one : (int64_t *)malloc(sizeof(int64_t) * (size_t)P);
  if (!ones)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", P);
  for (int r = 0; r < P; ++r)
    ones[r] = 1;
  tp_status st =
      tp_comm_alltoallv_host(X->comm, x->send_counts, ones, x->recv_counts, ones, TP_DTYPE_I64);
  if (ones != one)
    free(ones);
  return st;
}

/* chunk_at's counts become where each chunk's records for each rank start: rank by rank,
 * chunk by chunk. */
static void chunk_offsets(int P, exchange *x) {
  int64_t at = 0;
  for (int r = 0; r < P; ++r)
    for (int c = 0; c < x->chunks; ++c) {
      int64_t *slot = x->chunk_at + (size_t)c * (size_t)P + (size_t)r, words = *slot;
      *slot = at;
      at += words;
    }
}

static void pack(const tp_dist_coo *X, const tp_coo *share, exchange *x) {
  const int P = tp_comm_size(X->comm);
  const int64_t w = (int64_t)record_words(X->order);
  chunk_offsets(P, x);
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1))
  for (int c = 0; c < x->chunks; ++c) {
    int64_t *at = x->chunk_at + (size_t)c * (size_t)P;
    for (int64_t k = chunk_begin(share->nnz, x->chunks, c);
         k < chunk_begin(share->nnz, x->chunks, c + 1); ++k) {
      int64_t *rec = x->send + at[x->dest[k]];
      at[x->dest[k]] += w;
      for (int m = 0; m < X->order; ++m)
        rec[m] = tpi_cp_relabel_row(&X->relabel[m], share->indices[m][k]);
      double v = tpi_coo_value(share, k);
      memcpy(rec + X->order, &v, sizeof v);
    }
  }
}

static tp_status send_all(tp_dist_coo *X, const tp_coo *share, exchange *x) {
  TP_TRY(plan(X, share, x));
  pack(X, share, x);
  int64_t words = 0;
  for (int r = 0; r < tp_comm_size(X->comm); ++r)
    words += x->recv_counts[r];
  x->recv = (int64_t *)malloc(sizeof(int64_t) * (size_t)(words ? words : 1));
  if (!x->recv)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to receive %lld nonzeros",
                    (long long)(words / (int64_t)record_words(X->order)));
  x->received = words / (int64_t)record_words(X->order);
  return tp_comm_alltoallv_host(X->comm, x->send, x->send_counts, x->recv, x->recv_counts,
                                TP_DTYPE_I64);
}

/* The received nonzeros as the block: indices local to the slabs, duplicates summed. A
 * slab without rows still gets dims 1 (a COO tensor's dims are at least 1); no nonzero
 * falls in it. */
static tp_status unpack(tp_dist_coo *X, const exchange *x) {
  int64_t dims[TP_COO_MAX_ORDER];
  const tpi_cp_layout *l = &X->layout;
  for (int m = 0; m < X->order; ++m)
    dims[m] = l->rows[m] > 0 ? l->rows[m] : 1;
  TP_TRY(tpi_coo_host_alloc(X->dtype, X->order, dims, x->received, &X->block));
  size_t w = record_words(X->order);
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t k = 0; k < x->received; ++k) {
    const int64_t *rec = x->recv + (size_t)k * w;
    for (int m = 0; m < X->order; ++m)
      X->block.indices[m][k] = rec[m] - l->slab_begin[m];
    double v;
    memcpy(&v, rec + X->order, sizeof v);
    tpi_coo_set_value(&X->block, k, v);
  }
  int64_t merged = 0;
  return tp_coo_sum_duplicates(&X->block, &merged);
}

/* ---- the whole tensor's figures ------------------------------------------------------- */

/* The counts, and ||X||^2 (with ||X s||^2 and s for a tensor of extreme units:
 * portable/tp_norm_scale.h, s from the largest |value| over the ranks). */
static tp_status totals(tp_dist_coo *X) {
  int64_t n[3] = {X->block.nnz, X->block.nnz, -X->block.nnz};
  double norm2 = tp_coo_norm2(&X->block), max_abs = tpi_coo_max_abs(&X->block);
  X->local_nnz = X->block.nnz;
  TP_TRY(tp_comm_allreduce_host(X->comm, n, 1, TP_DTYPE_I64, TP_COMM_SUM));
  TP_TRY(tp_comm_allreduce_host(X->comm, n + 1, 2, TP_DTYPE_I64, TP_COMM_MAX));
  TP_TRY(tp_comm_allreduce_host(X->comm, &norm2, 1, TP_DTYPE_F64, TP_COMM_SUM));
  TP_TRY(tp_comm_allreduce_host(X->comm, &max_abs, 1, TP_DTYPE_F64, TP_COMM_MAX));
  X->nnz = n[0], X->max_local_nnz = n[1], X->min_local_nnz = -n[2], X->norm2 = norm2;
  X->norm2_scaled = norm2, X->norm2_scale = 1.0;
  if (max_abs > 0 && !tp_norm2_is_plain(norm2)) { /* the same decision on every rank */
    X->norm2_scale = tp_scale_for_max_abs(max_abs);
    X->norm2_scaled = tpi_coo_norm2_times(&X->block, X->norm2_scale);
    TP_TRY(tp_comm_allreduce_host(X->comm, &X->norm2_scaled, 1, TP_DTYPE_F64, TP_COMM_SUM));
  }
  return TP_SUCCESS;
}

/* ---- making and ending ------------------------------------------------------------------ */

static tp_status check_share(const tp_coo *share) {
  TP_CHECK_ARG(share, "share is NULL");
  TP_TRY(tpi_coo_check_arrays(share));
  TP_CHECK_ARG(tpi_coo_dtype_ok(share->dtype),
               "the share is %s: CP-ALS takes float32 or "
               "float64",
               tp_dtype_name(share->dtype));
  return tpi_coo_check_indices(share);
}

/* The split modes are relabelled unless some rank was told not to. */
static tp_status choose_relabelling(tp_dist_coo *X) {
  int64_t wanted = tpi_cp_relabel_wanted();
  TP_TRY(tp_comm_allreduce_host(X->comm, &wanted, 1, TP_DTYPE_I64, TP_COMM_MIN));
  for (int m = 0; m < X->order; ++m)
    tpi_cp_relabel_make(X->dims[m], wanted && X->grid.parts[m] > 1, &X->relabel[m]);
  return TP_SUCCESS;
}

/* The steps whose failure on one rank every rank learns before the next collective. */
static tp_status spread(tp_dist_coo *X, const tp_coo *share, const tp_grid *grid) {
  TP_TRY(tp_comm_agree(X->comm, check_share(share)));
  TP_TRY(tpi_coo_shares_agree(X->comm, share));
  X->dtype = share->dtype, X->order = share->order;
  memcpy(X->dims, share->dims, sizeof X->dims);
  TP_TRY(check_grid(X->comm, share, grid)); /* the same verdict on every rank */
  X->grid = *grid;
  tpi_grid_coords(&X->grid, tp_comm_rank(X->comm), X->coords);
  double t0 = tp_wall_seconds();
  TP_TRY(choose_relabelling(X));
  for (int m = 0; m < X->order; ++m)
    TP_TRY(tp_comm_agree(X->comm, slab_bounds(X, share, m)));
  TP_TRY(tpi_cp_layout_create(X->comm, &X->grid, X->bounds, &X->layout));
  memcpy(X->layout.relabel, X->relabel, sizeof X->relabel);
  exchange x;
  memset(&x, 0, sizeof x);
  tp_status st = tp_comm_agree(X->comm, send_all(X, share, &x));
  if (st == TP_SUCCESS)
    st = tp_comm_agree(X->comm, unpack(X, &x));
  exchange_free(&x);
  TP_TRY(st);
  X->exchange_seconds = tp_wall_seconds() - t0;
  return totals(X);
}

static tp_status build(tp_dist_coo *X, tp_space *space, const tp_flycoo_options *opts) {
  double t0 = tp_wall_seconds();
  TP_TRY(tp_comm_agree(X->comm, tp_flycoo_create(space, &X->block, opts, &X->fly)));
  X->build_seconds = tp_wall_seconds() - t0;
  return TP_SUCCESS;
}

tp_status tp_dist_coo_create(tp_comm *comm, tp_space *space, const tp_coo *share,
                             const tp_grid *grid, const tp_flycoo_options *opts, tp_dist_coo **X) {
  TP_CHECK_ARG(comm && space && X, "comm, space and X must not be NULL");
  *X = NULL;
  TP_TRY(tp_comm_agree(comm, tp_comm_check_space(comm, space)));
  tp_dist_coo *d = (tp_dist_coo *)calloc(1, sizeof *d);
  tp_status st = d ? TP_SUCCESS : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory");
  tp_grid chosen;
  if (st == TP_SUCCESS && !grid)
    st = share && tp_coo_check(share) == TP_SUCCESS
             ? tp_grid_choose(share->order, share->dims, tp_comm_size(comm), &chosen)
             : TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "the share is not a valid tensor");
  st = tp_comm_agree(comm, st);
  if (d)
    d->comm = comm;
  if (st == TP_SUCCESS)
    st = spread(d, share, grid ? grid : &chosen);
  if (st == TP_SUCCESS)
    st = build(d, space, opts);
  if (st != TP_SUCCESS) {
    tp_dist_coo_destroy(&d);
    return st;
  }
  *X = d;
  return TP_SUCCESS;
}

void tp_dist_coo_destroy(tp_dist_coo **X) {
  if (!X || !*X)
    return;
  tp_dist_coo *d = *X;
  tp_flycoo_destroy(&d->fly);
  tpi_coo_host_free(&d->block);
  tpi_cp_layout_free(&d->layout);
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m)
    free(d->bounds[m]);
  free(d);
  *X = NULL;
}

tp_status tp_dist_coo_get_info(const tp_dist_coo *X, tp_dist_coo_info *info) {
  TP_CHECK_ARG(X && info, "X and info must not be NULL");
  memset(info, 0, sizeof *info);
  info->grid = X->grid;
  memcpy(info->coords, X->coords, sizeof info->coords);
  info->dtype = X->dtype, info->order = X->order;
  memcpy(info->dims, X->dims, sizeof info->dims);
  info->nnz = X->nnz, info->local_nnz = X->local_nnz;
  info->min_local_nnz = X->min_local_nnz, info->max_local_nnz = X->max_local_nnz;
  for (int m = 0; m < X->order; ++m) {
    const tpi_cp_layout *l = &X->layout;
    info->slab_begin[m] = l->slab_begin[m], info->slab_end[m] = l->slab_begin[m] + l->rows[m];
    info->own_begin[m] = l->slab_begin[m] + l->own_offset[m];
    info->own_end[m] = info->own_begin[m] + l->own_rows[m];
  }
  info->exchange_seconds = X->exchange_seconds, info->build_seconds = X->build_seconds;
  return TP_SUCCESS;
}
