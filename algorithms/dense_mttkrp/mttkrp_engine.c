/* The GEMM and BLOCKED variants: one engine, two memory plans.
 *
 * In canonical form (first index fastest) the modes are cut at t into a GEMM side and
 * the row modes, which include mode k:
 *   GEMM side before k (modes 0..t-1, size K): X is a row-major M x K matrix (lda K) whose
 *     rows c run over modes t..d-1, and T[c, r] = sum_g X[c, g] KR[g, r];
 *   GEMM side after k (modes t..d-1): X^T is M x K (rows c over modes 0..t-1, lda M).
 * KR is the Khatri-Rao product of the GEMM side's factors. Then
 *   G[i, r] = sum_{rows c with i_k = i} T[c, r] prod_{other row modes m} U_m[c_m, r]
 * is finished by the partial-tensor kernel, the other row modes' factors read on the fly.
 * The cut makes K as large as possible while keeping M large enough to fill the device
 * (GEMMs deep and wide, and T small next to X since |T| / |X| = R / K).
 *
 * GEMM (Phan et al.) forms the whole Khatri-Rao product of the GEMM side and the whole T.
 * BLOCKED bounds both by a budget: Khatri-Rao rows are formed pass by pass and T block by
 * block (blocks are runs of the slowest row mode); each block is one GEMM (or a batch of
 * GEMMs splitting the contraction, when a block alone is too small to fill the device)
 * followed at once by the partial kernel. On GPUs, consecutive blocks may go to concurrent
 * lanes (streams), each with its own T, so one block's last GEMM wave and partial kernel
 * overlap the next block's GEMM. Where every block adds into every row of G (blocks are
 * runs of a mode other than k), each block's partial kernel waits for the previous
 * block's: G then receives the blocks in order, and the sums repeat bit for bit.
 *
 * At large ranks BLOCKED also splits the rank into panels of columns (MTTKRP columns are
 * independent) and runs the whole scheme once per panel: the budget then holds blocks of
 * more rows and passes of more Khatri-Rao rows, and the GEMMs run near the device's peak
 * where full-width blocks would be small enough to waste most of their last wave. The
 * tensor is read once per panel, which costs little: the GEMMs stay compute-bound. */
#include <stdint.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/dense_mttkrp/tp_mttkrp_internal.h"
#include "algorithms/dense_mttkrp/mttkrp_plan.h"

typedef struct mttkrp_run {
  tp_space *space;
  const mttkrp_problem *p;
  const mttkrp_ops *ops;
  mttkrp_plan pl;
  void *kr, *T;
  int64_t kr_first;   /* the GEMM-side column (Khatri-Rao row) that kr's row 0 holds */
  int64_t lane_elems; /* T elements of one lane */
  int64_t c0, rc;     /* the current panel: columns [c0, c0 + rc) */
} mttkrp_run;

static const char *mttkrp_at(const void *base, int64_t elems, size_t elem_bytes) {
  return (const char *)base + (size_t)elems * elem_bytes;
}

/* One GEMM of the rows of one parity in [c0, c0 + rows): T's rows of that parity (row
 * stride 2 panel) = those rows of X (stride 2K) x KR rows [k_begin, k_end). */
static tp_status mttkrp_parity_gemm(mttkrp_run *r, void *T, int parity, int64_t c0, int64_t rows,
                                    int64_t k_begin, int64_t k_end) {
  const size_t eb = r->ops->elem_bytes;
  const int64_t K = r->pl.K, R = r->rc;
  const int64_t first = c0 + (((c0 & 1) != parity) ? 1 : 0);
  const int64_t count = first < c0 + rows ? (c0 + rows - first + 1) / 2 : 0;
  if (count == 0 || k_end <= k_begin)
    return TP_SUCCESS;
  return r->ops->gemm_batched(r->space, TP_NO_TRANS, TP_NO_TRANS, count, R, k_end - k_begin,
                              mttkrp_at(r->p->X, first * K + k_begin, eb), 2 * K, 0,
                              mttkrp_at(r->kr, (k_begin - r->kr_first) * R, eb), R, 0, 0.0,
                              (void *)mttkrp_at(T, (first - c0) * R, eb), 2 * R, 0, 1);
}

/* The GEMM of a block when X's rows have an odd length K (GEMM side before k, f64, on a
 * GPU). Every other row of X then starts 8 bytes off a 16-byte boundary, and cuBLAS
 * takes its unaligned kernels, which are slower. The rows of one parity are
 * a matrix of leading dimension 2K, aligned where its window of columns starts at an
 * even column (even rows) or an odd one (odd rows). So even rows contract this pass's
 * columns [k0, k0 + depth) and odd rows the window one column behind,
 * [k0 - 1, k0 + depth - 1), with the first pass's odd rows starting at 0 and the last
 * pass's reaching K: over the passes every row still meets every column once, and T's
 * blocks are summed over the passes anyway. The Khatri-Rao buffer holds row k0 - 1 too.
 * The two GEMMs run on two lanes, together about the size of one. */
