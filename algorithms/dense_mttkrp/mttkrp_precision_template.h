/* The dense MTTKRP kernels of one precision: MTTKRP_T (float or double) and MTTKRP_SFX (f32 or
 * f64) are defined by the including file. Defines the kernel arguments, instantiates
 * the kernels of mttkrp_width_template.h for each per-lane width, and exports mttkrp_ops_<sfx>.
 * generates: the kernels named in the generates: lists of mttkrp_f32_kernels.c and
 * mttkrp_f64_kernels.c, which instantiate it (tools/ci/kernel_names.py checks them).*/
#include "algorithms/dense_mttkrp/mttkrp_device.h"
#include "portable/tp_launch_width.h"

#define MTTKRP_PN(name) TP_PASTE3(name, _, MTTKRP_SFX)
/* Threads per team (at most) of the GPU kernels that spread a row's columns over a team. */
#define MTTKRP_GPU_COL_TEAM 128

/* Warps per team of those kernels: enough for the columns, up to MTTKRP_GPU_COL_TEAM threads. */
static int MTTKRP_PN(mttkrp_col_team_warps)(int64_t columns) {
  return (int)tp_min_i64(MTTKRP_GPU_COL_TEAM / 32, tp_max_i64(1, tp_ceil_div_i64(columns, 32)));
}
#define MTTKRP_ATOMIC_ADD(p, v) TP_PASTE(tp_atomic_add_, MTTKRP_SFX)((p), (v))

typedef struct MTTKRP_PN(mttkrp_elem_args) {
  const MTTKRP_T *X;
  MTTKRP_T *G;
  int64_t R, count, per_team;
  int d, mode;
  int64_t dims[MTTKRP_MAX_ORDER];
  const MTTKRP_T *U[MTTKRP_MAX_ORDER];
} MTTKRP_PN(mttkrp_elem_args);

/* SLICE and TILE walk the modes other than k (q of them, in order). */
typedef struct MTTKRP_PN(mttkrp_walk_args) {
  const MTTKRP_T *X;
  MTTKRP_T *G;
  int64_t R, slices, slice_count, mode_stride, per_team;
  int64_t edge, tiles_per_slice;
  int q;
  int64_t odims[MTTKRP_MAX_ORDER], ostrides[MTTKRP_MAX_ORDER], tile_counts[MTTKRP_MAX_ORDER];
  const MTTKRP_T *U[MTTKRP_MAX_ORDER];
} MTTKRP_PN(mttkrp_walk_args);

typedef struct MTTKRP_PN(mttkrp_partial_args) {
  const MTTKRP_T *T;
  MTTKRP_T *G;
  MTTKRP_T *chunk_sums; /* GPUs, chunks > 1: one row of R per (p, chunk), summed later, */
  MTTKRP_T *T_spent;    /* or, where T may be overwritten, the first T row of each chunk */
  int64_t R, ld;        /* columns handled (T's row length); U's and G's leading dimension */
  int64_t slots, slot_stride, p0, p_stride, row_base, o_begin, o_count, o_chunk, chunks;
  int64_t r_groups; /* teams splitting the column passes of one (p, chunk) */
  int q;
  int64_t odims[MTTKRP_MAX_ORDER], row_stride[MTTKRP_MAX_ORDER];
  const MTTKRP_T *U[MTTKRP_MAX_ORDER];
} MTTKRP_PN(mttkrp_partial_args);

typedef struct MTTKRP_PN(mttkrp_kr_args) {
  MTTKRP_T *out;
  int64_t R, ld, row0, row_end, per_team; /* ld: the factors' leading dimension */
  int q;
  int64_t dims[MTTKRP_MAX_ORDER];
  const MTTKRP_T *U[MTTKRP_MAX_ORDER];
} MTTKRP_PN(mttkrp_kr_args);

/* The per-lane widths of the kernels of mttkrp_width_template.h, included once per width below;
 * widest first, for TP_LAUNCH_WIDTH. */
