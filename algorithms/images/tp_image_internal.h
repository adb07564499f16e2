/* Internals of the image readers and writers: the stored element types, where and how
 * the data lie in a file, the per-format headers, and the byte sink of the writers
 * (plain, or through deflate for .gz names). */
#ifndef TP_IMAGE_INTERNAL_H
#define TP_IMAGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/image.h"
#include "algorithms/io/tp_io_internal.h"

/* ---- stored element types (image_data.c) --------------------------------------------- */

typedef enum tpi_image_type {
  TP_IMG_I8,
  TP_IMG_U8,
  TP_IMG_I16,
  TP_IMG_U16,
  TP_IMG_I32,
  TP_IMG_U32,
  TP_IMG_I64,
  TP_IMG_U64,
  TP_IMG_F32,
  TP_IMG_F64
} tpi_image_type;

size_t tpi_image_type_size(tpi_image_type type);
const char *tpi_image_type_name(tpi_image_type type);

/* The data of an image file: count elements of one type and byte order from byte
 * offset of the input on, stored with the axes order[0] (fastest) to order[ndim - 1],
 * axis a running backwards when reversed[a] (a .mif layout's '-'). */
typedef struct tpi_image_data {
  tpi_image_type type;
  int swap; /* the file's byte order is not the host's */
  uint64_t offset;
  int ndim;
  int64_t dim[TP_IMAGE_MAX_DIMS];
  int order[TP_IMAGE_MAX_DIMS];
  int reversed[TP_IMAGE_MAX_DIMS];
  int64_t count;
} tpi_image_data;

/* The voxels, values and values axis of an image of this geometry (the layouts of
 * tenport/image.h), into out; TP_ERROR_FORMAT naming the input for another layout, and
 * TP_ERROR_OVERFLOW when the sizes do not fit. */
tp_status tpi_image_shape(const char *name, const tp_image_geometry *g, tp_image *out);

/* Reads the data described by d (the input is at byte `at` from its start, at most
 * d->offset) into out->data as voxels x values doubles, scaled by the geometry; out's
 * shape is set. */
tp_status tpi_image_read_data(tp_input *in, uint64_t at, const tpi_image_data *d, tp_image *out);

/* ---- headers ----------------------------------------------------------------------- */

/* Read without consuming the input: geometry and data of a NIfTI-1/2 file (nifti_read.c)
 * and of a .mif (mif_read.c). */
tp_status tpi_nifti_read_header(tp_input *in, tp_image_geometry *g, tpi_image_data *d);
tp_status tpi_mif_read_header(tp_input *in, tp_image_geometry *g, tpi_image_data *d);

/* The 4 first bytes as NIfTI-1 (348) or NIfTI-2 (540) header sizes, in either byte
 * order: the format, or TP_IMAGE_NONE; *swap 1 when the bytes are not the host's order. */
tp_image_format tpi_nifti_sizeof_hdr(const unsigned char *p, size_t n, int *swap);

/* ---- geometry (image_geometry.c) ---------------------------------------------------- */

/* The NIfTI qform (quaternion, offsets, pixdim with qfac) as an affine. */
void tpi_nifti_qform_affine(const double quatern[3], const double qoffset[3],
                            const double pixdim[8], double affine[3][4]);
/* The transform and the x, y, z voxel sizes of an affine: its columns' lengths and
 * directions (a zero column keeps its axis' direction). */
void tpi_image_set_affine(tp_image_geometry *g, const double affine[3][4]);
/* The qform of a transform: quatern, qoffset and qfac (pixdim[0]). */
void tpi_nifti_qform_of(const double transform[3][4], double quatern[3], double qoffset[3],
                        double *qfac);

/* ---- writing ------------------------------------------------------------------------- */

/* Bytes to a file of an output set, deflated into gzip when z is set (image_sink.c,
 * with image_deflate.c or, without zlib, image_deflate_none.c). The first failure is
 * kept in status; later writes do nothing. */
typedef struct tpi_image_deflate tpi_image_deflate;
typedef struct tpi_image_sink {
  tpi_output *file;
  tpi_image_deflate *z;
  tp_status status;
} tpi_image_sink;

tp_status tpi_image_sink_open(tpi_image_sink *s, tpi_output *file, int gzip);
void tpi_image_sink_write(tpi_image_sink *s, const void *bytes, size_t n);
/* Ends the gzip stream; returns the first failure. */
tp_status tpi_image_sink_close(tpi_image_sink *s);

/* zlib's side: a gzip stream whose output goes to file. */
tp_status tpi_image_deflate_start(tpi_image_deflate **z, const char *path);
tp_status tpi_image_deflate_push(tpi_image_deflate *z, tpi_output *file, const void *bytes,
                                 size_t n, int finish);
void tpi_image_deflate_end(tpi_image_deflate **z);

/* The values of image, as float32 or float64 little-endian, in the order the axes are
 * stored (order[0] fastest: 0 x, 1 y, 2 z, 3 the values), unscaled by the geometry's
 * scl_slope and scl_inter (image_write.c). */
void tpi_image_write_values(tpi_image_sink *s, const tp_image *image, tp_dtype dtype,
                            const int order[4]);

/* The whole file of each format (nifti_write.c, mif_write.c). version: 1 or 2. */
tp_status tpi_nifti_write(tpi_image_sink *s, const tp_image *image, tp_dtype dtype, int version);
tp_status tpi_mif_write(tpi_image_sink *s, const tp_image *image, tp_dtype dtype);

#endif
