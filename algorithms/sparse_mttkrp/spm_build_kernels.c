/* The kernels of FLYCOO's build in a space (tp_flycoo_build.h): plain data-parallel
 * steps, one thread per nonzero, row, piece or event; nothing here needs an atomic. */
/* generates: flycoo_bounds_kernel flycoo_events_kernel flycoo_fill_kernel flycoo_iota_kernel
 * flycoo_make_pieces_kernel flycoo_narrow_kernel flycoo_not_increasing_kernel
 * flycoo_not_increasing_kernel_final flycoo_place_kernel flycoo_positions_kernel flycoo_row_pieces_kernel
 * flycoo_run_flags_kernel flycoo_run_sizes_kernel flycoo_split_kernel flycoo_sum_squares_kernel
 * flycoo_sum_squares_kernel_final */
#include "portable/tp_portable.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_build.h"

/* ---- sequences and indices ------------------------------------------------------------ */
typedef struct flycoo_iota_args {
  uint32_t *out;
} flycoo_iota_args;

TP_RANGE_KERNEL(flycoo_iota_kernel, flycoo_iota_args, i, a) { a.out[i] = (uint32_t)i; }

tp_status flycoo_bk_iota(tp_space *space, uint32_t *out, int64_t n) {
  flycoo_iota_args a;
  a.out = out;
  return flycoo_iota_kernel_launch(space, n, a);
}

typedef struct flycoo_narrow_args {
  const int64_t *in;
  uint32_t *out;
} flycoo_narrow_args;

TP_RANGE_KERNEL(flycoo_narrow_kernel, flycoo_narrow_args, i, a) { a.out[i] = (uint32_t)a.in[i]; }

tp_status flycoo_bk_narrow(tp_space *space, const int64_t *in, uint32_t *out, int64_t n) {
  flycoo_narrow_args a;
  a.in = in, a.out = out;
  return flycoo_narrow_kernel_launch(space, n, a);
}

/* ---- rows ----------------------------------------------------------------------------- */
typedef struct flycoo_bounds_args {
  const uint32_t *keys;
  uint32_t *first, *end;
  int64_t n;
} flycoo_bounds_args;

TP_RANGE_KERNEL(flycoo_bounds_kernel, flycoo_bounds_args, s, a) {
  const uint32_t k = a.keys[s];
  if (s == 0 || a.keys[s - 1] != k)
    a.first[k] = (uint32_t)s;
  if (s == a.n - 1 || a.keys[s + 1] != k)
    a.end[k] = (uint32_t)(s + 1);
}

tp_status flycoo_bk_row_bounds(tp_space *space, const uint32_t *keys, int64_t nnz, uint32_t *first,
                               uint32_t *end) {
  flycoo_bounds_args a;
  a.keys = keys, a.first = first, a.end = end, a.n = nnz;
  return flycoo_bounds_kernel_launch(space, nnz, a);
}

/* Pieces of a row of `count` nonzeros. */
TP_INLINE uint32_t flycoo_row_piece_count(uint32_t count, uint32_t cap) {
  return (uint32_t)(((uint64_t)count + cap - 1) / cap);
}

typedef struct flycoo_row_pieces_args {
  const uint32_t *first, *end;
  uint64_t *pieces;
  uint8_t *cut;
  uint32_t cap;
} flycoo_row_pieces_args;

TP_RANGE_KERNEL(flycoo_row_pieces_kernel, flycoo_row_pieces_args, i, a) {
  const uint64_t k = flycoo_row_piece_count(a.end[i] - a.first[i], a.cap);
  a.pieces[i] = k | (k > 1 ? k << 32 : 0);
  a.cut[i] = (uint8_t)(k > 1);
}

tp_status flycoo_bk_row_pieces(tp_space *space, const uint32_t *first, const uint32_t *end,
                               int64_t dim, uint32_t cap, uint64_t *pieces, uint8_t *cut) {
  flycoo_row_pieces_args a;
  a.first = first, a.end = end, a.pieces = pieces, a.cut = cut, a.cap = cap;
  return flycoo_row_pieces_kernel_launch(space, dim, a);
}

typedef struct flycoo_split_args {
  const int64_t *rows;
  const uint64_t *base;
  uint32_t *split_row, *split_first;
} flycoo_split_args;

TP_RANGE_KERNEL(flycoo_split_kernel, flycoo_split_args, s, a) {
  const int64_t i = a.rows[s];
  a.split_row[s] = (uint32_t)i;
  a.split_first[s] = (uint32_t)(a.base[i] >> 32);
}

tp_status flycoo_bk_split_rows(tp_space *space, const int64_t *rows, int64_t n,
                               const uint64_t *base, uint32_t *split_row, uint32_t *split_first) {
  flycoo_split_args a;
  a.rows = rows, a.base = base, a.split_row = split_row, a.split_first = split_first;
  return flycoo_split_kernel_launch(space, n, a);
}

/* ---- pieces --------------------------------------------------------------------------- */
typedef struct flycoo_make_pieces_args {
  const uint32_t *first, *end;
  const uint64_t *base;
  flycoo_piece_arrays p;
  uint32_t cap, top;
} flycoo_make_pieces_args;

