/* Duplicate merging of COO tensors against a naive reference, and the radix sort under it. */
#include "tests/sparse/tpt_sparse.h"

TestSuite(coo_duplicates, .init = sparse_setup, .fini = sparse_teardown);

/* ---- duplicates ----------------------------------------------------------------------- */

/* Naive reference: for each nonzero in order, find its coordinate among those seen so far
 * and add the value in double; then sort the coordinates by insertion sort. */
typedef struct reference {
  int64_t count, *coords; /* count x order */
  double *sums;
} reference;

static int coordinate_less(const reference *r, int order, int64_t a, int64_t b) {
  for (int m = 0; m < order; ++m)
    if (r->coords[a * order + m] != r->coords[b * order + m])
      return r->coords[a * order + m] < r->coords[b * order + m];
  return 0;
}

static void swap_entries(reference *r, int order, int64_t a, int64_t b) {
  for (int m = 0; m < order; ++m) {
    int64_t x = r->coords[a * order + m];
    r->coords[a * order + m] = r->coords[b * order + m];
    r->coords[b * order + m] = x;
  }
  double s = r->sums[a];
  r->sums[a] = r->sums[b];
  r->sums[b] = s;
}

static reference naive_sum(const tp_coo *t) {
  reference r = {0, tpt_host_alloc(sizeof(int64_t) * (size_t)(t->nnz * t->order + 1)),
                 tpt_host_alloc(sizeof(double) * (size_t)(t->nnz + 1))};
  for (int64_t k = 0; k < t->nnz; ++k) {
    int64_t j = 0;
    for (; j < r.count; ++j) {
      int same = 1;
      for (int m = 0; m < t->order && same; ++m)
        same = r.coords[j * t->order + m] == t->indices[m][k];
      if (same)
        break;
    }
    if (j == r.count) {
      for (int m = 0; m < t->order; ++m)
        r.coords[j * t->order + m] = t->indices[m][k];
      r.sums[j] = 0;
      ++r.count;
    }
    r.sums[j] += value_at(t, k);
  }
  for (int64_t i = 1; i < r.count; ++i) /* insertion sort */
    for (int64_t j = i; j > 0 && coordinate_less(&r, t->order, j, j - 1); --j)
      swap_entries(&r, t->order, j, j - 1);
  return r;
}

static void assert_matches_reference(const tp_coo *t, const reference *r) {
  cr_assert_eq(t->nnz, r->count, "nnz %lld, reference %lld", (long long)t->nnz,
               (long long)r->count);
  for (int64_t k = 0; k < t->nnz; ++k) {
    for (int m = 0; m < t->order; ++m)
      cr_assert_eq(t->indices[m][k], r->coords[k * t->order + m], "nonzero %lld, mode %d",
                   (long long)k, m);
    double want = t->dtype == TP_DTYPE_F32 ? (double)(float)r->sums[k] : r->sums[k];
    cr_assert_eq(value_at(t, k), want, "nonzero %lld: %.17g vs %.17g", (long long)k, value_at(t, k),
                 want);
  }
}

static void free_reference(reference *r) {
  free(r->coords);
  free(r->sums);
}

Test(coo_duplicates, sum_duplicates_matches_a_naive_reference) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[6] = {5, 3, 4, 2, 3, 2};
  const int64_t counts[4] = {0, 1, 37, 400};
  for (int d = 0; d < 2; ++d)
    for (int order = 1; order <= 6; ++order)
      for (int c = 0; c < 4; ++c) {
        tp_coo t = random_tensor(both_dtypes[d], order, dims, counts[c], &rng);
        reference r = naive_sum(&t);
        int64_t merged = -1;
        TPT_OK(tp_coo_sum_duplicates(&t, &merged));
        cr_assert_eq(merged, counts[c] - r.count, "merged %lld", (long long)merged);
        assert_matches_reference(&t, &r);
        free_reference(&r);
        tp_coo_free(NULL, &t);
      }
}

/* Dims whose product overflows 64 bits take the sort by groups of modes. */
Test(coo_duplicates, sum_duplicates_with_dims_beyond_64_bits) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[5] = {(int64_t)1 << 40, 3, (int64_t)1 << 40, INT64_MAX, 2};
  tp_coo t = random_tensor(TP_DTYPE_F64, 5, dims, 300, &rng);
  for (int64_t k = 0; k < 300; ++k) { /* few distinct values per mode: many duplicates */
    t.indices[0][k] = (t.indices[0][k] % 3) << 38;
    t.indices[2][k] %= 2;
    t.indices[3][k] = INT64_MAX - 1 - t.indices[3][k] % 2;
  }
  reference r = naive_sum(&t);
  int64_t merged;
  TPT_OK(tp_coo_sum_duplicates(&t, &merged));
  cr_assert_eq(merged, 300 - r.count);
  assert_matches_reference(&t, &r);
  free_reference(&r);
  tp_coo_free(NULL, &t);
}

