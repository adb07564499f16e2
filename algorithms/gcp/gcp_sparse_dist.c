/* Distributed GCP of a sparse tensor given as the ranks' shares of its nonzeros.
 *
 * The tensor is cut into the boxes of a distributed dense tensor's grid (each mode in
 * even slabs, tp_dist_dense's cut) and every nonzero, and every missing coordinate, goes
 * to the rank of its box in one exchange. L-BFGS-B then makes each box dense (the whole
 * tensor fits in the ranks' memory together, as one process needs it in its own) and runs
 * tp_gcp_dense_dist: the model is the single process's up to rounding. GCP-Adam keeps
 * each box sparse (tpi_gcp_sparse_box) and draws the rank's part of every sample from it:
 * the whole tensor's sample sizes (tpi_gcp_sparse_counts of its nonzeros and entries)
 * split over the boxes in proportion to their nonzeros (nonzero draws) and entries (zero
 * draws), each box's draws weighted by its own counts, so that the ranks' weighted
 * samples together estimate the whole objective and gradient without bias. */
#include <stdlib.h>
#include <string.h>

#include "tenport/distributed.h"
#include "tenport/memory.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "algorithms/gcp/tp_gcp_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_space_common.h"

/* ---- the boxes and the exchange --------------------------------------------------------- */

typedef struct gcp_boxes {
  tp_grid grid;
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t begin[TP_DENSE_MAX_ORDER], rows[TP_DENSE_MAX_ORDER]; /* this rank's box */
} gcp_boxes;

static int gcp_slab_of(int64_t n, int parts, int64_t i) {
  int lo = 0, hi = parts; /* begin(lo) <= i < begin(hi) */
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (tpi_even_slab_begin(n, parts, mid) <= i)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static int gcp_box_rank(const gcp_boxes *b, const int64_t *const *indices, int64_t k) {
  int c[TP_DENSE_MAX_ORDER];
  for (int m = 0; m < b->order; ++m)
    c[m] = gcp_slab_of(b->dims[m], b->grid.parts[m], indices[m][k]);
  return tpi_grid_rank(&b->grid, c);
}

/* Records on their way: the entry's whole-tensor indices, then its value as a double. */
typedef struct gcp_records {
  int64_t *words;
  int64_t count;
} gcp_records;

/* Sends every entry of the share to the rank of its box; *got receives this box's. */
static tp_status gcp_exchange(tp_comm *comm, const gcp_boxes *b, const tp_coo *share,
                              gcp_records *got) {
  const int P = tp_comm_size(comm);
  const int64_t w = b->order + 1, n = share->nnz;
  int64_t *counts = (int64_t *)calloc(2 * (size_t)P + 1, sizeof(int64_t));
  int *dest = (int *)malloc(sizeof(int) * (size_t)(n ? n : 1));
  int64_t *send = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n ? n * w : 1));
  tp_status st = counts && dest && send ? TP_SUCCESS
                                        : TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                                                   "no memory to send %lld entries", (long long)n);
  int64_t *recv_counts = counts ? counts + P : NULL, *at = NULL;
  for (int64_t k = 0; st == TP_SUCCESS && k < n; ++k)
    counts[dest[k] = gcp_box_rank(b, (const int64_t *const *)share->indices, k)] += w;
  if (st == TP_SUCCESS && (at = (int64_t *)calloc((size_t)P, sizeof(int64_t))) == NULL)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d offsets", P);
  for (int r = 1; st == TP_SUCCESS && r < P; ++r)
    at[r] = at[r - 1] + counts[r - 1];
  for (int64_t k = 0; st == TP_SUCCESS && k < n; ++k) {
    int64_t *rec = send + at[dest[k]];
    at[dest[k]] += w;
    for (int m = 0; m < b->order; ++m)
      rec[m] = share->indices[m][k];
    const double v = share->values ? tpi_coo_value(share, k) : 0.0;
    memcpy(rec + b->order, &v, sizeof v);
  }
  st = tp_comm_agree(comm, st);
  int64_t *ones = at; /* reused: one count per rank */
  for (int r = 0; st == TP_SUCCESS && r < P; ++r)
    ones[r] = 1;
  if (st == TP_SUCCESS)
    st = tp_comm_alltoallv_host(comm, counts, ones, recv_counts, ones, TP_DTYPE_I64);
  int64_t words = 0;
  for (int r = 0; st == TP_SUCCESS && r < P; ++r)
    words += recv_counts[r];
  got->count = words / w;
  got->words =
      st == TP_SUCCESS ? (int64_t *)malloc(sizeof(int64_t) * (size_t)(words ? words : 1)) : NULL;
  if (st == TP_SUCCESS && !got->words)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to receive %lld entries",
                  (long long)got->count);
  st = tp_comm_agree(comm, st);
  if (st == TP_SUCCESS)
    st = tp_comm_alltoallv_host(comm, send, counts, got->words, recv_counts, TP_DTYPE_I64);
  free(counts), free(dest), free(send), free(at);
  return st;
}

