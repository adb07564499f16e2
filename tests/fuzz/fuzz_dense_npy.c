/* libFuzzer target for the .npy -> dense tensor path: tp_npy_peek_header and then
 * tp_dense_read_npy_input on one memory input. The first byte of an input picks the
 * precision wanted (bit 0: float32, else float64), the rest is the file. Either the read
 * fails, leaving its output zeroed with a message, or it returns a tensor that agrees with
 * the header peeked before it (order, dims, layout, element count), whose every value is
 * finite in the precision asked for, and that tp_dense_check accepts and tp_dense_free
 * releases; the input is left just after the array's data. A header that cannot be
 * peeked cannot be read either.
 * Built by tests/fuzz/meson.build and run by tools/ci/fuzz.sh. Compiled with
 * -DFUZZ_DENSE_NPY_WRITE_SEEDS it is instead a program that writes a seed corpus into the
 * directory named by its argument. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/dense.h"
#include "tenport/npy.h"
#include "algorithms/io/tp_io_internal.h"

#ifndef FUZZ_DENSE_NPY_WRITE_SEEDS

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  tp_dtype want = data[0] & 1 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  const uint8_t *file = data + 1;
  size_t n = size - 1;
  tp_input in;
  tpi_input_init_buffer(&in, "fuzz.npy", file, n);

  tp_npy_header h;
  tp_clear_error();
  tp_status peeked = tp_npy_peek_header(&in, &h);
  if (peeked != TP_SUCCESS)
    check(is_zero(&h, sizeof h) && tp_last_error()[0] != '\0');
  else /* peeking consumes nothing */
    check(tpi_input_remaining(&in) == n && h.data_offset <= n);

  tp_dense t;
  memset(&t, 0x5a, sizeof t); /* whatever the caller's struct held */
  tp_clear_error();
  tp_status st = tp_dense_read_npy_input(&in, want, &t);
  if (st != TP_SUCCESS) {
    check(is_zero(&t, sizeof t) && tp_last_error()[0] != '\0');
    tpi_input_release(&in);
    return 0;
  }
  check(peeked == TP_SUCCESS);

  /* The tensor is what the header said, in the precision asked for. */
  check(tp_dtype_size(h.dtype) > 0); /* integer files too: read as their values */
  check(t.dtype == want && t.data != NULL);
  check(t.order == h.ndim && t.order >= 2 && t.order <= TP_DENSE_MAX_ORDER);
  check(t.layout == (h.fortran_order ? TP_LAYOUT_LEFT : TP_LAYOUT_RIGHT));
  int64_t count = 1;
  for (int k = 0; k < t.order; ++k) {
    check(t.dims[k] == h.shape[k] && t.dims[k] >= 1);
    check(count <= INT64_MAX / t.dims[k]);
    count *= t.dims[k];
  }
  for (int k = t.order; k < TP_DENSE_MAX_ORDER; ++k)
    check(t.dims[k] == 0);
  check(count == h.count && count == tp_dense_count(&t));
  check(tp_dense_check(&t) == TP_SUCCESS);

  /* The data came from the file, and the input is left just after it. */
  uint64_t nbytes = (uint64_t)count * tp_dtype_size(h.dtype);
  check(h.data_offset + nbytes <= n);
  check(tpi_input_remaining(&in) == n - h.data_offset - nbytes);

  /* The finiteness promise, in the precision returned (every element read: ASan sees a
   * buffer shorter than the count). */
  for (int64_t i = 0; i < count; ++i)
    check(isfinite(load(t.data, t.dtype, i)));

  check(tp_dense_free(NULL, &t) == TP_SUCCESS);
  check(t.order == 0 && t.data == NULL);
  tpi_input_release(&in);
  return 0;
}

#else

#include "tests/fuzz/fuzz_seeds.h"

/* An array written by tp_npy_write, stored with a selector. */
static int write_npy(const char *name, uint8_t select, tp_dtype dtype, int ndim,
                     const int64_t *shape, int fortran, const void *values) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.tmp", fuzz_seed_dir, name);
  if (tp_npy_write(path, dtype, ndim, shape, fortran, values) != TP_SUCCESS) {
    fprintf(stderr, "%s: %s\n", name, tp_last_error());
    return 0;
  }
  unsigned char bytes[4096];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f)
    fclose(f);
  remove(path);
  return n > 0 && fuzz_write_seed(name, select, bytes, n);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  fuzz_seed_dir = argv[1];
  const uint8_t f64 = 0, f32 = 1;
  double d[24];
  float s[24];
  for (int i = 0; i < 24; ++i)
    d[i] = 0.25 * i - 2, s[i] = (float)d[i];
  double huge[6] = {1, 2, 1e300, 4, 5, 6}, nan_d[4] = {1, NAN, 3, 4};
  float inf_s[4] = {1, 2, 3, -INFINITY};
  int32_t ints[6] = {1, 2, 3, 4, 5, 6};
  const int64_t s23[2] = {2, 3}, s234[3] = {2, 3, 4}, s22[2] = {2, 2}, s6[1] = {6},
                s1111[4] = {1, 1, 1, 1}, s06[2] = {0, 6};
  int ok = write_npy("f64_c_2x3.npy", f64, TP_DTYPE_F64, 2, s23, 0, d) &&
           write_npy("f64_fortran_2x3x4_to_f32.npy", f32, TP_DTYPE_F64, 3, s234, 1, d) &&
           write_npy("f32_c_2x3x4.npy", f32, TP_DTYPE_F32, 3, s234, 0, s) &&
           write_npy("f32_fortran_to_f64.npy", f64, TP_DTYPE_F32, 2, s23, 1, s) &&
           write_npy("f64_ones_4d.npy", f64, TP_DTYPE_F64, 4, s1111, 0, d) &&
           write_npy("f64_beyond_f32.npy", f32, TP_DTYPE_F64, 2, s23, 0, huge) &&
           write_npy("f64_nan.npy", f64, TP_DTYPE_F64, 2, s22, 0, nan_d) &&
           write_npy("f32_inf.npy", f32, TP_DTYPE_F32, 2, s22, 1, inf_s) &&
           write_npy("i32_2x3.npy", f64, TP_DTYPE_I32, 2, s23, 0, ints) &&
           write_npy("f64_vector.npy", f64, TP_DTYPE_F64, 1, s6, 0, d) &&
           write_npy("f64_empty.npy", f64, TP_DTYPE_F64, 2, s06, 0, d) &&
           fuzz_write_seed("bad_magic.npy", f64, "\x93NUMPX\x01\x00", 8) &&
           fuzz_write_seed("empty", f32, "", 0);
  return ok ? 0 : 1;
}

#endif
