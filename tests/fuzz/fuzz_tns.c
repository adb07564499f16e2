/* libFuzzer target for the sparse readers (.tns text and the .tpb binary format): on
 * arbitrary bytes a reader either fails with a message and leaves its output zeroed, or
 * returns a valid, sorted tensor without duplicates. The first byte of an input picks the
 * reader and its options, the rest is the file:
 *   bit 0      float32 (1) or float64 (0)
 *   bits 1-2   0: tpi_coo_read_buffer (sniffs the format: gzip data, headers and the
 *              index base are found as in any file); 1: .tns with the order (1 + bits
 *              3-4) and dims (64 each) given, and bits 5-6 the text options (0: the
 *              defaults, 1: 0-based, 2: 1-based, 3: no header); 2: .tns read through a buffer of
 *              1 + bits 3-7 bytes, so chunk boundaries fall inside fields; 3: binary
 * Built and run by tools/ci/fuzz.sh. Compiled with -DFUZZ_TNS_WRITE_SEEDS it is instead a
 * program that writes a seed corpus into the directory named by its argument. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/sparse.h"
#include "algorithms/io/tp_io_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { READ_SNIFF = 0, READ_TNS_DIMS = 1, READ_TNS_CHUNKED = 2, READ_BINARY = 3 };

#ifndef FUZZ_TNS_WRITE_SEEDS

static void check(int ok) {
  if (!ok)
    abort(); /* libFuzzer reports it as a crash and keeps the input */
}

static volatile unsigned char fuzz_sink; /* keeps the reads of the arrays */

static tp_status read_input(uint8_t select, const uint8_t *data, size_t size, tp_coo *t) {
  tp_dtype dtype = select & 1 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  int how = select >> 1 & 3;
  tp_coo_read_info info;
  if (how == READ_SNIFF)
    return tpi_coo_read_buffer("fuzz", data, size, dtype, t, &info);
  if (how == READ_BINARY)
    return tpi_coo_read_binary_buffer("fuzz", data, size, dtype, t, &info);
  if (how == READ_TNS_CHUNKED)
    return tpi_coo_read_tns_buffer("fuzz", data, size, 1 + (select >> 3), dtype, 0, NULL, t, &info);
  const int64_t dims[4] = {64, 64, 64, 64};
  tp_tns_options text = tp_tns_options_default();
  int options = select >> 5 & 3;
  text.index_base = options == 1 ? 0 : options == 2 ? 1 : TP_TNS_INDEX_AUTO;
  text.no_header = options == 3;
  tp_input in;
  tpi_input_init_buffer(&in, "fuzz", data, size);
  tp_status st =
      tpi_coo_read_tns_input_with(&in, 0, dtype, 1 + (select >> 3 & 3), dims, &text, t, &info);
  tpi_input_release(&in);
  return st;
}

/* A tensor a reader returned: valid, sorted, no duplicates, every byte readable. */
static void check_tensor(const tp_coo *t) {
  check(tp_coo_validate(t) == TP_SUCCESS);
  for (int64_t k = 1; k < t->nnz; ++k) {
    int order = 0;
    for (int m = 0; m < t->order && order == 0; ++m)
      order = (t->indices[m][k - 1] > t->indices[m][k]) - (t->indices[m][k - 1] < t->indices[m][k]);
    check(order < 0);
  }
  size_t bytes = (size_t)t->nnz * tp_dtype_size(t->dtype);
  for (size_t i = 0; i < bytes; ++i)
    fuzz_sink ^= ((const unsigned char *)t->values)[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  tp_coo t;
  static const tp_coo zero;
  tp_clear_error();
  if (read_input(data[0], data + 1, size - 1, &t) != TP_SUCCESS) {
    check(memcmp(&t, &zero, sizeof t) == 0 && tp_last_error()[0] != '\0');
    return 0;
  }
  check_tensor(&t);
  tpi_coo_host_free(&t);
  return 0;
}

#else

#include "tests/fuzz/fuzz_seeds.h"

/* A small tensor written as .tpb by the library, then stored with a selector. */
static int write_binary(const char *name, uint8_t select, tp_dtype dtype, int order,
                        const int64_t *dims) {
  tp_coo t;
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.raw", fuzz_seed_dir, name);
  if (tpi_coo_host_alloc(dtype, order, dims, 3, &t) != TP_SUCCESS)
    return 0;
  for (int64_t k = 0; k < 3; ++k) {
    for (int m = 0; m < order; ++m)
      t.indices[m][k] = (k * 7 + m) % dims[m];
    tpi_coo_set_value(&t, k, 0.5 - (double)k);
  }
  int ok =
      tp_coo_sum_duplicates(&t, NULL) == TP_SUCCESS && tp_coo_write_binary(path, &t) == TP_SUCCESS;
  tpi_coo_host_free(&t);
  unsigned char bytes[1024];
  FILE *f = ok ? fopen(path, "rb") : NULL;
  size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f)
    fclose(f);
  remove(path);
  if (!ok || n == 0) {
    fprintf(stderr, "%s: %s\n", name, tp_last_error());
    return 0;
  }
  return fuzz_write_seed(name, select, bytes, n);
}

