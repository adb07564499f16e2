/* CP-ALS column kernels in single precision (see cp_columns.h). */
#define TP_REAL float
#define TP_SFX f32
#define TP_CP_PRIMARY 0
#include "cp_columns.h"
