/* STTID's files and test data: the generator of power-law and knowledge-graph tensors
 * (exact distinct nonzero counts, sorted, in range, their value laws, one tensor per
 * seed, bad arguments refused) and TCI files (exact round trips of a tensor train built
 * by hand, and every malformed manifest or core refused with its file and line, leaving
 * the output empty). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tenport/tenport.h"
#include "tests/common/tpt.h"

static char io_dir[64];

static void io_setup(void) {
  strcpy(io_dir, "/tmp/tenport-sttid-io-XXXXXX");
  cr_assert(mkdtemp(io_dir), "mkdtemp: %s", strerror(errno));
}

static void io_teardown(void) {
  DIR *dir = opendir(io_dir);
  for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", io_dir, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      unlink(path);
  }
  if (dir)
    closedir(dir);
  rmdir(io_dir);
}

/* No space is needed: everything here runs on the host. */
TestSuite(sttid_io, .init = io_setup, .fini = io_teardown);

/* ---- helpers ------------------------------------------------------------------------ */

/* A path in the test's directory (one of a few rotating buffers). */
static const char *tmp_path(const char *name) {
  static char paths[4][256];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", io_dir, name);
  return p;
}

static void write_text(const char *path, const char *text, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert(f, "fopen %s: %s", path, strerror(errno));
  cr_assert_eq(fwrite(text, 1, n, f), n);
  fclose(f);
}

/* The whole file, NUL-terminated, in a malloc'ed buffer. */
static char *read_text(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  cr_assert(f, "fopen %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = (char *)tpt_host_alloc(*n + 1);
  cr_assert_eq(fread(b, 1, *n, f), *n);
  b[*n] = '\0';
  fclose(f);
  return b;
}

static void assert_message_has(const char *needle) {
  cr_assert(strstr(tp_last_error(), needle), "message \"%s\" lacks \"%s\"", tp_last_error(),
            needle);
}

static int compare_coordinates(const tp_coo *t, int64_t a, int64_t b) {
  for (int m = 0; m < t->order; ++m)
    if (t->indices[m][a] != t->indices[m][b])
      return t->indices[m][a] < t->indices[m][b] ? -1 : 1;
  return 0;
}

/* Sorted, no coordinate twice, every index in range and every value finite. */
static void assert_canonical(const tp_coo *t) {
  TPT_OK(tp_coo_validate(t));
  for (int64_t k = 1; k < t->nnz; ++k)
    cr_assert(compare_coordinates(t, k - 1, k) < 0,
              "nonzeros %lld and %lld out of order or "
              "equal",
              (long long)k - 1, (long long)k);
}

static void assert_same_tensor(const tp_coo *a, const tp_coo *b) {
  cr_assert(a->dtype == b->dtype && a->order == b->order, "dtype or order differ");
  cr_assert_eq(a->nnz, b->nnz, "nnz %lld vs %lld", (long long)a->nnz, (long long)b->nnz);
  for (int m = 0; m < a->order; ++m) {
    cr_assert_eq(a->dims[m], b->dims[m], "dims[%d]", m);
    cr_assert(a->nnz == 0 ||
                  !memcmp(a->indices[m], b->indices[m], sizeof(int64_t) * (size_t)a->nnz),
              "indices of mode %d differ", m);
  }
  cr_assert(a->nnz == 0 || !memcmp(a->values, b->values, sizeof(double) * (size_t)a->nnz),
            "values differ");
}

static int all_zero(const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < n; ++i)
    if (b[i])
      return 0;
  return 1;
}

/* ---- the generator ------------------------------------------------------------------- */

static double value_of(const tp_coo *t, int64_t k) { return ((const double *)t->values)[k]; }

