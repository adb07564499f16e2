/* Sparse COO tensors: descriptor checks and validation, allocation and copies to the
 * space, duplicate merging against a naive reference, .tns and .tpb files (round trips,
 * comments, inferred and given dims, every malformed input with its line), and the
 * random and planted generators. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "tenport/tenport.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "tests/common/tpt.h"

static char sparse_dir[64];

static void sparse_setup(void) {
  tpt_setup();
  strcpy(sparse_dir, "/tmp/tenport-sparse-XXXXXX");
  cr_assert(mkdtemp(sparse_dir), "mkdtemp: %s", strerror(errno));
}

static void sparse_teardown(void) {
  DIR *dir = opendir(sparse_dir);
  for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", sparse_dir, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      unlink(path);
  }
  if (dir)
    closedir(dir);
  rmdir(sparse_dir);
  tpt_teardown();
}

TestSuite(sparse, .init = sparse_setup, .fini = sparse_teardown);

/* ---- helpers ------------------------------------------------------------------------ */

static const tp_dtype both_dtypes[2] = {TP_DTYPE_F32, TP_DTYPE_F64};

/* A path in the test's directory (one of a few rotating buffers). */
static const char *tmp_path(const char *name) {
  static char paths[4][256];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", sparse_dir, name);
  return p;
}

static const char *write_text(const char *name, const char *text) {
  const char *path = tmp_path(name);
  FILE *f = fopen(path, "wb");
  cr_assert(f, "fopen %s: %s", path, strerror(errno));
  cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
  fclose(f);
  return path;
}

static void write_bytes(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert(f, "fopen %s: %s", path, strerror(errno));
  cr_assert_eq(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

/* The whole file in a malloc'ed buffer. */
static unsigned char *read_bytes(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  cr_assert(f, "fopen %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = tpt_host_alloc(*n + 1);
  cr_assert_eq(fread(b, 1, *n, f), *n);
  fclose(f);
  return b;
}

static void assert_message_has(const char *needle) {
  cr_assert(strstr(tp_last_error(), needle), "message \"%s\" lacks \"%s\"", tp_last_error(),
            needle);
}

static double value_at(const tp_coo *t, int64_t k) {
  return t->dtype == TP_DTYPE_F32 ? (double)((const float *)t->values)[k]
                                  : ((const double *)t->values)[k];
}

static void set_value(tp_coo *t, int64_t k, double v) {
  if (t->dtype == TP_DTYPE_F32)
    ((float *)t->values)[k] = (float)v;
  else
    ((double *)t->values)[k] = v;
}

/* A host tensor of nnz nonzeros with random indices below dims and values in [-1, 1). */
static tp_coo random_tensor(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                            tpt_rng *rng) {
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, dtype, order, dims, nnz, &t));
  for (int m = 0; m < order; ++m)
    for (int64_t k = 0; k < nnz; ++k)
      t.indices[m][k] = tpt_int(rng, 0, dims[m] - 1);
  for (int64_t k = 0; k < nnz; ++k)
    set_value(&t, k, tpt_uniform(rng, -1, 1));
  return t;
}

/* The same, sorted and without duplicates (the form every reader returns). */
static tp_coo canonical_tensor(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                               tpt_rng *rng) {
  tp_coo t = random_tensor(dtype, order, dims, nnz, rng);
  TPT_OK(tp_coo_sum_duplicates(&t, NULL));
  return t;
}

static void assert_same_tensor(const tp_coo *a, const tp_coo *b) {
  cr_assert(a->dtype == b->dtype && a->order == b->order, "dtype or order differ");
  cr_assert_eq(a->nnz, b->nnz, "nnz %lld vs %lld", (long long)a->nnz, (long long)b->nnz);
  for (int m = 0; m < a->order; ++m) {
    cr_assert_eq(a->dims[m], b->dims[m], "dims[%d] %lld vs %lld", m, (long long)a->dims[m],
                 (long long)b->dims[m]);
    cr_assert(memcmp(a->indices[m], b->indices[m], sizeof(int64_t) * (size_t)a->nnz) == 0,
              "indices of mode %d differ", m);
  }
  cr_assert(memcmp(a->values, b->values, tp_dtype_size(a->dtype) * (size_t)a->nnz) == 0,
            "values differ");
}

static int compare_coordinates(const tp_coo *t, int64_t a, int64_t b) {
  for (int m = 0; m < t->order; ++m)
    if (t->indices[m][a] != t->indices[m][b])
      return t->indices[m][a] < t->indices[m][b] ? -1 : 1;
  return 0;
}

static void assert_sorted_unique(const tp_coo *t) {
  for (int64_t k = 1; k < t->nnz; ++k)
    cr_assert(compare_coordinates(t, k - 1, k) < 0, "nonzeros %lld and %lld out of order",
              (long long)k - 1, (long long)k);
}

static tp_coo descriptor(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz) {
  tp_coo t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.order = order;
  memcpy(t.dims, dims, sizeof(int64_t) * (size_t)order);
  t.nnz = nnz;
  return t;
}

/* ---- descriptors -------------------------------------------------------------------- */

Test(sparse, check_accepts_any_order_up_to_16) {
  const int64_t dims[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
  for (int order = 1; order <= 16; ++order) {
    tp_coo t = descriptor(TP_DTYPE_F32, order, dims, 0);
    TPT_OK(tp_coo_check(&t));
    t.nnz = (int64_t)1 << 40; /* array contents are not read */
    TPT_OK(tp_coo_check(&t));
  }
}

Test(sparse, check_names_the_bad_field) {
  const int64_t dims[17] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
  tp_coo t = descriptor(TP_DTYPE_F64, 0, dims, 0);
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("order 0");
  t = descriptor(TP_DTYPE_F64, 16, dims, 0);
  t.order = 17;
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("order 17");
  t = descriptor(TP_DTYPE_F64, 3, dims, 0);
  t.dims[2] = 0;
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("dims[2] = 0");
  t = descriptor(TP_DTYPE_I32, 3, dims, 0);
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("int32");
  t = descriptor(TP_DTYPE_F32, 3, dims, -1);
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("nnz -1");
  TPT_FAILS_WITH(tp_coo_check(NULL), TP_ERROR_INVALID_ARGUMENT);
}

Test(sparse, validate_names_the_offending_nonzero) {
  const int64_t dims[3] = {4, 5, 6};
  tpt_rng rng = tpt_rng_fresh();
  tp_coo t = random_tensor(TP_DTYPE_F64, 3, dims, 10, &rng);
  TPT_OK(tp_coo_validate(&t));
  t.indices[1][7] = 5;
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("nonzero 7, mode 1: index 5");
  t.indices[1][7] = -1;
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("index -1");
  t.indices[1][7] = 0;
  set_value(&t, 3, NAN);
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_NUMERICAL);
  assert_message_has("nonzero 3");
  assert_message_has("NaN");
  set_value(&t, 3, -INFINITY);
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_NUMERICAL);
  assert_message_has("-Inf");
  set_value(&t, 3, 0.5);
  void *values = t.values;
  t.values = NULL;
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("values is NULL");
  t.values = values;
  tp_coo_free(NULL, &t);
}

