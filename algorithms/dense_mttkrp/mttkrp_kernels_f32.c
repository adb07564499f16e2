/* The dense MTTKRP kernels in float: see tpm_precision.h and tpm_width.h. */
#include <string.h>

#include "tp_portable.h"

#define TPM_T float
#define TPM_SFX f32
#include "tpm_precision.h"
