/* libFuzzer target: the NIfTI-1 and NIfTI-2 reader (tp_image_read_buffer on bytes named
 * .nii, so that bytes that do not look like NIfTI still reach its header checks): every
 * read fails with its output zeroed or returns a consistent image (fuzz_image.h). Built
 * and run by tools/ci/fuzz.sh. Compiled with -DFUZZ_NIFTI_WRITE_SEEDS it is instead a
 * program that writes a seed corpus into the directory named by its argument: NIfTI-1
 * and -2 of every layout, gzip-compressed, and a big-endian int16 file with scaling. */
#include "tests/fuzz/fuzz_image.h"

#ifndef FUZZ_NIFTI_WRITE_SEEDS

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_image_read(data, size, "fuzz.nii");
  return 0;
}

#else

static void put_be(unsigned char *p, size_t off, uint64_t v, size_t size) {
  for (size_t i = 0; i < size; ++i)
    p[off + size - 1 - i] = (unsigned char)(v >> (8 * i));
}

/* A big-endian NIfTI-1 of 3 x 2 x 2 int16 with scl_slope 0.5, vox_offset 352. */
static int write_big_endian(void) {
  unsigned char b[352 + 24] = {0};
  const float half = 0.5f, one = 1.0f, offset = 352.0f;
  uint32_t bits;
  put_be(b, 0, 348, 4);
  put_be(b, 40, 3, 2), put_be(b, 42, 3, 2), put_be(b, 44, 2, 2), put_be(b, 46, 2, 2);
  put_be(b, 70, 4, 2), put_be(b, 72, 16, 2);
  for (int i = 0; i < 4; ++i)
    memcpy(&bits, &one, 4), put_be(b, 76 + 4 * (size_t)i, bits, 4);
  memcpy(&bits, &offset, 4), put_be(b, 108, bits, 4);
  memcpy(&bits, &half, 4), put_be(b, 112, bits, 4);
  memcpy(b + 344, "n+1", 4);
  for (int e = 0; e < 12; ++e)
    put_be(b, 352 + 2 * (size_t)e, (uint64_t)(e * 1000 - 6000), 2);
  return fuzz_image_write_raw("big_endian_int16.nii", b, sizeof b);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  fuzz_seed_dir = argv[1];
  int ok = fuzz_image_write_seed("fod4.nii", 4, 2, 3, 2, 6, TP_IMAGE_NIFTI1, TP_DTYPE_F32) &&
           fuzz_image_write_seed("mask3.nii", 3, 3, 2, 2, 1, TP_IMAGE_NIFTI1, TP_DTYPE_F64) &&
           fuzz_image_write_seed("fod5.nii", 5, 2, 2, 2, 6, TP_IMAGE_NIFTI1, TP_DTYPE_F32) &&
           fuzz_image_write_seed("nifti2.nii", 4, 2, 2, 1, 15, TP_IMAGE_NIFTI2, TP_DTYPE_F64) &&
           fuzz_image_write_seed("gzip.nii.gz", 4, 2, 2, 2, 6, TP_IMAGE_NIFTI1, TP_DTYPE_F32) &&
           fuzz_image_write_seed("from_mif.nii", 4, 1, 2, 3, 6, TP_IMAGE_MIF, TP_DTYPE_F32) &&
           write_big_endian();
  return ok ? 0 : 1;
}

#endif
