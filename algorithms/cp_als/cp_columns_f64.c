/* CP-ALS column kernels in double precision, and the dtype dispatchers (see
 * cp_columns.h). */
#define TP_REAL double
#define TP_SFX f64
#define TP_CP_PRIMARY 1
#include "cp_columns.h"
