/* The header of dense text, read from the input's first bytes without consuming them:
 *   tensor [BASE]      the word tensor (GenTen's index-base word may follow: a dense
 *   N                  tensor has no indices, so it is accepted and has no effect), a line
 *   I1 I2 ... IN       of the order and a line of the N dims, each line holding nothing
 *                      else; comments and blank lines may come before and between them. */
#include <stdio.h>
#include <string.h>

#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

enum { HEADER_PEEK = 1 << 16, FIELD_TEXT = 40, HEADER_LINES = 3 };

/* A content line of the peeked text: [begin, end) without its comment, its number. */
typedef struct text_line {
  const char *begin, *end;
  int64_t no;
} text_line;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static const char *skip_blanks(const char *p, const char *end) {
  while (p < end && is_blank(*p))
    ++p;
  return p;
}

static const char *field_end(const char *p, const char *end) {
  while (p < end && !is_blank(*p))
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

/* The first HEADER_LINES lines that hold anything (complete lines, and the last one too
 * when the text is the whole source: at_end); returns how many there are, *bytes the
 * offset after the last, *no the lines counted up to it. */
static int content_lines(const char *text, size_t len, int at_end, text_line *lines, size_t *bytes,
                         int64_t *no) {
  int found = 0;
  size_t pos = 0;
  *no = 0;
  while (found < HEADER_LINES && pos < len) {
    const char *nl = (const char *)memchr(text + pos, '\n', len - pos);
    if (!nl && !at_end)
      break;
    const char *p = text + pos, *end = content_end(p, nl ? nl : text + len);
    pos = nl ? (size_t)(nl - text) + 1 : len, ++*no;
    if (skip_blanks(p, end) == end)
      continue;
    lines[found].begin = skip_blanks(p, end), lines[found].end = end;
    lines[found++].no = *no;
    *bytes = pos;
  }
  return found;
}

static int count_fields(const char *p, const char *end) {
  int n = 0;
  for (p = skip_blanks(p, end); p < end; p = skip_blanks(field_end(p, end), end))
    ++n;
  return n;
}

/* The field at p for a message, non-printable bytes as '?', long ones cut with "...". */
static const char *field_text(const char *p, const char *end, char buf[FIELD_TEXT]) {
  size_t n = 0;
  const char *stop = field_end(p, end);
  for (; p < stop && n < FIELD_TEXT - 4; ++p)
    buf[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
  if (p < stop)
    memcpy(buf + n, "...", 3), n += 3;
  buf[n] = '\0';
  return buf;
}

/* A positive integer that fits int64 at [p, field end); -1 otherwise. */
static int64_t positive(const char *p, const char *end) {
  const char *stop = field_end(p, end);
  int64_t v = 0;
  if (p == stop)
    return -1;
  for (; p < stop; ++p) {
    if (*p < '0' || *p > '9' || v > (INT64_MAX - (*p - '0')) / 10)
      return -1;
    v = v * 10 + (*p - '0');
  }
  return v > 0 ? v : -1;
}

static int word_is(const char *p, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(field_end(p, end) - p) == n && !memcmp(p, word, n);
}

static tp_status take_type_line(const char *name, const text_line *l) {
  if (!word_is(l->begin, l->end, "tensor"))
    return TP_ERROR(TP_ERROR_FORMAT, "%s, line %lld: dense text starts with a line 'tensor'", name,
                    (long long)l->no);
  const char *second = skip_blanks(field_end(l->begin, l->end), l->end);
  int fields = count_fields(l->begin, l->end);
  if (fields == 1 || (fields == 2 && (word_is(second, l->end, "indices-start-at-zero") ||
                                      word_is(second, l->end, "indices-start-at-one"))))
    return TP_SUCCESS;
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s, line %lld: the word after tensor may only be "
                  "indices-start-at-zero or indices-start-at-one",
                  name, (long long)l->no);
}

static tp_status take_order_line(const char *name, const text_line *l, tpi_dense_text_header *h) {
  char text[FIELD_TEXT];
  int64_t order = positive(l->begin, l->end);
  if (count_fields(l->begin, l->end) != 1 || order < 1 || order > TP_DENSE_MAX_ORDER)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s, line %lld: '%s%s' is not an order; the line after "
                    "'tensor' holds the order, one integer from 1 to %d",
                    name, (long long)l->no, field_text(l->begin, l->end, text),
                    count_fields(l->begin, l->end) > 1 ? " ..." : "", TP_DENSE_MAX_ORDER);
  h->order = (int)order, h->order_line = l->no;
  return TP_SUCCESS;
}

static tp_status take_dims_line(const char *name, const text_line *l, tpi_dense_text_header *h) {
  int fields = count_fields(l->begin, l->end);
  if (fields != h->order)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s, line %lld: %d dim%s, and the order (line %lld) is "
                    "%d",
                    name, (long long)l->no, fields, fields == 1 ? "" : "s",
                    (long long)h->order_line, h->order);
  const char *p = l->begin;
  h->count = 1;
  for (int k = 0; k < h->order; ++k, p = skip_blanks(field_end(p, l->end), l->end)) {
    char text[FIELD_TEXT];
    h->dims[k] = positive(p, l->end);
    if (h->dims[k] < 1)
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s, line %lld: dim %d ('%s') is not a positive "
                      "integer",
                      name, (long long)l->no, k, field_text(p, l->end, text));
    if (h->count > INT64_MAX / h->dims[k]) {
      char dims[TP_DENSE_DIMS_TEXT];
      tpi_dense_format_dims(h->order, h->dims, dims, sizeof dims);
      return TP_ERROR(TP_ERROR_OVERFLOW,
                      "%s, line %lld: the dims %s%s hold more than 2^63 "
                      "elements",
                      name, (long long)l->no, dims, k + 1 < h->order ? "x..." : "");
    }
    h->count *= h->dims[k];
  }
  h->dims_line = l->no;
  return TP_SUCCESS;
}

tp_status tpi_dense_text_peek_header(tp_input *in, tpi_dense_text_header *h) {
  TP_CHECK_ARG(in && h, "in and h must not be NULL");
  memset(h, 0, sizeof *h);
  const unsigned char *bytes;
  size_t got, end = 0;
  TP_TRY(tpi_input_peek(in, HEADER_PEEK, &bytes, &got));
  text_line lines[HEADER_LINES];
  int64_t no;
  int found = content_lines((const char *)bytes, got, got < HEADER_PEEK, lines, &end, &no);
  tp_status st = found >= 1 ? take_type_line(in->name, &lines[0]) : TP_SUCCESS;
  if (st == TP_SUCCESS && found >= 2)
    st = take_order_line(in->name, &lines[1], h);
  if (st == TP_SUCCESS && found >= 3)
    st = take_dims_line(in->name, &lines[2], h);
  if (st == TP_SUCCESS && found < HEADER_LINES && got == 0)
    st = TP_ERROR(TP_ERROR_FORMAT,
                  "%s is empty: dense text is a line 'tensor', a line of the "
                  "order and a line of the dims, then the values",
                  in->name);
  else if (st == TP_SUCCESS && found < HEADER_LINES)
    st = TP_ERROR(TP_ERROR_FORMAT,
                  "%s %s line %lld, in its header: dense text is a line "
                  "'tensor', a line of the order and a line of the dims, then the values",
                  in->name, got < HEADER_PEEK ? "ends at" : "has no complete header by",
                  (long long)no);
  if (st != TP_SUCCESS) {
    memset(h, 0, sizeof *h);
    return st;
  }
  h->lines = lines[2].no, h->bytes = end;
  return TP_SUCCESS;
}
