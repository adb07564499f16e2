/* CP-ALS column kernels in double precision, and the dtype dispatchers (see
 * cp_columns_template.h). */
/* generates: cp_array_stats_f64 cp_array_stats_f64_final cp_col_abs_f64 cp_col_extrapolate_f64 cp_col_finish_f64
 * cp_col_gather_f64 cp_col_partials_f64 cp_col_scale_f64 cp_hals_rows_f64 */
#define TP_REAL double
#define TP_SFX f64
#define TP_CP_PRIMARY 1
#include "algorithms/cp_als/cp_columns_template.h"
