/* Peer library for benchmarks: the same primitives as tenport's, timed through a
 * reference implementation (CUB on CUDA builds, see cub_peer.cu). Builds without CUDA
 * link no_peer.c, where every timing function fails with "not available".
 *
 * All pointers named d_* are device pointers. `stream` is a cudaStream_t passed as
 * void* (NULL: the legacy default stream). Every timing function runs `warmup` untimed
 * calls, then times `reps` (>= 1) calls one by one with CUDA events recorded on
 * `stream`, and writes the median in milliseconds to *median_ms. Temporary storage is
 * allocated once before the warm-up and freed after the timed calls, outside the
 * timing. Return 0 on success; non-zero on any error, with a message in
 * tp_peer_last_error() (per thread, valid until the next call on that thread). */
#ifndef TP_PERF_PEER_H
#define TP_PERF_PEER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "CUB <major>.<minor>.<subminor>", or "none" without a peer. */
const char *tp_peer_name(void);

/* *d_out = sum of d_in[0..n). */
int tp_peer_reduce_sum_f64(void *stream, const double *d_in, int64_t n, double *d_out, int warmup,
                           int reps, double *median_ms);

/* d_out[i] = d_in[0] + ... + d_in[i-1], d_out[0] = 0. */
int tp_peer_exclusive_scan_i32(void *stream, const int32_t *d_in, int32_t *d_out, int64_t n,
                               int warmup, int reps, double *median_ms);

/* Stable sort of (key, value) pairs by the whole 64-bit key, ascending. d_keys/d_values
 * hold the input and receive the sorted result. Every call (warm-up or timed) sorts a
 * fresh copy of the input; restoring the input is not timed. */
int tp_peer_sort_pairs_u64_u32(void *stream, uint64_t *d_keys, uint32_t *d_values, int64_t n,
                               int warmup, int reps, double *median_ms);

/* Message of the last failure on this thread ("" if none). */
const char *tp_peer_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TP_PERF_PEER_H */
