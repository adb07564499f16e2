/* The sparse MTTKRP kernels of one precision: FLYCOO_T (float or double) and FLYCOO_SFX (f32
 * or f64) are defined by the including file. Instantiates the kernels of spm_width.h for
 * each per-lane width and exports flycoo_ops_<sfx>.
 * generates: the kernels named in the generates: lists of spm_kernels_f32.c and
 * spm_kernels_f64.c, which instantiate it (tools/ci/kernel_names.py checks them).*/
#include "algorithms/sparse_mttkrp/tp_flycoo_internal.h"
#include "portable/tp_launch_width.h"

#define FLYCOO_PN(name) TP_PASTE3(name, _, FLYCOO_SFX)
#define FLYCOO_TEAM_ADD(p, v) TP_PASTE3(tp_atomic_add_, FLYCOO_SFX, _team)((p), (v))
#define FLYCOO_GLOBAL_ADD(p, v) TP_PASTE(tp_atomic_add_, FLYCOO_SFX)((p), (v))

typedef struct FLYCOO_PN(flycoo_args) {
  const uint32_t *in;
  uint32_t *out;
  int order, mode, next, stride, value_word, positions, remap, whole_rows;
  int64_t R, r0, dim, window;
  const FLYCOO_T *U[TP_COO_MAX_ORDER];
  FLYCOO_T *G, *partial;
  const uint32_t *piece_start, *piece_slot, *part_piece;
} FLYCOO_PN(flycoo_args);

typedef struct FLYCOO_PN(flycoo_atomic_args) {
  const int64_t *idx[TP_COO_MAX_ORDER];
  const FLYCOO_T *values;
  const FLYCOO_T *U[TP_COO_MAX_ORDER];
  FLYCOO_T *G;
  int order, mode;
  int64_t R, nnz, per_team;
} FLYCOO_PN(flycoo_atomic_args);

typedef struct FLYCOO_PN(flycoo_split_args) {
  const uint32_t *split_row, *split_first;
  const FLYCOO_T *partial;
  FLYCOO_T *G;
  int64_t R;
} FLYCOO_PN(flycoo_split_args);

/* 32 bytes of a record with positions, which is a whole number of them
 * (flycoo_record_layout). */
typedef struct flycoo_rec_block {
  TP_ALIGNAS(32) uint32_t w[8];
} flycoo_rec_block;

/* How the FLYCOO kernel reads records: the order, words per record and the value's first
 * word (constants in its specialised versions: spm_flycoo.h). */
typedef struct flycoo_words {
  int order, stride, value_word;
} flycoo_words;

/* A record's value: read as whole words (a memcpy from the record itself compiles to byte
 * loads on GPUs, which cannot assume the value's alignment), then reinterpreted. */
TP_INLINE FLYCOO_T FLYCOO_PN(flycoo_value)(const uint32_t *rec, int word) {
  uint32_t w[sizeof(FLYCOO_T) / 4];
  TP_UNROLL for (int i = 0; i < (int)(sizeof(FLYCOO_T) / 4); ++i) w[i] = rec[word + i];
  FLYCOO_T v;
  memcpy(&v, w, sizeof v);
  return v;
}

/* Prefetches the factor rows (row_bytes from column r0) and, with remap, the destination
 * of records [from, to): for CPUs, whose out-of-order window holds few gathers. */
TP_DEVICE void FLYCOO_PN(flycoo_prefetch_group)(const FLYCOO_PN(flycoo_args) * a, int order,
                                                int stride, int64_t from, int64_t to,
                                                size_t row_bytes) {
  for (int64_t y = from; y < to; ++y) {
    const uint32_t *rec = a->in + y * stride;
    for (int m = 0; m < order; ++m)
      if (m != a->mode)
        tp_prefetch_range(a->U[m] + a->r0 + (int64_t)rec[m] * a->R, row_bytes, 0);
    if (a->remap)
      tp_prefetch_range(a->out + (int64_t)rec[order + a->next] * stride, (size_t)stride * 4, 1);
  }
}

/* The per-lane widths of the kernels of spm_width.h, included once per width below;
 * widest first, for TP_LAUNCH_WIDTH. */
