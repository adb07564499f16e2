/* MRtrix .mif files: the text header (dim, vox, layout, datatype, transform, scaling,
 * file) and the data after it, little-endian, with the values of a voxel together
 * (layout +1,+2,+3,+0, the order tenport holds them in), the offset a multiple of 16. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

enum { HEADER_CAP = 4096, ALIGN = 16 };

static size_t add(char *text, size_t len, const char *fmt, double v) {
  return len + (size_t)snprintf(text + len, HEADER_CAP - len, fmt, v);
}

/* Everything before the "file" line. */
static size_t header_text(const tp_image *image, tp_dtype dtype, char *text) {
  const tp_image_geometry *g = &image->geometry;
  int four = image->values > 1 || g->ndim > 3;
  int64_t dims[3];
  size_t len;
  tp_image_spatial_dims(g, dims);
  len = (size_t)snprintf(text, HEADER_CAP, "mrtrix image\ndim: %lld,%lld,%lld", (long long)dims[0],
                         (long long)dims[1], (long long)dims[2]);
  if (four)
    len += (size_t)snprintf(text + len, HEADER_CAP - len, ",%lld", (long long)image->values);
  len = add(text, len, "\nvox: %.17g", g->vox[0]);
  len = add(text, len, ",%.17g", g->vox[1]);
  len = add(text, len, ",%.17g", g->vox[2]);
  if (four) {
    double v = image->values_axis >= 0 ? g->vox[image->values_axis] : NAN;
    if (isfinite(v))
      len = add(text, len, ",%.17g", v);
    else
      len += (size_t)snprintf(text + len, HEADER_CAP - len, ",nan");
  }
  len += (size_t)snprintf(text + len, HEADER_CAP - len, "\nlayout: %s\ndatatype: %s",
                          four ? "+1,+2,+3,+0" : "+0,+1,+2",
                          dtype == TP_DTYPE_F32 ? "Float32LE" : "Float64LE");
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      len = add(text, len, c ? ", %.17g" : "\ntransform: %.17g", g->transform[r][c]);
  if (g->scl_slope != 0.0 && (g->scl_slope != 1.0 || g->scl_inter != 0.0)) {
    len = add(text, len, "\nscaling: %.17g", g->scl_inter);
    len = add(text, len, ",%.17g", g->scl_slope);
  }
  return len;
}

static int digits(unsigned long long v) {
  int n = 1;
  while (v >= 10)
    v /= 10, ++n;
  return n;
}

tp_status tpi_mif_write(tpi_image_sink *s, const tp_image *image, tp_dtype dtype) {
  static const int voxel_order[4] = {3, 0, 1, 2}; /* the values fastest, then x, y, z */
  static const char zeros[ALIGN] = {0};
  char text[HEADER_CAP + 64];
  size_t len = header_text(image, dtype, text);
  if (len >= HEADER_CAP)
    return TP_ERROR(TP_ERROR_INTERNAL, "%s: the .mif header does not fit %d bytes",
                    tpi_output_path(s->file), HEADER_CAP);
  /* "\nfile: . OFFSET\nEND\n", OFFSET the first multiple of ALIGN past it */
  size_t base = len + strlen("\nfile: . \nEND\n");
  unsigned long long offset = base + 1;
  while (offset < base + (size_t)digits(offset) || offset % ALIGN)
    ++offset;
  len += (size_t)snprintf(text + len, sizeof text - len, "\nfile: . %llu\nEND\n", offset);
  tpi_image_sink_write(s, text, len);
  tpi_image_sink_write(s, zeros, (size_t)(offset - len));
  tpi_image_write_values(s, image, dtype, voxel_order);
  return s->status;
}
