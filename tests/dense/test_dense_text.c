/* Dense text (the "tensor" format of GenTen and the Tensor Toolbox): the reader and the
 * writer against the .npy reader on random tensors of awkward sizes, orders 1 to 5, both
 * layouts, float32 and float64; text spelled by the test itself (comments, blank lines,
 * CRLF, exponents, GenTen's index-base word) against strtod; every malformed case with
 * its line; the format sniff; gzip outputs read back; and the sparse <-> dense
 * conversions against plain loops. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "algorithms/io/tp_io_internal.h"
#include "tests/common/tpt.h"

#if defined(__SANITIZE_ADDRESS__)
#define DENSE_TEXT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DENSE_TEXT_ASAN 1
#endif
#endif

static char dir[64];

static void setup(void) {
  tpt_setup();
  strcpy(dir, "/tmp/tenport-dense-text-XXXXXX");
  cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static void teardown(void) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      unlink(path);
  }
  if (d)
    closedir(d);
  rmdir(dir);
  tpt_teardown();
}

TestSuite(dense_text, .init = setup, .fini = teardown);

/* ---- helpers ------------------------------------------------------------------------- */

static const char *path_of(const char *name) {
  static char paths[4][256];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", dir, name);
  return p;
}

/* Reads text (n bytes, NULs allowed) through a memory input named "t.txt". */
static tp_status read_buffer(const char *text, size_t n, tp_dtype dtype, tp_dense *t) {
  tp_input in;
  tpi_input_init_buffer(&in, "t.txt", text, n);
  tp_status st = tp_dense_read_text_input(&in, dtype, t);
  tpi_input_release(&in);
  return st;
}

static tp_status read_text(const char *text, tp_dtype dtype, tp_dense *t) {
  return read_buffer(text, strlen(text), dtype, t);
}

/* Fails unless reading text fails with status, with every piece of want (NULL-ended)
 * in the message, and leaves the tensor zeroed. */
static void assert_refused(const char *text, tp_dtype dtype, tp_status status,
                           const char *const *want) {
  tp_dense t;
  memset(&t, 0x5a, sizeof t);
  TPT_FAILS_WITH(read_text(text, dtype, &t), status);
  for (const char *const *w = want; *w; ++w)
    cr_assert(strstr(tp_last_error(), *w), "'%s' not in: %s", *w, tp_last_error());
  static const tp_dense zero;
  cr_assert(!memcmp(&t, &zero, sizeof t), "the tensor was not zeroed");
}

#define REFUSED(text, dtype, status, ...)            \
  do {                                               \
    const char *const want_[] = {__VA_ARGS__, NULL}; \
    assert_refused(text, dtype, status, want_);      \
  } while (0)

/* Element (multi-index idx) of a tensor in any layout, as double. */
static double element(const tp_dense *t, const int64_t *idx) {
  int64_t off = 0, stride = 1;
  for (int p = 0; p < t->order; ++p) {
    int k = t->layout == TP_LAYOUT_LEFT ? p : t->order - 1 - p;
    off += idx[k] * stride;
    stride *= t->dims[k];
  }
  return t->dtype == TP_DTYPE_F32 ? ((const float *)t->data)[off] : ((const double *)t->data)[off];
}

/* Moves idx to the next multi-index, first index fastest; 0 after the last. */
static int next_left(int order, const int64_t *dims, int64_t *idx) {
  for (int k = 0; k < order; ++k) {
    if (++idx[k] < dims[k])
      return 1;
    idx[k] = 0;
  }
  return 0;
}

/* Same shape and type, and the same value bit for bit at every multi-index. */
static void assert_same_tensor(const tp_dense *a, const tp_dense *b, const char *what) {
  cr_assert_eq(a->order, b->order, "%s: order %d vs %d", what, a->order, b->order);
  cr_assert_eq(a->dtype, b->dtype, "%s: dtype", what);
  for (int k = 0; k < a->order; ++k)
    cr_assert_eq(a->dims[k], b->dims[k], "%s: dims[%d]", what, k);
  int64_t idx[TP_DENSE_MAX_ORDER] = {0};
  do {
    double x = element(a, idx), y = element(b, idx);
    cr_assert(!memcmp(&x, &y, sizeof x), "%s: %.17g vs %.17g at (%lld, ...)", what, x, y,
              (long long)idx[0]);
  } while (next_left(a->order, a->dims, idx));
}

