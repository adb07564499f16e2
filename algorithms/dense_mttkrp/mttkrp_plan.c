/* The plan of the GEMM and BLOCKED variants: see mttkrp_engine.c for the scheme and
 * mttkrp_plan.h for the fields. The GPU choices (rank panels, block sizes in whole GEMM
 * waves, lanes, the parity split) come with the measurements behind them. */
#include <stdint.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/dense_mttkrp/mttkrp_plan.h"

/* Splits the contraction into slots when a block's GEMM output is too small to keep the
 * device busy; each slot contracts kc >= min_depth rows. */
static int64_t mttkrp_plan_slots(const tp_space_info *info, int64_t rows, int64_t rank,
                                 int64_t room_rows, int64_t kr_rows) {
  const int64_t busy = info->is_gpu ? (int64_t)1 << 22 : ((int64_t)1 << 14) * info->compute_units;
  const int64_t min_depth = info->is_gpu ? 128 : 512;
  if (rows * rank >= busy)
    return 1;
  int64_t s = mttkrp_min(room_rows / rows, kr_rows / min_depth);
  return mttkrp_max(1, mttkrp_min(s, 1024));
}

/* Fills the cut-dependent fields of pl for cut t. */
static void mttkrp_plan_cut(const mttkrp_problem *p, int t, mttkrp_plan *pl) {
  pl->t = t;
  pl->gemm_before = t <= p->mode;
  pl->row_first = pl->gemm_before ? t : 0;
  pl->row_count = pl->gemm_before ? p->d - t : t;
  pl->K = pl->gemm_before ? mttkrp_prod(p->dims, 0, t) : mttkrp_prod(p->dims, t, p->d);
  pl->M = p->count / pl->K;
  pl->slabs = p->dims[pl->row_first + pl->row_count - 1];
  pl->slab_rows = pl->M / pl->slabs;
}

/* The cut: the deepest GEMM side whose rows still number at least min_rows and whose
 * slabs fit the T budget; without one (small tensors), the most balanced cut that fits. */
static int mttkrp_choose_cut(const mttkrp_problem *p, int64_t min_rows, int64_t room) {
  int best = -1, balanced = p->mode;
  int64_t best_k = 0, balance = 0;
  for (int t = 0; t < p->d; ++t) { /* t = d would leave an empty GEMM side after k */
    mttkrp_plan c;
    mttkrp_plan_cut(p, t, &c);
    if (c.slab_rows > room)
      continue;
    if (c.M >= min_rows && c.K > best_k)
      best = t, best_k = c.K;
    if (mttkrp_min(c.K, c.M) > balance)
      balanced = t, balance = mttkrp_min(c.K, c.M);
  }
  return best >= 0 ? best : balanced;
}

/* Lanes when the caller leaves the choice: two on GPUs when the GEMM side is after mode
 * k (X^T blocks) and the rank is split into panels, so that one block's partial kernel
 * and last GEMM wave overlap the next block's GEMM; else one. Two lanes paid only there:
 * with the rank in one panel, and where the GEMM side is before k (odd rows split by
 * parity on two lanes of their own), two block lanes made the modes slower
 * (perf/results/2026-11-22-h200-dense-panels/README.md). Two lanes need a slab to fit
 * half the room. */
static int mttkrp_auto_lanes(const tp_space_info *info, const mttkrp_plan *pl, int64_t rank,
                             int64_t room) {
  return info->is_gpu && !pl->gemm_before && pl->panel < rank && pl->slab_rows <= room / 2 ? 2 : 1;
}

/* Rank columns per panel. Automatic: the whole rank on CPUs (BLAS runs any block shape
 * near its peak there) and on GPUs while the budget holds blocks and passes of about
 * 4096 rows each at full width; else panels of at least 512 columns, narrow enough for
 * that: a GPU's GEMM runs near its peak only on blocks of thousands of rows, and at full
 * width a 1% budget holds far fewer rows at large ranks. A width below the rank is
 * evened out over the panels it implies and rounded up to a multiple of 64 columns, the
 * GEMM tiles' width (a width that is not a multiple leaves tiles part empty); the last
 * panel takes the rest. */
