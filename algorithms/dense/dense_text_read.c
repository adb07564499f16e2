/* Reading dense text into a host tensor: the header (dense_text_header.c), then one value
 * per line, first index fastest, so the values land in TP_LAYOUT_LEFT order as they come.
 * The source is read a chunk at a time and its complete lines parsed; the array grows as
 * values arrive, never past the count the dims give, so a header that promises more
 * values than the file holds costs no more memory than the values it holds. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_host_memory.h"
#include "algorithms/io/tp_io_internal.h"

enum { CHUNK_BYTES = 1 << 22, FIRST_VALUES = 1 << 16, FIELD_TEXT = 40 };

typedef struct values_reader {
  const char *name;
  tp_dtype dtype;
  const tpi_dense_text_header *h;
  int64_t line;      /* lines read so far, the header's included */
  int64_t have, cap; /* values stored, room for values */
  void *data;
} values_reader;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static const char *skip_blanks(const char *p, const char *end) {
  while (p < end && is_blank(*p))
    ++p;
  return p;
}

/* The line's content: up to a '#', nothing for a "//" line (GenTen's comments). */
static const char *content_end(const char *p, const char *end) {
  const char *first = skip_blanks(p, end);
  if (end - first >= 2 && first[0] == '/' && first[1] == '/')
    return first;
  const char *hash = (const char *)memchr(p, '#', (size_t)(end - p));
  return hash ? hash : end;
}

/* The field at p for a message, non-printable bytes as '?', long ones cut with "...". */
static const char *field_text(const char *p, const char *end, char buf[FIELD_TEXT]) {
  size_t n = 0;
  for (; p < end && !is_blank(*p) && n < FIELD_TEXT - 4; ++p)
    buf[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
  if (p < end && !is_blank(*p))
    memcpy(buf + n, "...", 3), n += 3;
  buf[n] = '\0';
  return buf;
}

static tp_status value_error(const values_reader *r, const char *field, const char *end,
                             const char *problem) {
  char text[FIELD_TEXT];
  return TP_ERROR(TP_ERROR_FORMAT, "%s, line %lld: value '%s' %s", r->name, (long long)r->line,
                  field_text(field, end, text), problem);
}

/* Why a value read as v (not finite) is refused. */
static tp_status nonfinite_error(const values_reader *r, const char *field, const char *end) {
  errno = 0;
  double d = strtod(field, NULL);
  if (isfinite(d))
    return value_error(r, field, end, "overflows float32");
  return value_error(r, field, end, errno == ERANGE ? "overflows float64" : "is not finite");
}

static tp_status fields_error(const values_reader *r, const char *p, const char *end) {
  int fields = 0;
  for (p = skip_blanks(p, end); p < end; p = skip_blanks(p, end), ++fields)
    while (p < end && !is_blank(*p))
      ++p;
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s, line %lld: %d fields; dense text holds one value per "
                  "line",
                  r->name, (long long)r->line, fields);
}

static tp_status too_many(const values_reader *r) {
  char dims[TP_DENSE_DIMS_TEXT];
  tpi_dense_format_dims(r->h->order, r->h->dims, dims, sizeof dims);
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s, line %lld: a value beyond the %lld that the dims %s "
                  "(line %lld) hold",
                  r->name, (long long)r->line, (long long)r->h->count, dims,
                  (long long)r->h->dims_line);
}

/* Room for one more value: the array doubles, up to the count. */
static tp_status grow(values_reader *r) {
  int64_t cap = r->cap < FIRST_VALUES / 2 ? (int64_t)FIRST_VALUES : 2 * r->cap;
  cap = cap < r->h->count ? cap : r->h->count;
  void *p = realloc(r->data, (size_t)cap * tp_dtype_size(r->dtype));
  if (!p)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory for %lld values", r->name,
                    (long long)cap);
  r->data = p, r->cap = cap;
  return TP_SUCCESS;
}

static tp_status line_too_long(const values_reader *r) {
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s, line %lld: longer than %d bytes; a line of dense text "
                  "holds one value",
                  r->name, (long long)r->line + 1, TP_DENSE_TEXT_MAX_LINE);
}

/* One line [p, end): end is at its '\n' or at the text's NUL, where strtod stops. */
static tp_status parse_line(values_reader *r, const char *p, const char *end) {
  if (end - p > TP_DENSE_TEXT_MAX_LINE)
    return line_too_long(r);
  ++r->line;
  end = content_end(p, end);
  p = skip_blanks(p, end);
  if (p == end)
    return TP_SUCCESS;
  double v;
  const char *q = tpi_text_number(p, end, r->dtype, &v);
  if (q == p || (q < end && !is_blank(*q)))
    return value_error(r, p, end, "is not a number");
  if (skip_blanks(q, end) != end)
    return fields_error(r, p, end);
  if (!isfinite(v))
    return nonfinite_error(r, p, end);
  if (r->have == r->h->count)
    return too_many(r);
  if (r->have == r->cap)
    TP_TRY(grow(r));
  tpi_dense_store(r->data, r->dtype, r->have++, v);
  return TP_SUCCESS;
}

/* The lines of text[0, len), the last one ending at len, where text[len] is its '\n' or
 * the NUL after the source's end. */
static tp_status parse_lines(values_reader *r, const char *text, size_t len) {
  const char *end = text + len;
  for (const char *p = text;;) {
    const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
    TP_TRY(parse_line(r, p, nl ? nl : end));
    if (!nl)
      return TP_SUCCESS;
    p = nl + 1;
  }
}

/* The last lines, up to the source's end (a NUL at text[len]); a last '\n' ends the last
 * line rather than starting another. */
