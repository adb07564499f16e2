/* Eigenvalues of small symmetric matrices, callable on the host and inside kernels:
 * cyclic Jacobi for any n, and a closed form for the extreme eigenvalues of 3 x 3
 * matrices (the adaptive shift of the n = 3 kernels). Kernel sources include
 * tp_portable.h first (TP_INLINE then runs on the device too); host code gets plain
 * static inline functions. */
#ifndef TP_SYMEIG_H
#define TP_SYMEIG_H

#include <math.h>

#ifndef TP_INLINE
#define TP_INLINE static inline
#endif

/* tp_symeig_template.h defines, for each element type T (f32, f64: sfx):
 *
 * tp_symeig_jacobi_sfx(n, a, v): diagonalises the symmetric n x n matrix a
 *   (row-major, overwritten) by cyclic Jacobi rotations until the off-diagonal mass is
 *   negligible; a's diagonal then holds the eigenvalues (unsorted). v (n x n) receives
 *   the eigenvectors as columns, or is NULL. EPS2 is the squared relative precision.
 * tp_symeig3_extremes_sfx(h, &lo, &hi): smallest and largest eigenvalue of a
 *   symmetric 3 x 3 matrix by the trigonometric solution of its characteristic
 *   cubic (accurate to a few ulps of the matrix norm, enough for a shift). */
/* Name pasting of its own: host code includes this without the portable layer. */
#define TP_SYMEIG_CAT_(a, b) a##b
#define TP_SYMEIG_CAT(a, b) TP_SYMEIG_CAT_(a, b)

#define SYMEIG_T double
#define SYMEIG_SFX f64
#define SYMEIG_SQRT sqrt
#define SYMEIG_FABS fabs
#define SYMEIG_ACOS acos
#define SYMEIG_COS cos
#define SYMEIG_EPS2 1e-32
#include "algorithms/sshopm/tp_symeig_template.h"
#define SYMEIG_T float
#define SYMEIG_SFX f32
#define SYMEIG_SQRT sqrtf
#define SYMEIG_FABS fabsf
#define SYMEIG_ACOS acosf
#define SYMEIG_COS cosf
#define SYMEIG_EPS2 1e-14
#include "algorithms/sshopm/tp_symeig_template.h"

#endif
