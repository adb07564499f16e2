/* FLYCOO internals: the per-mode partition plan (built in the space by flycoo_build.c; the
 * host reference in flycoo_plan.c), the record layout, and the kernel table of each
 * precision (spm_kernels_template.h).
 *
 * Records: one per nonzero, `stride` 32-bit words (flycoo_record_layout). With remapping
 * (two buffers): the indices of every mode (words 0..N-1), the nonzero's position in
 * every mode's order (words N..2N-1), the value (one word for f32, two for f64, at an
 * even word so that it is 8-byte aligned), then zero padding to a multiple of 8 words.
 * With a copy per mode nothing is ever written or moved: the indices and the value only
 * (the value at the next even word for f64, so an odd order leaves one zero word).
 *
 * Pieces: the units Algorithm 1 places. A piece is a whole output row, or a run of at
 * most `cap` nonzeros of a row that was cut. In a mode's order, the records of
 * partition p are pieces part_piece[p] .. part_piece[p+1]-1, piece j being the records
 * piece_start[j] .. piece_start[j+1]-1. piece_slot[j] says where its sums go: G's row
 * slot when slot < dims[mode], else row slot - dims[mode] of the partial buffer. The
 * partial rows of cut row split_row[s] are split_first[s] .. split_first[s+1]-1. */
#ifndef TP_FLYCOO_INTERNAL_H
#define TP_FLYCOO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/sparse_mttkrp.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* ||X s||^2 and s, a power of two: 1 unless ||X||^2 leaves the normal range
 * (portable/tp_norm_scale.h), for the methods that scale by it (CP-ALS). */
void tpi_flycoo_norm2_scaled(const tp_flycoo *fly, double *norm2, double *scale);

/* Largest mode size the plan takes (its per-row arrays are dense). */
#define FLYCOO_MAX_DIM ((int64_t)1 << 28)

typedef struct flycoo_mode_plan {
  int64_t pieces, rows, split_rows, partial_rows, max_partition;
  uint32_t *piece_start; /* pieces + 1 */
  uint32_t *piece_slot;  /* pieces */
  uint32_t *part_piece;  /* kappa + 1 */
  uint32_t *split_row;   /* split_rows */
  uint32_t *split_first; /* split_rows + 1 */
  uint32_t *position;    /* nnz: each nonzero's position in this mode's order, in the
                            host tensor's order */
} flycoo_mode_plan;

/* Partitions mode `mode` of a host tensor into kappa partitions (Algorithm 1: pieces in
 * decreasing size, ties by row then piece, each to the least-filled partition, ties by
 * the lowest partition). split: cut rows of more than cap = max(1, ceil(nnz / kappa) / 2)
 * nonzeros into pieces of cap. */
tp_status flycoo_plan_mode(const tp_coo *host, int mode, int kappa, int split,
                           flycoo_mode_plan *plan);
void flycoo_plan_free(flycoo_mode_plan *plan);

/* ---- the build in a space (flycoo_build.c, flycoo_assign.c, spm_build_kernels.c) -------------
 * Every mode is planned by kernels and the space's primitives: the nonzeros sorted by
 * row (stably), the rows' counts, their pieces sorted by size, and every nonzero's
 * position; only Algorithm 1's placement runs on the host, over runs of equal piece
 * sizes (flycoo_assign.c). The result is flycoo_plan_mode's, bit for bit. */

/* A partition's share of one run of equal-size pieces: `count` pieces of `size`, at loads
 * load, load + size, ...; they are the partition's rank-th, rank+1-th, ... pieces, and
 * the placement's events first .. first + count - 1 (in no particular order). */
typedef struct flycoo_share {
  uint32_t part, load, count, rank, size, first;
} flycoo_share;

typedef struct flycoo_assignment {
  flycoo_share *shares;
  int64_t n_shares;
  uint32_t *part_piece; /* kappa + 1: pieces of the partitions before */
  uint32_t *part_first; /* kappa + 1: nonzeros of the partitions before */
  int64_t max_partition;
} flycoo_assignment;

/* Places runs[k] = run_count[k] pieces of run_size[k] (sizes decreasing) on kappa
 * partitions as Algorithm 1 does one piece at a time. bulk_from: 0 chooses per run
 * between the heap and the threshold by their cost; n > 0 places runs of n pieces or
 * more by the threshold, shorter ones by the heap (the tests' way to take either). */
