/* The dense MTTKRP kernels in double: see tpm_precision.h and tpm_width.h. */
#include <string.h>

#include "tp_portable.h"

#define TPM_T double
#define TPM_SFX f64
#include "tpm_precision.h"
