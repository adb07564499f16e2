/* GCP's passes over a dense tensor in double precision, the partials' sums and the
 * dtype dispatchers (see gcp_template.h). */
/* generates: gcp_fg_chunks_f64 gcp_stats_chunks_f64 gcp_sum_blocks */
#include <stdlib.h>
#include <string.h>

#define TP_REAL double
#define TP_SFX f64
#define TP_GCP_PRIMARY 1
#include "algorithms/gcp/gcp_template.h"
