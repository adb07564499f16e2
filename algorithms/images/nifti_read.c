/* NIfTI-1 and NIfTI-2 headers (single-file .nii; .nii.gz is decompressed by the input).
 * The byte order is the one in which sizeof_hdr reads 348 (NIfTI-1) or 540 (NIfTI-2);
 * every field is then read at its offset in that order. The voxel-to-scanner affine is
 * the sform when sform_code is set, else the qform when qform_code is set, else the voxel
 * sizes alone, as nibabel and MRtrix3 choose. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

enum { NIFTI1_SIZE = 348, NIFTI2_SIZE = 540 };

/* ---- fields in the file's byte order ------------------------------------------------- */

typedef struct header_bytes {
  const unsigned char *p;
  int big_endian;
} header_bytes;

static uint64_t get_uint(const header_bytes *h, size_t off, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i)
    v |= (uint64_t)h->p[off + (h->big_endian ? size - 1 - i : i)] << (8 * i);
  return v;
}
static int64_t get_i16(const header_bytes *h, size_t off) {
  return (int16_t)(uint16_t)get_uint(h, off, 2);
}
static int64_t get_i32(const header_bytes *h, size_t off) {
  return (int32_t)(uint32_t)get_uint(h, off, 4);
}
static int64_t get_i64(const header_bytes *h, size_t off) { return (int64_t)get_uint(h, off, 8); }
static double get_f32(const header_bytes *h, size_t off) {
  uint32_t bits = (uint32_t)get_uint(h, off, 4);
  float v;
  memcpy(&v, &bits, 4);
  return v;
}
static double get_f64(const header_bytes *h, size_t off) {
  uint64_t bits = get_uint(h, off, 8);
  double v;
  memcpy(&v, &bits, 8);
  return v;
}

static int host_is_big_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 0;
}

tp_image_format tpi_nifti_sizeof_hdr(const unsigned char *p, size_t n, int *swap) {
  if (n < 4)
    return TP_IMAGE_NONE;
  for (int be = 0; be < 2; ++be) {
    header_bytes h = {p, be};
    int64_t size = get_i32(&h, 0);
    if (size == NIFTI1_SIZE || size == NIFTI2_SIZE) {
      *swap = be != host_is_big_endian();
      return size == NIFTI1_SIZE ? TP_IMAGE_NIFTI1 : TP_IMAGE_NIFTI2;
    }
  }
  return TP_IMAGE_NONE;
}

/* ---- where the fields lie ------------------------------------------------------------ */

/* Offsets of the fields both versions share (NIfTI-2 widens the numbers). */
typedef struct nifti_fields {
  size_t size, magic, datatype, bitpix, dim, pixdim, vox_offset, scl_slope, scl_inter;
  size_t qform_code, sform_code, quatern, qoffset, srow, xyzt_units;
  int wide;               /* NIfTI-2: int64 dims, doubles, int32 codes */
  const char *magic_text; /* single file */
  const char *pair_text;  /* .hdr/.img pair */
} nifti_fields;

static const nifti_fields nifti1 = {NIFTI1_SIZE, 344, 70,  72,  40,  76,  108, 112,   116,
                                    252,         254, 256, 268, 280, 123, 0,   "n+1", "ni1"};
static const nifti_fields nifti2 = {NIFTI2_SIZE, 4,   12,  14,  16,  104, 168, 176,   184,
                                    344,         348, 352, 376, 400, 500, 1,   "n+2", "ni2"};

static int64_t get_int(const header_bytes *h, const nifti_fields *f, size_t off, int i) {
  return f->wide ? get_i64(h, off + 8 * (size_t)i) : get_i16(h, off + 2 * (size_t)i);
}
static double get_real(const header_bytes *h, const nifti_fields *f, size_t off, int i) {
  return f->wide ? get_f64(h, off + 8 * (size_t)i) : get_f32(h, off + 4 * (size_t)i);
}
static int64_t get_code(const header_bytes *h, const nifti_fields *f, size_t off) {
  return f->wide ? get_i32(h, off) : get_i16(h, off);
}

/* ---- checks ----------------------------------------------------------------------------- */

