/* Dense and Kruskal tensors: descriptor checks, allocation, .npy files in both layouts
 * and both precisions, the reference MTTKRP and CP residual, and the random generators. */
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
#include "algorithms/dense/tp_dense_internal.h"
#include "algorithms/dense/tp_random_internal.h"
#include "tests/common/tpt.h"

static char dense_dir[64];

static void dense_setup(void) {
  tpt_setup();
  strcpy(dense_dir, "/tmp/tenport-dense-XXXXXX");
  cr_assert(mkdtemp(dense_dir), "mkdtemp: %s", strerror(errno));
}

static void dense_teardown(void) {
  DIR *dir = opendir(dense_dir);
  for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dense_dir, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      unlink(path);
  }
  if (dir)
    closedir(dir);
  rmdir(dense_dir);
  tpt_teardown();
}

TestSuite(dense, .init = dense_setup, .fini = dense_teardown);

/* ---- helpers ------------------------------------------------------------------------ */

/* A path in the test's directory (one of a few rotating buffers). */
static const char *tmp_path(const char *name) {
  static char paths[4][256];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", dense_dir, name);
  return p;
}

static void assert_message_has(const char *needle) {
  cr_assert(strstr(tp_last_error(), needle), "message \"%s\" lacks \"%s\"", tp_last_error(),
            needle);
}

static const tp_dtype both_dtypes[2] = {TP_DTYPE_F32, TP_DTYPE_F64};
static const tp_layout both_layouts[2] = {TP_LAYOUT_LEFT, TP_LAYOUT_RIGHT};

static tp_dense host_tensor(tp_dtype dtype, int order, const int64_t *dims, tp_layout layout) {
  tp_dense t;
  TPT_OK(tp_dense_alloc(NULL, dtype, order, dims, layout, &t));
  return t;
}

/* Offset of a multi-index from the layout's definition, independent of the library. */
static int64_t offset_of(const tp_dense *t, const int64_t *idx) {
  int64_t off = 0, stride = 1;
  for (int p = 0; p < t->order; ++p) {
    int k = t->layout == TP_LAYOUT_LEFT ? p : t->order - 1 - p;
    off += idx[k] * stride;
    stride *= t->dims[k];
  }
  return off;
}

