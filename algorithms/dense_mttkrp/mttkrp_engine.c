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
 * overlap the next block's GEMM.
 *
 * At large ranks BLOCKED also splits the rank into panels of columns (MTTKRP columns are
 * independent) and runs the whole scheme once per panel: the budget then holds blocks of
 * more rows and passes of more Khatri-Rao rows, and the GEMMs run near the device's peak
 * where full-width blocks would be small enough to waste most of their last wave. The
 * tensor is read once per panel, which costs little: the GEMMs stay compute-bound. */
#include <stdint.h>
#include <string.h>

#include "tp_error.h"
#include "tp_mttkrp_internal.h"

typedef struct tpm_plan {
  int gemm_before;          /* the GEMM side is modes 0..t-1 (else t..d-1) */
  int t;
  int row_first, row_count; /* the row modes */
  int64_t K, M;             /* GEMM side size, rows */
  int64_t slab_rows;        /* rows per index of the slowest row mode */
  int64_t slabs;            /* size of the slowest row mode */
  int64_t block_slabs;      /* slabs per block of T */
  int64_t kc, slots;        /* a pass forms slots * kc Khatri-Rao rows */
  int64_t panel;            /* rank columns per pass over the tensor */
  int lanes;                /* blocks alternate between this many concurrent lanes */
  int parity_split;         /* GEMMs by row parity, aligned (see tpm_parity_gemms) */
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

/* Fills the cut-dependent fields of pl for cut t. */
static void tpm_plan_cut(const tpm_problem *p, int t, tpm_plan *pl) {
  pl->t = t;
  pl->gemm_before = t <= p->mode;
  pl->row_first = pl->gemm_before ? t : 0;
  pl->row_count = pl->gemm_before ? p->d - t : t;
  pl->K = pl->gemm_before ? tpm_prod(p->dims, 0, t) : tpm_prod(p->dims, t, p->d);
  pl->M = p->count / pl->K;
  pl->slabs = p->dims[pl->row_first + pl->row_count - 1];
  pl->slab_rows = pl->M / pl->slabs;
}

/* The cut: the deepest GEMM side whose rows still number at least min_rows and whose
 * slabs fit the T budget; without one (small tensors), the most balanced cut that fits. */
static int tpm_choose_cut(const tpm_problem *p, int64_t min_rows, int64_t room) {
  int best = -1, balanced = p->mode;
  int64_t best_k = 0, balance = 0;
  for (int t = 0; t < p->d; ++t) { /* t = d would leave an empty GEMM side after k */
    tpm_plan c;
    tpm_plan_cut(p, t, &c);
    if (c.slab_rows > room)
      continue;
    if (c.M >= min_rows && c.K > best_k)
      best = t, best_k = c.K;
    if (tpm_min(c.K, c.M) > balance)
      balanced = t, balance = tpm_min(c.K, c.M);
  }
  return best >= 0 ? best : balanced;
}

/* Lanes when the caller leaves the choice: two on GPUs when the GEMM side is after mode
 * k (X^T blocks) and the rank is split into panels, so that one block's partial kernel
 * and last GEMM wave overlap the next block's GEMM; else one. Measured on an H200, on
 * the paper's tensor A (modes 0 and 1 are X^T blocks): at R = 2000 two lanes took those
 * modes from 45-50 ms to 42.7 and 45.2 ms, at R = 500 (one panel) from 11.9 to 13.8 ms;
 * modes 2 and 3 (GEMM side before k, odd rows split by parity on two lanes of their
 * own) went from 46-49 ms to 56-58 ms with two block lanes instead. Two lanes need a
 * slab to fit half the room. */
static int tpm_auto_lanes(const tp_space_info *info, const tpm_plan *pl, int64_t rank,
                          int64_t room) {
  return info->is_gpu && !pl->gemm_before && pl->panel < rank && pl->slab_rows <= room / 2 ? 2
                                                                                          : 1;
}

/* Rank columns per panel. Automatic: the whole rank on CPUs (BLAS runs any block shape
 * near its peak there) and on GPUs while the budget holds blocks and passes of about
 * 4096 rows each at full width; else panels of at least 512 columns, narrow enough for
 * that. (On an H200, FP64 GEMMs of 4224 x 512 x 5250 ran at 58 TFLOP/s and those of
 * 1212 x 2000 x 1212, what a 1% budget holds at full width on the paper's tensor A at
 * R = 2000, at 43.) A width below the rank is evened out over the panels it implies and
 * rounded up to a multiple of 64 columns, the GEMM tiles' width (500-column GEMMs ran
 * up to 10% slower than 512-column ones); the last panel takes the rest. */
static int64_t tpm_panel_width(const tp_space_info *info, int64_t rank, int64_t elems,
                               int64_t given) {
  int64_t widest = rank;
  if (given > 0)
    widest = given;
  else if (info->is_gpu)
    widest = tpm_max(512, elems / (2 * 4096));
  if (widest >= rank)
    return rank;
  const int64_t panels = (rank + widest - 1) / widest;
  const int64_t even = (rank + panels - 1) / panels;
  return given > 0 ? even : tpm_min(rank, (even + 63) / 64 * 64);
}

/* GEMM waves of a block of `rows` rows: cuBLAS' FP64 tiles on sm_90 are 64 or 128 wide,
 * so whole waves of 128 x 128 tiles are whole waves of theirs. */
static int64_t tpm_gemm_waves(const tp_space_info *info, int64_t rows, int64_t panel) {
  const int64_t tiles = (rows + 127) / 128 * ((panel + 127) / 128);
  const int64_t sms = tpm_max(1, info->compute_units);
  return (tiles + sms - 1) / sms;
}

/* Slabs per block on GPUs. A block's GEMM runs in waves of output tiles over the
 * multiprocessors, and a block that spills a few tiles into one more wave pays for all
 * of it. Among the block sizes that fit, take the one whose blocks (the last one
 * included) cost the fewest waves over all slabs, counting a quarter wave more per block
 * for its fixed costs (launches, the partial kernel, the GEMM's ramp). */
static int64_t tpm_gpu_block_slabs(const tp_space_info *info, int64_t slab_rows, int64_t slabs,
                                   int64_t most, int64_t panel) {
  if (tpm_gemm_waves(info, most * slab_rows, panel) >= 16)
    return most; /* the last wave is a small share */
  int64_t best = most;
  double best_cost = 0;
  for (int64_t s = most, n = 0; s >= 1 && n < 65536; --s, ++n) {
    const int64_t full = slabs / s, rest = slabs % s;
    double cost = (double)full * ((double)tpm_gemm_waves(info, s * slab_rows, panel) + 0.25);
    if (rest > 0)
      cost += (double)tpm_gemm_waves(info, rest * slab_rows, panel) + 0.25;
    if (n == 0 || cost < best_cost * 0.999)
      best = s, best_cost = cost;
  }
  return best;
}

/* Khatri-Rao rows per pass: at most `cap`, the passes over the GEMM side as even as
 * possible, in slots of kc rows. */
static void tpm_plan_depth(const tp_space_info *info, tpm_plan *pl, int64_t rows,
                           int64_t lane_room, int64_t cap) {
  int64_t kr_rows = tpm_min(pl->K, tpm_max(1, cap));
  pl->slots = tpm_plan_slots(info, rows, pl->panel, lane_room, kr_rows);
  if (pl->slots > 1) /* T takes slots times more of the budget */
    kr_rows = tpm_min(kr_rows, tpm_max(1, cap - (pl->slots - 1) * pl->lanes * rows));
  const int64_t passes = (pl->K + kr_rows - 1) / kr_rows;
  const int64_t per_pass = (pl->K + passes - 1) / passes;
  pl->kc = tpm_max(1, per_pass / pl->slots);
}

/* Whether a GPU's GEMMs should read X by row parity (tpm_parity_gemms): f64 rows of an
 * odd length K, one GEMM per block (no slots, one lane), passes of an even depth. */
static int tpm_wants_parity_split(const tp_space_info *info, const tpm_problem *p,
                                  const tpm_plan *pl) {
  return info->is_gpu && p->dtype == TP_DTYPE_F64 && pl->gemm_before && pl->K % 2 == 1 &&
         pl->K >= 5 && pl->slots == 1 && pl->lanes == 1 && pl->block_slabs * pl->slab_rows >= 2 &&
         (uintptr_t)p->X % 16 == 0;
}

static void tpm_plan_make(const tp_space_info *info, const tpm_problem *p, size_t budget,
                          int lanes, int64_t panel, tpm_plan *pl) {
  memset(pl, 0, sizeof *pl);
  const int64_t elems = budget ? (int64_t)(budget / tpm_ops_for(p->dtype)->elem_bytes) : 0;
  pl->panel = budget ? tpm_panel_width(info, p->rank, elems, panel) : p->rank;
  const int64_t width_rows = budget ? tpm_max(2, elems / pl->panel) : 0; /* T + KR rows */
  const int64_t room = budget ? width_rows / 2 : p->count;                /* T rows */
  pl->lanes = budget && lanes > 0 ? lanes : 1;
  int64_t lane_room = tpm_max(1, room / pl->lanes); /* T rows of one lane */
  const int64_t min_rows = info->is_gpu ? 2048 : 256;
  tpm_plan_cut(p, tpm_choose_cut(p, min_rows, lane_room), pl);
  pl->block_slabs = pl->slabs;
  pl->kc = pl->K;
  pl->slots = 1;
  if (budget == 0) /* GEMM: everything at once */
    return;
  if (lanes == 0) {
    pl->lanes = tpm_auto_lanes(info, pl, p->rank, room);
    lane_room = tpm_max(1, room / pl->lanes);
  }
  const int64_t most = tpm_max(1, tpm_min(pl->slabs, lane_room / pl->slab_rows));
  pl->block_slabs = info->is_gpu ? tpm_gpu_block_slabs(info, pl->slab_rows, pl->slabs, most, pl->panel)
                                 : most;
  if (pl->block_slabs >= pl->slabs)
    pl->lanes = 1; /* one block: nothing to overlap */
  const int64_t rows = pl->block_slabs * pl->slab_rows;
  tpm_plan_depth(info, pl, rows, lane_room, width_rows - pl->lanes * rows - 1);
  pl->parity_split = tpm_wants_parity_split(info, p, pl);
  if (pl->parity_split && pl->kc % 2 == 1 && pl->kc < pl->K)
    pl->kc = tpm_max(2, pl->kc - 1); /* every pass starts at an even column */
}

typedef struct tpm_run {
  tp_space *space;
  const tpm_problem *p;
  const tpm_ops *ops;
  tpm_plan pl;
  void *kr, *T;
  int64_t kr_first;   /* the GEMM-side column (Khatri-Rao row) that kr's row 0 holds */
  int64_t lane_elems; /* T elements of one lane */
  int64_t c0, rc;     /* the current panel: columns [c0, c0 + rc) */
} tpm_run;

static const char *tpm_at(const void *base, int64_t elems, size_t elem_bytes) {
  return (const char *)base + (size_t)elems * elem_bytes;
}

/* One GEMM of the rows of one parity in [c0, c0 + rows): T's rows of that parity (row
 * stride 2 panel) = those rows of X (stride 2K) x KR rows [k_begin, k_end). */
static tp_status tpm_parity_gemm(tpm_run *r, void *T, int parity, int64_t c0, int64_t rows,
                                 int64_t k_begin, int64_t k_end) {
  const size_t eb = r->ops->elem_bytes;
  const int64_t K = r->pl.K, R = r->rc;
  const int64_t first = c0 + (((c0 & 1) != parity) ? 1 : 0);
  const int64_t count = first < c0 + rows ? (c0 + rows - first + 1) / 2 : 0;
  if (count == 0 || k_end <= k_begin)
    return TP_SUCCESS;
  return r->ops->gemm_batched(r->space, TP_NO_TRANS, TP_NO_TRANS, count, R, k_end - k_begin,
                              tpm_at(r->p->X, first * K + k_begin, eb), 2 * K, 0,
                              tpm_at(r->kr, (k_begin - r->kr_first) * R, eb), R, 0, 0.0,
                              (void *)tpm_at(T, (first - c0) * R, eb), 2 * R, 0, 1);
}

/* The GEMM of a block when X's rows have an odd length K (GEMM side before k, f64, on a
 * GPU). Every other row of X then starts 8 bytes off a 16-byte boundary, and cuBLAS
 * takes its unaligned kernels, up to 14% slower on an H200. The rows of one parity are
 * a matrix of leading dimension 2K, aligned where its window of columns starts at an
 * even column (even rows) or an odd one (odd rows). So even rows contract this pass's
 * columns [k0, k0 + depth) and odd rows the window one column behind,
 * [k0 - 1, k0 + depth - 1), with the first pass's odd rows starting at 0 and the last
 * pass's reaching K: over the passes every row still meets every column once, and T's
 * blocks are summed over the passes anyway. The Khatri-Rao buffer holds row k0 - 1 too.
 * The two GEMMs run on two lanes, together about the size of one. */
static tp_status tpm_parity_gemms(tpm_run *r, void *T, int64_t k0, int64_t depth, int64_t c0,
                                  int64_t rows) {
  const int64_t odd_begin = k0 > 0 ? k0 - 1 : 0;
  const int64_t odd_end = k0 + depth == r->pl.K ? r->pl.K : k0 + depth - 1;
  int lanes = 1;
  TP_TRY(tp_space_lanes_begin(r->space, 2, &lanes));
  tp_status st = tpm_parity_gemm(r, T, 0, c0, rows, k0, k0 + depth);
  if (st == TP_SUCCESS)
    st = tp_space_lane_select(r->space, lanes - 1);
  if (st == TP_SUCCESS)
    st = tpm_parity_gemm(r, T, 1, c0, rows, odd_begin, odd_end);
  tp_status end = tp_space_lanes_end(r->space);
  return st != TP_SUCCESS ? st : end;
}

/* T[slot] = rows [c0, c0 + rows) of X (or X^T) x KR rows [slot * kc, ...) of this pass
 * (depth rows in all), for the current panel's columns. */
static tp_status tpm_block_gemm(tpm_run *r, void *T, int64_t k0, int64_t depth, int64_t c0,
                                int64_t rows) {
  const tpm_plan *pl = &r->pl;
  const size_t eb = r->ops->elem_bytes;
  const int64_t R = r->rc;
  const int64_t full = depth / pl->kc, rest = depth % pl->kc;
  const int64_t lda = pl->gemm_before ? pl->K : pl->M;
  const int64_t base = pl->gemm_before ? k0 + lda * c0 : c0 + lda * k0;
  const int64_t step = pl->gemm_before ? pl->kc : pl->kc * lda; /* next slot's A */
  const tp_transpose ta = pl->gemm_before ? TP_NO_TRANS : TP_TRANS;
  if (pl->parity_split)
    return tpm_parity_gemms(r, T, k0, depth, c0, rows);
  if (full > 0)
    TP_TRY(r->ops->gemm_batched(r->space, ta, TP_NO_TRANS, rows, R, pl->kc,
                                tpm_at(r->p->X, base, eb), lda, step, r->kr, R, pl->kc * R,
                                0.0, T, R, rows * R, full));
  if (rest > 0)
    TP_TRY(r->ops->gemm_batched(r->space, ta, TP_NO_TRANS, rows, R, rest,
                                tpm_at(r->p->X, base + full * step, eb), lda, 0,
                                tpm_at(r->kr, full * pl->kc * R, eb), R, 0, 0.0,
                                (void *)tpm_at(T, full * rows * R, eb), R, 0, 1));
  return TP_SUCCESS;
}

/* G += the block of slabs [s0, s0 + ns) of T contracted with the other row modes'
 * factors, in the current panel's columns. */
static tp_status tpm_block_finish(tpm_run *r, const void *T, int64_t slots, int64_t s0,
                                  int64_t ns, int concurrent) {
  const tpm_plan *pl = &r->pl;
  const tpm_problem *p = r->p;
  const size_t eb = r->ops->elem_bytes;
  const int slowest = pl->row_first + pl->row_count - 1;
  tpm_partial pt;
  memset(&pt, 0, sizeof pt);
  pt.T = T;
  pt.rank = r->rc;
  pt.ld = p->rank;
  pt.slots = slots;
  pt.slot_stride = ns * pl->slab_rows * r->rc;
  pt.G = (void *)tpm_at(p->G, r->c0, eb);
  /* inner: the other modes' rows within one slab of the slowest row mode */
  const int64_t others = tpm_partial_add_modes(&pt, p, pl->row_first, slowest + 1);
  for (int m = 0; m < pt.q; ++m)
    pt.U[m] = tpm_at(pt.U[m], r->c0, eb);
  const int64_t inner = slowest == p->mode ? others : others / p->dims[slowest];
  pt.shared = concurrent && slowest != p->mode;
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

/* One pass: Khatri-Rao rows [k0, k0 + depth) of the GEMM side, then every block. */
static tp_status tpm_pass(tpm_run *r, int64_t k0, int64_t depth) {
  const tpm_plan *pl = &r->pl;
  const size_t eb = r->ops->elem_bytes;
  const int first = pl->gemm_before ? 0 : pl->t;
  const int count = pl->gemm_before ? pl->t : r->p->d - pl->t;
  const void *U[TPM_MAX_ORDER];
  for (int m = 0; m < count; ++m)
    U[m] = tpm_at(r->p->U[first + m], r->c0, eb);
  /* with the parity split, kr's row 0 holds column k0 - 1 (unused in the first pass) */
  r->kr_first = pl->parity_split ? k0 - 1 : k0;
  const int64_t behind = pl->parity_split && k0 > 0 ? 1 : 0;
  TP_TRY(r->ops->khatri_rao_rows(r->space, count, r->p->dims + first, U, r->rc, r->p->rank,
                                 k0 - behind, depth + behind,
                                 (void *)tpm_at(r->kr, (1 - behind) * pl->parity_split * r->rc, eb)));
  const int64_t slots = depth / pl->kc + (depth % pl->kc != 0);
  int lanes = 1;
  TP_TRY(tp_space_lanes_begin(r->space, pl->lanes, &lanes));
  tp_status st = TP_SUCCESS;
  int64_t b = 0;
  for (int64_t s0 = 0; st == TP_SUCCESS && s0 < pl->slabs; s0 += pl->block_slabs, ++b) {
    const int lane = (int)(b % lanes);
    void *T = (void *)tpm_at(r->T, lane * r->lane_elems, eb);
    const int64_t ns = tpm_min(pl->block_slabs, pl->slabs - s0);
    st = tp_space_lane_select(r->space, lane);
    if (st == TP_SUCCESS)
      st = tpm_block_gemm(r, T, k0, depth, s0 * pl->slab_rows, ns * pl->slab_rows);
    if (st == TP_SUCCESS)
      st = tpm_block_finish(r, T, slots, s0, ns, lanes > 1);
  }
  tp_status end = tp_space_lanes_end(r->space);
  return st != TP_SUCCESS ? st : end;
}

tp_status tpm_run_gemm_engine(tp_space *space, const tpm_problem *p, size_t workspace_bytes,
                              int lanes, int64_t panel) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  tpm_run r;
  memset(&r, 0, sizeof r);
  r.space = space;
  r.p = p;
  r.ops = tpm_ops_for(p->dtype);
  tpm_plan_make(&info, p, workspace_bytes, lanes, panel, &r.pl);
  const tpm_plan *pl = &r.pl;
  const size_t eb = r.ops->elem_bytes;
  const int64_t kr_rows = pl->kc * pl->slots;
  const int64_t t_rows = pl->slots * pl->block_slabs * pl->slab_rows; /* per lane */
  r.lane_elems = t_rows * pl->panel;
  TP_TRY(tpm_clear_output(space, p));
  TP_TRY(tp_temp_alloc(space, eb * (size_t)((kr_rows + pl->parity_split) * pl->panel), &r.kr));
  tp_status st = tp_temp_alloc(space, eb * (size_t)(pl->lanes * r.lane_elems), &r.T);
  for (r.c0 = 0; st == TP_SUCCESS && r.c0 < p->rank; r.c0 += pl->panel) {
    r.rc = tpm_min(pl->panel, p->rank - r.c0);
    for (int64_t k0 = 0; st == TP_SUCCESS && k0 < pl->K; k0 += kr_rows)
      st = tpm_pass(&r, k0, tpm_min(kr_rows, pl->K - k0));
  }
  tp_temp_release(space, r.T);
  tp_temp_release(space, r.kr);
  return st;
}
