/* tp_gemm_<T> and tp_gemm_batched_<T> through cuBLAS for one precision: gemm_cublas.c
 * includes this file once per precision with GEMM_T (float or double), GEMM_SFX (f32 or
 * f64) and GEMM_X (S or D, BLAS's letter for the precision: cublasDgemm_64); it undefines
 * them at its end.
 * generates: tp_gemm_f32 tp_gemm_f64 tp_gemm_batched_f32 tp_gemm_batched_f64 */

#define GEMM_NAME(base) TP_PASTE(base, GEMM_SFX)
/* cuBLAS's functions (macros of cublas_v2.h) and their names in errors */
#define GEMM_CUBLAS TP_PASTE3(cublas, GEMM_X, gemm_64)
#define GEMM_CUBLAS_BATCHED TP_PASTE3(cublas, GEMM_X, gemmStridedBatched_64)
#define GEMM_CUBLAS_NAME "cublas" TP_STRINGIZE(GEMM_X) "gemm_64"
#define GEMM_CUBLAS_BATCHED_NAME "cublas" TP_STRINGIZE(GEMM_X) "gemmStridedBatched_64"

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, so every call passes
 * B before A and n before m. */
tp_status GEMM_NAME(tp_gemm_)(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,
                              int64_t n, int64_t k, GEMM_T alpha, const GEMM_T *A, int64_t lda,
                              const GEMM_T *B, int64_t ldb, GEMM_T beta, GEMM_T *C, int64_t ldc) {
  TP_TRY(tpi_gemm_check_args(space, ta, tb, m, n, k, A, lda, B, ldb, C, ldc));
  if (m == 0 || n == 0)
    return TP_SUCCESS;
  cublasHandle_t h;
  TP_TRY(tp_cublas_handle(space, &h));
  return tp_cublas_status(GEMM_CUBLAS(h, tp_cublas_op(tb), tp_cublas_op(ta), n, m, k, &alpha, B,
                                      ldb, A, lda, &beta, C, ldc),
                          GEMM_CUBLAS_NAME, m, n, k, 1);
}

tp_status GEMM_NAME(tp_gemm_batched_)(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,
                                      int64_t n, int64_t k, GEMM_T alpha, const GEMM_T *A,
                                      int64_t lda, int64_t sa, const GEMM_T *B, int64_t ldb,
                                      int64_t sb, GEMM_T beta, GEMM_T *C, int64_t ldc, int64_t sc,
                                      int64_t batch) {
  TP_TRY(tpi_gemm_check_args(space, ta, tb, m, n, k, A, lda, B, ldb, C, ldc));
  TP_TRY(tpi_gemm_check_batch(sa, sb, sc, batch));
  if (m == 0 || n == 0 || batch == 0)
    return TP_SUCCESS;
  cublasHandle_t h;
  TP_TRY(tp_cublas_handle(space, &h));
  if (batch == 1)
    return tp_cublas_status(GEMM_CUBLAS(h, tp_cublas_op(tb), tp_cublas_op(ta), n, m, k, &alpha, B,
                                        ldb, A, lda, &beta, C, ldc),
                            GEMM_CUBLAS_NAME, m, n, k, 1);
  return tp_cublas_status(GEMM_CUBLAS_BATCHED(h, tp_cublas_op(tb), tp_cublas_op(ta), n, m, k,
                                              &alpha, B, ldb, sb, A, lda, sa, &beta, C, ldc, sc,
                                              batch),
                          GEMM_CUBLAS_BATCHED_NAME, m, n, k, batch);
}

#undef GEMM_NAME
#undef GEMM_T
#undef GEMM_SFX
#undef GEMM_CUBLAS
#undef GEMM_CUBLAS_BATCHED
#undef GEMM_CUBLAS_NAME
#undef GEMM_CUBLAS_BATCHED_NAME
#undef GEMM_X