/* A value of a random kind: integers, short decimals, wide magnitudes, signed zeros. */
static double random_value(tpt_rng *rng, tp_dtype dtype) {
  double big = dtype == TP_DTYPE_F32 ? 30 : 300;
  switch (tpt_int(rng, 0, 5)) {
  case 0: return (double)tpt_int(rng, -1000, 1000);
  case 1: return (double)tpt_int(rng, -99999, 99999) / 1000.0;
  case 2: return tpt_uniform(rng, -1, 1) * pow(10, tpt_uniform(rng, -big, big));
  case 3: return tpt_int(rng, 0, 1) ? 0.0 : -0.0;
  default: return tpt_uniform(rng, -1, 1);
  }
}

/* A random host tensor of the given order with awkward dims (1, primes, odd sizes). */
static void random_tensor(tpt_rng *rng, tp_dtype dtype, int order, tp_layout layout, tp_dense *t) {
  static const int64_t sizes[] = {1, 2, 3, 5, 7, 11, 13};
  int64_t dims[TP_DENSE_MAX_ORDER];
  for (int k = 0; k < order; ++k)
    dims[k] = sizes[tpt_int(rng, 0, order > 3 ? 4 : 6)];
  TPT_OK(tp_dense_alloc(NULL, dtype, order, dims, layout, t));
  for (int64_t i = 0; i < tp_dense_count(t); ++i) {
    double v = random_value(rng, dtype);
    if (dtype == TP_DTYPE_F32)
      ((float *)t->data)[i] = (float)v;
    else
      ((double *)t->data)[i] = v;
  }
}

/* ---- the writer and the reader against .npy ------------------------------------------- */

Test(dense_text, text_and_npy_give_the_same_tensor_for_orders_2_to_5) {
  tpt_rng rng = tpt_rng_fresh();
  for (int order = 2; order <= 5; ++order)
    for (int layout = 0; layout < 2; ++layout)
      for (int d = 0; d < 2; ++d) {
        tp_dtype dtype = d ? TP_DTYPE_F32 : TP_DTYPE_F64;
        tp_dense x, from_npy, from_text, sniffed;
        random_tensor(&rng, dtype, order, (tp_layout)layout, &x);
        TPT_OK(tp_dense_write_npy(path_of("x.npy"), &x));
        TPT_OK(tp_dense_write_text(path_of("x.txt"), &x));
        TPT_OK(tp_dense_read_npy(path_of("x.npy"), dtype, &from_npy));
        TPT_OK(tp_dense_read_text(path_of("x.txt"), dtype, &from_text));
        cr_assert_eq(from_text.layout, TP_LAYOUT_LEFT);
        assert_same_tensor(&from_npy, &from_text, "text vs npy");
        assert_same_tensor(&x, &from_text, "text vs the tensor written");
        tp_input *in;
        TPT_OK(tp_input_open(&in, path_of("x.txt")));
        TPT_OK(tp_dense_read_input(in, dtype, &sniffed));
        tp_input_close(&in);
        assert_same_tensor(&x, &sniffed, "text read by its content");
        tp_dense_free(NULL, &x), tp_dense_free(NULL, &from_npy);
        tp_dense_free(NULL, &from_text), tp_dense_free(NULL, &sniffed);
      }
}

