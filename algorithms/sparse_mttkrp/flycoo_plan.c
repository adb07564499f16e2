/* FLYCOO's partitioning of one mode (the sparse paper's Algorithm 1), on the host, one
 * piece at a time: count the nonzeros of every row, cut heavy rows into pieces, sort the
 * pieces by size, give each to the least-filled partition, and derive every nonzero's
 * position in the mode's order. Deterministic: every tie has a fixed rule. The build
 * plans in the space (flycoo_build.c); this is the reference its plans are tested
 * against, word for word. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_internal.h"

typedef struct flycoo_piece {
  uint32_t size, row, k; /* k-th piece of row */
  uint32_t orig;         /* index in row order */
  uint32_t part;
} flycoo_piece;

/* Larger first; then by row and piece, so the order never depends on qsort. */
static int flycoo_piece_cmp(const void *pa, const void *pb) {
  const flycoo_piece *a = (const flycoo_piece *)pa, *b = (const flycoo_piece *)pb;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  if (a->row != b->row)
    return a->row < b->row ? -1 : 1;
  return a->k < b->k ? -1 : (a->k > b->k);
}

/* ---- a binary min-heap of partitions keyed by (load, id) ----------------------- */
typedef struct flycoo_heap {
  uint64_t *load;
  uint32_t *id;
  int n;
} flycoo_heap;

static int flycoo_heap_less(const flycoo_heap *h, int a, int b) {
  return h->load[a] != h->load[b] ? h->load[a] < h->load[b] : h->id[a] < h->id[b];
}

static void flycoo_heap_swap(flycoo_heap *h, int a, int b) {
  uint64_t l = h->load[a];
  uint32_t i = h->id[a];
  h->load[a] = h->load[b], h->id[a] = h->id[b];
  h->load[b] = l, h->id[b] = i;
}

/* The root's load grew: push it down. */
static void flycoo_heap_sift_down(flycoo_heap *h) {
  int i = 0;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && flycoo_heap_less(h, l, m))
      m = l;
    if (r < h->n && flycoo_heap_less(h, r, m))
      m = r;
    if (m == i)
      return;
    flycoo_heap_swap(h, i, m);
    i = m;
  }
}

/* Assigns each piece (sorted) to the least-filled partition; returns the largest load. */
static int64_t flycoo_assign(flycoo_piece *pieces, int64_t n, int kappa, uint64_t *load,
                             uint32_t *id) {
  flycoo_heap h = {load, id, kappa};
  for (int p = 0; p < kappa; ++p)
    load[p] = 0, id[p] = (uint32_t)p; /* all zero: already a heap */
  for (int64_t j = 0; j < n; ++j) {
    pieces[j].part = h.id[0];
    h.load[0] += pieces[j].size;
    flycoo_heap_sift_down(&h);
  }
  uint64_t most = 0;
  for (int p = 0; p < kappa; ++p)
    most = load[p] > most ? load[p] : most;
  return (int64_t)most;
}

/* Nonzeros per row of the mode. */
static void flycoo_count_rows(const tp_coo *host, int mode, uint32_t *count) {
  const int64_t *idx = host->indices[mode];
  for (int64_t x = 0; x < host->nnz; ++x)
    count[idx[x]]++;
}

/* The pieces of every nonempty row, in row order; piece_base[i] = pieces before row i. */
static int64_t flycoo_make_pieces(const uint32_t *count, int64_t dim, uint32_t cap,
                                  uint32_t *piece_base, flycoo_piece *out, flycoo_mode_plan *p) {
  int64_t n = 0;
  for (int64_t i = 0; i < dim; ++i) {
    piece_base[i] = (uint32_t)n;
    if (count[i] == 0)
      continue;
    uint32_t k_count = (uint32_t)(((uint64_t)count[i] + cap - 1) / cap);
    p->rows++;
    p->split_rows += k_count > 1;
    for (uint32_t k = 0; k < k_count; ++k) {
      uint32_t left = count[i] - k * cap;
      out[n].size = left < cap ? left : cap;
      out[n].row = (uint32_t)i;
      out[n].k = k;
      out[n].orig = (uint32_t)n;
      n++;
    }
  }
  return n;
}

static tp_status flycoo_alloc_plan(flycoo_mode_plan *p, int64_t pieces, int kappa, int64_t split,
                                   int64_t nnz) {
  p->piece_start = (uint32_t *)calloc((size_t)(pieces + 1), sizeof(uint32_t));
  p->piece_slot = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(pieces + 1));
  p->part_piece = (uint32_t *)calloc((size_t)kappa + 1, sizeof(uint32_t));
  p->split_row = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(split + 1));
  p->split_first = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(split + 1));
  p->position = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(nnz + 1));
  if (!p->piece_start || !p->piece_slot || !p->part_piece || !p->split_row || !p->split_first ||
      !p->position)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the partition plan of %lld pieces",
                    (long long)pieces);
  return TP_SUCCESS;
}

/* Work arrays of one plan. */
typedef struct flycoo_work {
  uint32_t *count, *piece_base, *seen, *split_index, *where, *start_of;
  flycoo_piece *pieces;
  uint64_t *load;
  uint32_t *id;
} flycoo_work;

