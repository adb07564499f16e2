/* GCP-Adam's sample kernels in double precision, the dtype-free ones and the dispatchers (see
 * gcp_sample_template.h). */
/* generates: gcp_draw_dense_f64 gcp_draw_nonzeros_f64 gcp_sample_fg_f64 gcp_sample_y_f64 gcp_sample_mttkrp_f64
 * gcp_sample_mttkrp_runs_f64
 * gcp_adam_step_f64 gcp_draw_zeros gcp_sample_keys gcp_nonzero_linear */
#include <math.h>
#include <string.h>

#define TP_REAL double
#define TP_SFX f64
#define TP_GCP_PRIMARY 1
#include "algorithms/gcp/gcp_sample_template.h"
