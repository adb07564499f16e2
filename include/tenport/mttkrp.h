/* Dense mode-k MTTKRP: G = X_(k) (U_{d-1} kr ... kr U_{k+1} kr U_{k-1} kr ... kr U_0),
 * i.e. G[i, r] = sum over the elements x of X with index i in mode k of
 * x * prod_{m != k} U_m[i_m, r]. Factors and G are row-major (dims[m] x R).
 *
 * Variants:
 *   ELEM     one thread per tensor element, atomic updates of G (the paper's baseline)
 *   SLICE    one team per mode-k slice, no atomics
 *   TILE     teams over hypercube tiles of each slice (tile volume from the paper's
 *            Eq. 6), one atomic update of G per tile
 *   GEMM     Phan et al.: the Khatri-Rao product of the factors on the larger side of
 *            mode k is formed in full and contracted with the tensor by one GEMM; the
 *            other side is applied in a second, small pass. Memory grows with the
 *            product of mode sizes.
 *   BLOCKED  tenport's: the same contraction cut into blocks whose Khatri-Rao rows and
 *            partial results fit a fixed workspace budget (default 1% of the tensor),
 *            each block a GEMM followed by the fused Hadamard product and reduction
 *            into G. One read of the tensor, GEMM speed, bounded memory.
 *   AUTO     picks per mode and rank from a cost model (mttkrp_choose.c); on GPUs
 *            always BLOCKED.
 * All variants take any order 2..16 and both layouts, f32 and f64. AUTO, SLICE, GEMM and
 * BLOCKED give the same bits for the same input on every run (their sums have a fixed
 * order); ELEM and TILE add into G with atomic updates, whose order on a GPU changes
 * from run to run. */
#ifndef TENPORT_MTTKRP_H
#define TENPORT_MTTKRP_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/dense.h"
#include "tenport/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_mttkrp_variant {
  TP_MTTKRP_AUTO = 0,
  TP_MTTKRP_ELEM,
  TP_MTTKRP_SLICE,
  TP_MTTKRP_TILE,
  TP_MTTKRP_GEMM,
  TP_MTTKRP_BLOCKED
} tp_mttkrp_variant;

typedef struct tp_mttkrp_options {
  tp_mttkrp_variant variant;
  /* TILE: tile volume N_T; 0 = Eq. 6 from the device's cache sizes. */
  int64_t tile_volume;
  /* BLOCKED: workspace budget in bytes; 0 = workspace_fraction of the tensor's bytes,
   * but at least 4 MiB. */
  size_t workspace_bytes;
  double workspace_fraction; /* default 0.01 */
  /* BLOCKED on GPUs: blocks alternate between this many concurrent lanes (streams,
   * tp_space_lanes_begin), each with its share of the budget, so that one block's GEMM
   * tail and partial kernel overlap the next block's GEMM. 0 = automatic (see
   * mttkrp_plan.c: two where the GEMMs read X transposed and the rank is split into
   * panels, else one). */
  int lanes;
  /* BLOCKED: rank columns per pass over the tensor. Narrower panels leave room in the
   * budget for larger blocks, whose GEMMs run closer to the device's peak, at the price
   * of reading the tensor once per panel. 0 = automatic (see mttkrp_plan.c). */
  int64_t panel;
} tp_mttkrp_options;

TP_API tp_mttkrp_options tp_mttkrp_options_default(void);

/* "auto", "elem", "slice", "tile", "gemm", "blocked". */
TP_API const char *tp_mttkrp_variant_name(tp_mttkrp_variant v);
/* Parses those names; TP_ERROR_INVALID_ARGUMENT lists the valid ones. */
TP_API tp_status tp_mttkrp_variant_parse(const char *name, tp_mttkrp_variant *v);

/* The variant AUTO runs for this tensor, mode and rank on this space. */
TP_API tp_mttkrp_variant tp_mttkrp_choose(tp_space *space, const tp_dense *X, int mode,
                                          int64_t rank, const tp_mttkrp_options *opts);

/* Mode-`mode` MTTKRP of X (data in the space) with the factors of U (in the space; lambda
 * and factors[mode] are not read) into G (dims[mode] x U->rank, in the space; every entry
 * is overwritten). X and U must agree in dtype, order and dims. opts may be NULL. */
TP_API tp_status tp_mttkrp(tp_space *space, const tp_dense *X, const tp_kruskal *U, int mode,
                           void *G, const tp_mttkrp_options *opts);

/* The TILE variant's tile volume N_T = edge^(d-1) for this space (Eq. 6), for reports. */
TP_API int64_t tp_mttkrp_tile_volume(tp_space *space, const tp_dense *X, int64_t rank);

/* ---- all modes in sequence, reusing partial contractions (CP-ALS) ---------------- */

/* A sweep computes the MTTKRPs of modes 0, 1, ..., d-1 in that order, with factor k
 * allowed to change after mode k's MTTKRP (as CP-ALS does). With the GEMM and BLOCKED
 * variants it splits the modes at s: one pass over the tensor contracts it with the
 * factors of modes > s, and modes 0..s are finished from that partial result; a second
 * pass does the same for modes > s with the updated factors of modes <= s. So a sweep
 * reads the tensor twice instead of d times. The partial results take
 * R * max(prod_{k<=s} I_k, prod_{k>s} I_k) elements; when they do not fit the
 * workspace limit every mode runs tp_mttkrp on its own. partial_bytes_limit 0: 64 MiB,
 * or more as long as the partial is no larger than the tensor and takes at most half of
 * the memory the space does not hold yet. */
typedef struct tp_mttkrp_sweep tp_mttkrp_sweep;

TP_API tp_status tp_mttkrp_sweep_create(tp_space *space, const tp_dense *X, int64_t rank,
                                        const tp_mttkrp_options *opts, size_t partial_bytes_limit,
                                        tp_mttkrp_sweep **sweep);
/* Call with mode = 0, 1, ..., d-1 in order each iteration. */
TP_API tp_status tp_mttkrp_sweep_mode(tp_mttkrp_sweep *sweep, const tp_kruskal *U, int mode,
                                      void *G);
/* Forgets the partial results, so that the next mode forms its group's partial anew:
 * for factors changed other than in the sweep's order (a new start, a line search's
 * extrapolation, fixed modes a sweep skips). A sweep that begins with mode 0 restarts
 * by itself. */
TP_API tp_status tp_mttkrp_sweep_restart(tp_mttkrp_sweep *sweep);
/* Full passes over the tensor made per sweep (2 with reuse, d without). */
TP_API int tp_mttkrp_sweep_passes(const tp_mttkrp_sweep *sweep);
TP_API tp_status tp_mttkrp_sweep_destroy(tp_mttkrp_sweep **sweep);

#ifdef __cplusplus
}
#endif
#endif