TP_RANGE_KERNEL(flycoo_make_pieces_kernel, flycoo_make_pieces_args, i, a) {
  const uint32_t count = a.end[i] - a.first[i];
  const uint32_t pieces = flycoo_row_piece_count(count, a.cap);
  const uint32_t b = (uint32_t)a.base[i];
  for (uint32_t k = 0; k < pieces; ++k) {
    const uint32_t left = count - k * a.cap, size = left < a.cap ? left : a.cap;
    a.p.key[b + k] = a.top - size;
    a.p.orig[b + k] = b + k;
    a.p.row[b + k] = (uint32_t)i;
    a.p.k[b + k] = k;
  }
}

tp_status flycoo_bk_make_pieces(tp_space *space, const uint32_t *first, const uint32_t *end,
                                const uint64_t *base, int64_t dim, uint32_t cap, uint32_t top,
                                flycoo_piece_arrays p) {
  flycoo_make_pieces_args a;
  a.first = first, a.end = end, a.base = base, a.p = p, a.cap = cap, a.top = top;
  return flycoo_make_pieces_kernel_launch(space, dim, a);
}

typedef struct flycoo_run_flags_args {
  const uint32_t *keys;
  uint8_t *flags;
} flycoo_run_flags_args;

TP_RANGE_KERNEL(flycoo_run_flags_kernel, flycoo_run_flags_args, t, a) {
  a.flags[t] = (uint8_t)(t == 0 || a.keys[t] != a.keys[t - 1]);
}

tp_status flycoo_bk_run_flags(tp_space *space, const uint32_t *keys, int64_t n, uint8_t *flags) {
  flycoo_run_flags_args a;
  a.keys = keys, a.flags = flags;
  return flycoo_run_flags_kernel_launch(space, n, a);
}

typedef struct flycoo_run_sizes_args {
  const uint32_t *keys;
  const int64_t *start;
  uint32_t *size;
  uint32_t top;
} flycoo_run_sizes_args;

TP_RANGE_KERNEL(flycoo_run_sizes_kernel, flycoo_run_sizes_args, d, a) {
  a.size[d] = a.top - a.keys[a.start[d]];
}

tp_status flycoo_bk_run_sizes(tp_space *space, const uint32_t *keys, const int64_t *start,
                              int64_t runs, uint32_t top, uint32_t *size) {
  flycoo_run_sizes_args a;
  a.keys = keys, a.start = start, a.size = size, a.top = top;
  return flycoo_run_sizes_kernel_launch(space, runs, a);
}

/* ---- placement ------------------------------------------------------------------------ */
typedef struct flycoo_events_args {
  const flycoo_share *shares;
  const uint32_t *part_piece;
  uint64_t *key;
  uint32_t *where;
  int64_t n_shares;
  uint32_t kappa;
} flycoo_events_args;

TP_RANGE_KERNEL(flycoo_events_kernel, flycoo_events_args, e, a) {
  int64_t lo = 0, hi = a.n_shares - 1; /* the last share whose first event is <= e */
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if ((int64_t)a.shares[mid].first <= e)
      lo = mid;
    else
      hi = mid - 1;
  }
  const flycoo_share s = a.shares[lo];
  const uint32_t j = (uint32_t)e - s.first;
  a.key[e] = ((uint64_t)s.load + (uint64_t)j * s.size) * a.kappa + s.part;
  a.where[e] = a.part_piece[s.part] + s.rank + j;
}

tp_status flycoo_bk_events(tp_space *space, const flycoo_share *shares, int64_t n_shares,
                           const uint32_t *part_piece, int kappa, int64_t n, uint64_t *key,
                           uint32_t *where) {
  flycoo_events_args a;
  a.shares = shares, a.part_piece = part_piece, a.key = key, a.where = where;
  a.n_shares = n_shares, a.kappa = (uint32_t)kappa;
  return flycoo_events_kernel_launch(space, n, a);
}

TP_RANGE_KERNEL(flycoo_place_kernel, flycoo_place_args, t, a) {
  const uint32_t o = a.orig[t], w = a.where[t];
  const uint64_t key = a.key[t];
  const uint32_t start =
      a.part_first[key % (uint32_t)a.kappa] + (uint32_t)(key / (uint32_t)a.kappa);
  a.piece_start[w] = start;
  a.start_of[o] = start;
  const uint32_t row = a.row[o];
  a.piece_slot[w] = a.end[row] - a.first[row] <= a.cap
                        ? row
                        : (uint32_t)(a.dim + (int64_t)(a.base[row] >> 32) + a.k[o]);
}

tp_status flycoo_bk_place(tp_space *space, int64_t n, flycoo_place_args a) {
  return flycoo_place_kernel_launch(space, n, a);
}

TP_RANGE_KERNEL(flycoo_positions_kernel, flycoo_position_args, s, a) {
  const uint32_t i = a.keys[s], c = (uint32_t)s - a.first[i];
  a.position[a.perm[s]] = a.start_of[(uint32_t)a.base[i] + c / a.cap] + c % a.cap;
}

