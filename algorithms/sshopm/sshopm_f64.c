/* Batched SS-HOPM in double precision (see sshopm_solver.h); also defines the
 * precision-independent functions. */
#define TP_REAL double
#define TP_SFX f64
#define TP_REAL_SQRT sqrt
#define TP_REAL_FREXP frexp
#define TP_REAL_LDEXP ldexp
#define TP_REAL_MIN DBL_MIN
#define TP_REAL_MAX DBL_MAX
#define TP_REAL_MAX_EXP DBL_MAX_EXP
#define TP_SSHOPM_PRIMARY 1
#include "sshopm_solver.h"
