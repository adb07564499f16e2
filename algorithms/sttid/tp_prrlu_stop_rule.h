/* When a candidate pivot's magnitude stops a PRRLU: the one rule the sparse kernels and
 * the dense reference share, so that they stop at the same pivot.
 *
 * Besides eps's threshold there is a round-off floor below which a pivot counts as zero
 * whatever eps is. After s elimination steps every entry of the active submatrix carries
 * a rounding error of up to about s * u * |first pivot| (u = 2^-52; complete pivoting
 * keeps the entries near or below the first pivot). A candidate that small may be pure
 * round-off: taking it would add a rank the matrix does not have, and the bond's cross
 * matrix would be singular to working precision (with eps = 0 this happened on about 2%
 * of small random sparse tensors). Callable on the host and in kernels (kernel sources
 * include tp_portable.h first, which makes TP_INLINE a device function too). */
#ifndef TP_PRRLU_STOP_RULE_H
#define TP_PRRLU_STOP_RULE_H

#include <float.h>
#include <stdint.h>

#include "tenport/sttid.h"

#ifndef TP_INLINE
#define TP_INLINE static inline
#endif

/* The floor for the next pivot once `chosen` pivots are taken; first = |first pivot|. */
TP_INLINE double tp_prrlu_roundoff_floor(int64_t chosen, double first) {
  return 4.0 * (double)(chosen + 1) * DBL_EPSILON * first;
}

/* The stop that a candidate of magnitude mag makes (STOP_TOLERANCE at or below eps's
 * threshold, else STOP_ROUNDOFF at or below the floor), or -1 when it is a pivot. */
TP_INLINE int tp_prrlu_magnitude_stop(double mag, double threshold, int64_t chosen, double first) {
  if (mag <= threshold)
    return TP_PRRLU_STOP_TOLERANCE;
  if (mag <= tp_prrlu_roundoff_floor(chosen, first))
    return TP_PRRLU_STOP_ROUNDOFF;
  return -1;
}

#endif
