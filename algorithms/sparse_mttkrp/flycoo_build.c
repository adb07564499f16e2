/* Planning one mode of FLYCOO in the space (flycoo_plan_mode_in_space): the same plan as
 * flycoo_plan_mode on the host, bit for bit, from kernels (spm_build_kernels.c) and the space's
 * primitives:
 *   1. the nonzeros' rows sorted stably, with the nonzeros' numbers along (radix sort);
 *      each row's first and end in that order, so its count;
 *   2. per row its pieces (ceil(count / cap)) and, for a cut row, its partial rows: one
 *      scan gives both bases; a compaction lists the cut rows;
 *   3. the pieces sorted by size, largest first (stable, so ties stay in row and piece
 *      order), and the runs of equal sizes (a compaction);
 *   4. on the host, Algorithm 1 over the runs (flycoo_assign.c): per run, each
 *      partition's share;
 *   5. one event (load, partition) per piece from the shares, sorted: the t-th event is
 *      the t-th piece's place; each piece's first record and slot follow;
 *   6. every nonzero's position: its piece's start plus its rank in the piece.
 * The host sees only a few counts and the runs (one per distinct piece size). */
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "tenport/primitives.h"
#include "portable/tp_error.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_build.h"
#include "portable/tp_space_common.h"

enum { TPB_MAX_TEMPS = 24 };

/* One mode's work: its temporaries are released together. */
typedef struct build_mode {
  tp_space *space;
  const flycoo_source *src;
  int mode, kappa;
  int64_t nnz, dim;
  uint32_t cap, top; /* piece size limit; the largest piece size possible */
  void *temps[TPB_MAX_TEMPS];
  int n_temps;
  int64_t *scalars; /* two words of the space: a scan's total, a compaction's count */
  uint32_t *keys, *perm, *first, *end, *start_of;
  uint64_t *base; /* per row: pieces before (low word), partial rows before (high) */
  int64_t pieces, partial, splits;
  flycoo_piece_arrays pc;
  flycoo_assignment as;
  flycoo_mode_dev *plan;
} build_mode;

static tp_status build_temp(build_mode *w, size_t bytes, void **p) {
  if (w->n_temps == TPB_MAX_TEMPS)
    return TP_ERROR(TP_ERROR_INTERNAL, "FLYCOO build: more than %d temporaries", TPB_MAX_TEMPS);
  TP_TRY(tp_temp_alloc(w->space, bytes ? bytes : 8, p));
  w->temps[w->n_temps++] = *p;
  return TP_SUCCESS;
}

static void build_release(build_mode *w) {
  for (int i = 0; i < w->n_temps; ++i)
    tp_temp_release(w->space, w->temps[i]);
  w->n_temps = 0;
  flycoo_assignment_free(&w->as);
}

/* An array the plan keeps (freed by tp_flycoo_destroy), at least one element. */
static tp_status build_keep(build_mode *w, int64_t n, uint32_t **p) {
  return tp_alloc(w->space, sizeof(uint32_t) * (size_t)(n > 0 ? n : 1), (void **)p);
}

static tp_status build_put_u32(build_mode *w, uint32_t *dst, uint32_t value) {
  return tp_copy_to_device(w->space, dst, &value, sizeof value);
}

static int build_bits(uint64_t x) {
  int b = 0;
  for (; x; x >>= 1)
    ++b;
  return b;
}

/* ---- 1. rows --------------------------------------------------------------------------- */
static tp_status build_sort_rows(build_mode *w) {
  const size_t words = sizeof(uint32_t) * (size_t)w->nnz;
  TP_TRY(build_temp(w, words, (void **)&w->keys));
  TP_TRY(build_temp(w, words, (void **)&w->perm));
  TP_TRY(tp_copy_on_device(w->space, w->keys, w->src->idx[w->mode], words));
  TP_TRY(flycoo_bk_iota(w->space, w->perm, w->nnz));
  TP_TRY(tp_sort_pairs_u32_u32(w->space, w->keys, w->perm, w->nnz, 0,
                               build_bits((uint64_t)(w->dim - 1))));
  const size_t rows = sizeof(uint32_t) * (size_t)w->dim;
  TP_TRY(build_temp(w, rows, (void **)&w->first));
  TP_TRY(build_temp(w, rows, (void **)&w->end));
  TP_TRY(tp_memset(w->space, w->first, 0, rows));
  TP_TRY(tp_memset(w->space, w->end, 0, rows));
  return flycoo_bk_row_bounds(w->space, w->keys, w->nnz, w->first, w->end);
}

