/* gzip outputs in a build without zlib: refused, naming the file. */
#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

tp_status tpi_output_deflate_start(tpi_output_deflate **d, const char *path) {
  *d = NULL;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                  "cannot write %s gzip-compressed: this tenport was "
                  "built without zlib; write it uncompressed and compress it with gzip",
                  path);
}

int tpi_output_deflate_push(tpi_output_deflate *d, const void *bytes, size_t n, int finish,
                            tpi_output_sink sink, void *ctx) {
  (void)d, (void)bytes, (void)n, (void)finish, (void)sink, (void)ctx;
  return 0;
}

void tpi_output_deflate_end(tpi_output_deflate **d) { (void)d; }
