/* Stable radix sorts: order, stability and bit ranges against a reference sort of
 * (key bits, original position) pairs. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_sort_internal.h"
#include "tests/common/tpt.h"

TestSuite(sort, .init = tpt_setup, .fini = tpt_teardown);

typedef struct ref_item {
  uint64_t key; /* the bits sorted by */
  int64_t pos;
} ref_item;

static int ref_cmp(const void *a, const void *b) {
  const ref_item *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

static uint64_t bits_of(uint64_t k, int begin, int end) {
  uint64_t span = end - begin >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (end - begin)) - 1);
  return (k >> begin) & span;
}

enum { DIST_UNIFORM, DIST_FEW, DIST_EQUAL, DIST_SORTED, DIST_REVERSED, DIST_COUNT };

static uint64_t draw_key(tpt_rng *rng, int dist, int64_t i, int64_t n, int key_bits) {
  uint64_t full = key_bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << key_bits) - 1;
  switch (dist) {
  case DIST_FEW: return (uint64_t)tpt_int(rng, 0, 5) * (full / 7);
  case DIST_EQUAL: return full / 3;
  case DIST_SORTED: return (uint64_t)i * (full / (uint64_t)(n + 1));
  case DIST_REVERSED: return (uint64_t)(n - i) * (full / (uint64_t)(n + 1));
  default: return tpt_next_u64(rng) & full;
  }
}

/* Sorts n keys of key_bits bits (values = original positions, of val_bits bits, or none)
 * by bits [begin, end) and checks the result against the reference. */
static void check_sort(tpt_rng *rng, int key_bits, int val_bits, int64_t n, int dist, int begin,
                       int end) {
  size_t kb = (size_t)key_bits / 8, vb = (size_t)val_bits / 8;
  unsigned char *keys = tpt_host_alloc(kb * (size_t)n), *vals = tpt_host_alloc(vb * (size_t)n + 1);
  ref_item *ref = tpt_host_alloc(sizeof(ref_item) * (size_t)n);
  uint64_t *orig = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t k = draw_key(rng, dist, i, n, key_bits);
    orig[i] = k;
    if (key_bits == 32)
      ((uint32_t *)keys)[i] = (uint32_t)k;
    else
      ((uint64_t *)keys)[i] = k;
    if (val_bits == 32)
      ((uint32_t *)vals)[i] = (uint32_t)i;
    if (val_bits == 64)
      ((uint64_t *)vals)[i] = (uint64_t)i | ((uint64_t)0xABCD << 48);
    ref[i].key = bits_of(k, begin, end);
    ref[i].pos = i;
  }
  qsort(ref, (size_t)n, sizeof *ref, ref_cmp);
  void *dk = tpt_to_space(keys, kb * (size_t)n);
  void *dv = val_bits ? tpt_to_space(vals, vb * (size_t)n) : NULL;
  tp_status st;
  if (key_bits == 32 && val_bits == 0)
    st = tp_sort_keys_u32(tpt_space, dk, n, begin, end);
  else if (key_bits == 64 && val_bits == 0)
    st = tp_sort_keys_u64(tpt_space, dk, n, begin, end);
  else if (key_bits == 32 && val_bits == 32)
    st = tp_sort_pairs_u32_u32(tpt_space, dk, dv, n, begin, end);
  else if (key_bits == 32)
    st = tp_sort_pairs_u32_u64(tpt_space, dk, dv, n, begin, end);
  else if (val_bits == 32)
    st = tp_sort_pairs_u64_u32(tpt_space, dk, dv, n, begin, end);
  else
    st = tp_sort_pairs_u64_u64(tpt_space, dk, dv, n, begin, end);
  cr_assert_eq(st, TP_SUCCESS, "sort: %s", tp_last_error());
  tpt_to_host(keys, dk, kb * (size_t)n);
  if (val_bits)
    tpt_to_host(vals, dv, vb * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t k = key_bits == 32 ? ((uint32_t *)keys)[i] : ((uint64_t *)keys)[i];
    cr_assert_eq(
        k, orig[ref[i].pos],
        "keys %d/values %d bits [%d,%d) n=%lld dist %d: key at %lld is %llx, expected %llx",
        key_bits, val_bits, begin, end, (long long)n, dist, (long long)i, (unsigned long long)k,
        (unsigned long long)orig[ref[i].pos]);
    if (val_bits == 32)
      cr_assert_eq(((uint32_t *)vals)[i], (uint32_t)ref[i].pos, "value at %lld (stability)",
                   (long long)i);
    if (val_bits == 64)
      cr_assert_eq(((uint64_t *)vals)[i], (uint64_t)ref[i].pos | ((uint64_t)0xABCD << 48),
                   "value at %lld (stability)", (long long)i);
  }
  tpt_free(dk);
  tpt_free(dv);
  free(keys), free(vals), free(ref), free(orig);
}