/* ---- 2. pieces per row, cut rows --------------------------------------------------------- */
static tp_status build_count_pieces(build_mode *w) {
  uint8_t *cut;
  TP_TRY(build_temp(w, sizeof(uint64_t) * (size_t)w->dim, (void **)&w->base));
  TP_TRY(build_temp(w, (size_t)w->dim, (void **)&cut));
  TP_TRY(flycoo_bk_row_pieces(w->space, w->first, w->end, w->dim, w->cap, w->base, cut));
  TP_TRY(tp_exclusive_scan_u64(w->space, w->base, w->base, w->dim, (uint64_t *)&w->scalars[0]));
  /* a cut row holds more than cap nonzeros: fewer than nnz / cap of them */
  const int64_t most = w->nnz / w->cap + 1 < w->dim ? w->nnz / w->cap + 1 : w->dim;
  int64_t *rows;
  TP_TRY(build_temp(w, sizeof(int64_t) * (size_t)most, (void **)&rows));
  TP_TRY(tp_compact_indices(w->space, cut, w->dim, rows, &w->scalars[1]));
  int64_t got[2];
  TP_TRY(tp_copy_to_host(w->space, got, w->scalars, sizeof got));
  w->pieces = (int64_t)((uint64_t)got[0] & UINT32_MAX);
  w->partial = (int64_t)((uint64_t)got[0] >> 32);
  w->splits = got[1];
  flycoo_mode_dev *p = w->plan;
  TP_TRY(build_keep(w, w->splits, &p->split_row));
  TP_TRY(build_keep(w, w->splits + 1, &p->split_first));
  if (w->splits > 0)
    TP_TRY(flycoo_bk_split_rows(w->space, rows, w->splits, w->base, p->split_row, p->split_first));
  return build_put_u32(w, p->split_first + w->splits, (uint32_t)w->partial);
}

/* ---- 3. pieces sorted by size, runs of equal sizes ---------------------------------------- */
static tp_status build_sort_pieces(build_mode *w) {
  const size_t words = sizeof(uint32_t) * (size_t)w->pieces;
  TP_TRY(build_temp(w, words, (void **)&w->pc.key));
  TP_TRY(build_temp(w, words, (void **)&w->pc.orig));
  TP_TRY(build_temp(w, words, (void **)&w->pc.row));
  TP_TRY(build_temp(w, words, (void **)&w->pc.k));
  TP_TRY(flycoo_bk_make_pieces(w->space, w->first, w->end, w->base, w->dim, w->cap, w->top, w->pc));
  return tp_sort_pairs_u32_u32(w->space, w->pc.key, w->pc.orig, w->pieces, 0, build_bits(w->top));
}

/* The runs on the host: sizes and counts (decreasing sizes). */
static tp_status build_runs_to_host(build_mode *w, int64_t *runs, uint32_t **size,
                                    int64_t **count) {
  uint8_t *flags;
  int64_t *start;
  TP_TRY(build_temp(w, (size_t)w->pieces, (void **)&flags));
  TP_TRY(build_temp(w, sizeof(int64_t) * (size_t)w->pieces, (void **)&start));
  TP_TRY(flycoo_bk_run_flags(w->space, w->pc.key, w->pieces, flags));
  TP_TRY(tp_compact_indices(w->space, flags, w->pieces, start, &w->scalars[1]));
  TP_TRY(tp_copy_to_host(w->space, runs, &w->scalars[1], sizeof *runs));
  uint32_t *dev_size;
  TP_TRY(build_temp(w, sizeof(uint32_t) * (size_t)*runs, (void **)&dev_size));
  TP_TRY(flycoo_bk_run_sizes(w->space, w->pc.key, start, *runs, w->top, dev_size));
  *size = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(*runs + 1));
  *count = (int64_t *)malloc(sizeof(int64_t) * (size_t)(*runs + 1));
  if (!*size || !*count)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %lld runs of piece sizes",
                    (long long)*runs);
  TP_TRY(tp_copy_to_host(w->space, *size, dev_size, sizeof(uint32_t) * (size_t)*runs));
  TP_TRY(tp_copy_to_host(w->space, *count, start, sizeof(int64_t) * (size_t)*runs));
  for (int64_t d = 0; d < *runs; ++d) /* starts become lengths */
    (*count)[d] = (d + 1 < *runs ? (*count)[d + 1] : w->pieces) - (*count)[d];
  return TP_SUCCESS;
}

/* ---- 4. Algorithm 1 on the host --------------------------------------------------------- */
static tp_status build_assign(build_mode *w) {
  int64_t runs = 0, *count = NULL;
  uint32_t *size = NULL;
  tp_status st = w->pieces > 0 ? build_runs_to_host(w, &runs, &size, &count) : TP_SUCCESS;
  if (st == TP_SUCCESS)
    st = flycoo_assign_runs(size, count, runs, w->kappa, 0, &w->as);
  free(size), free(count);
  TP_TRY(st);
  TP_TRY(build_keep(w, w->kappa + 1, &w->plan->part_piece));
  return tp_copy_to_device(w->space, w->plan->part_piece, w->as.part_piece,
                           sizeof(uint32_t) * ((size_t)w->kappa + 1));
}

