/* The GEMM provider interface: what a backend implements to give tp_gemm_* (tenport/linalg.h)
 * their speed, and what it may call on.
 *
 * A provider is one host source in backends/ that defines, for both precisions,
 *   tp_gemm_f64, tp_gemm_f32, tp_gemm_batched_f64, tp_gemm_batched_f32
 * (the signatures of tenport/linalg.h), tp_gemm_provider(), the name it reports, and
 * tpi_blas_single_thread / tpi_blas_threads_restore (below):
 * backends/host/gemm_blis.c (BLIS, the CPU backends), backends/cuda/gemm_cublas.c
 * (cuBLAS) and backends/gemm_fallback.c (tenport's portable kernel, everywhere else).
 * meson picks exactly one per build. A provider checks its arguments with
 * tpi_gemm_check_args / tpi_gemm_check_batch, so that every provider rejects the same
 * calls with the same message, and may hand any call to the portable kernel below.
 *
 * The checks and the portable kernel are written once on the portable layer, in
 * algorithms/linalg/gemm_portable_kernels.c; a provider needs nothing else from the algorithms. */
#ifndef TP_GEMM_PROVIDER_H
#define TP_GEMM_PROVIDER_H

#include "tenport/linalg.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Checks the shapes and pointers of a tp_gemm_* call, and a batched call's strides. */
tp_status tpi_gemm_check_args(const tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                              int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                              const void *B, int64_t ldb, const void *C, int64_t ldc);
tp_status tpi_gemm_check_batch(int64_t stride_a, int64_t stride_b, int64_t stride_c, int64_t batch);

/* The system BLAS's threads around calls that only make tiny products: the reference
 * L-BFGS-B factors 2m x 2m matrices (m a few vectors) through LAPACK, and where the BLAS
 * is the provider's threaded library it spreads each over every core it is told of
 * (OMP_NUM_THREADS): waking and spinning threads made a small GCP run 10x slower.
 * tpi_blas_single_thread saves the library's setting and sets one thread;
 * tpi_blas_threads_restore puts the saved setting back. No-ops where the provider has
 * no hold on the system BLAS. */
typedef struct tpi_blas_threads {
  long count;   /* the library's thread count before (<= 0: unset) */
  long ways[5]; /* its ways of parallelism per loop before (<= 0: unset) */
  int changed;  /* 1 if tpi_blas_single_thread changed anything */
} tpi_blas_threads;
void tpi_blas_single_thread(tpi_blas_threads *saved);
void tpi_blas_threads_restore(const tpi_blas_threads *saved);

/* tenport's own tiled GEMM, written once on the portable layer: the fallback provider. */
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
