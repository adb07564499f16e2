/* GCP internals: the passes over a dense tensor in the space (gcp_template.h), the
 * objective sources the solvers are written against, and the L-BFGS-B driver. */
#ifndef TP_GCP_INTERNAL_H
#define TP_GCP_INTERNAL_H

#include <stdint.h>

#include "tenport/comm.h"
#include "tenport/gcp.h"
#include "portable/tp_extern_c.h"
#include "algorithms/gcp/tp_gcp_sample.h"

TP_EXTERN_C_BEGIN

/* ---- passes over a dense tensor (gcp_f32_kernels.c, gcp_f64_kernels.c) ------------- */

/* One pass: X (and W, NULL or nonzero where observed) in the space; model's factors
 * (lambda not read) for the objective; Y (X's size, or NULL) receives the derivative
 * tensor. */
typedef struct tpi_gcp_pass {
  const tp_dense *X, *W;
  const tp_kruskal *model;
  void *Y;
  tp_gcp_loss loss;
  double param;
  int interleave; /* 1: chunks of strided elements, as GPUs take them (tests force it) */
} tpi_gcp_pass;

/* Elements per chunk (one partial each): at most TPI_GCP_MAX_CHUNKS chunks. */
#define TPI_GCP_MAX_CHUNKS ((int64_t)1 << 18)
#define TPI_GCP_SUM_BLOCK 256
static inline int64_t tpi_gcp_chunk(int64_t n) {
  const int64_t c = (n + TPI_GCP_MAX_CHUNKS - 1) / TPI_GCP_MAX_CHUNKS;
  return c < 64 ? 64 : c;
}
static inline int64_t tpi_gcp_chunks(int64_t n) {
  return (n + tpi_gcp_chunk(n) - 1) / tpi_gcp_chunk(n);
}

/* partial (tpi_gcp_chunks(N) doubles in the space) receives each chunk's objective. */
tp_status tpi_gcp_pass_fg(tp_space *space, const tpi_gcp_pass *p, double *partial);
tp_status tpi_gcp_fg_f32(tp_space *space, const tpi_gcp_pass *p, double *partial);
tp_status tpi_gcp_fg_f64(tp_space *space, const tpi_gcp_pass *p, double *partial);
/* Per chunk (arrays in the space): the observed entries' sum of squares (of those the
 * loss takes), their count, the count the loss refuses and the first of those (N:
 * none). */
tp_status tpi_gcp_pass_stats(tp_space *space, const tpi_gcp_pass *p, double *sumsq,
                             double *observed, int64_t *bad, int64_t *first);
tp_status tpi_gcp_stats_f32(tp_space *space, const tpi_gcp_pass *p, double *sumsq, double *observed,
                            int64_t *bad, int64_t *first);
tp_status tpi_gcp_stats_f64(tp_space *space, const tpi_gcp_pass *p, double *sumsq, double *observed,
                            int64_t *bad, int64_t *first);
/* The sum of n partials in the space, in fixed blocks then in order on the host. */
tp_status tpi_gcp_sum_partials(tp_space *space, const double *partial, int64_t n, double *sum);

/* ---- the losses (gcp_loss.c) ------------------------------------------------------ */

/* The loss is one of the table and its parameter suits it. */
tp_status tpi_gcp_check_param(tp_gcp_loss loss, double param);
/* What the loss asks of the data, for messages: "nonnegative integers (counts)", ... */
const char *tpi_gcp_data_rule_text(tp_gcp_loss loss);

/* ---- objective sources (gcp_dense.c) ----------------------------------------------- */

/* What a solver needs of a problem: its shape, and at factors held in the space
 * (lambda not read): the objective with its gradient, each factor's into G's factors
 * (same shapes, in the space; L-BFGS-B), the objective alone, and samples (Adam): plan
 * says how many a function (which 0) and a gradient (which 1) sample hold for the
 * options, draw fills one from a counter key and says how many it drew. A member left
 * NULL is not offered. A source owns its buffers; release frees them. */
typedef struct tpi_gcp_source {
  tp_dtype dtype;
  int order;
  const int64_t *dims;
  double data_norm2; /* ||X||^2 over the observed entries, for the random start's scale */
  double observed;   /* entries that count in the objective */
  tp_status (*fg)(void *ctx, tp_space *space, const tp_kruskal *M, double *f, tp_kruskal *G);
  tp_status (*f)(void *ctx, tp_space *space, const tp_kruskal *M, double *f);
  tp_status (*plan)(void *ctx, const tp_gcp_options *o, int64_t capacity[2]);
  tp_status (*draw)(void *ctx, tp_space *space, int which, uint64_t key, tpi_gcp_sample_view smp,
                    int64_t *count);
  void (*release)(void *ctx);
  void *ctx;
  tp_comm *comm; /* NULL in one process; else the source is the ranks' together: each
                    draws its own part of every sample, and Adam sums the sampled
                    gradients and estimates over comm (fg and f sum their own) */
} tpi_gcp_source;

/* A dense tensor X and mask W (NULL: every entry observed) in the space: checked, the
 * observed entries checked against the loss; with_gradient: room for the derivative
 * tensor (fg offered; else f and the samples only). */
tp_status tpi_gcp_dense_source(tp_space *space, const tp_dense *X, const tp_dense *W,
                               tp_gcp_loss loss, double param, int with_gradient,
                               tpi_gcp_source *src);
