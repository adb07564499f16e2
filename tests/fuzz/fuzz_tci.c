/* libFuzzer target for the tensor-train manifest reader (PREFIX.tci, see
 * algorithms/sttid/tci_io.c): tpi_tci_read_manifest_buffer on arbitrary bytes either fails,
 * with a message, leaving the tp_tci zeroed and owning nothing, or returns a descriptor
 * that keeps every rule the reader claims: order in [2, 16], dims >= 1, ranks[0] =
 * ranks[d] = 1, each inner rank in [1, min(rows, cols)] of its bond's matrix (products
 * saturated at 2^63 - 1), every pivot row below ranks[k] * dims[k] and every pivot column
 * below prod(dims[k+1..]), no pivot twice in a bond, no cores. Then:
 *   - the manifest printed back in the writer's canonical form reads back the same;
 *   - with empty cores of the right shapes, tpi_tci_check_contents accepts the train
 *     exactly when every bond's row count ranks[k] * dims[k] fits in 64 bits, and then
 *     every pivot's multi-index (tp_tci_pivot_row_index, _col_index) lies within dims.
 * Built by tests/fuzz/meson.build and run by tools/ci/fuzz.sh. Compiled with
 * -DFUZZ_TCI_WRITE_SEEDS it is instead a program that writes a seed corpus (manifests
 * written by tp_tci_write for STTIDs of small random tensors, and hand-written ones) into
 * the directory named by its argument. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/tenport.h"
#include "algorithms/sttid/tp_tci_internal.h"

#ifndef FUZZ_TCI_WRITE_SEEDS

static void check(int ok) {
  if (!ok)
    abort(); /* libFuzzer reports it as a crash and keeps the input */
}

static int is_zero(const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < n; ++i)
    if (b[i])
      return 0;
  return 1;
}

static int64_t saturated_product(int64_t a, int64_t b) {
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

static int64_t bond_rows(const tp_tci *t, int k) {
  return saturated_product(t->ranks[k], t->dims[k]);
}

static int64_t bond_cols(const tp_tci *t, int k) {
  int64_t p = 1;
  for (int m = k + 1; m < t->order; ++m)
    p = saturated_product(p, t->dims[m]);
  return p;
}

static int compare_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Every value of v[0..n) below limit, none twice. */
static void check_pivots(const int64_t *v, int64_t n, int64_t limit) {
  check(v != NULL);
  int64_t *s = (int64_t *)malloc((size_t)n * sizeof *s);
  check(s != NULL);
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, compare_i64);
  for (int64_t a = 0; a < n; ++a)
    check(s[a] >= 0 && s[a] < limit && (a == 0 || s[a] != s[a - 1]));
  free(s);
}

/* The descriptor keeps the reader's rules; it holds no cores. */
static void check_descriptor(const tp_tci *t) {
  int d = t->order;
  check(d >= 2 && d <= TP_COO_MAX_ORDER);
  for (int k = 0; k < d; ++k)
    check(t->dims[k] >= 1);
  for (int k = d; k < TP_COO_MAX_ORDER; ++k)
    check(t->dims[k] == 0);
  check(t->ranks[0] == 1 && t->ranks[d] == 1);
  for (int k = d + 1; k <= TP_COO_MAX_ORDER; ++k)
    check(t->ranks[k] == 0);
  for (int k = 0; k + 1 < d; ++k) {
    int64_t r = t->ranks[k + 1], rows = bond_rows(t, k), cols = bond_cols(t, k);
    check(r >= 1 && r <= rows && r <= cols);
    check_pivots(t->pivot_rows[k], r, rows);
    check_pivots(t->pivot_cols[k], r, cols);
  }
  for (int k = d - 1; k + 1 < TP_COO_MAX_ORDER; ++k)
    check(t->pivot_rows[k] == NULL && t->pivot_cols[k] == NULL);
  static const tp_coo no_core;
  for (int k = 0; k < TP_COO_MAX_ORDER; ++k)
    check(memcmp(&t->cores[k], &no_core, sizeof no_core) == 0);
}

