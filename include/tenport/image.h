/* Diffusion-MRI images: NIfTI-1 and NIfTI-2 (.nii, .nii.gz) and MRtrix (.mif, .mif.gz)
 * files read with their geometry and written with it, as MRtrix3's sh2peaks reads and
 * writes them.
 *
 * An image is held as its voxels (x fastest, then y, then z) times the values of each
 * voxel, the values contiguous: the voxel's spherical-harmonic coefficients of an
 * X x Y x Z x C image, or its one value in an X x Y x Z mask. The layouts read are
 * X x Y x Z (fewer axes: the missing ones have size 1), X x Y x Z x C and
 * X x Y x Z x 1 x C (the fifth axis holding the values, as some tools write); axes of
 * size 1 after those are ignored and anything else is refused. Stored values are
 * converted to double and scaled (NIfTI's scl_slope and scl_inter, .mif's scaling).
 *
 * Readers take any byte order, the integer types of 8 to 64 bits and float32/float64
 * (NIfTI datatype codes 2, 4, 8, 16, 64, 256, 512, 768, 1024, 1280; .mif datatypes
 * Int8 ... UInt64 and Float32/Float64 with or without LE/BE, any layout); single-file
 * images only (not .hdr/.img pairs nor .mih headers). Writers write little-endian
 * float32 or float64 through an output set, gzip-compressed for a name ending in .gz
 * (a build with zlib). */
#ifndef TENPORT_IMAGE_H
#define TENPORT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/export.h"
#include "tenport/files.h"
#include "tenport/npy.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_image_format {
  TP_IMAGE_NONE = 0,   /* not an image (or a name with no image extension) */
  TP_IMAGE_NIFTI1 = 1, /* NIfTI-1 single file: 348-byte header, magic "n+1" */
  TP_IMAGE_NIFTI2 = 2, /* NIfTI-2 single file: 540-byte header, magic "n+2" */
  TP_IMAGE_MIF = 3     /* MRtrix image: "mrtrix image" text header, then the data */
} tp_image_format;

/* "NIfTI-1", "NIfTI-2", "MRtrix .mif" or "none". */
TP_API const char *tp_image_format_name(tp_image_format format);

#define TP_IMAGE_MAX_DIMS 7

/* Where an image lies in scanner space, and what its file said about it. */
typedef struct tp_image_geometry {
  tp_image_format format; /* of the file it was read from */
  int ndim;               /* axes as stored, 1 to 7 */
  int64_t dim[TP_IMAGE_MAX_DIMS];
  double vox[TP_IMAGE_MAX_DIMS]; /* voxel size of each axis (mm for x, y, z) */
  double transform[3][4];        /* MRtrix3's form: unit directions of the x, y and z axes
                                    (columns 0-2) and the position of voxel (0, 0, 0)
                                    (column 3), in scanner coordinates (mm) */
  double scl_slope, scl_inter;   /* value = scl_slope * stored + scl_inter */
  /* The NIfTI header's own fields, as stored (format NIfTI-1 or NIfTI-2): a NIfTI
   * output copies them, so that its qform and sform are the input's. */
  int qform_code, sform_code, xyzt_units;
  double pixdim[8];              /* pixdim[0] is qfac */
  double quatern[3], qoffset[3]; /* quatern_b, _c, _d; qoffset_x, _y, _z */
  double srow[3][4];             /* srow_x, srow_y, srow_z */
} tp_image_geometry;

/* An image: voxels x values doubles, values fastest. values_axis is the axis of the
 * values (3, or 4 in the X x Y x Z x 1 x C layout; -1 for a 3-D image). */
typedef struct tp_image {
  tp_image_geometry geometry;
  int64_t voxels, values;
  int values_axis;
  double *data;
} tp_image;

/* ---- reading ------------------------------------------------------------------------ */

/* The image format of an opened input, from its first bytes (without consuming them):
 * a NIfTI header size (348 or 540, either byte order) or magic ("n+1" at byte 344,
 * "n+2" at byte 4), or "mrtrix image" on the first line; otherwise, when the input's
 * name ends in .nii, .nii.gz, .mif or .mif.gz, the format that names (so that a
 * damaged file gets the reader's message), else TP_IMAGE_NONE. */