#define MTTKRP_WIDTHS(X, c) X(16, c) X(8, c) X(4, c) X(3, c) X(2, c) X(1, c)
#define MTTKRP_K 1
#include "algorithms/dense_mttkrp/mttkrp_width_template.h"
#undef MTTKRP_K
#define MTTKRP_K 2
#include "algorithms/dense_mttkrp/mttkrp_width_template.h"
#undef MTTKRP_K
#define MTTKRP_K 3
#include "algorithms/dense_mttkrp/mttkrp_width_template.h"
#undef MTTKRP_K
#define MTTKRP_K 4
#include "algorithms/dense_mttkrp/mttkrp_width_template.h"
#undef MTTKRP_K
#define MTTKRP_K 8
#include "algorithms/dense_mttkrp/mttkrp_width_template.h"
#undef MTTKRP_K
#define MTTKRP_K 16
#include "algorithms/dense_mttkrp/mttkrp_width_template.h"
#undef MTTKRP_K

/* Khatri-Rao rows: one thread per row, lanes over the rank. */
TP_TEAM_KERNEL(MTTKRP_PN(mttkrp_kr_rows), MTTKRP_PN(mttkrp_kr_args), team, a) {
  TP_TEAM_FOR(team, t, 0, a.per_team) {
    const int64_t row = a.row0 + team->league_rank * a.per_team + t;
    if (row >= a.row_end)
      continue;
    int64_t idx[MTTKRP_MAX_ORDER];
    mttkrp_decode(a.q, a.dims, row, idx);
    MTTKRP_T *out = a.out + (row - a.row0) * a.R;
    TP_VECTOR_FOR(team, r, 0, a.R) {
      MTTKRP_T v = 1;
      for (int m = 0; m < a.q; ++m)
        v *= a.U[m][idx[m] * a.ld + r];
      out[r] = v;
    }
  }
}

/* Khatri-Rao rows on GPUs: one team per row, its threads across the columns, so that a
 * row's multi-index is decoded once per thread (integer division is slow on GPUs) and
 * the warps write contiguous runs of the row. */
TP_TEAM_KERNEL(MTTKRP_PN(mttkrp_kr_row_team), MTTKRP_PN(mttkrp_kr_args), team, a) {
  const int64_t i = team->league_rank;
  int64_t idx[MTTKRP_MAX_ORDER];
  mttkrp_decode(a.q, a.dims, a.row0 + i, idx);
  TP_TEAM_VECTOR_FOR(team, r, 0, a.R) {
    MTTKRP_T v = 1;
    for (int m = 0; m < a.q; ++m)
      v *= a.U[m][idx[m] * a.ld + r];
    a.out[i * a.R + r] = v;
  }
}

/* The partial-tensor contraction on GPUs: one team per (output row p, chunk of other
 * indices), its threads across the columns, each thread walking the chunk for its
 * columns. The reads of T and of the factors are coalesced, every thread has
 * independent loads in flight, and nothing waits on a barrier. (The team kernel of
 * mttkrp_width_template.h, which CPUs run, split the chunk between threads and made a GPU wait on
 * its barriers.) With several chunks per row, each chunk's sums go to a row of their own
 * (the chunk's first row of T when T is spent: only this team reads it, each thread its
 * own column, before writing it) and a second kernel adds them in chunk order: atomic
 * updates would add them in the order the teams happen to finish, and the results would
 * change from run to run. */