tp_status flycoo_bk_positions(tp_space *space, int64_t nnz, flycoo_position_args a) {
  return flycoo_positions_kernel_launch(space, nnz, a);
}

/* ---- records ------------------------------------------------------------------------------
 * Per-mode arrays reach these kernels through tables of pointers in the space: an array
 * of pointers in the arguments, indexed by a loop variable, would be copied with them for
 * every element on CPUs. */
#include "tenport/memory.h"
#include "portable/tp_space_common.h"

/* tables[0 .. n) = the pointers, in the space. */
static tp_status flycoo_table(tp_space *space, const void *const *ptrs, int n, void ***table) {
  TP_TRY(tp_temp_alloc(space, sizeof(void *) * (size_t)n, (void **)table));
  tp_status st = tp_copy_to_device(space, *table, ptrs, sizeof(void *) * (size_t)n);
  if (st != TP_SUCCESS)
    tp_temp_release(space, *table);
  return st;
}

typedef struct flycoo_fill_args {
  const uint32_t *const *idx, *const *pos; /* tables: order entries */
  const uint32_t *mine;                    /* pos[mode]: where each record goes */
  const uint32_t *values;                  /* as 32-bit words, vw per nonzero */
  uint32_t *records;
  int order, vw;
  flycoo_layout l;
} flycoo_fill_args;

TP_RANGE_KERNEL(flycoo_fill_kernel, flycoo_fill_args, x, a) {
  uint32_t *r = a.records + (int64_t)a.mine[x] * a.l.stride;
  int w = 0;
  for (int m = 0; m < a.order; ++m)
    r[w++] = a.idx[m][x];
  for (int m = 0; a.l.positions && m < a.order; ++m)
    r[w++] = a.pos[m][x];
  for (; w < a.l.value_word; ++w)
    r[w] = 0;
  for (int v = 0; v < a.vw; ++v)
    r[w++] = a.values[x * a.vw + v];
  for (; w < a.l.stride; ++w)
    r[w] = 0;
}

tp_status flycoo_bk_fill_records(tp_space *space, const flycoo_source *src, uint32_t *const *pos,
                                 int mode, flycoo_layout l, uint32_t *records) {
  void **tables;
  const void *ptrs[2 * TP_COO_MAX_ORDER];
  for (int m = 0; m < src->order; ++m)
    ptrs[m] = src->idx[m], ptrs[src->order + m] = pos[m];
  TP_TRY(flycoo_table(space, ptrs, 2 * src->order, &tables));
  flycoo_fill_args a;
  a.idx = (const uint32_t *const *)tables;
  a.pos = (const uint32_t *const *)(tables + src->order);
  a.mine = pos[mode];
  a.values = (const uint32_t *)src->values;
  a.records = records;
  a.order = src->order, a.vw = (int)(tp_dtype_size(src->dtype) / 4);
  a.l = l;
  tp_status st = flycoo_fill_kernel_launch(space, src->nnz, a);
  tp_temp_release(space, tables);
  return st;
}

/* ---- checks of a tensor in the space -------------------------------------------------- */
typedef struct flycoo_coo_args {
  const int64_t *const *idx; /* a table: order entries */
  const void *values;
  double scale; /* the sum of squares is of value * scale */
  int order, f32;
} flycoo_coo_args;

/* Nonzero x + 1 against nonzero x. */
TP_RANGE_REDUCE_KERNEL(flycoo_not_increasing_kernel, flycoo_coo_args, int64_t, tp_join_sum_i64, 0,
                       x, a, acc) {
  int cmp = 0;
  for (int m = 0; m < a.order && cmp == 0; ++m)
    cmp = (a.idx[m][x] > a.idx[m][x + 1]) - (a.idx[m][x] < a.idx[m][x + 1]);
  *acc += cmp >= 0;
}

TP_RANGE_REDUCE_KERNEL(flycoo_sum_squares_kernel, flycoo_coo_args, double, tp_join_sum_f64, 0.0, x,
                       a, acc) {
  const double v =
      (a.f32 ? (double)((const float *)a.values)[x] : ((const double *)a.values)[x]) * a.scale;
  *acc += v * v;
}

tp_status flycoo_bk_coo_checks(tp_space *space, const tp_coo *X, double scale,
                               int64_t *not_increasing, double *sum_squares) {
  void **table;
  TP_TRY(flycoo_table(space, (const void *const *)X->indices, X->order, &table));
  flycoo_coo_args a;
  a.idx = (const int64_t *const *)table;
  a.values = X->values;
  a.order = X->order, a.f32 = X->dtype == TP_DTYPE_F32, a.scale = scale;
  tp_status st =
      flycoo_not_increasing_kernel_launch(space, X->nnz > 1 ? X->nnz - 1 : 0, a, not_increasing);
  if (st == TP_SUCCESS)
    st = flycoo_sum_squares_kernel_launch(space, X->nnz, a, sum_squares);
  tp_temp_release(space, table);
  return st;
}