static double load(const void *data, tp_dtype dtype, int64_t i) {
  return dtype == TP_DTYPE_F32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

static void store(void *data, tp_dtype dtype, int64_t i, double v) {
  if (dtype == TP_DTYPE_F32)
    ((float *)data)[i] = (float)v;
  else
    ((double *)data)[i] = v;
}

static double get(const tp_dense *t, const int64_t *idx) {
  return load(t->data, t->dtype, offset_of(t, idx));
}

static void set(tp_dense *t, const int64_t *idx, double v) {
  store(t->data, t->dtype, offset_of(t, idx), v);
}

static double fget(const tp_kruskal *u, int k, int64_t i, int64_t r) {
  return load(u->factors[k], u->dtype, i * u->rank + r);
}

/* Advances idx over dims, last index fastest; 0 after the last index. */
static int next_index(int order, const int64_t *dims, int64_t *idx) {
  for (int k = order - 1; k >= 0; --k) {
    if (++idx[k] < dims[k])
      return 1;
    idx[k] = 0;
  }
  return 0;
}

static void fill_random(tp_dense *t, tpt_rng *rng) {
  int64_t n = tp_dense_count(t);
  for (int64_t i = 0; i < n; ++i)
    store(t->data, t->dtype, i, tpt_uniform(rng, -1, 1));
}

static tp_kruskal random_kruskal(tp_dtype dtype, int order, const int64_t *dims, int64_t rank,
                                 tpt_rng *rng) {
  tp_kruskal u;
  TPT_OK(tp_kruskal_alloc(NULL, dtype, order, dims, rank, &u));
  for (int64_t r = 0; r < rank; ++r)
    store(u.lambda, dtype, r, tpt_uniform(rng, 0.5, 2));
  for (int k = 0; k < order; ++k)
    for (int64_t e = 0; e < dims[k] * rank; ++e)
      store(u.factors[k], dtype, e, tpt_uniform(rng, -1, 1));
  return u;
}

/* Every element of a equals the same logical element of b (layouts may differ). */
static void assert_same_tensor(const tp_dense *a, const tp_dense *b, double tol) {
  cr_assert_eq(a->order, b->order);
  for (int k = 0; k < a->order; ++k)
    cr_assert_eq(a->dims[k], b->dims[k]);
  int64_t idx[TP_DENSE_MAX_ORDER] = {0};
  do {
    double x = get(a, idx), y = get(b, idx);
    cr_assert(fabs(x - y) <= tol * (fabs(y) > 1 ? fabs(y) : 1), "%.17g vs %.17g", x, y);
  } while (next_index(a->order, a->dims, idx));
}

/* ---- descriptors -------------------------------------------------------------------- */

static tp_dense descriptor(int order, const int64_t *dims) {
  tp_dense t;
  memset(&t, 0, sizeof t);
  t.dtype = TP_DTYPE_F64;
  t.order = order;
  memcpy(t.dims, dims, sizeof(int64_t) * (size_t)order);
  t.layout = TP_LAYOUT_LEFT;
  return t;
}

Test(dense, count_and_check_accept_valid_shapes) {
  const int64_t dims[16] = {3, 4, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2};
  tp_dense t = descriptor(3, dims);
  cr_assert_eq(tp_dense_count(&t), 60);
  TPT_OK(tp_dense_check(&t));
  t = descriptor(16, dims);
  t.layout = TP_LAYOUT_RIGHT;
  t.dtype = TP_DTYPE_F32;
  cr_assert_eq(tp_dense_count(&t), 120);
  TPT_OK(tp_dense_check(&t));
  t = descriptor(2, dims);
  cr_assert_eq(tp_dense_count(&t), 12);
}

Test(dense, check_names_the_bad_field) {
  const int64_t dims[17] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
  tp_dense t = descriptor(1, dims);
  TPT_FAILS_WITH(tp_dense_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("order 1");
  cr_assert_eq(tp_dense_count(&t), -1);
  t = descriptor(16, dims);
  t.order = 17;
  TPT_FAILS_WITH(tp_dense_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("order 17");
  cr_assert_eq(tp_dense_count(&t), -1);
  t = descriptor(3, dims);
  t.dims[1] = 0;
  TPT_FAILS_WITH(tp_dense_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("dims[1] = 0");
  cr_assert_eq(tp_dense_count(&t), -1);
  t.dims[1] = -4;
  TPT_FAILS_WITH(tp_dense_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("dims[1] = -4");
  t = descriptor(3, dims);
  t.dtype = TP_DTYPE_I32;
  TPT_FAILS_WITH(tp_dense_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("int32");
  cr_assert_eq(tp_dense_count(&t), -1);
  t = descriptor(3, dims);
  t.layout = (tp_layout)7;
  TPT_FAILS_WITH(tp_dense_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("layout 7");
  TPT_FAILS_WITH(tp_dense_check(NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert_eq(tp_dense_count(NULL), -1);
}

Test(dense, check_reports_overflow) {
  const int64_t huge[3] = {(int64_t)1 << 32, (int64_t)1 << 32, 1};
  tp_dense t = descriptor(3, huge);
  cr_assert_eq(tp_dense_count(&t), -1, "2^64 elements do not fit int64");
  TPT_FAILS_WITH(tp_dense_check(&t), TP_ERROR_OVERFLOW);
  assert_message_has("overflows");
  const int64_t big[2] = {(int64_t)1 << 31, (int64_t)1 << 31}; /* 2^62 elements, 2^65 bytes */
  t = descriptor(2, big);
  cr_assert_eq(tp_dense_count(&t), (int64_t)1 << 62);
  TPT_FAILS_WITH(tp_dense_check(&t), TP_ERROR_OVERFLOW);
  tp_dense a;
  TPT_FAILS_WITH(tp_dense_alloc(NULL, TP_DTYPE_F64, 2, big, TP_LAYOUT_LEFT, &a), TP_ERROR_OVERFLOW);
  cr_assert_null(a.data);
}

/* Random factor rows drawn in the space are the host's, bit for bit: any first row, any
 * count (past a block of threads), both precisions, several modes and seeds. */
Test(dense, random_factor_rows_in_the_space_are_the_host_s) {
  const struct {
    int64_t first, rows, rank;
    int mode;
    uint64_t seed;
  } cases[] = {{0, 1, 1, 0, 1}, {3, 17, 5, 2, 7}, {1000, 301, 33, 1, 123456789}, {0, 0, 4, 0, 1}};
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; ++t)
    for (int single = 0; single <= 1; ++single) {
      const tp_dtype dtype = single ? TP_DTYPE_F32 : TP_DTYPE_F64;
      const size_t n = (size_t)(cases[t].rows * cases[t].rank), es = single ? 4 : 8;
      void *want = tpt_host_alloc(es * n + 1), *got = tpt_host_alloc(es * n + 1);
      void *dev = tpt_alloc_poisoned(es * n + 1);
      tpi_kruskal_random_rows(dtype, cases[t].seed, cases[t].mode, cases[t].first, cases[t].rows,
                              cases[t].rank, want);
      TPT_OK(tpi_kruskal_random_rows_in_space(tpt_space, dtype, cases[t].seed, cases[t].mode,
                                              cases[t].first, cases[t].rows, cases[t].rank, dev));
      tpt_to_host(got, dev, es * n);
      cr_expect(memcmp(want, got, es * n) == 0, "case %zu, %s: the space drew other values", t,
                single ? "f32" : "f64");
      tpt_free(dev), free(want), free(got);
    }
}

/* Rows drawn in steps (a relabelled slab): row i is factor row ((first + i) step) mod
 * count of the host's factor, bit for bit. */
Test(dense, random_factor_rows_in_steps_are_the_host_s) {
  const int64_t count = 1009, first = 250, rows = 300, rank = 7;
  const uint64_t step = 623;
  for (int single = 0; single <= 1; ++single) {
    const tp_dtype dtype = single ? TP_DTYPE_F32 : TP_DTYPE_F64;
    const size_t es = single ? 4 : 8, row_bytes = es * (size_t)rank;
    char *want = tpt_host_alloc(row_bytes * (size_t)rows),
         *got = tpt_host_alloc(row_bytes * (size_t)rows);
    for (int64_t i = 0; i < rows; ++i)
      tpi_kruskal_random_rows(dtype, 5, 1, (int64_t)(((uint64_t)(first + i) * step) % count), 1,
                              rank, want + row_bytes * (size_t)i);
    void *dev = tpt_alloc_poisoned(row_bytes * (size_t)rows);
    TPT_OK(tpi_kruskal_random_rows_stepped_in_space(tpt_space, dtype, 5, 1, first, rows, rank, step,
                                                    (uint64_t)count, dev));
    tpt_to_host(got, dev, row_bytes * (size_t)rows);
    cr_expect(memcmp(want, got, row_bytes * (size_t)rows) == 0, "%s: other values",
              single ? "f32" : "f64");
    TPT_FAILS_WITH(tpi_kruskal_random_rows_stepped_in_space(tpt_space, dtype, 5, 1, 900, 200, rank,
                                                            step, (uint64_t)count, dev),
                   TP_ERROR_INVALID_ARGUMENT); /* rows past count */
    tpt_free(dev), free(want), free(got);
  }
}

Test(dense, kruskal_check) {
  tp_kruskal k;
  memset(&k, 0, sizeof k);
  k.dtype = TP_DTYPE_F32;
  k.order = 3;
  k.dims[0] = 4, k.dims[1] = 5, k.dims[2] = 6;
  k.rank = 3;
  TPT_OK(tp_kruskal_check(&k));
  k.rank = 0;
  TPT_FAILS_WITH(tp_kruskal_check(&k), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("rank 0");
  k.rank = 3, k.dims[2] = 0;
  TPT_FAILS_WITH(tp_kruskal_check(&k), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("dims[2]");
  k.dims[2] = 6, k.order = 1;
  TPT_FAILS_WITH(tp_kruskal_check(&k), TP_ERROR_INVALID_ARGUMENT);
  k.order = 3, k.rank = INT64_MAX / 2;
  TPT_FAILS_WITH(tp_kruskal_check(&k), TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tp_kruskal_check(NULL), TP_ERROR_INVALID_ARGUMENT);
}

/* ---- allocation and copies ---------------------------------------------------------- */

Test(dense, alloc_and_free_on_the_host) {
  const int64_t dims[4] = {3, 1, 7, 2};
  tp_dense t = host_tensor(TP_DTYPE_F32, 4, dims, TP_LAYOUT_RIGHT);
  cr_assert(t.data && t.order == 4 && t.dtype == TP_DTYPE_F32 && t.layout == TP_LAYOUT_RIGHT);
  for (int k = 0; k < 4; ++k)
    cr_assert_eq(t.dims[k], dims[k]);
  memset(t.data, 0, 42 * sizeof(float)); /* the sanitizers check the size */
  tp_dense_free(NULL, &t);
  cr_assert_null(t.data);
  tp_dense_free(NULL, &t); /* twice is harmless */
  tp_dense_free(NULL, NULL);
  memset(&t, 0x5a, sizeof t);
  TPT_FAILS_WITH(tp_dense_alloc(NULL, TP_DTYPE_F64, 1, dims, TP_LAYOUT_LEFT, &t),
                 TP_ERROR_INVALID_ARGUMENT);
  cr_assert(t.data == NULL && t.order == 0, "a failed allocation leaves the descriptor zeroed");
  tp_kruskal k;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 4, dims, 5, &k));
  cr_assert(k.lambda && k.rank == 5);
  for (int m = 0; m < 4; ++m)
    memset(k.factors[m], 0, (size_t)dims[m] * 5 * sizeof(double));
  tp_kruskal_free(NULL, &k);
  cr_assert(k.lambda == NULL && k.factors[0] == NULL && k.factors[3] == NULL);
}

Test(dense, alloc_free_and_copies_on_a_space) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {5, 7, 3};
  size_t before = tp_space_bytes_in_use(tpt_space);
  tp_dense d, h = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT);
  fill_random(&h, &rng);
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &d));
  cr_assert(tp_space_bytes_in_use(tpt_space) >= before + 105 * sizeof(double));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &d, &h));
  double back[105];
  tpt_to_host(back, d.data, sizeof back);
  cr_assert(memcmp(back, h.data, sizeof back) == 0);
  tp_dense_free(tpt_space, &d);
  cr_assert_null(d.data);

  tp_kruskal hk = random_kruskal(TP_DTYPE_F32, 3, dims, 4, &rng), dk, hk2;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F32, 3, dims, 4, &dk));
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F32, 3, dims, 4, &hk2));
  TPT_OK(tp_kruskal_copy_to_device(tpt_space, &dk, &hk));
  TPT_OK(tp_kruskal_copy_to_host(tpt_space, &hk2, &dk));
  cr_assert(memcmp(hk.lambda, hk2.lambda, 4 * sizeof(float)) == 0);
  for (int m = 0; m < 3; ++m)
    cr_assert(memcmp(hk.factors[m], hk2.factors[m], (size_t)dims[m] * 4 * sizeof(float)) == 0);
  tp_kruskal_free(tpt_space, &dk);
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), before, "the space's memory was not returned");
  tp_kruskal_free(NULL, &hk);
  tp_kruskal_free(NULL, &hk2);
  tp_dense_free(NULL, &h);
}

