/* Batched SS-HOPM in single precision (see sshopm_solver.h). */
#define TP_REAL float
#define TP_SFX f32
#define TP_REAL_SQRT sqrtf
#define TP_REAL_FREXP frexpf
#define TP_REAL_LDEXP ldexpf
#define TP_REAL_MIN FLT_MIN
#define TP_REAL_MAX FLT_MAX
#define TP_REAL_MAX_EXP FLT_MAX_EXP
#define TP_SSHOPM_PRIMARY 0
#include "sshopm_solver.h"
