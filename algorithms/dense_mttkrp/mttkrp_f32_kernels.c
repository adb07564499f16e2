/* The dense MTTKRP kernels in float: see mttkrp_precision_template.h and mttkrp_width_template.h. */
/* generates: mttkrp_elem_f32_k1 mttkrp_elem_f32_k16 mttkrp_elem_f32_k2 mttkrp_elem_f32_k3
 * mttkrp_elem_f32_k4 mttkrp_elem_f32_k8 mttkrp_kr_row_team_f32 mttkrp_kr_rows_f32
 * mttkrp_partial_col_team_f32 mttkrp_partial_f32_k1 mttkrp_partial_f32_k16 mttkrp_partial_f32_k2
 * mttkrp_partial_f32_k3 mttkrp_partial_f32_k4 mttkrp_partial_f32_k8 mttkrp_slice_f32_k1
 * mttkrp_slice_f32_k16 mttkrp_slice_f32_k2 mttkrp_slice_f32_k3 mttkrp_slice_f32_k4
 * mttkrp_slice_f32_k8 mttkrp_sum_chunks_f32 mttkrp_tile_f32_k1 mttkrp_tile_f32_k16
 * mttkrp_tile_f32_k2 mttkrp_tile_f32_k3 mttkrp_tile_f32_k4 mttkrp_tile_f32_k8 */
#include <string.h>

#include "portable/tp_portable.h"

#define MTTKRP_T float
#define MTTKRP_SFX f32
#include "algorithms/dense_mttkrp/mttkrp_precision_template.h"
