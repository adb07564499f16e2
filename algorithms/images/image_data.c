/* The data of an image file into memory: the layouts tenport accepts (voxels times the
 * values of each voxel), the stored element types in either byte order, and the walk
 * over a file's axes in their stored order (a .mif layout may run any axis first, and
 * backwards) that puts each element at its place, voxels x values, values fastest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

/* ---- element types ----------------------------------------------------------------- */

static const struct {
  size_t size;
  const char *name;
} types[] = {{1, "int8"},   {1, "uint8"}, {2, "int16"},  {2, "uint16"},  {4, "int32"},
             {4, "uint32"}, {8, "int64"}, {8, "uint64"}, {4, "float32"}, {8, "float64"}};

size_t tpi_image_type_size(tpi_image_type type) { return types[type].size; }

const char *tpi_image_type_name(tpi_image_type type) { return types[type].name; }

/* The element at p (size bytes, reversed first when swap) as a double. */
static double decode_one(const unsigned char *p, tpi_image_type type, int swap) {
  unsigned char b[8];
  size_t size = types[type].size;
  for (size_t i = 0; i < size; ++i)
    b[i] = swap ? p[size - 1 - i] : p[i];
  switch (type) {
  case TP_IMG_I8: return (double)(int8_t)b[0];
  case TP_IMG_U8: return (double)b[0];
  case TP_IMG_I16: {
    int16_t v;
    memcpy(&v, b, 2);
    return v;
  }
  case TP_IMG_U16: {
    uint16_t v;
    memcpy(&v, b, 2);
    return v;
  }
  case TP_IMG_I32: {
    int32_t v;
    memcpy(&v, b, 4);
    return v;
  }
  case TP_IMG_U32: {
    uint32_t v;
    memcpy(&v, b, 4);
    return v;
  }
  case TP_IMG_I64: {
    int64_t v;
    memcpy(&v, b, 8);
    return (double)v;
  }
  case TP_IMG_U64: {
    uint64_t v;
    memcpy(&v, b, 8);
    return (double)v;
  }
  case TP_IMG_F32: {
    float v;
    memcpy(&v, b, 4);
    return v;
  }
  case TP_IMG_F64: {
    double v;
    memcpy(&v, b, 8);
    return v;
  }
  }
  return 0.0;
}

/* ---- layouts ----------------------------------------------------------------------- */

static void describe_dims(const tp_image_geometry *g, char *text, size_t cap) {
  size_t len = 0;
  text[0] = '\0';
  for (int a = 0; a < g->ndim && len < cap; ++a)
    len += (size_t)snprintf(text + len, cap - len, "%s%lld", a ? " x " : "", (long long)g->dim[a]);
}

void tp_image_spatial_dims(const tp_image_geometry *g, int64_t dims[3]) {
  for (int a = 0; a < 3; ++a)
    dims[a] = a < g->ndim ? g->dim[a] : 1;
}

tp_status tpi_image_shape(const char *name, const tp_image_geometry *g, tp_image *out) {
  int n = g->ndim;
  while (n > 4 && g->dim[n - 1] == 1) /* axes of size 1 after the layout's */
    --n;
  out->values = 1, out->values_axis = -1;
  if (n == 4)
    out->values = g->dim[3], out->values_axis = 3;
  else if (n == 5 && g->dim[3] == 1)
    out->values = g->dim[4], out->values_axis = 4;
  else if (n > 3) {
    char text[200];
    describe_dims(g, text, sizeof text);
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s has dimensions %s: tenport reads X x Y x Z, "
                    "X x Y x Z x C and X x Y x Z x 1 x C images",
                    name, text);
  }
  int64_t dims[3], voxels = 1;
  tp_image_spatial_dims(g, dims);
  for (int a = 0; a < 3; ++a) {
    if (voxels > INT64_MAX / dims[a])
      return TP_ERROR(TP_ERROR_OVERFLOW, "%s: the number of voxels overflows int64", name);
    voxels *= dims[a];
  }
  if (voxels > INT64_MAX / 8 / out->values)
    return TP_ERROR(TP_ERROR_OVERFLOW, "%s: %lld voxels of %lld values do not fit in memory", name,
                    (long long)voxels, (long long)out->values);
  out->voxels = voxels;
  return TP_SUCCESS;
}

/* ---- reading ------------------------------------------------------------------------ */

enum { SKIP_CHUNK = 1 << 16, GROW_FIRST = 1 << 20 };