Test(dense, copies_reject_mismatched_descriptors) {
  const int64_t dims[3] = {5, 7, 3}, other[3] = {5, 6, 3};
  tp_dense d, h = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT);
  tp_dense h2 = host_tensor(TP_DTYPE_F64, 3, other, TP_LAYOUT_LEFT);
  tp_dense h3 = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_RIGHT);
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &d));
  TPT_FAILS_WITH(tp_dense_copy_to_device(tpt_space, &d, &h2), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("dims[1]");
  TPT_FAILS_WITH(tp_dense_copy_to_device(tpt_space, &d, &h3), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("layout");
  tp_kruskal a, b;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 2, &a));
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, 3, &b));
  TPT_FAILS_WITH(tp_kruskal_copy_to_device(tpt_space, &b, &a), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("ranks differ");
  tp_kruskal_free(tpt_space, &b);
  tp_kruskal_free(NULL, &a);
  tp_dense_free(tpt_space, &d);
  tp_dense_free(NULL, &h), tp_dense_free(NULL, &h2), tp_dense_free(NULL, &h3);
}

/* ---- .npy files ---------------------------------------------------------------------- */

Test(dense, npy_round_trips_in_both_layouts_and_dtypes) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {3, 5, 2, 7};
  const char *path = tmp_path("round.npy");
  for (int d = 0; d < 2; ++d)
    for (int l = 0; l < 2; ++l) {
      tp_dense t = host_tensor(both_dtypes[d], 4, dims, both_layouts[l]), same, other;
      fill_random(&t, &rng);
      TPT_OK(tp_dense_write_npy(path, &t));
      TPT_OK(tp_dense_read_npy(path, both_dtypes[d], &same));
      cr_assert(same.dtype == t.dtype && same.layout == t.layout && same.order == 4);
      for (int k = 0; k < 4; ++k)
        cr_assert_eq(same.dims[k], dims[k]);
      cr_assert(memcmp(same.data, t.data, 210 * tp_dtype_size(t.dtype)) == 0, "%s %s: data differs",
                tp_dtype_name(t.dtype), l ? "right" : "left");
      TPT_OK(tp_dense_read_npy(path, both_dtypes[1 - d], &other));
      cr_assert(other.dtype == both_dtypes[1 - d] && other.layout == t.layout);
      for (int64_t i = 0; i < 210; ++i) {
        double want = load(t.data, t.dtype, i);
        if (other.dtype == TP_DTYPE_F32)
          want = (float)want;
        cr_assert_eq(load(other.data, other.dtype, i), want, "element %lld", (long long)i);
      }
      tp_dense_free(NULL, &t), tp_dense_free(NULL, &same), tp_dense_free(NULL, &other);
    }
}

Test(dense, fortran_and_c_files_hold_the_same_logical_tensor) {
  const int64_t dims[3] = {4, 3, 5};
  tp_dense f = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT);
  tp_dense c = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_RIGHT);
  int64_t idx[3] = {0, 0, 0};
  do {
    double v = 100.0 * (double)idx[0] + 10.0 * (double)idx[1] + (double)idx[2];
    set(&f, idx, v);
    set(&c, idx, v);
  } while (next_index(3, dims, idx));
  cr_assert(memcmp(f.data, c.data, 60 * sizeof(double)) != 0, "the layouts must differ");
  const char *fp = tmp_path("fortran.npy"), *cp = tmp_path("c.npy");
  TPT_OK(tp_dense_write_npy(fp, &f));
  TPT_OK(tp_dense_write_npy(cp, &c));
  tp_dense rf, rc;
  TPT_OK(tp_dense_read_npy(fp, TP_DTYPE_F64, &rf));
  TPT_OK(tp_dense_read_npy(cp, TP_DTYPE_F32, &rc));
  cr_assert_eq(rf.layout, TP_LAYOUT_LEFT);
  cr_assert_eq(rc.layout, TP_LAYOUT_RIGHT);
  assert_same_tensor(&rf, &rc, 0);
  int64_t probe[3] = {3, 1, 4};
  cr_assert_eq(get(&rf, probe), 314.0);
  cr_assert_eq(((double *)rf.data)[3 + 4 * 1 + 12 * 4], 314.0, "first index fastest");
  cr_assert_eq(((float *)rc.data)[3 * 15 + 1 * 5 + 4], 314.0f, "last index fastest");
  tp_dense_free(NULL, &f), tp_dense_free(NULL, &c);
  tp_dense_free(NULL, &rf), tp_dense_free(NULL, &rc);
}

static void expect_read_fails(const char *path, tp_dtype want, tp_status status,
                              const char *needle) {
  tp_dense t;
  memset(&t, 0x5a, sizeof t);
  TPT_FAILS_WITH(tp_dense_read_npy(path, want, &t), status);
  cr_assert(t.data == NULL && t.order == 0, "a failed read leaves the descriptor zeroed");
  if (needle)
    assert_message_has(needle);
}

/* Integer files are read as their values, in the file's own order (Fortran too). */
Test(dense, integer_files_are_read_as_their_values) {
  const int64_t shape[2] = {2, 3};
  const int32_t ints[6] = {1, -2, 3, 4, 5, -6};
  const char *path = tmp_path("ints.npy");
  TPT_OK(tp_npy_write(path, TP_DTYPE_I32, 2, shape, 0, ints));
  tp_dense t;
  TPT_OK(tp_dense_read_npy(path, TP_DTYPE_F64, &t));
  cr_assert_eq(t.dtype, TP_DTYPE_F64);
  cr_assert_eq(t.layout, TP_LAYOUT_RIGHT);
  for (int i = 0; i < 6; ++i)
    cr_assert_eq(((double *)t.data)[i], (double)ints[i], "element %d", i);
  tp_dense_free(NULL, &t);
  const uint8_t bytes[6] = {0, 1, 2, 250, 254, 255};
  TPT_OK(tp_npy_write(path, TP_DTYPE_U8, 2, shape, 1, bytes));
  TPT_OK(tp_dense_read_npy(path, TP_DTYPE_F32, &t));
  cr_assert_eq(t.dtype, TP_DTYPE_F32);
  cr_assert_eq(t.layout, TP_LAYOUT_LEFT);
  for (int i = 0; i < 6; ++i)
    cr_assert_eq(((float *)t.data)[i], (float)bytes[i], "element %d", i);
  tp_dense_free(NULL, &t);
}

Test(dense, read_rejects_too_few_dimensions_and_empty_ones) {
  const double v[4] = {1, 2, 3, 4};
  const int64_t one[1] = {4}, empty[3] = {2, 0, 3};
  const char *path = tmp_path("shape.npy");
  TPT_OK(tp_npy_write(path, TP_DTYPE_F64, 1, one, 0, v));
  expect_read_fails(path, TP_DTYPE_F64, TP_ERROR_FORMAT, "1-dimensional");
  assert_message_has(path);
  TPT_OK(tp_npy_write(path, TP_DTYPE_F64, 0, NULL, 0, v));
  expect_read_fails(path, TP_DTYPE_F64, TP_ERROR_FORMAT, "0-dimensional");
  TPT_OK(tp_npy_write(path, TP_DTYPE_F32, 3, empty, 0, v));
  expect_read_fails(path, TP_DTYPE_F64, TP_ERROR_FORMAT, "dimension 1 has size 0");
}

