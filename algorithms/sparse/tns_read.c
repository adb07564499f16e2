/* Reading FROSTT .tns text: the source is read in large chunks, each cut after its last
 * complete line and parsed in place (tns_parse.c, in parallel pieces by tns_pieces.c);
 * the rest of the chunk moves to the front for the next read. A line longer than the
 * buffer doubles the buffer, up to TP_TNS_MAX_LINE_BYTES. */
#include <stdlib.h>
#include <string.h>

#include "tp_error.h"
#include "tp_sparse_internal.h"

enum { BYTES_PER_LINE_GUESS = 48 };

static tp_status check_args(tp_dtype dtype, int order, const int64_t *dims, tp_coo *host) {
  TP_CHECK_ARG(host, "host is NULL");
  memset(host, 0, sizeof *host);
  TP_CHECK_ARG(tp_coo_dtype_ok(dtype), "dtype %s is not float32 or float64", tp_dtype_name(dtype));
  TP_CHECK_ARG(order >= 0 && order <= TP_COO_MAX_ORDER, "order %d is outside [0, %d]", order,
               TP_COO_MAX_ORDER);
  TP_CHECK_ARG(!dims || order > 0, "dims are given but the order is not (order 0)");
  for (int m = 0; dims && m < order; ++m)
    TP_CHECK_ARG(dims[m] >= 1, "dims[%d] = %lld, must be at least 1", m, (long long)dims[m]);
  return TP_SUCCESS;
}

/* Offset just past the last '\n' in buf[0, len), or 0 if there is none. */
static size_t complete_lines(const char *buf, size_t len) {
  while (len > 0 && buf[len - 1] != '\n')
    --len;
  return len;
}

static tp_status grow(char **buf, size_t *cap, const tp_tns_parser *ps) {
  const char *name = ps->name;
  if (*cap > TP_TNS_MAX_LINE_BYTES) /* every line before this one is counted */
    return tp_tns_line_too_long(ps->name, ps->line + 1);
  size_t want = *cap > (SIZE_MAX - 1) / 2 ? 0 : *cap * 2;
  char *p = want ? (char *)realloc(*buf, want + 1) : NULL;
  if (!p)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes for one line", name,
                    *cap * 2);
  *buf = p, *cap = want;
  return TP_SUCCESS;
}

/* Reads the source through a buffer of cap + 1 bytes (one for the terminating NUL). */
static tp_status parse_chunks(tp_input *in, char **buf, size_t cap, tp_tns_parser *ps,
                              tp_tns_pieces *pieces) {
  size_t len = 0;
  for (;;) {
    size_t got;
    TP_TRY(tp_input_read(in, *buf + len, cap - len, &got));
    len += got;
    if (len < cap) { /* the end of the source */
      (*buf)[len] = '\0';
      return tp_tns_parse_block(ps, pieces, *buf, *buf + len);
    }
    size_t done = complete_lines(*buf, len);
    if (done == 0) {
      TP_TRY(grow(buf, &cap, ps));
      continue;
    }
    TP_TRY(tp_tns_parse_block(ps, pieces, *buf, *buf + done));
    memmove(*buf, *buf + done, len - done);
    len -= done;
  }
}

static tp_status parse_source(tp_input *in, size_t chunk, tp_tns_parser *ps) {
  size_t cap = chunk ? chunk : TP_TNS_CHUNK_BYTES;
  uint64_t remaining = tp_input_remaining(in);
  if (remaining < cap) /* small files: no larger buffer than needed */
    cap = (size_t)remaining + 1;
  char *buf = (char *)malloc(cap + 1);
  if (!buf)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a %zu-byte read buffer",
                    in->name, cap + 1);
  tp_tns_pieces pieces;
  memset(&pieces, 0, sizeof pieces);
  tp_status st = parse_chunks(in, &buf, cap, ps, &pieces);
  tp_tns_pieces_free(&pieces);
  free(buf);
  return st;
}

/* The parsed nonzeros as a tensor of the given or inferred dims. */
static tp_status take_tensor(tp_tns_parser *ps, const int64_t *dims, tp_coo *host) {
  if (!dims && ps->b.t.nnz == 0)
    return TP_ERROR(TP_ERROR_FORMAT, "%s: no nonzeros and no dims (%lld lines of blanks and "
                    "comments); give the dims to read an empty tensor", ps->name,
                    (long long)ps->line);
  *host = ps->b.t;
  for (int m = 0; m < ps->order; ++m)
    host->dims[m] = dims ? dims[m] : ps->b.max_index[m] + 1;
  memset(&ps->b, 0, sizeof ps->b); /* host owns the arrays now */
  if (host->nnz > 0)
    return TP_SUCCESS;
  tp_coo shape = *host; /* an empty tensor still gets valid (1-byte) arrays */
  tp_coo_host_free(host);
  return tp_coo_host_alloc(shape.dtype, shape.order, shape.dims, 0, host);
}

tp_status tp_coo_read_tns_input(tp_input *in, size_t chunk, tp_dtype dtype, int order,
                                const int64_t *dims, tp_coo *host, tp_coo_read_info *info) {
  if (info)
    memset(info, 0, sizeof *info);
  TP_TRY(check_args(dtype, order, dims, host));
  tp_tns_parser ps;
  memset(&ps, 0, sizeof ps);
  ps.name = in->name, ps.dtype = dtype, ps.order = order, ps.dims = dims;
  ps.line = in->first_line; /* a range of a file's lines counts from its first */
  uint64_t remaining = tp_input_remaining(in);
  ps.expected_nnz = remaining == UINT64_MAX ? 0 : (int64_t)(remaining / BYTES_PER_LINE_GUESS);
  tp_coo_builder_init(&ps.b, dtype, order, ps.expected_nnz);
  tp_status st = parse_source(in, chunk, &ps);
  if (st == TP_SUCCESS)
    st = take_tensor(&ps, dims, host);
  tp_coo_builder_free(&ps.b);
  if (info)
    info->lines = ps.line - in->first_line;
  return tp_coo_finish_read(st, in->name, host, info);
}

tp_status tp_coo_read_tns(const char *path, tp_dtype dtype, int order, const int64_t *dims,
                          tp_coo *host, tp_coo_read_info *info) {
  if (host)
    memset(host, 0, sizeof *host);
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = tp_coo_read_tns_input(in, 0, dtype, order, dims, host, info);
  tp_input_close(&in);
  return st;
}

tp_status tp_coo_read_tns_buffer(const char *name, const void *bytes, size_t size, size_t chunk,
                                 tp_dtype dtype, int order, const int64_t *dims, tp_coo *host,
                                 tp_coo_read_info *info) {
  tp_input in;
  tp_input_init_buffer(&in, name, bytes, size);
  tp_status st = tp_coo_read_tns_input(&in, chunk, dtype, order, dims, host, info);
  tp_input_release(&in);
  return st;
}