Test(sparse, norm2_sums_squares_in_double) {
  const int64_t dims[2] = {3, 3};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F32, 2, dims, 3, &t));
  for (int64_t k = 0; k < 3; ++k)
    t.indices[0][k] = k, t.indices[1][k] = 2 - k;
  set_value(&t, 0, 1.5), set_value(&t, 1, -2), set_value(&t, 2, 0.25);
  cr_assert_eq(tp_coo_norm2(&t), 2.25 + 4 + 0.0625);
  tp_coo_free(NULL, &t);
}

/* ---- allocation and copies ------------------------------------------------------------- */

Test(sparse, alloc_and_free_on_the_host) {
  const int64_t dims[5] = {3, 1, 7, 2, 9};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F32, 5, dims, 11, &t));
  cr_assert(t.order == 5 && t.nnz == 11 && t.dtype == TP_DTYPE_F32 && t.values);
  for (int m = 0; m < 5; ++m) {
    cr_assert(t.indices[m] && t.dims[m] == dims[m]);
    memset(t.indices[m], 0, 11 * sizeof(int64_t)); /* the sanitizers check the sizes */
  }
  memset(t.values, 0, 11 * sizeof(float));
  tp_coo_free(NULL, &t);
  cr_assert(t.values == NULL && t.indices[0] == NULL && t.indices[4] == NULL);
  tp_coo_free(NULL, &t); /* twice is harmless */
  tp_coo_free(NULL, NULL);
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 1, dims, 0, &t));
  cr_assert(t.nnz == 0 && t.indices[0] && t.values, "no nonzeros still gives arrays");
  tp_coo_free(NULL, &t);
  memset(&t, 0x5a, sizeof t);
  TPT_FAILS_WITH(tp_coo_alloc(NULL, TP_DTYPE_F64, 17, dims, 1, &t), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(t.values == NULL && t.order == 0, "a failed allocation leaves the descriptor zeroed");
  TPT_FAILS_WITH(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, -3, &t), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, INT64_MAX / 2, &t), TP_ERROR_OVERFLOW);
}

Test(sparse, copies_to_the_space_and_back) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {7, 3, 11, 5};
  size_t before = tp_space_bytes_in_use(tpt_space);
  for (int d = 0; d < 2; ++d) {
    tp_coo h = random_tensor(both_dtypes[d], 4, dims, 97, &rng), s, back;
    TPT_OK(tp_coo_copy_to_device(tpt_space, &s, &h));
    cr_assert(s.nnz == 97 && s.order == 4 && s.dtype == h.dtype && s.dims[2] == 11);
    cr_assert(tp_space_bytes_in_use(tpt_space) >=
              before + 97 * (4 * sizeof(int64_t) + tp_dtype_size(h.dtype)));
    TPT_OK(tp_coo_copy_to_host(tpt_space, &back, &s));
    assert_same_tensor(&h, &back);
    tp_coo_free(tpt_space, &s);
    cr_assert(s.values == NULL && s.indices[0] == NULL);
    tp_coo_free(NULL, &back);
    tp_coo_free(NULL, &h);
  }
  tp_coo empty, s;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, 0, &empty));
  TPT_OK(tp_coo_copy_to_device(tpt_space, &s, &empty));
  cr_assert_eq(s.nnz, 0);
  tp_coo_free(tpt_space, &s);
  tp_coo_free(NULL, &empty);
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), before, "the space's memory was not returned");
}

Test(sparse, copies_reject_bad_sources) {
  const int64_t dims[2] = {4, 4};
  tp_coo h = descriptor(TP_DTYPE_F64, 2, dims, 5), s;
  TPT_FAILS_WITH(tp_coo_copy_to_device(tpt_space, &s, &h), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("indices[0] is NULL");
  cr_assert_null(s.values);
  h.order = 0;
  TPT_FAILS_WITH(tp_coo_copy_to_device(tpt_space, &s, &h), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_coo_copy_to_host(tpt_space, &h, &h), TP_ERROR_INVALID_ARGUMENT);
}

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

Test(sparse, sum_duplicates_matches_a_naive_reference) {
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
Test(sparse, sum_duplicates_with_dims_beyond_64_bits) {
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
Test(sparse, sum_duplicates_of_many_nonzeros) {
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
Test(sparse, radix_sort_is_stable_on_large_inputs) {
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

Test(sparse, sum_duplicates_keeps_a_sorted_tensor_and_rejects_bad_indices) {
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

/* ---- .tns round trips ------------------------------------------------------------------ */

Test(sparse, tns_round_trip_in_both_precisions_and_1_to_6_modes) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[6] = {13, 1, 7, 300, 2, 5};
  const char *path = tmp_path("round.tns");
  for (int d = 0; d < 2; ++d)
    for (int order = 1; order <= 6; ++order) {
      tp_coo t = canonical_tensor(both_dtypes[d], order, dims, 150, &rng), back;
      set_value(&t, 0, 1e-30), set_value(&t, t.nnz - 1, -3.4e37); /* extremes print exactly */
      TPT_OK(tp_coo_write_tns(path, &t));
      tp_coo_read_info info;
      TPT_OK(tp_coo_read_tns(path, both_dtypes[d], order, dims, &back, &info));
      assert_same_tensor(&t, &back);
      cr_assert(info.lines == t.nnz && info.duplicates == 0);
      tp_coo_free(NULL, &back);
      TPT_OK(tp_coo_read(path, both_dtypes[d], &back, NULL)); /* order and dims inferred */
      for (int m = 0; m < order; ++m) {
        int64_t top = 0;
        for (int64_t k = 0; k < t.nnz; ++k)
          top = t.indices[m][k] > top ? t.indices[m][k] : top;
        cr_assert_eq(back.dims[m], top + 1, "inferred dims[%d]", m);
        back.dims[m] = dims[m];
      }
      assert_same_tensor(&t, &back);
      tp_coo_free(NULL, &back);
      tp_coo_free(NULL, &t);
    }
}

Test(sparse, tns_reads_comments_blanks_and_spacing) {
  const char *path = write_text("c.tns", "# a FROSTT file\n"
                                         "\n"
                                         "  1 2\t0.5   # first\n"
                                         "   \t\r\n"
                                         "#\n"
                                         "3 1 -2.5e-1\r\n"
                                         "2\t2 +7\n"
                                         "1 1 .25# no blank before the comment\n"
                                         "3 2 1e2");
  tp_coo t;
  tp_coo_read_info info;
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F64, 0, NULL, &t, &info));
  cr_assert_eq(info.lines, 9);
  cr_assert(t.order == 2 && t.nnz == 5 && t.dims[0] == 3 && t.dims[1] == 2);
  const int64_t i0[5] = {0, 0, 1, 2, 2}, i1[5] = {0, 1, 1, 0, 1};
  const double v[5] = {0.25, 0.5, 7, -0.25, 100};
  for (int k = 0; k < 5; ++k)
    cr_assert(t.indices[0][k] == i0[k] && t.indices[1][k] == i1[k] && value_at(&t, k) == v[k],
              "nonzero %d", k);
  tp_coo_free(NULL, &t);
}

Test(sparse, tns_dims_given_or_inferred) {
  const char *path = write_text("d.tns", "1 4 1\n3 2 2\n");
  tp_coo t;
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F32, 0, NULL, &t, NULL));
  cr_assert(t.dims[0] == 3 && t.dims[1] == 4);
  tp_coo_free(NULL, &t);
  const int64_t given[2] = {10, 20}, small[2] = {3, 3};
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F32, 2, given, &t, NULL));
  cr_assert(t.dims[0] == 10 && t.dims[1] == 20 && t.nnz == 2);
  tp_coo_free(NULL, &t);
  TPT_FAILS_WITH(tp_coo_read_tns(path, TP_DTYPE_F32, 2, small, &t, NULL), TP_ERROR_FORMAT);
  assert_message_has("line 1");
  assert_message_has("beyond the dimension 3");
  cr_assert(t.values == NULL && t.nnz == 0, "a failed read leaves the tensor zeroed");
  TPT_FAILS_WITH(tp_coo_read_tns(path, TP_DTYPE_F32, 0, given, &t, NULL),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_coo_read_tns(path, TP_DTYPE_I32, 0, NULL, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
}

Test(sparse, tns_empty_files_need_dims) {
  const char *names[3] = {"e0.tns", "e1.tns", "e2.tns"};
  const char *texts[3] = {"", "# only a comment\n\n", "   \n\t\n"};
  const int64_t dims[3] = {4, 5, 6};
  for (int i = 0; i < 3; ++i) {
    const char *path = write_text(names[i], texts[i]);
    tp_coo t;
    TPT_FAILS_WITH(tp_coo_read_tns(path, TP_DTYPE_F64, 0, NULL, &t, NULL), TP_ERROR_FORMAT);
    assert_message_has("no nonzeros and no dims");
    assert_message_has(names[i]);
    TPT_FAILS_WITH(tp_coo_read_tns(path, TP_DTYPE_F64, 3, NULL, &t, NULL), TP_ERROR_FORMAT);
    TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F64, 3, dims, &t, NULL));
    cr_assert(t.nnz == 0 && t.order == 3 && t.dims[2] == 6 && t.values);
    tp_coo_free(NULL, &t);
  }
}