/* Order 1 is no dense tensor of tenport's: both readers refuse it, naming the order. */
Test(dense_text, order_1_is_refused_by_both_readers) {
  double v[3] = {1, 2, 3};
  int64_t n = 3;
  TPT_OK(tp_npy_write(path_of("v.npy"), TP_DTYPE_F64, 1, &n, 0, v));
  tp_dense t;
  TPT_FAILS_WITH(tp_dense_read_npy(path_of("v.npy"), TP_DTYPE_F64, &t), TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "2 to 16"), "%s", tp_last_error());
  REFUSED("tensor\n1\n3\n1\n2\n3\n", TP_DTYPE_F64, TP_ERROR_FORMAT, "line 2", "order 1",
          "2 to 16 modes");
}

/* Text spelled by the test: each value with a spelling of its own, comments and blank
 * lines anywhere, against strtod / strtof of the same spelling. */
Test(dense_text, every_spelling_reads_as_strtod_reads_it) {
  tpt_rng rng = tpt_rng_fresh();
  static const char *const spellings[] = {"%.17g", "%.17e", "%+.9g", "%.3f", "%.0f", "%g"};
  enum { COUNT = 7 * 1 * 13 };
  for (int d = 0; d < 2; ++d) {
    tp_dtype dtype = d ? TP_DTYPE_F32 : TP_DTYPE_F64;
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    double want[COUNT];
    len += (size_t)snprintf(text + len, cap - len,
                            "// GenTen's comment\n# ours\ntensor indices-start-at-one\r\n\n"
                            "3 # the order\n 7\t1 13 \n");
    for (int i = 0; i < COUNT; ++i) {
      char field[64];
      snprintf(field, sizeof field, spellings[tpt_int(&rng, 0, 5)],
               random_value(&rng, TP_DTYPE_F32));
      want[i] = dtype == TP_DTYPE_F32 ? (double)strtof(field, NULL) : strtod(field, NULL);
      int how = (int)tpt_int(&rng, 0, 3);
      len += (size_t)snprintf(text + len, cap - len,
                              how == 0   ? "  %s\r\n"
                              : how == 1 ? "%s # a comment\n\n"
                              : how == 2 ? "// a line\n%s\n"
                                         : "%s\n",
                              field);
    }
    text[--len] = '\0'; /* no line end after the last value */
    tp_dense t;
    TPT_OK(read_buffer(text, len, dtype, &t));
    cr_assert(t.order == 3 && t.dims[0] == 7 && t.dims[1] == 1 && t.dims[2] == 13);
    for (int i = 0; i < COUNT; ++i) {
      double got = dtype == TP_DTYPE_F32 ? ((float *)t.data)[i] : ((double *)t.data)[i];
      cr_assert(!memcmp(&got, &want[i], sizeof got), "value %d: %.17g, strtod %.17g", i, got,
                want[i]);
    }
    tp_dense_free(NULL, &t);
    free(text);
  }
}

Test(dense_text, genten_s_header_word_and_a_file_without_line_end_are_read) {
  tp_dense t;
  TPT_OK(read_text("tensor indices-start-at-zero\n2\n1 2\n-1.5\n2.25", TP_DTYPE_F64, &t));
  cr_assert(((double *)t.data)[0] == -1.5 && ((double *)t.data)[1] == 2.25);
  tp_dense_free(NULL, &t);
}

/* ---- every malformed file, with its line --------------------------------------------- */

