/* Parallel primitives on arrays that live in a space: reductions, scans, stream
 * compaction and stable radix sorts. Inputs, outputs and results are memory of the
 * space; calls are ordered on the space's stream and return before the work ends
 * (tp_space_fence or a copy to the host waits for it). */
#ifndef TENPORT_PRIMITIVES_H
#define TENPORT_PRIMITIVES_H

#include <stdint.h>
#include "tenport/export.h"
#include "tenport/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Arg-max of |x|: the element of largest magnitude and its index. NaN ranks above
 * every number; ties go to the smallest index; an empty array gives index -1. */
typedef struct tp_argmax_f32 {
  float value;
  int64_t index;
} tp_argmax_f32;

typedef struct tp_argmax_f64 {
  double value;
  int64_t index;
} tp_argmax_f64;

/* Global reductions. The result is written to *result, which lives in the space.
 * Sums of f32 accumulate in f64, sums of i32 in i64. Empty arrays give the identity
 * (0, +inf / INT_MAX for min, -inf / INT_MIN for max). min and max propagate NaN. */
TP_API tp_status tp_reduce_sum_f32(tp_space *space, const float *x, int64_t n, double *result);
TP_API tp_status tp_reduce_sum_f64(tp_space *space, const double *x, int64_t n, double *result);
TP_API tp_status tp_reduce_sum_i32(tp_space *space, const int32_t *x, int64_t n, int64_t *result);
TP_API tp_status tp_reduce_sum_i64(tp_space *space, const int64_t *x, int64_t n, int64_t *result);
TP_API tp_status tp_reduce_min_f32(tp_space *space, const float *x, int64_t n, float *result);
TP_API tp_status tp_reduce_min_f64(tp_space *space, const double *x, int64_t n, double *result);
TP_API tp_status tp_reduce_min_i32(tp_space *space, const int32_t *x, int64_t n, int32_t *result);
TP_API tp_status tp_reduce_min_i64(tp_space *space, const int64_t *x, int64_t n, int64_t *result);
TP_API tp_status tp_reduce_max_f32(tp_space *space, const float *x, int64_t n, float *result);
TP_API tp_status tp_reduce_max_f64(tp_space *space, const double *x, int64_t n, double *result);
TP_API tp_status tp_reduce_max_i32(tp_space *space, const int32_t *x, int64_t n, int32_t *result);
TP_API tp_status tp_reduce_max_i64(tp_space *space, const int64_t *x, int64_t n, int64_t *result);
TP_API tp_status tp_reduce_argmax_abs_f32(tp_space *space, const float *x, int64_t n,
                                          tp_argmax_f32 *result);
TP_API tp_status tp_reduce_argmax_abs_f64(tp_space *space, const double *x, int64_t n,
                                          tp_argmax_f64 *result);

/* Exclusive prefix sums: out[i] = in[0] + ... + in[i-1]; out may equal in. total, if
 * not NULL, receives the sum of all n inputs (in the space). */
TP_API tp_status tp_exclusive_scan_i32(tp_space *space, const int32_t *in, int32_t *out, int64_t n,
                                       int32_t *total);
TP_API tp_status tp_exclusive_scan_i64(tp_space *space, const int64_t *in, int64_t *out, int64_t n,
                                       int64_t *total);
TP_API tp_status tp_exclusive_scan_u32(tp_space *space, const uint32_t *in, uint32_t *out,
                                       int64_t n, uint32_t *total);
TP_API tp_status tp_exclusive_scan_u64(tp_space *space, const uint64_t *in, uint64_t *out,
                                       int64_t n, uint64_t *total);
TP_API tp_status tp_exclusive_scan_f32(tp_space *space, const float *in, float *out, int64_t n,
                                       float *total);
TP_API tp_status tp_exclusive_scan_f64(tp_space *space, const double *in, double *out, int64_t n,
                                       double *total);

/* Stream compaction: keeps the elements whose flag is non-zero, in order. *count (in
 * the space) receives how many were kept; out needs room for all of them. */
TP_API tp_status tp_compact_indices(tp_space *space, const uint8_t *flags, int64_t n, int64_t *out,
                                    int64_t *count);
TP_API tp_status tp_compact_u32(tp_space *space, const uint32_t *in, const uint8_t *flags,
                                int64_t n, uint32_t *out, int64_t *count);
TP_API tp_status tp_compact_u64(tp_space *space, const uint64_t *in, const uint8_t *flags,
                                int64_t n, uint64_t *out, int64_t *count);
TP_API tp_status tp_compact_i32(tp_space *space, const int32_t *in, const uint8_t *flags, int64_t n,
                                int32_t *out, int64_t *count);
TP_API tp_status tp_compact_i64(tp_space *space, const int64_t *in, const uint8_t *flags, int64_t n,
                                int64_t *out, int64_t *count);
TP_API tp_status tp_compact_f32(tp_space *space, const float *in, const uint8_t *flags, int64_t n,
                                float *out, int64_t *count);
TP_API tp_status tp_compact_f64(tp_space *space, const double *in, const uint8_t *flags, int64_t n,
                                double *out, int64_t *count);

/* Stable LSD radix sorts, in place, by bits [begin_bit, end_bit) of the unsigned keys
 * (0 and 32 or 64 sort by the whole key). Values travel with their keys; equal keys
 * keep their input order. Temporary memory (one copy of keys and values) comes from
 * the space's cache. */
TP_API tp_status tp_sort_keys_u32(tp_space *space, uint32_t *keys, int64_t n, int begin_bit,
                                  int end_bit);
TP_API tp_status tp_sort_keys_u64(tp_space *space, uint64_t *keys, int64_t n, int begin_bit,
                                  int end_bit);
TP_API tp_status tp_sort_pairs_u32_u32(tp_space *space, uint32_t *keys, uint32_t *values, int64_t n,
                                       int begin_bit, int end_bit);
TP_API tp_status tp_sort_pairs_u32_u64(tp_space *space, uint32_t *keys, uint64_t *values, int64_t n,
                                       int begin_bit, int end_bit);
TP_API tp_status tp_sort_pairs_u64_u32(tp_space *space, uint64_t *keys, uint32_t *values, int64_t n,
                                       int begin_bit, int end_bit);
TP_API tp_status tp_sort_pairs_u64_u64(tp_space *space, uint64_t *keys, uint64_t *values, int64_t n,
                                       int begin_bit, int end_bit);

#ifdef __cplusplus
}
#endif
#endif
