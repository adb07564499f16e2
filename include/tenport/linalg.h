/* Small dense linear-algebra kernels on matrices in a space (row-major). */
#ifndef TENPORT_LINALG_H
#define TENPORT_LINALG_H

#include <stdint.h>
#include "tenport/export.h"
#include "tenport/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Squared 2-norms of the rows of the m x n row-major matrix A (leading dimension ld):
 * row_norms2[i] = sum_j A[i*ld + j]^2, and *total (may be NULL) = sum over all rows.
 * Outputs live in the space. */
TP_API tp_status tp_row_norms2_f64(tp_space *space, const double *A, int64_t m, int64_t n,
                                   int64_t ld, double *row_norms2, double *total);

typedef enum tp_transpose { TP_NO_TRANS = 0, TP_TRANS = 1 } tp_transpose;

/* C = alpha op(A) op(B) + beta C for row-major matrices in the space: op(A) is m x k,
 * op(B) is k x n, C is m x n, with leading dimensions lda, ldb, ldc (elements between
 * rows). Runs on BLIS (CPU backends, when built with it), cuBLAS (cuda) or tenport's
 * portable tiled kernel (hip, and CPUs without BLIS). beta == 0 ignores C's contents. */
TP_API tp_status tp_gemm_f64(tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m,
                             int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                             const double *B, int64_t ldb, double beta, double *C, int64_t ldc);

TP_API tp_status tp_gemm_f32(tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m,
                             int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                             const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* batch independent products C_b = alpha op(A_b) op(B_b) + beta C_b with
 * A_b = A + b * stride_a (likewise B, C). A stride of 0 shares that operand. */
TP_API tp_status tp_gemm_batched_f64(tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                                     int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                     int64_t lda, int64_t stride_a, const double *B, int64_t ldb,
                                     int64_t stride_b, double beta, double *C, int64_t ldc,
                                     int64_t stride_c, int64_t batch);
TP_API tp_status tp_gemm_batched_f32(tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                                     int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                     int64_t lda, int64_t stride_a, const float *B, int64_t ldb,
                                     int64_t stride_b, float beta, float *C, int64_t ldc,
                                     int64_t stride_c, int64_t batch);

/* Which implementation tp_gemm_* use in this build: "BLIS", "cuBLAS" or "portable". */
TP_API const char *tp_gemm_provider(void);

#ifdef __cplusplus
}
#endif
#endif
