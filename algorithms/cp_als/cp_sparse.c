/* CP-ALS of a sparse tensor in FLYCOO form: every mode's MTTKRP leaves the nonzeros in
 * the next mode's order (remapping them, or naming the next copy), so the modes of an
 * iteration run back to back with one pass over the nonzeros each. */
#include <string.h>

#include "tenport/cp_als.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_internal.h"
#include "portable/tp_error.h"

typedef struct cp_sparse {
  tp_flycoo *X;
  int order;
} cp_sparse;

static tp_status cp_sparse_mttkrp(void *ctx, tp_space *space, const tp_kruskal *M, int n, void *G) {
  cp_sparse *c = (cp_sparse *)ctx;
  return tp_flycoo_mttkrp(space, c->X, M, n, G, 1);
}

/* The mode the records are ordered for now, without remapping them. */
static tp_status cp_sparse_mttkrp_trial(void *ctx, tp_space *space, const tp_kruskal *M, int *mode,
                                        void *G) {
  cp_sparse *c = (cp_sparse *)ctx;
  *mode = tp_flycoo_mode(c->X);
  return tp_flycoo_mttkrp(space, c->X, M, *mode, G, 0);
}

/* nvecs from the nonzeros, brought back to the host for it. */
static tp_status cp_sparse_nvecs(void *ctx, tp_space *space, uint64_t seed, tp_kruskal *host_init) {
  tp_coo host;
  TP_TRY(tp_flycoo_to_coo(space, ((cp_sparse *)ctx)->X, &host));
  tp_status st = tp_cp_nvecs_coo(&host, seed, host_init);
  tp_coo_free(NULL, &host);
  return st;
}

static int cp_sparse_passes(void *ctx) { return ((cp_sparse *)ctx)->order; }

tp_status tp_cp_als_sparse(tp_space *space, tp_flycoo *X, const tp_cp_als_options *opts,
                           tp_kruskal *model, tp_cp_als_result *result) {
  TP_CHECK_ARG(X && opts, "X and opts must not be NULL");
  tp_flycoo_stats s;
  TP_TRY(tp_flycoo_get_stats(X, &s));
  cp_sparse c = {X, s.order};
  tpi_cp_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = s.dtype, t.order = s.order, t.dims = s.dims;
  t.count = s.nnz;
  tpi_flycoo_norm2_scaled(X, &t.norm2, &t.norm2_scale);
  t.mttkrp = cp_sparse_mttkrp, t.passes = cp_sparse_passes, t.ctx = &c;
  t.mttkrp_trial = cp_sparse_mttkrp_trial, t.nvecs = cp_sparse_nvecs;
  return tpi_cp_als_run(space, &t, opts, model, result);
}
