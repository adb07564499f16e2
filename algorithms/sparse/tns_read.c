/* Reading FROSTT .tns text: the source is read in large chunks, each cut after its last
 * complete line and parsed in place (tns_parse.c, in parallel pieces by tns_pieces.c)
 * while the next chunk is read into a second buffer, after the first one's incomplete
 * last line. A line longer than the buffer doubles the buffers, up to
 * TP_TNS_MAX_LINE_BYTES. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { BYTES_PER_LINE_GUESS = 48 };

static tp_status check_args(tp_dtype dtype, int order, const int64_t *dims, tp_coo *host) {
  TP_CHECK_ARG(host, "host is NULL");
  memset(host, 0, sizeof *host);
  TP_CHECK_ARG(tpi_coo_dtype_ok(dtype), "dtype %s is not float32 or float64", tp_dtype_name(dtype));
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

/* Two buffers of cap + 1 bytes (one for the terminating NUL): one parsed while the next
 * chunk is read into the other. */
typedef struct tns_buffers {
  char *buf[2];
  size_t cap;
} tns_buffers;

static tp_status grow(tns_buffers *b, const tpi_tns_parser *ps) {
  if (b->cap > TP_TNS_MAX_LINE_BYTES) /* every line before this one is counted */
    return tpi_tns_line_too_long(ps->name, ps->line + 1);
  size_t want = b->cap > (SIZE_MAX - 1) / 2 ? 0 : b->cap * 2;
  for (int i = 0; i < 2; ++i) {
    char *p = want ? (char *)realloc(b->buf[i], want + 1) : NULL;
    if (!p)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes for one line",
                      ps->name, b->cap * 2);
    b->buf[i] = p;
  }
  b->cap = want;
  return TP_SUCCESS;
}

/* The read of the next chunk: into buf after the `have` bytes carried over. */
typedef struct tns_next {
  tp_input *in;
  char *buf;
  size_t have, cap;
} tns_next;

static tp_status read_next(void *ctx) {
  tns_next *n = (tns_next *)ctx;
  size_t got;
  TP_TRY(tpi_input_read(n->in, n->buf + n->have, n->cap - n->have, &got));
  n->have += got;
  return TP_SUCCESS;
}

/* Parses the complete lines of the current buffer while the next chunk is read into the
 * other one, after the current buffer's incomplete last line. */
static tp_status parse_chunks(tp_input *in, tns_buffers *b, tpi_tns_parser *ps,
                              tpi_tns_pieces *pieces) {
  int cur = 0;
  tns_next next = {in, b->buf[cur], 0, b->cap};
  TP_TRY(read_next(&next));
  for (;;) {
    char *text = b->buf[cur];
    size_t len = next.have;
    if (len < b->cap) { /* the end of the source */
      text[len] = '\0';
      return tpi_tns_parse_block(ps, pieces, text, text + len, NULL, NULL, NULL);
    }
    size_t done = complete_lines(text, len);
    if (done == 0) {
      TP_TRY(grow(b, ps));
      next.buf = b->buf[cur], next.cap = b->cap;
      TP_TRY(read_next(&next));
      continue;
    }
    next.buf = b->buf[1 - cur], next.have = len - done, next.cap = b->cap;
    memcpy(next.buf, text + done, len - done);
    tp_status read_st = TP_SUCCESS;
    TP_TRY(tpi_tns_parse_block(ps, pieces, text, text + done, read_next, &next, &read_st));
    TP_TRY(read_st);
    cur = 1 - cur;
  }
}

static tp_status parse_source(tp_input *in, size_t chunk, tpi_tns_parser *ps) {
  tns_buffers b;
  b.cap = chunk ? chunk : TP_TNS_CHUNK_BYTES;
  uint64_t remaining = tpi_input_remaining(in);
  if (remaining < b.cap) /* small files: no larger buffer than needed, and only one */
    b.cap = (size_t)remaining + 1;
  b.buf[0] = (char *)malloc(b.cap + 1);
  b.buf[1] = (char *)malloc(b.cap + 1);
  tp_status st = TP_SUCCESS;
  if (!b.buf[0] || !b.buf[1])
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate two %zu-byte read buffers", in->name,
                  b.cap + 1);
  tpi_tns_pieces pieces;
  memset(&pieces, 0, sizeof pieces);
  if (st == TP_SUCCESS)
    st = parse_chunks(in, &b, ps, &pieces);
  tpi_tns_pieces_free(&pieces);
  free(b.buf[0]), free(b.buf[1]);
  return st;
}

