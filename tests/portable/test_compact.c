/* Stream compaction: the kept elements, in order, at every density. */
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(compact, .init = tpt_setup, .fini = tpt_teardown);

static const int64_t compact_sizes[] = {0, 1, 2, 17, 4096, 4099, 65537, 1000003};
static const double densities[] = {0.0, 1.0, 0.5, 0.01, 0.999};

Test(compact, indices_and_values_match_reference) {
  tpt_rng rng = tpt_rng_fresh();
  for (size_t c = 0; c < sizeof compact_sizes / sizeof compact_sizes[0]; ++c)
    for (size_t d = 0; d < sizeof densities / sizeof densities[0]; ++d) {
      int64_t n = compact_sizes[c];
      uint8_t *flags = tpt_host_alloc((size_t)n);
      uint64_t *v64 = tpt_host_alloc(sizeof(uint64_t) * (size_t)n);
      uint32_t *v32 = tpt_host_alloc(sizeof(uint32_t) * (size_t)n);
      int64_t *ref = tpt_host_alloc(sizeof(int64_t) * (size_t)n), kept = 0;
      for (int64_t i = 0; i < n; ++i) {
        /* any non-zero byte keeps the element */
        flags[i] = tpt_uniform(&rng, 0, 1) < densities[d] ? (uint8_t)tpt_int(&rng, 1, 255) : 0;
        v64[i] = tpt_next_u64(&rng);
        v32[i] = (uint32_t)tpt_next_u64(&rng);
        if (flags[i])
          ref[kept++] = i;
      }
      uint8_t *dflags = tpt_to_space(flags, (size_t)n);
      uint64_t *d64 = tpt_to_space(v64, sizeof(uint64_t) * (size_t)n);
      uint32_t *d32 = tpt_to_space(v32, sizeof(uint32_t) * (size_t)n);
      int64_t *didx = tpt_alloc_poisoned(sizeof(int64_t) * (size_t)(n + 1));
      uint64_t *o64 = tpt_alloc_poisoned(sizeof(uint64_t) * (size_t)(n + 1));
      uint32_t *o32 = tpt_alloc_poisoned(sizeof(uint32_t) * (size_t)(n + 1));
      int64_t *counts = tpt_alloc_poisoned(3 * sizeof(int64_t));
      TPT_OK(tp_compact_indices(tpt_space, dflags, n, didx, counts));
      TPT_OK(tp_compact_u64(tpt_space, d64, dflags, n, o64, counts + 1));
      TPT_OK(tp_compact_f32(tpt_space, (const float *)d32, dflags, n, (float *)o32, counts + 2));
      int64_t got_counts[3];
      tpt_to_host(got_counts, counts, sizeof got_counts);
      int64_t *hidx = tpt_host_alloc(sizeof(int64_t) * (size_t)(n + 1));
      uint64_t *h64 = tpt_host_alloc(sizeof(uint64_t) * (size_t)(n + 1));
      uint32_t *h32 = tpt_host_alloc(sizeof(uint32_t) * (size_t)(n + 1));
      tpt_to_host(hidx, didx, sizeof(int64_t) * (size_t)(n + 1));
      tpt_to_host(h64, o64, sizeof(uint64_t) * (size_t)(n + 1));
      tpt_to_host(h32, o32, sizeof(uint32_t) * (size_t)(n + 1));
      for (int k = 0; k < 3; ++k)
        cr_assert_eq(got_counts[k], kept, "n=%lld density %g: count %lld vs %lld", (long long)n,
                     densities[d], (long long)got_counts[k], (long long)kept);
      for (int64_t i = 0; i < kept; ++i) {
        cr_assert_eq(hidx[i], ref[i], "n=%lld density %g: index %lld", (long long)n, densities[d],
                     (long long)i);
        cr_assert_eq(h64[i], v64[ref[i]], "u64 value %lld", (long long)i);
        cr_assert_eq(h32[i], v32[ref[i]], "32-bit value %lld", (long long)i);
      }
      cr_assert(hidx[kept] == -1 && h64[kept] == UINT64_MAX && h32[kept] == UINT32_MAX,
                "wrote past the kept elements");
      tpt_free(dflags), tpt_free(d64), tpt_free(d32), tpt_free(didx), tpt_free(o64);
      tpt_free(o32), tpt_free(counts);
      free(flags), free(v64), free(v32), free(ref), free(hidx), free(h64), free(h32);
    }
}

Test(compact, bad_arguments_are_rejected) {
  int64_t *count = tpt_alloc_poisoned(sizeof(int64_t));
  TPT_FAILS_WITH(tp_compact_indices(tpt_space, NULL, 4, NULL, count), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_compact_indices(tpt_space, NULL, -1, NULL, count), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_compact_indices(tpt_space, NULL, 0, NULL, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(tp_compact_indices(tpt_space, NULL, 0, NULL, count));
  int64_t c = -1;
  tpt_to_host(&c, count, sizeof c);
  cr_assert_eq(c, 0);
  tpt_free(count);
}
