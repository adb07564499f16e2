/* tenport's counter-based random numbers, shared by the dense and sparse generators.
 *
 * Value n of a stream is splitmix64's mixing function applied to key + (n + 1) * golden
 * ratio, key being derived from the seed and the stream number. Any value can be drawn
 * on its own, so loops over n may run in parallel and still give the same numbers on
 * every platform and for any thread count. Uniform values are exact; normal values go
 * through the C library's log and cos. */
#ifndef TP_RANDOM_INTERNAL_H
#define TP_RANDOM_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "tenport/npy.h"

/* Kernel sources include tp_portable.h first: there the functions are callable in
 * kernels too (TP_INLINE), so the space draws the host's numbers. */
#ifdef TP_INLINE
#define TP_RNG_FN TP_INLINE
#else
#define TP_RNG_FN static inline
#endif

/* The stream of factor `mode` of tp_kruskal_random: TP_RNG_STREAM_FACTOR + mode. */
#define TP_RNG_STREAM_FACTOR 16

#define TP_RNG_GOLDEN 0x9e3779b97f4a7c15ull
#define TP_RNG_TWO_POW_M24 (1.0 / 16777216.0)
#define TP_RNG_TWO_POW_M53 (1.0 / 9007199254740992.0)
#define TP_RNG_TWO_PI 6.283185307179586

TP_RNG_FN uint64_t tpi_rng_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

TP_RNG_FN uint64_t tpi_rng_stream_key(uint64_t seed, uint64_t stream) {
  return tpi_rng_mix64(tpi_rng_mix64(seed) ^ tpi_rng_mix64(stream * TP_RNG_GOLDEN));
}

/* The seed whose tp_kruskal_random is tp_dense_random_planted's Kruskal tensor: a stream
 * of `seed` of its own, so that a tensor planted with seed S and a random start from seed
 * S (tp_kruskal_random(S): CP-ALS's, GCP's, CP-APR's) differ. With one stream,
 * `tenport gen dense --rank R` and `tenport cp-als` with the default seeds of both began
 * at the truth and reported the planted fit after one iteration. */
#define TP_RNG_STREAM_PLANTED 8
TP_RNG_FN uint64_t tpi_rng_planted_seed(uint64_t seed) {
  return tpi_rng_stream_key(seed, TP_RNG_STREAM_PLANTED);
}

/* Value n of the stream with this key: 64 random bits. */
TP_RNG_FN uint64_t tpi_rng_draw(uint64_t key, uint64_t n) {
  return tpi_rng_mix64(key + (n + 1) * TP_RNG_GOLDEN);
}

/* Uniform in [0, 1) with as many bits as the dtype holds, so it never rounds up to 1. */
TP_RNG_FN double tpi_rng_uniform(uint64_t bits, tp_dtype dtype) {
  return dtype == TP_DTYPE_F32 ? (double)(bits >> 40) * TP_RNG_TWO_POW_M24
                               : (double)(bits >> 11) * TP_RNG_TWO_POW_M53;
}

/* Standard normal by Box-Muller from draws 2n and 2n + 1 (u1 in (0, 1], u2 in [0, 1)). */
TP_RNG_FN double tpi_rng_normal(uint64_t key, uint64_t n) {
  double u1 = ((double)(tpi_rng_draw(key, 2 * n) >> 11) + 1.0) * TP_RNG_TWO_POW_M53;
  double u2 = (double)(tpi_rng_draw(key, 2 * n + 1) >> 11) * TP_RNG_TWO_POW_M53;
  return sqrt(-2.0 * log(u1)) * cos(TP_RNG_TWO_PI * u2);
}

#endif
