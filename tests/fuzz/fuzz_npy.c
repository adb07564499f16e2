/* libFuzzer target: tp_npy_read_buffer on arbitrary bytes either fails and leaves its
 * output zeroed, or returns an array whose shape, count and data agree. Built and run by
 * tools/ci/fuzz.sh. Compiled with -DFUZZ_NPY_WRITE_SEEDS it is instead a program that
 * writes a seed corpus into the directory named by its argument. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/npy.h"

#ifndef FUZZ_NPY_WRITE_SEEDS

static void check(int ok) {
  if (!ok)
    abort(); /* libFuzzer reports it as a crash and keeps the input */
}

static volatile unsigned char fuzz_sink; /* keeps the reads of the data */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tp_npy_array a;
  static const tp_npy_array zero;
  if (tp_npy_read_buffer(data, size, &a) != TP_SUCCESS) {
    check(memcmp(&a, &zero, sizeof a) == 0);
    return 0;
  }
  size_t elem = tp_dtype_size(a.dtype);
  check(elem != 0 && a.ndim >= 0 && a.ndim <= TP_NPY_MAX_DIMS && a.data != NULL);
  int64_t count = 1;
  for (int i = 0; i < a.ndim; ++i)
    check(a.shape[i] >= 0);
  for (int i = 0; i < a.ndim; ++i)
    count = a.shape[i] == 0 ? 0 : count;
  for (int i = 0; i < a.ndim && count > 0; ++i) {
    check(count <= INT64_MAX / a.shape[i]);
    count *= a.shape[i];
  }
  check(count == a.count && (uint64_t)a.count * elem <= size);
  /* Touch every byte so that ASan sees a data buffer shorter than count says. */
  for (size_t i = 0; i < (size_t)a.count * elem; ++i)
    fuzz_sink ^= ((const unsigned char *)a.data)[i];
  tp_npy_free(&a);
  check(memcmp(&a, &zero, sizeof a) == 0);
  return 0;
}

#else

#include "tests/fuzz/fuzz_seeds.h"

/* A file in versions the writer does not produce: 2.0 or 3.0, any dict, no padding. */
static int write_raw(const char *name, int major, const char *dict, const void *data,
                     size_t nbytes) {
  unsigned char b[512];
  size_t len = strlen(dict);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)major;
  b[7] = 0;
  for (int i = 0; i < 4; ++i)
    b[8 + i] = (unsigned char)(len >> 8 * i);
  memcpy(b + 12, dict, len);
  memcpy(b + 12 + len, data, nbytes);
  return fuzz_write_file(name, NULL, 0, b, 12 + len + nbytes);
}

static int write_npy(const char *name, tp_dtype dtype, int ndim, const int64_t *shape,
                     int fortran) {
  static const unsigned char data[256] = {1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0xff, 0x7f, 0x3f};
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", fuzz_seed_dir, name);
  if (tp_npy_write(path, dtype, ndim, shape, fortran, data) == TP_SUCCESS)
    return 1;
  fprintf(stderr, "%s\n", tp_last_error());
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  fuzz_seed_dir = argv[1];
  const int64_t s23[2] = {2, 3}, s322[3] = {3, 2, 2}, s4[1] = {4}, s03[2] = {0, 3},
                s6[6] = {1, 1, 2, 1, 1, 1};
  const unsigned char raw[16] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xfe};
  int ok = write_npy("f64_2x3.npy", TP_DTYPE_F64, 2, s23, 0) &&
           write_npy("f32_fortran.npy", TP_DTYPE_F32, 3, s322, 1) &&
           write_npy("i8_scalar.npy", TP_DTYPE_I8, 0, NULL, 0) &&
           write_npy("u64_4.npy", TP_DTYPE_U64, 1, s4, 0) &&
           write_npy("i32_empty.npy", TP_DTYPE_I32, 2, s03, 1) &&
           write_npy("u8_6d.npy", TP_DTYPE_U8, 6, s6, 0) &&
           write_raw("v2_big_endian.npy", 2,
                     "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 2), }", raw, 16) &&
           write_raw("v3_reordered.npy", 3,
                     "{\"shape\":(3L,),\"descr\":\"<u4\",\"fortran_order\":False}\n", raw, 12);
  return ok ? 0 : 1;
}

#endif
