/* Sparse text beyond plain FROSTT: 0-based indices (given or detected), and the headers
 * other tools write (sptensor text, an order line and a dims line, one line of both),
 * each against the same tensor written as plain 1-based text by this test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/tpt.h"

TestSuite(text_formats, .init = tpt_setup, .fini = tpt_teardown);

enum { ORDER = 3 };
static const int64_t shape[ORDER] = {7, 5, 9};

/* A random tensor of distinct coordinates: nonzero k at (k % 7, k / 7 % 5, k / 35 % 9)
 * for a random subset, as text lines with indices offset by `base`. */
static char *random_lines(tpt_rng *rng, int base, int64_t *nnz, int64_t *max_index) {
  char *text = malloc(1 << 16);
  size_t len = 0;
  *nnz = 0;
  for (int m = 0; m < ORDER; ++m)
    max_index[m] = -1;
  for (int k = 0; k < 7 * 5 * 9; ++k) {
    if (tpt_int(rng, 0, 3) != 0)
      continue;
    int64_t i[ORDER] = {k % 7, k / 7 % 5, k / 35 % 9};
    for (int m = 0; m < ORDER; ++m)
      max_index[m] = i[m] > max_index[m] ? i[m] : max_index[m];
    len += (size_t)snprintf(text + len, (1 << 16) - len, "%lld %lld %lld %d.25\n",
                            (long long)(i[0] + base), (long long)(i[1] + base),
                            (long long)(i[2] + base), (int)tpt_int(rng, 1, 99));
    ++*nnz;
  }
  text[len] = '\0';
  return text;
}

static const char *write_file(const char *name, const char *head, const char *body) {
  static char path[256];
  snprintf(path, sizeof path, "%s/tp_text_%d_%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
           (int)getpid(), name);
  FILE *f = fopen(path, "wb");
  cr_assert(f, "cannot write %s", path);
  fputs(head, f), fputs(body, f);
  fclose(f);
  return path;
}

static tp_status read_with(const char *path, const tp_tns_options *o, int order,
                           const int64_t *dims, tp_coo *t, tp_coo_read_info *info) {
  tp_input *in;
  tp_status st = tp_input_open(&in, path);
  if (st == TP_SUCCESS)
    st = tp_coo_read_input_with(in, TP_DTYPE_F64, order, dims, o, t, info);
  tp_input_close(&in);
  unlink(path);
  return st;
}

static void assert_same(const tp_coo *a, const tp_coo *b, const char *what) {
  cr_assert_eq(a->order, b->order, "%s: order", what);
  cr_assert_eq(a->nnz, b->nnz, "%s: nnz %lld vs %lld", what, (long long)a->nnz, (long long)b->nnz);
  for (int m = 0; m < a->order; ++m) {
    cr_assert_eq(a->dims[m], b->dims[m], "%s: dims[%d] %lld vs %lld", what, m,
                 (long long)a->dims[m], (long long)b->dims[m]);
    cr_assert(!memcmp(a->indices[m], b->indices[m], sizeof(int64_t) * (size_t)a->nnz),
              "%s: indices of mode %d", what, m);
  }
  cr_assert(!memcmp(a->values, b->values, sizeof(double) * (size_t)a->nnz), "%s: values", what);
}

/* The plain 1-based reading, the reference of every other form. */
static void reference(const char *lines1, tp_coo *ref) {
  tp_tns_options plain = tp_tns_options_default();
  plain.index_base = 1, plain.no_header = 1;
  TPT_OK(read_with(write_file("ref.tns", "", lines1), &plain, 0, NULL, ref, NULL));
}

Test(text_formats, zero_based_indices_are_detected_or_given) {
  tpt_rng rng = tpt_rng_fresh();
  tpt_rng again = rng;
  int64_t nnz, max[ORDER];
  char *one = random_lines(&rng, 1, &nnz, max), *zero = random_lines(&again, 0, &nnz, max);
  tp_coo ref, t;
  tp_coo_read_info info;
  reference(one, &ref);
  TPT_OK(read_with(write_file("auto.tns", "", zero), NULL, 0, NULL, &t, &info));
  assert_same(&ref, &t, "0-based, detected");
  cr_assert_eq(info.index_base, 0);
  tp_coo_free(NULL, &t);
  tp_tns_options o = tp_tns_options_default();
  o.index_base = 0;
  TPT_OK(read_with(write_file("zero.tns", "", zero), &o, ORDER, shape, &t, &info));
  cr_assert_eq(t.dims[0], shape[0]);
  tp_coo_free(NULL, &t);
  TPT_OK(read_with(write_file("one.tns", "", one), NULL, 0, NULL, &t, &info));
  assert_same(&ref, &t, "1-based, detected");
  cr_assert_eq(info.index_base, 1);
  tp_coo_free(NULL, &t), tp_coo_free(NULL, &ref);
  free(one), free(zero);
}

