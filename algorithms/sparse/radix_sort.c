/* Stable LSD radix sort of (uint64 key, int64 value) pairs on the host, 11 bits a pass.
 *
 * The pairs are cut into a number of blocks that depends only on n; each pass counts the
 * digits of every block, turns the counts into offsets (digit-major, then block order)
 * and scatters every block in order. That keeps the sort stable and its result
 * independent of the thread count, while the blocks run in parallel under OpenMP. */
#include <stdlib.h>
#include <string.h>

#include "tp_error.h"
#include "tp_host_omp.h"
#include "tp_sparse_internal.h"

enum { RADIX_BITS = 11, RADIX = 1 << RADIX_BITS, MAX_BLOCKS = 64, MIN_BLOCK = 1 << 15 };
#define DIGIT(key, shift) ((size_t)(((key) >> (shift)) & (RADIX - 1)))

static int block_count(int64_t n) {
  int64_t b = n / MIN_BLOCK;
  return b < 1 ? 1 : b > MAX_BLOCKS ? MAX_BLOCKS : (int)b;
}

static int64_t block_first(int64_t n, int blocks, int b) {
  int64_t q = n / blocks, r = n % blocks;
  return b * q + (b < r ? b : r);
}

static void count_digits(const uint64_t *keys, int64_t n, int shift, int blocks,
                         int64_t *counts) {
  TP_HOST_OMP(omp parallel for schedule(static))
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
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int b = 0; b < blocks; ++b) {
    int64_t *pos = offsets + (size_t)b * RADIX;
    for (int64_t i = block_first(n, blocks, b), end = block_first(n, blocks, b + 1); i < end;
         ++i) {
      int64_t p = pos[DIGIT(keys[i], shift)]++;
      keys_out[p] = keys[i];
      values_out[p] = values[i];
    }
  }
}

tp_status tp_radix_sort_u64(uint64_t *keys, int64_t *values, uint64_t *keys_tmp,
                            int64_t *values_tmp, int64_t n, int key_bits) {
  if (n < 2)
    return TP_SUCCESS;
  int blocks = block_count(n);
  int64_t *counts = (int64_t *)malloc(sizeof(int64_t) * RADIX * (size_t)blocks);
  if (!counts)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the radix sort's %d histograms",
                    blocks);
  uint64_t *k_in = keys, *k_out = keys_tmp;
  int64_t *v_in = values, *v_out = values_tmp;
  for (int shift = 0; shift < key_bits && shift < 64; shift += RADIX_BITS) {
    count_digits(k_in, n, shift, blocks, counts);
    if (!offsets_from_counts(n, blocks, counts))
      continue;
    scatter(k_in, v_in, k_out, v_out, n, shift, blocks, counts);
    uint64_t *k = k_in;
    int64_t *v = v_in;
    k_in = k_out, v_in = v_out, k_out = k, v_out = v;
  }
  free(counts);
  if (k_in != keys) {
    memcpy(keys, k_in, sizeof(uint64_t) * (size_t)n);
    memcpy(values, v_in, sizeof(int64_t) * (size_t)n);
  }
  return TP_SUCCESS;
}