/* The paper's Rnd5 and Rnd6 shapes and counts. */
Test(sttid_io, power_law_gives_exactly_nnz_distinct_sorted_nonzeros) {
  const int64_t dims5[4] = {100, 100, 100, 100}, dims6[5] = {50, 50, 50, 50, 50};
  const struct {
    int order;
    const int64_t *dims;
    int64_t nnz;
  } cases[2] = {{4, dims5, 12729}, {5, dims6, 27843}};
  for (int c = 0; c < 2; ++c) {
    tp_coo t;
    TPT_OK(tp_sttid_random(TP_STTID_RANDOM_POWER_LAW, cases[c].order, cases[c].dims, cases[c].nnz,
                           2.0, 7, &t));
    cr_assert_eq(t.dtype, TP_DTYPE_F64);
    cr_assert_eq(t.order, cases[c].order);
    cr_assert_eq(t.nnz, cases[c].nnz, "nnz %lld", (long long)t.nnz);
    for (int m = 0; m < t.order; ++m)
      cr_assert_eq(t.dims[m], cases[c].dims[m]);
    assert_canonical(&t);
    double largest = 0;
    for (int64_t k = 0; k < t.nnz; ++k) {
      cr_assert(value_of(&t, k) >= 1.0, "value %lld is %g < 1", (long long)k, value_of(&t, k));
      largest = fmax(largest, value_of(&t, k));
    }
    /* Pareto(2): P(v > 10) = 1 / 100, so thousands of draws hold a heavy tail. */
    cr_assert(largest > 10, "no heavy tail: largest value %g", largest);
    tp_coo_free(NULL, &t);
  }
}

/* Shape 2 at scale 1: the median is sqrt(2), so about half the values are below it. */
Test(sttid_io, power_law_values_follow_the_pareto_law) {
  const int64_t dims[3] = {1000, 1000, 1000};
  tp_coo t;
  TPT_OK(tp_sttid_random(TP_STTID_RANDOM_POWER_LAW, 3, dims, 20000, 2.0, 3, &t));
  int64_t below = 0;
  for (int64_t k = 0; k < t.nnz; ++k)
    below += value_of(&t, k) < sqrt(2.0);
  double fraction = (double)below / (double)t.nnz;
  cr_assert(fabs(fraction - 0.5) < 0.02, "%.4f of the values below the median", fraction);
  tp_coo_free(NULL, &t);
}

/* The paper's Wiki3 shape: 66 relations, 12270 entities. */
Test(sttid_io, knowledge_is_binary_with_uniform_relations_and_skewed_entities) {
  const int64_t dims[4] = {66, 12270, 12270, 12270};
  tp_coo t;
  TPT_OK(tp_sttid_random(TP_STTID_RANDOM_KNOWLEDGE, 4, dims, 25820, 0.0, 11, &t));
  cr_assert_eq(t.nnz, 25820);
  assert_canonical(&t);
  int64_t low[4] = {0, 0, 0, 0};
  for (int64_t k = 0; k < t.nnz; ++k) {
    cr_assert(value_of(&t, k) == 1.0, "value %lld is %g", (long long)k, value_of(&t, k));
    for (int m = 0; m < 4; ++m)
      low[m] += t.indices[m][k] < dims[m] / 8;
  }
  /* The first eighth of a mode: 8 of 66 relations (12%), but half of the entities'
   * appearances (u^3 < 1/8 when u < 1/2). */
  double relations = (double)low[0] / (double)t.nnz;
  cr_assert(relations > 0.10 && relations < 0.145, "relations: %.4f in the first eighth",
            relations);
  for (int m = 1; m < 4; ++m) {
    double f = (double)low[m] / (double)t.nnz;
    cr_assert(fabs(f - 0.5) < 0.02, "mode %d: %.4f in the first eighth", m, f);
  }
  tp_coo_free(NULL, &t);
}

Test(sttid_io, every_entry_can_be_drawn) {
  const int64_t dims[3] = {3, 4, 5}, kdims[3] = {4, 3, 3};
  tp_coo t;
  TPT_OK(tp_sttid_random(TP_STTID_RANDOM_POWER_LAW, 3, dims, 60, 1.5, 5, &t));
  cr_assert_eq(t.nnz, 60);
  assert_canonical(&t);
  tp_coo_free(NULL, &t);
  TPT_OK(tp_sttid_random(TP_STTID_RANDOM_KNOWLEDGE, 3, kdims, 36, 0.0, 5, &t));
  cr_assert_eq(t.nnz, 36);
  assert_canonical(&t);
  tp_coo_free(NULL, &t);
  TPT_OK(tp_sttid_random(TP_STTID_RANDOM_POWER_LAW, 2, dims, 0, 1.5, 5, &t));
  cr_assert(t.nnz == 0 && t.order == 2 && t.dims[1] == 4, "an empty tensor keeps its shape");
  tp_coo_free(NULL, &t);
}

