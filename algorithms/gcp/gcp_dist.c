/* Distributed GCP of a dense tensor spread over ranks (tp_dist_dense), by L-BFGS-B or
 * GCP-Adam; and the sample shares that the distributed sparse run uses too.
 *
 * Every rank holds the whole model (a GCP model is small next to its tensor). L-BFGS-B:
 * every rank runs the same L-BFGS-B on the host; an evaluation is each rank's block (the
 * block source of gcp_dense.c on views of the factor rows its slabs cover), then one
 * allreduce of the gradient and one of the objective. With the same sums on every rank
 * the ranks take the same steps, and the model is the single process's up to the rounding
 * of the sums' order. GCP-Adam: each rank draws its part of every sample from its block
 * (the whole tensor's sample size split over the blocks by their entries, tpi_gcp_share,
 * each with the weight of its block), and gcp_adam.c sums the sampled gradients and
 * estimates over the ranks; one rank draws the single process's samples. A failure on one
 * rank ends the run on all of them with its message (tp_comm_agree), before any
 * collective could wait for it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/distributed.h"
#include "tenport/memory.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "algorithms/gcp/tp_gcp_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_space_common.h"

/* ---- the ranks' parts of a sample ------------------------------------------------------ */

int64_t tpi_gcp_share(int64_t total, const double *weights, int stride, int ranks, int rank) {
  double all = 0, before = 0;
  for (int r = 0; r < ranks; ++r) {
    all += weights[(size_t)r * (size_t)stride];
    before += r < rank ? weights[(size_t)r * (size_t)stride] : 0;
  }
  const double mine = weights[(size_t)rank * (size_t)stride];
  if (total <= 0 || !(all > 0) || !(mine > 0))
    return 0;
  const double t = (double)total;
  const int64_t part =
      (int64_t)floor(t * ((before + mine) / all)) - (int64_t)floor(t * (before / all));
  return part > 0 ? part : 1; /* every block with entries takes part: no bias */
}

tp_status tpi_gcp_gather(tp_comm *comm, const double *mine, int per_rank, double *all) {
  const int P = tp_comm_size(comm);
  int64_t *counts = (int64_t *)malloc(sizeof(int64_t) * (size_t)P);
  if (!counts)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", P);
  for (int r = 0; r < P; ++r)
    counts[r] = per_rank;
  tp_status st = tp_comm_allgatherv_host(comm, mine, all, counts, TP_DTYPE_F64);
  free(counts);
  return st;
}

uint64_t tpi_gcp_rank_key(uint64_t key, int rank) {
  return rank == 0 ? key : key ^ tpi_gcp_stream_mix(0x52414e4bull + (uint64_t)rank);
}

/* ---- the dense source over the ranks ---------------------------------------------------- */

typedef struct gcp_dist_ctx {
  tp_comm *comm;
  tpi_gcp_source local;  /* this rank's block; unused when it holds no rows */
  const tp_dense *X, *W; /* the block (and its mask's), for Adam's draws */
  int has_block, rank, ranks;
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t begin[TP_DENSE_MAX_ORDER], rows[TP_DENSE_MAX_ORDER]; /* the block's slabs */
  double *entries;     /* every rank's block entries (0 for an empty block) */
  int64_t capacity[2]; /* Adam: this rank's part of the estimate's and of a step's sample */
} gcp_dist_ctx;

/* The rows of the whole model's factors that the block's slabs cover, as a model of the
 * block's shape (no copy: factors are row-major, so a slab's rows are contiguous). */
static void gcp_dist_view(const gcp_dist_ctx *c, const tp_kruskal *whole, tp_kruskal *view) {
  *view = *whole;
  const size_t eb = tp_dtype_size(whole->dtype);
  for (int k = 0; k < c->order; ++k) {
    view->dims[k] = c->rows[k];
    view->factors[k] = (char *)whole->factors[k] + (size_t)(c->begin[k] * whole->rank) * eb;
  }
}

/* The block's objective (and gradient into G's rows, the others zero), summed over the
 * ranks. */
