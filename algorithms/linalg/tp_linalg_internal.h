/* Pieces of the linear-algebra layer shared between algorithms/ and backends/. */
#ifndef TP_LINALG_INTERNAL_H
#define TP_LINALG_INTERNAL_H

#include "tenport/linalg.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Checks the shapes and pointers of a tp_gemm_* call, and a batched call's strides. */
tp_status tpi_gemm_check_args(const tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                              int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                              const void *B, int64_t ldb, const void *C, int64_t ldc);
tp_status tpi_gemm_check_batch(int64_t stride_a, int64_t stride_b, int64_t stride_c, int64_t batch);

/* tenport's own tiled GEMM, written once on the portable layer. */
#define TP_DECLARE_PORTABLE_GEMM(sfx, T)                                                        \
  tp_status tp_gemm_portable_##sfx(tp_space *space, tp_transpose trans_a, tp_transpose trans_b, \
                                   int64_t m, int64_t n, int64_t k, T alpha, const T *A,        \
                                   int64_t lda, const T *B, int64_t ldb, T beta, T *C,          \
                                   int64_t ldc);                                                \
  tp_status tp_gemm_portable_batched_##sfx(                                                     \
      tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m, int64_t n,        \
      int64_t k, T alpha, const T *A, int64_t lda, int64_t sa, const T *B, int64_t ldb,         \
      int64_t sb, T beta, T *C, int64_t ldc, int64_t sc, int64_t batch);
TP_DECLARE_PORTABLE_GEMM(f64, double)
TP_DECLARE_PORTABLE_GEMM(f32, float)

TP_EXTERN_C_END
#endif
