/* What the sparse suites (tests/sparse/test_*.c) share: a temporary directory per test (the
 * suites' .init and .fini), files in it, and random, canonical and empty COO tensors. */
#ifndef TPT_SPARSE_H
#define TPT_SPARSE_H

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tenport/tenport.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "tests/common/tpt.h"

#define TPT_SPARSE_UNUSED __attribute__((unused)) /* not every suite takes every helper */

static char sparse_dir[64];

static inline void sparse_setup(void) {
  tpt_setup();
  strcpy(sparse_dir, "/tmp/tenport-sparse-XXXXXX");
  cr_assert(mkdtemp(sparse_dir), "mkdtemp: %s", strerror(errno));
}

static inline void sparse_teardown(void) {
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

/* ---- helpers ------------------------------------------------------------------------ */

TPT_SPARSE_UNUSED static const tp_dtype both_dtypes[2] = {TP_DTYPE_F32, TP_DTYPE_F64};

/* A path in the test's directory (one of a few rotating buffers). */
static inline const char *tmp_path(const char *name) {
  static char paths[4][256];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", sparse_dir, name);
  return p;
}

static inline const char *write_text(const char *name, const char *text) {
  const char *path = tmp_path(name);
  FILE *f = fopen(path, "wb");
  cr_assert(f, "fopen %s: %s", path, strerror(errno));
  cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
  fclose(f);
  return path;
}

static inline void write_bytes(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert(f, "fopen %s: %s", path, strerror(errno));
  cr_assert_eq(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

/* The whole file in a malloc'ed buffer. */
static inline unsigned char *read_bytes(const char *path, size_t *n) {
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

static inline void assert_message_has(const char *needle) {
  cr_assert(strstr(tp_last_error(), needle), "message \"%s\" lacks \"%s\"", tp_last_error(),
            needle);
}

static inline double value_at(const tp_coo *t, int64_t k) {
  return t->dtype == TP_DTYPE_F32 ? (double)((const float *)t->values)[k]
                                  : ((const double *)t->values)[k];
}

static inline void set_value(tp_coo *t, int64_t k, double v) {
  if (t->dtype == TP_DTYPE_F32)
    ((float *)t->values)[k] = (float)v;
  else
    ((double *)t->values)[k] = v;
}

/* A host tensor of nnz nonzeros with random indices below dims and values in [-1, 1). */
static inline tp_coo random_tensor(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
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
static inline tp_coo canonical_tensor(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                                      tpt_rng *rng) {
  tp_coo t = random_tensor(dtype, order, dims, nnz, rng);
  TPT_OK(tp_coo_sum_duplicates(&t, NULL));
  return t;
}

static inline void assert_same_tensor(const tp_coo *a, const tp_coo *b) {
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

static inline int compare_coordinates(const tp_coo *t, int64_t a, int64_t b) {
  for (int m = 0; m < t->order; ++m)
    if (t->indices[m][a] != t->indices[m][b])
      return t->indices[m][a] < t->indices[m][b] ? -1 : 1;
  return 0;
}

static inline void assert_sorted_unique(const tp_coo *t) {
  for (int64_t k = 1; k < t->nnz; ++k)
    cr_assert(compare_coordinates(t, k - 1, k) < 0, "nonzeros %lld and %lld out of order",
              (long long)k - 1, (long long)k);
}

static inline tp_coo descriptor(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz) {
  tp_coo t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.order = order;
  memcpy(t.dims, dims, sizeof(int64_t) * (size_t)order);
  t.nnz = nnz;
  return t;
}

#endif