Test(sparse, tns_sums_duplicates_and_counts_them) {
  const char *path = write_text("dup.tns", "2 2 1\n1 1 0.5\n2 2 2\n2 2 4\n1 1 0.25\n1 2 3\n");
  tp_coo t;
  tp_coo_read_info info;
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F32, 2, NULL, &t, &info));
  cr_assert_eq(info.duplicates, 3);
  cr_assert_eq(t.nnz, 3);
  cr_assert(value_at(&t, 0) == 0.75 && value_at(&t, 1) == 3 && value_at(&t, 2) == 7);
  tp_coo_free(NULL, &t);
  path = write_text("big.tns", "1 1 3e38\n1 1 3e38\n");
  TPT_FAILS_WITH(tp_coo_read_tns(path, TP_DTYPE_F32, 0, NULL, &t, NULL), TP_ERROR_FORMAT);
  assert_message_has("float32 range");
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F64, 0, NULL, &t, NULL));
  cr_assert_eq(value_at(&t, 0), 6e38);
  tp_coo_free(NULL, &t);
  /* found by fuzzing: float64 sums can overflow too */
  path = write_text("huge.tns", "1 2 1e308\n1 2 1e308\n");
  TPT_FAILS_WITH(tp_coo_read_tns(path, TP_DTYPE_F64, 0, NULL, &t, NULL), TP_ERROR_FORMAT);
  assert_message_has("float64 range");
}

/* Values read from text equal strtod's (float64) and strtof's (float32), for random
 * decimals of every length, exponent and sign, and float32 midpoints spelled exactly. */
Test(sparse, tns_values_match_strtod_and_strtof) {
  tpt_rng rng = tpt_rng_fresh();
  enum { N = 20000 };
  char *text = tpt_host_alloc((size_t)N * 64), *values[N];
  size_t n = 0;
  for (int k = 0; k < N; ++k) {
    n += (size_t)sprintf(text + n, "%d ", k + 1);
    values[k] = text + n;
    if (k < 6) { /* decimals whose nearest double is a float32 midpoint they are not */
      static const char *near_midpoints[6] = {"7175046050633682e-22", "8411477412361011e1",
                                              "8411477412361012e1",   "4283572196960449e-14",
                                              "5642132135108113e-18", "8754791407226873e4"};
      n += (size_t)sprintf(text + n, "%s\n", near_midpoints[k]);
      continue;
    }
    if (k % 4 == 0) { /* a float32 midpoint: (2f + 1) * 2^(e - 1), printed exactly */
      double mid = ((double)tpt_int(&rng, 1 << 23, (1 << 24) - 1) * 2 + 1) *
                   ldexp(1.0, (int)tpt_int(&rng, -40, 40) - 24);
      n += (size_t)sprintf(text + n, "%.40g\n", mid);
      continue;
    }
    int digits = (int)tpt_int(&rng, 1, 20), point = (int)tpt_int(&rng, 0, digits);
    if (tpt_int(&rng, 0, 1))
      text[n++] = '-';
    for (int d = 0; d < digits; ++d) {
      if (d == point && d > 0)
        text[n++] = '.';
      text[n++] = (char)('0' + tpt_int(&rng, d == 0, 9));
    }
    int int_digits = point > 0 ? point : digits; /* below 10^38 in all */
    n += (size_t)sprintf(text + n, "e%d\n", (int)tpt_int(&rng, -40, 37 - int_digits));
  }
  for (int d = 0; d < 2; ++d) {
    tp_coo t;
    TPT_OK(tpi_coo_read_tns_buffer("values", text, n, 0, both_dtypes[d], 1, NULL, &t, NULL));
    cr_assert_eq(t.nnz, N);
    for (int k = 0; k < N; ++k) {
      double want = d ? strtod(values[k], NULL) : (double)strtof(values[k], NULL);
      cr_assert_eq(value_at(&t, k), want, "%s: '%.*s' read as %.17g, expected %.17g",
                   tp_dtype_name(both_dtypes[d]), (int)strcspn(values[k], "\n"), values[k],
                   value_at(&t, k), want);
    }
    tp_coo_free(NULL, &t);
  }
  free(text);
}

/* ---- malformed .tns files ----------------------------------------------------------------- */

typedef struct bad_text {
  const char *text;
  int order; /* given order, or 0 */
  const int64_t *dims;
  tp_dtype dtype;
  const char *line;   /* "line N" the message must name */
  const char *detail; /* and this */
} bad_text;

static const int64_t three_by_three[2] = {3, 3};

