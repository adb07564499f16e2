/* What the image fuzz targets (fuzz_nifti.c, fuzz_mif.c) share: the checks every read
 * must pass, and the seed writers. A read of arbitrary bytes either fails and leaves its
 * output zeroed, or returns an image whose shape, data and geometry agree: voxels x values
 * from the dimensions in one of the accepted layouts, every value readable, and an image
 * that lies on its own grid (when its affine is finite). */
#ifndef FUZZ_IMAGE_H
#define FUZZ_IMAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/image.h"
#include "tests/fuzz/fuzz_seeds.h"

static void fuzz_image_assert(int ok) {
  if (!ok)
    abort(); /* libFuzzer reports it as a crash and keeps the input */
}

static volatile double fuzz_image_sink; /* keeps the reads of the data */

/* Reads data as the file name (its extension picks the reader when the bytes do not). */
static void fuzz_image_read(const uint8_t *data, size_t size, const char *name) {
  tp_image im;
  static const tp_image zero;
  if (tp_image_read_buffer(data, size, name, &im) != TP_SUCCESS) {
    fuzz_image_assert(memcmp(&im, &zero, sizeof im) == 0);
    return;
  }
  const tp_image_geometry *g = &im.geometry;
  fuzz_image_assert(g->ndim >= 1 && g->ndim <= TP_IMAGE_MAX_DIMS && im.data != NULL);
  int64_t dims[3], count = 1;
  tp_image_spatial_dims(g, dims);
  for (int a = 0; a < g->ndim; ++a) {
    fuzz_image_assert(g->dim[a] >= 1);
    count *= g->dim[a];
  }
  fuzz_image_assert(im.voxels == dims[0] * dims[1] * dims[2] && im.values >= 1 &&
                    im.voxels * im.values == count);
  fuzz_image_assert(im.values_axis == -1 || (im.values_axis >= 3 && im.values_axis < g->ndim &&
                                             g->dim[im.values_axis] == im.values));
  for (int64_t i = 0; i < count; ++i)
    fuzz_image_sink = fuzz_image_sink + im.data[i];
  double A[3][4];
  int finite = 1;
  tp_image_affine(g, A);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      finite = finite && A[r][c] - A[r][c] == 0; /* not NaN nor infinite */
  if (finite) /* (huge transforms times huge voxel sizes may overflow) */
    fuzz_image_assert(tp_image_check_same_grid(g, "a", g, "b", 0.0) == TP_SUCCESS);
  tp_image_free(&im);
  fuzz_image_assert(memcmp(&im, &zero, sizeof im) == 0);
}

/* ---- seeds --------------------------------------------------------------------------- */

static int fuzz_image_write_raw(const char *name, const void *bytes, size_t n) {
  return fuzz_write_file(name, NULL, 0, bytes, n);
}

/* A small image of X x Y x Z (x C in the 4-D or 5-D layout) written by tenport's writer
 * to NAME in the corpus, with an oblique transform. */
static int fuzz_image_write_seed(const char *name, int ndim, int64_t x, int64_t y, int64_t z,
                                 int64_t c, tp_image_format format, tp_dtype dtype) {
  double data[256];
  char path[4096];
  tp_image im;
  memset(&im, 0, sizeof im);
  im.geometry.format = format;
  im.geometry.ndim = ndim;
  im.geometry.dim[0] = x, im.geometry.dim[1] = y, im.geometry.dim[2] = z;
  im.geometry.dim[3] = ndim == 5 ? 1 : c, im.geometry.dim[4] = c;
  for (int a = 0; a < 5; ++a)
    im.geometry.vox[a] = 1.0 + 0.5 * a;
  const double t[3][4] = {{0.8, -0.6, 0, 10}, {0.6, 0.8, 0, -20}, {0, 0, 1, 30}};
  memcpy(im.geometry.transform, t, sizeof t);
  if (format != TP_IMAGE_MIF) { /* a NIfTI geometry: qform and sform of the same grid */
    im.geometry.qform_code = 1, im.geometry.sform_code = 2, im.geometry.xyzt_units = 10;
    im.geometry.pixdim[0] = 1, im.geometry.quatern[2] = 0.316227766;
    for (int a = 0; a < 3; ++a) {
      im.geometry.pixdim[a + 1] = im.geometry.vox[a];
      im.geometry.qoffset[a] = t[a][3];
      for (int k = 0; k < 3; ++k)
        im.geometry.srow[a][k] = t[a][k] * im.geometry.vox[k];
      im.geometry.srow[a][3] = t[a][3];
    }
  }
  im.geometry.scl_slope = 1.0;
  im.voxels = x * y * z;
  im.values = ndim == 3 ? 1 : c;
  im.values_axis = ndim == 3 ? -1 : ndim == 5 ? 4 : 3;
  for (int64_t i = 0; i < im.voxels * im.values && i < 256; ++i)
    data[i] = (double)(i % 17) - 8.25;
  im.data = data;
  snprintf(path, sizeof path, "%s/%s", fuzz_seed_dir, name);
  if (tp_image_write(path, &im, dtype) == TP_SUCCESS)
    return 1;
  fprintf(stderr, "%s\n", tp_last_error());
  return 0;
}

#endif
