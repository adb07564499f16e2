/* The dense MTTKRP kernels in double: see tpm_precision.h and tpm_width.h. */
/* generates: tpm_elem_f64_k1 tpm_elem_f64_k16 tpm_elem_f64_k2 tpm_elem_f64_k3 tpm_elem_f64_k4
 * tpm_elem_f64_k8 tpm_kr_row_team_f64 tpm_kr_rows_f64 tpm_partial_col_team_f64 tpm_partial_f64_k1
 * tpm_partial_f64_k16 tpm_partial_f64_k2 tpm_partial_f64_k3 tpm_partial_f64_k4 tpm_partial_f64_k8
 * tpm_slice_f64_k1 tpm_slice_f64_k16 tpm_slice_f64_k2 tpm_slice_f64_k3 tpm_slice_f64_k4
 * tpm_slice_f64_k8 tpm_tile_f64_k1 tpm_tile_f64_k16 tpm_tile_f64_k2 tpm_tile_f64_k3
 * tpm_tile_f64_k4 tpm_tile_f64_k8 */
#include <string.h>

#include "portable/tp_portable.h"

#define TPM_T double
#define TPM_SFX f64
#include "algorithms/dense_mttkrp/tpm_precision.h"