static const bad_text bad_texts[] = {
    {"1 1 1.0\n1 2\n", 0, NULL, TP_DTYPE_F64, "line 2", "2 fields, expected 3"},
    {"1 1 1.0\n\n1 2 3 4.0\n", 0, NULL, TP_DTYPE_F64, "line 3", "4 fields, expected 3"},
    {"1 1 1.0\n1 x 2.0\n", 0, NULL, TP_DTYPE_F64, "line 2", "'x' of mode 1"},
    {"1 1 1.0\n1 2.5 2.0\n", 0, NULL, TP_DTYPE_F64, "line 2", "not an integer"},
    {"1 1 abc\n", 0, NULL, TP_DTYPE_F64, "line 1", "'abc' (field 3) is not a number"},
    {"1 1 2.0x\n", 0, NULL, TP_DTYPE_F64, "line 1", "not a number"},
    {"1 1 1\n2 2 1e\n", 0, NULL, TP_DTYPE_F64, "line 2", "not a number"},
    {"1 -2 1.0\n", 0, NULL, TP_DTYPE_F64, "line 1", "negative"},
    {"# c\n1 5 1.0\n", 2, three_by_three, TP_DTYPE_F64, "line 2", "beyond the dimension 3"},
    {"1 1 nan\n", 0, NULL, TP_DTYPE_F64, "line 1", "'nan' (field 3) is not finite"},
    {"1 1 1\n1 2 inf\n", 0, NULL, TP_DTYPE_F32, "line 2", "not finite"},
    {"1 1 -Infinity\n", 0, NULL, TP_DTYPE_F64, "line 1", "not finite"},
    {"1 1 1e400\n", 0, NULL, TP_DTYPE_F64, "line 1", "overflows float64"},
    {"1 1 1e39\n", 0, NULL, TP_DTYPE_F32, "line 1", "overflows float32"},
    {"99999999999999999999 1 1.0\n", 0, NULL, TP_DTYPE_F64, "line 1", "64-bit"},
    {"1 9223372036854775808 1.0\n", 0, NULL, TP_DTYPE_F64, "line 1", "64-bit"},
    {"\n\n5\n", 0, NULL, TP_DTYPE_F64, "line 3", "1 field"},
    {"1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1.0\n", 0, NULL, TP_DTYPE_F64, "line 1", "at most 16"},
    {"1 1 1.0\n", 3, NULL, TP_DTYPE_F64, "line 1", "3 fields, expected 4"},
    {"1 1 1.0 extra\n", 2, NULL, TP_DTYPE_F64, "line 1", "4 fields, expected 3"},
    {"1 1 1.0\n1,2 1.0\n", 0, NULL, TP_DTYPE_F64, "line 2", "2 fields, expected 3"},
    {"1 1 1.0\n2 2 3 2\n", 2, NULL, TP_DTYPE_F64, "line 2", "4 fields, expected 3"},
};

Test(sparse, tns_malformed_lines_name_the_file_and_line) {
  for (size_t i = 0; i < sizeof bad_texts / sizeof bad_texts[0]; ++i) {
    const bad_text *b = &bad_texts[i];
    const char *path = write_text("bad.tns", b->text);
    tp_coo t;
    tp_clear_error();
    tp_status st = tp_coo_read_tns(path, b->dtype, b->order, b->dims, &t, NULL);
    cr_assert_eq(st, TP_ERROR_FORMAT, "case %zu (%s): %s", i, tp_status_name(st), tp_last_error());
    cr_assert(strstr(tp_last_error(), b->line) && strstr(tp_last_error(), b->detail) &&
                  strstr(tp_last_error(), "bad.tns"),
              "case %zu: message \"%s\" lacks \"%s\" or \"%s\"", i, tp_last_error(), b->line,
              b->detail);
    cr_assert(t.values == NULL && t.indices[0] == NULL && t.nnz == 0, "case %zu", i);
  }
}

Test(sparse, tns_rejects_bytes_that_are_not_text) {
  const char text[] = "1 1 1.0\n1 1\0 2.0\n";
  tp_coo t;
  TPT_FAILS_WITH(
      tpi_coo_read_tns_buffer("nul.tns", text, sizeof text - 1, 0, TP_DTYPE_F64, 0, NULL, &t, NULL),
      TP_ERROR_FORMAT);
  assert_message_has("nul.tns, line 2");
  const char *path = tmp_path("missing.tns");
  TPT_FAILS_WITH(tp_coo_read_tns(path, TP_DTYPE_F64, 0, NULL, &t, NULL), TP_ERROR_IO);
  assert_message_has("missing.tns");
  TPT_FAILS_WITH(tp_coo_read(path, TP_DTYPE_F64, &t, NULL), TP_ERROR_IO);
}

/* Reading through buffers of a few bytes crosses chunk boundaries inside every field. */
Test(sparse, tns_chunk_boundaries_do_not_matter) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {40, 1000003, 7};
  tp_coo t = canonical_tensor(TP_DTYPE_F64, 3, dims, 60, &rng);
  const char *path = tmp_path("chunks.tns");
  TPT_OK(tp_coo_write_tns(path, &t));
  size_t n;
  unsigned char *text = read_bytes(path, &n);
  const size_t chunks[6] = {1, 2, 3, 7, 64, 1 << 20};
  for (int c = 0; c < 6; ++c) {
    tp_coo back;
    TPT_OK(
        tpi_coo_read_tns_buffer("chunks", text, n, chunks[c], TP_DTYPE_F64, 3, dims, &back, NULL));
    assert_same_tensor(&t, &back);
    tp_coo_free(NULL, &back);
  }
  size_t last = n - 1;
  while (text[last - 1] != '\n')
    --last;
  text[last] = '@'; /* the first byte of the last line */
  for (int c = 0; c < 6; ++c) {
    tp_coo back;
    TPT_FAILS_WITH(
        tpi_coo_read_tns_buffer("chunks", text, n, chunks[c], TP_DTYPE_F64, 3, dims, &back, NULL),
        TP_ERROR_FORMAT);
    char line[32];
    snprintf(line, sizeof line, "line %lld:", (long long)t.nnz);
    assert_message_has(line);
  }
  free(text);
  tp_coo_free(NULL, &t);
}

/* Over a megabyte of lines: parsed in parallel pieces once the order is known (given,
 * or after the first chunk); the tensor and the line of the first error are the same. */
