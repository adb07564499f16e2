/* Images in and out: the format of an input (its first bytes, else its name), reading
 * the header and then the data of each format, and writing an image in the format its
 * name asks for through an output set. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

const char *tp_image_format_name(tp_image_format format) {
  switch (format) {
  case TP_IMAGE_NIFTI1: return "NIfTI-1";
  case TP_IMAGE_NIFTI2: return "NIfTI-2";
  case TP_IMAGE_MIF: return "MRtrix .mif";
  case TP_IMAGE_NONE: break;
  }
  return "none";
}

/* ---- names ----------------------------------------------------------------------------- */

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n > m && strcasecmp(s + n - m, tail) == 0;
}

tp_image_format tp_image_path_format(const char *path, int *gzip) {
  static const struct {
    const char *tail;
    tp_image_format format;
    int gzip;
  } names[] = {{".nii", TP_IMAGE_NIFTI1, 0},
               {".nii.gz", TP_IMAGE_NIFTI1, 1},
               {".mif", TP_IMAGE_MIF, 0},
               {".mif.gz", TP_IMAGE_MIF, 1}};
  int z = 0;
  tp_image_format f = TP_IMAGE_NONE;
  for (size_t i = 0; path && i < sizeof names / sizeof names[0]; ++i)
    if (ends_with(path, names[i].tail))
      f = names[i].format, z = names[i].gzip;
  if (gzip)
    *gzip = z;
  return f;
}

/* ---- what an input holds ---------------------------------------------------------------- */

enum { SNIFF_BYTES = 348 };

static tp_image_format format_of_bytes(const unsigned char *p, size_t n) {
  int swap;
  tp_image_format f = tpi_nifti_sizeof_hdr(p, n, &swap);
  if (f != TP_IMAGE_NONE)
    return f;
  if (n >= 348 && (memcmp(p + 344, "n+1", 4) == 0 || memcmp(p + 344, "ni1", 4) == 0))
    return TP_IMAGE_NIFTI1;
  if (n >= 8 && (memcmp(p + 4, "n+2", 4) == 0 || memcmp(p + 4, "ni2", 4) == 0))
    return TP_IMAGE_NIFTI2;
  if (n >= 13 && memcmp(p, "mrtrix image", 12) == 0 && (p[12] == '\n' || p[12] == '\r'))
    return TP_IMAGE_MIF;
  return TP_IMAGE_NONE;
}

tp_status tp_image_input_format(tp_input *in, tp_image_format *format) {
  TP_CHECK_ARG(in && format, "in and format must not be NULL");
  const unsigned char *p;
  size_t got = 0;
  TP_TRY(tpi_input_peek(in, SNIFF_BYTES, &p, &got));
  *format = format_of_bytes(p, got);
  int gzip = got >= 2 && p[0] == 0x1f && p[1] == 0x8b; /* left compressed: no zlib */
  if (*format == TP_IMAGE_NONE && !gzip)
    *format = tp_image_path_format(tp_input_name(in), NULL);
  return TP_SUCCESS;
}

/* ---- reading ------------------------------------------------------------------------------ */

static tp_status not_an_image(tp_input *in) {
  tp_file_format found;
  TP_TRY(tp_input_format(in, &found));
  return tp_input_wrong_format(in, found, "an image (.nii, .nii.gz, .mif, .mif.gz)");
}

static tp_status read_image(tp_input *in, tp_image *out) {
  tp_image_format format;
  tpi_image_data d;
  TP_TRY(tp_image_input_format(in, &format));
  if (format == TP_IMAGE_NONE)
    return not_an_image(in);
  if (format == TP_IMAGE_MIF)
    TP_TRY(tpi_mif_read_header(in, &out->geometry, &d));
  else
    TP_TRY(tpi_nifti_read_header(in, &out->geometry, &d));
  TP_TRY(tpi_image_shape(tp_input_name(in), &out->geometry, out));
  d.count = out->voxels * out->values;
  return tpi_image_read_data(in, in->consumed, &d, out);
}

tp_status tp_image_read_input(tp_input *in, tp_image *out) {
  TP_CHECK_ARG(out, "out is NULL");
  memset(out, 0, sizeof *out);
  TP_CHECK_ARG(in, "in is NULL");
  tp_status st = read_image(in, out);
  if (st != TP_SUCCESS)
    tp_image_free(out);
  return st;
}

