/* tp_gemm_* on the CPU backends through BLIS (built when meson finds BLIS), one
 * precision at a time (gemm_blis_template.h). */
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "portable/tp_paste.h"
#include "portable/tp_gemm_provider.h"
#include "portable/tp_space_common.h"

#include <blis.h>
#ifdef _OPENMP
#include <omp.h>
#endif

const char *tp_gemm_provider(void) { return "BLIS"; }

static trans_t tp_blis_trans(tp_transpose t) {
  return t == TP_TRANS ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
}

/* The host threads BLIS may take: the space's launch threads (1 on the serial backend,
 * fewer when tp_space_set_work says the work is small); the host's OpenMP threads where
 * the space's kernels do not run on host threads (HIP's CPU runtime), which report 0. */
static int tp_blis_host_threads(const tp_space *space) {
  int threads = tp_space_launch_threads(space);
#ifdef _OPENMP
  if (threads == 0)
    threads = omp_get_max_threads();
#endif
  return threads > 1 ? threads : 1;
}

/* Multiply-adds that pay for one more of BLIS's threads: below it, waking a thread costs
 * more than its share (on a loaded machine, a time slice of the scheduler). */
#define TP_BLIS_WORK_PER_THREAD ((int64_t)1 << 21)

/* BLIS's threads for products of m x n x k, always set, never BLIS's default: that one
 * reads OMP_NUM_THREADS and BLIS_NUM_THREADS, so setting OMP_NUM_THREADS=2 spread every
 * 3-column product of a small run over two threads (a test of GCP ran 10x slower) and made
 * the serial backend threaded. The host threads, one per TP_BLIS_WORK_PER_THREAD. BLIS splits
 * the rows and columns of C among its threads, never the sum over k, so the bits do not
 * depend on the count. */
static int tp_blis_threads(const tp_space *space, int64_t m, int64_t n, int64_t k) {
  const int space_threads = tp_blis_host_threads(space);
  const double work = (double)m * (double)n * (double)k;
  const double useful = work / (double)TP_BLIS_WORK_PER_THREAD + 1;
  const int threads = useful < space_threads ? (int)useful : space_threads;
  return threads > 1 ? threads : 1;
}

/* A BLIS runtime of `threads` threads, for its expert interface. */
static rntm_t tp_blis_runtime(int threads) {
  rntm_t rntm;
  bli_rntm_init(&rntm);
  bli_rntm_set_num_threads(threads, &rntm);
  return rntm;
}

/* BLIS keeps a thread count and five ways of parallelism side by side (-1: unset), and
 * ways that are set win over the count: both are saved, set to one and put back as they
 * were. */
void tpi_blas_single_thread(tpi_blas_threads *saved) {
  saved->count = (long)bli_thread_get_num_threads();
  saved->ways[0] = (long)bli_thread_get_jc_nt(), saved->ways[1] = (long)bli_thread_get_pc_nt();
  saved->ways[2] = (long)bli_thread_get_ic_nt(), saved->ways[3] = (long)bli_thread_get_jr_nt();
  saved->ways[4] = (long)bli_thread_get_ir_nt();
  saved->changed = saved->count > 1;
  for (int w = 0; w < 5; ++w)
    saved->changed |= saved->ways[w] > 1;
  if (saved->changed) {
    bli_thread_set_ways(1, 1, 1, 1, 1);
    bli_thread_set_num_threads(1);
  }
}

void tpi_blas_threads_restore(const tpi_blas_threads *saved) {
  if (!saved->changed)
    return;
  bli_thread_set_ways((dim_t)saved->ways[0], (dim_t)saved->ways[1], (dim_t)saved->ways[2],
                      (dim_t)saved->ways[3], (dim_t)saved->ways[4]);
  bli_thread_set_num_threads((dim_t)saved->count);
}

#define GEMM_T double
#define GEMM_SFX f64
#define GEMM_BLIS bli_dgemm_ex
#include "backends/host/gemm_blis_template.h"

#define GEMM_T float
#define GEMM_SFX f32
#define GEMM_BLIS bli_sgemm_ex
#include "backends/host/gemm_blis_template.h"