Test(dense_text, a_malformed_header_is_named_with_its_line) {
  const tp_dtype f64 = TP_DTYPE_F64;
  REFUSED("tensors\n2\n1 1\n1\n", f64, TP_ERROR_FORMAT, "line 1", "starts with a line 'tensor'");
  REFUSED("# c\nsptensor\n2\n1 1\n1\n", f64, TP_ERROR_FORMAT, "line 2", "'tensor'");
  REFUSED("tensor maybe\n2\n1 1\n1\n", f64, TP_ERROR_FORMAT, "line 1", "indices-start-at-zero");
  REFUSED("tensor\nx\n1 1\n1\n", f64, TP_ERROR_FORMAT, "line 2", "'x' is not an order");
  REFUSED("tensor\n\n0\n1 1\n1\n", f64, TP_ERROR_FORMAT, "line 3", "from 1 to 16");
  REFUSED("tensor\n17\n1\n", f64, TP_ERROR_FORMAT, "line 2", "'17' is not an order");
  REFUSED("tensor\n2 3\n1 1\n1\n", f64, TP_ERROR_FORMAT, "line 2", "'2 ...' is not an order");
  REFUSED("tensor\n3\n2 2\n1\n", f64, TP_ERROR_FORMAT, "line 3", "2 dims", "order (line 2) is 3");
  REFUSED("tensor\n2\n2 0\n1\n", f64, TP_ERROR_FORMAT, "line 3", "dim 1 ('0')");
  REFUSED("tensor\n2\n2 -4\n1\n", f64, TP_ERROR_FORMAT, "dim 1 ('-4') is not a positive");
  REFUSED("tensor\n2\n2 3.0\n1\n", f64, TP_ERROR_FORMAT, "dim 1 ('3.0')");
  REFUSED("tensor\n2\n99999999999999999999 1\n", f64, TP_ERROR_FORMAT, "dim 0");
  REFUSED("tensor\n3\n4294967296 4294967296 4\n1\n", f64, TP_ERROR_OVERFLOW, "line 3",
          "more than 2^63 elements");
  REFUSED("tensor\n2\n", f64, TP_ERROR_FORMAT, "ends at line 2", "in its header");
  REFUSED("\n# only comments\n", f64, TP_ERROR_FORMAT, "ends at line 2", "in its header");
  REFUSED("", f64, TP_ERROR_FORMAT, "t.txt is empty");
}

Test(dense_text, malformed_values_are_named_with_their_line) {
  const tp_dtype f64 = TP_DTYPE_F64, f32 = TP_DTYPE_F32;
  REFUSED("tensor\n2\n2 2\n1\n2\nabc\n4\n", f64, TP_ERROR_FORMAT, "line 6",
          "'abc' is not a number");
  REFUSED("tensor\n2\n2 2\n1\n2\n1.5x\n4\n", f64, TP_ERROR_FORMAT, "line 6", "'1.5x'");
  REFUSED("tensor\n2\n2 2\n1\n2 3\n4\n", f64, TP_ERROR_FORMAT, "line 5", "2 fields",
          "one value per line");
  REFUSED("tensor\n2\n2 2\n1\nnan\n3\n4\n", f64, TP_ERROR_FORMAT, "line 5", "not finite");
  REFUSED("tensor\n2\n2 2\n1\n-inf\n3\n4\n", f64, TP_ERROR_FORMAT, "line 5", "not finite");
  REFUSED("tensor\n2\n2 2\n1\n2\n1e999\n4\n", f64, TP_ERROR_FORMAT, "line 6", "overflows float64");
  REFUSED("tensor\n2\n2 2\n1\n2\n1e39\n4\n", f32, TP_ERROR_FORMAT, "line 6", "overflows float32");
  REFUSED("tensor\n2\n2 2\n1\n2\n3\n", f64, TP_ERROR_FORMAT, "end at line 6", "after 3 of the 4",
          "dims 2x2 (line 3)");
  REFUSED("tensor\n2\n2 2\n1\n2\n3\n4\n\n# more\n5\n", f64, TP_ERROR_FORMAT, "line 10",
          "beyond the 4 that the dims 2x2");
  tp_dense t; /* 1e39 is fine in float64 */
  TPT_OK(read_text("tensor\n2\n1 1\n1e39\n", f64, &t));
  tp_dense_free(NULL, &t);
}

Test(dense_text, a_nul_byte_or_an_endless_line_is_refused) {
  static const char nul[] = "tensor\n2\n1 2\n1\n2\0\n";
  tp_dense t;
  TPT_FAILS_WITH(read_buffer(nul, sizeof nul - 1, TP_DTYPE_F64, &t), TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "line 5"), "%s", tp_last_error());
  size_t n = ((size_t)3 << 20) + 64;
  char *text = malloc(n);
  int head = snprintf(text, n, "tensor\n2\n1 1\n");
  memset(text + head, '7', n - (size_t)head);
  TPT_FAILS_WITH(read_buffer(text, n, TP_DTYPE_F64, &t), TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "line 4: longer than"), "%s", tp_last_error());
  free(text);
}

