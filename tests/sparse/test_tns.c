/* FROSTT .tns files: round trips, comments, inferred and given dims, duplicates, values
 * as strtod reads them, every malformed input with its line, the parallel reader's pieces,
 * and the writers' checks. */
#include "tests/sparse/tpt_sparse.h"

TestSuite(tns, .init = sparse_setup, .fini = sparse_teardown);

/* ---- .tns round trips ------------------------------------------------------------------ */

Test(tns, tns_round_trip_in_both_precisions_and_1_to_6_modes) {
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

Test(tns, tns_reads_comments_blanks_and_spacing) {
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

Test(tns, tns_dims_given_or_inferred) {
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

Test(tns, tns_empty_files_need_dims) {
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

Test(tns, tns_sums_duplicates_and_counts_them) {
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
Test(tns, tns_values_match_strtod_and_strtof) {
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

Test(tns, tns_malformed_lines_name_the_file_and_line) {
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

Test(tns, tns_rejects_bytes_that_are_not_text) {
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
Test(tns, tns_chunk_boundaries_do_not_matter) {
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
Test(tns, tns_parallel_pieces_give_the_same_tensor_and_lines) {
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

Test(tns, writers_reject_invalid_tensors_and_paths) {
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