static tp_status gcp_dist_eval(gcp_dist_ctx *c, tp_space *space, const tp_kruskal *M, double *f,
                               tp_kruskal *G) {
  const size_t eb = tp_dtype_size(M->dtype);
  tp_status st = TP_SUCCESS;
  for (int k = 0; G && st == TP_SUCCESS && k < c->order; ++k)
    st = tp_memset(space, G->factors[k], 0, (size_t)(c->dims[k] * M->rank) * eb);
  *f = 0;
  if (st == TP_SUCCESS && c->has_block) {
    tp_kruskal mv, gv;
    gcp_dist_view(c, M, &mv);
    if (G)
      gcp_dist_view(c, G, &gv);
    st =
        G ? c->local.fg(c->local.ctx, space, &mv, f, &gv) : c->local.f(c->local.ctx, space, &mv, f);
  }
  TP_TRY(tp_comm_agree(c->comm, st));
  for (int k = 0; G && k < c->order; ++k)
    TP_TRY(tp_comm_allreduce(c->comm, G->factors[k], c->dims[k] * M->rank, M->dtype, TP_COMM_SUM));
  return tp_comm_allreduce_host(c->comm, f, 1, TP_DTYPE_F64, TP_COMM_SUM);
}

static tp_status gcp_dist_fg(void *ctx, tp_space *space, const tp_kruskal *M, double *f,
                             tp_kruskal *G) {
  return gcp_dist_eval((gcp_dist_ctx *)ctx, space, M, f, G);
}

static tp_status gcp_dist_f(void *ctx, tp_space *space, const tp_kruskal *M, double *f) {
  return gcp_dist_eval((gcp_dist_ctx *)ctx, space, M, f, NULL);
}

/* Adam's sample sizes: the whole tensor's (tpi_gcp_dense_plan of its shape), this rank's
 * part of them. */
static tp_status gcp_dist_plan(void *ctx, const tp_gcp_options *o, int64_t capacity[2]) {
  gcp_dist_ctx *c = (gcp_dist_ctx *)ctx;
  tp_dense whole = *c->X;
  for (int k = 0; k < c->order; ++k)
    whole.dims[k] = c->dims[k];
  int64_t all[2];
  TP_TRY(tpi_gcp_dense_plan(&whole, o, all));
  for (int w = 0; w < 2; ++w)
    capacity[w] = c->capacity[w] = tpi_gcp_share(all[w], c->entries, 1, c->ranks, c->rank);
  return TP_SUCCESS;
}

static tp_status gcp_dist_draw(void *ctx, tp_space *space, int which, uint64_t key,
                               tpi_gcp_sample_view smp, int64_t *count) {
  gcp_dist_ctx *c = (gcp_dist_ctx *)ctx;
  *count = 0;
  if (!c->has_block || c->capacity[which] == 0)
    return TP_SUCCESS;
  return tpi_gcp_dense_draw(space, c->X, c->W, c->begin, c->capacity, which,
                            tpi_gcp_rank_key(key, c->rank), smp, count);
}

static void gcp_dist_release(void *ctx) {
  gcp_dist_ctx *c = (gcp_dist_ctx *)ctx;
  if (c->has_block && c->local.release)
    c->local.release(c->local.ctx);
  free(c->entries);
  free(c);
}

/* X and the mask over the same grid, and options the ranks can follow together. */
static tp_status gcp_dist_check(const tp_dist_dense_info *x, const tp_dist_dense *mask,
                                const tp_gcp_options *o) {
  TP_CHECK_ARG(!(o->max_seconds > 0) && !o->cancel,
               "distributed GCP takes no time limit and no cancel flag: every rank must stop "
               "at the same iteration");
  if (!mask)
    return TP_SUCCESS;
  tp_dist_dense_info w;
  TP_TRY(tp_dist_dense_get_info(mask, &w));
  TP_CHECK_ARG(w.order == x->order, "the mask has %d modes, X %d", w.order, x->order);
  for (int k = 0; k < x->order; ++k)
    TP_CHECK_ARG(w.dims[k] == x->dims[k] && w.grid.parts[k] == x->grid.parts[k],
                 "the mask's mode %d (%lld rows over %d slabs) differs from X's (%lld over %d)", k,
                 (long long)w.dims[k], w.grid.parts[k], (long long)x->dims[k], x->grid.parts[k]);
  return TP_SUCCESS;
}

