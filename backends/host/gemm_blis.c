/* tp_gemm_* on the CPU backends through BLIS (built when meson finds BLIS). */
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/linalg/tp_linalg_internal.h"

#include <blis.h>

const char *tp_gemm_provider(void) { return "BLIS"; }

static trans_t tp_blis_trans(tp_transpose t) {
  return t == TP_TRANS ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
}

/* BLIS takes row and column strides, so row-major needs no transposition tricks. A batch
 * runs its products side by side, one thread each (BLIS would otherwise spread every
 * small product over all threads); a single product uses BLIS's own threading. */
#define TP_BLIS_GEMM(sfx, T, gemm_ex)                                                              \
  static void tp_blis_##sfx(tp_transpose ta, tp_transpose tb, int64_t m, int64_t n, int64_t k,     \
                            T alpha, const T *A, int64_t lda, const T *B, int64_t ldb, T beta,     \
                            T *C, int64_t ldc, rntm_t *rntm) {                                     \
    gemm_ex(tp_blis_trans(ta), tp_blis_trans(tb), (dim_t)m, (dim_t)n, (dim_t)k, &alpha, (T *)A,    \
            (inc_t)lda, 1, (T *)B, (inc_t)ldb, 1, &beta, C, (inc_t)ldc, 1, NULL, rntm);            \
  }                                                                                                \
  tp_status tp_gemm_##sfx(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m, int64_t n, \
                          int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,    \
                          T beta, T *C, int64_t ldc) {                                             \
    return tp_gemm_batched_##sfx(space, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C,     \
                                 ldc, 0, 1);                                                       \
  }                                                                                                \
  tp_status tp_gemm_batched_##sfx(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,    \
                                  int64_t n, int64_t k, T alpha, const T *A, int64_t lda,          \
                                  int64_t sa, const T *B, int64_t ldb, int64_t sb, T beta, T *C,   \
                                  int64_t ldc, int64_t sc, int64_t batch) {                        \
    TP_TRY(tp_gemm_check_args(space, ta, tb, m, n, k, A, lda, B, ldb, C, ldc));                    \
    TP_TRY(tp_gemm_check_batch(sa, sb, sc, batch));                                                \
    if (m == 0 || n == 0 || batch == 0)                                                            \
      return TP_SUCCESS;                                                                           \
    if (batch == 1) {                                                                              \
      tp_blis_##sfx(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL);                   \
      return TP_SUCCESS;                                                                           \
    }                                                                                              \
    TP_HOST_OMP(omp parallel for schedule(dynamic, 1))                                             \
    for (int64_t b = 0; b < batch; ++b) {                                                          \
      rntm_t one;                                                                                  \
      bli_rntm_init(&one);                                                                         \
      bli_rntm_set_num_threads(1, &one);                                                           \
      tp_blis_##sfx(ta, tb, m, n, k, alpha, A + b * sa, lda, B + b * sb, ldb, beta, C + b * sc,    \
                    ldc, &one);                                                                    \
    }                                                                                              \
    return TP_SUCCESS;                                                                             \
  }

TP_BLIS_GEMM(f64, double, bli_dgemm_ex)
TP_BLIS_GEMM(f32, float, bli_sgemm_ex)
