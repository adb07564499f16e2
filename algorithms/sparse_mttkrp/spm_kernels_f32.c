/* The sparse MTTKRP kernels in single precision: see spm_kernels.h and spm_width.h. */
#include <string.h>

#include "tp_portable.h"

#define TPF_T float
#define TPF_SFX f32
#include "spm_kernels.h"
