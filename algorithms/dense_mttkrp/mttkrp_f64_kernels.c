/* The dense MTTKRP kernels in double: see mttkrp_precision_template.h and mttkrp_width_template.h. */
/* generates: mttkrp_elem_f64_k1 mttkrp_elem_f64_k16 mttkrp_elem_f64_k2 mttkrp_elem_f64_k3
 * mttkrp_elem_f64_k4 mttkrp_elem_f64_k8 mttkrp_kr_row_team_f64 mttkrp_kr_rows_f64
 * mttkrp_partial_col_team_f64 mttkrp_partial_f64_k1 mttkrp_partial_f64_k16 mttkrp_partial_f64_k2
 * mttkrp_partial_f64_k3 mttkrp_partial_f64_k4 mttkrp_partial_f64_k8 mttkrp_slice_f64_k1
 * mttkrp_slice_f64_k16 mttkrp_slice_f64_k2 mttkrp_slice_f64_k3 mttkrp_slice_f64_k4
 * mttkrp_slice_f64_k8 mttkrp_sum_chunks_f64 mttkrp_tile_f64_k1 mttkrp_tile_f64_k16
 * mttkrp_tile_f64_k2 mttkrp_tile_f64_k3 mttkrp_tile_f64_k4 mttkrp_tile_f64_k8 */
#include <string.h>

#include "portable/tp_portable.h"

#define MTTKRP_T double
#define MTTKRP_SFX f64
#include "algorithms/dense_mttkrp/mttkrp_precision_template.h"
