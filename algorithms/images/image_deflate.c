/* gzip output of the image writers, by zlib's deflate: one gzip member per file. */
#include <stdlib.h>
#include <zlib.h>

#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

enum { OUT_CHUNK = 1 << 16 };

struct tpi_image_deflate {
  z_stream z;
  unsigned char out[OUT_CHUNK];
};

tp_status tpi_image_deflate_start(tpi_image_deflate **z, const char *path) {
  tpi_image_deflate *d = (tpi_image_deflate *)calloc(1, sizeof *d);
  if (!d)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory to compress", path);
  /* 16 + MAX_WBITS: a gzip header and trailer around the deflate data */
  if (deflateInit2(&d->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    free(d);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: zlib could not start compressing", path);
  }
  *z = d;
  return TP_SUCCESS;
}

tp_status tpi_image_deflate_push(tpi_image_deflate *d, tpi_output *file, const void *bytes,
                                 size_t n, int finish) {
  d->z.next_in = (Bytef *)(uintptr_t)bytes; /* zlib does not write through next_in */
  d->z.avail_in = (uInt)n;
  int r;
  do {
    d->z.next_out = d->out, d->z.avail_out = OUT_CHUNK;
    r = deflate(&d->z, finish ? Z_FINISH : Z_NO_FLUSH);
    if (r == Z_STREAM_ERROR)
      return TP_ERROR(TP_ERROR_INTERNAL, "%s: zlib's deflate failed", tpi_output_path(file));
    tpi_output_write(file, d->out, OUT_CHUNK - d->z.avail_out);
  } while (d->z.avail_out == 0 || (finish && r != Z_STREAM_END));
  return TP_SUCCESS;
}

void tpi_image_deflate_end(tpi_image_deflate **z) {
  if (!z || !*z)
    return;
  deflateEnd(&(*z)->z);
  free(*z);
  *z = NULL;
}