/* ---- 5. events: each piece's place -------------------------------------------------------- */
static tp_status build_place(build_mode *w) {
  const int64_t n = w->pieces;
  flycoo_share *shares;
  uint32_t *part_first, *where;
  uint64_t *key;
  TP_TRY(build_temp(w, sizeof(flycoo_share) * (size_t)w->as.n_shares, (void **)&shares));
  TP_TRY(build_temp(w, sizeof(uint32_t) * ((size_t)w->kappa + 1), (void **)&part_first));
  TP_TRY(tp_copy_to_device(w->space, shares, w->as.shares,
                           sizeof(flycoo_share) * (size_t)w->as.n_shares));
  TP_TRY(tp_copy_to_device(w->space, part_first, w->as.part_first,
                           sizeof(uint32_t) * ((size_t)w->kappa + 1)));
  TP_TRY(build_temp(w, sizeof(uint64_t) * (size_t)n, (void **)&key));
  TP_TRY(build_temp(w, sizeof(uint32_t) * (size_t)n, (void **)&where));
  TP_TRY(flycoo_bk_events(w->space, shares, w->as.n_shares, w->plan->part_piece, w->kappa, n, key,
                          where));
  const uint64_t most = ((uint64_t)w->as.max_partition + 1) * (uint64_t)w->kappa;
  TP_TRY(tp_sort_pairs_u64_u32(w->space, key, where, n, 0, build_bits(most)));
  TP_TRY(build_temp(w, sizeof(uint32_t) * (size_t)n, (void **)&w->start_of));
  flycoo_place_args a;
  a.orig = w->pc.orig, a.where = where, a.part_first = part_first, a.row = w->pc.row;
  a.k = w->pc.k, a.first = w->first, a.end = w->end, a.key = key, a.base = w->base;
  a.piece_start = w->plan->piece_start, a.piece_slot = w->plan->piece_slot;
  a.start_of = w->start_of, a.kappa = w->kappa, a.cap = w->cap, a.dim = w->dim;
  return flycoo_bk_place(w->space, n, a);
}

/* ---- 6. positions ------------------------------------------------------------------------ */
static tp_status build_positions(build_mode *w, uint32_t *position) {
  flycoo_position_args a;
  a.keys = w->keys, a.perm = w->perm, a.first = w->first, a.start_of = w->start_of;
  a.base = w->base, a.position = position, a.cap = w->cap;
  return flycoo_bk_positions(w->space, w->nnz, a);
}

static tp_status build_plan(build_mode *w, uint32_t *position) {
  TP_TRY(build_temp(w, 2 * sizeof(int64_t), (void **)&w->scalars));
  if (w->nnz > 0) {
    TP_TRY(build_sort_rows(w));
    TP_TRY(build_count_pieces(w));
  } else {
    TP_TRY(build_keep(w, 0, &w->plan->split_row));
    TP_TRY(build_keep(w, 1, &w->plan->split_first));
    TP_TRY(build_put_u32(w, w->plan->split_first, 0));
  }
  TP_TRY(build_keep(w, w->pieces + 1, &w->plan->piece_start));
  TP_TRY(build_keep(w, w->pieces, &w->plan->piece_slot));
  TP_TRY(build_put_u32(w, w->plan->piece_start + w->pieces, (uint32_t)w->nnz));
  if (w->pieces > 0)
    TP_TRY(build_sort_pieces(w));
  TP_TRY(build_assign(w));
  if (w->pieces == 0)
    return TP_SUCCESS;
  TP_TRY(build_place(w));
  return build_positions(w, position);
}

tp_status flycoo_plan_mode_in_space(tp_space *space, const flycoo_source *src, int mode, int kappa,
                                    int split, flycoo_mode_dev *plan, uint32_t *position,
                                    flycoo_plan_counts *counts) {
  memset(plan, 0, sizeof *plan);
  memset(counts, 0, sizeof *counts);
  TP_CHECK_ARG(kappa >= 1, "kappa %d must be positive", kappa);
  if (src->dims[mode] > FLYCOO_MAX_DIM)
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "mode %d has %lld rows; FLYCOO takes up to %lld", mode,
                    (long long)src->dims[mode], (long long)FLYCOO_MAX_DIM);
  build_mode w;
  memset(&w, 0, sizeof w);
  w.space = space, w.src = src, w.mode = mode, w.kappa = kappa, w.plan = plan;
  w.nnz = src->nnz, w.dim = src->dims[mode];
  const int64_t share = (w.nnz + kappa - 1) / kappa;
  w.cap = split ? (uint32_t)(share / 2 > 0 ? share / 2 : 1) : UINT32_MAX;
  w.top = (uint64_t)w.cap < (uint64_t)w.nnz ? w.cap : (uint32_t)w.nnz;
  tp_status st = build_plan(&w, position);
  plan->pieces = w.pieces, plan->split_rows = w.splits, plan->partial_rows = w.partial;
  counts->pieces = w.pieces, counts->split_rows = w.splits, counts->partial_rows = w.partial;
  counts->rows = w.pieces - w.partial + w.splits;
  counts->max_partition = w.as.max_partition;
  build_release(&w);
  return st;
}