TP_TEAM_KERNEL(MTTKRP_PN(mttkrp_partial_col_team), MTTKRP_PN(mttkrp_partial_args), team, a) {
  const int64_t unit = team->league_rank;
  const int64_t p = a.p0 + unit / a.chunks;
  const int64_t c_begin = a.o_begin + (unit % a.chunks) * a.o_chunk;
  const int64_t c_end = tp_min_i64(c_begin + a.o_chunk, a.o_begin + a.o_count);
  int64_t first[MTTKRP_MAX_ORDER];
  mttkrp_decode(a.q, a.odims, c_begin, first);
  const int64_t first_row =
      a.row_base + (p - a.p0) * a.p_stride + mttkrp_dot_index(a.q, first, a.row_stride);
  TP_TEAM_VECTOR_FOR(team, r, 0, a.R) {
    int64_t idx[MTTKRP_MAX_ORDER];
    for (int m = 0; m < a.q; ++m)
      idx[m] = first[m];
    int64_t row = first_row;
    MTTKRP_T acc = 0;
    for (int64_t o = c_begin; o < c_end; ++o) {
      MTTKRP_T v = 0;
      for (int64_t s = 0; s < a.slots; ++s)
        v += a.T[s * a.slot_stride + row * a.R + r];
      for (int m = 0; m < a.q; ++m)
        v *= a.U[m][idx[m] * a.ld + r];
      acc += v;
      mttkrp_advance(a.q, a.odims, a.row_stride, idx, &row);
    }
    if (a.chunks == 1)
      a.G[p * a.ld + r] += acc;
    else if (a.T_spent)
      a.T_spent[first_row * a.R + r] = acc;
    else
      a.chunk_sums[unit * a.R + r] = acc;
  }
}

/* Columns per team of mttkrp_sum_chunks, and its warps (each a share of the chunks). */
#define MTTKRP_SUM_COLUMNS 32
#define MTTKRP_SUM_WARPS 8

/* Chunk c's sums of row p, column r: in chunk_sums, or in the chunk's first row of T. */
TP_INLINE MTTKRP_T MTTKRP_PN(mttkrp_chunk_sum)(const MTTKRP_PN(mttkrp_partial_args) * a, int64_t p,
                                               int64_t c, int64_t r) {
  if (a->chunk_sums)
    return a->chunk_sums[((p - a->p0) * a->chunks + c) * a->R + r];
  int64_t first[MTTKRP_MAX_ORDER];
  mttkrp_decode(a->q, a->odims, a->o_begin + c * a->o_chunk, first);
  const int64_t row =
      a->row_base + (p - a->p0) * a->p_stride + mttkrp_dot_index(a->q, first, a->row_stride);
  return a->T_spent[row * a->R + r];
}

/* G[p, r] += the chunks' sums of row p, in chunk order whatever the schedule: one team per
 * (row, MTTKRP_SUM_COLUMNS columns); warp w adds chunks w, w + warps, ... and the warps'
 * sums meet in scratch, added in warp order. (One thread per column walking every chunk
 * waited on each load in turn: tens of microseconds per call.) */
TP_TEAM_KERNEL(MTTKRP_PN(mttkrp_sum_chunks), MTTKRP_PN(mttkrp_partial_args), team, a) {
  const int64_t groups = tp_ceil_div_i64(a.R, MTTKRP_SUM_COLUMNS);
  const int64_t p = a.p0 + team->league_rank / groups;
  const int64_t r0 = (team->league_rank % groups) * MTTKRP_SUM_COLUMNS;
  MTTKRP_T *sums = (MTTKRP_T *)team->scratch; /* team_size x MTTKRP_SUM_COLUMNS */
  TP_VECTOR_FOR(team, j, 0, MTTKRP_SUM_COLUMNS) {
    MTTKRP_T v = 0;
    if (r0 + j < a.R)
      for (int64_t c = team->team_rank; c < a.chunks; c += team->team_size)
        v += MTTKRP_PN(mttkrp_chunk_sum)(&a, p, c, r0 + j);
    sums[team->team_rank * MTTKRP_SUM_COLUMNS + j] = v;
  }
  tp_team_barrier(team);
  if (team->team_rank == 0) {
    TP_VECTOR_FOR(team, j, 0, MTTKRP_SUM_COLUMNS) {
      if (r0 + j < a.R) {
        MTTKRP_T v = 0;
        for (int w = 0; w < team->team_size; ++w)
          v += sums[w * MTTKRP_SUM_COLUMNS + j];
        a.G[p * a.ld + r0 + j] += v;
      }
    }
  }
}

