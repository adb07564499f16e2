/* Batched SS-HOPM in single precision (see sshopm_solver.h). */
#define TP_REAL float
#define TP_SFX f32
#define TP_REAL_SQRT sqrtf
#define TP_SSHOPM_PRIMARY 0
#include "sshopm_solver.h"
