/* Batched SS-HOPM in single precision (see sshopm_solver_template.h). */
/* generates: sshopm_count_nonfinite_f32 sshopm_count_nonfinite_f32_final sshopm_generic_kernel_f32
 * sshopm_m3n2_kernel_adaptive_f32 sshopm_m3n2_kernel_fixed_f32 sshopm_m3n2_products_f32
 * sshopm_m3n3_kernel_adaptive_f32 sshopm_m3n3_kernel_fixed_f32 sshopm_m3n3_products_f32
 * sshopm_m3n4_kernel_adaptive_f32 sshopm_m3n4_kernel_fixed_f32 sshopm_m3n4_products_f32
 * sshopm_m4n2_kernel_adaptive_f32 sshopm_m4n2_kernel_fixed_f32 sshopm_m4n2_products_f32
 * sshopm_m4n3_kernel_adaptive_f32 sshopm_m4n3_kernel_fixed_f32 sshopm_m4n3_products_f32
 * sshopm_m4n4_kernel_adaptive_f32 sshopm_m4n4_kernel_fixed_f32 sshopm_m4n4_products_f32
 * sshopm_m5n3_kernel_adaptive_f32 sshopm_m5n3_kernel_fixed_f32 sshopm_m5n3_products_f32
 * sshopm_m6n3_kernel_adaptive_f32 sshopm_m6n3_kernel_fixed_f32 sshopm_m6n3_products_f32
 * sshopm_m8n3_kernel_adaptive_f32 sshopm_m8n3_kernel_fixed_f32 sshopm_m8n3_products_f32
 * sym_products_generic_f32 */
#define TP_REAL float
#define TP_SFX f32
#define TP_REAL_SQRT sqrtf
#define TP_REAL_RSQRT tp_rsqrt_f32
#define TP_REAL_FABS fabsf
#define TP_REAL_FREXP frexpf
#define TP_REAL_LDEXP ldexpf
#define TP_REAL_MIN FLT_MIN
#define TP_REAL_MAX FLT_MAX
#define TP_REAL_MAX_EXP FLT_MAX_EXP
#define TP_SSHOPM_PRIMARY 0
#include "algorithms/sshopm/sshopm_solver_template.h"
