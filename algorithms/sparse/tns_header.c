/* Headers that other tools write at the top of sparse tensor text, recognised before the
 * nonzero lines are parsed (comments and blank lines may precede them):
 *   sptensor [BASE]     the Tensor Toolbox's and GenTen's text: a line "sptensor", then
 *   N                   the order, the dims and the number of nonzeros, then one
 *   I1 I2 ... IN        nonzero per line. GenTen's BASE, indices-start-at-zero or
 *   NNZ                 indices-start-at-one, gives the index base; without it the
 *                       base is found as in any text (the Toolbox writes 1-based
 *                       indices, GenTen 0-based ones)
 *   N                   an order line and a dims line (ParTI and others)
 *   I1 I2 ... IN
 *   N I1 I2 ... IN      one line of the order and the dims, when the next line has as
 *                       many fields (N indices and a value), the first field equals the
 *                       count of the others, and no index on the lines that follow in
 *                       the first 64 KiB lies beyond those dims (a first nonzero of
 *                       integers could read as this form; no_header reads it as one) */
#include <stdio.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { HEADER_PEEK = 1 << 16, HEADER_LINES = 4, HEADER_FIELDS = TP_COO_MAX_ORDER + 2 };

typedef struct header_line header_line;
static int read_line(const char *text, size_t len, size_t *pos, header_line *l);

/* One line of the peeked text: its unsigned integer fields (or -1 for a field that is
 * not one), their count, and the offset just past it. */
struct header_line {
  int64_t field[HEADER_FIELDS];
  int fields;
  int is_sptensor; /* the line starts with the word "sptensor" */
  int base;        /* after sptensor: 0 or 1 as its second word says, -1 none, -2 other */
  size_t end;
};

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* GenTen's second word of an sptensor line: 0 or 1, or -2 for another word. */
static int sptensor_base(const char *word, size_t len) {
  static const char zero[] = "indices-start-at-zero", one[] = "indices-start-at-one";
  if (len == sizeof zero - 1 && !memcmp(word, zero, len))
    return 0;
  if (len == sizeof one - 1 && !memcmp(word, one, len))
    return 1;
  return -2;
}

/* Reads the line at text[*pos, len); 0 when no complete line is there. Fields beyond
 * HEADER_FIELDS are counted but not kept. */
static int read_line(const char *text, size_t len, size_t *pos, header_line *l) {
  const char *nl = (const char *)memchr(text + *pos, '\n', len - *pos);
  if (!nl)
    return 0;
  const char *p = text + *pos, *end = nl;
  const char *hash = (const char *)memchr(p, '#', (size_t)(end - p));
  end = hash ? hash : end;
  memset(l, 0, sizeof *l);
  while (p < end) {
    while (p < end && blank(*p))
      ++p;
    if (p == end)
      break;
    const char *f = p;
    while (p < end && !blank(*p))
      ++p;
    if (l->fields == 0 && p - f == 8 && !memcmp(f, "sptensor", 8))
      l->is_sptensor = 1, l->base = -1;
    if (l->fields == 1 && l->is_sptensor)
      l->base = sptensor_base(f, (size_t)(p - f));
    int64_t v = 0;
    for (const char *q = f; q < p && v >= 0; ++q)
      v = *q >= '0' && *q <= '9' && v <= (INT64_MAX - 9) / 10 ? v * 10 + (*q - '0') : -1;
    if (l->fields < HEADER_FIELDS)
      l->field[l->fields] = v;
    ++l->fields;
  }
  *pos = (size_t)(nl - text) + 1;
  l->end = *pos;
  return 1;
}

/* The first HEADER_LINES lines that are not blank or comments; *skipped counts the lines
 * before each. Returns how many were found. */
static int first_lines(const char *text, size_t len, header_line *lines, int64_t *line_no) {
  size_t pos = 0;
  int found = 0;
  int64_t no = 0;
  header_line l;
  while (found < HEADER_LINES && read_line(text, len, &pos, &l)) {
    ++no;
    if (l.fields == 0)
      continue;
    lines[found] = l;
    line_no[found++] = no;
  }
  return found;
}

static int all_positive(const header_line *l, int from) {
  for (int k = from; k < l->fields; ++k)
    if (k >= HEADER_FIELDS || l->field[k] < 1)
      return 0;
  return 1;
}

/* Every field of the line is an unsigned integer (0 included). */
static int all_non_negative(const header_line *l) {
  for (int k = 0; k < l->fields; ++k)
    if (k >= HEADER_FIELDS || l->field[k] < 0)
      return 0;
  return 1;
}

