/* CP-APR's kernels in single precision (see cp_apr_template.h). */
/* generates: apr_kkt_f32 apr_log_term_f32 apr_multiply_f32 apr_phi_rows_f32 apr_phi_segments_f32 apr_pi_rows_f32 apr_ratio_f32
 * apr_scooch_f32 */
#define TP_REAL float
#define TP_SFX f32
#include "algorithms/cp_apr/cp_apr_template.h"