/* Team policy of the element-wise kernels: GPU teams of lanes.team threads, each
 * handling one work item; CPU teams of one thread handling cpu_items. */
static tp_team_policy MTTKRP_PN(mttkrp_items_policy)(tp_space *space, mttkrp_lanes lanes,
                                                     int64_t items, int64_t cpu_items,
                                                     int64_t *per_team, size_t scratch) {
  tp_space_info info;
  tp_space_get_info(space, &info);
  *per_team = info.is_gpu ? lanes.team : cpu_items;
  tp_team_policy p =
      tp_team_policy_make(tp_ceil_div_i64(items, *per_team), lanes.team, lanes.vector, scratch);
  if (!info.is_gpu)
    p.schedule = TP_SCHEDULE_DYNAMIC;
  return p;
}

static tp_status MTTKRP_PN(mttkrp_elem_run)(tp_space *space, const mttkrp_problem *pb) {
  MTTKRP_PN(mttkrp_elem_args) a;
  memset(&a, 0, sizeof a);
  a.X = (const MTTKRP_T *)pb->X;
  a.G = (MTTKRP_T *)pb->G;
  a.R = pb->rank;
  a.count = pb->count;
  a.d = pb->d;
  a.mode = pb->mode;
  for (int m = 0; m < pb->d; ++m) {
    a.dims[m] = pb->dims[m];
    a.U[m] = (const MTTKRP_T *)pb->U[m];
  }
  TP_TRY(mttkrp_clear_output(space, pb));
  mttkrp_lanes lanes = mttkrp_choose_lanes(space, pb->rank);
  tp_team_policy pol = MTTKRP_PN(mttkrp_items_policy)(space, lanes, a.count, 1024, &a.per_team, 0);
  TP_LAUNCH_WIDTH(MTTKRP_WIDTHS, MTTKRP_PN(mttkrp_elem), lanes.width, space, pol, a);
}

/* Arguments shared by SLICE and TILE: the modes other than k. */
static void MTTKRP_PN(mttkrp_walk_fill)(const mttkrp_problem *pb, MTTKRP_PN(mttkrp_walk_args) * a) {
  memset(a, 0, sizeof *a);
  a->X = (const MTTKRP_T *)pb->X;
  a->G = (MTTKRP_T *)pb->G;
  a->R = pb->rank;
  a->slices = pb->dims[pb->mode];
  a->slice_count = pb->count / pb->dims[pb->mode];
  a->mode_stride = pb->strides[pb->mode];
  for (int m = 0; m < pb->d; ++m) {
    if (m == pb->mode)
      continue;
    a->odims[a->q] = pb->dims[m];
    a->ostrides[a->q] = pb->strides[m];
    a->U[a->q] = (const MTTKRP_T *)pb->U[m];
    a->q++;
  }
}

static tp_status MTTKRP_PN(mttkrp_slice_run)(tp_space *space, const mttkrp_problem *pb) {
  MTTKRP_PN(mttkrp_walk_args) a;
  MTTKRP_PN(mttkrp_walk_fill)(pb, &a);
  mttkrp_lanes lanes = mttkrp_choose_lanes(space, pb->rank);
  tp_team_policy pol = MTTKRP_PN(mttkrp_items_policy)(space, lanes, a.slices, 1, &a.per_team, 0);
  TP_LAUNCH_WIDTH(MTTKRP_WIDTHS, MTTKRP_PN(mttkrp_slice), lanes.width, space, pol, a);
}

static tp_status MTTKRP_PN(mttkrp_tile_run)(tp_space *space, const mttkrp_problem *pb,
                                            int64_t edge) {
  MTTKRP_PN(mttkrp_walk_args) a;
  MTTKRP_PN(mttkrp_walk_fill)(pb, &a);
  a.edge = edge;
  a.tiles_per_slice = 1;
  for (int m = 0; m < a.q; ++m) {
    a.tile_counts[m] = tp_ceil_div_i64(a.odims[m], edge);
    a.tiles_per_slice *= a.tile_counts[m];
  }
  TP_TRY(mttkrp_clear_output(space, pb));
  mttkrp_lanes lanes = mttkrp_choose_lanes(space, pb->rank);
  tp_team_policy pol =
      MTTKRP_PN(mttkrp_items_policy)(space, lanes, a.slices * a.tiles_per_slice, 1, &a.per_team, 0);
  TP_LAUNCH_WIDTH(MTTKRP_WIDTHS, MTTKRP_PN(mttkrp_tile), lanes.width, space, pol, a);
}

