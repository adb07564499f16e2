/* CP-ALS of a dense tensor: the tensor source over tp_mttkrp, or over a sweep that
 * reuses partial contractions across the modes of an iteration. */
#include <string.h>

#include "tenport/cp_als.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "portable/tp_error.h"

typedef tpi_cp_dense_source cp_dense;

static tp_status cp_dense_prepare(void *ctx, tp_space *space, int64_t rank,
                                  const tp_cp_als_options *opts) {
  cp_dense *c = (cp_dense *)ctx;
  if (!opts->reuse_partials)
    return TP_SUCCESS;
  return tp_mttkrp_sweep_create(space, c->X, rank, c->mttkrp, 0, &c->sweep);
}

static tp_status cp_dense_mttkrp(void *ctx, tp_space *space, const tp_kruskal *M, int n, void *G) {
  cp_dense *c = (cp_dense *)ctx;
  if (c->sweep)
    return tp_mttkrp_sweep_mode(c->sweep, M, n, G);
  return tp_mttkrp(space, c->X, M, n, G, c->mttkrp);
}

static tp_status cp_dense_restart(void *ctx) {
  cp_dense *c = (cp_dense *)ctx;
  return c->sweep ? tp_mttkrp_sweep_restart(c->sweep) : TP_SUCCESS;
}

/* Any mode costs the same: mode 0, with the partials formed afresh and forgotten after
 * (they hold the trial's factors). */
static tp_status cp_dense_mttkrp_trial(void *ctx, tp_space *space, const tp_kruskal *M, int *mode,
                                       void *G) {
  *mode = 0;
  TP_TRY(cp_dense_restart(ctx));
  TP_TRY(cp_dense_mttkrp(ctx, space, M, 0, G));
  return cp_dense_restart(ctx);
}

static tp_status cp_dense_nvecs(void *ctx, tp_space *space, uint64_t seed, tp_kruskal *host_init) {
  return tp_cp_nvecs_dense(space, ((cp_dense *)ctx)->X, seed, host_init);
}

static int cp_dense_passes(void *ctx) {
  cp_dense *c = (cp_dense *)ctx;
  return c->sweep ? tp_mttkrp_sweep_passes(c->sweep) : c->X->order;
}

static void cp_dense_release(void *ctx) {
  cp_dense *c = (cp_dense *)ctx;
  if (c->sweep)
    tp_mttkrp_sweep_destroy(&c->sweep);
}

tpi_cp_tensor tpi_cp_dense_tensor(tpi_cp_dense_source *c, const tp_dense *X,
                                  const tp_mttkrp_options *mttkrp) {
  c->X = X, c->mttkrp = mttkrp, c->sweep = NULL;
  tpi_cp_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = X->dtype, t.order = X->order, t.dims = X->dims;
  t.values = X->data, t.count = tp_dense_count(X), t.norm2 = -1;
  t.prepare = cp_dense_prepare, t.mttkrp = cp_dense_mttkrp;
  t.passes = cp_dense_passes, t.release = cp_dense_release, t.ctx = c;
  t.restart = cp_dense_restart, t.mttkrp_trial = cp_dense_mttkrp_trial;
  t.nvecs = cp_dense_nvecs;
  return t;
}

tp_status tp_cp_als(tp_space *space, const tp_dense *X, const tp_cp_als_options *opts,
                    tp_kruskal *model, tp_cp_als_result *result) {
  TP_CHECK_ARG(X && opts, "X and opts must not be NULL");
  TP_TRY(tp_dense_check(X));
  TP_CHECK_ARG(X->data, "X->data must not be NULL");
  cp_dense c;
  tpi_cp_tensor t = tpi_cp_dense_tensor(&c, X, &opts->mttkrp);
  return tpi_cp_als_run(space, &t, opts, model, result);
}
