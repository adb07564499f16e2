/* Parsing the lines of a FROSTT .tns file: `order` 1-based indices and a value per
 * line, separated by blanks; `#` starts a comment; blank lines are skipped. Every error
 * names the file, the line and the problem.
 *
 * Indices are parsed by hand, values by tpi_text_number (by hand when they are short
 * decimals, else by strtod or strtof). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { FIELD_TEXT = 40 };

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Lines are parsed in [p, end) with end at the '\n' or the end of the text. */
static int at_line_end(const char *p, const char *end) { return p == end || *p == '#'; }
static int at_field_end(const char *p, const char *end) {
  return at_line_end(p, end) || is_blank(*p);
}

static const char *skip_blanks(const char *p, const char *end) {
  while (p < end && is_blank(*p))
    ++p;
  return p;
}

static int64_t count_fields(const char *p, const char *end) {
  int64_t n = 0;
  for (p = skip_blanks(p, end); !at_line_end(p, end); p = skip_blanks(p, end), ++n)
    while (!at_field_end(p, end))
      ++p;
  return n;
}

/* The field at p for a message, non-printable bytes as '?', long ones cut with "...". */
static const char *field_text(const char *p, const char *end, char buf[FIELD_TEXT]) {
  size_t n = 0;
  for (; !at_field_end(p, end) && n < FIELD_TEXT - 4; ++p)
    buf[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
  if (!at_field_end(p, end))
    memcpy(buf + n, "...", 3), n += 3;
  buf[n] = '\0';
  return buf;
}

/* With dims given, the count they imply may be what is wrong, not the file. */
static tp_status field_count_error(const tpi_tns_parser *ps, const char *line, const char *end) {
  int64_t found = count_fields(line, end);
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s, line %lld: %lld field%s, expected %d (%d ind%s and a "
                  "value%s)",
                  ps->name, (long long)ps->line, (long long)found, found == 1 ? "" : "s",
                  ps->order + 1, ps->order, ps->order == 1 ? "ex" : "ices",
                  ps->dims ? ", as the dims given have that many modes" : "");
}

/* ---- the order, from the first nonzero line ------------------------------------------- */

static tp_status take_order(tpi_tns_parser *ps, const char *line, const char *end) {
  int64_t fields = count_fields(line, end);
  if (fields < 2)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s, line %lld: 1 field; a nonzero is its indices "
                    "followed by its value",
                    ps->name, (long long)ps->line);
  if (fields - 1 > TP_COO_MAX_ORDER)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s, line %lld: %lld fields, that is %lld indices; at most "
                    "%d modes are read",
                    ps->name, (long long)ps->line, (long long)fields, (long long)fields - 1,
                    TP_COO_MAX_ORDER);
  ps->order = (int)fields - 1;
  tpi_coo_builder_init(&ps->b, ps->dtype, ps->order, ps->expected_nnz);
  return TP_SUCCESS;
}

/* ---- indices ------------------------------------------------------------------------------ */

static tp_status index_error(const tpi_tns_parser *ps, int m, const char *field, const char *end,
                             const char *problem) {
  char text[FIELD_TEXT];
  return TP_ERROR(TP_ERROR_FORMAT, "%s, line %lld: index '%s' of mode %d (field %d) %s", ps->name,
                  (long long)ps->line, field_text(field, end, text), m, m + 1, problem);
}

/* An index of mode m at *pp, stored zero-based in *out: 1-based files (index_base 1), or
 * 0-based ones (0); with TP_TNS_INDEX_AUTO, 1-based as stored (an index 0 is stored as
 * -1 and noted in saw_zero: the reader then shifts every index up by one). */
static tp_status parse_index(tpi_tns_parser *ps, int m, const char **pp, const char *end,
                             int64_t *out) {
  const char *field = *pp, *p = field;
  int negative = *p == '-';
  if (*p == '-' || *p == '+')
    ++p;
  if (p == end || !is_digit(*p))
    return index_error(ps, m, field, end, "is not an integer");
  int64_t v = 0;
  int overflow = 0;
  for (; p < end && is_digit(*p); ++p) {
    int d = *p - '0';
    overflow |= v > INT64_MAX / 10 || (v == INT64_MAX / 10 && d > INT64_MAX % 10);
    v = overflow ? v : v * 10 + d;
  }
  if (!at_field_end(p, end))
    return index_error(ps, m, field, end, "is not an integer");
  if (overflow)
    return index_error(ps, m, field, end, "does not fit in a 64-bit integer");
  if (negative && v != 0)
    return index_error(ps, m, field, end, "is negative");
  if (v == 0 && ps->index_base == 1)
    return index_error(ps, m, field, end, "is 0 in a file read with 1-based indices");
  ps->saw_zero |= v == 0;
  const int64_t last = ps->dims ? (ps->index_base == 0 ? ps->dims[m] - 1 : ps->dims[m]) : 0;
  if (ps->dims && v > last) {
    char problem[96];
    snprintf(problem, sizeof problem, "is beyond the dimension %lld%s", (long long)ps->dims[m],
             ps->index_base == 0 ? " (0-based indices)" : "");
    return index_error(ps, m, field, end, problem);
  }
  if (ps->index_base == 0 && v == INT64_MAX)
    return index_error(ps, m, field, end, "does not fit in a 64-bit integer");
  if (ps->index_base == 0)
    ++v; /* stored as if 1-based: v - 1 below */
  *out = v - 1;
  if (v - 1 > ps->b.max_index[m])
    ps->b.max_index[m] = v - 1;
  *pp = p;
  return TP_SUCCESS;
}

