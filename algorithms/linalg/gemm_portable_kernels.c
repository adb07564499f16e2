/* tenport's own GEMM on the portable layer, in both precisions and batched: each team
 * computes a TILE x TILE block of one C, staging TILE x DEPTH blocks of op(A) and
 * DEPTH x TILE blocks of op(B) in team scratch and accumulating the block of C in
 * scratch. The fallback where no vendor BLAS is available (HIP, CPUs without BLIS).
 *
 * A product with few blocks of C and a long inner dimension (a Gram U^T U of a tall
 * factor: one block, a million-long sum) would run on one team; its sum is split into
 * pieces, one team per piece writing its partial block, and the pieces are then added in
 * a fixed order (the same result on every run). */
/* generates: gemm_sum_pieces_f32 gemm_sum_pieces_f64 gemm_tile_f32 gemm_tile_f64 */
#include "portable/tp_gemm_provider.h"
#include "portable/tp_portable.h"

enum { TILE = 32, DEPTH = 16 };
enum { SPLIT_TEAMS = 256, SPLIT_MIN_DEPTH = 1024 }; /* teams wanted; the shortest piece */

/* Pieces of the inner dimension k for a product of `teams` blocks of C: 1 unless the
 * blocks alone leave most teams idle and k is long. */
static int64_t gemm_splits(int64_t teams, int64_t k) {
  if (teams >= SPLIT_TEAMS || k < 2 * SPLIT_MIN_DEPTH)
    return 1;
  int64_t by_teams = SPLIT_TEAMS / teams, by_depth = k / SPLIT_MIN_DEPTH;
  return by_teams < by_depth ? by_teams : by_depth;
}

tp_status tpi_gemm_check_args(const tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                              int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                              const void *B, int64_t ldb, const void *C, int64_t ldc) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(m >= 0 && n >= 0 && k >= 0, "negative GEMM shape m=%lld n=%lld k=%lld", (long long)m,
               (long long)n, (long long)k);
  int64_t a_cols = trans_a ? m : k, b_cols = trans_b ? k : n;
  TP_CHECK_ARG(lda >= (a_cols > 1 ? a_cols : 1), "lda=%lld is smaller than op(A)'s %lld columns",
               (long long)lda, (long long)a_cols);
  TP_CHECK_ARG(ldb >= (b_cols > 1 ? b_cols : 1), "ldb=%lld is smaller than op(B)'s %lld columns",
               (long long)ldb, (long long)b_cols);
  TP_CHECK_ARG(ldc >= (n > 1 ? n : 1), "ldc=%lld is smaller than C's %lld columns", (long long)ldc,
               (long long)n);
  TP_CHECK_ARG(m == 0 || n == 0 || (C && (k == 0 || (A && B))), "NULL matrix");
  return TP_SUCCESS;
}

tp_status tpi_gemm_check_batch(int64_t stride_a, int64_t stride_b, int64_t stride_c,
                               int64_t batch) {
  TP_CHECK_ARG(batch >= 0, "negative batch count %lld", (long long)batch);
  TP_CHECK_ARG(stride_a >= 0 && stride_b >= 0 && stride_c >= 0,
               "negative batch stride (A %lld, B %lld, C %lld)", (long long)stride_a,
               (long long)stride_b, (long long)stride_c);
  return TP_SUCCESS;
}

#define GEMM_T double
#define GEMM_SFX f64
#include "algorithms/linalg/gemm_portable_template.h"
#define GEMM_T float
#define GEMM_SFX f32
#include "algorithms/linalg/gemm_portable_template.h"
