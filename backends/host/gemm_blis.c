/* tp_gemm_f64 on the CPU backends through BLIS (built when meson finds BLIS). */
#include "tp_error.h"
#include "tp_linalg_internal.h"

#include <blis.h>

const char *tp_gemm_provider(void) { return "BLIS"; }

tp_status tp_gemm_f64(tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m,
                      int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                      const double *B, int64_t ldb, double beta, double *C, int64_t ldc) {
  TP_TRY(tp_gemm_check_args(space, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc));
  if (m == 0 || n == 0)
    return TP_SUCCESS;
  /* BLIS takes row and column strides, so row-major needs no transposition tricks. */
  bli_dgemm(trans_a == TP_TRANS ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE,
            trans_b == TP_TRANS ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, (dim_t)m, (dim_t)n,
            (dim_t)k, &alpha, (double *)A, (inc_t)lda, 1, (double *)B, (inc_t)ldb, 1, &beta, C,
            (inc_t)ldc, 1);
  return TP_SUCCESS;
}
