/* The dense MTTKRP kernels in float: see tpm_precision.h and tpm_width.h. */
/* generates: tpm_elem_f32_k1 tpm_elem_f32_k16 tpm_elem_f32_k2 tpm_elem_f32_k3 tpm_elem_f32_k4
 * tpm_elem_f32_k8 tpm_kr_row_team_f32 tpm_kr_rows_f32 tpm_partial_col_team_f32 tpm_partial_f32_k1
 * tpm_partial_f32_k16 tpm_partial_f32_k2 tpm_partial_f32_k3 tpm_partial_f32_k4 tpm_partial_f32_k8
 * tpm_slice_f32_k1 tpm_slice_f32_k16 tpm_slice_f32_k2 tpm_slice_f32_k3 tpm_slice_f32_k4
 * tpm_slice_f32_k8 tpm_tile_f32_k1 tpm_tile_f32_k16 tpm_tile_f32_k2 tpm_tile_f32_k3
 * tpm_tile_f32_k4 tpm_tile_f32_k8 */
#include <string.h>

#include "portable/tp_portable.h"

#define TPM_T float
#define TPM_SFX f32
#include "algorithms/dense_mttkrp/tpm_precision.h"
