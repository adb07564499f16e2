/* The concurrent hash map: insert, find, atomic add, size and entries against a host
 * reference, under heavy collision and at high load. */
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(hashmap, .init = tpt_setup, .fini = tpt_teardown);

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : (x > y);
}

/* Keys with many duplicates (so concurrent inserts of one key race) from a small
 * pool; values depend on the key, so any winner stores the same value. */
Test(hashmap, insert_find_size_entries_with_duplicates) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t sizes[] = {1, 7, 1000, 65537, 400009};
  for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; ++c) {
    int64_t n = sizes[c], pool = n / 3 + 1;
    uint64_t *keys = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
    uint64_t *vals = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
    uint64_t *pool_keys = tpt_host_alloc(sizeof(uint64_t) * (size_t)pool);
    for (int64_t i = 0; i < pool; ++i)
      pool_keys[i] = tpt_next_u64(&rng) >> 1; /* never the empty key */
    for (int64_t i = 0; i < n; ++i) {
      keys[i] = pool_keys[tpt_int(&rng, 0, pool - 1)];
      vals[i] = keys[i] * 3 + 1;
    }
    /* reference: distinct keys */
    uint64_t *sorted = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
    memcpy(sorted, keys, sizeof(uint64_t) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_u64);
    int64_t distinct = 0;
    for (int64_t i = 0; i < n; ++i)
      if (i == 0 || sorted[i] != sorted[i - 1])
        sorted[distinct++] = sorted[i];
    tp_hashmap *map = NULL;
    TPT_OK(tp_hashmap_create(tpt_space, 2 * distinct, &map));
    cr_assert_geq(tp_hashmap_capacity(map), 2 * distinct);
    uint64_t *dk = tpt_to_space(keys, sizeof(uint64_t) * (size_t)n);
    uint64_t *dv = tpt_to_space(vals, sizeof(uint64_t) * (size_t)n);
    uint8_t *ins = tpt_alloc_poisoned((size_t)n);
    TPT_OK(tp_hashmap_insert(map, dk, dv, n, ins));
    uint8_t *hins = tpt_host_alloc((size_t)n);
    tpt_to_host(hins, ins, (size_t)n);
    int64_t new_count = 0;
    for (int64_t i = 0; i < n; ++i) {
      cr_assert(hins[i] == 0 || hins[i] == 1, "inserted flag %d", hins[i]);
      new_count += hins[i];
    }
    cr_assert_eq(new_count, distinct, "n=%lld: %lld keys reported new, %lld distinct", (long long)n,
                 (long long)new_count, (long long)distinct);
    int64_t size = -1;
    TPT_OK(tp_hashmap_size(map, &size));
    cr_assert_eq(size, distinct);
    /* find: every inserted key, plus absent keys */
    uint64_t *probe = tpt_host_alloc(sizeof(uint64_t) * (size_t)(2 * n));
    for (int64_t i = 0; i < n; ++i) {
      probe[i] = keys[i];
      probe[n + i] = (tpt_next_u64(&rng) >> 1) | ((uint64_t)1 << 62) | 1u; /* unlikely in pool */
    }
    uint64_t *dp = tpt_to_space(probe, sizeof(uint64_t) * (size_t)(2 * n));
    uint64_t *dfound = tpt_alloc_poisoned(sizeof(uint64_t) * (size_t)(2 * n));
    TPT_OK(tp_hashmap_find(map, dp, 2 * n, dfound, 12345));
    uint64_t *found = tpt_host_alloc(sizeof(uint64_t) * (size_t)(2 * n));
    tpt_to_host(found, dfound, sizeof(uint64_t) * (size_t)(2 * n));
    for (int64_t i = 0; i < n; ++i)
      cr_assert_eq(found[i], keys[i] * 3 + 1, "find of present key %lld", (long long)i);
    for (int64_t i = n; i < 2 * n; ++i) {
      uint64_t *hit = bsearch(&probe[i], sorted, (size_t)distinct, sizeof *sorted, cmp_u64);
      cr_assert_eq(found[i], hit ? probe[i] * 3 + 1 : 12345, "find of absent key");
    }
    /* entries: exactly the distinct keys with their values */
    uint64_t *ek = tpt_alloc_poisoned(sizeof(uint64_t) * (size_t)distinct);
    uint64_t *ev = tpt_alloc_poisoned(sizeof(uint64_t) * (size_t)distinct);
    int64_t count = -1;
    TPT_OK(tp_hashmap_entries(map, ek, ev, &count));
    cr_assert_eq(count, distinct);
    uint64_t *hk = tpt_host_alloc(sizeof(uint64_t) * (size_t)distinct);
    uint64_t *hv = tpt_host_alloc(sizeof(uint64_t) * (size_t)distinct);
    tpt_to_host(hk, ek, sizeof(uint64_t) * (size_t)distinct);
    tpt_to_host(hv, ev, sizeof(uint64_t) * (size_t)distinct);
    for (int64_t i = 0; i < distinct; ++i)
      cr_assert_eq(hv[i], hk[i] * 3 + 1, "entry value");
    qsort(hk, (size_t)distinct, sizeof *hk, cmp_u64);
    cr_assert(memcmp(hk, sorted, sizeof(uint64_t) * (size_t)distinct) == 0, "entry keys differ");
    TPT_OK(tp_hashmap_destroy(&map));
    cr_assert_null(map);
    tpt_free(dk), tpt_free(dv), tpt_free(ins), tpt_free(dp), tpt_free(dfound), tpt_free(ek);
    tpt_free(ev);
    free(keys), free(vals), free(pool_keys), free(sorted), free(hins), free(probe), free(found);
    free(hk), free(hv);
  }
}

