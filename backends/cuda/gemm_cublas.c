/* tp_gemm_* on CUDA through cuBLAS, with one handle per space bound to its stream, one
 * precision at a time (gemm_cublas_template.h). */
#include <cublas_v2.h>

#include "portable/tp_error.h"
#include "portable/tp_paste.h"
#include "portable/tp_gemm_provider.h"
#include "portable/tp_space_common.h"

const char *tp_gemm_provider(void) { return "cuBLAS"; }

/* No hold on the system BLAS's threads (portable/tp_gemm_provider.h). */
void tpi_blas_single_thread(tpi_blas_threads *saved) { saved->changed = 0; }
void tpi_blas_threads_restore(const tpi_blas_threads *saved) { (void)saved; }

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

#define GEMM_T double
#define GEMM_SFX f64
#define GEMM_X D
#include "backends/cuda/gemm_cublas_template.h"

#define GEMM_T float
#define GEMM_SFX f32
#define GEMM_X S
#include "backends/cuda/gemm_cublas_template.h"
