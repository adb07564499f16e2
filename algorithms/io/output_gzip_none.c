/* gzip outputs in a build without zlib: refused, naming the file. */
#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

tp_status tp_output_deflate_start(tp_output_deflate **d, const char *path) {
  *d = NULL;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "cannot write %s gzip-compressed: this tenport was "
                  "built without zlib; write it uncompressed and compress it with gzip", path);
}

int tp_output_deflate_push(tp_output_deflate *d, const void *bytes, size_t n, int finish,
                           tp_output_sink sink, void *ctx) {
  (void)d, (void)bytes, (void)n, (void)finish, (void)sink, (void)ctx;
  return 0;
}

void tp_output_deflate_end(tp_output_deflate **d) { (void)d; }