/* The same for X a block of a larger tensor, whose first index is offset: messages name
 * the whole tensor's indices, and a block may have no observed entry. */
tp_status tpi_gcp_dense_block_source(tp_space *space, const tp_dense *X, const tp_dense *W,
                                     const int64_t *offset, tp_gcp_loss loss, double param,
                                     int with_gradient, tpi_gcp_source *src);
/* The dense source's samples (gcp_samplers.c): uniform entries; offset as
 * tpi_gcp_draw's (NULL: none). */
tp_status tpi_gcp_dense_plan(const tp_dense *X, const tp_gcp_options *o, int64_t capacity[2]);
tp_status tpi_gcp_dense_draw(tp_space *space, const tp_dense *X, const tp_dense *W,
                             const int64_t *offset, const int64_t capacity[2], int which,
                             uint64_t key, tpi_gcp_sample_view smp, int64_t *count);
/* A sparse tensor in host memory for Adam (gcp_samplers.c): checked against the loss,
 * copied to the space with a map of its nonzeros; stratified samples. */
tp_status tpi_gcp_sparse_source(tp_space *space, const tp_coo *X, tp_gcp_loss loss,
                                tpi_gcp_source *src);
/* The sparse samples' sizes for a tensor of nnz nonzeros and N entries (pyttb's defaults
 * unless the options say): per kind (0: the estimate's, 1: a step's), nonzero draws and
 * zero draws. */
tp_status tpi_gcp_sparse_counts(int64_t nnz, double N, const tp_gcp_options *o, int64_t nz[2],
                                int64_t zeros[2]);
/* What stratified draws read: a sparse tensor (X's dims: the box; its indices from the
 * box's first) in the space with a map of its nonzeros' linear indices, the box's entry
 * count N, and the box's first index in the whole tensor (a rank's box in a distributed
 * run; zero for a whole tensor). */
typedef struct tpi_gcp_sparse_box {
  tp_coo X;
  tp_hashmap *nonzeros;
  double N;
  int64_t offset[TP_DENSE_MAX_ORDER];
} tpi_gcp_sparse_box;
/* From host X (duplicates summed, the values checked against the loss: a refused one is
 * named by its whole-tensor indices); *norm2 = the values' sum of squares. X may have no
 * nonzeros. offset NULL: zero. */
tp_status tpi_gcp_sparse_box_create(tp_space *space, const tp_coo *X, const int64_t *offset,
                                    tp_gcp_loss loss, tpi_gcp_sparse_box *box, double *norm2);
void tpi_gcp_sparse_box_free(tp_space *space, tpi_gcp_sparse_box *box);
/* nonzeros draws of the box's nonzeros (weight nnz / nonzeros) into smp, then zeros
 * uniform draws over the box that count only where no nonzero is (weight N / zeros);
 * the indices are the whole tensor's. */
tp_status tpi_gcp_sparse_box_draw(tp_space *space, const tpi_gcp_sparse_box *box, int64_t nonzeros,
                                  int64_t zeros, uint64_t key, tpi_gcp_sample_view smp);

/* ---- the run (gcp.c, gcp_lbfgsb.c) ------------------------------------------------- */

/* GCP-Adam from x (host, as for L-BFGS-B), which receives the last accepted epoch's
 * factors; M holds the factors in the space (gcp_adam.c). */
tp_status tpi_gcp_adam_solve(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *o,
                             double *x, tp_kruskal *M, tp_gcp_result *res);

/* L-BFGS-B from x (host, the factors one after another, each dims[k] x rank row-major),
 * which receives the solution; M and G are the factors in the space the source reads
 * and writes. */
tp_status tpi_gcp_lbfgsb(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *o,
                         double *x, tp_kruskal *M, tp_kruskal *G, tp_gcp_result *res);

/* The factors of host vector x into the space's M (converted to M's dtype), and G's
 * factors from the space into the host vector g. */
tp_status tpi_gcp_vector_to_space(tp_space *space, const double *x, tp_kruskal *M);
tp_status tpi_gcp_space_to_vector(tp_space *space, const tp_kruskal *G, double *g);

/* ---- over ranks (gcp_dist.c) -------------------------------------------------------- */

/* Rank `rank`'s part of a sample of total draws split over the ranks in proportion to
 * weights[r * stride] (entries or nonzeros of each rank's block): the parts add up to
 * total, except that with total > 0 a rank with a positive weight draws at least one (so
 * that no block is left out of the estimate); a rank with none, or a total of 0, draws
 * none. */
int64_t tpi_gcp_share(int64_t total, const double *weights, int stride, int ranks, int rank);
/* every rank's per_rank doubles from mine, in rank order, into all. Collective. */
tp_status tpi_gcp_gather(tp_comm *comm, const double *mine, int per_rank, double *all);
/* The counter key of rank's draws: rank 0 keeps the key (one rank draws what one process
 * does), the others draw from streams of their own. */
uint64_t tpi_gcp_rank_key(uint64_t key, int rank);

/* GCP of any source (gcp.c): checks, the start, the solver, the final model. */
tp_status tpi_gcp_run(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *opts,
                      tp_kruskal *model, tp_gcp_result *result);

TP_EXTERN_C_END

#endif
