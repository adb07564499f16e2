/* Reading a COO tensor in either format, told apart by the binary format's magic, and
 * what both readers do last: merge duplicates. */
#include <math.h>
#include <string.h>

#include "tp_error.h"
#include "tp_sparse_internal.h"

/* Sums of duplicates may leave the range of the value type (finite values that add up
 * past it), in either precision. */
static tp_status check_sums(const char *name, const tp_coo *host) {
  for (int64_t k = 0; k < host->nnz; ++k)
    if (!isfinite(tp_coo_value(host, k))) {
      char at[TP_COO_COORD_TEXT];
      tp_coo_format_coordinate(host, k, at, sizeof at);
      return TP_ERROR(TP_ERROR_FORMAT, "%s: the duplicates of nonzero %s (zero-based) sum to a "
                      "value beyond the %s range", name, at, tp_dtype_name(host->dtype));
    }
  return TP_SUCCESS;
}

static tp_status merge_and_check(const char *name, tp_coo *host, tp_coo_read_info *info) {
  int64_t merged = 0;
  TP_TRY(tp_coo_merge_duplicates(host, &merged));
  if (info)
    info->duplicates = merged;
  if (merged > 0)
    TP_TRY(check_sums(name, host));
  return TP_SUCCESS;
}

tp_status tp_coo_finish_read(tp_status st, const char *name, tp_coo *host,
                             tp_coo_read_info *info) {
  if (st == TP_SUCCESS)
    st = merge_and_check(name, host, info);
  if (st != TP_SUCCESS) {
    tp_coo_host_free(host);
    memset(host, 0, sizeof *host);
  }
  return st;
}

/* Binary when the source starts with the magic; a source too short for it is text. */
static tp_status read_source(tp_coo_source *src, tp_dtype dtype, tp_coo *host,
                             tp_coo_read_info *info) {
  unsigned char head[TP_TPB_MAGIC_BYTES];
  size_t got;
  TP_TRY(tp_coo_source_peek(src, head, sizeof head, &got));
  if (got == sizeof head && memcmp(head, TP_TPB_MAGIC, sizeof head) == 0)
    return tp_coo_read_binary_source(src, dtype, host, info);
  return tp_coo_read_tns_source(src, 0, dtype, 0, NULL, host, info);
}

tp_status tp_coo_read(const char *path, tp_dtype dtype, tp_coo *host, tp_coo_read_info *info) {
  if (host)
    memset(host, 0, sizeof *host);
  if (info)
    memset(info, 0, sizeof *info);
  TP_CHECK_ARG(host, "host is NULL");
  tp_coo_source src;
  TP_TRY(tp_coo_source_open(&src, path));
  tp_status st = read_source(&src, dtype, host, info);
  tp_coo_source_close(&src);
  return st;
}

tp_status tp_coo_read_buffer(const char *name, const void *bytes, size_t size, tp_dtype dtype,
                             tp_coo *host, tp_coo_read_info *info) {
  if (host)
    memset(host, 0, sizeof *host);
  TP_CHECK_ARG(host, "host is NULL");
  tp_coo_source src;
  tp_coo_source_buffer(&src, name, bytes, size);
  return read_source(&src, dtype, host, info);
}
