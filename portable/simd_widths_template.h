/* The SIMD arrays of one type, in every width tp_simd.h offers: includes
 * portable/simd_template.h (which lists what it generates) once per width. tp_simd.h
 * includes this file once per type with SIMD_T (float or double) and SIMD_SFX (f32 or
 * f64); it undefines both at its end.
 * generates: tp_<T>x1 ... tp_<T>x32 and their operations (listed in simd_template.h) */

#define SIMD_W 1
#include "portable/simd_template.h"
#define SIMD_W 2
#include "portable/simd_template.h"
#define SIMD_W 3
#include "portable/simd_template.h"
#define SIMD_W 4
#include "portable/simd_template.h"
#define SIMD_W 8
#include "portable/simd_template.h"
#define SIMD_W 12
#include "portable/simd_template.h"
#define SIMD_W 16
#include "portable/simd_template.h"
#define SIMD_W 32
#include "portable/simd_template.h"

#undef SIMD_T
#undef SIMD_SFX
