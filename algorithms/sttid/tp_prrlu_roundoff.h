/* The round-off floor below which a PRRLU pivot counts as zero, whatever eps is.
 *
 * After s elimination steps every entry of the active submatrix carries a rounding error
 * of up to about s * u * |first pivot| (u = 2^-52; complete pivoting keeps the entries
 * near or below the first pivot). A candidate that small may be pure round-off: taking it
 * would add a rank the matrix does not have, and the bond's cross matrix would be
 * singular to working precision (with eps = 0 this happened on about 2% of small random
 * sparse tensors). Callable on the host and in kernels (kernel sources include
 * tp_portable.h first, which makes TP_INLINE a device function too). */
#ifndef TP_PRRLU_ROUNDOFF_H
#define TP_PRRLU_ROUNDOFF_H

#include <float.h>
#include <stdint.h>

#ifndef TP_INLINE
#define TP_INLINE static inline
#endif

/* The floor for the next pivot once `chosen` pivots are taken; first = |first pivot|. */
TP_INLINE double tp_prrlu_roundoff_floor(int64_t chosen, double first) {
  return 4.0 * (double)(chosen + 1) * DBL_EPSILON * first;
}

#endif