/* The source over every rank's block: the block's checks agreed on, the observed entries'
 * statistics summed. */
static tp_status gcp_dist_source(tp_space *space, tp_dist_dense *X, tp_dist_dense *mask,
                                 const tp_dist_dense_info *info, const tp_gcp_options *o,
                                 tpi_gcp_source *src) {
  gcp_dist_ctx *c = (gcp_dist_ctx *)calloc(1, sizeof *c);
  if (!c)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the distributed GCP source");
  c->comm = tpi_dist_dense_comm(X);
  c->order = info->order;
  c->rank = tp_comm_rank(c->comm), c->ranks = tp_comm_size(c->comm);
  c->X = tp_dist_dense_block(X), c->W = mask ? tp_dist_dense_block(mask) : NULL;
  c->has_block = 1;
  double entries = 1;
  for (int k = 0; k < c->order; ++k) {
    c->dims[k] = info->dims[k];
    c->begin[k] = info->slab_begin[k], c->rows[k] = info->slab_end[k] - info->slab_begin[k];
    c->has_block = c->has_block && c->rows[k] > 0;
    entries *= (double)c->rows[k];
  }
  c->entries = (double *)calloc((size_t)c->ranks, sizeof(double));
  tp_status st = c->entries ? TP_SUCCESS
                            : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", c->ranks);
  if (st == TP_SUCCESS && c->has_block)
    st = tpi_gcp_dense_block_source(space, c->X, c->W, c->begin, o->loss, o->loss_param,
                                    o->solver == TP_GCP_SOLVER_LBFGSB, &c->local);
  if (st != TP_SUCCESS)
    c->has_block = 0; /* nothing to release */
  double stats[2] = {c->has_block ? c->local.data_norm2 : 0, c->has_block ? c->local.observed : 0};
  st = tp_comm_agree(c->comm, st);
  if (st == TP_SUCCESS)
    st = tp_comm_allreduce_host(c->comm, stats, 2, TP_DTYPE_F64, TP_COMM_SUM);
  entries = c->has_block ? entries : 0;
  if (st == TP_SUCCESS)
    st = tpi_gcp_gather(c->comm, &entries, 1, c->entries);
  if (st == TP_SUCCESS && stats[1] == 0)
    st = TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "the mask leaves no observed entry");
  if (st != TP_SUCCESS) {
    gcp_dist_release(c);
    return st;
  }
  memset(src, 0, sizeof *src);
  src->dtype = info->dtype, src->order = c->order, src->dims = c->dims;
  src->data_norm2 = stats[0], src->observed = stats[1];
  src->fg = gcp_dist_fg, src->f = gcp_dist_f, src->release = gcp_dist_release, src->ctx = c;
  src->plan = gcp_dist_plan, src->draw = gcp_dist_draw, src->comm = c->comm;
  return TP_SUCCESS;
}

tp_status tp_gcp_dense_dist(tp_space *space, tp_dist_dense *X, tp_dist_dense *mask,
                            const tp_gcp_options *opts, tp_kruskal *model, tp_gcp_result *result) {
  TP_CHECK_ARG(space && X && opts && model, "space, X, opts and model must not be NULL");
  TP_TRY(tpi_gcp_check_param(opts->loss, opts->loss_param));
  tp_dist_dense_info info;
  TP_TRY(tp_dist_dense_get_info(X, &info));
  TP_TRY(gcp_dist_check(&info, mask, opts));
  tpi_gcp_source src;
  TP_TRY(gcp_dist_source(space, X, mask, &info, opts, &src));
  const int64_t work =
      tp_space_set_work(space, tp_dense_count(tp_dist_dense_block(X)) * opts->rank);
  tp_status st = tpi_gcp_run(space, &src, opts, model, result);
  tp_space_set_work(space, work);
  src.release(src.ctx);
  return st;
}
