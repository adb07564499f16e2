/* tp_gemm_* where no vendor BLAS is in the build (HIP, CPUs without BLIS): tenport's
 * portable tiled kernel, one precision at a time (gemm_fallback_template.h). */
#include "portable/tp_paste.h"
#include "portable/tp_gemm_provider.h"

const char *tp_gemm_provider(void) { return "portable"; }

/* No hold on the system BLAS's threads (portable/tp_gemm_provider.h). */
void tpi_blas_single_thread(tpi_blas_threads *saved) { saved->changed = 0; }
void tpi_blas_threads_restore(const tpi_blas_threads *saved) { (void)saved; }

#define GEMM_T double
#define GEMM_SFX f64
#include "backends/gemm_fallback_template.h"

#define GEMM_T float
#define GEMM_SFX f32
#include "backends/gemm_fallback_template.h"