static tp_status flycoo_work_alloc(flycoo_work *w, int64_t dim, int64_t nnz, int kappa) {
  memset(w, 0, sizeof *w);
  w->count = (uint32_t *)calloc((size_t)dim, sizeof(uint32_t));
  w->seen = (uint32_t *)calloc((size_t)dim, sizeof(uint32_t));
  w->piece_base = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)dim);
  w->split_index = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)dim);
  w->pieces = (flycoo_piece *)malloc(sizeof(flycoo_piece) * (size_t)(nnz + 1));
  w->where = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(nnz + kappa + 1));
  w->start_of = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(nnz + 1));
  w->load = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)kappa);
  w->id = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)kappa);
  if (!w->count || !w->seen || !w->piece_base || !w->split_index || !w->pieces || !w->where ||
      !w->start_of || !w->load || !w->id)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "cannot allocate the partitioning work arrays (%lld rows, %lld nonzeros)",
                    (long long)dim, (long long)nnz);
  return TP_SUCCESS;
}

static void flycoo_work_free(flycoo_work *w) {
  free(w->count), free(w->seen), free(w->piece_base), free(w->split_index), free(w->pieces);
  free(w->where), free(w->start_of), free(w->load), free(w->id);
}

/* Orders the sorted pieces by partition (within one, in placement order): part_piece,
 * piece_start, and where[j] = final place of sorted piece j; start_of[orig] its start. */
static void flycoo_lay_out(const flycoo_piece *sorted, int64_t n, int kappa, flycoo_mode_plan *p,
                           uint32_t *where, uint32_t *start_of) {
  for (int64_t j = 0; j < n; ++j)
    p->part_piece[sorted[j].part + 1]++;
  for (int q = 0; q < kappa; ++q)
    p->part_piece[q + 1] += p->part_piece[q];
  uint32_t *cursor = where + n; /* kappa words after where[] */
  memcpy(cursor, p->part_piece, sizeof(uint32_t) * (size_t)kappa);
  for (int64_t j = 0; j < n; ++j) {
    where[j] = cursor[sorted[j].part]++;
    p->piece_start[where[j] + 1] = sorted[j].size;
  }
  for (int64_t j = 0; j < n; ++j)
    p->piece_start[j + 1] += p->piece_start[j];
  for (int64_t j = 0; j < n; ++j)
    start_of[sorted[j].orig] = p->piece_start[where[j]];
}

/* Partial rows of the cut rows (in row order, their pieces in order) and every piece's
 * slot. */
static void flycoo_slots(const flycoo_piece *sorted, int64_t n, const uint32_t *count, int64_t dim,
                         uint32_t cap, const uint32_t *where, uint32_t *split_index,
                         flycoo_mode_plan *p) {
  int64_t s = 0, partial = 0;
  for (int64_t i = 0; i < dim; ++i) {
    if (count[i] <= cap)
      continue;
    split_index[i] = (uint32_t)s;
    p->split_row[s] = (uint32_t)i;
    p->split_first[s++] = (uint32_t)partial;
    partial += ((uint64_t)count[i] + cap - 1) / cap;
  }
  p->split_first[s] = (uint32_t)partial;
  p->partial_rows = partial;
  for (int64_t j = 0; j < n; ++j) {
    const flycoo_piece *pc = &sorted[j];
    p->piece_slot[where[j]] = count[pc->row] <= cap
                                  ? pc->row
                                  : (uint32_t)(dim + p->split_first[split_index[pc->row]] + pc->k);
  }
}

/* position[x]: the start of the nonzero's piece plus its rank within the piece (nonzeros
 * of a row keep the host tensor's order). */
static void flycoo_positions(const tp_coo *host, int mode, uint32_t cap, const flycoo_work *w,
                             flycoo_mode_plan *p) {
  const int64_t *idx = host->indices[mode];
  for (int64_t x = 0; x < host->nnz; ++x) {
    uint32_t i = (uint32_t)idx[x], c = w->seen[i]++;
    p->position[x] = w->start_of[w->piece_base[i] + c / cap] + c % cap;
  }
}

tp_status flycoo_plan_mode(const tp_coo *host, int mode, int kappa, int split,
                           flycoo_mode_plan *plan) {
  memset(plan, 0, sizeof *plan);
  const int64_t dim = host->dims[mode], nnz = host->nnz;
  TP_CHECK_ARG(kappa >= 1, "kappa %d must be positive", kappa);
  if (dim > FLYCOO_MAX_DIM)
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "mode %d has %lld rows; FLYCOO takes up to %lld", mode,
                    (long long)dim, (long long)FLYCOO_MAX_DIM);
  const int64_t share = (nnz + kappa - 1) / kappa;
  const uint32_t cap = split ? (uint32_t)(share / 2 > 0 ? share / 2 : 1) : UINT32_MAX;
  flycoo_work w;
  tp_status st = flycoo_work_alloc(&w, dim, nnz, kappa);
  if (st == TP_SUCCESS) {
    flycoo_count_rows(host, mode, w.count);
    const int64_t n = flycoo_make_pieces(w.count, dim, cap, w.piece_base, w.pieces, plan);
    plan->pieces = n;
    qsort(w.pieces, (size_t)n, sizeof *w.pieces, flycoo_piece_cmp);
    plan->max_partition = flycoo_assign(w.pieces, n, kappa, w.load, w.id);
    st = flycoo_alloc_plan(plan, n, kappa, plan->split_rows, nnz);
    if (st == TP_SUCCESS) {
      flycoo_lay_out(w.pieces, n, kappa, plan, w.where, w.start_of);
      flycoo_slots(w.pieces, n, w.count, dim, cap, w.where, w.split_index, plan);
      flycoo_positions(host, mode, cap, &w, plan);
    }
  }
  flycoo_work_free(&w);
  if (st != TP_SUCCESS)
    flycoo_plan_free(plan);
  return st;
}

void flycoo_plan_free(flycoo_mode_plan *plan) {
  free(plan->piece_start), free(plan->piece_slot), free(plan->part_piece);
  free(plan->split_row), free(plan->split_first), free(plan->position);
  memset(plan, 0, sizeof *plan);
}