static double gcp_record_value(const gcp_records *r, int order, int64_t k) {
  double v;
  memcpy(&v, r->words + (size_t)k * (size_t)(order + 1) + (size_t)order, sizeof v);
  return v;
}

/* ---- L-BFGS-B: the boxes made dense ------------------------------------------------------- */

/* The box's entries as a host block of the distributed tensor's layout: a value (summed
 * over duplicates) at each record, else `fill` (as_mask: 0 at each record instead). */
static tp_status gcp_box_dense(tp_space *space, const gcp_boxes *b, const gcp_records *r,
                               int as_mask, tp_dist_dense *X) {
  tp_dense *block = tp_dist_dense_block(X), host;
  TP_TRY(tp_dense_alloc(NULL, block->dtype, block->order, block->dims, block->layout, &host));
  const int64_t count = tp_dense_count(&host);
  const int f32 = host.dtype == TP_DTYPE_F32;
  for (int64_t e = 0; e < count; ++e)
    f32 ? (void)(((float *)host.data)[e] = (float)as_mask)
        : (void)(((double *)host.data)[e] = as_mask);
  for (int64_t k = 0; k < r->count; ++k) {
    const int64_t *rec = r->words + (size_t)k * (size_t)(b->order + 1);
    int64_t at = 0, stride = 1;
    for (int t = 0; t < b->order; ++t) {
      const int m = host.layout == TP_LAYOUT_LEFT ? t : b->order - 1 - t;
      at += (rec[m] - b->begin[m]) * stride, stride *= host.dims[m];
    }
    const double v = as_mask ? 0.0 : gcp_record_value(r, b->order, k);
    if (f32)
      ((float *)host.data)[at] = as_mask ? 0.0f : ((float *)host.data)[at] + (float)v;
    else
      ((double *)host.data)[at] = as_mask ? 0.0 : ((double *)host.data)[at] + v;
  }
  tp_status st = tp_dense_copy_to_device(space, block, &host);
  tp_dense_free(NULL, &host);
  return st;
}

static tp_status gcp_sparse_dist_lbfgsb(tp_comm *comm, tp_space *space, const gcp_boxes *b,
                                        tp_dtype dtype, const gcp_records *x,
                                        const gcp_records *missing, const tp_gcp_options *o,
                                        tp_kruskal *model, tp_gcp_result *result) {
  tp_dist_dense *X = NULL, *W = NULL;
  tp_status st =
      tp_dist_dense_create(comm, space, dtype, b->order, b->dims, TP_LAYOUT_LEFT, &b->grid, &X);
  if (st == TP_SUCCESS && missing)
    st = tp_dist_dense_create(comm, space, dtype, b->order, b->dims, TP_LAYOUT_LEFT, &b->grid, &W);
  if (st == TP_SUCCESS)
    st = tp_comm_agree(comm, gcp_box_dense(space, b, x, 0, X));
  if (st == TP_SUCCESS && missing)
    st = tp_comm_agree(comm, gcp_box_dense(space, b, missing, 1, W));
  if (st == TP_SUCCESS)
    st = tp_gcp_dense_dist(space, X, W, o, model, result);
  tp_dist_dense_destroy(&W);
  tp_dist_dense_destroy(&X);
  return st;
}