Test(text_formats, an_index_base_that_does_not_fit_is_an_error_naming_the_line) {
  tp_tns_options o = tp_tns_options_default();
  tp_coo t;
  o.index_base = 1;
  TPT_FAILS_WITH(
      read_with(write_file("a.tns", "", "1 1 1 1.0\n\n0 2 1 2.0\n"), &o, 0, NULL, &t, NULL),
      TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "line 3") && strstr(tp_last_error(), "is 0"), "%s",
            tp_last_error());
  o.index_base = 0; /* an index equal to the dim is beyond a 0-based shape */
  TPT_FAILS_WITH(
      read_with(write_file("b.tns", "", "0 0 0 1.0\n7 1 1 2.0\n"), &o, ORDER, shape, &t, NULL),
      TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "line 2") && strstr(tp_last_error(), "beyond the dimension 7"),
            "%s", tp_last_error());
  /* detected: the 0 makes the 7 beyond the shape, found after the lines */
  TPT_FAILS_WITH(
      read_with(write_file("c.tns", "", "7 1 1 2.0\n0 0 0 1.0\n"), NULL, ORDER, shape, &t, NULL),
      TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "0-based") && strstr(tp_last_error(), "dimension 7"), "%s",
            tp_last_error());
}

/* The same tensor behind each header form: the dims come from the header. */
Test(text_formats, headers_of_other_tools_give_the_dims) {
  tpt_rng rng = tpt_rng_fresh();
  int64_t nnz, max[ORDER];
  char *lines = random_lines(&rng, 1, &nnz, max);
  tp_coo ref, t;
  tp_coo_read_info info;
  reference(lines, &ref);
  for (int m = 0; m < ORDER; ++m)
    ref.dims[m] = shape[m];
  char head[3][160];
  snprintf(head[0], sizeof head[0], "# made by a test\nsptensor\n3\n7 5 9\n%lld\n", (long long)nnz);
  snprintf(head[1], sizeof head[1], "3\n7 5 9\n");
  snprintf(head[2], sizeof head[2], "3 7 5 9\n");
  static const char *kinds[3] = {"sptensor", "order and dims lines", "order and dims line"};
  static const int64_t lines_of[3] = {5, 2, 1};
  for (int h = 0; h < 3; ++h) {
    TPT_OK(read_with(write_file("h.tns", head[h], lines), NULL, 0, NULL, &t, &info));
    assert_same(&ref, &t, kinds[h]);
    cr_assert_str_eq(info.header_kind, kinds[h]);
    cr_assert_eq(info.header_lines, lines_of[h], "%s: %lld header lines", kinds[h],
                 (long long)info.header_lines);
    tp_coo_free(NULL, &t);
  }
  tp_coo_free(NULL, &ref);
  free(lines);
}

Test(text_formats, headers_that_disagree_are_errors) {
  tp_coo t;
  static const int64_t other[ORDER] = {7, 5, 8};
  TPT_FAILS_WITH(read_with(write_file("n.tns", "sptensor\n3\n7 5 9\n3\n", "1 1 1 1.0\n2 2 2 2.0\n"),
                           NULL, 0, NULL, &t, NULL),
                 TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "announces 3 nonzeros") && strstr(tp_last_error(), "has 2"),
            "%s", tp_last_error());
  TPT_FAILS_WITH(
      read_with(write_file("d.tns", "3\n7 5 9\n", "1 1 1 1.0\n"), NULL, ORDER, other, &t, NULL),
      TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "other dims"), "%s", tp_last_error());
  TPT_FAILS_WITH(
      read_with(write_file("s.tns", "sptensor\n3\n7 5\n", "1 1 1 1.0\n"), NULL, 0, NULL, &t, NULL),
      TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "line 1") && strstr(tp_last_error(), "sptensor header"), "%s",
            tp_last_error());
}

/* A first nonzero of integers that reads as "order dims" is a nonzero when a later index
 * lies beyond those dims, and always with no_header. */
Test(text_formats, a_first_nonzero_of_integers_is_not_taken_for_a_header) {
  tp_coo t;
  tp_coo_read_info info;
  TPT_OK(read_with(write_file("i.tns", "", "2 2 1\n1 1 0.5\n2 3 2\n"), NULL, 0, NULL, &t, &info));
  cr_assert_eq(t.nnz, 3);
  cr_assert_eq(info.header_lines, 0);
  tp_coo_free(NULL, &t);
  tp_tns_options o = tp_tns_options_default();
  o.no_header = 1;
  TPT_OK(read_with(write_file("j.tns", "", "3 7 5 9\n1 1 1 0.5\n"), &o, 0, NULL, &t, &info));
  cr_assert_eq(t.nnz, 2);
  tp_coo_free(NULL, &t);
}

