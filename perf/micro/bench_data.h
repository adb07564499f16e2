/* Device-side data for benchmarks: random inputs made in the space (no host transfer of
 * gigabytes) and cheap checks of results. Compiled per backend. */
#ifndef MICRO_DATA_H
#define MICRO_DATA_H

#include <stdint.h>

#include "tenport/tenport.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* x[i] uniform in [-1, 1), a hash of (seed, i). */
tp_status micro_random_f64(tp_space *space, double *x, int64_t n, uint64_t seed);
/* x[i] uniform in [lo, hi]. */
tp_status micro_random_i32(tp_space *space, int32_t *x, int64_t n, uint64_t seed, int32_t lo,
                           int32_t hi);
/* x[i] uniform over 64-bit words below 2^63 (never the hash map's empty key). */
tp_status micro_random_u64(tp_space *space, uint64_t *x, int64_t n, uint64_t seed);
/* x[i] = i. */
tp_status micro_iota_u32(tp_space *space, uint32_t *x, int64_t n);
/* *count (a host value) = number of i with keys[i] > keys[i + 1]. */
tp_status micro_count_descents_u64(tp_space *space, const uint64_t *keys, int64_t n,
                                   int64_t *count);
/* *count (a host value) = number of i with a[i] != b[i]. */
tp_status micro_count_mismatches_u64(tp_space *space, const uint64_t *a, const uint64_t *b,
                                     int64_t n, int64_t *count);

TP_EXTERN_C_END
#endif