/* ---- GCP-Adam: the boxes sampled ------------------------------------------------------------ */

typedef struct gcp_sparse_dist_ctx {
  tpi_gcp_sparse_box box;
  tp_space *space;
  int rank, ranks;
  double *counts;          /* per rank: its box's nonzeros, then its entries */
  double nnz, N;           /* the whole tensor's */
  int64_t nz[2], zeros[2]; /* this rank's part of each sample */
  int64_t dims[TP_DENSE_MAX_ORDER];
} gcp_sparse_dist_ctx;

static tp_status gcp_sparse_dist_plan(void *ctx, const tp_gcp_options *o, int64_t capacity[2]) {
  gcp_sparse_dist_ctx *c = (gcp_sparse_dist_ctx *)ctx;
  int64_t nz[2], zeros[2];
  TP_TRY(tpi_gcp_sparse_counts((int64_t)c->nnz, c->N, o, nz, zeros));
  for (int w = 0; w < 2; ++w) {
    c->nz[w] = tpi_gcp_share(nz[w], c->counts, 2, c->ranks, c->rank);
    c->zeros[w] = tpi_gcp_share(zeros[w], c->counts + 1, 2, c->ranks, c->rank);
    capacity[w] = c->nz[w] + c->zeros[w];
  }
  return TP_SUCCESS;
}

static tp_status gcp_sparse_dist_draw(void *ctx, tp_space *space, int which, uint64_t key,
                                      tpi_gcp_sample_view smp, int64_t *count) {
  gcp_sparse_dist_ctx *c = (gcp_sparse_dist_ctx *)ctx;
  *count = c->nz[which] + c->zeros[which];
  return tpi_gcp_sparse_box_draw(space, &c->box, c->nz[which], c->zeros[which],
                                 tpi_gcp_rank_key(key, c->rank), smp);
}

static void gcp_sparse_dist_release(void *ctx) {
  gcp_sparse_dist_ctx *c = (gcp_sparse_dist_ctx *)ctx;
  tpi_gcp_sparse_box_free(c->space, &c->box);
  free(c->counts);
  free(c);
}

/* This rank's box as a host tensor: indices from the box's first (a box without rows in
 * some mode has dims 1 there and no entry). */
static tp_status gcp_box_coo(const gcp_boxes *b, tp_dtype dtype, const gcp_records *r,
                             tp_coo *box) {
  int64_t dims[TP_DENSE_MAX_ORDER];
  for (int m = 0; m < b->order; ++m)
    dims[m] = b->rows[m] > 0 ? b->rows[m] : 1;
  TP_TRY(tpi_coo_host_alloc(dtype, b->order, dims, r->count, box));
  for (int64_t k = 0; k < r->count; ++k) {
    const int64_t *rec = r->words + (size_t)k * (size_t)(b->order + 1);
    for (int m = 0; m < b->order; ++m)
      box->indices[m][k] = rec[m] - b->begin[m];
    tpi_coo_set_value(box, k, gcp_record_value(r, b->order, k));
  }
  return TP_SUCCESS;
}

