/* Reading a COO tensor in either format, told apart by the binary format's magic, and
 * what both readers do last: merge duplicates. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

/* Sums of duplicates may leave the range of the value type (finite values that add up
 * past it), in either precision. */
static tp_status check_sums(const char *name, const tp_coo *host) {
  int64_t k = INT64_MAX; /* the first sum out of range */
  TP_HOST_OMP(omp parallel for schedule(static) reduction(min : k))
  for (int64_t j = 0; j < host->nnz; ++j)
    if (!isfinite(tpi_coo_value(host, j)) && j < k)
      k = j;
  if (k == INT64_MAX)
    return TP_SUCCESS;
  char at[TP_COO_COORD_TEXT];
  tpi_coo_format_coordinate(host, k, at, sizeof at);
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s: the duplicates of nonzero %s (zero-based) sum to a "
                  "value beyond the %s range",
                  name, at, tp_dtype_name(host->dtype));
}

static tp_status merge_and_check(const char *name, tp_coo *host, tp_coo_read_info *info) {
  int64_t merged = 0;
  TP_TRY(tpi_coo_merge_duplicates(host, &merged));
  if (info)
    info->duplicates = merged;
  if (merged > 0)
    TP_TRY(check_sums(name, host));
  return TP_SUCCESS;
}

tp_status tpi_coo_finish_read(tp_status st, const char *name, tp_coo *host,
                              tp_coo_read_info *info) {
  if (st == TP_SUCCESS)
    st = merge_and_check(name, host, info);
  if (st != TP_SUCCESS) {
    tpi_coo_host_free(host);
    memset(host, 0, sizeof *host);
  }
  return st;
}

/* "AxBxC" */
static void format_dims(int order, const int64_t *dims, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int m = 0; m < order && n < cap; ++m)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", m ? "x" : "", (long long)dims[m]);
}

/* A .tpb read with an order or dims must have them. */
static tp_status check_binary_shape(const char *name, int order, const int64_t *dims,
                                    const tp_coo *t) {
  int same = order == 0 || t->order == order;
  for (int m = 0; same && dims && m < order; ++m)
    same = t->dims[m] == dims[m];
  if (same)
    return TP_SUCCESS;
  char found[TP_COO_COORD_TEXT], given[TP_COO_COORD_TEXT];
  format_dims(t->order, t->dims, found, sizeof found);
  if (!dims)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s holds a tensor of %d modes (dims %s), expected %d "
                    "modes",
                    name, t->order, found, order);
  format_dims(order, dims, given, sizeof given);
  return TP_ERROR(TP_ERROR_FORMAT, "%s holds a tensor of dims %s, not the dims %s asked for", name,
                  found, given);
}

static tp_status read_binary(tp_input *in, tp_dtype dtype, int order, const int64_t *dims,
                             tp_coo *host, tp_coo_read_info *info) {
  TP_TRY(tpi_coo_read_binary_input(in, dtype, host, info));
  tp_status st = check_binary_shape(in->name, order, dims, host);
  if (st != TP_SUCCESS) {
    tpi_coo_host_free(host);
    memset(host, 0, sizeof *host);
  }
  return st;
}

tp_status tp_coo_read_input(tp_input *in, tp_dtype dtype, int order, const int64_t *dims,
                            tp_coo *host, tp_coo_read_info *info) {
  return tp_coo_read_input_with(in, dtype, order, dims, NULL, host, info);
}

tp_status tp_coo_read_input_with(tp_input *in, tp_dtype dtype, int order, const int64_t *dims,
                                 const tp_tns_options *opts, tp_coo *host, tp_coo_read_info *info) {
  if (host)
    memset(host, 0, sizeof *host);
  if (info)
    memset(info, 0, sizeof *info);
  TP_CHECK_ARG(in && host, "in and host must not be NULL");
  tp_file_format format;
  TP_TRY(tp_input_format(in, &format));
  if (format == TP_FILE_TPB)
    return read_binary(in, dtype, order, dims, host, info);
  if (format == TP_FILE_TEXT || format == TP_FILE_EMPTY)
    return tpi_coo_read_tns_input_with(in, 0, dtype, order, dims, opts, host, info);
  return tp_input_wrong_format(in, format, "a sparse tensor (.tns text or .tpb)");
}

tp_status tp_coo_input_dtype(tp_input *in, tp_dtype *dtype) {
  TP_CHECK_ARG(in && dtype, "in and dtype must not be NULL");
  *dtype = TP_DTYPE_F64;
  tp_file_format format;
  TP_TRY(tp_input_format(in, &format));
  const unsigned char *p;
  size_t got;
  TP_TRY(tpi_input_peek(in, TP_TPB_FIXED_HEADER, &p, &got));
  if (format == TP_FILE_TPB && got == TP_TPB_FIXED_HEADER && p[16] == 4 && !p[17] && !p[18] &&
      !p[19])
    *dtype = TP_DTYPE_F32;
  return TP_SUCCESS;
}

tp_status tp_coo_read(const char *path, tp_dtype dtype, tp_coo *host, tp_coo_read_info *info) {
  if (host)
    memset(host, 0, sizeof *host);
  if (info)
    memset(info, 0, sizeof *info);
  TP_CHECK_ARG(host, "host is NULL");
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = tp_coo_read_input(in, dtype, 0, NULL, host, info);
  tp_input_close(&in);
  return st;
}

tp_status tpi_coo_read_buffer(const char *name, const void *bytes, size_t size, tp_dtype dtype,
                              tp_coo *host, tp_coo_read_info *info) {
  if (host)
    memset(host, 0, sizeof *host);
  TP_CHECK_ARG(host, "host is NULL");
  tp_input in;
  tpi_input_init_buffer(&in, name, bytes, size);
  tp_status st = tp_coo_read_input(&in, dtype, 0, NULL, host, info);
  tpi_input_release(&in);
  return st;
}