/* The manifest as tp_tci_write prints it. */
static char *canonical(const tp_tci *t, size_t *n) {
  size_t cap = 1024; /* the first four lines: at most 16 dims and 17 ranks of 21 bytes */
  for (int k = 0; k + 1 < t->order; ++k)
    cap += 2 * (size_t)t->ranks[k + 1] * 21 + 32;
  char *s = (char *)malloc(cap);
  check(s != NULL);
  size_t len = (size_t)snprintf(s, cap, "tenport-tci 1\norder %d\ndims", t->order);
  for (int k = 0; k < t->order; ++k)
    len += (size_t)snprintf(s + len, cap - len, " %lld", (long long)t->dims[k]);
  len += (size_t)snprintf(s + len, cap - len, "\nranks");
  for (int k = 0; k <= t->order; ++k)
    len += (size_t)snprintf(s + len, cap - len, " %lld", (long long)t->ranks[k]);
  len += (size_t)snprintf(s + len, cap - len, "\n");
  for (int k = 0; k + 1 < t->order; ++k)
    for (int side = 0; side < 2; ++side) {
      len += (size_t)snprintf(s + len, cap - len, "bond %d %s", k, side ? "cols" : "rows");
      const int64_t *v = side ? t->pivot_cols[k] : t->pivot_rows[k];
      for (int64_t a = 0; a < t->ranks[k + 1]; ++a)
        len += (size_t)snprintf(s + len, cap - len, " %lld", (long long)v[a]);
      len += (size_t)snprintf(s + len, cap - len, "\n");
    }
  check(len < cap);
  *n = len;
  return s;
}

static void check_same(const tp_tci *a, const tp_tci *b) {
  check(a->order == b->order);
  check(memcmp(a->dims, b->dims, sizeof a->dims) == 0);
  check(memcmp(a->ranks, b->ranks, sizeof a->ranks) == 0);
  for (int k = 0; k + 1 < a->order; ++k) {
    size_t bytes = (size_t)a->ranks[k + 1] * sizeof(int64_t);
    check(memcmp(a->pivot_rows[k], b->pivot_rows[k], bytes) == 0);
    check(memcmp(a->pivot_cols[k], b->pivot_cols[k], bytes) == 0);
  }
}

/* With empty cores, the library's own checks and the pivots' multi-indices. */
static void check_with_cores(tp_tci *t) {
  int d = t->order, rows_fit = 1;
  for (int k = 0; k < d; ++k)
    rows_fit = rows_fit && t->ranks[k] <= INT64_MAX / t->dims[k];
  for (int k = 0; k < d; ++k) {
    int64_t shape[3] = {t->ranks[k], t->dims[k], t->ranks[k + 1]};
    if (tp_coo_alloc(NULL, TP_DTYPE_F64, 3, shape, 0, &t->cores[k]) != TP_SUCCESS)
      return; /* tp_tci_free releases the cores made so far */
  }
  tp_status st = tpi_tci_check_contents(t);
  check((st == TP_SUCCESS) == rows_fit);
  if (st != TP_SUCCESS)
    return;
  int64_t index[TP_COO_MAX_ORDER];
  for (int k = 0; k + 1 < d; ++k)
    for (int64_t a = 0; a < t->ranks[k + 1]; ++a) {
      check(tp_tci_pivot_row_index(t, k, a, index) == TP_SUCCESS);
      for (int m = 0; m <= k; ++m)
        check(index[m] >= 0 && index[m] < t->dims[m]);
      check(tp_tci_pivot_col_index(t, k, a, index) == TP_SUCCESS);
      for (int m = k + 1; m < d; ++m)
        check(index[m - k - 1] >= 0 && index[m - k - 1] < t->dims[m]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tp_tci t;
  memset(&t, 0x5a, sizeof t); /* whatever the caller's struct held */
  tp_clear_error();
  if (tpi_tci_read_manifest_buffer("fuzz.tci", data, size, &t) != TP_SUCCESS) {
    check(is_zero(&t, sizeof t) && tp_last_error()[0] != '\0');
    return 0;
  }
  check_descriptor(&t);

  size_t n = 0;
  char *text = canonical(&t, &n);
  tp_tci back;
  check(tpi_tci_read_manifest_buffer("canonical.tci", text, n, &back) == TP_SUCCESS);
  check_same(&t, &back);
  tp_tci_free(&back);
  free(text);

  check_with_cores(&t);
  tp_tci_free(&t);
  check(is_zero(&t, sizeof t));
  return 0;
}

#else

#include <dirent.h>

#include "tests/fuzz/fuzz_seeds.h"
#include <unistd.h>

static int write_text(const char *name, const char *text) {
  return fuzz_write_file(name, NULL, 0, text, strlen(text));
}

/* Removes the files of a folder and the folder. */
static void remove_folder(const char *dir) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      unlink(path);
  }
  if (d)
    closedir(d);
  rmdir(dir);
}

