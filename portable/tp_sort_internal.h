/* Knobs of the radix sort that tests reach into, and the key width its callers pass. */
#ifndef TP_SORT_INTERNAL_H
#define TP_SORT_INTERNAL_H

#include <stdint.h>
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN
/* Sorts of more keys than this keep their digit counts in 64 bits (default 2^32 - 1). */
extern int64_t tp_sort_narrow_limit;
TP_EXTERN_C_END

/* Bits that hold every index below n (at least 1): the end bit of a sort by index. */
static inline int tp_sort_index_bits(int64_t n) {
  int bits = 1;
  while (bits < 63 && ((int64_t)1 << bits) < n)
    ++bits;
  return bits;
}

#endif
