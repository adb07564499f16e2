/* MTTKRPs of all modes in CP-ALS order with two passes over the tensor.
 *
 * In canonical form the modes are split into A = {0..s} and B = {s+1..d-1}. The partial
 * P_A[a, r] = sum_b X[a, b] KR_B[b, r] (a over A's multi-index) holds everything mode
 * k in A needs, and only depends on B's factors; P_B likewise. CP-ALS updates the
 * factors of one group while the other's stay fixed, so each group's partial is formed
 * once per iteration, by one GEMM pass over X, just before the group's first mode;
 * every MTTKRP of the group is then a small contraction of the partial. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/dense_mttkrp/tp_mttkrp_internal.h"

struct tp_mttkrp_sweep {
  tp_space *space;
  tp_dense X;
  int64_t rank;
  tp_mttkrp_options opts;
  int reuse;
  int split;     /* canonical modes 0..split form group A */
  int have[2];   /* group A / B partial is current for this iteration */
  void *partial; /* the current group's partial (max(L_s, J_s) x rank) */
  size_t budget; /* Khatri-Rao rows per pass */
};

/* The split that makes the larger partial smallest. */
static int mttkrp_best_split(const int64_t *dims, int d, int64_t *rows) {
  int best = 0;
  *rows = -1;
  for (int s = 0; s + 1 < d; ++s) {
    int64_t m = mttkrp_max(mttkrp_prod(dims, 0, s + 1), mttkrp_prod(dims, s + 1, d));
    if (*rows < 0 || m < *rows) {
      *rows = m;
      best = s;
    }
  }
  return best;
}

/* Whether the partials pay for themselves: each iteration then reads X twice instead of
 * once per mode, and every MTTKRP becomes a contraction of a partial. That wins whenever
 * the partial is no larger than the tensor (at large ranks the passes are GEMMs: 2 of
 * them instead of d). A 4-rank block of tensor B (65 x 65 x 129 x 12 x 39, R = 2000) has
 * a 0.97 GB partial and is 2.1 GB: under the former limit, a quarter of the tensor, it
 * read X five times per iteration and took longer than the 2-rank block, twice its size
 * with the same partial. The partial must also leave room: at most half of
 * what the space does not hold yet (and if it still cannot be had, as under a memory
 * limit, the sweep goes without). */
static int partial_pays(tp_space *space, size_t partial, size_t tensor) {
  const size_t floor_bytes = (size_t)64 << 20; /* small partials always */
  if (partial <= floor_bytes)
    return 1;
  if (partial > tensor)
    return 0;
  tp_space_info info;
  if (tp_space_get_info(space, &info) != TP_SUCCESS || info.memory_bytes == 0)
    return 1;
  size_t used = tp_space_bytes_in_use(space);
  return used < info.memory_bytes && partial <= (info.memory_bytes - used) / 2;
}

tp_status tp_mttkrp_sweep_create(tp_space *space, const tp_dense *X, int64_t rank,
                                 const tp_mttkrp_options *opts, size_t partial_bytes_limit,
                                 tp_mttkrp_sweep **sweep) {
  TP_CHECK_ARG(space && X && sweep, "space, X and sweep must not be NULL");
  *sweep = NULL;
  TP_TRY(tp_dense_check(X));
  TP_CHECK_ARG(rank >= 1, "rank must be at least 1 (got %lld)", (long long)rank);
  tp_mttkrp_sweep *s = (tp_mttkrp_sweep *)calloc(1, sizeof *s);
  if (!s)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for an MTTKRP sweep");
  s->space = space;
  s->X = *X;
  s->rank = rank;
  s->opts = opts ? *opts : tp_mttkrp_options_default();
  s->budget = mttkrp_blocked_budget(X, &s->opts);
  int64_t canonical[TP_DENSE_MAX_ORDER], rows;
  for (int k = 0; k < X->order; ++k)
    canonical[k] = X->dims[X->layout == TP_LAYOUT_RIGHT ? X->order - 1 - k : k];
  s->split = mttkrp_best_split(canonical, X->order, &rows);
  const size_t bytes = tp_dtype_size(X->dtype) * (size_t)rows * (size_t)rank;
  const size_t tensor = tp_dtype_size(X->dtype) * (size_t)tp_dense_count(X);
  tp_mttkrp_variant v = s->opts.variant;
  s->reuse =
      (v == TP_MTTKRP_AUTO || v == TP_MTTKRP_GEMM || v == TP_MTTKRP_BLOCKED) &&
      (partial_bytes_limit ? bytes <= partial_bytes_limit : partial_pays(space, bytes, tensor));
  tp_status st = s->reuse ? tp_alloc(space, bytes, &s->partial) : TP_SUCCESS;
  if (st == TP_ERROR_OUT_OF_MEMORY && !partial_bytes_limit) {
    /* the estimate was wrong (a memory limit, other users of the device): no partials */
    tp_clear_error();
    s->reuse = 0, s->partial = NULL, st = TP_SUCCESS;
  }
  if (st != TP_SUCCESS) {
    free(s);
    return st;
  }
  *sweep = s;
  return TP_SUCCESS;
}

