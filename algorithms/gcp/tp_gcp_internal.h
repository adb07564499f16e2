/* GCP internals: the passes over a dense tensor in the space (gcp_template.h), the
 * objective sources the solvers are written against, and the L-BFGS-B driver. */
#ifndef TP_GCP_INTERNAL_H
#define TP_GCP_INTERNAL_H

#include <stdint.h>

#include "tenport/gcp.h"
#include "portable/tp_extern_c.h"

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

/* What a solver needs of a problem: its shape, and the objective with its gradient at
 * factors held in the space (lambda not read), each factor's gradient into G's factors
 * (same shapes, in the space). A source owns its buffers; release frees them. */
typedef struct tpi_gcp_source {
  tp_dtype dtype;
  int order;
  const int64_t *dims;
  double data_norm2; /* ||X||^2 over the observed entries, for the random start's scale */
  double observed;   /* entries that count in the objective */
  tp_status (*fg)(void *ctx, tp_space *space, const tp_kruskal *M, double *f, tp_kruskal *G);
  void (*release)(void *ctx);
  void *ctx;
} tpi_gcp_source;

/* A dense tensor X and mask W (NULL: every entry observed) in the space: checked, the
 * observed entries checked against the loss. */
tp_status tpi_gcp_dense_source(tp_space *space, const tp_dense *X, const tp_dense *W,
                               tp_gcp_loss loss, double param, tpi_gcp_source *src);

/* ---- the run (gcp.c, gcp_lbfgsb.c) ------------------------------------------------- */

/* L-BFGS-B from x (host, the factors one after another, each dims[k] x rank row-major),
 * which receives the solution; M and G are the factors in the space the source reads
 * and writes. */
tp_status tpi_gcp_lbfgsb(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *o,
                         double *x, tp_kruskal *M, tp_kruskal *G, tp_gcp_result *res);

/* The factors of host vector x into the space's M (converted to M's dtype), and G's
 * factors from the space into the host vector g. */
tp_status tpi_gcp_vector_to_space(tp_space *space, const double *x, tp_kruskal *M);
tp_status tpi_gcp_space_to_vector(tp_space *space, const tp_kruskal *G, double *g);

/* GCP of any source (gcp.c): checks, the start, the solver, the final model. */
tp_status tpi_gcp_run(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *opts,
                      tp_kruskal *model, tp_gcp_result *result);

TP_EXTERN_C_END

#endif