Test(sttid_io, one_tensor_per_seed) {
  const int64_t dims[3] = {40, 30, 20};
  for (int kind = 0; kind < 2; ++kind) {
    tp_sttid_random_kind k = (tp_sttid_random_kind)kind;
    tp_coo a, b, c;
    TPT_OK(tp_sttid_random(k, 3, dims, 3000, 1.2, 99, &a));
    TPT_OK(tp_sttid_random(k, 3, dims, 3000, 1.2, 99, &b));
    TPT_OK(tp_sttid_random(k, 3, dims, 3000, 1.2, 100, &c));
    assert_same_tensor(&a, &b);
    int differ = 0;
    for (int64_t e = 0; e < a.nnz && !differ; ++e)
      differ = a.indices[0][e] != c.indices[0][e] || a.indices[1][e] != c.indices[1][e] ||
               a.indices[2][e] != c.indices[2][e];
    cr_assert(differ, "kind %d: seeds 99 and 100 gave the same pattern", kind);
    tp_coo_free(NULL, &a), tp_coo_free(NULL, &b), tp_coo_free(NULL, &c);
  }
}

/* Indices and binary values involve exact arithmetic only: pinned for every platform. */
Test(sttid_io, knowledge_coordinates_are_pinned) {
  const int64_t dims[3] = {10, 1000, 1000};
  const int64_t want[4][3] = {{4, 5, 60}, {7, 30, 121}, {8, 36, 52}, {9, 100, 56}};
  tp_coo t;
  TPT_OK(tp_sttid_random(TP_STTID_RANDOM_KNOWLEDGE, 3, dims, 4, 0.0, 2026, &t));
  cr_assert_eq(t.nnz, 4);
  for (int k = 0; k < 4; ++k)
    cr_assert(t.indices[0][k] == want[k][0] && t.indices[1][k] == want[k][1] &&
                  t.indices[2][k] == want[k][2],
              "nonzero %d: (%lld, %lld, %lld)", k, (long long)t.indices[0][k],
              (long long)t.indices[1][k], (long long)t.indices[2][k]);
  tp_coo_free(NULL, &t);
}

