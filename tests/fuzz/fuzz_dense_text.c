/* libFuzzer target for the dense text reader ("tensor" text of GenTen and the Tensor
 * Toolbox) on one memory input, gzip data decompressed as any input is. The first byte of
 * an input picks the reading, the rest is the file:
 *   bit 0   float32 (1) or float64 (0)
 *   bit 1   tp_dense_read_input (the format told by the content, .npy too) instead of
 *           tp_dense_read_text_input
 * The header is peeked first, as the reading will see it: tp_dense_peek_header (which
 * tells the format) before tp_dense_read_input, the text header alone
 * (tpi_dense_text_peek_header, which takes any bytes in comments) before the text reader.
 * Either the read fails, leaving its output zeroed with a message, or it returns a tensor
 * that agrees with the header peeked (order, dims; text gives TP_LAYOUT_LEFT), in the
 * precision asked for, every value finite, that tp_dense_check accepts and tp_dense_free
 * releases, and the input is read to its end.
 * Built by tests/fuzz/meson.build and run by tools/ci/fuzz.sh. Compiled with
 * -DFUZZ_DENSE_TEXT_WRITE_SEEDS it is instead a program that writes a seed corpus into
 * the directory named by its argument. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/dense.h"
#include "tenport/files.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "algorithms/io/tp_io_internal.h"

#ifndef FUZZ_DENSE_TEXT_WRITE_SEEDS

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

static double load(const void *data, tp_dtype dtype, int64_t i) {
  return dtype == TP_DTYPE_F32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

/* The header as the reader of select sees it; 1 when it could be peeked. */
static int peek(uint8_t select, tp_input *in, tp_dense_header *h) {
  tp_clear_error();
  if (select & 2) {
    int ok = tp_dense_peek_header(in, h) == TP_SUCCESS;
    check(ok || (is_zero(h, sizeof *h) && tp_last_error()[0] != '\0'));
    return ok;
  }
  tpi_dense_text_header text;
  int ok = tpi_dense_text_peek_header(in, &text) == TP_SUCCESS;
  check(ok || (is_zero(&text, sizeof text) && tp_last_error()[0] != '\0'));
  memset(h, 0, sizeof *h);
  h->format = TP_FILE_DENSE_TEXT, h->dtype = TP_DTYPE_F64, h->order = text.order;
  memcpy(h->dims, text.dims, sizeof text.dims);
  return ok;
}

