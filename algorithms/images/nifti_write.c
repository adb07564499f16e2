/* NIfTI-1 and NIfTI-2 files, little-endian, single file (magic n+1 / n+2), the data
 * right after the header and its four-byte extension flag. A geometry read from NIfTI
 * keeps its qform and sform fields as stored; any other gets both from its transform
 * (codes 1, scanner), the qform left out (code 0) when the transform is not a rotation
 * that a quaternion can hold. */
#include <math.h>
#include <string.h>

#include "algorithms/images/tp_image_internal.h"

enum { NIFTI1_SIZE = 348, NIFTI2_SIZE = 540, EXTENSION_FLAG = 4 };

static void put_uint(unsigned char *p, size_t off, uint64_t v, size_t size) {
  for (size_t i = 0; i < size; ++i)
    p[off + i] = (unsigned char)(v >> (8 * i));
}
static void put_f32(unsigned char *p, size_t off, double v) {
  float f = (float)v;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  put_uint(p, off, bits, 4);
}
static void put_f64(unsigned char *p, size_t off, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  put_uint(p, off, bits, 8);
}

/* The header's numbers, whatever the version. */
typedef struct nifti_out {
  int ndim, datatype, bitpix, qform_code, sform_code, xyzt_units;
  int64_t dim[8];
  double pixdim[8], scl_slope, scl_inter, quatern[3], qoffset[3], srow[3][4];
} nifti_out;

/* Whether the qform of quatern, qoffset and pixdim is the affine (to 1e-6 of its size). */
static int qform_holds(const nifti_out *h, const double affine[3][4]) {
  double q[3][4], scale = 1e-300;
  tpi_nifti_qform_affine(h->quatern, h->qoffset, h->pixdim, q);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      scale = fmax(scale, fabs(affine[r][c]));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (!(fabs(q[r][c] - affine[r][c]) <= 1e-6 * scale))
        return 0;
  return 1;
}

static void set_transforms(const tp_image_geometry *g, nifti_out *h) {
  int nifti = g->format == TP_IMAGE_NIFTI1 || g->format == TP_IMAGE_NIFTI2;
  if (nifti) {
    h->qform_code = g->qform_code, h->sform_code = g->sform_code;
    memcpy(h->quatern, g->quatern, sizeof h->quatern);
    memcpy(h->qoffset, g->qoffset, sizeof h->qoffset);
    memcpy(h->srow, g->srow, sizeof h->srow);
    h->pixdim[0] = g->pixdim[0];
    return;
  }
  double affine[3][4];
  tp_image_affine(g, affine);
  memcpy(h->srow, affine, sizeof h->srow);
  tpi_nifti_qform_of(g->transform, h->quatern, h->qoffset, &h->pixdim[0]);
  h->sform_code = 1;
  h->qform_code = qform_holds(h, affine) ? 1 : 0;
}

static void describe(const tp_image *image, tp_dtype dtype, nifti_out *h) {
  const tp_image_geometry *g = &image->geometry;
  int nifti = g->format == TP_IMAGE_NIFTI1 || g->format == TP_IMAGE_NIFTI2;
  int64_t dims[3];
  memset(h, 0, sizeof *h);
  tp_image_spatial_dims(g, dims);
  h->ndim = image->values > 1 || g->ndim > 3 ? 4 : 3;
  for (int i = 0; i < 8; ++i)
    h->dim[i] = 1, h->pixdim[i] = 1.0;
  h->dim[0] = h->ndim;
  for (int a = 0; a < 3; ++a) {
    h->dim[a + 1] = dims[a];
    h->pixdim[a + 1] = nifti ? g->pixdim[a + 1] : g->vox[a];
  }
  h->dim[4] = image->values;
  if (image->values_axis >= 0) {
    double v = nifti ? g->pixdim[image->values_axis + 1] : g->vox[image->values_axis];
    h->pixdim[4] = isfinite(v) && v > 0 ? v : 1.0;
  }
  h->datatype = dtype == TP_DTYPE_F32 ? 16 : 64;
  h->bitpix = dtype == TP_DTYPE_F32 ? 32 : 64;
  h->xyzt_units = nifti ? g->xyzt_units : 10; /* mm and s */
  h->scl_slope = g->scl_slope == 0.0 ? 1.0 : g->scl_slope;
  h->scl_inter = g->scl_slope == 0.0 ? 0.0 : g->scl_inter;
  set_transforms(g, h);
}