static void expect_random_fails(tp_sttid_random_kind kind, int order, const int64_t *dims,
                                int64_t nnz, double alpha, const char *needle) {
  tp_coo t;
  memset(&t, 0x5a, sizeof t);
  tp_clear_error();
  TPT_FAILS_WITH(tp_sttid_random(kind, order, dims, nnz, alpha, 1, &t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has(needle);
  cr_assert(all_zero(&t, sizeof t), "the output is not zeroed after '%s'", needle);
}

Test(sttid_io, generator_rejects_bad_arguments) {
  const int64_t dims[3] = {3, 4, 5}, zero[3] = {3, 0, 5};
  const tp_sttid_random_kind P = TP_STTID_RANDOM_POWER_LAW, K = TP_STTID_RANDOM_KNOWLEDGE;
  expect_random_fails(P, 3, dims, 61, 2.0, "61 distinct nonzeros asked of a tensor of 60");
  expect_random_fails(K, 3, dims, 61, 2.0, "of 60 entries");
  expect_random_fails(P, 3, dims, -1, 2.0, "negative");
  expect_random_fails(P, 3, zero, 1, 2.0, "dims[1] = 0");
  expect_random_fails(P, 0, dims, 1, 2.0, "order 0");
  expect_random_fails(P, 17, dims, 1, 2.0, "order 17");
  expect_random_fails(K, 1, dims, 1, 2.0, "order 1 is outside [2, 16]");
  expect_random_fails(P, 3, dims, 1, 0.0, "alpha");
  expect_random_fails(P, 3, dims, 1, -1.0, "alpha");
  expect_random_fails(P, 3, dims, 1, NAN, "alpha");
  expect_random_fails(P, 3, dims, 1, INFINITY, "alpha");
  expect_random_fails((tp_sttid_random_kind)7, 3, dims, 1, 2.0, "kind 7");
  expect_random_fails(P, 3, NULL, 1, 2.0, "dims is NULL");
  TPT_FAILS_WITH(tp_sttid_random(P, 3, dims, 1, 2.0, 1, NULL), TP_ERROR_INVALID_ARGUMENT);
  /* Dims whose product passes 2^63 still allow any nnz. */
  const int64_t huge[3] = {INT64_MAX / 2, 4, 3};
  tp_coo t;
  TPT_OK(tp_sttid_random(P, 3, huge, 100, 2.0, 1, &t));
  assert_canonical(&t);
  tp_coo_free(NULL, &t);
}

/* 16 modes of 2: the entry of all 1s in the entity modes comes up once in ~5e10 draws,
 * so a full tensor is out of reach; the draw cap turns that into an error. */
Test(sttid_io, unreachable_counts_fail_instead_of_hanging) {
  int64_t dims[16];
  for (int m = 0; m < 16; ++m)
    dims[m] = 2;
  tp_coo t;
  tp_clear_error();
  TPT_FAILS_WITH(tp_sttid_random(TP_STTID_RANDOM_KNOWLEDGE, 16, dims, 65536, 0.0, 1, &t),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("distinct coordinates of the 65536 asked for");
  cr_assert(all_zero(&t, sizeof t));
}

/* ---- TCI files: a tensor train built by hand ---------------------------------------- */

/* Order 3, dims (3, 4, 2), ranks (1, 2, 2, 1). M_0 is 3 x 8 and M_1 is 8 x 2. */
static const int64_t tci_dims[3] = {3, 4, 2};
static const int64_t tci_ranks[4] = {1, 2, 2, 1};
static const int64_t tci_rows[2][2] = {{2, 0}, {7, 1}};
static const int64_t tci_cols[2][2] = {{5, 1}, {1, 0}};

typedef struct entry {
  int64_t a, u, b;
  double v;
} entry;

static const entry core0[] = {{0, 0, 1, 0.1}, {0, 2, 0, -3.25e-300}, {0, 2, 1, 1.0 / 3}};
static const entry core1[] = {
    {0, 0, 0, 2.5}, {0, 1, 1, -0.0}, {0, 3, 0, 1e300}, {1, 1, 1, 7.0}, {1, 3, 1, -2.0 / 7}};
static const entry core2[] = {{0, 1, 0, 4.9e-324}, {1, 0, 0, -1.5}};

static void fill_core(tp_coo *g, int k, const entry *e, int64_t n) {
  int64_t dims[3] = {tci_ranks[k], tci_dims[k], tci_ranks[k + 1]};
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, n, g));
  for (int64_t i = 0; i < n; ++i) {
    g->indices[0][i] = e[i].a, g->indices[1][i] = e[i].u, g->indices[2][i] = e[i].b;
    ((double *)g->values)[i] = e[i].v;
  }
}

static int64_t *copy_pivots(const int64_t *v) {
  int64_t *p = (int64_t *)tpt_host_alloc(2 * sizeof(int64_t));
  memcpy(p, v, 2 * sizeof(int64_t));
  return p;
}

static tp_tci hand_tci(void) {
  tp_tci t;
  memset(&t, 0, sizeof t);
  t.order = 3;
  memcpy(t.dims, tci_dims, sizeof tci_dims);
  memcpy(t.ranks, tci_ranks, sizeof tci_ranks);
  fill_core(&t.cores[0], 0, core0, 3);
  fill_core(&t.cores[1], 1, core1, 5);
  fill_core(&t.cores[2], 2, core2, 2);
  for (int k = 0; k < 2; ++k) {
    t.pivot_rows[k] = copy_pivots(tci_rows[k]);
    t.pivot_cols[k] = copy_pivots(tci_cols[k]);
  }
  return t;
}

static void assert_same_tci(const tp_tci *a, const tp_tci *b) {
  cr_assert_eq(a->order, b->order);
  for (int k = 0; k < a->order; ++k) {
    cr_assert_eq(a->dims[k], b->dims[k], "dims[%d]", k);
    assert_same_tensor(&a->cores[k], &b->cores[k]);
  }
  for (int k = 0; k <= a->order; ++k)
    cr_assert_eq(a->ranks[k], b->ranks[k], "ranks[%d]", k);
  for (int k = 0; k + 1 < a->order; ++k) {
    size_t bytes = sizeof(int64_t) * (size_t)a->ranks[k + 1];
    cr_assert(!memcmp(a->pivot_rows[k], b->pivot_rows[k], bytes), "bond %d's rows", k);
    cr_assert(!memcmp(a->pivot_cols[k], b->pivot_cols[k], bytes), "bond %d's cols", k);
  }
}

Test(sttid_io, tci_round_trip_is_exact) {
  tp_tci t = hand_tci(), back;
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s", tmp_path("hand"));
  TPT_OK(tp_tci_write(prefix, &t));
  TPT_OK(tp_tci_read(prefix, &back));
  assert_same_tci(&t, &back);
  cr_assert(signbit(((double *)back.cores[1].values)[1]), "-0 lost its sign");
  /* Writing over existing files, and what was read, gives the same again. */
  tp_tci again;
  TPT_OK(tp_tci_write(prefix, &back));
  TPT_OK(tp_tci_read(prefix, &again));
  assert_same_tci(&t, &again);
  tp_tci_free(&again);
  tp_tci_free(&back);
  tp_tci_free(&t);
  cr_assert(access(tmp_path("hand.tci"), F_OK) == 0 &&
            access(tmp_path("hand.core2.tns"), F_OK) == 0);
}

Test(sttid_io, tci_manifest_text) {
  tp_tci t = hand_tci();
  TPT_OK(tp_tci_write(tmp_path("text"), &t));
  size_t n;
  char *text = read_text(tmp_path("text.tci"), &n);
  const char *want = "tenport-tci 1\norder 3\ndims 3 4 2\nranks 1 2 2 1\n"
                     "bond 0 rows 2 0\nbond 0 cols 5 1\nbond 1 rows 7 1\nbond 1 cols 1 0\n";
  cr_assert_str_eq(text, want);
  free(text);
  tp_tci_free(&t);
}

/* Comments, blank lines and other spacing are read like the writer's layout. */
Test(sttid_io, tci_reader_skips_comments_and_blanks) {
  tp_tci t = hand_tci(), back;
  TPT_OK(tp_tci_write(tmp_path("loose"), &t));
  const char *text = "# a tensor train\ntenport-tci 1\r\n\n  order\t3   # three modes\n"
                     "dims 3 4 2\nranks 1 2 2 1\nbond 0 rows 2 0\nbond 0 cols 5 1\n\n"
                     "bond 1 rows 7  1\nbond 1 cols 1 0";
  write_text(tmp_path("loose.tci"), text, strlen(text));
  TPT_OK(tp_tci_read(tmp_path("loose"), &back));
  assert_same_tci(&t, &back);
  tp_tci_free(&back);
  tp_tci_free(&t);
}

Test(sttid_io, tci_writer_rejects_inconsistent_trains) {
  tp_tci t = hand_tci();
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s", tmp_path("bad"));
  t.pivot_rows[0][1] = 2; /* row 2 twice */
  TPT_FAILS_WITH(tp_tci_write(prefix, &t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("pivot row 2 twice");
  t.pivot_rows[0][1] = 3; /* M_0 has 3 rows */
  TPT_FAILS_WITH(tp_tci_write(prefix, &t), TP_ERROR_INVALID_ARGUMENT);
  t.pivot_rows[0][1] = 0;
  t.ranks[0] = 2;
  TPT_FAILS_WITH(tp_tci_write(prefix, &t), TP_ERROR_INVALID_ARGUMENT);
  t.ranks[0] = 1;
  TPT_FAILS_WITH(tp_tci_write(NULL, &t), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_tci_write("", &t), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_tci_write(prefix, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(access(tmp_path("bad.tci"), F_OK) != 0, "a rejected train left a manifest");
  TPT_OK(tp_tci_write(prefix, &t));
  tp_tci_free(&t);
}

/* Ranks beyond what a bond's matrix allows: 1 x 2 x 1 x 2 has M_0 of 1 x 2, so rank 1. */
Test(sttid_io, tci_writer_rejects_ranks_beyond_the_matrix) {
  tp_tci t;
  memset(&t, 0, sizeof t);
  t.order = 2, t.dims[0] = 1, t.dims[1] = 2;
  t.ranks[0] = 1, t.ranks[1] = 2, t.ranks[2] = 1;
  int64_t d0[3] = {1, 1, 2}, d1[3] = {2, 2, 1};
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, d0, 0, &t.cores[0]));
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, d1, 0, &t.cores[1]));
  int64_t rows[2] = {0, 0}, cols[2] = {0, 1};
  t.pivot_rows[0] = copy_pivots(rows), t.pivot_cols[0] = copy_pivots(cols);
  TPT_FAILS_WITH(tp_tci_write(tmp_path("wide"), &t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("ranks[1] = 2 exceeds 1");
  tp_tci_free(&t);
}

/* ---- TCI files: malformed input ------------------------------------------------------- */

static void assert_empty_tci(const tp_tci *t, const char *what) {
  cr_assert(all_zero(t, sizeof *t), "%s: the output is not zeroed", what);
}

typedef struct bad_manifest {
  const char *text;
  size_t len; /* 0: strlen(text) */
  const char *line, *detail;
} bad_manifest;

#define HEAD "tenport-tci 1\norder 3\ndims 3 4 2\n"
#define RANKS "ranks 1 2 2 1\n"
#define BOND0 "bond 0 rows 2 0\nbond 0 cols 5 1\n"
#define BOND1 "bond 1 rows 7 1\nbond 1 cols 1 0\n"
#define WITH_NUL "tenport-tci 1\norder 3\ndims 3 4\0 2\n"

static const bad_manifest bad_manifests[] = {
    {"", 0, "bad.tci", "empty file"},
    {"# only a comment\n\n", 0, "bad.tci", "empty file"},
    {"tenport-tt 1\n", 0, "line 1", "not a tenport TCI manifest"},
    {"tenport-tci\n", 0, "line 1", "format version: '' is not an integer"},
    {"tenport-tci 2\n", 0, "line 1", "format version 2; this reader knows version 1"},
    {"tenport-tci 1 x\n", 0, "line 1", "unexpected 'x'"},
    {"tenport-tci 1\n", 0, "line 1", "ends before the order"},
    {"tenport-tci 1\nordre 3\n", 0, "line 2", "expected the order ('order ...'), found 'ordre'"},
    {"tenport-tci 1\norder 1\n", 0, "line 2", "order 1 is outside [2, 16]"},
    {"tenport-tci 1\norder 17\n", 0, "line 2", "order 17 is outside"},
    {"tenport-tci 1\norder -3\n", 0, "line 2", "'-3' is not an integer"},
    {"tenport-tci 1\norder 99999999999999999999\n", 0, "line 2", "is not an integer in [0, 2^63)"},
    {"tenport-tci 1\norder 3 3\n", 0, "line 2", "unexpected '3'"},
    {"tenport-tci 1\norder 3\ndims 3 4\n", 0, "line 3", "the dims: 2 values, expected 3"},
    {"tenport-tci 1\norder 3\ndims 3 4 2 5\n", 0, "line 3", "4 values, expected 3"},
    {"tenport-tci 1\norder 3\ndims 3 0 2\n", 0, "line 3", "dims[1] = 0"},
    {"tenport-tci 1\norder 3\ndims 3 4x 2\n", 0, "line 3", "'4x' is not an integer"},
    {HEAD, 0, "line 3", "ends before the ranks"},
    {HEAD "ranks 1 2 2\n", 0, "line 4", "the ranks: 3 values, expected 4"},
    {HEAD "ranks 2 2 2 1\n", 0, "line 4", "boundary ranks are 2 and 1"},
    {HEAD "ranks 1 2 2 3\n", 0, "line 4", "boundary ranks are 1 and 3"},
    {HEAD "ranks 1 4 2 1\n", 0, "line 4",
     "ranks[1] = 4 is outside [1, 3] (bond 0's matrix is 3 x 8)"},
    {HEAD "ranks 1 3 3 1\n", 0, "line 4", "ranks[2] = 3 is outside [1, 2]"},
    {HEAD "ranks 1 0 2 1\n", 0, "line 4", "ranks[1] = 0 is outside"},
    {HEAD RANKS, 0, "line 4", "ends before bond 0's pivot rows"},
    {HEAD RANKS "bond 1 rows 2 0\n", 0, "line 5",
     "expected bond 0's pivot rows ('bond 0 rows ...')"},
    {HEAD RANKS "bond 0 cols 2 0\n", 0, "line 5", "expected bond 0's pivot rows"},
    {HEAD RANKS "pivots 0 rows 2 0\n", 0, "line 5", "found 'pivots'"},
    {HEAD RANKS "bond 0 rows 2\n", 0, "line 5", "bond 0's pivot rows: 1 value, expected 2"},
    {HEAD RANKS "bond 0 rows 2 0 1\n", 0, "line 5", "3 values, expected 2"},
    {HEAD RANKS "bond 0 rows 3 0\n", 0, "line 5",
     "bond 0's pivot rows: pivot 0 is 3, outside [0, 3)"},
    {HEAD RANKS "bond 0 rows 2 2\n", 0, "line 5", "bond 0's pivot rows: 2 appears twice"},
    {HEAD RANKS "bond 0 rows 2 -1\n", 0, "line 5", "'-1' is not an integer"},
    {HEAD RANKS "bond 0 rows 2 0\nbond 0 cols 5 8\n", 0, "line 6", "pivot 1 is 8, outside [0, 8)"},
    {HEAD RANKS BOND0 "bond 1 rows 8 1\n", 0, "line 7", "pivot 0 is 8, outside [0, 8)"},
    {HEAD RANKS BOND0 "bond 1 rows 7 1\nbond 1 cols 1 2\n", 0, "line 8", "outside [0, 2)"},
    {HEAD RANKS BOND0 "bond 1 rows 7 1\nbond 1 cols 0 0\n", 0, "line 8", "0 appears twice"},
    {HEAD RANKS BOND0 "bond 1 rows 7 1\n", 0, "line 7", "ends before bond 1's pivot cols"},
    {HEAD RANKS BOND0 "bond 1 rows 7 1\nbond 1 cols 1", 0, "line 8", "1 value, expected 2"},
    {HEAD RANKS BOND0 BOND1 "bond 2 rows 1\n", 0, "line 9",
     "unexpected 'bond' after the last bond"},
    {WITH_NUL, sizeof WITH_NUL - 1, "line 3", "the dims: '4?' is not an integer"},
};

/* The manifests above, each over a good set of cores. */
Test(sttid_io, tci_reader_names_file_line_and_problem) {
  tp_tci good = hand_tci();
  TPT_OK(tp_tci_write(tmp_path("bad"), &good));
  tp_tci_free(&good);
  for (size_t i = 0; i < sizeof bad_manifests / sizeof bad_manifests[0]; ++i) {
    const bad_manifest *b = &bad_manifests[i];
    write_text(tmp_path("bad.tci"), b->text, b->len ? b->len : strlen(b->text));
    tp_tci t;
    memset(&t, 0x5a, sizeof t);
    tp_clear_error();
    tp_status st = tp_tci_read(tmp_path("bad"), &t);
    cr_assert_eq(st, TP_ERROR_FORMAT, "case %zu (%s): %s", i, tp_status_name(st), tp_last_error());
    cr_assert(strstr(tp_last_error(), "bad.tci") && strstr(tp_last_error(), b->line) &&
                  strstr(tp_last_error(), b->detail),
              "case %zu: message \"%s\" lacks \"%s\" or \"%s\"", i, tp_last_error(), b->line,
              b->detail);
    assert_empty_tci(&t, b->detail);
  }
}

Test(sttid_io, tci_reader_checks_the_core_files) {
  tp_tci good = hand_tci(), t;
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s", tmp_path("cores"));
  TPT_OK(tp_tci_write(prefix, &good));
  tp_tci_free(&good);
  /* An index beyond the shape the manifest gives (core 2 is 2 x 2 x 1). */
  const char *outside = "1 1 1 1.0\n1 1 2 2.0\n";
  write_text(tmp_path("cores.core2.tns"), outside, strlen(outside));
  memset(&t, 0x5a, sizeof t);
  TPT_FAILS_WITH(tp_tci_read(prefix, &t), TP_ERROR_FORMAT);
  assert_message_has("cores.core2.tns");
  assert_message_has("line 2");
  assert_empty_tci(&t, "index out of range");
  /* Four indices in an order-3 core. */
  const char *wide = "1 1 1 1 1.0\n";
  write_text(tmp_path("cores.core2.tns"), wide, strlen(wide));
  TPT_FAILS_WITH(tp_tci_read(prefix, &t), TP_ERROR_FORMAT);
  assert_message_has("cores.core2.tns");
  assert_empty_tci(&t, "wrong order");
  /* The same coordinate twice. */
  const char *twice = "1 1 1 1.0\n1 1 1 2.0\n";
  write_text(tmp_path("cores.core2.tns"), twice, strlen(twice));
  TPT_FAILS_WITH(tp_tci_read(prefix, &t), TP_ERROR_FORMAT);
  assert_message_has("cores.core2.tns: 1 entry repeats a coordinate");
  assert_empty_tci(&t, "duplicates");
  /* A missing core. */
  cr_assert_eq(unlink(tmp_path("cores.core1.tns")), 0);
  TPT_FAILS_WITH(tp_tci_read(prefix, &t), TP_ERROR_IO);
  assert_message_has("cores.core1.tns");
  assert_empty_tci(&t, "missing core");
  /* An empty core file is a core without entries. */
  write_text(tmp_path("cores.core1.tns"), "", 0);
  write_text(tmp_path("cores.core2.tns"), "", 0);
  TPT_OK(tp_tci_read(prefix, &t));
  cr_assert(t.cores[1].nnz == 0 && t.cores[1].dims[0] == 2 && t.cores[1].dims[2] == 2);
  tp_tci_free(&t);
}

Test(sttid_io, tci_reader_rejects_bad_arguments_and_missing_manifests) {
  tp_tci t;
  memset(&t, 0x5a, sizeof t);
  TPT_FAILS_WITH(tp_tci_read(tmp_path("nothing"), &t), TP_ERROR_IO);
  assert_message_has("nothing.tci");
  assert_empty_tci(&t, "missing manifest");
  memset(&t, 0x5a, sizeof t);
  TPT_FAILS_WITH(tp_tci_read(NULL, &t), TP_ERROR_INVALID_ARGUMENT);
  assert_empty_tci(&t, "NULL prefix");
  TPT_FAILS_WITH(tp_tci_read(tmp_path("x"), NULL), TP_ERROR_INVALID_ARGUMENT);
}

/* Every prefix of a good manifest, and every byte of it replaced, is read or refused
 * without a crash; a refusal leaves the output empty. Of the prefixes, only the whole
 * text and the text without its final newline read back. */
Test(sttid_io, tci_reader_survives_truncation_and_corruption) {
  tp_tci good = hand_tci();
  char prefix[256];
  snprintf(prefix, sizeof prefix, "%s", tmp_path("cut"));
  TPT_OK(tp_tci_write(prefix, &good));
  size_t n;
  char *text = read_text(tmp_path("cut.tci"), &n);
  char *copy = (char *)tpt_host_alloc(n + 1);
  const char subs[] = {'\0', ' ', '\n', '#', '9', '-', 'x', '\xff'};
  for (size_t len = 0; len <= n; ++len) {
    for (int s = -1; s < (int)sizeof subs; ++s) {
      memcpy(copy, text, n);
      size_t used = s < 0 ? len : n;
      if (s >= 0 && len < n)
        copy[len] = subs[s];
      else if (s >= 0)
        continue;
      write_text(tmp_path("cut.tci"), copy, used);
      tp_tci t;
      memset(&t, 0x5a, sizeof t);
      tp_status st = tp_tci_read(prefix, &t);
      if (s < 0)
        cr_assert_eq(st == TP_SUCCESS, len + 1 >= n, "length %zu of %zu: %s", len, n,
                     tp_last_error());
      if (st == TP_SUCCESS) {
        TPT_OK(tp_tci_write(tmp_path("cut-again"), &t));
        tp_tci_free(&t);
      } else {
        cr_assert(st == TP_ERROR_FORMAT, "length %zu, sub %d: %s", len, s, tp_last_error());
        assert_empty_tci(&t, "corrupt manifest");
      }
    }
  }
  free(copy);
  free(text);
  tp_tci_free(&good);
}
