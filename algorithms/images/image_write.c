/* The values of an image as a writer stores them: float32 or float64, little-endian,
 * unscaled by the geometry's scl_slope and scl_inter, in the order of the file's axes. */
#include <string.h>

#include "algorithms/images/tp_image_internal.h"

enum { CHUNK = 1 << 12 };

/* Stored value of v: what a reader that scales by slope and inter turns back into v. */
static double unscale(double v, double slope, double inter) {
  return slope == 1.0 && inter == 0.0 ? v : (v - inter) / slope;
}

static void put_values(tpi_image_sink *s, const double *v, size_t n, tp_dtype dtype) {
  unsigned char bytes[CHUNK * 8];
  size_t size = dtype == TP_DTYPE_F32 ? 4 : 8;
  for (size_t i = 0; i < n; ++i) {
    if (size == 4) {
      float f = (float)v[i];
      memcpy(bytes + 4 * i, &f, 4);
    } else {
      memcpy(bytes + 8 * i, &v[i], 8);
    }
  }
  tpi_npy_to_little(bytes, (int64_t)n, size);
  tpi_image_sink_write(s, bytes, n * size);
}

void tpi_image_write_values(tpi_image_sink *s, const tp_image *image, tp_dtype dtype,
                            const int order[4]) {
  const tp_image_geometry *g = &image->geometry;
  int64_t dims[4], stride[4], counter[4] = {0, 0, 0, 0}, pos = 0;
  double chunk[CHUNK], slope = g->scl_slope, inter = g->scl_inter;
  size_t n = 0;
  tp_image_spatial_dims(g, dims);
  dims[3] = image->values;
  stride[3] = 1, stride[0] = image->values, stride[1] = stride[0] * dims[0];
  stride[2] = stride[1] * dims[1];
  if (slope == 0.0)
    slope = 1.0, inter = 0.0;
  for (int64_t e = 0; e < image->voxels * image->values; ++e) {
    chunk[n++] = unscale(image->data[pos], slope, inter);
    if (n == CHUNK)
      put_values(s, chunk, n, dtype), n = 0;
    for (int k = 0; k < 4; ++k) { /* the next element in the file's order */
      int a = order[k];
      pos += stride[a];
      if (++counter[k] < dims[a])
        break;
      pos -= stride[a] * counter[k];
      counter[k] = 0;
    }
  }
  put_values(s, chunk, n, dtype);
}
