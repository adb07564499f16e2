/* CP-APR's kernels in double precision (see cp_apr_template.h). */
/* generates: apr_kkt_f64 apr_log_term_f64 apr_multiply_f64 apr_phi_rows_f64 apr_phi_segments_f64 apr_pi_rows_f64 apr_ratio_f64
 * apr_scooch_f64 */
#define TP_REAL double
#define TP_SFX f64
#include "algorithms/cp_apr/cp_apr_template.h"
