/* Dense MTTKRP: options, validation, the canonical form and the dispatch to variants. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "portable/tp_error.h"
#include "algorithms/dense_mttkrp/tp_mttkrp_internal.h"

static const char *const variant_names[] = {"auto", "elem", "slice", "tile", "gemm", "blocked"};

tp_mttkrp_options tp_mttkrp_options_default(void) {
  tp_mttkrp_options o;
  memset(&o, 0, sizeof o);
  o.variant = TP_MTTKRP_AUTO;
  o.workspace_fraction = 0.01;
  return o;
}

const char *tp_mttkrp_variant_name(tp_mttkrp_variant v) {
  return (int)v >= 0 && (int)v <= TP_MTTKRP_BLOCKED ? variant_names[v] : "unknown";
}

tp_status tp_mttkrp_variant_parse(const char *name, tp_mttkrp_variant *v) {
  TP_CHECK_ARG(name && v, "name and v must not be NULL");
  for (int i = 0; i <= TP_MTTKRP_BLOCKED; ++i)
    if (strcmp(name, variant_names[i]) == 0) {
      *v = (tp_mttkrp_variant)i;
      return TP_SUCCESS;
    }
  return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "unknown MTTKRP variant '%s' (expected auto, elem, slice, tile, gemm or "
                  "blocked)",
                  name);
}

mttkrp_lanes mttkrp_choose_lanes(const tp_space *space, int64_t rank) {
  tp_space_info info;
  mttkrp_lanes l = {1, 1, 1};
  if (tp_space_get_info(space, &info) != TP_SUCCESS || !info.is_gpu) {
    l.width = rank >= 16 ? 16 : rank >= 8 ? 8 : rank >= 4 ? 4 : rank >= 3 ? 3 : rank >= 2 ? 2 : 1;
    return l;
  }
  /* GenTen: vector size from R, then 1-4 columns per lane, 128 threads per team. */
  int vs = rank >= 96 ? 32 : rank >= 48 ? 16 : rank >= 8 ? 8 : rank >= 4 ? 4 : rank >= 2 ? 2 : 1;
  l.vector = vs;
  l.width = rank > 3 * vs ? 4 : rank > 2 * vs ? 3 : rank > vs ? 2 : 1;
  l.team = 128 / vs;
  return l;
}

tp_status mttkrp_problem_make(const tp_dense *X, const tp_kruskal *U, int mode, void *G,
                              mttkrp_problem *p) {
  TP_CHECK_ARG(X && U, "X and U must not be NULL");
  TP_TRY(tp_dense_check(X));
  TP_TRY(tp_kruskal_check(U));
  TP_CHECK_ARG(X->dtype == U->dtype, "X is %s but the factors are %s", tp_dtype_name(X->dtype),
               tp_dtype_name(U->dtype));
  TP_CHECK_ARG(X->order == U->order, "X has order %d but the Kruskal tensor has order %d", X->order,
               U->order);
  TP_CHECK_ARG(mode >= 0 && mode < X->order, "mode %d is outside 0..%d", mode, X->order - 1);
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(X->dims[k] == U->dims[k], "mode %d: X has size %lld but factor %d has %lld rows",
                 k, (long long)X->dims[k], k, (long long)U->dims[k]);
  TP_CHECK_ARG(U->rank >= 1, "rank must be at least 1 (got %lld)", (long long)U->rank);
  TP_CHECK_ARG(X->data && G, "NULL tensor data or output");
  memset(p, 0, sizeof *p);
  const int d = X->order;
  const int flip = X->layout == TP_LAYOUT_RIGHT;
  p->dtype = X->dtype;
  p->d = d;
  p->mode = flip ? d - 1 - mode : mode;
  p->rank = U->rank;
  p->X = X->data;
  p->G = G;
  p->count = tp_dense_count(X);
  int64_t stride = 1;
  for (int k = 0; k < d; ++k) {
    int src = flip ? d - 1 - k : k;
    p->dims[k] = X->dims[src];
    p->U[k] = U->factors[src];
    p->strides[k] = stride;
    stride *= p->dims[k];
    TP_CHECK_ARG(src == mode || U->factors[src], "factor %d is NULL", src);
  }
  return TP_SUCCESS;
}

/* Per-core (CPU) or per-multiprocessor (GPU) middle-level cache: L2 per core on CPUs,
 * L1 per SM on GPUs, as the paper's Eq. 6 uses. */
static double mttkrp_middle_cache_bytes(const tp_space_info *info) {
  if (info->is_gpu)
    return info->l1_bytes ? (double)info->l1_bytes : 256.0 * 1024;
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l2 > 0 ? (double)l2 : 1024.0 * 1024;
}

/* Eq. 6: N_T = min( floor(((s_LM/4) / (s_f c/2))^(1/(d-1)))^(d-1), (min_n I_n)^(d-1) ),
 * with c the tiles resident per cache unit: 32 per SM on GPUs (the paper's H100 figure),
 * one per core on CPUs. Returns the edge N_T^(1/(d-1)). */
