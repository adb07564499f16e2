/* The kernels of FLYCOO's build in a space (spm_build_kernels.c), one data-parallel step each;
 * flycoo_build.c strings them together with the space's sort, scan and compaction. All
 * arrays are memory of the space. */
#ifndef TP_FLYCOO_BUILD_H
#define TP_FLYCOO_BUILD_H

#include "algorithms/sparse_mttkrp/tp_flycoo_internal.h"

TP_EXTERN_C_BEGIN

/* out[i] = i. */
tp_status flycoo_bk_iota(tp_space *space, uint32_t *out, int64_t n);

/* out[i] = in[i], indices known to fit in 32 bits. */
tp_status flycoo_bk_narrow(tp_space *space, const int64_t *in, uint32_t *out, int64_t n);

/* From keys sorted by row: first[row] and end[row] of each row's run (untouched for rows
 * without nonzeros). */
tp_status flycoo_bk_row_bounds(tp_space *space, const uint32_t *keys, int64_t nnz, uint32_t *first,
                               uint32_t *end);

/* Per row: its pieces k = ceil(count / cap) in the low word of pieces[i] and, for a cut
 * row (k > 1), k again in the high word (its partial rows); cut[i] = (k > 1). */
tp_status flycoo_bk_row_pieces(tp_space *space, const uint32_t *first, const uint32_t *end,
                               int64_t dim, uint32_t cap, uint64_t *pieces, uint8_t *cut);

/* The cut rows (rows[s], from a compaction of cut[]): split_row[s] = row, split_first[s] =
 * the partial rows of the cut rows before it (the high word of base[row]). */
tp_status flycoo_bk_split_rows(tp_space *space, const int64_t *rows, int64_t n,
                               const uint64_t *base, uint32_t *split_row, uint32_t *split_first);

/* Every row's pieces in row order at base (low word): sort key top - size (so that an
 * ascending sort puts the largest first), original number, row and number within the
 * row. */
typedef struct flycoo_piece_arrays {
  uint32_t *key, *orig, *row, *k;
} flycoo_piece_arrays;
tp_status flycoo_bk_make_pieces(tp_space *space, const uint32_t *first, const uint32_t *end,
                                const uint64_t *base, int64_t dim, uint32_t cap, uint32_t top,
                                flycoo_piece_arrays p);

/* flags[t] = 1 where sorted key t starts a run of equal keys. */
tp_status flycoo_bk_run_flags(tp_space *space, const uint32_t *keys, int64_t n, uint8_t *flags);

/* size[d] = top - keys[start[d]]: the piece size of each run. */
tp_status flycoo_bk_run_sizes(tp_space *space, const uint32_t *keys, const int64_t *start,
                              int64_t runs, uint32_t top, uint32_t *size);

/* One event per piece from the shares: key = load * kappa + partition, where = the
 * piece's place in the partition-major order (part_piece[partition] + rank). */
tp_status flycoo_bk_events(tp_space *space, const flycoo_share *shares, int64_t n_shares,
                           const uint32_t *part_piece, int kappa, int64_t n, uint64_t *key,
                           uint32_t *where);

/* The sorted pieces (orig) matched with the sorted events: piece_start[where] and
 * start_of[orig] = the piece's first record, piece_slot[where] = its row, or dim + its
 * partial row for a cut row. */
typedef struct flycoo_place_args {
  const uint32_t *orig, *where, *part_first, *row, *k, *first, *end;
  const uint64_t *key, *base;
  uint32_t *piece_start, *piece_slot, *start_of;
  int kappa;
  uint32_t cap;
  int64_t dim;
} flycoo_place_args;
tp_status flycoo_bk_place(tp_space *space, int64_t n, flycoo_place_args a);

/* position[perm[s]] = the place of the s-th nonzero in row order: its piece's start plus
 * its rank within the piece. */
typedef struct flycoo_position_args {
  const uint32_t *keys, *perm, *first, *start_of;
  const uint64_t *base;
  uint32_t *position;
  uint32_t cap;
} flycoo_position_args;
tp_status flycoo_bk_positions(tp_space *space, int64_t nnz, flycoo_position_args a);

/* The records of src in the order `mode`'s positions give (pos[mode]), in layout l: the
 * indices, with positions the place of the nonzero in every mode's order, the value, zero
 * in every other word. */
tp_status flycoo_bk_fill_records(tp_space *space, const flycoo_source *src, uint32_t *const *pos,
                                 int mode, flycoo_layout l, uint32_t *records);

/* Checks of a tensor in the space, into memory of the space: the number of nonzeros
 * whose coordinate is not greater than the one before (0: strictly increasing, so
 * without duplicates), and the sum of the squared values times scale. */
tp_status flycoo_bk_coo_checks(tp_space *space, const tp_coo *X, double scale,
                               int64_t *not_increasing, double *sum_squares);

/* ---- the input (flycoo_source.c) --------------------------------------------------------- */

/* The descriptor's checks common to both inputs (dtype, order, nnz, dims), not the
 * contents. */
tp_status flycoo_check_coo(const tp_coo *X);
/* Every index in range and every value finite, by reductions in the space; a failure is
 * reported as tp_coo_validate reports it. */
tp_status flycoo_validate_in_space(tp_space *space, const tp_coo *X);

/* The build's input in the space, and what it allocated for it. */
typedef struct flycoo_staged {
  flycoo_source src;
  uint32_t *owned[TP_COO_MAX_ORDER];
  void *owned_values;
} flycoo_staged;
/* A host tensor in one pass on every core: checked (as tp_coo_validate, with its
 * message), its indices narrowed and uploaded, ||X||^2 taken (duplicates summed, in
 * double, in blocks of fixed size). */
tp_status flycoo_stage_host(tp_space *space, const tp_coo *host, flycoo_staged *s, double *norm2);
/* A tensor in the space (checked before): its indices narrowed by a kernel. */
tp_status flycoo_stage_in_space(tp_space *space, const tp_coo *X, flycoo_staged *s);
void flycoo_staged_free(tp_space *space, flycoo_staged *s);

/* ||X scale||^2 of a tensor in the space, duplicates summed (by reductions; a tensor
 * with duplicates or out of order is summed on the host). */
tp_status flycoo_norm2_in_space(tp_space *space, const tp_coo *X, double scale, double *norm2);
/* ||X s||^2 and s for a tensor whose ||X||^2 leaves the normal range (s = 2^-e from its
 * largest |value|: portable/tp_norm_scale.h), on a merged host copy. Rare: extreme units. */
tp_status flycoo_norm2_rescaled(tp_space *space, const tp_coo *X, int in_space, double *norm2,
                                double *scale);

TP_EXTERN_C_END
#endif
