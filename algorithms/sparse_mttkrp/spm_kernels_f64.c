/* The sparse MTTKRP kernels in double precision: see spm_kernels.h and spm_width.h. */
#include <string.h>

#include "tp_portable.h"

#define TPF_T double
#define TPF_SFX f64
#include "spm_kernels.h"
