/* tp_gemm_<T> and tp_gemm_batched_<T> through BLIS for one precision: gemm_blis.c includes
 * this file once per precision with GEMM_T (float or double), GEMM_SFX (f32 or f64) and
 * GEMM_BLIS (BLIS's expert gemm of that type, bli_sgemm_ex or bli_dgemm_ex); it undefines
 * them at its end.
 * generates: tp_gemm_f32 tp_gemm_f64 tp_gemm_batched_f32 tp_gemm_batched_f64, and the
 * helpers tp_blis_f32 tp_blis_f64 */

#define GEMM_NAME(base) TP_PASTE(base, GEMM_SFX)

/* BLIS takes row and column strides, so row-major needs no transposition tricks. */
static void GEMM_NAME(tp_blis_)(tp_transpose ta, tp_transpose tb, int64_t m, int64_t n, int64_t k,
                                GEMM_T alpha, const GEMM_T *A, int64_t lda, const GEMM_T *B,
                                int64_t ldb, GEMM_T beta, GEMM_T *C, int64_t ldc, rntm_t *rntm) {
  GEMM_BLIS(tp_blis_trans(ta), tp_blis_trans(tb), (dim_t)m, (dim_t)n, (dim_t)k, &alpha, (GEMM_T *)A,
            (inc_t)lda, 1, (GEMM_T *)B, (inc_t)ldb, 1, &beta, C, (inc_t)ldc, 1, NULL, rntm);
}

tp_status GEMM_NAME(tp_gemm_)(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,
                              int64_t n, int64_t k, GEMM_T alpha, const GEMM_T *A, int64_t lda,
                              const GEMM_T *B, int64_t ldb, GEMM_T beta, GEMM_T *C, int64_t ldc) {
  return GEMM_NAME(tp_gemm_batched_)(space, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C,
                                     ldc, 0, 1);
}

/* A single product takes BLIS's threads (tp_blis_threads); a batch runs its products side
 * by side on the space's threads, one BLIS thread each. */
tp_status GEMM_NAME(tp_gemm_batched_)(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,
                                      int64_t n, int64_t k, GEMM_T alpha, const GEMM_T *A,
                                      int64_t lda, int64_t sa, const GEMM_T *B, int64_t ldb,
                                      int64_t sb, GEMM_T beta, GEMM_T *C, int64_t ldc, int64_t sc,
                                      int64_t batch) {
  TP_TRY(tpi_gemm_check_args(space, ta, tb, m, n, k, A, lda, B, ldb, C, ldc));
  TP_TRY(tpi_gemm_check_batch(sa, sb, sc, batch));
  if (m == 0 || n == 0 || batch == 0)
    return TP_SUCCESS;
  if (batch == 1) {
    rntm_t threads = tp_blis_runtime(tp_blis_threads(space, m, n, k));
    GEMM_NAME(tp_blis_)(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, &threads);
    return TP_SUCCESS;
  }
  const int side_by_side = tp_blis_host_threads(space);
  (void)side_by_side; /* unused where the host compiler has no OpenMP */
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1) num_threads(side_by_side))
  for (int64_t b = 0; b < batch; ++b) {
    rntm_t one = tp_blis_runtime(1);
    GEMM_NAME(tp_blis_)
    (ta, tb, m, n, k, alpha, A + b * sa, lda, B + b * sb, ldb, beta, C + b * sc, ldc, &one);
  }
  return TP_SUCCESS;
}

#undef GEMM_NAME
#undef GEMM_T
#undef GEMM_SFX
#undef GEMM_BLIS
