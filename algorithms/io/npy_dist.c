/* One .npy file written by the ranks of a communicator, each its slab of rows at its
 * byte offset, into a temporary of rank 0's output set that rank 0 made with the whole
 * header and size; and the even split of rows over ranks. Every step's status is agreed
 * on, so that all ranks stop together and the set, not committed, removes the
 * temporary. */
#include <stdlib.h>
#include <string.h>

#include "tenport/distributed.h"
#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

tp_status tp_even_range(int64_t n, int parts, int part, int64_t *first, int64_t *count) {
  TP_CHECK_ARG(n >= 0 && parts >= 1 && part >= 0 && part < parts,
               "n = %lld, parts = %d, part = %d: need n >= 0 and 0 <= part < parts", (long long)n,
               parts, part);
  /* n = q parts + s: n part / parts = q part + s part / parts, with s part < parts^2 */
  int64_t q = n / parts, s = n % parts;
  int64_t begin = q * part + s * part / parts;
  int64_t end = q * (part + 1) + s * (part + 1) / parts;
  if (first)
    *first = begin;
  if (count)
    *count = end - begin;
  return TP_SUCCESS;
}

/* The product of n dimensions (0 when one is 0); 0 on overflow. */
static int product(const int64_t *dims, int n, uint64_t *out) {
  uint64_t p = 1;
  for (int i = 0; i < n; ++i)
    if (dims[i] == 0)
      return *out = 0, 1;
  for (int i = 0; i < n; ++i)
    if (__builtin_mul_overflow(p, (uint64_t)dims[i], &p))
      return 0;
  return *out = p, 1;
}

/* The array's rows, the bytes of a row and of the data; 0 on overflow. */
static int row_sizes(int ndim, const int64_t *shape, int lead_ndim, size_t elem, int64_t *rows,
                     uint64_t *row_bytes, uint64_t *data_bytes) {
  uint64_t r, per, total;
  if (!product(shape, lead_ndim, &r) || !product(shape + lead_ndim, ndim - lead_ndim, &per) ||
      __builtin_mul_overflow(per, (uint64_t)elem, &per) || __builtin_mul_overflow(r, per, &total) ||
      r > (uint64_t)INT64_MAX || total > (uint64_t)INT64_MAX - TP_NPY_PREAMBLE_MAX)
    return 0;
  *rows = (int64_t)r, *row_bytes = per, *data_bytes = total;
  return 1;
}

static tp_status check_args(int root, const tp_output_set *set, const char *path, tp_dtype dtype,
                            int ndim, const int64_t *shape, int lead_ndim, int64_t first_row,
                            int64_t rows, const void *data, int64_t *all_rows, uint64_t *row_bytes,
                            uint64_t *data_bytes) {
  TP_CHECK_ARG(path && *path, "path is NULL or empty");
  TP_CHECK_ARG(!root || set, "%s: rank 0 needs the output set", path);
  TP_CHECK_ARG(tp_dtype_size(dtype) > 0, "%s: dtype %d is not a tp_dtype", path, (int)dtype);
  TP_CHECK_ARG(ndim >= 0 && ndim <= TP_NPY_MAX_DIMS && (shape || ndim == 0),
               "%s: ndim %d is outside [0, %d], or shape is NULL", path, ndim, TP_NPY_MAX_DIMS);
  TP_CHECK_ARG(lead_ndim >= 0 && lead_ndim <= ndim, "%s: lead_ndim %d is outside [0, %d]", path,
               lead_ndim, ndim);
  for (int i = 0; i < ndim; ++i)
    TP_CHECK_ARG(shape[i] >= 0, "%s: shape[%d] is negative (%lld)", path, i, (long long)shape[i]);
  if (!row_sizes(ndim, shape, lead_ndim, tp_dtype_size(dtype), all_rows, row_bytes, data_bytes))
    return TP_ERROR(TP_ERROR_OVERFLOW, "%s: the size of the array overflows", path);
  TP_CHECK_ARG(first_row >= 0 && rows >= 0 && first_row <= *all_rows - rows,
               "%s: rows %lld..%lld are outside the array's %lld", path, (long long)first_row,
               (long long)(first_row + rows), (long long)*all_rows);
  TP_CHECK_ARG(data || rows == 0 || *row_bytes == 0, "%s: data is NULL for %lld rows", path,
               (long long)rows);
  return TP_SUCCESS;
}

/* The ranks' ranges (pairs first, count in rank order) cover [0, all_rows) once. */
static tp_status check_cover(const char *path, const int64_t *ranges, int size, int64_t all_rows) {
  int64_t *order = (int64_t *)malloc(sizeof(int64_t) * 2 * (size_t)size);
  if (!order)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d ranges", size);
  int n = 0;
  for (int r = 0; r < size; ++r) { /* non-empty ranges, sorted by their first row */
    if (ranges[2 * r + 1] == 0)
      continue;
    int k = n++;
    while (k > 0 && order[2 * (k - 1)] > ranges[2 * r]) {
      order[2 * k] = order[2 * (k - 1)], order[2 * k + 1] = order[2 * (k - 1) + 1];
      --k;
    }
    order[2 * k] = ranges[2 * r], order[2 * k + 1] = ranges[2 * r + 1];
  }
  int64_t next = 0;
  for (int k = 0; k < n && next >= 0; ++k)
    next = order[2 * k] == next ? next + order[2 * k + 1] : -1;
  free(order);
  if (next != all_rows)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%s: the ranks' row ranges do not cover its "
                    "%lld rows once each",
                    path, (long long)all_rows);
  return TP_SUCCESS;
}

