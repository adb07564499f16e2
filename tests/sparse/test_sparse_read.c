/* The readers' parallel paths on arrays of many blocks: .tpb arrays read in place (8-byte
 * indices, values of the tensor's precision) or through the staging buffer, the first
 * bad element of an array reported whatever block it is in, the duplicate merge of long
 * runs that cross blocks, and results that do not depend on the thread count. */
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

static char read_dir[64];

static void read_setup(void) {
  tpt_setup();
  snprintf(read_dir, sizeof read_dir, "/tmp/tp-sparse-read-XXXXXX");
  cr_assert_not_null(mkdtemp(read_dir));
}

static void read_teardown(void) {
  char path[128];
  snprintf(path, sizeof path, "%s/t.tpb", read_dir);
  unlink(path);
  rmdir(read_dir);
  tpt_teardown();
}

TestSuite(sparse_read, .init = read_setup, .fini = read_teardown);

enum { NNZ = 200003 }; /* four blocks of 2^16 and a few more */

static double value_at(const tp_coo *t, int64_t k) {
  return t->dtype == TP_DTYPE_F32 ? (double)((const float *)t->values)[k]
                                  : ((const double *)t->values)[k];
}

/* A sorted tensor without duplicates: nonzero k at (k / d1 / d2, k / d2 % d1, k % d2)
 * scaled into the dims, values small integers plus a fraction exact in float32. */
static tp_coo sorted_tensor(tp_dtype dtype, const int64_t *dims) {
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, dtype, 3, dims, NNZ, &t));
  for (int64_t k = 0; k < NNZ; ++k) {
    t.indices[0][k] = k / 1000 * (dims[0] / 1000);
    t.indices[1][k] = k % 1000 / 10;
    t.indices[2][k] = k % 10;
    double v = (double)(k % 17) - 8.5;
    if (dtype == TP_DTYPE_F32)
      ((float *)t.values)[k] = (float)v;
    else
      ((double *)t.values)[k] = v;
  }
  return t;
}

/* The file's bytes, written by tp_coo_write_binary. */
static unsigned char *binary_of(const tp_coo *t, size_t *n) {
  char path[128];
  snprintf(path, sizeof path, "%s/t.tpb", read_dir);
  TPT_OK(tp_coo_write_binary(path, t));
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f);
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = tpt_host_alloc(*n);
  cr_assert_eq(fread(b, 1, *n, f), *n);
  fclose(f);
  return b;
}

static void assert_same(const tp_coo *a, const tp_coo *b) {
  cr_assert_eq(a->nnz, b->nnz);
  for (int m = 0; m < a->order; ++m)
    cr_assert(memcmp(a->indices[m], b->indices[m], sizeof(int64_t) * (size_t)a->nnz) == 0,
              "mode %d differs", m);
  for (int64_t k = 0; k < a->nnz; ++k)
    cr_assert_eq(value_at(a, k), value_at(b, k), "value %lld", (long long)k);
}

static const int64_t small_dims[3] = {1000000, 100, 10};          /* 4-byte indices */
static const int64_t large_dims[3] = {(int64_t)1 << 40, 100, 10}; /* 8-byte indices */

/* Both index widths, both file precisions, both tensor precisions: every array read in
 * place or staged gives the tensor written. */
Test(sparse_read, tpb_arrays_in_place_and_staged) {
  for (int wide = 0; wide < 2; ++wide)
    for (int fd = 0; fd < 2; ++fd)
      for (int td = 0; td < 2; ++td) {
        tp_dtype file_dtype = fd ? TP_DTYPE_F64 : TP_DTYPE_F32;
        tp_dtype dtype = td ? TP_DTYPE_F64 : TP_DTYPE_F32;
        tp_coo t = sorted_tensor(file_dtype, wide ? large_dims : small_dims), back, want;
        size_t n;
        unsigned char *b = binary_of(&t, &n);
        TPT_OK(tpi_coo_read_binary_buffer("t.tpb", b, n, dtype, &back, NULL));
        TPT_OK(tp_coo_alloc(NULL, dtype, 3, t.dims, t.nnz, &want));
        for (int m = 0; m < 3; ++m)
          memcpy(want.indices[m], t.indices[m], sizeof(int64_t) * (size_t)t.nnz);
        for (int64_t k = 0; k < t.nnz; ++k) {
          if (dtype == TP_DTYPE_F32)
            ((float *)want.values)[k] = (float)value_at(&t, k);
          else
            ((double *)want.values)[k] = value_at(&t, k);
        }
        assert_same(&want, &back);
        tp_coo_free(NULL, &back), tp_coo_free(NULL, &want), tp_coo_free(NULL, &t);
        free(b);
      }
}

