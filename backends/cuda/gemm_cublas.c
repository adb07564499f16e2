/* tp_gemm_f64 on CUDA through cuBLAS, with one handle per space bound to its stream. */
#include <cublas_v2.h>

#include "tp_error.h"
#include "tp_linalg_internal.h"
#include "tp_space_common.h"

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

tp_status tp_gemm_f64(tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m,
                      int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                      const double *B, int64_t ldb, double beta, double *C, int64_t ldc) {
  TP_TRY(tp_gemm_check_args(space, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc));
  if (m == 0 || n == 0)
    return TP_SUCCESS;
  cublasHandle_t h;
  TP_TRY(tp_cublas_handle(space, &h));
  /* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T. */
  cublasStatus_t s = cublasDgemm_64(
      h, trans_b == TP_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N,
      trans_a == TP_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, B, ldb, A, lda, &beta,
      C, ldc);
  if (s != CUBLAS_STATUS_SUCCESS)
    return TP_ERROR(TP_ERROR_DEVICE, "cublasDgemm (m=%lld n=%lld k=%lld) failed: %s",
                    (long long)m, (long long)n, (long long)k, cublasGetStatusString(s));
  return TP_SUCCESS;
}