static const int64_t sort_sizes[] = {0, 1, 2, 3, 97, 4096, 4099, 65537, 300007};
/* The two largest, smaller on fibers (still several tiles of 4096 keys). */
static int64_t sort_size(size_t c) {
  int64_t n = sort_sizes[c];
  return n == 65537 ? tpt_size(n, 20011) : n == 300007 ? tpt_size(n, 40009) : n;
}

Test(sort, all_type_pairs_sort_stably_by_whole_keys) {
  tpt_rng rng = tpt_rng_fresh();
  const int pairs[][2] = {{32, 0}, {64, 0}, {32, 32}, {32, 64}, {64, 32}, {64, 64}};
  for (size_t p = 0; p < 6; ++p)
    for (size_t c = 0; c < sizeof sort_sizes / sizeof sort_sizes[0]; ++c)
      for (int dist = 0; dist < DIST_COUNT; ++dist)
        check_sort(&rng, pairs[p][0], pairs[p][1], sort_size(c), dist, 0, pairs[p][0]);
}

Test(sort, bit_ranges_sort_by_those_bits_only) {
  tpt_rng rng = tpt_rng_fresh();
  const int ranges[][2] = {{0, 8}, {8, 24}, {3, 17}, {20, 64}, {63, 64}, {5, 5}, {0, 1}};
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; ++r) {
    check_sort(&rng, 64, 32, tpt_size(100003, 30011), DIST_UNIFORM, ranges[r][0], ranges[r][1]);
    if (ranges[r][1] <= 32)
      check_sort(&rng, 32, 64, tpt_size(70001, 20011), DIST_UNIFORM, ranges[r][0], ranges[r][1]);
  }
}

Test(sort, large_input_with_many_tiles) {
  tpt_rng rng = tpt_rng_fresh();
  check_sort(&rng, 64, 32, tpt_size(2000003, 300007), DIST_UNIFORM, 0, 64);
}

/* With a patience of one poll the look-back counts, from the keys, every tile whose count
 * is not published at its first look (on GPU spaces; host spaces do not look back). */
Test(sort, look_back_that_counts_unpublished_tiles_itself) {
  tpt_rng rng = tpt_rng_fresh();
  setenv("TENPORT_SORT_PATIENCE", "1", 1);
  check_sort(&rng, 64, 32, tpt_size(300007, 40009), DIST_UNIFORM, 0, 64);
  check_sort(&rng, 32, 0, tpt_size(70001, 20011), DIST_FEW, 0, 32);
  check_sort(&rng, 64, 64, tpt_size(100003, 30011), DIST_UNIFORM, 3, 17);
  unsetenv("TENPORT_SORT_PATIENCE");
}

/* With inclusive counts off every look-back walks back to tile 0, across many windows of
 * published words (on GPU spaces). */
Test(sort, look_back_that_walks_to_the_first_tile) {
  tpt_rng rng = tpt_rng_fresh();
  setenv("TENPORT_SORT_AGGREGATES_ONLY", "1", 1);
  check_sort(&rng, 64, 32, tpt_size(300007, 40009), DIST_UNIFORM, 0, 64);
  check_sort(&rng, 32, 0, tpt_size(70001, 20011), DIST_FEW, 0, 32);
  setenv("TENPORT_SORT_PATIENCE", "1", 1); /* and unpublished tiles counted on the way */
  check_sort(&rng, 64, 64, tpt_size(100003, 30011), DIST_UNIFORM, 3, 17);
  unsetenv("TENPORT_SORT_PATIENCE");
  unsetenv("TENPORT_SORT_AGGREGATES_ONLY");
}