Test(dense, read_rejects_truncated_and_missing_files) {
  const int64_t dims[2] = {6, 5};
  tp_dense t = host_tensor(TP_DTYPE_F64, 2, dims, TP_LAYOUT_RIGHT);
  memset(t.data, 0, 30 * sizeof(double));
  const char *path = tmp_path("cut.npy");
  TPT_OK(tp_dense_write_npy(path, &t));
  cr_assert_eq(truncate(path, 128 + 29 * 8 + 3), 0, "truncate: %s", strerror(errno));
  expect_read_fails(path, TP_DTYPE_F64, TP_ERROR_FORMAT, "truncated");
  assert_message_has(path);
  cr_assert_eq(truncate(path, 20), 0);
  expect_read_fails(path, TP_DTYPE_F64, TP_ERROR_FORMAT, "truncated");
  expect_read_fails(tmp_path("missing.npy"), TP_DTYPE_F64, TP_ERROR_IO, "missing.npy");
  expect_read_fails(path, TP_DTYPE_I32, TP_ERROR_INVALID_ARGUMENT, "want_dtype");
  tp_dense_free(NULL, &t);
}

Test(dense, read_rejects_non_finite_values_naming_the_element) {
  const int64_t dims[3] = {2, 3, 4};
  const char *path = tmp_path("nan.npy");
  for (int l = 0; l < 2; ++l) {
    tp_dense t = host_tensor(TP_DTYPE_F64, 3, dims, both_layouts[l]);
    memset(t.data, 0, 24 * sizeof(double));
    const int64_t bad[3] = {1, 0, 2};
    set(&t, bad, NAN);
    TPT_OK(tp_dense_write_npy(path, &t));
    expect_read_fails(path, TP_DTYPE_F64, TP_ERROR_NUMERICAL, "element (1, 0, 2) is NaN");
    assert_message_has(path);
    set(&t, bad, 0.0);
    const int64_t inf[3] = {0, 2, 3};
    set(&t, inf, -INFINITY);
    TPT_OK(tp_dense_write_npy(path, &t));
    expect_read_fails(path, TP_DTYPE_F32, TP_ERROR_NUMERICAL, "element (0, 2, 3) is -Inf");
    set(&t, inf, 1e300); /* finite in float64, beyond float32 */
    TPT_OK(tp_dense_write_npy(path, &t));
    tp_dense ok;
    TPT_OK(tp_dense_read_npy(path, TP_DTYPE_F64, &ok));
    tp_dense_free(NULL, &ok);
    expect_read_fails(path, TP_DTYPE_F32, TP_ERROR_NUMERICAL, "after conversion to float32");
    assert_message_has("(0, 2, 3)");
    tp_dense_free(NULL, &t);
  }
}

Test(dense, write_rejects_bad_descriptors) {
  const int64_t dims[2] = {2, 2};
  tp_dense t = descriptor(2, dims);
  TPT_FAILS_WITH(tp_dense_write_npy(tmp_path("x.npy"), &t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("data is NULL");
  t.order = 1;
  TPT_FAILS_WITH(tp_dense_write_npy(tmp_path("x.npy"), &t), TP_ERROR_INVALID_ARGUMENT);
}

/* ---- Kruskal files --------------------------------------------------------------------- */

static void assert_same_kruskal(const tp_kruskal *a, const tp_kruskal *b) {
  cr_assert(a->dtype == b->dtype && a->order == b->order && a->rank == b->rank);
  size_t es = tp_dtype_size(a->dtype);
  cr_assert(memcmp(a->lambda, b->lambda, (size_t)a->rank * es) == 0, "lambda differs");
  for (int k = 0; k < a->order; ++k) {
    cr_assert_eq(a->dims[k], b->dims[k]);
    cr_assert(memcmp(a->factors[k], b->factors[k], (size_t)(a->dims[k] * a->rank) * es) == 0,
              "factor %d differs", k);
  }
}

Test(dense, kruskal_npy_round_trip) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {4, 1, 6, 3};
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s/model", dense_dir);
  for (int d = 0; d < 2; ++d) {
    tp_kruskal u = random_kruskal(both_dtypes[d], 4, dims, 5, &rng), v;
    TPT_OK(tp_kruskal_write_npy(prefix, &u));
    TPT_OK(tp_kruskal_read_npy(prefix, both_dtypes[d], 4, dims, 5, &v));
    assert_same_kruskal(&u, &v);
    tp_npy_array a;
    TPT_OK(tp_npy_read(tmp_path("model_factor2.npy"), &a));
    cr_assert(a.ndim == 2 && a.shape[0] == 6 && a.shape[1] == 5 && !a.fortran_order);
    tp_npy_free(&a);
    TPT_OK(tp_npy_read(tmp_path("model_lambda.npy"), &a));
    cr_assert(a.ndim == 1 && a.shape[0] == 5);
    tp_npy_free(&a);
    tp_kruskal_free(NULL, &u), tp_kruskal_free(NULL, &v);
  }
}

Test(dense, kruskal_read_without_lambda_gives_ones) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {3, 4, 2};
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s/nolambda", dense_dir);
  tp_kruskal u = random_kruskal(TP_DTYPE_F64, 3, dims, 2, &rng), v;
  TPT_OK(tp_kruskal_write_npy(prefix, &u));
  cr_assert_eq(unlink(tmp_path("nolambda_lambda.npy")), 0);
  TPT_OK(tp_kruskal_read_npy(prefix, TP_DTYPE_F32, 3, dims, 2, &v));
  cr_assert(((float *)v.lambda)[0] == 1.0f && ((float *)v.lambda)[1] == 1.0f);
  cr_assert_eq(((float *)v.factors[1])[5], (float)((double *)u.factors[1])[5]);
  tp_kruskal_free(NULL, &u), tp_kruskal_free(NULL, &v);
}

static void expect_kruskal_fails(const char *prefix, const int64_t *dims, int64_t rank,
                                 tp_status status, const char *needle) {
  tp_kruskal v;
  memset(&v, 0x5a, sizeof v);
  TPT_FAILS_WITH(tp_kruskal_read_npy(prefix, TP_DTYPE_F64, 3, dims, rank, &v), status);
  cr_assert(v.lambda == NULL && v.factors[0] == NULL && v.order == 0,
            "a failed read leaves the descriptor zeroed");
  assert_message_has(needle);
}

Test(dense, kruskal_read_names_file_and_shapes_on_mismatch) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {4, 5, 6}, wrong[3] = {4, 6, 6};
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s/bad", dense_dir);
  tp_kruskal u = random_kruskal(TP_DTYPE_F64, 3, dims, 3, &rng);
  TPT_OK(tp_kruskal_write_npy(prefix, &u));
  expect_kruskal_fails(prefix, wrong, 3, TP_ERROR_FORMAT,
                       "bad_factor1.npy has shape (5, 3), "
                       "expected (6, 3)");
  expect_kruskal_fails(prefix, dims, 2, TP_ERROR_FORMAT,
                       "bad_factor0.npy has shape (4, 3), "
                       "expected (4, 2)");
  const int64_t flat[1] = {15};
  TPT_OK(tp_npy_write(tmp_path("bad_factor1.npy"), TP_DTYPE_F64, 1, flat, 0, u.factors[1]));
  expect_kruskal_fails(prefix, dims, 3, TP_ERROR_FORMAT, "has shape (15,), expected (5, 3)");
  TPT_OK(tp_kruskal_write_npy(prefix, &u));
  const int64_t two[1] = {2};
  TPT_OK(tp_npy_write(tmp_path("bad_lambda.npy"), TP_DTYPE_F64, 1, two, 0, u.lambda));
  expect_kruskal_fails(prefix, dims, 3, TP_ERROR_FORMAT,
                       "bad_lambda.npy has shape (2,), "
                       "expected (3,)");
  TPT_OK(tp_kruskal_write_npy(prefix, &u));
  ((double *)u.factors[2])[3 * 4 + 1] = NAN;
  TPT_OK(tp_kruskal_write_npy(prefix, &u));
  expect_kruskal_fails(prefix, dims, 3, TP_ERROR_NUMERICAL, "bad_factor2.npy: element (4, 1)");
  cr_assert_eq(unlink(tmp_path("bad_factor0.npy")), 0);
  expect_kruskal_fails(prefix, dims, 3, TP_ERROR_IO, "bad_factor0.npy");
  tp_kruskal_free(NULL, &u);
}

