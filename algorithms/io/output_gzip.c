/* gzip outputs: the bytes a writer puts into a file of an output set marked with
 * tp_output_set_gzip are compressed by zlib's deflate as the file's buffer is flushed, and
 * the compressed bytes go to the file. One gzip member per file. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

enum { DEFLATE_OUT_BYTES = 1 << 18 };

struct tpi_output_deflate {
  z_stream z;
  unsigned char out[DEFLATE_OUT_BYTES];
};

tp_status tpi_output_deflate_start(tpi_output_deflate **d, const char *path) {
  *d = (tpi_output_deflate *)calloc(1, sizeof **d);
  if (!*d)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory to compress with gzip", path);
  /* 16 + MAX_WBITS: a gzip header and trailer around the deflate data */
  if (deflateInit2(&(*d)->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    free(*d);
    *d = NULL;
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: zlib could not start compressing", path);
  }
  return TP_SUCCESS;
}

int tpi_output_deflate_push(tpi_output_deflate *d, const void *bytes, size_t n, int finish,
                            tpi_output_sink sink, void *ctx) {
  const unsigned char *p = (const unsigned char *)bytes;
  do {
    uInt take = n < (size_t)1 << 30 ? (uInt)n : (uInt)1 << 30; /* zlib counts in uInt */
    int flush = finish && take == n ? Z_FINISH : Z_NO_FLUSH;
    d->z.next_in = (Bytef *)(uintptr_t)p, d->z.avail_in = take;
    int full;
    do { /* until deflate leaves room in the output: it has taken all the input */
      d->z.next_out = d->out, d->z.avail_out = DEFLATE_OUT_BYTES;
      if (deflate(&d->z, flush) == Z_STREAM_ERROR)
        return EIO;
      size_t made = DEFLATE_OUT_BYTES - d->z.avail_out;
      full = d->z.avail_out == 0;
      int err = made ? sink(ctx, d->out, made) : 0;
      if (err)
        return err;
    } while (full);
    p += take, n -= take;
  } while (n > 0);
  return 0;
}

void tpi_output_deflate_end(tpi_output_deflate **d) {
  if (!d || !*d)
    return;
  deflateEnd(&(*d)->z);
  free(*d);
  *d = NULL;
}