static int64_t mttkrp_panel_width(const tp_space_info *info, int64_t rank, int64_t elems,
                                  int64_t given) {
  int64_t widest = rank;
  if (given > 0)
    widest = given;
  else if (info->is_gpu)
    widest = mttkrp_max(512, elems / (2 * 4096));
  if (widest >= rank)
    return rank;
  const int64_t panels = (rank + widest - 1) / widest;
  const int64_t even = (rank + panels - 1) / panels;
  return given > 0 ? even : mttkrp_min(rank, (even + 63) / 64 * 64);
}

/* GEMM waves of a block of `rows` rows: cuBLAS' FP64 tiles on sm_90 are 64 or 128 wide,
 * so whole waves of 128 x 128 tiles are whole waves of theirs. */
static int64_t mttkrp_gemm_waves(const tp_space_info *info, int64_t rows, int64_t panel) {
  const int64_t tiles = (rows + 127) / 128 * ((panel + 127) / 128);
  const int64_t sms = mttkrp_max(1, info->compute_units);
  return (tiles + sms - 1) / sms;
}

/* Slabs per block on GPUs. A block's GEMM runs in waves of output tiles over the
 * multiprocessors, and a block that spills a few tiles into one more wave pays for all
 * of it. Among the block sizes that fit, take the one whose blocks (the last one
 * included) cost the fewest waves over all slabs, counting a quarter wave more per block
 * for its fixed costs (launches, the partial kernel, the GEMM's ramp). */
static int64_t mttkrp_gpu_block_slabs(const tp_space_info *info, int64_t slab_rows, int64_t slabs,
                                      int64_t most, int64_t panel) {
  if (mttkrp_gemm_waves(info, most * slab_rows, panel) >= 16)
    return most; /* the last wave is a small share */
  int64_t best = most;
  double best_cost = 0;
  for (int64_t s = most, n = 0; s >= 1 && n < 65536; --s, ++n) {
    const int64_t full = slabs / s, rest = slabs % s;
    double cost = (double)full * ((double)mttkrp_gemm_waves(info, s * slab_rows, panel) + 0.25);
    if (rest > 0)
      cost += (double)mttkrp_gemm_waves(info, rest * slab_rows, panel) + 0.25;
    if (n == 0 || cost < best_cost * 0.999)
      best = s, best_cost = cost;
  }
  return best;
}

/* Khatri-Rao rows per pass: at most `cap`, the passes over the GEMM side as even as
 * possible, in slots of kc rows. */
static void mttkrp_plan_depth(const tp_space_info *info, mttkrp_plan *pl, int64_t rows,
                              int64_t lane_room, int64_t cap) {
  int64_t kr_rows = mttkrp_min(pl->K, mttkrp_max(1, cap));
  pl->slots = mttkrp_plan_slots(info, rows, pl->panel, lane_room, kr_rows);
  if (pl->slots > 1) /* T takes slots times more of the budget */
    kr_rows = mttkrp_min(kr_rows, mttkrp_max(1, cap - (pl->slots - 1) * pl->lanes * rows));
  const int64_t passes = (pl->K + kr_rows - 1) / kr_rows;
  const int64_t per_pass = (pl->K + passes - 1) / passes;
  pl->kc = mttkrp_max(1, per_pass / pl->slots);
}

/* Whether a GPU's GEMMs should read X by row parity (mttkrp_parity_gemms): f64 rows of an
 * odd length K, one GEMM per block (no slots, one lane: the parity GEMMs use both lanes
 * themselves), passes of an even depth. A depth of 1 (a budget of a few rows) has no
 * even depth to go down to, so it keeps plain GEMMs. */
static int mttkrp_wants_parity_split(const tp_space_info *info, const mttkrp_problem *p,
                                     const mttkrp_plan *pl) {
  return info->is_gpu && p->dtype == TP_DTYPE_F64 && pl->gemm_before && pl->K % 2 == 1 &&
         pl->K >= 5 && pl->kc >= 2 && pl->slots == 1 && pl->lanes == 1 &&
         pl->block_slabs * pl->slab_rows >= 2 && (uintptr_t)p->X % 16 == 0;
}