/* The parsed nonzeros as a tensor of the given or inferred dims. */
static tp_status take_tensor(tpi_tns_parser *ps, const int64_t *dims, tp_coo *host) {
  if (!dims && ps->b.t.nnz == 0)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: no nonzeros and no dims (%lld lines of blanks and "
                    "comments); give the dims to read an empty tensor",
                    ps->name, (long long)ps->line);
  *host = ps->b.t;
  for (int m = 0; m < ps->order; ++m)
    host->dims[m] = dims ? dims[m] : ps->b.max_index[m] + 1;
  memset(&ps->b, 0, sizeof ps->b); /* host owns the arrays now */
  if (host->nnz > 0)
    return TP_SUCCESS;
  tp_coo shape = *host; /* an empty tensor still gets valid (1-byte) arrays */
  tpi_coo_host_free(host);
  return tpi_coo_host_alloc(shape.dtype, shape.order, shape.dims, 0, host);
}

tp_tns_options tp_tns_options_default(void) {
  tp_tns_options o;
  memset(&o, 0, sizeof o);
  o.index_base = TP_TNS_INDEX_AUTO;
  return o;
}

/* The order and dims a header gives, against those the caller gave (order 0 and dims
 * NULL: none). */
tp_status tpi_tns_agree_with_header(const char *name, const tpi_tns_header *h, int order,
                                    const int64_t *dims) {
  int same = order == 0 || order == h->order;
  for (int m = 0; same && dims && m < order; ++m)
    same = dims[m] == h->dims[m];
  return same ? TP_SUCCESS
              : TP_ERROR(TP_ERROR_FORMAT,
                         "%s: its header (%s, line %lld) gives another order "
                         "or other dims than those asked for",
                         name, h->kind, (long long)h->lines);
}

/* The index base a header names (GenTen's sptensor line), against the one asked for. */
static tp_status take_header_base(const char *name, const tpi_tns_header *h, tp_tns_options *o) {
  if (h->index_base == TP_TNS_INDEX_AUTO)
    return TP_SUCCESS;
  if (o->index_base != TP_TNS_INDEX_AUTO && o->index_base != h->index_base)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: its header says its indices are %d-based, and they "
                    "were asked to be read as %d-based",
                    name, h->index_base, o->index_base);
  o->index_base = h->index_base;
  return TP_SUCCESS;
}

tp_status tpi_tns_shift_up(const char *name, int order, int64_t *const *indices, int64_t nnz,
                           int64_t *max_index, const int64_t *dims) {
  for (int m = 0; m < order; ++m) {
    if (max_index[m] >= INT64_MAX - 1) /* its dim would be 2^63 */
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s: an index 0 makes the file's indices 0-based, and "
                      "then mode %d's largest index %lld needs a dimension beyond 64 bits",
                      name, m, (long long)INT64_MAX);
    int64_t *idx = indices[m];
    for (int64_t i = 0; i < nnz; ++i)
      ++idx[i];
    ++max_index[m];
    if (dims && max_index[m] >= dims[m])
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s: an index 0 makes the file's indices 0-based, and "
                      "then index %lld of mode %d is beyond the dimension %lld",
                      name, (long long)max_index[m], m, (long long)dims[m]);
  }
  return TP_SUCCESS;
}

/* A text read with TP_TNS_INDEX_AUTO in which an index 0 appeared: every index was
 * stored one too low; shifted up, each must lie within the given dims. */
static tp_status make_zero_based(tpi_tns_parser *ps, const int64_t *dims) {
  return tpi_tns_shift_up(ps->name, ps->order, ps->b.t.indices, ps->b.t.nnz, ps->b.max_index, dims);
}

tp_status tpi_tns_check_count(const char *name, const tpi_tns_header *h, int64_t nnz) {
  if (h->nnz >= 0 && nnz != h->nnz)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: its sptensor header (line %lld) announces %lld "
                    "nonzeros, and the file has %lld",
                    name, (long long)h->lines, (long long)h->nnz, (long long)nnz);
  return TP_SUCCESS;
}

/* After the lines: the count an sptensor header announced, and the index base (left to
 * the caller when defer_base: the ranks of a distributed read decide it together). */
static tp_status settle_indices(tpi_tns_parser *ps, const tpi_tns_header *h, const int64_t *dims,
                                int defer_base) {
  TP_TRY(tpi_tns_check_count(ps->name, h, ps->b.t.nnz));
  return !defer_base && ps->index_base == TP_TNS_INDEX_AUTO && ps->saw_zero
             ? make_zero_based(ps, dims)
             : TP_SUCCESS;
}

tp_status tpi_coo_read_tns_input(tp_input *in, size_t chunk, tp_dtype dtype, int order,
                                 const int64_t *dims, tp_coo *host, tp_coo_read_info *info) {
  return tpi_coo_read_tns_input_with(in, chunk, dtype, order, dims, NULL, host, info);
}