/* ---- reference MTTKRP -------------------------------------------------------------------- */

/* G of the definition, by enumerating every element: any order. */
static void brute_mttkrp(const tp_dense *x, const tp_kruskal *u, int mode, double *g) {
  memset(g, 0, sizeof(double) * (size_t)(x->dims[mode] * u->rank));
  int64_t idx[TP_DENSE_MAX_ORDER] = {0};
  do {
    double v = get(x, idx);
    for (int64_t r = 0; r < u->rank; ++r) {
      double p = v;
      for (int k = 0; k < x->order; ++k)
        if (k != mode)
          p *= fget(u, k, idx[k], r);
      g[idx[mode] * u->rank + r] += p;
    }
  } while (next_index(x->order, x->dims, idx));
}

static void assert_close(const double *got, const double *want, int64_t n, double tol,
                         const char *what) {
  for (int64_t i = 0; i < n; ++i)
    cr_assert(fabs(got[i] - want[i]) <= tol * (1.0 + fabs(want[i])),
              "%s: G[%lld] = %.17g, expected %.17g", what, (long long)i, got[i], want[i]);
}

Test(dense, mttkrp_reference_on_a_hand_checkable_tensor) {
  /* x[i][j][k] = 6i + 2j + k + 1 holds 1..12 in C order. */
  const int64_t dims[3] = {2, 3, 2};
  const double f0[2 * 2] = {1, 0, 2, 1}, f1[3 * 2] = {1, 1, 0, 2, 3, -1}, f2[2 * 2] = {2, 1, -1, 1};
  for (int d = 0; d < 2; ++d)
    for (int l = 0; l < 2; ++l) {
      tp_dense x = host_tensor(both_dtypes[d], 3, dims, both_layouts[l]);
      int64_t idx[3] = {0, 0, 0};
      do
        set(&x, idx, (double)(6 * idx[0] + 2 * idx[1] + idx[2] + 1));
      while (next_index(3, dims, idx));
      tp_kruskal u;
      TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 2, &u));
      for (int e = 0; e < 6; ++e)
        ((double *)u.factors[1])[e] = 1.0; /* all ones first */
      for (int e = 0; e < 4; ++e)
        ((double *)u.factors[2])[e] = 1.0;
      double g[6], want[6];
      TPT_OK(tp_mttkrp_reference(&x, &u, 0, g));
      const double slices[4] = {21, 21, 57, 57}; /* 1 + ... + 6, 7 + ... + 12 */
      assert_close(g, slices, 4, 0, "slice sums");
      memcpy(u.factors[0], f0, sizeof f0);
      memcpy(u.factors[1], f1, sizeof f1);
      memcpy(u.factors[2], f2, sizeof f2);
      for (int mode = 0; mode < 3; ++mode) {
        memset(want, 0, sizeof want);
        for (int i = 0; i < 2; ++i) /* the definition, as a triple loop */
          for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 2; ++k)
              for (int r = 0; r < 2; ++r) {
                double v = 6 * i + 2 * j + k + 1;
                double a = f0[i * 2 + r], b = f1[j * 2 + r], c = f2[k * 2 + r];
                int row = mode == 0 ? i : mode == 1 ? j : k;
                want[row * 2 + r] += v * (mode == 0 ? b * c : mode == 1 ? a * c : a * b);
              }
        for (int e = 0; e < 6; ++e)
          g[e] = NAN; /* poison: every entry must be written */
        TPT_OK(tp_mttkrp_reference(&x, &u, mode, g));
        assert_close(g, want, dims[mode] * 2, 0, "triple loop");
      }
      /* by hand, mode 0, r = 0: sum_jk x[0,j,k] f1[j,0] f2[k,0]
       * = 2*(1*1 + 3*0 + 5*3) + (-1)*(2*1 + 4*0 + 6*3) = 32 - 20 = 12 */
      TPT_OK(tp_mttkrp_reference(&x, &u, 0, g));
      cr_assert_eq(g[0], 12.0);
      tp_kruskal_free(NULL, &u);
      tp_dense_free(NULL, &x);
    }
}

Test(dense, mttkrp_reference_of_a_rank_one_tensor_in_closed_form) {
  /* x = a o b o c: G_0[i, r] = a_i <b, U_1[:, r]> <c, U_2[:, r]>, and so on. */
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {5, 4, 3}, rank = 3;
  double vec[3][5];
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 5; ++i)
      vec[k][i] = tpt_uniform(&rng, -2, 2);
  for (int l = 0; l < 2; ++l) {
    tp_dense x = host_tensor(TP_DTYPE_F64, 3, dims, both_layouts[l]);
    int64_t idx[3] = {0, 0, 0};
    do
      set(&x, idx, vec[0][idx[0]] * vec[1][idx[1]] * vec[2][idx[2]]);
    while (next_index(3, dims, idx));
    tp_kruskal u = random_kruskal(TP_DTYPE_F64, 3, dims, rank, &rng);
    double dot[3][3]; /* dot[k][r] = <vec_k, U_k[:, r]> */
    for (int k = 0; k < 3; ++k)
      for (int r = 0; r < rank; ++r) {
        dot[k][r] = 0;
        for (int i = 0; i < dims[k]; ++i)
          dot[k][r] += vec[k][i] * fget(&u, k, i, r);
      }
    for (int mode = 0; mode < 3; ++mode) {
      double g[15], want[15];
      for (int i = 0; i < dims[mode]; ++i)
        for (int r = 0; r < rank; ++r) {
          want[i * rank + r] = vec[mode][i];
          for (int k = 0; k < 3; ++k)
            if (k != mode)
              want[i * rank + r] *= dot[k][r];
        }
      TPT_OK(tp_mttkrp_reference(&x, &u, mode, g));
      assert_close(g, want, dims[mode] * rank, 1e-13, "closed form");
    }
    tp_kruskal_free(NULL, &u);
    tp_dense_free(NULL, &x);
  }
}

Test(dense, mttkrp_reference_matches_the_definition_for_any_order) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t all_dims[6] = {3, 5, 2, 7, 1, 4};
  const int64_t ranks[3] = {1, 3, 7};
  for (int order = 2; order <= 6; ++order)
    for (int l = 0; l < 2; ++l)
      for (int d = 0; d < 2; ++d) {
        tp_dense x = host_tensor(both_dtypes[d], order, all_dims, both_layouts[l]);
        fill_random(&x, &rng);
        int64_t rank = ranks[(order + l + d) % 3];
        /* factors in the other precision than the tensor when d is odd */
        tp_kruskal u = random_kruskal(both_dtypes[(d + order) % 2], order, all_dims, rank, &rng);
        for (int mode = 0; mode < order; ++mode) {
          int64_t n = all_dims[mode] * rank;
          double *g = (double *)tpt_host_alloc(sizeof(double) * (size_t)n);
          double *want = (double *)tpt_host_alloc(sizeof(double) * (size_t)n);
          for (int64_t i = 0; i < n; ++i)
            g[i] = NAN;
          void *saved = u.factors[mode];
          u.factors[mode] = NULL; /* not read */
          TPT_OK(tp_mttkrp_reference(&x, &u, mode, g));
          u.factors[mode] = saved;
          brute_mttkrp(&x, &u, mode, want);
          assert_close(g, want, n, 1e-12, "any order");
          free(g), free(want);
        }
        tp_kruskal_free(NULL, &u);
        tp_dense_free(NULL, &x);
      }
}