static tp_status mttkrp_parity_gemms(mttkrp_run *r, void *T, int64_t k0, int64_t depth, int64_t c0,
                                     int64_t rows) {
  const int64_t odd_begin = k0 > 0 ? k0 - 1 : 0;
  const int64_t odd_end = k0 + depth == r->pl.K ? r->pl.K : k0 + depth - 1;
  int lanes = 1;
  TP_TRY(tp_space_lanes_begin(r->space, 2, &lanes));
  tp_status st = mttkrp_parity_gemm(r, T, 0, c0, rows, k0, k0 + depth);
  if (st == TP_SUCCESS)
    st = tp_space_lane_select(r->space, lanes - 1);
  if (st == TP_SUCCESS)
    st = mttkrp_parity_gemm(r, T, 1, c0, rows, odd_begin, odd_end);
  tp_status end = tp_space_lanes_end(r->space);
  return st != TP_SUCCESS ? st : end;
}

/* T[slot] = rows [c0, c0 + rows) of X (or X^T) x KR rows [slot * kc, ...) of this pass
 * (depth rows in all), for the current panel's columns. */
static tp_status mttkrp_block_gemm(mttkrp_run *r, void *T, int64_t k0, int64_t depth, int64_t c0,
                                   int64_t rows) {
  const mttkrp_plan *pl = &r->pl;
  const size_t eb = r->ops->elem_bytes;
  const int64_t R = r->rc;
  const int64_t full = depth / pl->kc, rest = depth % pl->kc;
  const int64_t lda = pl->gemm_before ? pl->K : pl->M;
  const int64_t base = pl->gemm_before ? k0 + lda * c0 : c0 + lda * k0;
  const int64_t step = pl->gemm_before ? pl->kc : pl->kc * lda; /* next slot's A */
  const tp_transpose ta = pl->gemm_before ? TP_NO_TRANS : TP_TRANS;
  if (pl->parity_split)
    return mttkrp_parity_gemms(r, T, k0, depth, c0, rows);
  if (full > 0)
    TP_TRY(r->ops->gemm_batched(r->space, ta, TP_NO_TRANS, rows, R, pl->kc,
                                mttkrp_at(r->p->X, base, eb), lda, step, r->kr, R, pl->kc * R, 0.0,
                                T, R, rows * R, full));
  if (rest > 0)
    TP_TRY(r->ops->gemm_batched(r->space, ta, TP_NO_TRANS, rows, R, rest,
                                mttkrp_at(r->p->X, base + full * step, eb), lda, 0,
                                mttkrp_at(r->kr, full * pl->kc * R, eb), R, 0, 0.0,
                                (void *)mttkrp_at(T, full * rows * R, eb), R, 0, 1));
  return TP_SUCCESS;
}

/* G += the block of slabs [s0, s0 + ns) of T contracted with the other row modes'
 * factors, in the current panel's columns. T's rows are spent afterwards (the partial
 * kernel may keep its sums in them). */
static tp_status mttkrp_block_finish(mttkrp_run *r, void *T, int64_t slots, int64_t s0,
                                     int64_t ns) {
  const mttkrp_plan *pl = &r->pl;
  const mttkrp_problem *p = r->p;
  const size_t eb = r->ops->elem_bytes;
  const int slowest = pl->row_first + pl->row_count - 1;
  mttkrp_partial pt;
  memset(&pt, 0, sizeof pt);
  pt.T = T;
  pt.T_spent = T;
  pt.rank = r->rc;
  pt.ld = p->rank;
  pt.slots = slots;
  pt.slot_stride = ns * pl->slab_rows * r->rc;
  pt.G = (void *)mttkrp_at(p->G, r->c0, eb);
  /* inner: the other modes' rows within one slab of the slowest row mode */
  const int64_t others = mttkrp_partial_add_modes(&pt, p, pl->row_first, slowest + 1);
  for (int m = 0; m < pt.q; ++m)
    pt.U[m] = mttkrp_at(pt.U[m], r->c0, eb);
  const int64_t inner = slowest == p->mode ? others : others / p->dims[slowest];
  if (slowest == p->mode) { /* the block is a run of mode k's indices */
    pt.p0 = s0, pt.p_count = ns;
    pt.o_begin = 0, pt.o_count = inner;
  } else { /* a run of the slowest other mode's indices */
    pt.p0 = 0, pt.p_count = p->dims[p->mode];
    pt.o_begin = s0 * inner, pt.o_count = ns * inner;
    pt.row_base = -s0 * pl->slab_rows;
  }
  return r->ops->partial(r->space, &pt);
}