/* A step every rank agrees on (nothing to agree on for a single process). */
static tp_status agree(tp_comm *comm, tp_status local) {
  return comm ? tp_comm_agree(comm, local) : local;
}

/* This rank's slab at its offset, little-endian. */
static tp_status write_slab(const char *tmp, uint64_t offset, const void *data, uint64_t n,
                            size_t elem) {
  if (n == 0)
    return TP_SUCCESS;
  if (n > SIZE_MAX)
    return TP_ERROR(TP_ERROR_OVERFLOW, "%s: a slab of %llu bytes does not fit in memory", tmp,
                    (unsigned long long)n);
  unsigned char probe[2] = {1, 0};
  uint16_t one;
  memcpy(&one, probe, 2);
  if (elem == 1 || one == 1) /* a little-endian host writes the data as it is */
    return tp_output_write_at(tmp, offset, data, (size_t)n);
  void *copy = malloc((size_t)n);
  if (!copy)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "no memory for a little-endian copy of %llu "
                    "bytes",
                    (unsigned long long)n);
  memcpy(copy, data, (size_t)n);
  tpi_npy_to_little(copy, (int64_t)(n / elem), elem);
  tp_status st = tp_output_write_at(tmp, offset, copy, (size_t)n);
  free(copy);
  return st;
}

tp_status tp_npy_write_rows_dist(tp_comm *comm, tp_output_set *set, const char *path,
                                 tp_dtype dtype, int ndim, const int64_t *shape, int lead_ndim,
                                 int64_t first_row, int64_t rows, const void *data) {
  const int rank = comm ? tp_comm_rank(comm) : 0, size = comm ? tp_comm_size(comm) : 1;
  const int root = rank == 0;
  int64_t all_rows = 0;
  uint64_t row_bytes = 0, data_bytes = 0;
  char head[TP_NPY_PREAMBLE_MAX];
  size_t head_len = 0;
  tp_status st = check_args(root, set, path, dtype, ndim, shape, lead_ndim, first_row, rows, data,
                            &all_rows, &row_bytes, &data_bytes);
  TP_TRY(agree(comm, st));

  int64_t *ranges = (int64_t *)malloc(sizeof(int64_t) * 2 * (size_t)size);
  int64_t *counts = (int64_t *)malloc(sizeof(int64_t) * (size_t)size);
  int64_t mine[2] = {first_row, rows};
  st = ranges && counts ? TP_SUCCESS
                        : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d ranges", size);
  TP_TRY_GOTO(st, agree(comm, st), done);
  for (int r = 0; r < size; ++r)
    counts[r] = 2;
  if (comm)
    TP_TRY_GOTO(st, tp_comm_allgatherv_host(comm, mine, ranges, counts, TP_DTYPE_I64), done);
  else
    ranges[0] = mine[0], ranges[1] = mine[1];
  TP_TRY_GOTO(st, agree(comm, check_cover(path, ranges, size, all_rows)), done);

  /* rank 0: the temporary with the header, sized for the data */
  const char *tmp = NULL;
  if (root) {
    head_len = tpi_npy_preamble(dtype, ndim, shape, 0, head);
    st = tp_output_set_share(set, path, head, head_len, head_len + data_bytes, &tmp);
  }
  TP_TRY_GOTO(st, agree(comm, st), done);
  int64_t info[2] = {(int64_t)head_len, root ? (int64_t)strlen(tmp) : 0};
  if (comm)
    TP_TRY_GOTO(st, tp_comm_broadcast_host(comm, info, 2, TP_DTYPE_I64, 0), done);
  char *name = (char *)malloc((size_t)info[1] + 1);
  st = name ? TP_SUCCESS : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for a file name");
  if (name && root)
    memcpy(name, tmp, (size_t)info[1] + 1);
  st = agree(comm, st);
  if (st == TP_SUCCESS && comm)
    st = tp_comm_broadcast_host(comm, name, info[1] + 1, TP_DTYPE_U8, 0);

  /* every rank its slab */
  if (st == TP_SUCCESS) {
    uint64_t offset = (uint64_t)info[0] + (uint64_t)first_row * row_bytes;
    st = agree(comm,
               write_slab(name, offset, data, (uint64_t)rows * row_bytes, tp_dtype_size(dtype)));
  }
  free(name);
  if (st == TP_SUCCESS)
    st = agree(comm, root ? tp_output_set_shared_done(set, path) : TP_SUCCESS);
done:
  free(ranges), free(counts);
  return st;
}