static tp_status check_magic(const char *name, const unsigned char *m, const nifti_fields *f) {
  static const unsigned char tail2[4] = {'\r', '\n', 0x1a, '\n'};
  char text[5];
  if (memcmp(m, f->pair_text, 4) == 0) /* the terminating NUL of the text included */
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s is the header of a .hdr/.img pair (magic '%s'): "
                    "tenport reads single-file NIfTI (.nii, .nii.gz) only",
                    name, f->pair_text);
  if (memcmp(m, f->magic_text, 4) != 0) {
    for (int i = 0; i < 4; ++i)
      text[i] = m[i] >= 0x20 && m[i] < 0x7f ? (char)m[i] : '?';
    text[4] = '\0';
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: the magic at byte %zu is '%s', not '%s' (a "
                    "single-file NIfTI-%d image)",
                    name, f->magic, text, f->magic_text, f->wide ? 2 : 1);
  }
  if (f->wide && memcmp(m + 4, tail2, 4) != 0)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: the bytes after the NIfTI-2 magic are not "
                    "\\r\\n\\032\\n: the file was changed in a text-mode transfer",
                    name);
  return TP_SUCCESS;
}

static tp_status read_dims(const char *name, const header_bytes *h, const nifti_fields *f,
                           tp_image_geometry *g) {
  int64_t n = get_int(h, f, f->dim, 0);
  if (n < 1 || n > TP_IMAGE_MAX_DIMS)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: dim[0] (the number of dimensions) is %lld: it "
                    "must be 1 to 7",
                    name, (long long)n);
  g->ndim = (int)n;
  for (int a = 0; a < g->ndim; ++a) {
    g->dim[a] = get_int(h, f, f->dim, a + 1);
    if (g->dim[a] < 1)
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s: dim[%d] is %lld: each dimension must be at "
                      "least 1",
                      name, a + 1, (long long)g->dim[a]);
  }
  return TP_SUCCESS;
}

typedef struct nifti_type {
  int code, bits;
  tpi_image_type type;
} nifti_type;

static const nifti_type nifti_types[] = {
    {2, 8, TP_IMG_U8},      {4, 16, TP_IMG_I16},   {8, 32, TP_IMG_I32},   {16, 32, TP_IMG_F32},
    {64, 64, TP_IMG_F64},   {256, 8, TP_IMG_I8},   {512, 16, TP_IMG_U16}, {768, 32, TP_IMG_U32},
    {1024, 64, TP_IMG_I64}, {1280, 64, TP_IMG_U64}};

static const char *unsupported_type(int64_t code) {
  switch (code) {
  case 1: return "binary";
  case 32: return "complex64";
  case 128: return "RGB24";
  case 1536: return "float128";
  case 1792: return "complex128";
  case 2048: return "complex256";
  case 2304: return "RGBA32";
  }
  return NULL;
}

static tp_status read_type(const char *name, const header_bytes *h, const nifti_fields *f,
                           tpi_image_data *d) {
  int64_t code = get_i16(h, f->datatype), bits = get_i16(h, f->bitpix);
  for (size_t i = 0; i < sizeof nifti_types / sizeof nifti_types[0]; ++i) {
    if (nifti_types[i].code != code)
      continue;
    if (bits != nifti_types[i].bits)
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s: bitpix is %lld, but datatype %lld (%s) has %d "
                      "bits",
                      name, (long long)bits, (long long)code,
                      tpi_image_type_name(nifti_types[i].type), nifti_types[i].bits);
    d->type = nifti_types[i].type;
    return TP_SUCCESS;
  }
  const char *what = unsupported_type(code);
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s: datatype %lld%s%s%s is not supported: tenport reads "
                  "the integer types (int8 to uint64) and float32, float64",
                  name, (long long)code, what ? " (" : " (no NIfTI datatype", what ? what : "",
                  ")");
}

static tp_status read_offset(tp_input *in, const header_bytes *h, const nifti_fields *f,
                             tpi_image_data *d) {
  const char *name = tp_input_name(in);
  double v = f->wide ? (double)get_i64(h, f->vox_offset) : get_f32(h, f->vox_offset);
  if (!(v >= (double)f->size && v <= 0x1p62 && v == floor(v)))
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: vox_offset is %.17g: it must be a whole number "
                    "of bytes from %zu (the header's size) on",
                    name, v, f->size);
  d->offset = f->wide ? (uint64_t)get_i64(h, f->vox_offset) : (uint64_t)v;
  uint64_t size = tpi_input_remaining(in);
  if (size != UINT64_MAX && d->offset >= size)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: vox_offset %llu is beyond the end of the file "
                    "(%llu bytes)",
                    name, (unsigned long long)d->offset, (unsigned long long)size);
  return TP_SUCCESS;
}

