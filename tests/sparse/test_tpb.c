/* tenport's binary sparse files (.tpb): round trips with either index width, precision
 * conversion, corrupt headers, bad indices and values, duplicates. */
#include "tests/sparse/tpt_sparse.h"

TestSuite(tpb, .init = sparse_setup, .fini = sparse_teardown);

/* ---- binary files --------------------------------------------------------------------------- */

static uint32_t header_u32(const unsigned char *b, int at) {
  return (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16 |
         (uint32_t)b[at + 3] << 24;
}

Test(tpb, binary_round_trip_with_index_widths_4_and_8) {
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

Test(tpb, binary_converts_precision_and_keeps_empty_tensors) {
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

Test(tpb, binary_rejects_corrupt_headers_before_allocating) {
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

Test(tpb, binary_rejects_bad_indices_and_values) {
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

Test(tpb, binary_files_with_duplicates_are_merged) {
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
