/* tp_gemm_f64 on CUDA through cuBLAS, with one handle per space bound to its stream. */
#include <cublas_v2.h>

#include "portable/tp_error.h"
#include "algorithms/linalg/tp_linalg_internal.h"
#include "portable/tp_space_common.h"

const char *tp_gemm_provider(void) { return "cuBLAS"; }

static void tp_cublas_release(void *handle) { cublasDestroy((cublasHandle_t)handle); }

static tp_status tp_cublas_handle(tp_space *space, cublasHandle_t *handle) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  cudaError_t e = cudaSetDevice(info.device); /* cuBLAS works on the current device */
  if (e != cudaSuccess)
    return TP_ERROR(TP_ERROR_DEVICE, "cudaSetDevice(%d) failed: %s", info.device,
                    cudaGetErrorString(e));
  tp_space_common *c = tp_space_common_of(space);
  if (!c->blas) {
    cublasHandle_t h;
    cublasStatus_t s = cublasCreate(&h);
    if (s != CUBLAS_STATUS_SUCCESS)
      return TP_ERROR(s == CUBLAS_STATUS_ALLOC_FAILED ? TP_ERROR_OUT_OF_MEMORY : TP_ERROR_DEVICE,
                      "cublasCreate failed: %s", cublasGetStatusString(s));
    c->blas = h;
    c->blas_release = tp_cublas_release;
  }
  *handle = (cublasHandle_t)c->blas;
  cublasStatus_t s = cublasSetStream(*handle, (cudaStream_t)tp_space_stream(space));
  if (s != CUBLAS_STATUS_SUCCESS)
    return TP_ERROR(TP_ERROR_DEVICE, "cublasSetStream failed: %s", cublasGetStatusString(s));
  return TP_SUCCESS;
}

static cublasOperation_t tp_cublas_op(tp_transpose t) {
  return t == TP_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
}

static tp_status tp_cublas_status(cublasStatus_t s, const char *what, int64_t m, int64_t n,
                                  int64_t k, int64_t batch) {
  if (s == CUBLAS_STATUS_SUCCESS)
    return TP_SUCCESS;
  return TP_ERROR(TP_ERROR_DEVICE, "%s (m=%lld n=%lld k=%lld batch=%lld) failed: %s", what,
                  (long long)m, (long long)n, (long long)k, (long long)batch,
                  cublasGetStatusString(s));
}

/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, so every call passes
 * B before A and n before m. */
#define TP_CUBLAS_GEMM(sfx, T, gemm, gemm_batched)                                                 \
  tp_status tp_gemm_##sfx(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m, int64_t n, \
                          int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,    \
                          T beta, T *C, int64_t ldc) {                                             \
    TP_TRY(tp_gemm_check_args(space, ta, tb, m, n, k, A, lda, B, ldb, C, ldc));                    \
    if (m == 0 || n == 0)                                                                          \
      return TP_SUCCESS;                                                                           \
    cublasHandle_t h;                                                                              \
    TP_TRY(tp_cublas_handle(space, &h));                                                           \
    return tp_cublas_status(gemm(h, tp_cublas_op(tb), tp_cublas_op(ta), n, m, k, &alpha, B, ldb,   \
                                 A, lda, &beta, C, ldc),                                           \
                            #gemm, m, n, k, 1);                                                    \
  }                                                                                                \
  tp_status tp_gemm_batched_##sfx(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m,    \
                                  int64_t n, int64_t k, T alpha, const T *A, int64_t lda,          \
                                  int64_t sa, const T *B, int64_t ldb, int64_t sb, T beta, T *C,   \
                                  int64_t ldc, int64_t sc, int64_t batch) {                        \
    TP_TRY(tp_gemm_check_args(space, ta, tb, m, n, k, A, lda, B, ldb, C, ldc));                    \
    TP_TRY(tp_gemm_check_batch(sa, sb, sc, batch));                                                \
    if (m == 0 || n == 0 || batch == 0)                                                            \
      return TP_SUCCESS;                                                                           \
    cublasHandle_t h;                                                                              \
    TP_TRY(tp_cublas_handle(space, &h));                                                           \
    if (batch == 1)                                                                                \
      return tp_cublas_status(gemm(h, tp_cublas_op(tb), tp_cublas_op(ta), n, m, k, &alpha, B, ldb, \
                                   A, lda, &beta, C, ldc),                                         \
                              #gemm, m, n, k, 1);                                                  \
    return tp_cublas_status(gemm_batched(h, tp_cublas_op(tb), tp_cublas_op(ta), n, m, k, &alpha,   \
                                         B, ldb, sb, A, lda, sa, &beta, C, ldc, sc, batch),        \
                            #gemm_batched, m, n, k, batch);                                        \
  }

TP_CUBLAS_GEMM(f64, double, cublasDgemm_64, cublasDgemmStridedBatched_64)
TP_CUBLAS_GEMM(f32, float, cublasSgemm_64, cublasSgemmStridedBatched_64)
