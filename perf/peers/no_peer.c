/* Peer stub for builds without CUDA: same interface as cub_peer.cu (see peer.h), every
 * timing function fails with "not available". */
#include "perf/peers/peer.h"

static const char not_available[] = "not available: tenport was built without a CUDA peer";

const char *tp_peer_name(void) { return "none"; }

const char *tp_peer_last_error(void) { return not_available; }

int tp_peer_reduce_sum_f64(void *stream, const double *d_in, int64_t n, double *d_out, int warmup,
                           int reps, double *median_ms) {
  (void)stream;
  (void)d_in;
  (void)n;
  (void)d_out;
  (void)warmup;
  (void)reps;
  (void)median_ms;
  return -1;
}

int tp_peer_exclusive_scan_i32(void *stream, const int32_t *d_in, int32_t *d_out, int64_t n,
                               int warmup, int reps, double *median_ms) {
  (void)stream;
  (void)d_in;
  (void)d_out;
  (void)n;
  (void)warmup;
  (void)reps;
  (void)median_ms;
  return -1;
}

int tp_peer_sort_pairs_u64_u32(void *stream, uint64_t *d_keys, uint32_t *d_values, int64_t n,
                               int warmup, int reps, double *median_ms) {
  (void)stream;
  (void)d_keys;
  (void)d_values;
  (void)n;
  (void)warmup;
  (void)reps;
  (void)median_ms;
  return -1;
}
