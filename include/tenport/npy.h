/* Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0). */
#ifndef TENPORT_NPY_H
#define TENPORT_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/export.h"
#include "tenport/files.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types a .npy file may hold. Files are read into the host's byte order; NumPy's
 * bool ('|b1', one byte 0 or 1) is read as TP_DTYPE_U8. */
typedef enum tp_dtype {
  TP_DTYPE_F32,
  TP_DTYPE_F64,
  TP_DTYPE_I8,
  TP_DTYPE_U8,
  TP_DTYPE_I32,
  TP_DTYPE_I64,
  TP_DTYPE_U32,
  TP_DTYPE_U64
} tp_dtype;

/* Bytes per element (0 for a value outside the enum). */
TP_API size_t tp_dtype_size(tp_dtype dtype);
/* NumPy's name of the type ("float32", "uint64"; "unknown" outside the enum). */
TP_API const char *tp_dtype_name(tp_dtype dtype);

#define TP_NPY_MAX_DIMS 16

/* An array read from a .npy file. ndim 0 is a scalar (count 1); a zero in shape gives
 * count 0. data holds count elements in C order, or in Fortran order (first index
 * fastest) when fortran_order is 1; it is malloc'ed and owned by the struct. */
typedef struct tp_npy_array {
  tp_dtype dtype;
  int ndim;
  int64_t shape[TP_NPY_MAX_DIMS];
  int fortran_order;
  int64_t count;
  void *data;
} tp_npy_array;

/* Reads a .npy file or an in-memory copy of one. Errors: TP_ERROR_IO (the file cannot be
 * opened or read), TP_ERROR_FORMAT (bad magic, unsupported version or dtype, malformed or
 * truncated header, too many dimensions, truncated data), TP_ERROR_OVERFLOW (the shape's
 * size does not fit), TP_ERROR_OUT_OF_MEMORY. On failure *out is zeroed and owns nothing.
 * Bytes after the data are ignored, as NumPy does. */
TP_API tp_status tp_npy_read(const char *path, tp_npy_array *out);
TP_API tp_status tp_npy_read_buffer(const void *bytes, size_t size, tp_npy_array *out);
/* The same from an opened input (a pipe or standard input too), which is left after the
 * array's data. */
TP_API tp_status tp_npy_read_input(tp_input *in, tp_npy_array *out);

/* What a .npy header says, read without consuming the input: a reader that takes the
 * input afterwards sees the whole file. data_offset counts from the input's start. */
typedef struct tp_npy_header {
  tp_dtype dtype;
  int ndim;
  int64_t shape[TP_NPY_MAX_DIMS];
  int fortran_order;
  int64_t count;
  uint64_t data_offset;
  int byte_swapped; /* the file's byte order is not the host's */
} tp_npy_header;
TP_API tp_status tp_npy_peek_header(tp_input *in, tp_npy_header *header);

/* Reads the block of a .npy file's array that starts at first[k] and spans count[k]
 * indices in each dimension, by positioned reads of its runs (no other part of the file
 * is read), into dst: the block's elements in the file's own order (C or Fortran),
 * converted to `to` (TP_DTYPE_F32 or TP_DTYPE_F64). header (may be NULL) receives the
 * file's header. The file must be a regular file. */
TP_API tp_status tp_npy_read_block(const char *path, const int64_t *first, const int64_t *count,
                                   tp_dtype to, void *dst, tp_npy_header *header);

/* Reads rows [first, first + n) of the array seen as rows of its last dimension (every
 * other dimension flattened in C order; a 1-D array is one row) into dst in C order,
 * converted to `to`: one positioned read for a C-order file; for a Fortran-order one, the
 * block of whole indices of the first dimension that covers the rows, transposed. The
 * slab of voxels or tensors one rank of several works on. */
TP_API tp_status tp_npy_read_rows(const char *path, int64_t first, int64_t n, tp_dtype to,
                                  void *dst, tp_npy_header *header);

/* Writes count = prod(shape) elements (shape may be NULL when ndim is 0) as a version 1.0
 * file, little-endian, header padded to 64 bytes. The file is written beside path and
 * renamed over it (see tenport/files.h), so a failure (TP_ERROR_IO) leaves any existing
 * file as it was. tp_npy_write_to writes the file as part of an output set, replacing
 * path only when the set is committed. */
TP_API tp_status tp_npy_write(const char *path, tp_dtype dtype, int ndim, const int64_t *shape,
                              int fortran_order, const void *data);
TP_API tp_status tp_npy_write_to(tp_output_set *set, const char *path, tp_dtype dtype, int ndim,
                                 const int64_t *shape, int fortran_order, const void *data);

/* Frees a->data and zeroes *a; safe on a zeroed struct and on NULL. */
TP_API void tp_npy_free(tp_npy_array *a);

/* Reads a .npy file of any numeric dtype into a C-order float64 (float32) array,
 * transposing Fortran-order data. required_ndim is the number of dimensions the file must
 * have, or -1 for any; a mismatch is TP_ERROR_FORMAT. Error messages name the file. */
TP_API tp_status tp_npy_read_f64(const char *path, int required_ndim, tp_npy_array *out);
TP_API tp_status tp_npy_read_f32(const char *path, int required_ndim, tp_npy_array *out);
/* The same from an opened input; to is TP_DTYPE_F32 or TP_DTYPE_F64. */
TP_API tp_status tp_npy_read_converted_input(tp_input *in, tp_dtype to, int required_ndim,
                                             tp_npy_array *out);

#ifdef __cplusplus
}
#endif
#endif