/* The header peeked, and the tensor read, over one input. */
static tp_status peek_and_read(uint8_t select, tp_input *in, tp_dense_header *h, int *peeked,
                               tp_dense *t) {
  tp_dtype want = select & 1 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  *peeked = peek(select, in, h);
  check(tpi_input_remaining(in) == in->known_size); /* peeking consumed nothing */
  memset(t, 0x5a, sizeof *t);                       /* whatever the caller's struct held */
  tp_clear_error();
  return select & 2 ? tp_dense_read_input(in, want, t) : tp_dense_read_text_input(in, want, t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  tp_input in;
  tpi_input_init_buffer(&in, "fuzz.txt", data + 1, size - 1);
  tp_dense_header h;
  tp_dense t;
  int peeked;
  tp_status st = peek_and_read(data[0], &in, &h, &peeked, &t);
  if (st != TP_SUCCESS) {
    check(is_zero(&t, sizeof t) && tp_last_error()[0] != '\0');
    tpi_input_release(&in);
    return 0;
  }
  check(peeked); /* a header that cannot be peeked cannot be read */
  check(t.dtype == (data[0] & 1 ? TP_DTYPE_F32 : TP_DTYPE_F64) && t.data != NULL);
  check(t.order == h.order && t.order >= 2 && t.order <= TP_DENSE_MAX_ORDER);
  check(h.format == TP_FILE_NPY || t.layout == TP_LAYOUT_LEFT);
  int64_t count = 1;
  for (int k = 0; k < t.order; ++k) {
    check(t.dims[k] == h.dims[k] && t.dims[k] >= 1);
    check(count <= INT64_MAX / t.dims[k]);
    count *= t.dims[k];
  }
  check(count == tp_dense_count(&t) && tp_dense_check(&t) == TP_SUCCESS);
  if (h.format == TP_FILE_DENSE_TEXT) /* text is read to its end */
    check(tpi_input_remaining(&in) == 0 || tpi_input_remaining(&in) == UINT64_MAX);
  for (int64_t i = 0; i < count; ++i) /* every element read: ASan sees a short array */
    check(isfinite(load(t.data, t.dtype, i)));
  check(tp_dense_free(NULL, &t) == TP_SUCCESS);
  check(t.order == 0 && t.data == NULL);
  tpi_input_release(&in);
  return 0;
}

#else

#include "tests/fuzz/fuzz_seeds.h"

/* A tensor written by the library's dense text writer (gzip-compressed through an output
 * set when gzip is 1, where the build has zlib), stored with a selector. */
static int write_tensor(const char *name, uint8_t select, tp_layout layout, int gzip) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.tmp", fuzz_seed_dir, name);
  const int64_t dims[3] = {3, 1, 4};
  tp_dense t;
  tp_output_set *set = NULL;
  int ok = tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, layout, &t) == TP_SUCCESS;
  for (int i = 0; ok && i < 12; ++i)
    ((double *)t.data)[i] = (i - 5) * 0.375;
  ok = ok && tp_output_set_create(&set) == TP_SUCCESS;
  ok = ok && (!gzip || tp_output_set_gzip(set, path) == TP_SUCCESS);
  ok = ok && tp_dense_write_text_to(set, path, &t) == TP_SUCCESS &&
       tp_output_set_commit(set) == TP_SUCCESS;
  tp_output_set_destroy(&set);
  tp_dense_free(NULL, &t);
  unsigned char bytes[4096];
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

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  fuzz_seed_dir = argv[1];
  const uint8_t f64 = 0, f32 = 1, sniff = 2;
  int ok =
      fuzz_write_text("small.txt", f64, "tensor\n2\n2 3\n1\n2\n3\n4\n5\n6\n") &&
      fuzz_write_text("genten.txt", f32 | sniff,
                      "// GenTen\ntensor indices-start-at-zero\n3\n2 1 2\n8.58e-01\n1.312e+00\n"
                      "-0\n+.5\n") &&
      fuzz_write_text("comments_crlf.txt", sniff,
                      "# c\r\ntensor\r\n2 # order\r\n1 2\r\n\r\n"
                      "0x1p-3\r\n  7 # last\r\n") &&
      fuzz_write_text("no_line_end.txt", f64, "tensor\n2\n1 1\n42") &&
      fuzz_write_text("too_few.txt", f64, "tensor\n2\n3 3\n1\n2\n") &&
      fuzz_write_text("too_many.txt", f32, "tensor\n2\n1 1\n1\n2\n") &&
      fuzz_write_text("two_fields.txt", f64, "tensor\n2\n2 1\n1 2\n3\n") &&
      fuzz_write_text("nan.txt", f64, "tensor\n2\n1 2\nnan\n1\n") &&
      fuzz_write_text("beyond_f32.txt", f32, "tensor\n2\n1 2\n1e39\n1\n") &&
      fuzz_write_text("order_1.txt", f64, "tensor\n1\n3\n1\n2\n3\n") &&
      fuzz_write_text("huge_dims.txt", f64, "tensor\n3\n4294967296 4294967296 4\n1\n") &&
      fuzz_write_text("big_promise.txt", f32, "tensor\n2\n100000 1000\n1\n") &&
      fuzz_write_text("bad_header.txt", sniff, "tensor one-based\nx\n0 -1\n") &&
      fuzz_write_text("sparse.tns", sniff, "1 1 1 1.0\n2 2 2 2.0\n") &&
      write_tensor("written_left.txt", f64, TP_LAYOUT_LEFT, 0) &&
      write_tensor("written_right.txt", f32 | sniff, TP_LAYOUT_RIGHT, 0) &&
      (!tp_input_has_gzip() || write_tensor("written.txt.gz", sniff, TP_LAYOUT_LEFT, 1)) &&
      fuzz_write_seed("empty", f64, "", 0);
  return ok ? 0 : 1;
}

#endif
