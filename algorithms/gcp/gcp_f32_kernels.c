/* GCP's passes over a dense tensor in single precision (see gcp_template.h). */
/* generates: gcp_fg_chunks_f32 gcp_stats_chunks_f32 */
#include <stdlib.h>
#include <string.h>

#define TP_REAL float
#define TP_SFX f32
#define TP_GCP_PRIMARY 0
#include "algorithms/gcp/gcp_template.h"
