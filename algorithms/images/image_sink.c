/* The writers' byte sink: straight into the output file, or through deflate for a
 * gzip-compressed one (.nii.gz, .mif.gz). */
#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

tp_status tpi_image_sink_open(tpi_image_sink *s, tpi_output *file, int gzip) {
  s->file = file, s->z = NULL, s->status = TP_SUCCESS;
  return gzip ? tpi_image_deflate_start(&s->z, tpi_output_path(file)) : TP_SUCCESS;
}

void tpi_image_sink_write(tpi_image_sink *s, const void *bytes, size_t n) {
  if (s->status != TP_SUCCESS || n == 0)
    return;
  if (s->z)
    s->status = tpi_image_deflate_push(s->z, s->file, bytes, n, 0);
  else
    tpi_output_write(s->file, bytes, n);
}

tp_status tpi_image_sink_close(tpi_image_sink *s) {
  if (s->z && s->status == TP_SUCCESS)
    s->status = tpi_image_deflate_push(s->z, s->file, "", 0, 1);
  tpi_image_deflate_end(&s->z);
  return s->status;
}
