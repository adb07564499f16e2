/* CP-ALS column kernels in single precision (see cp_columns_template.h). */
/* generates: cp_array_stats_f32 cp_array_stats_f32_final cp_col_abs_f32 cp_col_extrapolate_f32 cp_col_finish_f32
 * cp_col_gather_f32 cp_col_partials_f32 cp_col_scale_f32 cp_hals_rows_f32 */
#define TP_REAL float
#define TP_SFX f32
#define TP_CP_PRIMARY 0
#include "algorithms/cp_als/cp_columns_template.h"