/* U[m] holds rows of ld values, of which the first `rank` are used. */
static tp_status MTTKRP_PN(mttkrp_kr_run)(tp_space *space, int q, const int64_t *dims,
                                          const void *const *U, int64_t rank, int64_t ld,
                                          int64_t row0, int64_t nrows, void *out) {
  MTTKRP_PN(mttkrp_kr_args) a;
  memset(&a, 0, sizeof a);
  a.out = (MTTKRP_T *)out;
  a.R = rank;
  a.ld = ld;
  a.row0 = row0;
  a.row_end = row0 + nrows;
  a.q = q;
  for (int m = 0; m < q; ++m) {
    a.dims[m] = dims[m];
    a.U[m] = (const MTTKRP_T *)U[m];
  }
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  if (info.is_gpu) {
    tp_team_policy pol = tp_team_policy_make(nrows, MTTKRP_PN(mttkrp_col_team_warps)(rank), 32, 0);
    return TP_PASTE(MTTKRP_PN(mttkrp_kr_row_team), _launch)(space, pol, a);
  }
  int vector = rank >= 32 ? 32 : rank >= 16 ? 16 : rank >= 8 ? 8 : 4;
  a.per_team = 64;
  tp_team_policy pol = tp_team_policy_make(tp_ceil_div_i64(nrows, a.per_team), 1, vector, 0);
  return TP_PASTE(MTTKRP_PN(mttkrp_kr_rows), _launch)(space, pol, a);
}

/* Chunks of other indices per output row for the GPU kernel: teams enough to fill the
 * device a few times over, but chunks of at least 4 indices (each chunk costs a row of
 * partial sums, written once and read once). */
static int64_t MTTKRP_PN(mttkrp_partial_team_chunks)(const tp_space_info *info,
                                                     const mttkrp_partial *pt) {
  const int64_t want_teams = 4 * (2048 / MTTKRP_GPU_COL_TEAM) * (int64_t)info->compute_units;
  const int64_t want = tp_ceil_div_i64(want_teams, pt->p_count);
  return tp_max_i64(1, tp_min_i64(want, tp_ceil_div_i64(pt->o_count, 4)));
}

/* GPUs: the contraction in (row, chunk) teams, then the chunks' sums added in order. */
static tp_status MTTKRP_PN(mttkrp_partial_gpu)(tp_space *space, const tp_space_info *info,
                                               const mttkrp_partial *pt,
                                               MTTKRP_PN(mttkrp_partial_args) a) {
  a.chunks = MTTKRP_PN(mttkrp_partial_team_chunks)(info, pt);
  a.o_chunk = tp_ceil_div_i64(pt->o_count, a.chunks);
  a.chunks = tp_ceil_div_i64(pt->o_count, a.o_chunk); /* no empty chunks */
  const int64_t units = pt->p_count * a.chunks;
  const int warps = MTTKRP_PN(mttkrp_col_team_warps)(pt->rank);
  a.T_spent = a.chunks > 1 ? (MTTKRP_T *)pt->T_spent : NULL;
  if (a.chunks > 1 && !a.T_spent)
    TP_TRY(tp_temp_alloc(space, sizeof(MTTKRP_T) * (size_t)(units * pt->rank),
                         (void **)&a.chunk_sums));
  tp_status st = TP_PASTE(MTTKRP_PN(mttkrp_partial_col_team),
                          _launch)(space, tp_team_policy_make(units, warps, 32, 0), a);
  if (st == TP_SUCCESS && a.chunks > 1) {
    const int64_t teams = pt->p_count * tp_ceil_div_i64(pt->rank, MTTKRP_SUM_COLUMNS);
    const int sum_warps = (int)tp_min_i64(MTTKRP_SUM_WARPS, a.chunks);
    const size_t scratch = sizeof(MTTKRP_T) * (size_t)(sum_warps * MTTKRP_SUM_COLUMNS);
    st = TP_PASTE(MTTKRP_PN(mttkrp_sum_chunks),
                  _launch)(space, tp_team_policy_make(teams, sum_warps, 32, scratch), a);
  }
  tp_temp_release(space, a.chunk_sums);
  return st;
}

