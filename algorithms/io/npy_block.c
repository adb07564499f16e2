/* A block of a .npy array by positioned reads: the block's elements lie in runs of the
 * file, each run along the fastest dimension, lengthened over the next dimensions as long
 * as the block spans them whole. Each run is read (in pieces of at most RUN_BYTES) and
 * converted into its place in the block, which keeps the file's order. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tenport/npy.h"
#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

enum { RUN_BYTES = 1 << 24 };

/* Dimensions from the fastest to the slowest. */
static int dim_at(const tp_npy_header *h, int j) { return h->fortran_order ? j : h->ndim - 1 - j; }

static tp_status check_block(const char *path, const tp_npy_header *h, const int64_t *first,
                             const int64_t *count, tp_dtype to) {
  TP_CHECK_ARG(to == TP_DTYPE_F32 || to == TP_DTYPE_F64, "to is %s, not float32 or float64",
               tp_dtype_name(to));
  for (int k = 0; k < h->ndim; ++k)
    if (first[k] < 0 || count[k] < 0 || first[k] > h->shape[k] - count[k])
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "%s: the block's indices %lld..%lld of "
                      "dimension %d are outside its %lld",
                      path, (long long)first[k], (long long)(first[k] + count[k]), k,
                      (long long)h->shape[k]);
  return TP_SUCCESS;
}

/* The run: how many dimensions (fastest first) it spans and its length in elements. */
static int run_dims(const tp_npy_header *h, const int64_t *first, const int64_t *count,
                    int64_t *len) {
  int j = 0;
  *len = h->ndim ? count[dim_at(h, 0)] : 1;
  for (j = 1; j < h->ndim; ++j) {
    int faster = dim_at(h, j - 1);
    if (first[faster] != 0 || count[faster] != h->shape[faster])
      break;
    *len *= count[dim_at(h, j)];
  }
  return j;
}

typedef struct block_read {
  const char *path;
  int fd;
  const tp_npy_header *h;
  size_t elem, out_elem;
  tp_dtype to;
  unsigned char *buf;
} block_read;