Test(dense, mttkrp_reference_rejects_bad_arguments) {
  const int64_t dims[3] = {2, 3, 4}, other[3] = {2, 3, 5};
  tp_dense x = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT);
  memset(x.data, 0, 24 * sizeof(double));
  tp_kruskal u, v;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 2, &u));
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, other, 2, &v));
  double g[8];
  TPT_FAILS_WITH(tp_mttkrp_reference(&x, &u, 3, g), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("mode 3");
  TPT_FAILS_WITH(tp_mttkrp_reference(&x, &u, -1, g), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_mttkrp_reference(&x, &v, 0, g), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("dims[2]");
  TPT_FAILS_WITH(tp_mttkrp_reference(&x, &u, 0, NULL), TP_ERROR_INVALID_ARGUMENT);
  void *saved = u.factors[1];
  u.factors[1] = NULL;
  TPT_FAILS_WITH(tp_mttkrp_reference(&x, &u, 0, g), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("factors[1]");
  u.factors[1] = saved;
  tp_kruskal_free(NULL, &u), tp_kruskal_free(NULL, &v);
  tp_dense_free(NULL, &x);
}

/* ---- CP residual reference --------------------------------------------------------------- */

Test(dense, cp_residual_reference_known_values) {
  /* M = 2 a o b o c with a = (1, 2), b = (1, 1), c = (3, 0): ||M|| = 2 sqrt(5) sqrt(2) 3. */
  const int64_t dims[3] = {2, 2, 2};
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 1, &m));
  ((double *)m.lambda)[0] = 2;
  const double a[2] = {1, 2}, b[2] = {1, 1}, c[2] = {3, 0};
  memcpy(m.factors[0], a, sizeof a);
  memcpy(m.factors[1], b, sizeof b);
  memcpy(m.factors[2], c, sizeof c);
  for (int l = 0; l < 2; ++l) {
    tp_dense x = host_tensor(TP_DTYPE_F32, 3, dims, both_layouts[l]);
    memset(x.data, 0, 8 * sizeof(float));
    double res;
    TPT_OK(tp_cp_residual_reference(&x, &m, &res));
    cr_assert(fabs(res - 6.0 * sqrt(10.0)) < 1e-12, "||M|| = %.17g", res);
    int64_t idx[3] = {0, 0, 0};
    do
      set(&x, idx, 2 * a[idx[0]] * b[idx[1]] * c[idx[2]]);
    while (next_index(3, dims, idx));
    TPT_OK(tp_cp_residual_reference(&x, &m, &res));
    cr_assert_eq(res, 0.0);
    const int64_t one[3] = {1, 0, 0};
    set(&x, one, get(&x, one) + 3.0);
    TPT_OK(tp_cp_residual_reference(&x, &m, &res));
    cr_assert(fabs(res - 3.0) < 1e-12);
    tp_dense_free(NULL, &x);
  }
  tp_kruskal_free(NULL, &m);
}

/* ---- generators ---------------------------------------------------------------------- */

Test(dense, uniform_values_lie_in_the_unit_interval) {
  const int64_t dims[3] = {47, 31, 73};
  const int64_t n = 47 * 31 * 73;
  for (int d = 0; d < 2; ++d) {
    tp_dense t = host_tensor(both_dtypes[d], 3, dims, TP_LAYOUT_LEFT);
    TPT_OK(tp_dense_random_uniform(&t, 12345));
    double lo = 1, hi = 0, sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      double v = load(t.data, t.dtype, i);
      cr_assert(v >= 0.0 && v < 1.0, "element %lld = %.17g", (long long)i, v);
      lo = v < lo ? v : lo, hi = v > hi ? v : hi, sum += v;
    }
    cr_assert(lo < 1e-3 && hi > 1 - 1e-3, "range [%g, %g]", lo, hi);
    cr_assert(fabs(sum / (double)n - 0.5) < 0.01, "mean %g", sum / (double)n);
    tp_dense_free(NULL, &t);
  }
}

Test(dense, float32_uniform_values_never_round_up_to_one) {
  const int64_t dims[2] = {1000, 1000};
  tp_dense t = host_tensor(TP_DTYPE_F32, 2, dims, TP_LAYOUT_RIGHT);
  TPT_OK(tp_dense_random_uniform(&t, 99));
  for (int64_t i = 0; i < 1000000; ++i)
    cr_assert(((float *)t.data)[i] < 1.0f);
  tp_dense_free(NULL, &t);
}

/* Fraction of elements in which a and b (same shape and layout) differ. */
static double fraction_differing(const tp_dense *a, const tp_dense *b) {
  int64_t n = tp_dense_count(a), diff = 0;
  for (int64_t i = 0; i < n; ++i)
    diff += load(a->data, a->dtype, i) != load(b->data, b->dtype, i);
  return (double)diff / (double)n;
}

Test(dense, generators_are_reproducible_and_seeds_differ) {
  const int64_t dims[4] = {7, 11, 5, 3};
  for (int d = 0; d < 2; ++d) {
    tp_dense a = host_tensor(both_dtypes[d], 4, dims, TP_LAYOUT_RIGHT);
    tp_dense b = host_tensor(both_dtypes[d], 4, dims, TP_LAYOUT_RIGHT);
    TPT_OK(tp_dense_random_uniform(&a, 7));
    TPT_OK(tp_dense_random_uniform(&b, 7));
    cr_assert_eq(fraction_differing(&a, &b), 0.0);
    TPT_OK(tp_dense_random_uniform(&b, 8));
    cr_assert(fraction_differing(&a, &b) > 0.99);
    TPT_OK(tp_dense_random_planted(&a, 3, 0.05, 7, NULL));
    TPT_OK(tp_dense_random_planted(&b, 3, 0.05, 7, NULL));
    cr_assert_eq(fraction_differing(&a, &b), 0.0);
    TPT_OK(tp_dense_random_planted(&b, 3, 0.05, 8, NULL));
    cr_assert(fraction_differing(&a, &b) > 0.99);
    tp_kruskal u, v;
    TPT_OK(tp_kruskal_alloc(NULL, both_dtypes[d], 4, dims, 3, &u));
    TPT_OK(tp_kruskal_alloc(NULL, both_dtypes[d], 4, dims, 3, &v));
    TPT_OK(tp_kruskal_random(&u, 7));
    TPT_OK(tp_kruskal_random(&v, 7));
    assert_same_kruskal(&u, &v);
    TPT_OK(tp_kruskal_random(&v, 8));
    cr_assert(memcmp(u.factors[1], v.factors[1], 33 * tp_dtype_size(u.dtype)) != 0);
    tp_kruskal_free(NULL, &u), tp_kruskal_free(NULL, &v);
    tp_dense_free(NULL, &a), tp_dense_free(NULL, &b);
  }
}

/* Values of seed 1, the same on every platform: a change of the generator shows here.
 * Uniform values are exact; normal values go through log and cos, hence a tolerance. */