static tp_status MTTKRP_PN(mttkrp_partial_run)(tp_space *space, const mttkrp_partial *pt) {
  if (pt->p_count == 0 || pt->o_count == 0 || pt->rank == 0)
    return TP_SUCCESS;
  MTTKRP_PN(mttkrp_partial_args) a;
  memset(&a, 0, sizeof a);
  a.T = (const MTTKRP_T *)pt->T;
  a.G = (MTTKRP_T *)pt->G;
  a.R = pt->rank;
  a.ld = pt->ld ? pt->ld : pt->rank;
  a.slots = pt->slots;
  a.slot_stride = pt->slot_stride;
  a.p0 = pt->p0;
  a.p_stride = pt->p_stride;
  a.row_base = pt->row_base;
  a.o_begin = pt->o_begin;
  a.o_count = pt->o_count;
  a.q = pt->q;
  for (int m = 0; m < pt->q; ++m) {
    a.odims[m] = pt->other_dims[m];
    a.row_stride[m] = pt->row_stride[m];
    a.U[m] = (const MTTKRP_T *)pt->U[m];
  }
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  if (info.is_gpu)
    return MTTKRP_PN(mttkrp_partial_gpu)(space, &info, pt, a);
  /* CPUs: one team per output row, so that the sums are formed in a fixed order and
   * results repeat bit for bit. */
  mttkrp_lanes lanes = mttkrp_choose_lanes(space, pt->rank);
  a.chunks = 1;
  a.o_chunk = pt->o_count;
  a.r_groups = 1;
  size_t scratch = sizeof(MTTKRP_T) * (size_t)lanes.vector * lanes.width;
  tp_team_policy pol = tp_team_policy_make(pt->p_count, 1, lanes.vector, scratch);
  TP_LAUNCH_WIDTH(MTTKRP_WIDTHS, MTTKRP_PN(mttkrp_partial), lanes.width, space, pol, a);
}

static tp_status MTTKRP_PN(mttkrp_gemm_run)(tp_space *space, tp_transpose ta, tp_transpose tb,
                                            int64_t m, int64_t n, int64_t k, const void *A,
                                            int64_t lda, int64_t sa, const void *B, int64_t ldb,
                                            int64_t sb, double beta, void *C, int64_t ldc,
                                            int64_t sc, int64_t batch) {
  return TP_PASTE(tp_gemm_batched_, MTTKRP_SFX)(
      space, ta, tb, m, n, k, (MTTKRP_T)1, (const MTTKRP_T *)A, lda, sa, (const MTTKRP_T *)B, ldb,
      sb, (MTTKRP_T)beta, (MTTKRP_T *)C, ldc, sc, batch);
}

/* The table is built inside a host function: a namespace-scope constant would be
 * copied to the device by hipcc, with host function pointers it cannot link. */
const mttkrp_ops *MTTKRP_PN(mttkrp_ops)(void) {
  static const mttkrp_ops ops = {
      sizeof(MTTKRP_T),           MTTKRP_PN(mttkrp_elem_run), MTTKRP_PN(mttkrp_slice_run),
      MTTKRP_PN(mttkrp_tile_run), MTTKRP_PN(mttkrp_kr_run),   MTTKRP_PN(mttkrp_partial_run),
      MTTKRP_PN(mttkrp_gemm_run)};
  return &ops;
}