Test(sparse, tns_parallel_pieces_give_the_same_tensor_and_lines) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t lines = 250000, dims[3] = {50, 60, 70};
  size_t cap = (size_t)lines * 40 + 1;
  char *text = tpt_host_alloc(cap), *bad = tpt_host_alloc(cap);
  size_t n = 0, at_bad[2] = {0, 0};
  for (int64_t l = 1; l <= lines; ++l) {
    if (l == 177777 || l == 240000)
      at_bad[l == 240000] = n;
    n += (size_t)sprintf(text + n, "%lld %lld %lld %d\n", (long long)tpt_int(&rng, 1, dims[0]),
                         (long long)tpt_int(&rng, 1, dims[1]), (long long)tpt_int(&rng, 1, dims[2]),
                         (int)tpt_int(&rng, -9, 9));
  }
  cr_assert_gt(n, (size_t)5 << 19);
  tp_coo ref, t;
  tp_coo_read_info info;
  TPT_OK(tpi_coo_read_tns_buffer("big", text, n, 0, TP_DTYPE_F64, 0, NULL, &ref, NULL));
  TPT_OK(tpi_coo_read_tns_buffer("big", text, n, 0, TP_DTYPE_F64, 3, dims, &t, &info));
  cr_assert_eq(info.lines, lines);
  assert_same_tensor(&ref, &t);
  tp_coo_free(NULL, &t);
  TPT_OK(tpi_coo_read_tns_buffer("big", text, n, (3 << 19) + 7, TP_DTYPE_F64, 0, NULL, &t, &info));
  cr_assert_eq(info.lines, lines);
  assert_same_tensor(&ref, &t);
  tp_coo_free(NULL, &t);
  memcpy(bad, text, n);
  bad[at_bad[0]] = 'x', bad[at_bad[1]] = 'x';
  TPT_FAILS_WITH(tpi_coo_read_tns_buffer("big", bad, n, 0, TP_DTYPE_F64, 3, dims, &t, NULL),
                 TP_ERROR_FORMAT);
  assert_message_has("big, line 177777:");
  TPT_FAILS_WITH(
      tpi_coo_read_tns_buffer("big", bad, n, (3 << 19) + 7, TP_DTYPE_F64, 0, NULL, &t, NULL),
      TP_ERROR_FORMAT);
  assert_message_has("big, line 177777:");
  tp_coo_free(NULL, &ref);
  free(text), free(bad);
}

Test(sparse, writers_reject_invalid_tensors_and_paths) {
  const int64_t dims[2] = {3, 3};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, 1, &t));
  t.indices[0][0] = 1, t.indices[1][0] = 2;
  set_value(&t, 0, NAN);
  TPT_FAILS_WITH(tp_coo_write_tns(tmp_path("nan.tns"), &t), TP_ERROR_NUMERICAL);
  TPT_FAILS_WITH(tp_coo_write_binary(tmp_path("nan.tpb"), &t), TP_ERROR_NUMERICAL);
  cr_assert(access(tmp_path("nan.tns"), F_OK) != 0, "nothing is written");
  set_value(&t, 0, 1);
  TPT_FAILS_WITH(tp_coo_write_tns("/nonexistent-dir/x.tns", &t), TP_ERROR_IO);
  assert_message_has("/nonexistent-dir/x.tns");
  TPT_FAILS_WITH(tp_coo_write_binary("/nonexistent-dir/x.tpb", &t), TP_ERROR_IO);
  tp_coo_free(NULL, &t);
}

/* ---- binary files --------------------------------------------------------------------------- */

static uint32_t header_u32(const unsigned char *b, int at) {
  return (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16 |
         (uint32_t)b[at + 3] << 24;
}

Test(sparse, binary_round_trip_with_index_widths_4_and_8) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t narrow[6] = {13, 1, 7, 4294967295LL, 2, 5};
  const int64_t wide[6] = {13, 1, 7, 4294967296LL, 2, (int64_t)1 << 62};
  const char *path = tmp_path("round.tpb");
  for (int w = 0; w < 2; ++w)
    for (int d = 0; d < 2; ++d)
      for (int order = 1; order <= 6; ++order) {
        const int64_t *dims = w ? wide : narrow;
        tp_coo t = canonical_tensor(both_dtypes[d], order, dims, 120, &rng), back;
        TPT_OK(tp_coo_write_binary(path, &t));
        size_t n;
        unsigned char *b = read_bytes(path, &n);
        uint32_t iw = header_u32(b, 12), vw = header_u32(b, 16);
        cr_assert(memcmp(b, "TPCOO\0\0\1", 8) == 0 && header_u32(b, 8) == 1);
        cr_assert_eq(iw, (w && order >= 4) ? 8u : 4u, "order %d: index width %u", order, iw);
        cr_assert_eq(vw, (uint32_t)tp_dtype_size(both_dtypes[d]));
        cr_assert_eq(n, 32 + 8 * (size_t)order + (size_t)t.nnz * (order * iw + vw));
        free(b);
        TPT_OK(tp_coo_read_binary(path, both_dtypes[d], &back));
        assert_same_tensor(&t, &back);
        tp_coo_free(NULL, &back);
        tp_coo_read_info info;
        TPT_OK(tp_coo_read(path, both_dtypes[d], &back, &info));
        assert_same_tensor(&t, &back);
        cr_assert(info.lines == 0 && info.duplicates == 0);
        tp_coo_free(NULL, &back);
        tp_coo_free(NULL, &t);
      }
}

Test(sparse, binary_converts_precision_and_keeps_empty_tensors) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {6, 5, 4};
  tp_coo t = canonical_tensor(TP_DTYPE_F32, 3, dims, 40, &rng), back;
  const char *path = tmp_path("p.tpb");
  TPT_OK(tp_coo_write_binary(path, &t));
  TPT_OK(tp_coo_read_binary(path, TP_DTYPE_F64, &back));
  cr_assert(back.dtype == TP_DTYPE_F64 && back.nnz == t.nnz);
  for (int64_t k = 0; k < t.nnz; ++k)
    cr_assert_eq(value_at(&back, k), value_at(&t, k));
  tp_coo_free(NULL, &back);
  tp_coo_free(NULL, &t);
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, 0, &t));
  TPT_OK(tp_coo_write_binary(path, &t));
  TPT_OK(tp_coo_read_binary(path, TP_DTYPE_F64, &back));
  cr_assert(back.nnz == 0 && back.order == 3 && back.dims[1] == 5 && back.values);
  tp_coo_free(NULL, &back);
  tp_coo_free(NULL, &t);
}

/* A valid 2-mode float64 file of 2 nonzeros to corrupt. */
static unsigned char *valid_binary(size_t *n) {
  const int64_t dims[2] = {4, 3};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, 2, &t));
  t.indices[0][0] = 1, t.indices[1][0] = 2, t.indices[0][1] = 3, t.indices[1][1] = 0;
  set_value(&t, 0, 1.5), set_value(&t, 1, -2);
  const char *path = tmp_path("valid.tpb");
  TPT_OK(tp_coo_write_binary(path, &t));
  tp_coo_free(NULL, &t);
  unsigned char *b = read_bytes(path, n);
  cr_assert_eq(*n, 32 + 16 + 2 * (2 * 4 + 8));
  return b;
}

static void put32(unsigned char *b, int at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[at + i] = (unsigned char)(v >> 8 * i);
}

static void put64(unsigned char *b, int at, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[at + i] = (unsigned char)(v >> 8 * i);
}

/* Writes the n bytes and expects tp_coo_read_binary to fail with status and a message
 * holding needle. */