/* Many threads add to few keys at once; a table at load 0.94 forces long probes. */
Test(hashmap, atomic_add_under_contention_and_high_load) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t n = 1000003, distinct = 963; /* capacity 1024: load 0.94 */
  uint64_t *keys = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
  int64_t *deltas = tpt_host_alloc(sizeof(int64_t) * (size_t)n);
  int64_t *ref = calloc((size_t)distinct, sizeof(int64_t));
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = tpt_int(&rng, 0, distinct - 1);
    keys[i] = (uint64_t)k * 1024; /* structured keys: the hash must spread them */
    deltas[i] = tpt_int(&rng, -1000, 1000);
    ref[k] += deltas[i];
  }
  tp_hashmap *map = NULL;
  TPT_OK(tp_hashmap_create(tpt_space, 1000, &map));
  cr_assert_eq(tp_hashmap_capacity(map), 1024);
  uint64_t *dk = tpt_to_space(keys, sizeof(uint64_t) * (size_t)n);
  int64_t *dd = tpt_to_space(deltas, sizeof(int64_t) * (size_t)n);
  TPT_OK(tp_hashmap_add(map, dk, dd, n));
  TPT_OK(tp_hashmap_add(map, dk, dd, n)); /* twice: values double */
  uint64_t *q = tpt_host_alloc(sizeof(uint64_t) * (size_t)distinct);
  for (int64_t k = 0; k < distinct; ++k)
    q[k] = (uint64_t)k * 1024;
  uint64_t *dq = tpt_to_space(q, sizeof(uint64_t) * (size_t)distinct);
  uint64_t *dv = tpt_alloc_poisoned(sizeof(uint64_t) * (size_t)distinct);
  TPT_OK(tp_hashmap_find(map, dq, distinct, dv, 777));
  uint64_t *v = tpt_host_alloc(sizeof(uint64_t) * (size_t)distinct);
  tpt_to_host(v, dv, sizeof(uint64_t) * (size_t)distinct);
  int64_t present = 0;
  for (int64_t k = 0; k < distinct; ++k) {
    int drawn = 0;
    for (int64_t i = 0; i < n && !drawn; ++i)
      drawn = keys[i] == q[k];
    if (!drawn)
      continue;
    ++present;
    cr_assert_eq((int64_t)v[k], 2 * ref[k], "key %lld: %lld vs %lld", (long long)k,
                 (long long)(int64_t)v[k], (long long)(2 * ref[k]));
  }
  int64_t size = -1;
  TPT_OK(tp_hashmap_size(map, &size));
  cr_assert_eq(size, present);
  TPT_OK(tp_hashmap_destroy(&map));
  tpt_free(dk), tpt_free(dd), tpt_free(dq), tpt_free(dv);
  free(keys), free(deltas), free(ref), free(q), free(v);
}

Test(hashmap, full_table_reports_capacity_and_keeps_what_fit) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t n = 100;
  uint64_t *keys = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    keys[i] = (tpt_next_u64(&rng) >> 8) * 128 + (uint64_t)i; /* distinct */
  tp_hashmap *map = NULL;
  TPT_OK(tp_hashmap_create(tpt_space, 64, &map));
  uint64_t *dk = tpt_to_space(keys, sizeof(uint64_t) * (size_t)n);
  TPT_FAILS_WITH(tp_hashmap_insert(map, dk, dk, n, NULL), TP_ERROR_CAPACITY);
  cr_assert(strstr(tp_last_error(), "full") != NULL, "%s", tp_last_error());
  int64_t size = -1;
  TPT_OK(tp_hashmap_size(map, &size));
  cr_assert_eq(size, 64);
  TPT_OK(tp_hashmap_clear(map));
  TPT_OK(tp_hashmap_size(map, &size));
  cr_assert_eq(size, 0);
  TPT_OK(tp_hashmap_destroy(&map));
  tpt_free(dk);
  free(keys);
}

Test(hashmap, reserved_key_and_bad_arguments_are_rejected) {
  tp_hashmap *map = NULL;
  TPT_FAILS_WITH(tp_hashmap_create(tpt_space, -5, &map), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_hashmap_create(tpt_space, (int64_t)1 << 62, &map), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(tp_hashmap_create(tpt_space, 16, &map));
  uint64_t bad[3] = {5, TP_HASHMAP_EMPTY_KEY, 7};
  uint64_t *d = tpt_to_space(bad, sizeof bad);
  TPT_FAILS_WITH(tp_hashmap_insert(map, d, d, 3, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "EMPTY_KEY") != NULL, "%s", tp_last_error());
  TPT_FAILS_WITH(tp_hashmap_insert(map, NULL, d, 3, NULL), TP_ERROR_INVALID_ARGUMENT);
  /* keys 5 and 7 went in; looking up the reserved key finds nothing */
  uint64_t *found = tpt_alloc_poisoned(3 * sizeof(uint64_t)), got[3];
  TPT_OK(tp_hashmap_find(map, d, 3, found, 777));
  tpt_to_host(got, found, sizeof got);
  cr_assert(got[0] == 5 && got[1] == 777 && got[2] == 7, "found %llu %llu %llu",
            (unsigned long long)got[0], (unsigned long long)got[1], (unsigned long long)got[2]);
  tpt_free(found);
  TPT_FAILS_WITH(tp_hashmap_find(NULL, d, 3, d, 0), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(tp_hashmap_destroy(&map));
  tpt_free(d);
}