#define FLYCOO_WIDTHS(X, c) X(32, c) X(16, c) X(8, c) X(4, c) X(2, c) X(1, c)
#define FLYCOO_K 1
#include "algorithms/sparse_mttkrp/spm_width.h"
#undef FLYCOO_K
#define FLYCOO_K 2
#include "algorithms/sparse_mttkrp/spm_width.h"
#undef FLYCOO_K
#define FLYCOO_K 4
#include "algorithms/sparse_mttkrp/spm_width.h"
#undef FLYCOO_K
#define FLYCOO_K 8
#include "algorithms/sparse_mttkrp/spm_width.h"
#undef FLYCOO_K
#define FLYCOO_K 16
#include "algorithms/sparse_mttkrp/spm_width.h"
#undef FLYCOO_K
#define FLYCOO_K 32
#include "algorithms/sparse_mttkrp/spm_width.h"
#undef FLYCOO_K

/* G rows of cut rows: the sum of their pieces' partial rows, in piece order. */
TP_RANGE_KERNEL(FLYCOO_PN(flycoo_finish_split), FLYCOO_PN(flycoo_split_args), i, a) {
  const int64_t s = i / a.R, r = i % a.R;
  FLYCOO_T acc = 0;
  for (uint32_t q = a.split_first[s]; q < a.split_first[s + 1]; ++q)
    acc += a.partial[(int64_t)q * a.R + r];
  a.G[(int64_t)a.split_row[s] * a.R + r] = acc;
}

/* Lanes and per-lane width: on GPUs about four columns per lane (R = 32: 8 lanes, so a
 * warp works on four nonzeros at once and shares their index arithmetic), up to 32
 * lanes and 8 columns each, and 1024 threads per team; CPUs one lane of up to 32
 * columns. */
static flycoo_shape FLYCOO_PN(flycoo_shape_of)(const tp_space_info *info, int64_t R) {
  flycoo_shape s;
  s.vector = 1;
  if (info->is_gpu)
    while (s.vector < 32 && 4 * (int64_t)s.vector < R)
      s.vector *= 2;
  s.width = 1;
  while ((int64_t)s.vector * s.width < R && s.width < (info->is_gpu ? 8 : 32))
    s.width *= 2;
  s.team = info->is_gpu ? 1024 / s.vector : 1;
  if (info->is_gpu && s.team * s.vector > info->max_team_threads)
    s.team = info->max_team_threads / s.vector;
  return s;
}

/* Whether a lane may read its columns of a factor row as one aligned block (flycoo_mul_row):
 * with one lane per nonzero (CPUs), R a multiple of the width and rows aligned to it. */
static int FLYCOO_PN(flycoo_whole_rows)(flycoo_shape sh, const flycoo_pass *p) {
  const size_t bytes = (size_t)sh.width * sizeof(FLYCOO_T), align = bytes < 16 ? bytes : 16;
  if (sh.vector != 1 || p->rank % sh.width != 0 || ((size_t)p->rank * sizeof(FLYCOO_T)) % align)
    return 0;
  for (int m = 0; m < p->order; ++m)
    if ((uintptr_t)p->U[m] % align)
      return 0;
  return 1;
}

static tp_status FLYCOO_PN(flycoo_launch_pass)(tp_space *space, flycoo_shape sh, size_t scratch,
                                               int kappa, FLYCOO_PN(flycoo_args) a) {
  tp_team_policy pol = tp_team_policy_make(kappa, sh.team, sh.vector, scratch);
  pol.schedule = TP_SCHEDULE_DYNAMIC;
  TP_LAUNCH_WIDTH(FLYCOO_WIDTHS, FLYCOO_PN(flycoo), sh.width, space, pol, a);
}

