/* Pieces of the linear-algebra layer shared between algorithms/ and backends/. */
#ifndef TP_LINALG_INTERNAL_H
#define TP_LINALG_INTERNAL_H

#include "tenport/linalg.h"
#include "tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Checks the shapes and pointers of a tp_gemm_f64 call. */
tp_status tp_gemm_check_args(const tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                             int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                             const double *B, int64_t ldb, const double *C, int64_t ldc);

/* tenport's own tiled GEMM, written once on the portable layer. */
tp_status tp_gemm_portable_f64(tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                               int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                               int64_t lda, const double *B, int64_t ldb, double beta,
                               double *C, int64_t ldc);

TP_EXTERN_C_END
#endif