tp_status flycoo_assign_runs(const uint32_t *run_size, const int64_t *run_count, int64_t runs,
                             int kappa, int64_t bulk_from, flycoo_assignment *a);
void flycoo_assignment_free(flycoo_assignment *a);

/* A tensor in the space as the build reads it: 32-bit indices and the values. */
typedef struct flycoo_source {
  tp_dtype dtype;
  int order;
  int64_t nnz, dims[TP_COO_MAX_ORDER];
  const uint32_t *idx[TP_COO_MAX_ORDER];
  const void *values;
} flycoo_source;

/* What planning a mode found (tp_flycoo_stats' per-mode figures). */
typedef struct flycoo_plan_counts {
  int64_t pieces, rows, split_rows, partial_rows, max_partition;
} flycoo_plan_counts;

typedef struct flycoo_mode_dev flycoo_mode_dev;

/* Plans mode `mode` of src in the space: the plan's arrays (tp_alloc'd, freed by the
 * caller with tp_free) and position[x], each nonzero's place in the mode's order (nnz
 * words of the space). */
tp_status flycoo_plan_mode_in_space(tp_space *space, const flycoo_source *src, int mode, int kappa,
                                    int split, flycoo_mode_dev *plan, uint32_t *position,
                                    flycoo_plan_counts *counts);

typedef struct flycoo_layout {
  int stride;     /* words per record */
  int value_word; /* where the value starts */
  int positions;  /* whether words order..2 order-1 hold positions (remapping) */
} flycoo_layout;

/* The record layout with positions (remapping) or without (a copy per mode), for values
 * of vw words. With positions, records are rounded up to whole 32-byte sectors, so that
 * the scattered writes of the remapping fill sectors (a partly written sector costs the
 * memory a read first); without, every byte saved is a byte less read per pass. Macros,
 * so that the specialised kernels get constants (a runtime stride costs them spills). */
#define FLYCOO_VALUE_WORD(order, vw, positions) \
  (((positions) ? 2 * (order) : (order) + (vw)-1) / (vw) * (vw))
#define FLYCOO_STRIDE(order, vw, positions)                           \
  ((positions) ? (FLYCOO_VALUE_WORD(order, vw, 1) + (vw) + 7) / 8 * 8 \
               : FLYCOO_VALUE_WORD(order, vw, 0) + (vw))

static inline flycoo_layout flycoo_record_layout(int order, tp_dtype dtype, int positions) {
  const int vw = dtype == TP_DTYPE_F64 ? 2 : 1;
  flycoo_layout l;
  l.value_word = FLYCOO_VALUE_WORD(order, vw, positions);
  l.stride = FLYCOO_STRIDE(order, vw, positions);
  l.positions = positions;
  return l;
}

/* A mode's plan in the space. */
struct flycoo_mode_dev {
  int64_t pieces, split_rows, partial_rows;
  uint32_t *piece_start, *piece_slot, *part_piece, *split_row, *split_first;
};

/* One MTTKRP pass of a mode over records in its order. */
typedef struct flycoo_pass {
  const uint32_t *in;
  uint32_t *out; /* records in next's order, or NULL */
  int order, mode, next, kappa;
  flycoo_layout layout;
  int64_t rank, dim;
  const void *U[TP_COO_MAX_ORDER];
  void *G, *partial;
  flycoo_mode_dev m;
} flycoo_pass;

/* Lanes on the rank, columns per lane, threads per team of the kernels. */
typedef struct flycoo_shape {
  int vector, width, team;
} flycoo_shape;

typedef struct flycoo_ops {
  tp_status (*mttkrp)(tp_space *space, const flycoo_pass *p);
  tp_status (*atomic)(tp_space *space, const tp_coo *X, const tp_kruskal *U, int mode, void *G);
} flycoo_ops;

const flycoo_ops *flycoo_ops_f32(void);
const flycoo_ops *flycoo_ops_f64(void);

/* For the tests: a mode's plan, a record buffer (0 .. copies - 1) and the layout. */
const flycoo_mode_dev *flycoo_plan_of(const tp_flycoo *fly, int mode);
const uint32_t *flycoo_records_of(const tp_flycoo *fly, int buffer);
flycoo_layout flycoo_layout_of(const tp_flycoo *fly);

/* Records out[positions of `to` (word order + to)] = in, for every record (no kernel
 * arithmetic): the permutation pass. */
tp_status flycoo_permute(tp_space *space, const uint32_t *in, uint32_t *out, int64_t nnz,
                         int stride, int word);

TP_EXTERN_C_END
#endif