Test(dense, generated_values_are_pinned) {
  static const double uniform[4] = {0.16006461874122768, 0.45634721907837461, 0.12770892347842311,
                                    0.43507405226714879};
  static const double planted[4] = {0.81255454906929803, 0.25840502068123411, 0.04264263423450243,
                                    0.05104373419469671};
  const int64_t dims[2] = {2, 2};
  tp_dense t = host_tensor(TP_DTYPE_F64, 2, dims, TP_LAYOUT_LEFT);
  tp_dense s = host_tensor(TP_DTYPE_F32, 2, dims, TP_LAYOUT_LEFT);
  TPT_OK(tp_dense_random_uniform(&t, 1));
  TPT_OK(tp_dense_random_uniform(&s, 1));
  for (int i = 0; i < 4; ++i) {
    double v = ((double *)t.data)[i], w = ((float *)s.data)[i];
    cr_assert_eq(v, uniform[i], "element %d: %.17g, expected %.17g", i, v, uniform[i]);
    /* float32 values are the float64 values cut to 24 bits */
    cr_assert(w <= v && v - w < 1.0 / 16777216.0, "%.17g vs %.17g", v, w);
  }
  TPT_OK(tp_dense_random_planted(&t, 2, 0.5, 1, NULL));
  for (int i = 0; i < 4; ++i)
    cr_assert(tpt_rel_diff(((double *)t.data)[i], planted[i]) < 1e-13, "element %d: %.17g", i,
              ((double *)t.data)[i]);
  tp_dense_free(NULL, &t), tp_dense_free(NULL, &s);
}

Test(dense, both_layouts_hold_the_same_random_tensor) {
  const int64_t dims[3] = {6, 5, 7};
  for (int d = 0; d < 2; ++d) {
    tp_dense a = host_tensor(both_dtypes[d], 3, dims, TP_LAYOUT_LEFT);
    tp_dense b = host_tensor(both_dtypes[d], 3, dims, TP_LAYOUT_RIGHT);
    TPT_OK(tp_dense_random_uniform(&a, 3));
    TPT_OK(tp_dense_random_uniform(&b, 3));
    assert_same_tensor(&a, &b, 0);
    TPT_OK(tp_dense_random_planted(&a, 4, 0.2, 3, NULL));
    TPT_OK(tp_dense_random_planted(&b, 4, 0.2, 3, NULL));
    assert_same_tensor(&a, &b, both_dtypes[d] == TP_DTYPE_F32 ? 1e-6 : 1e-14);
    tp_dense_free(NULL, &a), tp_dense_free(NULL, &b);
  }
}

Test(dense, thread_count_does_not_change_the_values) {
  const int64_t dims[3] = {61, 37, 29};
  tp_dense a = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_RIGHT);
  tp_dense b = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_RIGHT);
#ifdef _OPENMP
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  TPT_OK(tp_dense_random_planted(&a, 5, 0.3, 11, NULL));
#ifdef _OPENMP
  omp_set_num_threads(threads > 1 ? threads : 4);
#endif
  TPT_OK(tp_dense_random_planted(&b, 5, 0.3, 11, NULL));
  cr_assert_eq(fraction_differing(&a, &b), 0.0);
  tp_dense_free(NULL, &a), tp_dense_free(NULL, &b);
}

Test(dense, planted_without_noise_is_exactly_the_kruskal_tensor) {
  const int64_t dims[4] = {7, 5, 3, 4};
  for (int d = 0; d < 2; ++d)
    for (int l = 0; l < 2; ++l) {
      tp_dense x = host_tensor(both_dtypes[d], 4, dims, both_layouts[l]);
      tp_dense zero = host_tensor(TP_DTYPE_F64, 4, dims, both_layouts[l]);
      memset(zero.data, 0, 420 * sizeof(double));
      tp_kruskal truth, again;
      TPT_OK(tp_dense_random_planted(&x, 3, 0.0, 5, &truth));
      cr_assert(truth.rank == 3 && truth.order == 4 && truth.dtype == x.dtype);
      for (int r = 0; r < 3; ++r)
        cr_assert_eq(load(truth.lambda, truth.dtype, r), 1.0);
      for (int k = 0; k < 4; ++k)
        for (int64_t e = 0; e < dims[k] * 3; ++e) {
          double v = load(truth.factors[k], truth.dtype, e);
          cr_assert(v >= 0.0 && v < 1.0);
        }
      TPT_OK(tp_kruskal_alloc(NULL, x.dtype, 4, dims, 3, &again));
      TPT_OK(tp_kruskal_random(&again, tpi_rng_planted_seed(5)));
      assert_same_kruskal(&truth, &again);
      /* not the random start of the same seed (a method started there would begin at the
       * truth) */
      TPT_OK(tp_kruskal_random(&again, 5));
      cr_assert(memcmp(truth.factors[0], again.factors[0],
                       (size_t)(dims[0] * 3) * tp_dtype_size(x.dtype)) != 0,
                "the planted factors are tp_kruskal_random of the same seed");
      double res, norm;
      TPT_OK(tp_cp_residual_reference(&x, &truth, &res));
      TPT_OK(tp_cp_residual_reference(&zero, &truth, &norm));
      double tol = x.dtype == TP_DTYPE_F32 ? 1e-7 : 1e-15;
      cr_assert(norm > 1 && res <= tol * norm, "%s %s: residual %g of %g", tp_dtype_name(x.dtype),
                l ? "right" : "left", res, norm);
      tp_kruskal_free(NULL, &truth), tp_kruskal_free(NULL, &again);
      tp_dense_free(NULL, &x), tp_dense_free(NULL, &zero);
    }
}

Test(dense, planted_noise_has_the_requested_relative_size) {
  const int64_t dims[3] = {30, 20, 25};
  tp_dense x = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT);
  tp_dense zero = host_tensor(TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT);
  memset(zero.data, 0, 15000 * sizeof(double));
  const double noises[3] = {0.01, 0.1, 1.0};
  for (int i = 0; i < 3; ++i) {
    tp_kruskal truth;
    TPT_OK(tp_dense_random_planted(&x, 4, noises[i], 21, &truth));
    double res, norm, sum = 0;
    TPT_OK(tp_cp_residual_reference(&x, &truth, &res));
    TPT_OK(tp_cp_residual_reference(&zero, &truth, &norm));
    /* the noise is N(0, s^2) per element with s = noise ||M|| / sqrt(N); the relative
     * residual estimates noise with a standard deviation of about noise / sqrt(2N) */
    cr_assert(fabs(res / norm - noises[i]) < 0.03 * noises[i], "relative residual %g, noise %g",
              res / norm, noises[i]);
    int64_t idx[3] = {0, 0, 0};
    do { /* the noise has mean zero */
      double m = 0;
      for (int r = 0; r < 4; ++r)
        m += fget(&truth, 0, idx[0], r) * fget(&truth, 1, idx[1], r) * fget(&truth, 2, idx[2], r);
      sum += get(&x, idx) - m;
    } while (next_index(3, dims, idx));
    double s = noises[i] * norm / sqrt(15000.0);
    cr_assert(fabs(sum / 15000.0) < 5 * s / sqrt(15000.0), "noise mean %g, sigma %g", sum / 15000.0,
              s);
    tp_kruskal_free(NULL, &truth);
  }
  tp_dense_free(NULL, &x), tp_dense_free(NULL, &zero);
}

Test(dense, generators_reject_bad_arguments) {
  const int64_t dims[2] = {3, 3};
  tp_dense t = descriptor(2, dims);
  TPT_FAILS_WITH(tp_dense_random_uniform(&t, 1), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("data is NULL");
  tp_dense_free(NULL, &t);
  t = host_tensor(TP_DTYPE_F64, 2, dims, TP_LAYOUT_LEFT);
  tp_kruskal truth;
  TPT_FAILS_WITH(tp_dense_random_planted(&t, 0, 0.1, 1, &truth), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("rank 0");
  cr_assert_null(truth.lambda);
  TPT_FAILS_WITH(tp_dense_random_planted(&t, 2, -0.1, 1, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("noise");
  TPT_FAILS_WITH(tp_dense_random_planted(&t, 2, NAN, 1, NULL), TP_ERROR_INVALID_ARGUMENT);
  tp_kruskal k;
  memset(&k, 0, sizeof k);
  TPT_FAILS_WITH(tp_kruskal_random(&k, 1), TP_ERROR_INVALID_ARGUMENT);
  tp_dense_free(NULL, &t);
}

/* ---- misuse: freed tensors, stale copies, the wrong space, memory that is not there ---- */

static const int64_t misuse_dims[3] = {40, 30, 20};

static tp_dense space_tensor(void) {
  tp_dense t;
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, misuse_dims, TP_LAYOUT_LEFT, &t));
  TPT_OK(tp_memset(tpt_space, t.data, 0, 40 * 30 * 20 * sizeof(double)));
  return t;
}

static tp_kruskal space_kruskal(void) {
  tp_kruskal u;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, misuse_dims, 4, &u));
  return u;
}