/* The box in the space, the ranks' counts gathered, the whole tensor's figures summed. */
static tp_status gcp_sparse_dist_fill(tp_comm *comm, tp_space *space, const gcp_boxes *b,
                                      tp_dtype dtype, const gcp_records *x, const tp_gcp_options *o,
                                      gcp_sparse_dist_ctx *c, tpi_gcp_source *src) {
  tp_coo host;
  memset(&host, 0, sizeof host);
  double mine[2] = {0, 1}, norm2 = 0;
  tp_status st = gcp_box_coo(b, dtype, x, &host);
  if (st == TP_SUCCESS)
    st = tpi_gcp_sparse_box_create(space, &host, b->begin, o->loss, &c->box, &norm2);
  tp_coo_free(NULL, &host);
  c->counts = (double *)calloc(2 * (size_t)c->ranks, sizeof(double));
  if (st == TP_SUCCESS && !c->counts)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", c->ranks);
  for (int m = 0; m < b->order; ++m)
    mine[1] *= (double)b->rows[m]; /* 0 for a box without rows */
  mine[0] = st == TP_SUCCESS ? (double)c->box.X.nnz : 0;
  TP_TRY(tp_comm_agree(comm, st));
  TP_TRY(tpi_gcp_gather(comm, mine, 2, c->counts));
  TP_TRY(tp_comm_allreduce_host(comm, &norm2, 1, TP_DTYPE_F64, TP_COMM_SUM));
  c->nnz = 0, c->N = 1;
  for (int r = 0; r < c->ranks; ++r)
    c->nnz += c->counts[2 * r];
  for (int m = 0; m < b->order; ++m)
    c->N *= (double)b->dims[m], c->dims[m] = b->dims[m];
  TP_CHECK_ARG(c->nnz > 0, "X has no nonzeros: GCP-Adam samples them");
  memset(src, 0, sizeof *src);
  src->dtype = dtype, src->order = b->order, src->dims = c->dims;
  src->data_norm2 = norm2, src->observed = c->N;
  src->plan = gcp_sparse_dist_plan, src->draw = gcp_sparse_dist_draw;
  src->release = gcp_sparse_dist_release, src->ctx = c, src->comm = comm;
  return TP_SUCCESS;
}