/* Consumes the bytes from `at` up to the data's offset. */
static tp_status skip_to(tp_input *in, uint64_t at, uint64_t offset) {
  unsigned char scratch[SKIP_CHUNK];
  while (at < offset) {
    size_t want = offset - at < SKIP_CHUNK ? (size_t)(offset - at) : SKIP_CHUNK, got = 0;
    TP_TRY(tpi_input_read(in, scratch, want, &got));
    if (got == 0)
      return TP_ERROR(TP_ERROR_FORMAT, "%s ends at byte %llu, before its data at byte %llu",
                      tp_input_name(in), (unsigned long long)at, (unsigned long long)offset);
    at += got;
  }
  return TP_SUCCESS;
}

static tp_status truncated(tp_input *in, const tpi_image_data *d, uint64_t got, uint64_t want) {
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s: the data end after %llu of their %llu bytes (%lld "
                  "values of %s from byte %llu; a truncated file?)",
                  tp_input_name(in), (unsigned long long)got, (unsigned long long)want,
                  (long long)d->count, types[d->type].name, (unsigned long long)d->offset);
}

/* All of the data's bytes. With the source's size unknown (a pipe, gzip data) the
 * buffer grows with what arrives, so a header that claims more than the source holds
 * costs no more memory than the source. */
static tp_status read_raw(tp_input *in, const tpi_image_data *d, unsigned char **raw) {
  uint64_t want = (uint64_t)d->count * types[d->type].size, have = 0;
  int known = tpi_input_remaining(in) != UINT64_MAX;
  if (known && tpi_input_remaining(in) < want)
    return truncated(in, d, tpi_input_remaining(in), want);
  size_t cap = known ? (size_t)want : (size_t)(want < GROW_FIRST ? want : GROW_FIRST);
  unsigned char *buf = (unsigned char *)malloc(cap ? cap : 1);
  while (buf && have < want) {
    if (have == cap) {
      size_t more = cap > want - cap ? (size_t)want : 2 * cap;
      unsigned char *p = (unsigned char *)realloc(buf, more);
      if (!p)
        break;
      buf = p, cap = more;
    }
    size_t got = 0;
    tp_status st = tpi_input_read(in, buf + have, cap - have, &got);
    have += got;
    if (st != TP_SUCCESS || got == 0) {
      free(buf);
      return st != TP_SUCCESS ? st : truncated(in, d, have, want);
    }
  }
  if (have < want) {
    free(buf);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory for %llu bytes of data",
                    tp_input_name(in), (unsigned long long)want);
  }
  *raw = buf;
  return TP_SUCCESS;
}

/* Where stored axis a's index moves an element in the output (voxels x values). */
static void output_strides(const tpi_image_data *d, const tp_image *out, int64_t stride[]) {
  int64_t spatial = out->values, value = 1;
  for (int a = 0; a < d->ndim; ++a) {
    if (a < 3)
      stride[a] = spatial, spatial *= d->dim[a];
    else
      stride[a] = value, value *= d->dim[a];
  }
}

/* Puts the elements, in stored order, at their places: an odometer over the axes from
 * the fastest stored one, each step moving the output position by its axis' stride. */
static void scatter(const tpi_image_data *d, const unsigned char *raw, const tp_image *out,
                    double slope, double inter) {
  int64_t stride[TP_IMAGE_MAX_DIMS], step[TP_IMAGE_MAX_DIMS], counter[TP_IMAGE_MAX_DIMS];
  int64_t pos = 0;
  size_t size = types[d->type].size;
  int scaled = slope != 1.0 || inter != 0.0;
  output_strides(d, out, stride);
  for (int k = 0; k < d->ndim; ++k) {
    int a = d->order[k];
    step[k] = d->reversed[a] ? -stride[a] : stride[a];
    if (d->reversed[a])
      pos += (d->dim[a] - 1) * stride[a];
    counter[k] = 0;
  }
  for (int64_t e = 0; e < d->count; ++e) {
    double v = decode_one(raw + (size_t)e * size, d->type, d->swap);
    out->data[pos] = scaled ? slope * v + inter : v;
    for (int k = 0; k < d->ndim; ++k) {
      pos += step[k];
      if (++counter[k] < d->dim[d->order[k]])
        break;
      pos -= step[k] * counter[k];
      counter[k] = 0;
    }
  }
}

tp_status tpi_image_read_data(tp_input *in, uint64_t at, const tpi_image_data *d, tp_image *out) {
  unsigned char *raw = NULL;
  TP_TRY(skip_to(in, at, d->offset));
  TP_TRY(read_raw(in, d, &raw));
  out->data = (double *)malloc(sizeof(double) * (size_t)(d->count ? d->count : 1));
  if (!out->data) {
    free(raw);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory for %lld values", tp_input_name(in),
                    (long long)d->count);
  }
  scatter(d, raw, out, out->geometry.scl_slope, out->geometry.scl_inter);
  free(raw);
  return TP_SUCCESS;
}
