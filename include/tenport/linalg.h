/* Small dense linear-algebra kernels on matrices in a space (row-major). */
#ifndef TENPORT_LINALG_H
#define TENPORT_LINALG_H

#include <stdint.h>
#include "tenport/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Squared 2-norms of the rows of the m x n row-major matrix A (leading dimension ld):
 * row_norms2[i] = sum_j A[i*ld + j]^2, and *total (may be NULL) = sum over all rows.
 * Outputs live in the space. */
tp_status tp_row_norms2_f64(tp_space *space, const double *A, int64_t m, int64_t n,
                            int64_t ld, double *row_norms2, double *total);

#ifdef __cplusplus
}
#endif
#endif