tp_status tp_image_read(const char *path, tp_image *out) {
  TP_CHECK_ARG(out, "out is NULL");
  memset(out, 0, sizeof *out);
  tp_input *in = NULL;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = tp_image_read_input(in, out);
  tp_input_close(&in);
  return st;
}

tp_status tp_image_read_buffer(const void *bytes, size_t size, const char *name, tp_image *out) {
  TP_CHECK_ARG(out, "out is NULL");
  memset(out, 0, sizeof *out);
  TP_CHECK_ARG(bytes || size == 0, "bytes is NULL");
  tp_input in;
  tpi_input_init_buffer(&in, name ? name : "buffer", bytes, size);
  tp_status st = tp_image_read_input(&in, out);
  tpi_input_release(&in);
  return st;
}

void tp_image_free(tp_image *image) {
  if (!image)
    return;
  free(image->data);
  memset(image, 0, sizeof *image);
}

/* ---- writing ------------------------------------------------------------------------------ */

static tp_status check_image(const char *path, const tp_image *image, tp_dtype dtype) {
  TP_CHECK_ARG(path && *path && image, "path or image is NULL");
  TP_CHECK_ARG(dtype == TP_DTYPE_F32 || dtype == TP_DTYPE_F64,
               "%s: images are written as float32 or float64, not %s", path, tp_dtype_name(dtype));
  const tp_image_geometry *g = &image->geometry;
  TP_CHECK_ARG(g->ndim >= 1 && g->ndim <= TP_IMAGE_MAX_DIMS, "%s: the geometry has %d axes", path,
               g->ndim);
  int64_t dims[3], voxels = 1;
  tp_image_spatial_dims(g, dims);
  for (int a = 0; a < 3; ++a) {
    TP_CHECK_ARG(dims[a] >= 1 && dims[a] <= INT64_MAX / voxels, "%s: dimension %d is %lld", path, a,
                 (long long)dims[a]);
    voxels *= dims[a];
  }
  TP_CHECK_ARG(image->voxels == voxels && image->values >= 1 &&
                   image->values <= INT64_MAX / 8 / voxels,
               "%s: %lld voxels of %lld values, but the geometry has %lld voxels", path,
               (long long)image->voxels, (long long)image->values, (long long)voxels);
  TP_CHECK_ARG(image->data, "%s: the data are NULL", path);
  return TP_SUCCESS;
}

/* NIfTI-2 when the geometry came from one, or a size does not fit NIfTI-1's int16. */
static int nifti_version(const tp_image *image) {
  int64_t dims[3];
  tp_image_spatial_dims(&image->geometry, dims);
  int wide = image->geometry.format == TP_IMAGE_NIFTI2 || image->values > 32767;
  for (int a = 0; a < 3; ++a)
    wide = wide || dims[a] > 32767;
  return wide ? 2 : 1;
}

static tp_status write_file(tpi_output *file, const tp_image *image, tp_dtype dtype,
                            tp_image_format format, int gzip) {
  tpi_image_sink s;
  TP_TRY(tpi_image_sink_open(&s, file, gzip));
  tp_status st = format == TP_IMAGE_MIF ? tpi_mif_write(&s, image, dtype)
                                        : tpi_nifti_write(&s, image, dtype, nifti_version(image));
  tp_status closed = tpi_image_sink_close(&s);
  return st != TP_SUCCESS ? st : closed;
}

tp_status tp_image_write_to(tp_output_set *set, const char *path, const tp_image *image,
                            tp_dtype dtype) {
  TP_CHECK_ARG(set, "set is NULL");
  TP_TRY(check_image(path, image, dtype));
  int gzip = 0;
  tp_image_format format = tp_image_path_format(path, &gzip);
  TP_CHECK_ARG(format != TP_IMAGE_NONE,
               "%s: the name asks for no image format: it must end "
               "in .nii, .nii.gz, .mif or .mif.gz",
               path);
  tpi_output *file;
  TP_TRY(tpi_output_open(set, path, &file));
  tp_status st = write_file(file, image, dtype, format, gzip);
  tp_status done = tpi_output_finish(file); /* closes the file in every case */
  return st != TP_SUCCESS ? st : done;
}

tp_status tp_image_write(const char *path, const tp_image *image, tp_dtype dtype) {
  TP_TRY(check_image(path, image, dtype));
  tp_output_set *set;
  TP_TRY(tp_output_set_create(&set));
  tp_status st = tp_image_write_to(set, path, image, dtype);
  if (st == TP_SUCCESS)
    st = tp_output_set_commit(set);
  tp_output_set_destroy(&set);
  return st;
}