/* More nonzeros than one radix block: the result is sorted, unique and sums every value. */
Test(coo_duplicates, sum_duplicates_of_many_nonzeros) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {301, 299, 307}, nnz = 300000;
  tp_coo t = random_tensor(TP_DTYPE_F64, 3, dims, nnz, &rng);
  for (int64_t k = 0; k < nnz; ++k) /* small integers: the sums are exact in any order */
    set_value(&t, k, (double)tpt_int(&rng, -8, 8));
  for (int64_t k = 0; k < nnz / 10; ++k) /* forced duplicates */
    for (int m = 0; m < 3; ++m)
      t.indices[m][nnz - 1 - k] = t.indices[m][k];
  double total = 0;
  for (int64_t k = 0; k < nnz; ++k)
    total += value_at(&t, k);
  int64_t merged;
  TPT_OK(tp_coo_sum_duplicates(&t, &merged));
  cr_assert_geq(merged, nnz / 10);
  cr_assert_eq(t.nnz + merged, nnz);
  assert_sorted_unique(&t);
  double after = 0;
  for (int64_t k = 0; k < t.nnz; ++k)
    after += value_at(&t, k);
  cr_assert_eq(after, total);
  tp_coo_free(NULL, &t);
}

/* The internal radix sort on more pairs than its MSD threshold (2^20): sorted, stable,
 * a permutation of the input, for uniform keys, keys sharing their top digits and keys
 * crowded into one bucket. */
Test(coo_duplicates, radix_sort_is_stable_on_large_inputs) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t n = ((int64_t)1 << 20) + 4099;
  size_t bytes = sizeof(uint64_t) * (size_t)n;
  uint64_t *keys = tpt_host_alloc(bytes), *keys_tmp = tpt_host_alloc(bytes);
  uint64_t *original = tpt_host_alloc(bytes);
  int64_t *values = tpt_host_alloc(bytes), *values_tmp = tpt_host_alloc(bytes);
  const int bits[4] = {64, 40, 40, 30};
  for (int c = 0; c < 4; ++c) {
    for (int64_t i = 0; i < n; ++i) {
      uint64_t r = tpt_next_u64(&rng) >> (64 - bits[c]);
      if (c == 1)
        r = (0xabcdeull << 20) | (r & 0xfffff); /* the top 20 of 40 bits shared */
      if (c == 2 && i % 10)
        r &= 0x3ff; /* 90% of the keys in the lowest bucket, with many duplicates */
      keys[i] = original[i] = r;
      values[i] = i;
    }
    TPT_OK(tpi_radix_sort_u64(keys, values, keys_tmp, values_tmp, n, bits[c]));
    memset(keys_tmp, 0, bytes); /* marks of the positions seen */
    for (int64_t i = 0; i < n; ++i) {
      cr_assert(values[i] >= 0 && values[i] < n && keys_tmp[values[i]] == 0, "case %d", c);
      keys_tmp[values[i]] = 1;
      cr_assert_eq(keys[i], original[values[i]], "case %d: pair %lld moved apart", c, (long long)i);
      if (i > 0)
        cr_assert(keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && values[i - 1] < values[i]),
                  "case %d: pairs %lld and %lld out of order", c, (long long)i - 1, (long long)i);
    }
  }
  free(keys), free(keys_tmp), free(original), free(values), free(values_tmp);
}

Test(coo_duplicates, sum_duplicates_keeps_a_sorted_tensor_and_rejects_bad_indices) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {9, 8, 7};
  tp_coo t = canonical_tensor(TP_DTYPE_F32, 3, dims, 200, &rng), copy;
  TPT_OK(tp_coo_copy_to_host(NULL, &copy, &t));
  int64_t merged = -1;
  TPT_OK(tp_coo_sum_duplicates(&t, &merged));
  cr_assert_eq(merged, 0);
  assert_same_tensor(&t, &copy);
  t.indices[2][5] = 7;
  TPT_FAILS_WITH(tp_coo_sum_duplicates(&t, &merged), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("nonzero 5, mode 2");
  tp_coo_free(NULL, &t);
  tp_coo_free(NULL, &copy);
}
