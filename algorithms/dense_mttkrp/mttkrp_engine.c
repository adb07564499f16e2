/* The GEMM and BLOCKED variants: one engine, two memory plans.
 *
 * In canonical form the tensor is a three-way array X[l, i, j] (offset l + L i + L I j)
 * with l the modes before k (size L), i mode k (size I) and j the modes after k (size J).
 * The larger of L and J is the GEMM side (size K), the other the "other" side (size O):
 *   GEMM side before k: T[(i, j), r] = sum_l X[l, i, j] KR_before[l, r]    (X as rows (i,j), lda L)
 *   GEMM side after k:  T[(l, i), r] = sum_j X[l, i, j] KR_after[j, r]     (X^T, lda L I)
 * and G[i, r] = sum_other T[row(i, other), r] * prod_{other modes} U_m[other_m, r] is
 * finished by the partial-tensor kernel with the other side's factors read on the fly.
 *
 * GEMM (Phan et al.) forms the whole Khatri-Rao product of the GEMM side and the whole T.
 * BLOCKED bounds both by a budget: Khatri-Rao rows are formed pass by pass, T block by
 * block; each block is one GEMM (or a batch of GEMMs splitting the contraction, when a
 * block alone is too small to fill the device) followed at once by the partial kernel. */
#include <string.h>

#include "tp_error.h"
#include "tp_mttkrp_internal.h"

typedef struct tpm_plan {
  int gemm_before;           /* the GEMM side is the modes before k */
  int64_t K, O, I;           /* GEMM side, other side, mode k */
  int64_t n_inner, n_outer;  /* T's row grid: row = inner + n_inner * outer */
  int64_t block_inner, block_outer;
  int64_t kc, slots;         /* a pass forms slots * kc Khatri-Rao rows */
} tpm_plan;

/* Splits the contraction into slots when a block's GEMM output is too small to keep the
 * device busy; each slot contracts kc >= min_depth rows. */
static int64_t tpm_plan_slots(const tp_space_info *info, int64_t rows, int64_t rank,
                              int64_t room_rows, int64_t kr_rows) {
  const int64_t busy = info->is_gpu ? (int64_t)1 << 22 : ((int64_t)1 << 14) * info->compute_units;
  const int64_t min_depth = info->is_gpu ? 128 : 512;
  if (rows * rank >= busy)
    return 1;
  int64_t s = tpm_min(room_rows / rows, kr_rows / min_depth);
  return tpm_max(1, tpm_min(s, 1024));
}

static void tpm_plan_make(const tp_space_info *info, const tpm_problem *p, size_t budget,
                          tpm_plan *pl) {
  const int k = p->mode;
  const int64_t L = tpm_prod(p->dims, 0, k), J = tpm_prod(p->dims, k + 1, p->d);
  memset(pl, 0, sizeof *pl);
  pl->gemm_before = L >= J;
  pl->K = pl->gemm_before ? L : J;
  pl->O = pl->gemm_before ? J : L;
  pl->I = p->dims[k];
  pl->n_inner = pl->gemm_before ? pl->I : pl->O;
  pl->n_outer = pl->gemm_before ? pl->O : pl->I;
  pl->block_inner = pl->n_inner;
  pl->block_outer = pl->n_outer;
  pl->kc = pl->K;
  pl->slots = 1;
  if (budget == 0) /* GEMM: everything at once */
    return;
  const int64_t elems = (int64_t)(budget / tpm_ops_for(p->dtype)->elem_bytes);
  const int64_t room = tpm_max(1, elems / 2 / p->rank); /* rows for Khatri-Rao, and for T */
  const int64_t kr_rows = tpm_min(pl->K, room);
  if (pl->n_inner * pl->n_outer > room) {
    if (pl->n_inner <= room) {
      pl->block_outer = room / pl->n_inner;
    } else {
      pl->block_inner = room;
      pl->block_outer = 1;
    }
  }
  const int64_t rows = pl->block_inner * pl->block_outer;
  pl->slots = tpm_plan_slots(info, rows, p->rank, room, kr_rows);
  pl->kc = tpm_max(1, kr_rows / pl->slots);
}

/* The modes of one side: [first, first + count). */
static void tpm_side_modes(const tpm_problem *p, int before, int *first, int *count) {
  *first = before ? 0 : p->mode + 1;
  *count = before ? p->mode : p->d - p->mode - 1;
}

typedef struct tpm_run {
  tp_space *space;
  const tpm_problem *p;
  const tpm_ops *ops;
  tpm_plan pl;
  void *kr, *T;
} tpm_run;

static const char *tpm_at(const void *base, int64_t elems, size_t elem_bytes) {
  return (const char *)base + (size_t)elems * elem_bytes;
}