static void expect_binary_error(const unsigned char *b, size_t n, tp_dtype dtype, tp_status status,
                                const char *needle) {
  const char *path = tmp_path("bad.tpb");
  write_bytes(path, b, n);
  tp_coo t;
  TPT_FAILS_WITH(tp_coo_read_binary(path, dtype, &t), status);
  assert_message_has(needle);
  assert_message_has("bad.tpb");
  cr_assert(t.values == NULL && t.nnz == 0);
  tp_coo_read_info info;
  TPT_FAILS_WITH(tpi_coo_read_binary_buffer("bad.tpb", b, n, dtype, &t, &info), status);
  assert_message_has(needle);
}

Test(sparse, binary_rejects_corrupt_headers_before_allocating) {
  size_t n;
  unsigned char *b = valid_binary(&n), *c = tpt_host_alloc(n + 8);
  memcpy(c, b, n), c[0] = 'X';
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "bad magic");
  expect_binary_error(b, 5, TP_DTYPE_F64, TP_ERROR_FORMAT, "truncated header");
  expect_binary_error(b, 20, TP_DTYPE_F64, TP_ERROR_FORMAT, "truncated header");
  expect_binary_error(b, 40, TP_DTYPE_F64, TP_ERROR_FORMAT, "truncated header");
  memcpy(c, b, n), put32(c, 8, 2);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "unsupported version");
  memcpy(c, b, n), put32(c, 12, 3);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "index width");
  memcpy(c, b, n), put32(c, 16, 2);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "value width");
  memcpy(c, b, n), put32(c, 20, 0);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "order");
  memcpy(c, b, n), put32(c, 20, 17);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "order");
  memcpy(c, b, n), put64(c, 40, 0);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "dims[1] = 0");
  memcpy(c, b, n), put64(c, 24, (uint64_t)1 << 59); /* a huge nnz: no allocation is tried */
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "truncated");
  memcpy(c, b, n), put64(c, 24, UINT64_MAX / 2);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "too large");
  memcpy(c, b, n), put64(c, 24, UINT64_MAX);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "int64");
  expect_binary_error(b, n - 1, TP_DTYPE_F64, TP_ERROR_FORMAT, "truncated");
  memcpy(c, b, n), memset(c + n, 0, 8);
  expect_binary_error(c, n + 8, TP_DTYPE_F64, TP_ERROR_FORMAT, "bytes after the data");
  free(c);
  free(b);
}

Test(sparse, binary_rejects_bad_indices_and_values) {
  size_t n;
  unsigned char *b = valid_binary(&n), *c = tpt_host_alloc(n);
  memcpy(c, b, n), put32(c, 48 + 4, 4); /* mode 0, nonzero 1: index 4 of dim 4 */
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "nonzero 1, mode 0: index 4");
  memcpy(c, b, n), put32(c, 48 + 8, 0xffffffffu); /* mode 1, nonzero 0 */
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "nonzero 0, mode 1");
  double nan_value = NAN, huge = 1e300;
  uint64_t bits;
  memcpy(&bits, &nan_value, 8);
  memcpy(c, b, n), put64(c, 48 + 16 + 8, bits);
  expect_binary_error(c, n, TP_DTYPE_F64, TP_ERROR_FORMAT, "nonzero 1: value nan is not finite");
  memcpy(&bits, &huge, 8);
  memcpy(c, b, n), put64(c, 48 + 16, bits);
  expect_binary_error(c, n, TP_DTYPE_F32, TP_ERROR_FORMAT, "overflows float32");
  const char *path = tmp_path("ok.tpb");
  write_bytes(path, c, n);
  tp_coo t;
  TPT_OK(tp_coo_read_binary(path, TP_DTYPE_F64, &t)); /* fine in float64 */
  cr_assert_eq(value_at(&t, 0), 1e300);
  tp_coo_free(NULL, &t);
  TPT_FAILS_WITH(tp_coo_read_binary(write_text("t.tns", "1 1 1\n"), TP_DTYPE_F64, &t),
                 TP_ERROR_FORMAT);
  assert_message_has("bad magic");
  free(c);
  free(b);
}

Test(sparse, binary_files_with_duplicates_are_merged) {
  size_t n;
  unsigned char *b = valid_binary(&n);
  put32(b, 48 + 4, 1), put32(b, 48 + 12, 2); /* nonzero 1 = nonzero 0 = (1, 2) */
  tp_coo t;
  tp_coo_read_info info;
  TPT_OK(tpi_coo_read_buffer("dup.tpb", b, n, TP_DTYPE_F64, &t, &info));
  cr_assert(t.nnz == 1 && info.duplicates == 1 && value_at(&t, 0) == -0.5);
  tp_coo_free(NULL, &t);
  free(b);
}

/* ---- the random generator ------------------------------------------------------------------ */

static tp_coo_random_options random_options(tp_dtype dtype, int order, const int64_t *dims,
                                            int64_t nnz, uint64_t seed) {
  tp_coo_random_options o;
  memset(&o, 0, sizeof o);
  o.dtype = dtype, o.order = order, o.nnz = nnz, o.seed = seed;
  memcpy(o.dims, dims, sizeof(int64_t) * (size_t)order);
  o.values = TP_COO_VALUES_UNIFORM;
  return o;
}

Test(sparse, random_is_reproducible_and_seeds_differ) {
  const int64_t dims[4] = {30, 20, 10, 7};
  for (int d = 0; d < 2; ++d) {
    tp_coo_random_options o = random_options(both_dtypes[d], 4, dims, 5000, 42);
    o.skew[0] = 2;
    tp_coo a, b, c;
    int64_t merged;
    TPT_OK(tp_coo_random(&o, &a, &merged));
    cr_assert(merged > 0 && a.nnz + merged == 5000, "merged %lld", (long long)merged);
    TPT_OK(tp_coo_validate(&a));
    assert_sorted_unique(&a);
    TPT_OK(tp_coo_random(&o, &b, NULL));
    assert_same_tensor(&a, &b);
    o.seed = 43;
    TPT_OK(tp_coo_random(&o, &c, NULL));
    int differ = a.nnz != c.nnz;
    for (int64_t k = 0; k < a.nnz && !differ; ++k)
      differ = a.indices[0][k] != c.indices[0][k] || value_at(&a, k) != value_at(&c, k);
    cr_assert(differ, "seeds 42 and 43 gave the same tensor");
    tp_coo_free(NULL, &a), tp_coo_free(NULL, &b), tp_coo_free(NULL, &c);
  }
}

/* Uniform indices and values involve no library maths: the same on every platform. */
Test(sparse, random_values_are_pinned) {
  const int64_t dims[3] = {7, 11, 1000003};
  const struct {
    int64_t i, j, k;
    double v;
  } want[4] = {{3, 8, 90222, 0x1.efac999b3906p-3},
               {4, 4, 201769, 0x1.9722aec462ae7p-1},
               {6, 2, 490518, 0x1.8ce6fa129f0c8p-2},
               {6, 7, 140661, 0x1.8fa7b6f9fcd28p-3}};
  tp_coo_random_options o = random_options(TP_DTYPE_F64, 3, dims, 4, 2026);
  tp_coo t;
  TPT_OK(tp_coo_random(&o, &t, NULL));
  cr_assert_eq(t.nnz, 4);
  for (int k = 0; k < 4; ++k)
    cr_assert(t.indices[0][k] == want[k].i && t.indices[1][k] == want[k].j &&
                  t.indices[2][k] == want[k].k && value_at(&t, k) == want[k].v,
              "nonzero %d: (%lld, %lld, %lld) %a", k, (long long)t.indices[0][k],
              (long long)t.indices[1][k], (long long)t.indices[2][k], value_at(&t, k));
  tp_coo_free(NULL, &t);
}