TP_API tp_status tp_image_input_format(tp_input *in, tp_image_format *format);

/* Reads an image (format as tp_image_input_format finds it). Errors name the input and
 * the problem: TP_ERROR_FORMAT (not an image, a malformed or truncated header, an
 * unsupported datatype or layout, vox_offset or data beyond the end of the file, a .mif
 * header line that is not valid, with its number), TP_ERROR_OVERFLOW (the sizes do not
 * fit), TP_ERROR_OUT_OF_MEMORY, TP_ERROR_IO. On failure *out is zeroed and owns
 * nothing. */
TP_API tp_status tp_image_read_input(tp_input *in, tp_image *out);
TP_API tp_status tp_image_read(const char *path, tp_image *out);
/* The same from memory; name stands for the file in messages (may be NULL). */
TP_API tp_status tp_image_read_buffer(const void *bytes, size_t size, const char *name,
                                      tp_image *out);

/* Frees image->data and zeroes *image; safe on a zeroed struct and on NULL. */
TP_API void tp_image_free(tp_image *image);

/* ---- geometry ----------------------------------------------------------------------- */

/* The x, y and z sizes of a geometry (1 for the axes of an image of fewer). */
TP_API void tp_image_spatial_dims(const tp_image_geometry *geometry, int64_t dims[3]);

/* The affine from voxel indices (i, j, k) to scanner coordinates (mm): the transform's
 * columns scaled by the voxel sizes (what nibabel calls the image's affine: the sform
 * when its code is set, else the qform, else the voxel sizes alone). */
TP_API void tp_image_affine(const tp_image_geometry *geometry, double affine[3][4]);

/* Whether b lies on a's voxel grid: the same x, y and z sizes, and affines whose
 * entries differ by at most tolerance times a's largest voxel size. TP_SUCCESS, or
 * TP_ERROR_INVALID_ARGUMENT with a message naming name_b, name_a and the first
 * difference. */
TP_API tp_status tp_image_check_same_grid(const tp_image_geometry *a, const char *name_a,
                                          const tp_image_geometry *b, const char *name_b,
                                          double tolerance);

/* ---- writing ------------------------------------------------------------------------ */

/* The image format a file name asks for: .nii and .nii.gz give TP_IMAGE_NIFTI1, .mif
 * and .mif.gz TP_IMAGE_MIF (*gzip 1 for .gz), anything else TP_IMAGE_NONE. */
TP_API tp_image_format tp_image_path_format(const char *path, int *gzip);

/* Writes image (values per voxel, data voxels x values) to path in the format its name
 * asks for, stored as dtype (TP_DTYPE_F32 or TP_DTYPE_F64), little-endian, with the
 * geometry's x, y and z dimensions, voxel sizes and position:
 *  - X x Y x Z x values (X x Y x Z when values is 1 and the geometry has 3 axes or fewer);
 *  - NIfTI from a NIfTI geometry keeps its qform and sform fields, codes, pixdim and
 *    xyzt_units as stored (NIfTI-2 for a NIfTI-2 geometry or dimensions beyond 32767);
 *    from a .mif geometry both become the transform (code 1, scanner);
 *  - .mif keeps a .mif geometry's transform and voxel sizes as stored, and takes a
 *    NIfTI geometry's affine as its transform; layout +1,+2,+3,+0 (the values of a
 *    voxel together);
 *  - the geometry's scl_slope and scl_inter are written, the data stored so that a
 *    reader that applies them gets the values back (1 and 0 leave them as they are).
 * The file is added to the set (replacing path when the set is committed);
 * tp_image_write writes it through a set of its own. Errors: TP_ERROR_INVALID_ARGUMENT
 * (a name of no image format, dimensions that do not match the data), TP_ERROR_NOT_SUPPORTED
 * (.gz in a build without zlib), TP_ERROR_IO. */
TP_API tp_status tp_image_write_to(tp_output_set *set, const char *path, const tp_image *image,
                                   tp_dtype dtype);
TP_API tp_status tp_image_write(const char *path, const tp_image *image, tp_dtype dtype);

#ifdef __cplusplus
}
#endif
#endif