/* Every use of X fails with TP_ERROR_INVALID_ARGUMENT and a message with `why`. */
static void assert_dense_rejected(const tp_dense *X, const char *why) {
  tp_kruskal U = space_kruskal();
  tp_dense host = host_tensor(TP_DTYPE_F64, 3, misuse_dims, TP_LAYOUT_LEFT);
  double *G = NULL;
  TPT_OK(tp_alloc(tpt_space, 40 * 4 * sizeof(double), (void **)&G));
  TPT_FAILS_WITH(tp_dense_check(X), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has(why);
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, X, &U, 0, G, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has(why);
  TPT_FAILS_WITH(tp_dense_copy_to_device(tpt_space, (tp_dense *)X, &host),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has(why);
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 4, o.max_iters = 2;
  TPT_FAILS_WITH(tp_cp_als(tpt_space, X, &o, &U, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has(why);
  TPT_OK(tp_dense_free(NULL, &host));
  TPT_OK(tp_kruskal_free(tpt_space, &U));
  TPT_OK(tp_free(tpt_space, G));
}

Test(dense, a_freed_tensor_is_rejected_by_every_function) {
  tp_dense X = space_tensor();
  TPT_OK(tp_dense_free(tpt_space, &X));
  cr_assert(X.data == NULL && X.order == 0, "the freed descriptor holds no shape");
  TPT_OK(tp_dense_free(tpt_space, &X)); /* freeing it again is harmless */
  cr_assert_eq(tp_dense_count(&X), -1);
  assert_dense_rejected(&X, "freed");
  tp_dense never;
  memset(&never, 0, sizeof never);
  assert_dense_rejected(&never, "never allocated");
  tp_kruskal U = space_kruskal();
  TPT_OK(tp_kruskal_free(tpt_space, &U));
  TPT_FAILS_WITH(tp_kruskal_check(&U), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
}

/* A copy of the descriptor made before the free still points at the freed block. */
Test(dense, a_stale_copy_of_a_freed_tensor_is_rejected) {
  tp_dense X = space_tensor();
  tp_dense stale = X;
  TPT_OK(tp_dense_free(tpt_space, &X));
  assert_dense_rejected(&stale, "freed");
  /* a second free is refused, not a crash */
  TPT_FAILS_WITH(tp_dense_free(tpt_space, &stale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("already freed");
  tp_dense h = host_tensor(TP_DTYPE_F64, 3, misuse_dims, TP_LAYOUT_LEFT);
  tp_dense hstale = h;
  TPT_OK(tp_dense_free(NULL, &h));
  tp_dense Y = space_tensor();
  TPT_FAILS_WITH(tp_dense_copy_to_device(tpt_space, &Y, &hstale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  TPT_FAILS_WITH(tp_dense_free(NULL, &hstale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("already freed");
  tp_kruskal U = space_kruskal(), ustale = U;
  TPT_OK(tp_kruskal_free(tpt_space, &U));
  TPT_FAILS_WITH(tp_kruskal_check(&ustale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  TPT_FAILS_WITH(tp_kruskal_free(tpt_space, &ustale), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(tp_dense_free(tpt_space, &Y));
}

/* A space tensor freed as a host one is refused (it stays the space's, and usable): no
 * double free when the space is destroyed. */
Test(dense, host_free_of_a_space_tensor_is_refused) {
  tp_dense X = space_tensor();
  TPT_FAILS_WITH(tp_dense_free(NULL, &X), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("belongs to a space");
  cr_assert_not_null(X.data, "a refused free leaves the descriptor as it was");
  tp_dense host = host_tensor(TP_DTYPE_F64, 3, misuse_dims, TP_LAYOUT_LEFT);
  memset(host.data, 0, 40 * 30 * 20 * sizeof(double));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &X, &host));
  TPT_OK(tp_dense_free(tpt_space, &X));
  TPT_OK(tp_dense_free(NULL, &host));
  tp_kruskal U = space_kruskal();
  TPT_FAILS_WITH(tp_kruskal_free(NULL, &U), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(U.lambda && U.factors[2], "a refused free leaves the factors");
  TPT_OK(tp_kruskal_free(tpt_space, &U));
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0);
}

/* A host tensor freed with a space is refused (no silent leak); the host free still works. */
Test(dense, space_free_of_a_host_tensor_is_refused) {
  tp_dense h = host_tensor(TP_DTYPE_F64, 3, misuse_dims, TP_LAYOUT_LEFT);
  TPT_FAILS_WITH(tp_dense_free(tpt_space, &h), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("free it with a NULL space");
  cr_assert_not_null(h.data, "a refused free leaves the descriptor as it was");
  memset(h.data, 0, 40 * 30 * 20 * sizeof(double));
  TPT_OK(tp_dense_free(NULL, &h));
  tp_kruskal u;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, misuse_dims, 4, &u));
  TPT_FAILS_WITH(tp_kruskal_free(tpt_space, &u), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(u.lambda && u.factors[0], "a refused free leaves the factors");
  TPT_OK(tp_kruskal_free(NULL, &u));
  /* memory tenport never allocated, freed with a space */
  double own[8];
  tp_dense mine = {TP_DTYPE_F64, 2, {2, 4}, TP_LAYOUT_LEFT, own};
  TPT_FAILS_WITH(tp_dense_free(tpt_space, &mine), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(mine.data == own);
}

/* TENPORT_HOST_MEMORY_LIMIT caps the memory the host check sees; nothing is allocated. */
Test(dense, host_allocations_beyond_the_memory_available_fail_with_sizes) {
  setenv("TENPORT_HOST_MEMORY_LIMIT", "3G", 1);
  const int64_t dims[3] = {1000, 1000, 1000};
  tp_dense t;
  TPT_FAILS_WITH(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &t),
                 TP_ERROR_OUT_OF_MEMORY);
  assert_message_has("a 8.0 GB dense tensor 1000x1000x1000 (float64) does not fit: 3.2 GB");
  assert_message_has("TENPORT_HOST_MEMORY_LIMIT");
  cr_assert(t.data == NULL && t.order == 0);
  setenv("TENPORT_HOST_MEMORY_LIMIT", "1G", 1);
  const int64_t kdims[3] = {5000000, 5000000, 5000000};
  tp_kruskal u;
  TPT_FAILS_WITH(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, kdims, 10, &u), TP_ERROR_OUT_OF_MEMORY);
  assert_message_has("a 1.2 GB Kruskal tensor 5000000x5000000x5000000, rank 10 (float64)");
  cr_assert(u.lambda == NULL && u.factors[0] == NULL);
}

/* In a space: host memory (host backends, with the cap) or the device's free memory. */
Test(dense, space_allocations_beyond_the_memory_available_fail_with_sizes) {
  setenv("TENPORT_HOST_MEMORY_LIMIT", "3G", 1);
  const int64_t dims[3] = {10000, 10000, 10000};
  tp_dense t;
  TPT_FAILS_WITH(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &t),
                 TP_ERROR_OUT_OF_MEMORY);
  assert_message_has("a 8.0 TB dense tensor 10000x10000x10000 (float64) does not fit");
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0);
}
