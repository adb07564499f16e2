/* tp_gemm_* where no vendor BLAS is in the build (HIP, CPUs without BLIS): tenport's
 * portable tiled kernel. */
#include "algorithms/linalg/tp_linalg_internal.h"

const char *tp_gemm_provider(void) { return "portable"; }

#define TP_FALLBACK_GEMM(sfx, T)                                                                   \
  tp_status tp_gemm_##sfx(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m, int64_t n, \
                          int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,    \
                          T beta, T *C, int64_t ldc) {                                             \
    return tp_gemm_portable_##sfx(space, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);    \
  }                                                                                                \
  tp_status tp_gemm_batched_##sfx(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,    \
                                  int64_t n, int64_t k, T alpha, const T *A, int64_t lda,          \
                                  int64_t sa, const T *B, int64_t ldb, int64_t sb, T beta, T *C,   \
                                  int64_t ldc, int64_t sc, int64_t batch) {                        \
    return tp_gemm_portable_batched_##sfx(space, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb,   \
                                          beta, C, ldc, sc, batch);                                \
  }

TP_FALLBACK_GEMM(f64, double)
TP_FALLBACK_GEMM(f32, float)