/* "1 2 3 1.5\n2 2 2 -1\n" compressed by gzip -9n. */
static const unsigned char gzip_tns[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
                                         0x03, 0x33, 0x54, 0x30, 0x52, 0x30, 0x56, 0x30, 0xd4,
                                         0x33, 0xe5, 0x32, 0x52, 0x00, 0x41, 0x5d, 0x43, 0x2e,
                                         0x00, 0x07, 0x40, 0xfa, 0x46, 0x13, 0x00, 0x00, 0x00};

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  fuzz_seed_dir = argv[1];
  const uint8_t f32 = 1, sniff = READ_SNIFF << 1, dims3 = READ_TNS_DIMS << 1 | 2 << 3,
                chunked = READ_TNS_CHUNKED << 1 | 5 << 3, binary = READ_BINARY << 1;
  const int64_t small[5] = {3, 4, 5, 2, 7}, wide[2] = {5, (int64_t)1 << 40};
  const char *frostt = "# a FROSTT tensor\n1 1 1 1.5\n2 3 1 -2\n\n3 3 3 4e-3\n2 3 1 0.25\n";
  int ok = fuzz_write_text("frostt_f64.tns", sniff, frostt) &&
           fuzz_write_text("frostt_f32.tns", sniff | f32, frostt) &&
           fuzz_write_text("dims_given.tns", dims3, "1 2 3 1.0\n64 64 64 -1e-3 # last\n") &&
           fuzz_write_text("chunked.tns", chunked, "  1\t2 0.5\r\n# c\n3 4 1e2\n2 2 +7\n") &&
           fuzz_write_text("one_mode.tns", sniff, "5 2.5\n1 1\n5 0.5\n") &&
           fuzz_write_text("five_modes.tns", sniff | f32, "1 2 3 4 5 1\n5 4 3 2 1 inf\n") &&
           fuzz_write_text("bad_index.tns", sniff, "1 0 1.0\n-3 2 1\n99999999999999999999 1 1\n") &&
           fuzz_write_text("zero_based.tns", sniff, "0 0 2 1.5\n3 1 0 2\n") &&
           fuzz_write_text("zero_based_given.tns", dims3 | 1 << 5, "0 0 63 1.5\n63 1 0 2\n") &&
           fuzz_write_text("sptensor.tns", sniff, "sptensor\n3\n4 5 6\n2\n1 1 1 1.0\n4 5 6 2\n") &&
           fuzz_write_text("sptensor_zero.tns", sniff,
                           "# GenTen\nsptensor indices-start-at-zero\n2\n4 5\n1\n3 4 1.0\n") &&
           fuzz_write_text("order_dims.tns", sniff, "3\n4 5 6\n1 2 3 1.0\n") &&
           fuzz_write_text("order_dims_line.tns", dims3 | 3 << 5, "3 4 5 6\n1 2 3 1.0\n") &&
           fuzz_write_seed("gzip.tns.gz", sniff, gzip_tns, sizeof gzip_tns) &&
           write_binary("narrow_f64.tpb", sniff, TP_DTYPE_F64, 3, small) &&
           write_binary("narrow_f32.tpb", binary | f32, TP_DTYPE_F32, 5, small) &&
           write_binary("wide_f64.tpb", binary, TP_DTYPE_F64, 2, wide);
  return ok ? 0 : 1;
}

#endif
