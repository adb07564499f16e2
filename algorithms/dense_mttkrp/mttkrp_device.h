/* Device helpers of the dense MTTKRP kernels: multi-index odometers over a list of modes
 * (first mode fastest). Precision-independent; included by each precision's kernels. */
#ifndef MTTKRP_DEVICE_H
#define MTTKRP_DEVICE_H

#include "portable/tp_portable.h"
#include "algorithms/dense_mttkrp/tp_mttkrp_internal.h"

/* idx = the multi-index of linear index o over dims[0..q). */
TP_INLINE void mttkrp_decode(int q, const int64_t *dims, int64_t o, int64_t *idx) {
  for (int m = 0; m < q; ++m) {
    idx[m] = o % dims[m];
    o /= dims[m];
  }
}

/* Advances idx to the next multi-index and keeps *offset = sum_m idx[m] * stride[m]. */
TP_INLINE void mttkrp_advance(int q, const int64_t *dims, const int64_t *stride, int64_t *idx,
                              int64_t *offset) {
  for (int m = 0; m < q; ++m) {
    *offset += stride[m];
    if (++idx[m] < dims[m])
      return;
    *offset -= dims[m] * stride[m];
    idx[m] = 0;
  }
}

TP_INLINE int64_t mttkrp_dot_index(int q, const int64_t *idx, const int64_t *stride) {
  int64_t s = 0;
  for (int m = 0; m < q; ++m)
    s += idx[m] * stride[m];
  return s;
}

#endif