static tp_status read_run(block_read *b, uint64_t offset, int64_t n, char *dst) {
  int64_t per = (int64_t)(RUN_BYTES / b->elem);
  for (int64_t done = 0; done < n; done += per) {
    size_t want = (size_t)((n - done < per ? n - done : per)) * b->elem, got = 0;
    while (got < want) {
      ssize_t r =
          pread(b->fd, b->buf + got, want - got, (off_t)(offset + (uint64_t)done * b->elem + got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return TP_ERROR(TP_ERROR_IO, "cannot read %s: %s", b->path,
                        r < 0 ? strerror(errno) : "it ends before the array does");
      got += (size_t)r;
    }
    tpi_npy_decode(b->buf, b->h->dtype, b->h->byte_swapped, (int64_t)(want / b->elem), b->to,
                   dst + (size_t)done * b->out_elem);
  }
  return TP_SUCCESS;
}

/* Every run of the block, the outer dimensions' indices counted like an odometer. */
static tp_status read_runs(block_read *b, const int64_t *first, const int64_t *count, char *dst) {
  const tp_npy_header *h = b->h;
  int64_t len, idx[TP_NPY_MAX_DIMS] = {0}, stride[TP_NPY_MAX_DIMS];
  int inner = run_dims(h, first, count, &len);
  int64_t s = 1; /* the file's stride of each dimension */
  for (int j = 0; j < h->ndim; ++j) {
    stride[dim_at(h, j)] = s;
    s *= h->shape[dim_at(h, j)];
  }
  for (int64_t run = 0;; ++run) {
    int64_t at = 0;
    for (int k = 0; k < h->ndim; ++k)
      at += (first[k] + idx[k]) * stride[k];
    if (len > 0)
      TP_TRY(read_run(b, h->data_offset + (uint64_t)at * b->elem, len,
                      dst + (size_t)(run * len) * b->out_elem));
    int j = inner;
    for (; j < h->ndim; ++j) {
      int k = dim_at(h, j);
      if (++idx[k] < count[k])
        break;
      idx[k] = 0;
    }
    if (j == h->ndim)
      return TP_SUCCESS;
  }
}

static tp_status read_block(const char *path, const tp_npy_header *h, const int64_t *first,
                            const int64_t *count, tp_dtype to, void *dst) {
  for (int k = 0; k < h->ndim; ++k)
    if (count[k] == 0)
      return TP_SUCCESS;
  block_read b = {path, -1, h, tp_dtype_size(h->dtype), tp_dtype_size(to), to, NULL};
  b.fd = open(path, O_RDONLY | O_CLOEXEC);
  b.buf = (unsigned char *)malloc(RUN_BYTES);
  tp_status st = TP_SUCCESS;
  if (b.fd < 0)
    st = TP_ERROR(TP_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
  else if (!b.buf)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to read %s", path);
  else
    st = read_runs(&b, first, count, (char *)dst);
  if (b.fd >= 0)
    close(b.fd);
  free(b.buf);
  return st;
}

/* The header of a regular file, with the size of its data checked. */
static tp_status regular_header(const char *path, tp_npy_header *h) {
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  uint64_t size = in->known_size;
  tp_status st = in->gzip             ? TP_ERROR(TP_ERROR_FORMAT,
                                                 "%s is gzip-compressed: a block is read "
                                                             "by positioned reads; decompress it first",
                                                 path)
                 : size == UINT64_MAX ? TP_ERROR(TP_ERROR_IO,
                                                 "%s is not a regular file: a block is read by "
                                                 "positioned reads",
                                                 path)
                                      : tp_npy_peek_header(in, h);
  tp_input_close(&in);
  TP_TRY(st);
  if (h->data_offset + (uint64_t)h->count * tp_dtype_size(h->dtype) > size)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: truncated data: the header's shape needs %llu "
                    "bytes after the header, the file has %llu",
                    path, (unsigned long long)((uint64_t)h->count * tp_dtype_size(h->dtype)),
                    (unsigned long long)(size - h->data_offset));
  return TP_SUCCESS;
}

tp_status tp_npy_read_block(const char *path, const int64_t *first, const int64_t *count,
                            tp_dtype to, void *dst, tp_npy_header *header) {
  TP_CHECK_ARG(path && first && count && dst, "path, first, count and dst must not be NULL");
  tp_npy_header h;
  TP_TRY(regular_header(path, &h));
  TP_TRY(check_block(path, &h, first, count, to));
  if (header)
    *header = h;
  return read_block(path, &h, first, count, to, dst);
}

/* ---- rows ------------------------------------------------------------------------------ */

/* The rows of a view of the array: all dimensions but the last flattened in C order (a
 * 1-D array is one row). */
static void row_shape(const tp_npy_header *h, int64_t *rows, int64_t *len) {
  *len = h->ndim ? h->shape[h->ndim - 1] : 1;
  *rows = 1;
  for (int k = 0; k + 1 < h->ndim; ++k)
    *rows *= h->shape[k];
}

/* C order: the rows are one run of the file. */
static tp_status c_rows(const char *path, const tp_npy_header *h, int64_t first, int64_t n,
                        int64_t rows, int64_t len, tp_dtype to, void *dst) {
  tp_npy_header view = *h;
  view.ndim = 2, view.shape[0] = rows, view.shape[1] = len;
  const int64_t at[2] = {first, 0}, count[2] = {n, len};
  return read_block(path, &view, at, count, to, dst);
}

/* Fortran order: the block of whole indices of the first dimension that covers the rows,
 * put in C order, and the rows taken from it. */
static tp_status fortran_rows(const char *path, const tp_npy_header *h, int64_t first, int64_t n,
                              int64_t rows, int64_t len, tp_dtype to, void *dst) {
  int64_t inner = rows / h->shape[0]; /* rows per index of the first dimension */
  int64_t at[TP_NPY_MAX_DIMS] = {0}, count[TP_NPY_MAX_DIMS];
  memcpy(count, h->shape, sizeof count);
  at[0] = first / inner;
  count[0] = (first + n + inner - 1) / inner - at[0];
  size_t size = tp_dtype_size(to), box = (size_t)(count[0] * inner * len);
  char *raw = (char *)malloc(box * size + 1), *c = (char *)malloc(box * size + 1);
  tp_status st = raw && c ? read_block(path, h, at, count, to, raw)
                          : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to read %s", path);
  if (st == TP_SUCCESS) {
    tp_npy_array a;
    memset(&a, 0, sizeof a);
    a.dtype = to, a.ndim = h->ndim, a.fortran_order = 1, a.count = (int64_t)box, a.data = raw;
    memcpy(a.shape, count, sizeof count);
    tpi_npy_c_order(&a, c, to == TP_DTYPE_F32);
    memcpy(dst, c + (size_t)((first - at[0] * inner) * len) * size, (size_t)(n * len) * size);
  }
  free(raw), free(c);
  return st;
}

tp_status tp_npy_read_rows(const char *path, int64_t first, int64_t n, tp_dtype to, void *dst,
                           tp_npy_header *header) {
  TP_CHECK_ARG(path && dst, "path and dst must not be NULL");
  TP_CHECK_ARG(to == TP_DTYPE_F32 || to == TP_DTYPE_F64, "to is %s, not float32 or float64",
               tp_dtype_name(to));
  tp_npy_header h;
  TP_TRY(regular_header(path, &h));
  int64_t rows, len;
  row_shape(&h, &rows, &len);
  TP_CHECK_ARG(first >= 0 && n >= 0 && first <= rows - n,
               "%s: rows %lld..%lld are outside "
               "its %lld",
               path, (long long)first, (long long)(first + n), (long long)rows);
  if (header)
    *header = h;
  if (n == 0 || len == 0)
    return TP_SUCCESS;
  return h.fortran_order && h.ndim > 1 ? fortran_rows(path, &h, first, n, rows, len, to, dst)
                                       : c_rows(path, &h, first, n, rows, len, to, dst);
}