static tp_status parse_last_lines(values_reader *r, const char *text, size_t len) {
  if (len == 0)
    return TP_SUCCESS;
  return parse_lines(r, text, text[len - 1] == '\n' ? len - 1 : len);
}

/* Reads the source to its end, a chunk at a time; the incomplete last line of a chunk
 * moves to the front of the buffer before the next read. */
static tp_status read_values(tp_input *in, values_reader *r, char **buf) {
  uint64_t remaining = tpi_input_remaining(in);
  size_t cap = remaining < CHUNK_BYTES ? (size_t)remaining + 1 : (size_t)CHUNK_BYTES, have = 0;
  for (;;) {
    char *grown = (char *)realloc(*buf, cap + 1);
    if (!grown)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory for a %zu-byte read buffer", r->name,
                      cap + 1);
    *buf = grown;
    size_t got;
    TP_TRY(tpi_input_read(in, *buf + have, cap - have, &got));
    have += got;
    if (have < cap) { /* the end of the source */
      (*buf)[have] = '\0';
      return parse_last_lines(r, *buf, have);
    }
    size_t done = have;
    while (done > 0 && (*buf)[done - 1] != '\n')
      --done;
    if (done == 0 && cap > TP_DENSE_TEXT_MAX_LINE)
      return line_too_long(r);
    if (done == 0) {
      cap *= 2;
      continue;
    }
    TP_TRY(parse_lines(r, *buf, done - 1));
    memmove(*buf, *buf + done, have - done);
    have -= done;
  }
}

/* The whole array's size is checked against the memory available before the first
 * value is stored. */
static tp_status check_size(const char *name, const tpi_dense_text_header *h, tp_dtype dtype) {
  char dims[TP_DENSE_DIMS_TEXT], what[TP_DENSE_DIMS_TEXT + 64];
  tpi_dense_format_dims(h->order, h->dims, dims, sizeof dims);
  if ((uint64_t)h->count > SIZE_MAX / tp_dtype_size(dtype))
    return TP_ERROR(TP_ERROR_OVERFLOW,
                    "%s, line %lld: the dims %s hold more bytes of %s than "
                    "memory can address",
                    name, (long long)h->dims_line, dims, tp_dtype_name(dtype));
  size_t bytes = (size_t)h->count * tp_dtype_size(dtype);
  snprintf(what, sizeof what, "dense tensor %s (%s)", dims, tp_dtype_name(dtype));
  return bytes >= TP_HOST_MEMORY_CHECK_FROM ? tp_host_memory_check(bytes, what) : TP_SUCCESS;
}

static tp_status skip_header(tp_input *in, const tpi_dense_text_header *h) {
  char skip[4096];
  for (size_t left = h->bytes, got = 0; left; left -= got) {
    TP_TRY(tpi_input_read(in, skip, left < sizeof skip ? left : sizeof skip, &got));
    if (got == 0)
      return TP_ERROR(TP_ERROR_INTERNAL, "%s: the header peeked is gone", in->name);
  }
  return TP_SUCCESS;
}

static tp_status end_of_values(const values_reader *r) {
  if (r->have == r->h->count)
    return TP_SUCCESS;
  char dims[TP_DENSE_DIMS_TEXT];
  tpi_dense_format_dims(r->h->order, r->h->dims, dims, sizeof dims);
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s: the values end at line %lld after %lld of the %lld "
                  "that the dims %s (line %lld) hold",
                  r->name, (long long)r->line, (long long)r->have, (long long)r->h->count, dims,
                  (long long)r->h->dims_line);
}

/* The header and then the values of dense text, of any order from 1. */
static tp_status read_text(tp_input *in, tp_dtype dtype, tp_dense *t) {
  tpi_dense_text_header h;
  TP_TRY(tpi_dense_text_peek_header(in, &h));
  if (h.order < 2)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s, line %lld: order %d; a dense tensor has 2 to %d "
                    "modes",
                    in->name, (long long)h.order_line, h.order, TP_DENSE_MAX_ORDER);
  TP_TRY(check_size(in->name, &h, dtype));
  TP_TRY(skip_header(in, &h));
  values_reader r;
  memset(&r, 0, sizeof r);
  r.name = in->name, r.dtype = dtype, r.h = &h, r.line = h.lines;
  char *buf = NULL;
  tp_status st = read_values(in, &r, &buf);
  free(buf);
  if (st == TP_SUCCESS)
    st = end_of_values(&r);
  if (st != TP_SUCCESS) {
    free(r.data);
    return st;
  }
  t->dtype = dtype, t->order = h.order, t->layout = TP_LAYOUT_LEFT, t->data = r.data;
  memcpy(t->dims, h.dims, sizeof(int64_t) * (size_t)h.order);
  return TP_SUCCESS;
}

tp_status tp_dense_read_text_input(tp_input *in, tp_dtype want_dtype, tp_dense *t) {
  TP_CHECK_ARG(t, "t is NULL");
  memset(t, 0, sizeof *t);
  TP_CHECK_ARG(in, "in is NULL");
  TP_CHECK_ARG(want_dtype == TP_DTYPE_F32 || want_dtype == TP_DTYPE_F64,
               "want_dtype %s is not float32 or float64", tp_dtype_name(want_dtype));
  tp_status st = read_text(in, want_dtype, t);
  if (st != TP_SUCCESS)
    memset(t, 0, sizeof *t);
  return st;
}

tp_status tp_dense_read_text(const char *path, tp_dtype want_dtype, tp_dense *t) {
  TP_CHECK_ARG(t, "t is NULL");
  memset(t, 0, sizeof *t);
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = tp_dense_read_text_input(in, want_dtype, t);
  tp_input_close(&in);
  return st;
}