/* The manifest tp_tci_write gives for the STTID of a random power-law tensor. */
static int write_sttid(const char *name, tp_space *space, int order, const int64_t *dims,
                       int64_t nnz, int64_t rmax, uint64_t seed) {
  char dir[] = "/tmp/tenport-fuzz-tci-XXXXXX", prefix[4096], path[4096];
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 0;
  }
  snprintf(prefix, sizeof prefix, "%s/train", dir);
  snprintf(path, sizeof path, "%s.tci", prefix);
  tp_coo x;
  tp_tci t;
  memset(&t, 0, sizeof t);
  tp_sttid_options opt;
  memset(&opt, 0, sizeof opt);
  opt.rmax = rmax;
  opt.eps = 1e-12;
  tp_status st = tp_sttid_random(TP_STTID_RANDOM_POWER_LAW, order, dims, nnz, 1.5, seed, &x);
  if (st == TP_SUCCESS) {
    st = tp_sttid(space, &x, &opt, &t, NULL);
    tp_coo_free(NULL, &x);
  }
  if (st == TP_SUCCESS)
    st = tp_tci_write(prefix, &t);
  tp_tci_free(&t);
  char text[1 << 16];
  size_t n = 0;
  FILE *f = st == TP_SUCCESS ? fopen(path, "rb") : NULL;
  if (f) {
    n = fread(text, 1, sizeof text, f);
    fclose(f);
  }
  remove_folder(dir);
  if (st != TP_SUCCESS || n == 0) {
    fprintf(stderr, "%s: %s\n", name, tp_last_error());
    return 0;
  }
  return fuzz_write_file(name, NULL, 0, text, n);
}

/* Order 16 with every dim 2^63 - 1: the longest lines, every product saturated. */
static int write_widest(void) {
  char text[4096];
  size_t len = (size_t)snprintf(text, sizeof text, "tenport-tci 1\norder 16\ndims");
  for (int k = 0; k < 16; ++k)
    len += (size_t)snprintf(text + len, sizeof text - len, " 9223372036854775807");
  len += (size_t)snprintf(text + len, sizeof text - len, "\nranks 1");
  for (int k = 1; k < 16; ++k)
    len += (size_t)snprintf(text + len, sizeof text - len, " 2");
  len += (size_t)snprintf(text + len, sizeof text - len, " 1\n");
  for (int k = 0; k < 15; ++k)
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "bond %d rows 9223372036854775806 0\nbond %d cols 1 0\n", k, k);
  return len < sizeof text && fuzz_write_file("hand_widest.tci", NULL, 0, text, len);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  fuzz_seed_dir = argv[1];
  tp_space *space = NULL;
  if (tp_space_create(&space, NULL) != TP_SUCCESS) {
    fprintf(stderr, "tp_space_create: %s\n", tp_last_error());
    return 1;
  }
  const int64_t d2[2] = {6, 5}, d3[3] = {4, 5, 3}, d4[4] = {3, 2, 4, 2}, d5[5] = {2, 3, 2, 2, 3};
  int ok = write_sttid("sttid_order2.tci", space, 2, d2, 12, 4, 1) &&
           write_sttid("sttid_order3.tci", space, 3, d3, 20, 3, 2) &&
           write_sttid("sttid_order4.tci", space, 4, d4, 18, 4, 3) &&
           write_sttid("sttid_order5_rank1.tci", space, 5, d5, 9, 1, 4);
  tp_space_destroy(&space);
  ok = ok &&
       write_text("hand_comments.tci",
                  "# a tensor train\r\ntenport-tci 1   # version\n\norder 3\n"
                  "dims\t4 5 3\nranks 1 2 2 1\nbond 0 rows 3 1\nbond 0 cols 7 14\n"
                  "bond 1 rows 9 0\nbond 1 cols 2 0\n") &&
       write_text("hand_wide.tci",
                  "tenport-tci 1\norder 2\ndims 9223372036854775807 2\nranks 1 2 1\n"
                  "bond 0 rows 9223372036854775806 0\nbond 0 cols 1 0\n") &&
       write_text("hand_rows_overflow.tci",
                  "tenport-tci 1\norder 3\ndims 4 4611686018427387904 2\nranks 1 4 2 1\n"
                  "bond 0 rows 0 1 2 3\nbond 0 cols 0 1 2 3\n"
                  "bond 1 rows 5 9223372036854775806\nbond 1 cols 0 1\n") &&
       write_text("hand_repeated_pivot.tci",
                  "tenport-tci 1\norder 2\ndims 3 3\nranks 1 2 1\nbond 0 rows 1 1\n"
                  "bond 0 cols 0 2\n") &&
       write_text("hand_bad_version.tci", "tenport-tci 2\norder 2\n") &&
       write_text("hand_truncated.tci", "tenport-tci 1\norder 2\ndims 3 3\nranks 1 2") &&
       fuzz_write_file("empty.tci", NULL, 0, "", 0) && write_widest();
  return ok ? 0 : 1;
}

#endif