static void header1(const nifti_out *h, unsigned char *p) {
  put_uint(p, 0, NIFTI1_SIZE, 4);
  p[38] = 'r';
  for (int i = 0; i < 8; ++i) {
    put_uint(p, 40 + 2 * (size_t)i, (uint64_t)h->dim[i], 2);
    put_f32(p, 76 + 4 * (size_t)i, h->pixdim[i]);
  }
  put_uint(p, 70, (uint64_t)h->datatype, 2);
  put_uint(p, 72, (uint64_t)h->bitpix, 2);
  put_f32(p, 108, NIFTI1_SIZE + EXTENSION_FLAG);
  put_f32(p, 112, h->scl_slope);
  put_f32(p, 116, h->scl_inter);
  p[123] = (unsigned char)h->xyzt_units;
  memcpy(p + 148, "tenport", 7);
  put_uint(p, 252, (uint64_t)h->qform_code, 2);
  put_uint(p, 254, (uint64_t)h->sform_code, 2);
  for (int i = 0; i < 3; ++i) {
    put_f32(p, 256 + 4 * (size_t)i, h->quatern[i]);
    put_f32(p, 268 + 4 * (size_t)i, h->qoffset[i]);
    for (int c = 0; c < 4; ++c)
      put_f32(p, 280 + 16 * (size_t)i + 4 * (size_t)c, h->srow[i][c]);
  }
  memcpy(p + 344, "n+1", 4);
}

static void header2(const nifti_out *h, unsigned char *p) {
  put_uint(p, 0, NIFTI2_SIZE, 4);
  memcpy(p + 4, "n+2\0\r\n\032\n", 8);
  put_uint(p, 12, (uint64_t)h->datatype, 2);
  put_uint(p, 14, (uint64_t)h->bitpix, 2);
  for (int i = 0; i < 8; ++i) {
    put_uint(p, 16 + 8 * (size_t)i, (uint64_t)h->dim[i], 8);
    put_f64(p, 104 + 8 * (size_t)i, h->pixdim[i]);
  }
  put_uint(p, 168, NIFTI2_SIZE + EXTENSION_FLAG, 8);
  put_f64(p, 176, h->scl_slope);
  put_f64(p, 184, h->scl_inter);
  memcpy(p + 240, "tenport", 7);
  put_uint(p, 344, (uint64_t)h->qform_code, 4);
  put_uint(p, 348, (uint64_t)h->sform_code, 4);
  for (int i = 0; i < 3; ++i) {
    put_f64(p, 352 + 8 * (size_t)i, h->quatern[i]);
    put_f64(p, 376 + 8 * (size_t)i, h->qoffset[i]);
    for (int c = 0; c < 4; ++c)
      put_f64(p, 400 + 32 * (size_t)i + 8 * (size_t)c, h->srow[i][c]);
  }
  put_uint(p, 500, (uint64_t)h->xyzt_units, 4);
}

tp_status tpi_nifti_write(tpi_image_sink *s, const tp_image *image, tp_dtype dtype, int version) {
  static const int nifti_order[4] = {0, 1, 2, 3}; /* x fastest, the values slowest */
  unsigned char head[NIFTI2_SIZE + EXTENSION_FLAG];
  nifti_out h;
  describe(image, dtype, &h);
  memset(head, 0, sizeof head);
  if (version == 2)
    header2(&h, head);
  else
    header1(&h, head);
  tpi_image_sink_write(s, head, (version == 2 ? NIFTI2_SIZE : NIFTI1_SIZE) + EXTENSION_FLAG);
  tpi_image_write_values(s, image, dtype, nifti_order);
  return s->status;
}