/* Little-endian element k of the array starting at byte `at` (width w) set to v. */
static void put_element(unsigned char *b, size_t at, int w, int64_t k, uint64_t v) {
  for (int i = 0; i < w; ++i)
    b[at + (size_t)(k * w + i)] = (unsigned char)(v >> 8 * i);
}

static void expect_error(const unsigned char *b, size_t n, tp_dtype dtype, const char *needle) {
  tp_coo t;
  TPT_FAILS_WITH(tpi_coo_read_binary_buffer("t.tpb", b, n, dtype, &t, NULL), TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), needle), "'%s' not in: %s", needle, tp_last_error());
  cr_assert_null(t.values);
}

/* Two bad indices of mode 1 in different blocks, then two bad values: the message names
 * the first of each, in place and staged. */
Test(sparse_read, tpb_reports_the_first_bad_element) {
  for (int wide = 0; wide < 2; ++wide) {
    tp_coo t = sorted_tensor(TP_DTYPE_F64, wide ? large_dims : small_dims);
    size_t n;
    unsigned char *b = binary_of(&t, &n), *c = tpt_host_alloc(n);
    const int w = wide ? 8 : 4;
    const size_t header = 32 + 8 * 3, mode1 = header + (size_t)NNZ * (size_t)w;
    const size_t values = header + 3 * (size_t)NNZ * (size_t)w;
    memcpy(c, b, n);
    put_element(c, mode1, w, 190001, 100);
    put_element(c, mode1, w, 70001, 101);
    expect_error(c, n, TP_DTYPE_F64, "nonzero 70001, mode 1: index 101 is beyond");
    double nan = NAN, inf = INFINITY;
    uint64_t nan_bits, inf_bits;
    memcpy(&nan_bits, &nan, 8), memcpy(&inf_bits, &inf, 8);
    for (int dtype = 0; dtype < 2; ++dtype) { /* staged into f32, in place into f64 */
      memcpy(c, b, n);
      put_element(c, values, 8, 199999, nan_bits);
      put_element(c, values, 8, 131073, inf_bits);
      expect_error(c, n, dtype ? TP_DTYPE_F64 : TP_DTYPE_F32, "nonzero 131073: value inf");
    }
    memcpy(c, b, n);
    put_element(c, values, 8, 150000, 0x47f0000000000000ull); /* 2^128 */
    expect_error(c, n, TP_DTYPE_F32, "nonzero 150000: value 3.40282e+38 overflows float32");
    tp_coo back;
    TPT_OK(tpi_coo_read_binary_buffer("t.tpb", c, n, TP_DTYPE_F64, &back, NULL));
    tp_coo_free(NULL, &back), tp_coo_free(NULL, &t);
    free(b), free(c);
  }
}

/* Runs of equal coordinates longer than a block, and runs across blocks' edges: the
 * sums, in the nonzeros' order, and the same for any thread count. */
Test(sparse_read, merge_of_long_runs_across_blocks) {
  const int64_t dims[3] = {7, 5, 3}, nnz = 300007;
  tp_coo a, b;
  int threads[2] = {1, 4};
  for (int r = 0; r < 2; ++r) {
#ifdef _OPENMP
    omp_set_num_threads(threads[r]);
#else
    (void)threads;
#endif
    tp_coo *t = r ? &b : &a;
    TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F32, 3, dims, nnz, t));
    for (int64_t k = 0; k < nnz; ++k) { /* runs of 100000, 31074, 65537, 65537, 37859 */
      int64_t c = k < 100000 ? 0 : k / 65537 + 1;
      t->indices[0][k] = c % 7, t->indices[1][k] = c / 7 % 5, t->indices[2][k] = 0;
      ((float *)t->values)[k] = (float)(k % 3) * 0.5f;
    }
    int64_t merged;
    TPT_OK(tp_coo_sum_duplicates(t, &merged));
    cr_assert_eq(t->nnz + merged, nnz);
  }
  cr_assert_eq(a.nnz, 5);
  assert_same(&a, &b);
  double want[5] = {0};
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t c = k < 100000 ? 0 : k / 65537 + 1;
    want[c == 0 ? 0 : c - 1] += (double)(k % 3) * 0.5;
  }
  for (int64_t k = 0; k < a.nnz; ++k)
    cr_assert_eq(value_at(&a, k), (double)(float)want[k], "run %lld", (long long)k);
  tp_coo_free(NULL, &a), tp_coo_free(NULL, &b);
}
