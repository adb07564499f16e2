/* Batched SS-HOPM in double precision (see sshopm_solver.h); also defines the
 * precision-independent functions. */
#define TP_REAL double
#define TP_SFX f64
#define TP_REAL_SQRT sqrt
#define TP_SSHOPM_PRIMARY 1
#include "sshopm_solver.h"