static tp_status check_finite(const char *name, const char *what, const double *v, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(v[i]))
      return TP_ERROR(TP_ERROR_FORMAT, "%s: %s holds %g", name, what, v[i]);
  return TP_SUCCESS;
}

/* ---- geometry -------------------------------------------------------------------------- */

static void read_fields(const header_bytes *h, const nifti_fields *f, tp_image_geometry *g) {
  for (int i = 0; i < 8; ++i)
    g->pixdim[i] = get_real(h, f, f->pixdim, i);
  g->qform_code = (int)get_code(h, f, f->qform_code);
  g->sform_code = (int)get_code(h, f, f->sform_code);
  g->xyzt_units = f->wide ? (int)get_i32(h, f->xyzt_units) : (int)h->p[f->xyzt_units];
  for (int i = 0; i < 3; ++i) {
    g->quatern[i] = get_real(h, f, f->quatern, i);
    g->qoffset[i] = get_real(h, f, f->qoffset, i);
    for (int c = 0; c < 4; ++c)
      g->srow[i][c] = get_real(h, f, f->srow, 4 * i + c);
  }
  double slope = get_real(h, f, f->scl_slope, 0), inter = get_real(h, f, f->scl_inter, 0);
  int scaled = isfinite(slope) && slope != 0; /* 0 (or not finite): no scaling */
  g->scl_slope = scaled ? slope : 1.0;
  g->scl_inter = scaled && isfinite(inter) ? inter : 0.0;
}

static tp_status set_geometry(const char *name, tp_image_geometry *g) {
  double affine[3][4] = {{0}};
  int spatial = g->ndim < 3 ? g->ndim : 3;
  TP_TRY(check_finite(name, "pixdim (a voxel size)", g->pixdim + 1, spatial));
  if (g->sform_code > 0) {
    TP_TRY(check_finite(name, "the sform (srow_x, srow_y, srow_z)", &g->srow[0][0], 12));
    memcpy(affine, g->srow, sizeof affine);
  } else if (g->qform_code > 0) {
    TP_TRY(check_finite(name, "the qform (quatern_b to qoffset_z)", g->quatern, 3));
    TP_TRY(check_finite(name, "the qform (quatern_b to qoffset_z)", g->qoffset, 3));
    tpi_nifti_qform_affine(g->quatern, g->qoffset, g->pixdim, affine);
  } else {
    for (int c = 0; c < 3; ++c)
      affine[c][c] = c < spatial && g->pixdim[c + 1] != 0 ? fabs(g->pixdim[c + 1]) : 1.0;
  }
  tpi_image_set_affine(g, affine);
  for (int a = 3; a < g->ndim; ++a)
    g->vox[a] = g->pixdim[a + 1];
  return TP_SUCCESS;
}

/* ---- the header ------------------------------------------------------------------------- */

tp_status tpi_nifti_read_header(tp_input *in, tp_image_geometry *g, tpi_image_data *d) {
  const char *name = tp_input_name(in);
  const unsigned char *p;
  size_t got = 0;
  int swap = 0;
  TP_TRY(tpi_input_peek(in, NIFTI2_SIZE, &p, &got));
  tp_image_format format = tpi_nifti_sizeof_hdr(p, got, &swap);
  if (format == TP_IMAGE_NONE)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: sizeof_hdr (bytes 0-3) is not 348 (NIfTI-1) or "
                    "540 (NIfTI-2) in either byte order%s",
                    name, got < 4 ? ": the file is shorter than 4 bytes" : "");
  const nifti_fields *f = format == TP_IMAGE_NIFTI1 ? &nifti1 : &nifti2;
  if (got < f->size)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s is truncated: its NIfTI-%d header needs %zu bytes, "
                    "the file has %zu",
                    name, f->wide ? 2 : 1, f->size, got);
  header_bytes h = {p, swap != host_is_big_endian()};
  TP_TRY(check_magic(name, p + f->magic, f));
  memset(g, 0, sizeof *g);
  memset(d, 0, sizeof *d);
  g->format = format;
  TP_TRY(read_dims(name, &h, f, g));
  TP_TRY(read_type(name, &h, f, d));
  TP_TRY(read_offset(in, &h, f, d));
  read_fields(&h, f, g);
  TP_TRY(set_geometry(name, g));
  d->swap = swap, d->ndim = g->ndim;
  for (int a = 0; a < g->ndim; ++a)
    d->dim[a] = g->dim[a], d->order[a] = a;
  return TP_SUCCESS;
}
