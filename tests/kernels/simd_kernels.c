#include "portable/tp_portable.h"
#include "tests/kernels/tpt_simd_kernels.h"

/* Every operation of tp_<sfx>x<W> on row r, for each type and width.
 * generates: the kernels and functions named in the generates: list of
 * simd_kernels_template.h (simd_f32_1 ... simd_f64_32, tpt_simd_ops_f32, tpt_simd_ops_f64). */
#define TPT_T float
#define TPT_SFX f32
#include "tests/kernels/simd_kernels_template.h"
#define TPT_T double
#define TPT_SFX f64
#include "tests/kernels/simd_kernels_template.h"
