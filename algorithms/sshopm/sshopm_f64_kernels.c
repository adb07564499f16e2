/* Batched SS-HOPM in double precision (see sshopm_solver_template.h); also defines the
 * precision-independent functions. */
/* generates: sshopm_count_nonfinite_f64 sshopm_count_nonfinite_f64_final sshopm_generic_kernel_f64
 * sshopm_m3n2_kernel_adaptive_f64 sshopm_m3n2_kernel_fixed_f64 sshopm_m3n2_products_f64
 * sshopm_m3n3_kernel_adaptive_f64 sshopm_m3n3_kernel_fixed_f64 sshopm_m3n3_products_f64
 * sshopm_m3n4_kernel_adaptive_f64 sshopm_m3n4_kernel_fixed_f64 sshopm_m3n4_products_f64
 * sshopm_m4n2_kernel_adaptive_f64 sshopm_m4n2_kernel_fixed_f64 sshopm_m4n2_products_f64
 * sshopm_m4n3_kernel_adaptive_f64 sshopm_m4n3_kernel_fixed_f64 sshopm_m4n3_products_f64
 * sshopm_m4n4_kernel_adaptive_f64 sshopm_m4n4_kernel_fixed_f64 sshopm_m4n4_products_f64
 * sshopm_m5n3_kernel_adaptive_f64 sshopm_m5n3_kernel_fixed_f64 sshopm_m5n3_products_f64
 * sshopm_m6n3_kernel_adaptive_f64 sshopm_m6n3_kernel_fixed_f64 sshopm_m6n3_products_f64
 * sshopm_m8n3_kernel_adaptive_f64 sshopm_m8n3_kernel_fixed_f64 sshopm_m8n3_products_f64
 * sym_products_generic_f64 */
#define TP_REAL double
#define TP_SFX f64
#define TP_REAL_SQRT sqrt
#define TP_REAL_RSQRT tp_rsqrt_f64
#define TP_REAL_FABS fabs
#define TP_REAL_FREXP frexp
#define TP_REAL_LDEXP ldexp
#define TP_REAL_MIN DBL_MIN
#define TP_REAL_MAX DBL_MAX
#define TP_REAL_MAX_EXP DBL_MAX_EXP
#define TP_SSHOPM_PRIMARY 1
#include "algorithms/sshopm/sshopm_solver_template.h"