/* T[slot] = X block x KR rows [slot * kc, ...) of this pass (depth rows in all). */
static tp_status tpm_block_gemm(tpm_run *r, int64_t k0, int64_t depth, int64_t inner0,
                                int64_t outer0, int64_t rows) {
  const tpm_plan *pl = &r->pl;
  const tpm_problem *p = r->p;
  const size_t eb = r->ops->elem_bytes;
  const int64_t R = p->rank, row0 = inner0 + pl->n_inner * outer0;
  const int64_t full = depth / pl->kc, rest = depth % pl->kc;
  const int64_t L = pl->gemm_before ? pl->K : pl->O;
  const int64_t lda = pl->gemm_before ? L : L * pl->I;
  /* element offset of GEMM-side row g and T row c */
  const int64_t base = pl->gemm_before ? k0 + L * row0 : row0 + lda * k0;
  const int64_t step = pl->gemm_before ? pl->kc : pl->kc * lda; /* next slot's A */
  const tp_transpose ta = pl->gemm_before ? TP_NO_TRANS : TP_TRANS;
  if (full > 0)
    TP_TRY(r->ops->gemm_batched(r->space, ta, TP_NO_TRANS, rows, R, pl->kc,
                                tpm_at(p->X, base, eb), lda, step, r->kr, R, pl->kc * R, 0.0,
                                r->T, R, rows * R, full));
  if (rest > 0)
    TP_TRY(r->ops->gemm_batched(r->space, ta, TP_NO_TRANS, rows, R, rest,
                                tpm_at(p->X, base + full * step, eb), lda, 0,
                                tpm_at(r->kr, full * pl->kc * R, eb), R, 0, 0.0,
                                (void *)tpm_at(r->T, full * rows * R, eb), R, 0, 1));
  return TP_SUCCESS;
}

/* G += the block's T contracted with the other side's factors. */
static tp_status tpm_block_finish(tpm_run *r, int64_t slots, int64_t inner0, int64_t n_in,
                                  int64_t outer0, int64_t n_out) {
  const tpm_plan *pl = &r->pl;
  const tpm_problem *p = r->p;
  tpm_partial pt;
  memset(&pt, 0, sizeof pt);
  pt.T = r->T;
  pt.rank = p->rank;
  pt.slots = slots;
  pt.slot_stride = n_in * n_out * p->rank;
  pt.G = p->G;
  int first, count;
  tpm_side_modes(p, !pl->gemm_before, &first, &count);
  pt.q = count;
  int64_t stride = 1;
  for (int m = 0; m < count; ++m) {
    pt.other_dims[m] = p->dims[first + m];
    pt.U[m] = p->U[first + m];
    pt.row_stride[m] = pl->gemm_before ? n_in * stride : stride;
    stride *= p->dims[first + m];
  }
  if (pl->gemm_before) { /* inner = mode k, outer = other */
    pt.p0 = inner0, pt.p_count = n_in, pt.p_stride = 1;
    pt.o_begin = outer0, pt.o_count = n_out, pt.row_base = -n_in * outer0;
  } else { /* inner = other, outer = mode k */
    pt.p0 = outer0, pt.p_count = n_out, pt.p_stride = n_in;
    pt.o_begin = inner0, pt.o_count = n_in, pt.row_base = -inner0;
  }
  return r->ops->partial(r->space, &pt);
}

/* One pass: Khatri-Rao rows [k0, k0 + depth) of the GEMM side, then every block. */
static tp_status tpm_pass(tpm_run *r, int64_t k0, int64_t depth) {
  const tpm_plan *pl = &r->pl;
  int first, count;
  tpm_side_modes(r->p, pl->gemm_before, &first, &count);
  TP_TRY(r->ops->khatri_rao_rows(r->space, count, r->p->dims + first, r->p->U + first,
                                 r->p->rank, k0, depth, r->kr));
  const int64_t slots = depth / pl->kc + (depth % pl->kc != 0);
  for (int64_t o0 = 0; o0 < pl->n_outer; o0 += pl->block_outer) {
    const int64_t n_out = tpm_min(pl->block_outer, pl->n_outer - o0);
    for (int64_t i0 = 0; i0 < pl->n_inner; i0 += pl->block_inner) {
      const int64_t n_in = tpm_min(pl->block_inner, pl->n_inner - i0);
      TP_TRY(tpm_block_gemm(r, k0, depth, i0, o0, n_in * n_out));
      TP_TRY(tpm_block_finish(r, slots, i0, n_in, o0, n_out));
    }
  }
  return TP_SUCCESS;
}

tp_status tpm_run_gemm_engine(tp_space *space, const tpm_problem *p, size_t workspace_bytes) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  tpm_run r;
  memset(&r, 0, sizeof r);
  r.space = space;
  r.p = p;
  r.ops = tpm_ops_for(p->dtype);
  tpm_plan_make(&info, p, workspace_bytes, &r.pl);
  const tpm_plan *pl = &r.pl;
  const size_t eb = r.ops->elem_bytes;
  const int64_t kr_rows = pl->kc * pl->slots;
  const int64_t t_rows = pl->slots * pl->block_inner * pl->block_outer;
  TP_TRY(tp_memset(space, p->G, 0, eb * (size_t)(pl->I * p->rank)));
  TP_TRY(tp_temp_alloc(space, eb * (size_t)(kr_rows * p->rank), &r.kr));
  tp_status st = tp_temp_alloc(space, eb * (size_t)(t_rows * p->rank), &r.T);
  for (int64_t k0 = 0; st == TP_SUCCESS && k0 < pl->K; k0 += kr_rows)
    st = tpm_pass(&r, k0, tpm_min(kr_rows, pl->K - k0));
  tp_temp_release(space, r.T);
  tp_temp_release(space, r.kr);
  return st;
}
