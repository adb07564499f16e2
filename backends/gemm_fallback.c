/* tp_gemm_f64 where no vendor BLAS is in the build (HIP, CPUs without BLIS): tenport's
 * portable tiled kernel. */
#include "tp_linalg_internal.h"

const char *tp_gemm_provider(void) { return "portable"; }

tp_status tp_gemm_f64(tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m,
                      int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                      const double *B, int64_t ldb, double beta, double *C, int64_t ldc) {
  return tp_gemm_portable_f64(space, trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                              ldc);
}