/* The process's address space now, in bytes (0 when /proc does not say). */
static rlim_t address_space_now(void) {
  unsigned long long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  int ok = f && fscanf(f, "%llu", &pages) == 1;
  if (f)
    fclose(f);
  return ok ? (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) : 0;
}

/* dims that promise more than the memory holds fail before anything is stored; a
 * promise the memory could hold but the file does not keep fails on the count, having
 * allocated only what its values needed: the address space is capped here at 4 GiB
 * beyond what the process holds already (a GPU runtime reserves much of it), below the
 * whole array, which a read that allocated it at once could not get. */
Test(dense_text, dims_beyond_the_file_cost_no_memory) {
  REFUSED("tensor\n3\n1000000 1000000 1000\n1\n", TP_DTYPE_F64, TP_ERROR_OUT_OF_MEMORY,
          "does not fit");
#ifndef DENSE_TEXT_ASAN
  struct rlimit lim;
  rlim_t now = address_space_now();
  if (now == 0)
    cr_skip_test("the address space in use is not known (/proc/self/statm)");
  cr_assert_eq(getrlimit(RLIMIT_AS, &lim), 0);
  lim.rlim_cur = now + ((rlim_t)4 << 30);
  cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
#endif
  tp_dense t;
  tp_status st = read_text("tensor\n2\n40000 40000\n1\n2\n", TP_DTYPE_F64, &t);
  if (st == TP_ERROR_OUT_OF_MEMORY && strstr(tp_last_error(), "does not fit"))
    cr_skip_test("12.8 GB are not available: %s", tp_last_error());
  TPT_FAILS_WITH(st, TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "after 2 of the 1600000000"), "%s", tp_last_error());
}

/* ---- the writer ----------------------------------------------------------------------- */

Test(dense_text, the_writer_writes_the_header_and_refuses_non_finite_values) {
  const int64_t dims[2] = {2, 3};
  tp_dense t;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 2, dims, TP_LAYOUT_RIGHT, &t));
  for (int i = 0; i < 6; ++i)
    ((double *)t.data)[i] = i + 0.5; /* C order: (0,0)=0.5 (0,1)=1.5 ... (1,0)=3.5 */
  TPT_OK(tp_dense_write_text(path_of("h.txt"), &t));
  char buf[256] = {0};
  FILE *f = fopen(path_of("h.txt"), "rb");
  cr_assert(fread(buf, 1, sizeof buf - 1, f) > 0);
  fclose(f);
  cr_assert_str_eq(buf, "tensor\n2\n2 3\n0.5\n3.5\n1.5\n4.5\n2.5\n5.5\n");
  ((double *)t.data)[4] = NAN;
  TPT_FAILS_WITH(tp_dense_write_text(path_of("h.txt"), &t), TP_ERROR_NUMERICAL);
  cr_assert(strstr(tp_last_error(), "element (1, 1)"), "%s", tp_last_error());
  tp_dense_free(NULL, &t);
}

