/* AUTO: the variant for a mode and rank, from a cost model in units of "element moves".
 *
 * BLOCKED reads the tensor once and its GEMMs run near the machine's peak, but every
 * element of the partial result T is written and read once per Khatri-Rao pass:
 *   cost_blocked = N + 2 N R / K  +  2 N R / (beta * gemm_eff)
 * with K the GEMM side's size (the contraction depth) and beta the machine balance
 * (flops per element moved at peak; ~14 for FP64 on H100/H200-class GPUs, ~10 on CPUs).
 * TILE follows the paper's 0,LM model: the tensor, (N_S / N_T) I_k R atomic updates and
 * factor reads served by the middle-level cache (l = 10 on GPUs, 8 on CPUs), at the
 * element-wise kernels' lower arithmetic efficiency:
 *   cost_tile = N + (N / N_T) R + N R (d - 1) / l  +  N R d / (beta * elem_eff)
 * gemm_eff = 0.8 and elem_eff = 0.1 are the fractions of peak the two kinds of kernel
 * sustain (GEMM libraries reach 80-90%; the paper's TILE reached 1.3 of 34 TFLOP/s on an
 * H100). SLICE stands in for TILE on CPUs, where the paper found it as fast. ELEM and
 * GEMM are never chosen: ELEM is the baseline, and GEMM's memory grows with the product
 * of the mode sizes while BLOCKED computes the same thing in a fixed budget.
 * On GPUs AUTO takes BLOCKED whatever the model says: TILE's atomic updates of G add the
 * tiles in the order the GPU runs them, so its results change from run to run, and AUTO
 * (which CP-ALS uses) must give the same bits for the same input. TILE stays for those
 * who ask for it. */
#include "algorithms/dense_mttkrp/tp_mttkrp_internal.h"

static double mttkrp_cost_blocked(double N, double R, double K, double beta) {
  return N + 2.0 * N * R / K + 2.0 * N * R / (beta * 0.8);
}

static double mttkrp_cost_tile(double N, double R, double d, double NT, double l, double beta) {
  return N + N / NT * R + N * R * (d - 1.0) / l + N * R * d / (beta * 0.1);
}

tp_mttkrp_variant tp_mttkrp_choose(tp_space *space, const tp_dense *X, int mode, int64_t rank,
                                   const tp_mttkrp_options *opts) {
  (void)opts;
  tp_space_info info;
  if (!space || !X || tp_dense_check(X) != TP_SUCCESS || mode < 0 || mode >= X->order ||
      tp_space_get_info(space, &info) != TP_SUCCESS || info.is_gpu)
    return TP_MTTKRP_BLOCKED;
  int k = X->layout == TP_LAYOUT_RIGHT ? X->order - 1 - mode : mode;
  int64_t canonical[TP_DENSE_MAX_ORDER];
  for (int m = 0; m < X->order; ++m)
    canonical[m] = X->dims[X->layout == TP_LAYOUT_RIGHT ? X->order - 1 - m : m];
  const double N = (double)tp_dense_count(X), R = (double)rank, d = X->order;
  const double K =
      (double)mttkrp_max(mttkrp_prod(canonical, 0, k), mttkrp_prod(canonical, k + 1, X->order));
  const double beta = 10.0, l = 8.0; /* CPUs' */
  const double NT = (double)tp_mttkrp_tile_volume(space, X, rank);
  if (mttkrp_cost_blocked(N, R, K, beta) <= mttkrp_cost_tile(N, R, d, NT > 0 ? NT : 1.0, l, beta))
    return TP_MTTKRP_BLOCKED;
  return TP_MTTKRP_SLICE;
}