Test(sort, wide_digit_counts_path) {
  tpt_rng rng = tpt_rng_fresh();
  tp_sort_narrow_limit = 0; /* as if n were beyond 2^32 */
  check_sort(&rng, 64, 32, tpt_size(300007, 40009), DIST_UNIFORM, 0, 64);
  check_sort(&rng, 32, 0, tpt_size(70001, 20011), DIST_FEW, 0, 32);
}

Test(sort, bad_arguments_are_rejected) {
  uint64_t *k = tpt_alloc_poisoned(16 * sizeof(uint64_t));
  TPT_FAILS_WITH(tp_sort_keys_u64(tpt_space, k, 16, 0, 65), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sort_keys_u64(tpt_space, k, 16, 9, 8), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sort_keys_u32(tpt_space, (uint32_t *)k, 16, 0, 33), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sort_keys_u64(tpt_space, NULL, 16, 0, 64), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sort_pairs_u64_u32(tpt_space, k, NULL, 16, 0, 64), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sort_keys_u64(tpt_space, k, -3, 0, 64), TP_ERROR_INVALID_ARGUMENT);
  tpt_free(k);
}

/* Every temporary of a sort can fail: the key and value copies, then (on GPUs) the
 * onesweep tables, or (on hosts) the digit counts. Limits that let the first, or the
 * first two, through reach the later allocations. */
Test(sort, a_later_temporary_failure_is_reported_and_input_kept) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t n = 100000;
  uint64_t *hk = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
  uint32_t *hv = tpt_host_alloc(sizeof(uint32_t) * (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    hk[i] = tpt_next_u64(&rng), hv[i] = (uint32_t)i;
  uint64_t *dk = tpt_to_space(hk, sizeof(uint64_t) * (size_t)n);
  uint32_t *dv = tpt_to_space(hv, sizeof(uint32_t) * (size_t)n);
  const size_t room[] = {sizeof(uint64_t) * (size_t)n +
                             1024, /* a little slack, less than the tables */
                         (sizeof(uint64_t) + sizeof(uint32_t)) * (size_t)n + 1024};
  for (int r = 0; r < 2; ++r) {
    TPT_OK(tp_space_trim(tpt_space)); /* no pooled temporary to reuse */
    TPT_OK(tp_space_set_memory_limit(tpt_space, tp_space_bytes_in_use(tpt_space) + room[r]));
    TPT_FAILS_WITH(tp_sort_pairs_u64_u32(tpt_space, dk, dv, n, 0, 64), TP_ERROR_OUT_OF_MEMORY);
    TPT_OK(tp_space_set_memory_limit(tpt_space, 0));
    uint64_t *bk = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
    uint32_t *bv = tpt_host_alloc(sizeof(uint32_t) * (size_t)n);
    tpt_to_host(bk, dk, sizeof(uint64_t) * (size_t)n);
    tpt_to_host(bv, dv, sizeof(uint32_t) * (size_t)n);
    cr_assert(memcmp(bk, hk, sizeof(uint64_t) * (size_t)n) == 0, "keys changed (room %d)", r);
    cr_assert(memcmp(bv, hv, sizeof(uint32_t) * (size_t)n) == 0, "values changed (room %d)", r);
    free(bk), free(bv);
  }
  TPT_OK(tp_sort_pairs_u64_u32(tpt_space, dk, dv, n, 0, 64));
  tpt_free(dk), tpt_free(dv);
  free(hk), free(hv);
}

Test(sort, temporary_allocation_failure_is_reported_and_input_kept) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t n = 100000;
  uint64_t *h = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    h[i] = tpt_next_u64(&rng);
  uint64_t *d = tpt_to_space(h, sizeof(uint64_t) * (size_t)n);
  TPT_OK(tp_space_set_memory_limit(tpt_space, tp_space_bytes_in_use(tpt_space) + 4096));
  TPT_FAILS_WITH(tp_sort_keys_u64(tpt_space, d, n, 0, 64), TP_ERROR_OUT_OF_MEMORY);
  uint64_t *back = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
  tpt_to_host(back, d, sizeof(uint64_t) * (size_t)n);
  cr_assert(memcmp(back, h, sizeof(uint64_t) * (size_t)n) == 0, "input changed by a failed sort");
  TPT_OK(tp_space_set_memory_limit(tpt_space, 0));
  TPT_OK(tp_sort_keys_u64(tpt_space, d, n, 0, 64));
  tpt_free(d);
  free(h), free(back);
}
