/* gzip output in a build without zlib: refused, naming the file. */
#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

tp_status tpi_image_deflate_start(tpi_image_deflate **z, const char *path) {
  *z = NULL;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                  "cannot write %s: this tenport was built without "
                  "zlib, which gzip-compressed output needs; name it without .gz",
                  path);
}

tp_status tpi_image_deflate_push(tpi_image_deflate *z, tpi_output *file, const void *bytes,
                                 size_t n, int finish) {
  (void)z, (void)bytes, (void)n, (void)finish;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "%s: no zlib", tpi_output_path(file));
}

void tpi_image_deflate_end(tpi_image_deflate **z) {
  if (z)
    *z = NULL;
}