/* The reader; with saw_zero not NULL, a TP_TNS_INDEX_AUTO text that shows an index 0 is
 * left 1-based (that index stored as -1) and *saw_zero set, and duplicates are left for
 * tpi_coo_finish_read to merge: tpi_coo_read_tns_share. */
static tp_status read_tns(tp_input *in, size_t chunk, tp_dtype dtype, int order,
                          const int64_t *dims, const tp_tns_options *opts, tp_coo *host,
                          tp_coo_read_info *info, int *saw_zero) {
  if (info)
    memset(info, 0, sizeof *info);
  TP_TRY(check_args(dtype, order, dims, host));
  tp_tns_options o = opts ? *opts : tp_tns_options_default();
  TP_CHECK_ARG(o.index_base == TP_TNS_INDEX_AUTO || o.index_base == 0 || o.index_base == 1,
               "index_base %d is not TP_TNS_INDEX_AUTO, 0 or 1", o.index_base);
  tpi_tns_header h;
  memset(&h, 0, sizeof h);
  h.nnz = -1, h.index_base = TP_TNS_INDEX_AUTO;
  if (!o.no_header) {
    TP_TRY(tpi_tns_take_header(in, &h));
    if (h.lines) {
      TP_TRY(tpi_tns_agree_with_header(in->name, &h, order, dims));
      TP_TRY(take_header_base(in->name, &h, &o));
      order = h.order, dims = h.dims;
    }
  }
  tpi_tns_parser ps;
  memset(&ps, 0, sizeof ps);
  ps.name = in->name, ps.dtype = dtype, ps.order = order, ps.dims = dims;
  ps.index_base = o.index_base;
  ps.line = in->first_line; /* a range of a file's lines counts from its first */
  uint64_t remaining = tpi_input_remaining(in);
  ps.expected_nnz = remaining == UINT64_MAX ? 0 : (int64_t)(remaining / BYTES_PER_LINE_GUESS);
  tpi_coo_builder_init(&ps.b, dtype, order, ps.expected_nnz);
  tp_status st = parse_source(in, chunk, &ps);
  if (st == TP_SUCCESS)
    st = settle_indices(&ps, &h, dims, saw_zero != NULL);
  if (saw_zero)
    *saw_zero = ps.saw_zero;
  if (st == TP_SUCCESS)
    st = take_tensor(&ps, dims, host);
  tpi_coo_builder_free(&ps.b);
  if (info) {
    info->lines = ps.line - in->first_line + h.lines;
    info->index_base = o.index_base == 0 || (o.index_base != 1 && ps.saw_zero) ? 0 : 1;
    info->header_lines = h.lines;
    info->header_kind = h.lines ? h.kind : NULL;
  }
  if (saw_zero && st == TP_SUCCESS) /* duplicates merged once the base is known */
    return TP_SUCCESS;
  return tpi_coo_finish_read(st, in->name, host, info);
}

tp_status tpi_coo_read_tns_input_with(tp_input *in, size_t chunk, tp_dtype dtype, int order,
                                      const int64_t *dims, const tp_tns_options *opts, tp_coo *host,
                                      tp_coo_read_info *info) {
  return read_tns(in, chunk, dtype, order, dims, opts, host, info, NULL);
}

tp_status tpi_coo_read_tns_share(tp_input *in, tp_dtype dtype, int order, const int64_t *dims,
                                 int index_base, tp_coo *host, tp_coo_read_info *info,
                                 int *saw_zero) {
  tp_tns_options o = tp_tns_options_default();
  o.index_base = index_base, o.no_header = 1;
  *saw_zero = 0;
  return read_tns(in, 0, dtype, order, dims, &o, host, info, saw_zero);
}

tp_status tp_coo_read_tns(const char *path, tp_dtype dtype, int order, const int64_t *dims,
                          tp_coo *host, tp_coo_read_info *info) {
  if (host)
    memset(host, 0, sizeof *host);
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = tpi_coo_read_tns_input(in, 0, dtype, order, dims, host, info);
  tp_input_close(&in);
  return st;
}

tp_status tpi_coo_read_tns_buffer(const char *name, const void *bytes, size_t size, size_t chunk,
                                  tp_dtype dtype, int order, const int64_t *dims, tp_coo *host,
                                  tp_coo_read_info *info) {
  tp_input in;
  tpi_input_init_buffer(&in, name, bytes, size);
  tp_status st = tpi_coo_read_tns_input(&in, chunk, dtype, order, dims, host, info);
  tpi_input_release(&in);
  return st;
}