/* gzip through an output set, read back through an input (which inflates it). */
Test(dense_text, a_gzip_output_reads_back_as_the_tensor) {
  tp_output_set *set;
  TPT_OK(tp_output_set_create(&set));
  if (!tp_input_has_gzip()) {
    TPT_FAILS_WITH(tp_output_set_gzip(set, path_of("x.txt.gz")), TP_ERROR_NOT_SUPPORTED);
    tp_output_set_destroy(&set);
    return;
  }
  tpt_rng rng = tpt_rng_fresh();
  tp_dense x, back;
  random_tensor(&rng, TP_DTYPE_F64, 4, TP_LAYOUT_RIGHT, &x);
  TPT_OK(tp_output_set_gzip(set, path_of("x.txt.gz")));
  TPT_OK(tp_dense_write_text_to(set, path_of("x.txt.gz"), &x));
  TPT_OK(tp_output_set_commit(set));
  tp_output_set_destroy(&set);
  unsigned char magic[2] = {0};
  FILE *f = fopen(path_of("x.txt.gz"), "rb");
  cr_assert(fread(magic, 1, 2, f) == 2);
  fclose(f);
  cr_assert(magic[0] == 0x1f && magic[1] == 0x8b, "not gzip data");
  tp_input *in;
  TPT_OK(tp_input_open(&in, path_of("x.txt.gz")));
  cr_assert(tp_input_compressed(in));
  TPT_OK(tp_dense_read_input(in, TP_DTYPE_F64, &back));
  tp_input_close(&in);
  assert_same_tensor(&x, &back, "gzip round trip");
  tp_dense_free(NULL, &x), tp_dense_free(NULL, &back);
}

/* ---- the format sniff ------------------------------------------------------------------- */

static tp_file_format sniff(const char *text) {
  tp_input in;
  tp_file_format format;
  tpi_input_init_buffer(&in, "s", text, strlen(text));
  TPT_OK(tp_input_format(&in, &format));
  tpi_input_release(&in);
  return format;
}

Test(dense_text, dense_text_is_told_from_sparse_text_by_its_first_word) {
  cr_assert_eq(sniff("tensor\n2\n1 1\n1\n"), TP_FILE_DENSE_TEXT);
  cr_assert_eq(sniff("  tensor\t# dense\n"), TP_FILE_DENSE_TEXT);
  cr_assert_eq(sniff("//c\n\ntensor"), TP_FILE_DENSE_TEXT);
  cr_assert_eq(sniff("tensors\n"), TP_FILE_TEXT);
  cr_assert_eq(sniff("sptensor\n3\n"), TP_FILE_TEXT);
  cr_assert_eq(sniff("# tensor\n1 1 1 1.0\n"), TP_FILE_TEXT);
  cr_assert_eq(sniff("/tensor\n"), TP_FILE_TEXT);
  cr_assert_eq(sniff("1 2 3 4.0\n"), TP_FILE_TEXT);
  cr_assert_eq(sniff("tenso"), TP_FILE_TEXT);
  cr_assert_eq(sniff("\n\n"), TP_FILE_TEXT);
  static char comments[20000]; /* the word past the first 64 bytes and past 16 KiB */
  size_t n = 0;
  for (int i = 0; n + 40 < sizeof comments - 16; ++i)
    n += (size_t)snprintf(comments + n, sizeof comments - n, "# comment %d\n", i);
  snprintf(comments + n, sizeof comments - n, "tensor\n");
  cr_assert_eq(sniff(comments), TP_FILE_DENSE_TEXT);
  cr_assert_str_eq(tp_file_format_name(TP_FILE_DENSE_TEXT), "tensor");
}

/* ---- sparse <-> dense ------------------------------------------------------------------- */

/* Offset of idx first index fastest. */
static int64_t left_offset(int order, const int64_t *dims, const int64_t *idx) {
  int64_t off = 0;
  for (int m = order - 1; m >= 0; --m)
    off = off * dims[m] + idx[m];
  return off;
}