/* The fewest rows of T a block can have: one slab of the cut with the thinnest slabs. */
static int64_t mttkrp_thinnest_slab(const mttkrp_problem *p) {
  int64_t thinnest = 0;
  for (int t = 0; t < p->d; ++t) {
    mttkrp_plan c;
    mttkrp_plan_cut(p, t, &c);
    if (t == 0 || c.slab_rows < thinnest)
      thinnest = c.slab_rows;
  }
  return thinnest;
}

/* The panel width, narrowed until the budget's rows (elems / panel, shared by T and the
 * Khatri-Rao rows, half each) hold a slab per lane and a Khatri-Rao row to spare; 0 when
 * not even one column does. */
static int64_t mttkrp_fitting_panel(const mttkrp_problem *p, int64_t elems, int lanes,
                                    int64_t panel) {
  const int64_t need_rows = 2 * ((int64_t)lanes * mttkrp_thinnest_slab(p) + 1);
  return elems / panel >= need_rows ? panel : elems / need_rows;
}

tp_status mttkrp_plan_make(const tp_space_info *info, const mttkrp_problem *p, size_t budget,
                           int lanes, int64_t panel, mttkrp_plan *pl) {
  memset(pl, 0, sizeof *pl);
  const size_t eb = mttkrp_ops_for(p->dtype)->elem_bytes;
  const int64_t elems = budget ? (int64_t)(budget / eb) : 0;
  pl->panel = budget ? mttkrp_panel_width(info, p->rank, elems, panel) : p->rank;
  if (budget) {
    const int lanes_at_least = lanes > 0 ? lanes : 1;
    pl->panel = mttkrp_fitting_panel(p, elems, lanes_at_least, pl->panel);
    if (pl->panel == 0)
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "BLOCKED MTTKRP: a workspace of %zu bytes is too small for mode %d of "
                      "this tensor; it needs at least %zu bytes",
                      budget, p->mode,
                      (size_t)(2 * ((int64_t)lanes_at_least * mttkrp_thinnest_slab(p) + 1)) * eb);
  }
  const int64_t width_rows = budget ? mttkrp_max(2, elems / pl->panel) : 0; /* T + KR rows */
  const int64_t room = budget ? width_rows / 2 : p->count;                  /* T rows */
  pl->lanes = budget && lanes > 0 ? lanes : 1;
  int64_t lane_room = mttkrp_max(1, room / pl->lanes); /* T rows of one lane */
  const int64_t min_rows = info->is_gpu ? 2048 : 256;
  mttkrp_plan_cut(p, mttkrp_choose_cut(p, min_rows, lane_room), pl);
  pl->block_slabs = pl->slabs;
  pl->kc = pl->K;
  pl->slots = 1;
  if (budget == 0) /* GEMM: everything at once */
    return TP_SUCCESS;
  if (lanes == 0) {
    pl->lanes = mttkrp_auto_lanes(info, pl, p->rank, room);
    lane_room = mttkrp_max(1, room / pl->lanes);
  }
  const int64_t most = mttkrp_max(1, mttkrp_min(pl->slabs, lane_room / pl->slab_rows));
  pl->block_slabs =
      info->is_gpu ? mttkrp_gpu_block_slabs(info, pl->slab_rows, pl->slabs, most, pl->panel) : most;
  if (pl->block_slabs >= pl->slabs)
    pl->lanes = 1; /* one block: nothing to overlap */
  const int64_t rows = pl->block_slabs * pl->slab_rows;
  mttkrp_plan_depth(info, pl, rows, lane_room, width_rows - pl->lanes * rows - 1);
  pl->parity_split = mttkrp_wants_parity_split(info, p, pl);
  if (pl->parity_split && pl->kc % 2 == 1 && pl->kc < pl->K)
    pl->kc -= 1; /* every pass starts at an even column (kc >= 3 here) */
  return TP_SUCCESS;
}