/* Generation, the radix sort's blocks and the text reader's pieces are cut the same
 * way whatever the thread count. */
Test(sparse, thread_count_does_not_change_the_results) {
  const int64_t dims[3] = {300, 200, 100};
  tp_coo_random_options o = random_options(TP_DTYPE_F32, 3, dims, 1200000, 9);
  o.skew[0] = 3, o.values = TP_COO_VALUES_PARETO, o.alpha = 1.1;
  tp_coo a, b, ta, tb;
  const char *path = tmp_path("threads.tns");
#ifdef _OPENMP
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  TPT_OK(tp_coo_random(&o, &a, NULL));
  TPT_OK(tp_coo_write_tns(path, &a));
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F32, 3, dims, &ta, NULL));
#ifdef _OPENMP
  omp_set_num_threads(threads > 1 ? threads : 4);
#endif
  TPT_OK(tp_coo_random(&o, &b, NULL));
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F32, 3, dims, &tb, NULL));
  assert_same_tensor(&a, &b);
  assert_same_tensor(&a, &ta);
  assert_same_tensor(&a, &tb);
  tp_coo_free(NULL, &a), tp_coo_free(NULL, &b), tp_coo_free(NULL, &ta), tp_coo_free(NULL, &tb);
}

/* Share of the nonzeros in the 10% most populated slices of mode m. */
static double top_decile_share(const tp_coo *t, int m) {
  int64_t *count = tpt_host_alloc(sizeof(int64_t) * (size_t)t->dims[m]);
  memset(count, 0, sizeof(int64_t) * (size_t)t->dims[m]);
  for (int64_t k = 0; k < t->nnz; ++k)
    ++count[t->indices[m][k]];
  int64_t top = 0, slices = t->dims[m] / 10;
  for (int64_t s = 0; s < slices; ++s) { /* selection of the largest counts */
    int64_t best = 0;
    for (int64_t i = 1; i < t->dims[m]; ++i)
      best = count[i] > count[best] ? i : best;
    top += count[best];
    count[best] = -1;
  }
  free(count);
  return (double)top / (double)t->nnz;
}

Test(sparse, skew_concentrates_nonzeros_in_few_slices) {
  const int64_t dims[3] = {1000, 1000, 1000};
  tp_coo_random_options o = random_options(TP_DTYPE_F64, 3, dims, 20000, 7);
  o.skew[0] = 4; /* P(index < 100) = 0.1^(1/4) = 0.56 */
  tp_coo t;
  TPT_OK(tp_coo_random(&o, &t, NULL));
  double skewed = top_decile_share(&t, 0), plain = top_decile_share(&t, 1);
  cr_assert(skewed > 0.5, "skew 4: the top 10%% of slices hold %.3f of the nonzeros", skewed);
  cr_assert(plain < 0.2, "skew 1: the top 10%% of slices hold %.3f of the nonzeros", plain);
  tp_coo_free(NULL, &t);
}

Test(sparse, pareto_and_binary_values) {
  const int64_t dims[3] = {8, 9, 10};
  tp_coo_random_options o = random_options(TP_DTYPE_F32, 3, dims, 3000, 5);
  o.values = TP_COO_VALUES_PARETO, o.alpha = 0.7;
  tp_coo t;
  int64_t merged;
  TPT_OK(tp_coo_random(&o, &t, &merged));
  cr_assert_gt(merged, 0);
  for (int64_t k = 0; k < t.nnz; ++k)
    cr_assert(value_at(&t, k) >= 1 && isfinite(value_at(&t, k)), "value %g", value_at(&t, k));
  tp_coo_free(NULL, &t);
  o.values = TP_COO_VALUES_ONES;
  TPT_OK(tp_coo_random(&o, &t, &merged));
  cr_assert_gt(merged, 0, "duplicates were drawn");
  for (int64_t k = 0; k < t.nnz; ++k)
    cr_assert_eq(value_at(&t, k), 1.0);
  tp_coo_free(NULL, &t);
  o.values = TP_COO_VALUES_UNIFORM, o.nnz = 50, o.dims[0] = 1000; /* few duplicates */
  TPT_OK(tp_coo_random(&o, &t, &merged));
  for (int64_t k = 0; k < t.nnz; ++k)
    cr_assert(value_at(&t, k) >= 0 && value_at(&t, k) < (merged ? 2 : 1));
  tp_coo_free(NULL, &t);
}

Test(sparse, random_rejects_bad_options) {
  const int64_t dims[2] = {5, 5};
  tp_coo t;
  tp_coo_random_options o = random_options(TP_DTYPE_F64, 2, dims, 10, 1);
  o.order = 0;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  o = random_options(TP_DTYPE_F64, 2, dims, -1, 1);
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("nnz -1");
  o = random_options(TP_DTYPE_F64, 2, dims, 10, 1);
  o.skew[1] = -1;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("skew[1]");
  o.skew[1] = NAN;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  o.skew[1] = 0, o.values = TP_COO_VALUES_PARETO, o.alpha = 0;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("alpha");
  o.values = (tp_coo_values)9;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(t.values == NULL);
  o = random_options(TP_DTYPE_F64, 2, dims, 0, 1);
  TPT_OK(tp_coo_random(&o, &t, NULL));
  cr_assert_eq(t.nnz, 0);
  tp_coo_free(NULL, &t);
}

/* ---- the planted generator ------------------------------------------------------------------- */

static double kruskal_at(const tp_kruskal *u, const int64_t *idx) {
  double s = 0;
  for (int64_t r = 0; r < u->rank; ++r) {
    double x =
        u->dtype == TP_DTYPE_F32 ? ((const float *)u->lambda)[r] : ((const double *)u->lambda)[r];
    for (int m = 0; m < u->order; ++m) {
      int64_t e = idx[m] * u->rank + r;
      x *= u->dtype == TP_DTYPE_F32 ? ((const float *)u->factors[m])[e]
                                    : ((const double *)u->factors[m])[e];
    }
    s += x;
  }
  return s;
}

/* Every coordinate of the small dense shape: the model is nonzero exactly on the stored
 * pattern, where it equals the stored value. */