int tp_mttkrp_sweep_passes(const tp_mttkrp_sweep *s) { return !s ? 0 : s->reuse ? 2 : s->X.order; }

tp_status tp_mttkrp_sweep_destroy(tp_mttkrp_sweep **sweep) {
  if (!sweep || !*sweep)
    return TP_SUCCESS;
  tp_status st = tp_free((*sweep)->space, (*sweep)->partial);
  free(*sweep);
  *sweep = NULL;
  return st;
}

/* partial = X contracted with the Khatri-Rao product of the other group's factors,
 * pass by pass over that product's rows. */
static tp_status mttkrp_form_partial(tp_mttkrp_sweep *s, const mttkrp_problem *p, int group_a) {
  const mttkrp_ops *ops = mttkrp_ops_for(p->dtype);
  const size_t eb = ops->elem_bytes;
  const int64_t R = p->rank, La = mttkrp_prod(p->dims, 0, s->split + 1);
  const int64_t Jb = mttkrp_prod(p->dims, s->split + 1, p->d);
  const int first = group_a ? s->split + 1 : 0,
            count = group_a ? p->d - s->split - 1 : s->split + 1;
  const int64_t K = group_a ? Jb : La, M = group_a ? La : Jb;
  const int64_t depth = mttkrp_max(1, mttkrp_min(K, (int64_t)(s->budget / eb) / R));
  void *kr = NULL;
  TP_TRY(tp_temp_alloc(s->space, eb * (size_t)(depth * R), &kr));
  tp_status st = TP_SUCCESS;
  for (int64_t k0 = 0; st == TP_SUCCESS && k0 < K; k0 += depth) {
    const int64_t n = mttkrp_min(depth, K - k0);
    st = ops->khatri_rao_rows(s->space, count, p->dims + first, p->U + first, R, R, k0, n, kr);
    if (st != TP_SUCCESS)
      break;
    const double beta = k0 == 0 ? 0.0 : 1.0;
    if (group_a) /* P[a, r] += sum_b X[a + La b] KR[b, r]: X^T rows b, lda La */
      st = ops->gemm_batched(s->space, TP_TRANS, TP_NO_TRANS, M, R, n,
                             (const char *)p->X + eb * (size_t)(La * k0), La, 0, kr, R, 0, beta,
                             s->partial, R, 0, 1);
    else /* P[b, r] += sum_a X[a + La b] KR[a, r]: X rows b, lda La */
      st = ops->gemm_batched(s->space, TP_NO_TRANS, TP_NO_TRANS, M, R, n,
                             (const char *)p->X + eb * (size_t)k0, La, 0, kr, R, 0, beta,
                             s->partial, R, 0, 1);
  }
  tp_temp_release(s->space, kr);
  return st;
}

/* G = MTTKRP of the group's partial in canonical mode k. */
static tp_status mttkrp_from_partial(tp_mttkrp_sweep *s, const mttkrp_problem *p, int group_a) {
  const int first = group_a ? 0 : s->split + 1, last = group_a ? s->split + 1 : p->d;
  mttkrp_partial pt;
  memset(&pt, 0, sizeof pt);
  pt.T = s->partial;
  pt.rank = p->rank;
  pt.slots = 1;
  pt.G = p->G;
  pt.p_count = p->dims[p->mode];
  pt.o_count = mttkrp_partial_add_modes(&pt, p, first, last);
  TP_TRY(mttkrp_clear_output(s->space, p));
  return mttkrp_ops_for(p->dtype)->partial(s->space, &pt);
}

tp_status tp_mttkrp_sweep_restart(tp_mttkrp_sweep *s) {
  TP_CHECK_ARG(s, "sweep must not be NULL");
  s->have[0] = s->have[1] = 0;
  return TP_SUCCESS;
}

tp_status tp_mttkrp_sweep_mode(tp_mttkrp_sweep *s, const tp_kruskal *U, int mode, void *G) {
  TP_CHECK_ARG(s, "sweep must not be NULL");
  TP_CHECK_ARG(U && U->rank == s->rank, "the factors' rank differs from the sweep's %lld",
               (long long)s->rank);
  if (!s->reuse)
    return tp_mttkrp(s->space, &s->X, U, mode, G, &s->opts);
  mttkrp_problem p;
  TP_TRY(mttkrp_problem_make(&s->X, U, mode, G, &p));
  if (mode == 0)
    s->have[0] = s->have[1] = 0;
  const int group_a = p.mode <= s->split;
  if (!s->have[group_a ? 0 : 1]) {
    TP_TRY(mttkrp_form_partial(s, &p, group_a));
    s->have[group_a ? 0 : 1] = 1;
  }
  return mttkrp_from_partial(s, &p, group_a);
}
