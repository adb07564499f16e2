/* Knobs of the radix sort that tests reach into. */
#ifndef TP_SORT_INTERNAL_H
#define TP_SORT_INTERNAL_H

#include <stdint.h>
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN
/* Sorts of more keys than this keep their digit counts in 64 bits (default 2^32 - 1). */
extern int64_t tp_sort_narrow_limit;
TP_EXTERN_C_END

#endif