/* ---- values ------------------------------------------------------------------------------- */

static tp_status value_error(const tpi_tns_parser *ps, const char *field, const char *end,
                             const char *problem) {
  char text[FIELD_TEXT];
  return TP_ERROR(TP_ERROR_FORMAT, "%s, line %lld: value '%s' (field %d) %s", ps->name,
                  (long long)ps->line, field_text(field, end, text), ps->order + 1, problem);
}

/* Why a value parsed as v (not finite) is rejected. */
static tp_status nonfinite_error(const tpi_tns_parser *ps, const char *field, const char *end) {
  errno = 0;
  double d = strtod(field, NULL);
  if (isfinite(d))
    return value_error(ps, field, end, "overflows float32");
  return value_error(ps, field, end, errno == ERANGE ? "overflows float64" : "is not finite");
}

static tp_status parse_value(tpi_tns_parser *ps, const char **pp, const char *end, int64_t k) {
  const char *field = *pp;
  double v;
  const char *p = tpi_text_number(field, end, ps->b.t.dtype, &v);
  if (p == field || !at_field_end(p, end))
    return value_error(ps, field, end, "is not a number");
  if (!isfinite(v))
    return nonfinite_error(ps, field, end);
  tpi_coo_set_value(&ps->b.t, k, v);
  *pp = p;
  return TP_SUCCESS;
}

/* ---- lines ------------------------------------------------------------------------------- */

/* The fields of a nonzero line starting at p, into nonzero k. */
static tp_status parse_fields(tpi_tns_parser *ps, const char *p, const char *line, const char *end,
                              int64_t k) {
  for (int m = 0; m < ps->order; ++m) {
    if (at_line_end(p, end))
      return field_count_error(ps, line, end);
    TP_TRY(parse_index(ps, m, &p, end, &ps->b.t.indices[m][k]));
    p = skip_blanks(p, end);
  }
  if (at_line_end(p, end))
    return field_count_error(ps, line, end);
  TP_TRY(parse_value(ps, &p, end, k));
  if (!at_line_end(skip_blanks(p, end), end))
    return field_count_error(ps, line, end);
  return TP_SUCCESS;
}

/* One line in [line, end): nothing for a blank or comment line, else one nonzero. A
 * wrong number of fields is reported before what is wrong with any one field. */
static tp_status parse_line(tpi_tns_parser *ps, const char *line, const char *end) {
  const char *p = skip_blanks(line, end);
  if (at_line_end(p, end))
    return TP_SUCCESS;
  if (ps->order == 0)
    TP_TRY(take_order(ps, p, end));
  if (ps->b.t.nnz == ps->b.capacity)
    TP_TRY(tpi_coo_builder_reserve(&ps->b, 1, ps->name));
  tp_status st = parse_fields(ps, p, line, end, ps->b.t.nnz);
  if (st != TP_SUCCESS && count_fields(line, end) != ps->order + 1)
    return field_count_error(ps, line, end);
  ps->b.t.nnz += st == TP_SUCCESS;
  return st;
}

tp_status tpi_tns_line_too_long(const char *name, int64_t line) {
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s, line %lld: longer than %d bytes; a .tns line holds the "
                  "indices and the value of one nonzero",
                  name, (long long)line, TP_TNS_MAX_LINE_BYTES);
}

tp_status tpi_tns_parse_lines(tpi_tns_parser *ps, const char *text, const char *end) {
  for (const char *p = text; p < end;) {
    const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
    const char *line_end = nl ? nl : end;
    ++ps->line;
    if (line_end - p > TP_TNS_MAX_LINE_BYTES)
      return tpi_tns_line_too_long(ps->name, ps->line);
    TP_TRY(parse_line(ps, p, line_end));
    p = nl ? nl + 1 : end;
  }
  return TP_SUCCESS;
}
