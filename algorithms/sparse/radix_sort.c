/* Stable radix sort of (uint64 key, int64 value) pairs on the host, 11 bits a pass.
 *
 * A pass cuts the pairs into a number of blocks that depends only on n, counts the
 * digits of every block, turns the counts into offsets (digit-major, then block order)
 * and scatters every block in order. That keeps the sort stable and its result
 * independent of the thread count, while the blocks run in parallel under OpenMP.
 * Large inputs take one such pass on their most significant digit, then sort each of
 * the 2048 buckets on the lower digits (LSD) while it sits in cache, buckets in
 * parallel; small ones are sorted LSD throughout. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum {
  RADIX_BITS = 11,
  RADIX = 1 << RADIX_BITS,
  MAX_BLOCKS = 64,
  MIN_BLOCK = 1 << 15,
  MSD_MIN = 1 << 20
};
#define DIGIT(key, shift) ((size_t)(((key) >> (shift)) & (RADIX - 1)))

static int block_count(int64_t n) {
  int64_t b = n / MIN_BLOCK;
  return b < 1 ? 1 : b > MAX_BLOCKS ? MAX_BLOCKS : (int)b;
}

static int64_t block_first(int64_t n, int blocks, int b) {
  int64_t q = n / blocks, r = n % blocks;
  return b * q + (b < r ? b : r);
}

static void count_digits(const uint64_t *keys, int64_t n, int shift, int blocks, int64_t *counts) {
  TP_HOST_OMP(omp parallel for schedule(static) if (blocks > 1))
  for (int b = 0; b < blocks; ++b) {
    int64_t *c = counts + (size_t)b * RADIX;
    memset(c, 0, sizeof(int64_t) * RADIX);
    for (int64_t i = block_first(n, blocks, b), end = block_first(n, blocks, b + 1); i < end; ++i)
      ++c[DIGIT(keys[i], shift)];
  }
}

/* Replaces the counts by each (block, digit)'s first output position; returns 0 when one
 * digit holds every key, so the pass would not move anything. */
static int offsets_from_counts(int64_t n, int blocks, int64_t *counts) {
  int64_t next = 0;
  for (size_t d = 0; d < RADIX; ++d) {
    int64_t total = 0;
    for (int b = 0; b < blocks; ++b)
      total += counts[(size_t)b * RADIX + d];
    if (total == n)
      return 0;
    for (int b = 0; b < blocks; ++b) {
      int64_t c = counts[(size_t)b * RADIX + d];
      counts[(size_t)b * RADIX + d] = next;
      next += c;
    }
  }
  return 1;
}

static void scatter(const uint64_t *keys, const int64_t *values, uint64_t *keys_out,
                    int64_t *values_out, int64_t n, int shift, int blocks, int64_t *offsets) {
  TP_HOST_OMP(omp parallel for schedule(static) if (blocks > 1))
  for (int b = 0; b < blocks; ++b) {
    int64_t *pos = offsets + (size_t)b * RADIX;
    for (int64_t i = block_first(n, blocks, b), end = block_first(n, blocks, b + 1); i < end; ++i) {
      int64_t p = pos[DIGIT(keys[i], shift)]++;
      keys_out[p] = keys[i];
      values_out[p] = values[i];
    }
  }
}

/* LSD passes over bits [0, bits) of the n pairs in (k, v), using (kt, vt) as the other
 * buffer and counts for the histograms; returns 1 when the result ends in (kt, vt). */
static int lsd_passes(uint64_t *k, int64_t *v, uint64_t *kt, int64_t *vt, int64_t n, int bits,
                      int blocks, int64_t *counts) {
  int swapped = 0;
  for (int shift = 0; shift < bits && shift < 64; shift += RADIX_BITS) {
    count_digits(k, n, shift, blocks, counts);
    if (!offsets_from_counts(n, blocks, counts))
      continue;
    scatter(k, v, kt, vt, n, shift, blocks, counts);
    uint64_t *k2 = k;
    int64_t *v2 = v;
    k = kt, v = vt, kt = k2, vt = v2;
    swapped = !swapped;
  }
  return swapped;
}

static void copy_pairs(uint64_t *k, int64_t *v, const uint64_t *from_k, const int64_t *from_v,
                       int64_t n) {
  memcpy(k, from_k, sizeof(uint64_t) * (size_t)n);
  memcpy(v, from_v, sizeof(int64_t) * (size_t)n);
}

/* Sorts each bucket [end(d - 1), end(d)) of (kt, vt) on bits [0, bits) into (k, v); the
 * buckets are small enough to stay in cache, and run in parallel. */
static tp_status sort_buckets(uint64_t *k, int64_t *v, uint64_t *kt, int64_t *vt,
                              const int64_t *ends, int bits) {
  int failed = 0;
  TP_HOST_OMP(omp parallel) {
    int64_t *counts = (int64_t *)malloc(sizeof(int64_t) * RADIX);
    TP_HOST_OMP(omp for schedule(dynamic, 8))
    for (int d = 0; d < RADIX; ++d) {
      int64_t first = d ? ends[d - 1] : 0, n = ends[d] - first;
      if (!counts) {
        TP_HOST_OMP(omp atomic write)
        failed = 1;
        continue;
      }
      if (!lsd_passes(kt + first, vt + first, k + first, v + first, n, bits, 1, counts))
        copy_pairs(k + first, v + first, kt + first, vt + first, n);
    }
    free(counts);
  }
  if (failed)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the radix sort's histograms");
  return TP_SUCCESS;
}

/* One pass on the most significant digit that differs between keys scatters the pairs
 * into buckets; each bucket is then sorted on the lower digits. */
static tp_status msd_then_lsd(uint64_t *keys, int64_t *values, uint64_t *keys_tmp,
                              int64_t *values_tmp, int64_t n, int key_bits, int blocks,
                              int64_t *counts) {
  int shift = key_bits - RADIX_BITS;
  for (; shift > RADIX_BITS; shift -= RADIX_BITS) {
    count_digits(keys, n, shift, blocks, counts);
    if (!offsets_from_counts(n, blocks, counts))
      continue; /* every key has this digit */
    scatter(keys, values, keys_tmp, values_tmp, n, shift, blocks, counts);
    /* after the scatter, the last block's offsets are the ends of the buckets */
    return sort_buckets(keys, values, keys_tmp, values_tmp, counts + (size_t)(blocks - 1) * RADIX,
                        shift);
  }
  if (lsd_passes(keys, values, keys_tmp, values_tmp, n, shift + RADIX_BITS, blocks, counts))
    copy_pairs(keys, values, keys_tmp, values_tmp, n);
  return TP_SUCCESS;
}

tp_status tpi_radix_sort_u64(uint64_t *keys, int64_t *values, uint64_t *keys_tmp,
                             int64_t *values_tmp, int64_t n, int key_bits) {
  if (n < 2)
    return TP_SUCCESS;
  int blocks = block_count(n);
  int64_t *counts = (int64_t *)malloc(sizeof(int64_t) * RADIX * (size_t)blocks);
  if (!counts)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the radix sort's %d histograms",
                    blocks);
  tp_status st = TP_SUCCESS;
  if (n >= MSD_MIN && key_bits > 2 * RADIX_BITS)
    st = msd_then_lsd(keys, values, keys_tmp, values_tmp, n, key_bits, blocks, counts);
  else if (lsd_passes(keys, values, keys_tmp, values_tmp, n, key_bits, blocks, counts))
    copy_pairs(keys, values, keys_tmp, values_tmp, n);
  free(counts);
  return st;
}
