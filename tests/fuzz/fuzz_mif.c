/* libFuzzer target: the MRtrix .mif reader (tp_image_read_buffer on bytes named .mif, so
 * that a damaged first line still reaches the header parser): every read fails with its
 * output zeroed or returns a consistent image (fuzz_image.h). Built and run by
 * tools/ci/fuzz.sh. Compiled with -DFUZZ_MIF_WRITE_SEEDS it is instead a program that
 * writes a seed corpus into the directory named by its argument: .mif of every layout
 * tenport writes, gzip-compressed, and headers written by hand with reversed axes, other
 * datatypes, scaling and comments. */
#include "tests/fuzz/fuzz_image.h"

#ifndef FUZZ_MIF_WRITE_SEEDS

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_image_read(data, size, "fuzz.mif");
  return 0;
}

#else

/* A header with its data: count bytes of a pattern from offset 256. */
static int write_by_hand(const char *name, const char *header, size_t count) {
  unsigned char b[256 + 512] = {0};
  size_t len = strlen(header);
  if (len > 256 || count > 512)
    return 0;
  memcpy(b, header, len);
  for (size_t i = 0; i < count; ++i)
    b[256 + i] = (unsigned char)(i * 37 + 11);
  return fuzz_image_write_raw(name, b, 256 + count);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  fuzz_seed_dir = argv[1];
  int ok = fuzz_image_write_seed("fod4.mif", 4, 2, 3, 2, 6, TP_IMAGE_MIF, TP_DTYPE_F32) &&
           fuzz_image_write_seed("mask3.mif", 3, 3, 2, 2, 1, TP_IMAGE_MIF, TP_DTYPE_F64) &&
           fuzz_image_write_seed("gzip.mif.gz", 4, 2, 2, 2, 6, TP_IMAGE_MIF, TP_DTYPE_F32) &&
           fuzz_image_write_seed("from_nifti.mif", 4, 2, 1, 2, 6, TP_IMAGE_NIFTI1, TP_DTYPE_F32) &&
           write_by_hand("reversed.mif",
                         "mrtrix image\n# by hand\ndim: 3,2,2,4\nvox: 1.5,2,2.5,nan\n"
                         "layout: -1,+2,+3,+0\ndatatype: Int16BE\ntransform: 0,-1,0,10\n"
                         "transform: 1,0,0,20\ntransform: 0,0,1,30\nscaling: 1,0.5\n"
                         "file: . 256\nEND\n",
                         96) &&
           write_by_hand("crlf.mif",
                         "mrtrix image\r\ndim: 2,2,2\r\nvox: 1,1,1\r\nlayout: +2,-0,-1"
                         "\r\ndatatype: UInt8\r\ncomments: x\r\nfile: . 256\r\nEND\r\n",
                         8) &&
           write_by_hand("five.mif",
                         "mrtrix image\ndim: 2,1,2,1,3\nvox: 1,1,1,1,1\nlayout: "
                         "+1,+2,+3,+4,+0\ndatatype: Float64LE\nfile: . 256\nEND\n",
                         96);
  return ok ? 0 : 1;
}

#endif