static void assert_planted_exact(const tp_coo *t, const tp_kruskal *u) {
  int64_t idx[TP_COO_MAX_ORDER] = {0}, k = 0;
  double tol = t->dtype == TP_DTYPE_F32 ? 1e-6 : 1e-14;
  for (;;) {
    double model = kruskal_at(u, idx);
    int stored = k < t->nnz;
    for (int m = 0; m < t->order && stored; ++m)
      stored = t->indices[m][k] == idx[m];
    cr_assert_eq(model != 0, stored, "nonzero pattern differs from the model at nonzero %lld",
                 (long long)k);
    if (stored) {
      cr_assert(fabs(value_at(t, k) - model) <= tol * model, "nonzero %lld: %.17g vs %.17g",
                (long long)k, value_at(t, k), model);
      ++k;
    }
    int m = t->order - 1;
    for (; m >= 0 && ++idx[m] == t->dims[m]; --m)
      idx[m] = 0;
    if (m < 0)
      break;
  }
  cr_assert_eq(k, t->nnz);
}

Test(sparse, planted_values_are_the_kruskal_model) {
  const int64_t dims[4] = {9, 7, 11, 5};
  for (int d = 0; d < 2; ++d)
    for (int order = 2; order <= 4; ++order) {
      tp_coo t;
      tp_kruskal u;
      const int64_t rank = 3, support = 4;
      TPT_OK(tp_coo_random_planted(both_dtypes[d], order, dims, rank, support, 0, 11, &t, &u));
      int64_t bound = rank;
      for (int m = 0; m < order; ++m)
        bound *= support;
      cr_assert(t.nnz > 0 && t.nnz <= bound, "nnz %lld, bound %lld", (long long)t.nnz,
                (long long)bound);
      TPT_OK(tp_coo_validate(&t));
      assert_sorted_unique(&t);
      assert_planted_exact(&t, &u);
      for (int m = 0; m < order; ++m)
        for (int64_t r = 0; r < rank; ++r) {
          int64_t nonzero_rows = 0;
          for (int64_t i = 0; i < dims[m]; ++i) {
            double x = both_dtypes[d] == TP_DTYPE_F32 ? ((float *)u.factors[m])[i * rank + r]
                                                      : ((double *)u.factors[m])[i * rank + r];
            cr_assert(x == 0 || (x >= 0.5 && x < 1.5), "factor entry %g", x);
            nonzero_rows += x != 0;
          }
          cr_assert_eq(nonzero_rows, support < dims[m] ? support : dims[m]);
        }
      tp_coo_free(NULL, &t);
      tp_kruskal_free(NULL, &u);
    }
}

Test(sparse, planted_noise_is_relative_and_reproducible) {
  const int64_t dims[3] = {40, 30, 20};
  tp_coo a, b;
  tp_kruskal u;
  TPT_OK(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 10, 0.01, 3, &a, &u));
  TPT_OK(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 10, 0.01, 3, &b, NULL));
  assert_same_tensor(&a, &b);
  double sum2 = 0;
  for (int64_t k = 0; k < a.nnz; ++k) {
    int64_t idx[3] = {a.indices[0][k], a.indices[1][k], a.indices[2][k]};
    double rel = value_at(&a, k) / kruskal_at(&u, idx) - 1;
    sum2 += rel * rel;
  }
  double rms = sqrt(sum2 / (double)a.nnz);
  cr_assert(rms > 0.008 && rms < 0.012, "relative noise %.4f, expected about 0.01", rms);
  tp_coo_free(NULL, &a), tp_coo_free(NULL, &b);
  tp_kruskal_free(NULL, &u);
}

Test(sparse, planted_rejects_bad_arguments) {
  const int64_t dims[3] = {4, 4, 4};
  tp_coo t;
  tp_kruskal u;
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_F64, 1, dims, 2, 2, 0, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("order 1");
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 0, 2, 0, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("rank 0");
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 0, 0, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("support 0");
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 2, -1, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("noise");
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_I8, 3, dims, 2, 2, 0, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  cr_assert(t.values == NULL && u.lambda == NULL);
}

/* ---- misuse: freed tensors, the wrong space, memory that is not there ------------------- */

static const int64_t misuse_dims[3] = {50, 40, 30};

/* A COO tensor freed with the host while a space owns it is refused and stays usable: no
 * double free when the space is destroyed. */
Test(sparse, host_free_of_a_space_tensor_is_refused) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo h = random_tensor(TP_DTYPE_F64, 3, misuse_dims, 100, &rng), s, back;
  TPT_OK(tp_coo_copy_to_device(tpt_space, &s, &h));
  TPT_FAILS_WITH(tp_coo_free(NULL, &s), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("belongs to a space");
  cr_assert(s.values && s.indices[2] && s.order == 3, "a refused free leaves the arrays");
  TPT_OK(tp_coo_copy_to_host(tpt_space, &back, &s));
  assert_same_tensor(&h, &back);
  TPT_OK(tp_coo_free(tpt_space, &s));
  TPT_OK(tp_coo_free(NULL, &back));
  TPT_OK(tp_coo_free(NULL, &h));
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0);
}

/* A host tensor freed with a space is refused (no silent leak). */
Test(sparse, space_free_of_a_host_tensor_is_refused) {
  tp_coo h;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F32, 3, misuse_dims, 10, &h));
  TPT_FAILS_WITH(tp_coo_free(tpt_space, &h), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("free it with a NULL space");
  cr_assert(h.values && h.indices[0], "a refused free leaves the arrays");
  memset(h.values, 0, 10 * sizeof(float));
  TPT_OK(tp_coo_free(NULL, &h));
}

/* A freed tensor, and a copy of its descriptor made before the free, are rejected. */
Test(sparse, freed_tensors_and_stale_copies_are_rejected) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo h = random_tensor(TP_DTYPE_F64, 3, misuse_dims, 100, &rng), s, back;
  TPT_OK(tp_coo_copy_to_device(tpt_space, &s, &h));
  tp_coo stale = s;
  TPT_OK(tp_coo_free(tpt_space, &s));
  TPT_FAILS_WITH(tp_coo_check(&s), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  TPT_FAILS_WITH(tp_coo_copy_to_host(tpt_space, &back, &s), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  TPT_FAILS_WITH(tp_coo_copy_to_host(tpt_space, &back, &stale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  TPT_FAILS_WITH(tp_coo_free(tpt_space, &stale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("already freed");
  tp_coo hstale = h;
  TPT_OK(tp_coo_free(NULL, &h));
  TPT_FAILS_WITH(tp_coo_copy_to_device(tpt_space, &s, &hstale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  cr_assert(isnan(tp_coo_norm2(&hstale)));
  TPT_FAILS_WITH(tp_coo_free(NULL, &hstale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("already freed");
}

Test(sparse, allocations_beyond_the_memory_available_fail_with_sizes) {
  setenv("TENPORT_HOST_MEMORY_LIMIT", "512M", 1);
  tp_coo t;
  TPT_FAILS_WITH(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, misuse_dims, 100000000, &t),
                 TP_ERROR_OUT_OF_MEMORY);
  assert_message_has("a 3.2 GB COO tensor 50x40x30 with 100000000 nonzeros (float64) does not "
                     "fit: 536.9 MB");
  cr_assert(t.values == NULL && t.indices[0] == NULL);
}
