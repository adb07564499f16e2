/* Sums of squares that do not depend on units: a tensor whose ||X||^2 would underflow or
 * overflow is summed as X * 2^-e, 2^e its largest |value| rounded up to a power of two.
 * Scaling by a power of two is exact, so a tensor within range gives the same bits either
 * way. Used by every source CP-ALS reads (dense values, FLYCOO, distributed COO). */
#ifndef TP_NORM_SCALE_H
#define TP_NORM_SCALE_H

#include <math.h>

/* Sums of squares within this range keep every squared quantity of a fit (||X||^2,
 * ||M||^2, <X, M>) normal and finite: such tensors run unscaled. */
#define TP_NORM2_PLAIN_MIN 0x1p-600
#define TP_NORM2_PLAIN_MAX 0x1p+600

static inline int tp_norm2_is_plain(double norm2) {
  return norm2 >= TP_NORM2_PLAIN_MIN && norm2 <= TP_NORM2_PLAIN_MAX;
}

/* 2^-e with 2^(e-1) <= max_abs < 2^e: the values times it lie in [0.5, 1). */
static inline double tp_scale_for_max_abs(double max_abs) {
  int e;
  (void)frexp(max_abs, &e);
  return ldexp(1.0, -e);
}

#endif
