/* Compressed coordinates for the sparse PRRLU: the occupied rows and columns of a matrix
 * renumbered 0..rows-1 and 0..cols-1 in their original order, so that keys
 * row * cols + col fit 64 bits whatever the matrix's shape, and the smallest key is the
 * smallest linear index of the original matrix (the tie rule survives). */
#ifndef TP_STTID_COMPRESS_H
#define TP_STTID_COMPRESS_H

#include <stdint.h>

#include "tenport/sttid.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

typedef struct tpi_sttid_compressed {
  int64_t nnz, rows, cols; /* entries, occupied rows, occupied columns */
  uint32_t *row, *col;     /* compressed coordinates of each entry */
  double *values;
  int64_t *row_ids; /* compressed row -> the matrix's row */
  int64_t *col_ids;
} tpi_sttid_compressed;

/* Validates the matrix (indices in range, values finite, no repeated coordinate, fewer
 * than 2^31 entries) and compresses it. */
tp_status tpi_sttid_compress(const tp_spmat *m, tpi_sttid_compressed *out);
void tpi_sttid_compressed_free(tpi_sttid_compressed *c);

TP_EXTERN_C_END
#endif