static tp_status FLYCOO_PN(flycoo_mttkrp)(tp_space *space, const flycoo_pass *p) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  const flycoo_shape sh = FLYCOO_PN(flycoo_shape_of)(&info, p->rank);
  const int64_t F = (int64_t)sh.vector * sh.width;
  size_t budget = info.is_gpu ? (size_t)64 << 10 : (size_t)256 << 10;
  if (budget > info.max_scratch_bytes)
    budget = info.max_scratch_bytes;
  FLYCOO_PN(flycoo_args) a;
  memset(&a, 0, sizeof a);
  a.in = p->in, a.out = p->out;
  a.order = p->order, a.mode = p->mode, a.next = p->next;
  a.stride = p->layout.stride, a.value_word = p->layout.value_word;
  a.positions = p->layout.positions;
  a.R = p->rank, a.dim = p->dim;
  a.whole_rows = FLYCOO_PN(flycoo_whole_rows)(sh, p);
  a.window = tp_max_i64(1, (int64_t)(budget / (sizeof(FLYCOO_T) * (size_t)F)));
  for (int m = 0; m < p->order; ++m)
    a.U[m] = (const FLYCOO_T *)p->U[m];
  a.G = (FLYCOO_T *)p->G, a.partial = (FLYCOO_T *)p->partial;
  a.piece_start = p->m.piece_start, a.piece_slot = p->m.piece_slot;
  a.part_piece = p->m.part_piece;
  const size_t scratch = sizeof(FLYCOO_T) * (size_t)(a.window * F);
  for (int64_t r0 = 0; r0 < p->rank; r0 += F) {
    a.r0 = r0;
    a.remap = r0 == 0 && p->out != NULL;
    TP_TRY(FLYCOO_PN(flycoo_launch_pass)(space, sh, scratch, p->kappa, a));
  }
  if (p->m.split_rows == 0)
    return TP_SUCCESS;
  FLYCOO_PN(flycoo_split_args) s;
  s.split_row = p->m.split_row, s.split_first = p->m.split_first;
  s.partial = (const FLYCOO_T *)p->partial, s.G = (FLYCOO_T *)p->G, s.R = p->rank;
  return TP_PASTE(FLYCOO_PN(flycoo_finish_split), _launch)(space, p->m.split_rows * p->rank, s);
}

/* The baseline's shape: on GPUs one nonzero per vector of up to 32 lanes over the rank
 * and 128 threads per team (the fastest shape measured for it); on CPUs FLYCOO's. */
static flycoo_shape FLYCOO_PN(flycoo_atomic_shape)(const tp_space_info *info, int64_t R) {
  flycoo_shape s = FLYCOO_PN(flycoo_shape_of)(info, R);
  if (!info->is_gpu)
    return s;
  s.vector = 1;
  while (s.vector < 32 && s.vector < R)
    s.vector *= 2;
  s.width = 1;
  while ((int64_t)s.vector * s.width < R && s.width < 8)
    s.width *= 2;
  s.team = 128 / s.vector;
  return s;
}

static tp_status FLYCOO_PN(flycoo_atomic)(tp_space *space, const tp_coo *X, const tp_kruskal *U,
                                          int mode, void *G) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  const flycoo_shape sh = FLYCOO_PN(flycoo_atomic_shape)(&info, U->rank);
  FLYCOO_PN(flycoo_atomic_args) a;
  memset(&a, 0, sizeof a);
  for (int m = 0; m < X->order; ++m) {
    a.idx[m] = X->indices[m];
    a.U[m] = (const FLYCOO_T *)U->factors[m];
  }
  a.values = (const FLYCOO_T *)X->values;
  a.G = (FLYCOO_T *)G;
  a.order = X->order, a.mode = mode;
  a.R = U->rank, a.nnz = X->nnz;
  a.per_team = info.is_gpu ? sh.team : 256;
  tp_team_policy pol =
      tp_team_policy_make(tp_ceil_div_i64(X->nnz, a.per_team), sh.team, sh.vector, 0);
  TP_LAUNCH_WIDTH(FLYCOO_WIDTHS, FLYCOO_PN(flycoo_atomic), sh.width, space, pol, a);
}

/* The table is built inside a host function (see mttkrp_precision.h: hipcc and tables). */
const flycoo_ops *FLYCOO_PN(flycoo_ops)(void) {
  static const flycoo_ops ops = {FLYCOO_PN(flycoo_mttkrp), FLYCOO_PN(flycoo_atomic)};
  return &ops;
}
