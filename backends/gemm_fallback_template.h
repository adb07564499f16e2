/* tp_gemm_<T> and tp_gemm_batched_<T> on tenport's portable kernel for one precision:
 * gemm_fallback.c includes this file once per precision with GEMM_T (float or double)
 * and GEMM_SFX (f32 or f64); it undefines both at its end.
 * generates: tp_gemm_f32 tp_gemm_f64 tp_gemm_batched_f32 tp_gemm_batched_f64 */

#define GEMM_NAME(base) TP_PASTE(base, GEMM_SFX)

tp_status GEMM_NAME(tp_gemm_)(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,
                              int64_t n, int64_t k, GEMM_T alpha, const GEMM_T *A, int64_t lda,
                              const GEMM_T *B, int64_t ldb, GEMM_T beta, GEMM_T *C, int64_t ldc) {
  return GEMM_NAME(tp_gemm_portable_)(space, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

tp_status GEMM_NAME(tp_gemm_batched_)(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,
                                      int64_t n, int64_t k, GEMM_T alpha, const GEMM_T *A,
                                      int64_t lda, int64_t sa, const GEMM_T *B, int64_t ldb,
                                      int64_t sb, GEMM_T beta, GEMM_T *C, int64_t ldc, int64_t sc,
                                      int64_t batch) {
  return GEMM_NAME(tp_gemm_portable_batched_)(space, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb,
                                              beta, C, ldc, sc, batch);
}

#undef GEMM_NAME
#undef GEMM_T
#undef GEMM_SFX