static tp_status gcp_sparse_dist_adam(tp_comm *comm, tp_space *space, const gcp_boxes *b,
                                      tp_dtype dtype, const gcp_records *x, const tp_gcp_options *o,
                                      tp_kruskal *model, tp_gcp_result *result) {
  gcp_sparse_dist_ctx *c = (gcp_sparse_dist_ctx *)calloc(1, sizeof *c);
  tp_status st = tp_comm_agree(
      comm, c ? TP_SUCCESS : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the GCP source"));
  if (st != TP_SUCCESS) {
    free(c);
    return st;
  }
  c->space = space, c->rank = tp_comm_rank(comm), c->ranks = tp_comm_size(comm);
  tpi_gcp_source src;
  st = gcp_sparse_dist_fill(comm, space, b, dtype, x, o, c, &src);
  if (st == TP_SUCCESS) {
    const int64_t work = tp_space_set_work(space, c->box.X.nnz * o->rank);
    st = tpi_gcp_run(space, &src, o, model, result);
    tp_space_set_work(space, work);
  }
  gcp_sparse_dist_release(c);
  return st;
}

/* ---- the entry ----------------------------------------------------------------------------- */

/* The share (and the missing coordinates') checked on its own rank, then agreed on. */
static tp_status gcp_sparse_dist_check(const tp_coo *share, const tp_coo *missing,
                                       const tp_gcp_options *o) {
  TP_TRY(tp_coo_validate(share));
  TP_CHECK_ARG(share->order >= 2 && share->order <= TP_DENSE_MAX_ORDER,
               "X has %d modes: GCP takes 2 to %d", share->order, TP_DENSE_MAX_ORDER);
  TP_TRY(tpi_gcp_check_param(o->loss, o->loss_param));
  TP_CHECK_ARG(!(o->max_seconds > 0) && !o->cancel,
               "distributed GCP takes no time limit and no cancel flag: every rank must stop "
               "at the same iteration");
  if (!missing)
    return TP_SUCCESS;
  TP_CHECK_ARG(o->solver == TP_GCP_SOLVER_LBFGSB,
               "missing entries of a sparse tensor are not supported by GCP-Adam");
  TP_TRY(tp_coo_validate(missing));
  TP_CHECK_ARG(missing->order == share->order, "the missing entries have %d modes, X %d",
               missing->order, share->order);
  for (int k = 0; k < share->order; ++k)
    TP_CHECK_ARG(missing->dims[k] == share->dims[k],
                 "the missing entries' dim %d is %lld, X's %lld", k, (long long)missing->dims[k],
                 (long long)share->dims[k]);
  return TP_SUCCESS;
}

/* Every rank gives missing coordinates or none, and names the same solver: else they
 * would take different collectives. */
static tp_status gcp_same_call(tp_comm *comm, int has_missing, int solver) {
  int64_t hi[2] = {has_missing, solver}, lo[2] = {has_missing, solver};
  TP_TRY(tp_comm_allreduce_host(comm, hi, 2, TP_DTYPE_I64, TP_COMM_MAX));
  TP_TRY(tp_comm_allreduce_host(comm, lo, 2, TP_DTYPE_I64, TP_COMM_MIN));
  TP_CHECK_ARG(hi[0] == lo[0], "some ranks give missing coordinates and others do not");
  TP_CHECK_ARG(hi[1] == lo[1], "the ranks name different solvers");
  return TP_SUCCESS;
}

static tp_status gcp_boxes_make(tp_comm *comm, const tp_coo *share, const tp_grid *grid,
                                gcp_boxes *b) {
  memset(b, 0, sizeof *b);
  b->order = share->order;
  memcpy(b->dims, share->dims, sizeof(int64_t) * (size_t)share->order);
  if (grid)
    b->grid = *grid;
  else
    TP_TRY(tp_grid_choose(b->order, b->dims, tp_comm_size(comm), &b->grid));
  TP_CHECK_ARG(b->grid.order == b->order, "the grid has %d modes, the tensor %d", b->grid.order,
               b->order);
  TP_CHECK_ARG(tpi_grid_size(&b->grid) == tp_comm_size(comm),
               "the grid holds %lld ranks, the communicator %d", (long long)tpi_grid_size(&b->grid),
               tp_comm_size(comm));
  int c[TP_DENSE_MAX_ORDER];
  tpi_grid_coords(&b->grid, tp_comm_rank(comm), c);
  for (int m = 0; m < b->order; ++m) {
    b->begin[m] = tpi_even_slab_begin(b->dims[m], b->grid.parts[m], c[m]);
    b->rows[m] = tpi_even_slab_begin(b->dims[m], b->grid.parts[m], c[m] + 1) - b->begin[m];
  }
  return TP_SUCCESS;
}

tp_status tp_gcp_sparse_dist(tp_comm *comm, tp_space *space, const tp_coo *share,
                             const tp_coo *missing, const tp_grid *grid, const tp_gcp_options *opts,
                             tp_kruskal *model, tp_gcp_result *result) {
  TP_CHECK_ARG(comm && space && share && opts && model,
               "comm, space, share, opts and model must not be NULL");
  TP_TRY(tp_comm_agree(comm, tp_comm_check_space(comm, space)));
  TP_TRY(tp_comm_agree(comm, gcp_sparse_dist_check(share, missing, opts)));
  TP_TRY(tpi_coo_shares_agree(comm, share));
  TP_TRY(gcp_same_call(comm, missing != NULL, (int)opts->solver));
  gcp_boxes b;
  TP_TRY(tp_comm_agree(comm, gcp_boxes_make(comm, share, grid, &b)));
  gcp_records x = {NULL, 0}, w = {NULL, 0};
  tp_status st = gcp_exchange(comm, &b, share, &x);
  if (st == TP_SUCCESS && missing)
    st = gcp_exchange(comm, &b, missing, &w);
  if (st == TP_SUCCESS && opts->solver == TP_GCP_SOLVER_ADAM)
    st = gcp_sparse_dist_adam(comm, space, &b, share->dtype, &x, opts, model, result);
  else if (st == TP_SUCCESS)
    st = gcp_sparse_dist_lbfgsb(comm, space, &b, share->dtype, &x, missing ? &w : NULL, opts, model,
                                result);
  free(x.words), free(w.words);
  return st;
}
