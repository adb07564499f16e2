/* Sparse MTTKRP: FLYCOO partitioning with dynamic remapping, and a COO baseline.
 *
 * G[i, r] = sum over the nonzeros x with index i in mode n of
 * x * prod_{m != n} U_m[i_m, r], G dims[n] x R row-major.
 *
 * FLYCOO (the sparse paper): for every mode, the output rows are sorted by nonzero count
 * and each goes to the least-filled of kappa partitions (Algorithm 1). The nonzeros are
 * stored as compact records ordered by partition for the current mode. One team per
 * partition accumulates its rows in team scratch: there are no global atomics.
 *
 * Two record layouts (tp_flycoo_options.copies):
 * - the paper's dynamic remapping: records hold the indices of every mode, their
 *   position in every mode's order and the value. While a team works on mode n, it
 *   writes each record to its position in mode n+1's order, so the tensor arrives in
 *   the next mode's order without a second pass, and two copies swap;
 * - one copy per mode, each in its mode's order: records hold only the indices and the
 *   value, and no pass writes records. Fewer bytes move per pass (3 modes, f32: 16 bytes
 *   read per nonzero, against 32 read and 32 written), for at most 1.25 times the memory
 *   (less in f32). The default up to 5 modes.
 *
 * tenport adds one thing: a row holding more than half a partition's share of the
 * nonzeros is cut into pieces. The pieces are placed like rows, and their sums are added
 * into G by a small kernel afterwards. This is still without atomics. Skewed tensors,
 * where one row holds several percent of the nonzeros, then keep every team busy.
 * split_rows = 0 gives the paper's partitioning exactly. */
#ifndef TENPORT_SPARSE_MTTKRP_H
#define TENPORT_SPARSE_MTTKRP_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/dense.h"
#include "tenport/export.h"
#include "tenport/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_flycoo tp_flycoo;

typedef struct tp_flycoo_options {
  int partitions; /* kappa; 0 = from the space: 2 per multiprocessor on GPUs, the
                     thread count on CPUs */
  int split_rows; /* 1 (default): cut rows heavier than half a partition's share */
  /* Record copies: 2 = two buffers and dynamic remapping (the paper; also for 2-mode
   * tensors), records of whole 32-byte sectors (indices, positions in every mode's order,
   * value); the tensor's order (3 and up) = one copy in every mode's order, so no pass
   * writes or permutes records, and records hold only the indices and the value (3-mode
   * f32: 16 bytes, against 32). 0 (default) = one copy per mode for 2 to 5 modes (their
   * memory is then at most 1.25 times remapping's, less in f32), and remapping from 6
   * modes. Remapping writes every record again each pass, a large share of its time. */
  int copies;
} tp_flycoo_options;

TP_API tp_flycoo_options tp_flycoo_options_default(void);

/* Builds the FLYCOO form of a host COO tensor in the space: f32 or f64, at least 2 modes,
 * fewer than 2^32 - 1 nonzeros, at most 2^28 rows per mode (the partitioning keeps
 * per-row counts), finite values and indices in range (checked). Duplicate coordinates
 * are allowed (they add up). The records start in mode 0's order.
 *
 * The build runs in the space (on the GPU for GPU spaces): the host checks the tensor
 * and narrows its indices to 32 bits on every core, then uploads them; kernels and the
 * space's sort, scan and compaction plan every mode; only Algorithm 1's placement runs
 * on the host, once per distinct row size, not per row. The plans and records are the
 * same, bit for bit, on every backend and thread count. */
TP_API tp_status tp_flycoo_create(tp_space *space, const tp_coo *host,
                                  const tp_flycoo_options *opts, tp_flycoo **fly);
TP_API tp_status tp_flycoo_destroy(tp_flycoo **fly);

/* tp_flycoo_create from a COO tensor already in the space (its arrays are memory of the
 * space, as tp_coo_copy_to_device or tp_coo_alloc(space, ...) make them): checked by
 * reductions in the space (a bad tensor is copied back once, for tp_coo_validate's
 * message), nothing uploaded; X is not changed and may be freed afterwards. */
TP_API tp_status tp_flycoo_create_in_space(tp_space *space, const tp_coo *X,
                                           const tp_flycoo_options *opts, tp_flycoo **fly);

/* What the partitioning produced, per mode. */
typedef struct tp_flycoo_stats {
  tp_dtype dtype;
  int order, partitions;
  int copies;       /* record buffers (tp_flycoo_options.copies) */
  int remaps;       /* 1: dynamic remapping; 0: a copy per mode */
  int record_bytes; /* bytes per record */
  int64_t nnz, dims[TP_COO_MAX_ORDER];
  double norm2;                            /* ||X||^2, duplicates summed (double) */
  int64_t rows[TP_COO_MAX_ORDER];          /* nonempty rows */
  int64_t pieces[TP_COO_MAX_ORDER];        /* rows and row pieces placed */
  int64_t split_rows[TP_COO_MAX_ORDER];    /* rows cut into pieces */
  int64_t max_partition[TP_COO_MAX_ORDER]; /* nonzeros of the fullest partition */
  size_t device_bytes;                     /* memory the structure holds in the space */
  double build_seconds;                    /* the whole create call: checks, upload,
                                              planning, records */
} tp_flycoo_stats;

TP_API tp_status tp_flycoo_get_stats(const tp_flycoo *fly, tp_flycoo_stats *stats);

/* The mode whose order the records are in now. */
TP_API int tp_flycoo_mode(const tp_flycoo *fly);

/* Mode-`mode` MTTKRP into G (in the space, dims[mode] x U->rank, every entry written).
 * U's factors are in the space (factors[mode] is not read). If the records are not in
 * mode's order they are first put in it (one permutation pass). With remap, the pass
 * also writes the records in mode (mode + 1) % order's order; without, they stay. With
 * one copy per mode (tp_flycoo_options.copies) every order is at hand: no pass permutes
 * or writes records, and remap only names the next mode as the current one. */
TP_API tp_status tp_flycoo_mttkrp(tp_space *space, tp_flycoo *fly, const tp_kruskal *U, int mode,
                                  void *G, int remap);

/* Puts the records in `mode`'s order (a permutation pass; nothing if already there). */
TP_API tp_status tp_flycoo_reorder(tp_space *space, tp_flycoo *fly, int mode);

/* Copies the records back to a host COO in the current mode's order (allocated here;
 * free with tp_coo_free(NULL, host)). */
TP_API tp_status tp_flycoo_to_coo(tp_space *space, const tp_flycoo *fly, tp_coo *host);

/* The baseline: one thread per nonzero of a plain COO tensor in the space (any order of
 * nonzeros), global atomic additions into G. */
TP_API tp_status tp_coo_mttkrp_atomic(tp_space *space, const tp_coo *X, const tp_kruskal *U,
                                      int mode, void *G);

/* Reference MTTKRP in double precision on host data (G: dims[mode] x rank doubles). */
TP_API tp_status tp_coo_mttkrp_reference(const tp_coo *host, const tp_kruskal *host_U, int mode,
                                         double *G);

#ifdef __cplusplus
}
#endif
#endif
