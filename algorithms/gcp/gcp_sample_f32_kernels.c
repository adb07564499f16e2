/* GCP-Adam's sample kernels in single precision (see
 * gcp_sample_template.h). */
/* generates: gcp_draw_dense_f32 gcp_draw_nonzeros_f32 gcp_sample_fg_f32 gcp_sample_y_f32 gcp_sample_mttkrp_f32
 * gcp_sample_mttkrp_runs_f32
 * gcp_adam_step_f32 */
#include <math.h>
#include <string.h>

#define TP_REAL float
#define TP_SFX f32
#define TP_GCP_PRIMARY 0
#include "algorithms/gcp/gcp_sample_template.h"