/* GenTen's sptensor line names the base: indices-start-at-zero makes a file without any
 * index 0 0-based, a base asked for that disagrees is an error, another word too. */
Test(text_formats, the_sptensor_line_can_name_the_index_base) {
  tp_coo t;
  tp_coo_read_info info;
  TPT_OK(read_with(write_file("z.tns", "sptensor indices-start-at-zero\n3\n7 5 9\n2\n",
                              "1 1 1 1.0\n6 4 8 2.0\n"),
                   NULL, 0, NULL, &t, &info));
  cr_assert_eq(info.index_base, 0);
  cr_assert(t.indices[0][0] == 1 && t.indices[1][0] == 1 && t.indices[2][0] == 1,
            "the first nonzero is (1, 1, 1) 0-based");
  cr_assert(t.indices[0][1] == 6 && t.indices[1][1] == 4 && t.indices[2][1] == 8);
  tp_coo_free(NULL, &t);
  TPT_OK(
      read_with(write_file("o.tns", "sptensor indices-start-at-one\n3\n7 5 9\n1\n", "7 5 9 1.0\n"),
                NULL, 0, NULL, &t, &info));
  cr_assert(info.index_base == 1 && t.indices[0][0] == 6);
  tp_coo_free(NULL, &t);
  tp_tns_options o = tp_tns_options_default();
  o.index_base = 0;
  TPT_FAILS_WITH(
      read_with(write_file("c.tns", "sptensor indices-start-at-one\n3\n7 5 9\n1\n", "7 5 9 1.0\n"),
                &o, 0, NULL, &t, NULL),
      TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "1-based") && strstr(tp_last_error(), "0-based"), "%s",
            tp_last_error());
  TPT_FAILS_WITH(read_with(write_file("w.tns", "sptensor one-based\n3\n7 5 9\n1\n", "7 5 9 1.0\n"),
                           NULL, 0, NULL, &t, NULL),
                 TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "line 1") && strstr(tp_last_error(), "indices-start-at-zero"),
            "%s", tp_last_error());
}

/* An index 0 shifts every index up: the largest 64-bit index then has no dimension
 * (found by fuzzing: the dims overflowed). */
Test(text_formats, a_shift_past_64_bits_is_an_error) {
  tp_coo t;
  TPT_FAILS_WITH(read_with(write_file("o.tns", "", "1 9223372036854775807 1.0\n0 1 2.0\n"), NULL, 0,
                           NULL, &t, NULL),
                 TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "beyond 64 bits"), "%s", tp_last_error());
}

/* The text writer's forms: plain or sptensor, 1- or 0-based, each read back as the tensor
 * written (0-based plain text told its base: a file without an index 0 could not say). */
Test(text_formats, every_written_form_reads_back_as_the_tensor) {
  tpt_rng rng = tpt_rng_fresh();
  int64_t nnz, max[ORDER];
  char *lines = random_lines(&rng, 1, &nnz, max);
  tp_coo ref, t;
  tp_coo_read_info info;
  reference(lines, &ref);
  for (int m = 0; m < ORDER; ++m)
    ref.dims[m] = shape[m] + m; /* beyond the largest index: only a header keeps it */
  static const char *const first[4] = {NULL, "sptensor\n3\n7 6 11\n", NULL,
                                       "sptensor indices-start-at-zero\n3\n7 6 11\n"};
  for (int form = 0; form < 4; ++form) {
    tp_tns_write_options w = tp_tns_write_options_default();
    w.sptensor = form & 1, w.index_base = form & 2 ? 0 : 1;
    const char *path = write_file("w.tns", "", "");
    tp_output_set *set;
    TPT_OK(tp_output_set_create(&set));
    TPT_OK(tp_coo_write_text_to(set, path, &ref, &w));
    TPT_OK(tp_output_set_commit(set));
    tp_output_set_destroy(&set);
    char head[64] = {0};
    FILE *f = fopen(path, "rb");
    cr_assert(fread(head, 1, sizeof head - 1, f) > 0);
    fclose(f);
    if (first[form])
      cr_assert(!strncmp(head, first[form], strlen(first[form])), "form %d starts: %s", form, head);
    else /* the first nonzero's indices in the base asked for */
      cr_assert_eq(atoll(head), ref.indices[0][0] + w.index_base, "form %d starts: %s", form, head);
    tp_tns_options o = tp_tns_options_default();
    o.index_base = w.sptensor ? TP_TNS_INDEX_AUTO : w.index_base;
    TPT_OK(read_with(path, &o, ORDER, w.sptensor ? NULL : ref.dims, &t, &info));
    assert_same(&ref, &t, first[form] ? first[form] : "plain");
    tp_coo_free(NULL, &t);
  }
  tp_coo_free(NULL, &ref);
  free(lines);
}