static int order_ok(int64_t n) { return n >= 1 && n <= TP_COO_MAX_ORDER; }

static void take_dims(tpi_tns_header *h, const header_line *l, int from) {
  for (int m = 0; m < h->order; ++m)
    h->dims[m] = l->field[from + m];
}

/* Whether the nonzero lines in text[from, len) (those read whole) keep their indices
 * within dims: a line of the order and dims must not be the first nonzero. */
static int fits_dims(const char *text, size_t len, size_t from, int order, const int64_t *dims) {
  header_line l;
  for (size_t pos = from; read_line(text, len, &pos, &l);)
    for (int m = 0; m < order && l.fields == order + 1; ++m)
      if (l.field[m] < 0 || l.field[m] > dims[m])
        return 0;
  return 1;
}

/* Recognises a header in lines[0, n); sets h (h->lines 0 when there is none). */
static tp_status recognise(const char *name, const char *text, size_t len, const header_line *lines,
                           const int64_t *no, int n, tpi_tns_header *h) {
  if (n >= 1 && lines[0].is_sptensor) {
    if (lines[0].fields > 2 || lines[0].base == -2)
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s, line %lld: the word after sptensor may only be "
                      "indices-start-at-zero or indices-start-at-one",
                      name, (long long)no[0]);
    if (n < 4 || lines[1].fields != 1 || !order_ok(lines[1].field[0]) ||
        lines[2].fields != lines[1].field[0] || !all_positive(&lines[2], 0) ||
        lines[3].fields != 1 || lines[3].field[0] < 0)
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s, line %lld: an sptensor header is the word "
                      "sptensor, then lines of the order, the dims and the number of nonzeros",
                      name, (long long)no[0]);
    h->order = (int)lines[1].field[0];
    take_dims(h, &lines[2], 0);
    h->nnz = lines[3].field[0];
    h->index_base = lines[0].base >= 0 ? lines[0].base : TP_TNS_INDEX_AUTO;
    h->lines = no[3], h->bytes = lines[3].end, h->kind = "sptensor";
    return TP_SUCCESS;
  }
  if (n >= 2 && lines[0].fields == 1 && order_ok(lines[0].field[0]) &&
      lines[1].fields == lines[0].field[0] && !all_positive(&lines[1], 0) &&
      all_non_negative(&lines[1]))
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s, line %lld: the dims line of a header (after the order %lld) has a size "
                    "0; every size must be at least 1",
                    name, (long long)no[1], (long long)lines[0].field[0]);
  if (n >= 2 && lines[0].fields == 1 && order_ok(lines[0].field[0]) &&
      lines[1].fields == lines[0].field[0] && all_positive(&lines[1], 0)) {
    h->order = (int)lines[0].field[0];
    take_dims(h, &lines[1], 0);
    h->lines = no[1], h->bytes = lines[1].end, h->kind = "order and dims lines";
    return TP_SUCCESS;
  }
  if (n >= 2 && lines[0].fields >= 2 && lines[0].field[0] == lines[0].fields - 1 &&
      order_ok(lines[0].field[0]) && all_positive(&lines[0], 1) &&
      lines[1].fields == lines[0].fields) {
    h->order = (int)lines[0].field[0];
    take_dims(h, &lines[0], 1);
    if (fits_dims(text, len, lines[0].end, h->order, h->dims))
      h->lines = no[0], h->bytes = lines[0].end, h->kind = "order and dims line";
  }
  return TP_SUCCESS;
}

tp_status tpi_tns_take_header(tp_input *in, tpi_tns_header *h) {
  memset(h, 0, sizeof *h);
  h->nnz = -1, h->index_base = TP_TNS_INDEX_AUTO;
  const unsigned char *bytes;
  size_t got;
  TP_TRY(tpi_input_peek(in, HEADER_PEEK, &bytes, &got));
  header_line lines[HEADER_LINES];
  int64_t no[HEADER_LINES];
  int n = first_lines((const char *)bytes, got, lines, no);
  TP_TRY(recognise(in->name, (const char *)bytes, got, lines, no, n, h));
  if (!h->lines)
    return TP_SUCCESS;
  unsigned char skip[4096]; /* the header's bytes, peeked already: consumed */
  for (size_t left = h->bytes, read = 0; left; left -= read)
    TP_TRY(tpi_input_read(in, skip, left < sizeof skip ? left : sizeof skip, &read));
  in->first_line += h->lines;
  return TP_SUCCESS;
}