int64_t mttkrp_tile_edge(const tp_space *space, const mttkrp_problem *p) {
  tp_space_info info;
  if (tp_space_get_info(space, &info) != TP_SUCCESS)
    return 1;
  double c = info.is_gpu ? 32.0 : 1.0;
  double s_f = (double)tp_dtype_size(p->dtype);
  double elems = (mttkrp_middle_cache_bytes(&info) / 4.0) / (s_f * c / 2.0);
  int64_t edge = (int64_t)floor(pow(elems, 1.0 / (p->d - 1)) + 1e-9);
  int64_t smallest = p->dims[0];
  for (int k = 1; k < p->d; ++k)
    smallest = mttkrp_min(smallest, p->dims[k]);
  return mttkrp_max(1, mttkrp_min(edge, smallest));
}

int64_t tp_mttkrp_tile_volume(tp_space *space, const tp_dense *X, int64_t rank) {
  if (!space || tp_dense_check(X) != TP_SUCCESS)
    return 0;
  mttkrp_problem p;
  memset(&p, 0, sizeof p);
  p.d = X->order;
  p.dtype = X->dtype;
  p.rank = rank;
  for (int k = 0; k < X->order; ++k)
    p.dims[k] = X->dims[k];
  int64_t edge = mttkrp_tile_edge(space, &p), v = 1;
  for (int k = 1; k < X->order; ++k)
    v *= edge;
  return v;
}

size_t mttkrp_blocked_budget(const tp_dense *X, const tp_mttkrp_options *opts) {
  if (opts && opts->workspace_bytes)
    return opts->workspace_bytes;
  double fraction = opts && opts->workspace_fraction > 0 ? opts->workspace_fraction : 0.01;
  double bytes = fraction * (double)tp_dense_count(X) * (double)tp_dtype_size(X->dtype);
  return bytes < 4.0 * 1024 * 1024 ? (size_t)4 * 1024 * 1024 : (size_t)bytes;
}

static tp_status mttkrp_check_options(const tp_mttkrp_options *o) {
  TP_CHECK_ARG((int)o->variant >= 0 && (int)o->variant <= TP_MTTKRP_BLOCKED,
               "unknown MTTKRP variant %d", (int)o->variant);
  TP_CHECK_ARG(o->tile_volume >= 0, "tile volume %lld is negative", (long long)o->tile_volume);
  TP_CHECK_ARG(o->workspace_fraction >= 0 && o->workspace_fraction <= 1,
               "workspace fraction %g is outside [0, 1]", o->workspace_fraction);
  TP_CHECK_ARG(o->lanes >= 0 && o->lanes <= TP_SPACE_MAX_LANES, "lanes %d outside 0..%d", o->lanes,
               TP_SPACE_MAX_LANES);
  TP_CHECK_ARG(o->panel >= 0, "panel width %lld is negative", (long long)o->panel);
  return TP_SUCCESS;
}

/* The tile edge for TILE: from the option's volume (its (d-1)-th root), else Eq. 6. */
static int64_t mttkrp_edge_for(tp_space *space, const mttkrp_problem *p,
                               const tp_mttkrp_options *o) {
  if (o->tile_volume <= 0)
    return mttkrp_tile_edge(space, p);
  int64_t edge = (int64_t)floor(pow((double)o->tile_volume, 1.0 / (p->d - 1)) + 1e-9);
  return edge < 1 ? 1 : edge;
}

tp_status tp_mttkrp(tp_space *space, const tp_dense *X, const tp_kruskal *U, int mode, void *G,
                    const tp_mttkrp_options *opts) {
  TP_CHECK_ARG(space, "space must not be NULL");
  tp_mttkrp_options o = opts ? *opts : tp_mttkrp_options_default();
  TP_TRY(mttkrp_check_options(&o));
  mttkrp_problem p;
  TP_TRY(mttkrp_problem_make(X, U, mode, G, &p));
  tp_mttkrp_variant v =
      o.variant == TP_MTTKRP_AUTO ? tp_mttkrp_choose(space, X, mode, U->rank, &o) : o.variant;
  const mttkrp_ops *ops = mttkrp_ops_for(p.dtype);
  switch (v) {
  case TP_MTTKRP_ELEM: return ops->elem(space, &p);
  case TP_MTTKRP_SLICE: return ops->slice(space, &p);
  case TP_MTTKRP_TILE: return ops->tile(space, &p, mttkrp_edge_for(space, &p, &o));
  case TP_MTTKRP_GEMM: return mttkrp_run_gemm_engine(space, &p, 0, 1, 0);
  default: return mttkrp_run_gemm_engine(space, &p, mttkrp_blocked_budget(X, &o), o.lanes, o.panel);
  }
}