Test(dense_text, sparse_to_dense_and_back_match_plain_loops) {
  tpt_rng rng = tpt_rng_fresh();
  for (int order = 2; order <= 5; ++order) {
    int64_t dims[5], idx[5];
    for (int m = 0; m < order; ++m)
      dims[m] = tpt_int(&rng, 1, order > 3 ? 6 : 13);
    int64_t nnz = tpt_int(&rng, 0, 40);
    tp_coo s, back;
    tp_dense d;
    TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, order, dims, nnz, &s));
    for (int64_t k = 0; k < nnz; ++k) {
      for (int m = 0; m < order; ++m)
        s.indices[m][k] = tpt_int(&rng, 0, dims[m] - 1);
      ((double *)s.values)[k] = (double)tpt_int(&rng, -9, 9) / 4; /* zeros and duplicates */
    }
    TPT_OK(tp_coo_to_dense(&s, &d));
    cr_assert_eq(d.layout, TP_LAYOUT_LEFT);
    int64_t count = tp_dense_count(&d), kept = 0, small = 0;
    double *ref = calloc((size_t)count, sizeof *ref);
    for (int64_t k = 0; k < nnz; ++k) {
      for (int m = 0; m < order; ++m)
        idx[m] = s.indices[m][k];
      ref[left_offset(order, dims, idx)] += ((double *)s.values)[k];
    }
    for (int64_t i = 0; i < count; ++i) {
      cr_assert_eq(((double *)d.data)[i], ref[i], "element %lld", (long long)i);
      kept += ref[i] != 0 && fabs(ref[i]) >= 0.5;
      small += ref[i] != 0 && fabs(ref[i]) < 0.5;
    }
    int64_t dropped = -1;
    TPT_OK(tp_coo_from_dense(&d, 0.5, &back, &dropped));
    cr_assert_eq(back.nnz, kept);
    cr_assert_eq(dropped, small);
    for (int64_t k = 0; k < back.nnz; ++k) { /* sorted, each value the reference's */
      for (int m = 0; m < order; ++m)
        idx[m] = back.indices[m][k];
      cr_assert_eq(((double *)back.values)[k], ref[left_offset(order, dims, idx)]);
      for (int m = 0; k > 0 && m < order; ++m) {
        int64_t a = back.indices[m][k - 1], b = back.indices[m][k];
        cr_assert(a <= b, "nonzeros %lld and %lld are out of order", (long long)k - 1,
                  (long long)k);
        if (a < b)
          break;
      }
    }
    free(ref);
    tp_coo_free(NULL, &s), tp_coo_free(NULL, &back), tp_dense_free(NULL, &d);
  }
}

/* A C-order dense tensor gives the same nonzeros as its Fortran-order copy. */
Test(dense_text, dense_to_sparse_reads_either_layout) {
  tpt_rng rng = tpt_rng_fresh();
  tp_dense right, left;
  random_tensor(&rng, TP_DTYPE_F32, 3, TP_LAYOUT_RIGHT, &right);
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F32, 3, right.dims, TP_LAYOUT_LEFT, &left));
  int64_t idx[3] = {0};
  do { /* left's memory order is first index fastest */
    ((float *)left.data)[left_offset(3, left.dims, idx)] = (float)element(&right, idx);
  } while (next_left(3, left.dims, idx));
  tp_coo a, b;
  TPT_OK(tp_coo_from_dense(&right, 0, &a, NULL));
  TPT_OK(tp_coo_from_dense(&left, 0, &b, NULL));
  cr_assert_eq(a.nnz, b.nnz);
  for (int m = 0; m < 3; ++m)
    cr_assert(!memcmp(a.indices[m], b.indices[m], sizeof(int64_t) * (size_t)a.nnz));
  cr_assert(!memcmp(a.values, b.values, sizeof(float) * (size_t)a.nnz));
  tp_coo_free(NULL, &a), tp_coo_free(NULL, &b);
  tp_dense_free(NULL, &right), tp_dense_free(NULL, &left);
}

Test(dense_text, the_dense_form_refuses_one_mode_and_overflowing_dims) {
  const int64_t one[1] = {5}, huge[3] = {(int64_t)1 << 32, (int64_t)1 << 32, 4};
  tp_coo s;
  tp_dense d;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 1, one, 0, &s));
  TPT_FAILS_WITH(tp_coo_to_dense(&s, &d), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "1 mode"), "%s", tp_last_error());
  tp_coo_free(NULL, &s);
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, huge, 0, &s));
  TPT_FAILS_WITH(tp_coo_to_dense(&s, &d), TP_ERROR_OVERFLOW);
  cr_assert(strstr(tp_last_error(), "4294967296x4294967296x4"), "%s", tp_last_error());
  tp_coo_free(NULL, &s);
}
