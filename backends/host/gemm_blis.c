/* tp_gemm_* on the CPU backends through BLIS (built when meson finds BLIS), one
 * precision at a time (gemm_blis_template.h). */
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "portable/tp_paste.h"
#include "portable/tp_gemm_provider.h"

#include <blis.h>

const char *tp_gemm_provider(void) { return "BLIS"; }

static trans_t tp_blis_trans(tp_transpose t) {
  return t == TP_TRANS ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
}

#define GEMM_T double
#define GEMM_SFX f64
#define GEMM_BLIS bli_dgemm_ex
#include "backends/host/gemm_blis_template.h"

#define GEMM_T float
#define GEMM_SFX f32
#define GEMM_BLIS bli_sgemm_ex
#include "backends/host/gemm_blis_template.h"