/* Whether every block updates every row of G: blocks are runs of the slowest row mode,
 * which is then not mode k. */
static int mttkrp_blocks_share_rows(const mttkrp_run *r) {
  return r->pl.row_first + r->pl.row_count - 1 != r->p->mode;
}

/* One pass: Khatri-Rao rows [k0, k0 + depth) of the GEMM side, then every block. */
static tp_status mttkrp_pass(mttkrp_run *r, int64_t k0, int64_t depth) {
  const mttkrp_plan *pl = &r->pl;
  const size_t eb = r->ops->elem_bytes;
  const int first = pl->gemm_before ? 0 : pl->t;
  const int count = pl->gemm_before ? pl->t : r->p->d - pl->t;
  const void *U[MTTKRP_MAX_ORDER];
  for (int m = 0; m < count; ++m)
    U[m] = mttkrp_at(r->p->U[first + m], r->c0, eb);
  /* with the parity split, kr's row 0 holds column k0 - 1 (unused in the first pass) */
  r->kr_first = pl->parity_split ? k0 - 1 : k0;
  const int64_t behind = pl->parity_split && k0 > 0 ? 1 : 0;
  TP_TRY(r->ops->khatri_rao_rows(
      r->space, count, r->p->dims + first, U, r->rc, r->p->rank, k0 - behind, depth + behind,
      (void *)mttkrp_at(r->kr, (1 - behind) * pl->parity_split * r->rc, eb)));
  const int64_t slots = depth / pl->kc + (depth % pl->kc != 0);
  int lanes = 1;
  TP_TRY(tp_space_lanes_begin(r->space, pl->lanes, &lanes));
  tp_status st = TP_SUCCESS;
  int64_t b = 0;
  for (int64_t s0 = 0; st == TP_SUCCESS && s0 < pl->slabs; s0 += pl->block_slabs, ++b) {
    const int lane = (int)(b % lanes);
    void *T = (void *)mttkrp_at(r->T, lane * r->lane_elems, eb);
    const int64_t ns = mttkrp_min(pl->block_slabs, pl->slabs - s0);
    st = tp_space_lane_select(r->space, lane);
    if (st == TP_SUCCESS)
      st = mttkrp_block_gemm(r, T, k0, depth, s0 * pl->slab_rows, ns * pl->slab_rows);
    if (st == TP_SUCCESS && lanes > 1 && b > 0 && mttkrp_blocks_share_rows(r))
      st = tp_space_lane_after(r->space, (int)((b - 1) % lanes));
    if (st == TP_SUCCESS)
      st = mttkrp_block_finish(r, T, slots, s0, ns);
  }
  tp_status end = tp_space_lanes_end(r->space);
  return st != TP_SUCCESS ? st : end;
}

tp_status mttkrp_run_gemm_engine(tp_space *space, const mttkrp_problem *p, size_t workspace_bytes,
                                 int lanes, int64_t panel) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  mttkrp_run r;
  memset(&r, 0, sizeof r);
  r.space = space;
  r.p = p;
  r.ops = mttkrp_ops_for(p->dtype);
  TP_TRY(mttkrp_plan_make(&info, p, workspace_bytes, lanes, panel, &r.pl));
  const mttkrp_plan *pl = &r.pl;
  const size_t eb = r.ops->elem_bytes;
  const int64_t kr_rows = pl->kc * pl->slots;
  const int64_t t_rows = pl->slots * pl->block_slabs * pl->slab_rows; /* per lane */
  r.lane_elems = t_rows * pl->panel;
  TP_TRY(mttkrp_clear_output(space, p));
  TP_TRY(tp_temp_alloc(space, eb * (size_t)((kr_rows + pl->parity_split) * pl->panel), &r.kr));
  tp_status st = tp_temp_alloc(space, eb * (size_t)(pl->lanes * r.lane_elems), &r.T);
  for (r.c0 = 0; st == TP_SUCCESS && r.c0 < p->rank; r.c0 += pl->panel) {
    r.rc = mttkrp_min(pl->panel, p->rank - r.c0);
    for (int64_t k0 = 0; st == TP_SUCCESS && k0 < pl->K; k0 += kr_rows)
      st = mttkrp_pass(&r, k0, mttkrp_min(kr_rows, pl->K - k0));
  }
  tp_temp_release(space, r.T);
  tp_temp_release(space, r.kr);
  return st;
}
