/* MRtrix .mif headers (.mif.gz is decompressed by the input): the line "mrtrix image",
 * then "key: value" lines up to "END", then the data at the offset the "file" entry
 * gives. As MRtrix3 reads them: dim, vox, layout, datatype and file are required;
 * transform (three rows of four numbers) and scaling (offset, scale) are optional; '#'
 * starts a comment; other keys are kept by MRtrix3 and ignored here. The layout lists,
 * for each axis, its rank among the strides (0 the fastest) with '-' for an axis stored
 * backwards. Only the single-file form ("file: . OFFSET") is read. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

enum { HEADER_FIRST = 4096, HEADER_MAX = 1 << 22, VALUE_MAX = 1024 };

/* A header line being read: its number and its key and value (trimmed, comment off). */
typedef struct mif_line {
  const char *name;
  int number;
  const char *key, *value;
  size_t key_len, value_len;
} mif_line;

/* What the required and optional entries said; line numbers 0 when absent. */
typedef struct mif_entries {
  int dim_line, vox_line, layout_line, type_line, file_line, scaling_line;
  int transform_rows;
  double vox[TP_IMAGE_MAX_DIMS], transform[3][4], scaling[2];
  int vox_count;
  int64_t layout[TP_IMAGE_MAX_DIMS];
  int negative[TP_IMAGE_MAX_DIMS];
  int layout_count;
} mif_entries;

static tp_status line_error(const mif_line *l, const char *what) {
  char value[81];
  size_t n = l->value_len < 80 ? l->value_len : 80;
  memcpy(value, l->value, n);
  value[n] = '\0';
  for (size_t i = 0; i < n; ++i)
    if ((unsigned char)value[i] < 0x20 || (unsigned char)value[i] >= 0x7f)
      value[i] = '?';
  return TP_ERROR(TP_ERROR_FORMAT, "%s line %d: %.*s '%s%s' is not valid: %s", l->name, l->number,
                  (int)(l->key_len < 40 ? l->key_len : 40), l->key, value,
                  l->value_len > 80 ? "..." : "", what);
}

static int key_is(const mif_line *l, const char *key) {
  return l->key_len == strlen(key) && strncasecmp(l->key, key, l->key_len) == 0;
}

/* ---- values -------------------------------------------------------------------------- */

/* The value as a NUL-terminated copy; 0 when it is too long. */
static int value_text(const mif_line *l, char text[VALUE_MAX]) {
  if (l->value_len >= VALUE_MAX)
    return 0;
  memcpy(text, l->value, l->value_len);
  text[l->value_len] = '\0';
  return 1;
}

/* Comma-separated numbers (strtod: nan and inf are taken, the caller checks them), at
 * most cap; returns how many, or -1 when the text is not such a list. */
static int parse_numbers(const mif_line *l, double *out, int cap) {
  char text[VALUE_MAX];
  if (!value_text(l, text))
    return -1;
  int n = 0;
  for (char *p = text;; ++p) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || n == cap)
      return -1;
    while (*end == ' ' || *end == '\t')
      ++end;
    out[n++] = v;
    if (*end == '\0')
      return n;
    if (*end != ',')
      return -1;
    p = end;
  }
}

static tp_status parse_dim(const mif_line *l, tp_image_geometry *g) {
  double v[TP_IMAGE_MAX_DIMS + 1];
  int n = parse_numbers(l, v, TP_IMAGE_MAX_DIMS + 1);
  if (n > TP_IMAGE_MAX_DIMS)
    return line_error(l, "tenport reads images of at most 7 dimensions");
  if (n < 1)
    return line_error(l, "expected sizes separated by commas");
  for (int a = 0; a < n; ++a) {
    if (!(v[a] >= 1 && v[a] <= 0x1p62 && v[a] == floor(v[a])))
      return line_error(l, "each size must be a whole number from 1");
    g->dim[a] = (int64_t)v[a];
  }
  g->ndim = n;
  return TP_SUCCESS;
}

/* "+2,-0,-1": a sign (optional for +) and a rank per axis. */
static tp_status parse_layout(const mif_line *l, mif_entries *e) {
  int n = 0;
  const char *p = l->value, *end = l->value + l->value_len;
  while (p < end) {
    if (n == TP_IMAGE_MAX_DIMS)
      return line_error(l, "more axes than 7");
    e->negative[n] = *p == '-';
    if (*p == '+' || *p == '-')
      ++p;
    if (p == end || !isdigit((unsigned char)*p))
      return line_error(l, "expected a signed rank per axis, such as +0,+1,+2,+3");
    int64_t rank = 0;
    while (p < end && isdigit((unsigned char)*p) && rank < 1000)
      rank = 10 * rank + (*p++ - '0');
    e->layout[n++] = rank;
    while (p < end && (*p == ' ' || *p == '\t'))
      ++p;
    if (p < end && *p++ != ',')
      return line_error(l, "expected a signed rank per axis, such as +0,+1,+2,+3");
  }
  e->layout_count = n;
  return TP_SUCCESS;
}

static const char *const type_names[] = {"int8",   "uint8", "int16",  "uint16",  "int32",
                                         "uint32", "int64", "uint64", "float32", "float64"};

/* Int16LE, float32be, UInt8, ...: a type, then LE or BE (none: the host's order). */
static tp_status parse_type(const mif_line *l, tpi_image_data *d) {
  for (int t = TP_IMG_I8; t <= TP_IMG_F64; ++t) {
    size_t len = strlen(type_names[t]);
    if (l->value_len < len || strncasecmp(l->value, type_names[t], len) != 0)
      continue;
    const char *suffix = l->value + len;
    size_t rest = l->value_len - len;
    int big = 0, little = 0;
    if (rest == 2 && tpi_image_type_size((tpi_image_type)t) > 1) {
      big = strncasecmp(suffix, "be", 2) == 0;
      little = strncasecmp(suffix, "le", 2) == 0;
    }
    if (rest != 0 && !big && !little)
      continue;
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    d->type = (tpi_image_type)t;
    d->swap = (big && first == 1) || (little && first == 0);
    return TP_SUCCESS;
  }
  return line_error(l, "tenport reads Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, "
                       "UInt64, Float32 and Float64, each with LE or BE or neither (not Bit "
                       "or the complex types)");
}

/* "file: . OFFSET": the data in this file, OFFSET bytes from its start. */
static tp_status parse_file(const mif_line *l, tpi_image_data *d) {
  char text[VALUE_MAX], *end;
  if (!value_text(l, text))
    return line_error(l, "too long");
  if (text[0] != '.' || (text[1] != ' ' && text[1] != '\t'))
    return line_error(l, "the data are in another file (a .mih header); tenport reads "
                         "single-file .mif images, 'file: . OFFSET'");
  errno = 0;
  unsigned long long offset = strtoull(text + 2, &end, 10);
  while (*end == ' ' || *end == '\t')
    ++end;
  if (end == text + 2 || *end || errno || strchr(text + 2, '-'))
    return line_error(l, "expected '. OFFSET', OFFSET the data's byte offset");
  d->offset = offset;
  return TP_SUCCESS;
}

static tp_status parse_rows(const mif_line *l, mif_entries *e) {
  if (e->transform_rows == 3)
    return line_error(l, "the transform has three rows; this is a fourth");
  if (parse_numbers(l, e->transform[e->transform_rows], 4) != 4)
    return line_error(l, "expected a row of four numbers");
  for (int c = 0; c < 4; ++c)
    if (!isfinite(e->transform[e->transform_rows][c]))
      return line_error(l, "the transform must be finite");
  e->transform_rows++;
  return TP_SUCCESS;
}

static tp_status once(const mif_line *l, int *seen) {
  if (*seen)
    return line_error(l, "the entry was given already");
  *seen = l->number;
  return TP_SUCCESS;
}

/* One "key: value" line into the entries. */
static tp_status take_line(const mif_line *l, tp_image_geometry *g, tpi_image_data *d,
                           mif_entries *e) {
  if (key_is(l, "dim")) {
    TP_TRY(once(l, &e->dim_line));
    return parse_dim(l, g);
  }
  if (key_is(l, "vox")) {
    TP_TRY(once(l, &e->vox_line));
    e->vox_count = parse_numbers(l, e->vox, TP_IMAGE_MAX_DIMS);
    return e->vox_count > 0 ? TP_SUCCESS
                            : line_error(l, "expected voxel sizes separated by commas");
  }
  if (key_is(l, "layout")) {
    TP_TRY(once(l, &e->layout_line));
    return parse_layout(l, e);
  }
  if (key_is(l, "datatype")) {
    TP_TRY(once(l, &e->type_line));
    return parse_type(l, d);
  }
  if (key_is(l, "file")) {
    TP_TRY(once(l, &e->file_line));
    return parse_file(l, d);
  }
  if (key_is(l, "transform"))
    return parse_rows(l, e);
  if (key_is(l, "scaling")) {
    TP_TRY(once(l, &e->scaling_line));
    if (parse_numbers(l, e->scaling, 2) != 2 || !isfinite(e->scaling[0]) ||
        !isfinite(e->scaling[1]))
      return line_error(l, "expected two finite numbers, the offset and the scale");
  }
  return TP_SUCCESS; /* other keys: kept by MRtrix3, not needed here */
}

/* ---- lines --------------------------------------------------------------------------------- */

/* The header's bytes up to and including its END line; *end the offset after it. */
static tp_status peek_header(tp_input *in, const unsigned char **p, size_t *end) {
  size_t want = HEADER_FIRST, got = 0;
  for (;;) {
    TP_TRY(tpi_input_peek(in, want, p, &got));
    for (size_t i = 0; i + 3 <= got; ++i) /* "END" alone on its line, after a newline */
      if ((*p)[i] == 'E' && i > 0 && (*p)[i - 1] == '\n' && memcmp(*p + i, "END", 3) == 0) {
        size_t j = i + 3;
        while (j < got && ((*p)[j] == ' ' || (*p)[j] == '\t' || (*p)[j] == '\r'))
          ++j;
        if (j < got && (*p)[j] == '\n') {
          *end = j + 1;
          return TP_SUCCESS;
        }
      }
    if (got < want || want == HEADER_MAX)
      return TP_ERROR(TP_ERROR_FORMAT, "%s: the .mif header has no END line%s", tp_input_name(in),
                      got < want ? " (a truncated file?)" : " in its first 4 MiB");
    want *= 2;
  }
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Splits text[0, n) (one line, no newline) into key and value, the comment removed.
 * Returns 0 for an empty line, 1 for a key-value line, -1 for another line. */
static int split_line(const char *text, size_t n, mif_line *l) {
  const char *hash = (const char *)memchr(text, '#', n);
  if (hash)
    n = (size_t)(hash - text);
  while (n > 0 && is_blank(text[n - 1]))
    --n;
  while (n > 0 && is_blank(*text))
    ++text, --n;
  if (n == 0)
    return 0;
  const char *colon = (const char *)memchr(text, ':', n);
  l->key = text, l->value = text, l->key_len = n, l->value_len = n;
  if (!colon)
    return -1;
  l->key_len = (size_t)(colon - text);
  while (l->key_len > 0 && is_blank(text[l->key_len - 1]))
    --l->key_len;
  l->value = colon + 1;
  l->value_len = n - (size_t)(colon + 1 - text);
  while (l->value_len > 0 && is_blank(*l->value))
    ++l->value, --l->value_len;
  return l->key_len > 0 && l->value_len > 0 ? 1 : -1;
}

static tp_status read_lines(const char *name, const char *text, size_t size, tp_image_geometry *g,
                            tpi_image_data *d, mif_entries *e) {
  const char *line = text, *stop = text + size;
  mif_line l;
  memset(&l, 0, sizeof l);
  l.name = name;
  for (int number = 1; line < stop; ++number) {
    const char *nl = (const char *)memchr(line, '\n', (size_t)(stop - line));
    size_t n = (size_t)((nl ? nl : stop) - line);
    l.number = number;
    if (number == 1) {
      while (n > 0 && is_blank(line[n - 1]))
        --n;
      if (n != 12 || memcmp(line, "mrtrix image", 12) != 0)
        return TP_ERROR(TP_ERROR_FORMAT, "%s: the first line is not 'mrtrix image'", name);
    } else {
      int kind = split_line(line, n, &l);
      if (kind < 0 && !(l.key_len == 3 && memcmp(l.key, "END", 3) == 0))
        return TP_ERROR(TP_ERROR_FORMAT, "%s line %d: '%.*s' is not 'key: value'", name, number,
                        (int)(l.key_len < 80 ? l.key_len : 80), l.key);
      if (kind > 0)
        TP_TRY(take_line(&l, g, d, e));
    }
    line = nl ? nl + 1 : stop;
  }
  return TP_SUCCESS;
}

/* ---- the header's meaning --------------------------------------------------------------- */

static tp_status missing(const char *name, const char *key) {
  return TP_ERROR(TP_ERROR_FORMAT, "%s: the .mif header has no '%s' entry", name, key);
}

static tp_status set_layout(const char *name, const mif_entries *e, tpi_image_data *d, int ndim) {
  if (e->layout_count != ndim)
    return TP_ERROR(TP_ERROR_FORMAT, "%s line %d: the layout has %d axes, dim %d", name,
                    e->layout_line, e->layout_count, ndim);
  int seen[TP_IMAGE_MAX_DIMS] = {0};
  for (int a = 0; a < ndim; ++a) {
    if (e->layout[a] >= ndim || seen[e->layout[a]]++)
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s line %d: the layout's ranks must be 0 to %d, "
                      "each once (axis %d has rank %lld)",
                      name, e->layout_line, ndim - 1, a, (long long)e->layout[a]);
    d->order[e->layout[a]] = a;
    d->reversed[a] = e->negative[a];
  }
  return TP_SUCCESS;
}

static tp_status set_geometry(const char *name, const mif_entries *e, tp_image_geometry *g) {
  int spatial = g->ndim < 3 ? g->ndim : 3;
  if (e->vox_count < spatial)
    return TP_ERROR(TP_ERROR_FORMAT, "%s line %d: vox has %d sizes for %d dimensions", name,
                    e->vox_line, e->vox_count, g->ndim);
  for (int a = 0; a < TP_IMAGE_MAX_DIMS; ++a)
    g->vox[a] = a < e->vox_count && a < g->ndim ? e->vox[a] : a < 3 ? 1.0 : NAN;
  for (int a = 0; a < spatial; ++a)
    if (!(isfinite(g->vox[a]) && g->vox[a] >= 0))
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s line %d: the voxel size of axis %d is %g: it "
                      "must be finite and not negative",
                      name, e->vox_line, a, g->vox[a]);
  if (e->transform_rows != 0 && e->transform_rows != 3)
    return TP_ERROR(TP_ERROR_FORMAT, "%s: the transform has %d rows: it needs 3", name,
                    e->transform_rows);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      g->transform[r][c] = e->transform_rows ? e->transform[r][c] : (double)(r == c);
  g->scl_slope = e->scaling_line ? e->scaling[1] : 1.0;
  g->scl_inter = e->scaling_line ? e->scaling[0] : 0.0;
  return TP_SUCCESS;
}

tp_status tpi_mif_read_header(tp_input *in, tp_image_geometry *g, tpi_image_data *d) {
  const char *name = tp_input_name(in);
  const unsigned char *p;
  size_t end = 0;
  mif_entries e;
  memset(g, 0, sizeof *g);
  memset(d, 0, sizeof *d);
  memset(&e, 0, sizeof e);
  TP_TRY(peek_header(in, &p, &end));
  TP_TRY(read_lines(name, (const char *)p, end, g, d, &e));
  if (!e.dim_line || !e.vox_line || !e.layout_line || !e.type_line || !e.file_line)
    return missing(name, !e.dim_line      ? "dim"
                         : !e.vox_line    ? "vox"
                         : !e.layout_line ? "layout"
                         : !e.type_line   ? "datatype"
                                          : "file");
  g->format = TP_IMAGE_MIF;
  TP_TRY(set_geometry(name, &e, g));
  TP_TRY(set_layout(name, &e, d, g->ndim));
  if (d->offset < end)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s line %d: the data offset %llu lies inside the "
                    "header (it ends at byte %zu)",
                    name, e.file_line, (unsigned long long)d->offset, end);
  uint64_t size = tpi_input_remaining(in);
  if (size != UINT64_MAX && d->offset >= size)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s line %d: the data offset %llu is beyond the end of "
                    "the file (%llu bytes)",
                    name, e.file_line, (unsigned long long)d->offset, (unsigned long long)size);
  d->ndim = g->ndim;
  memcpy(d->dim, g->dim, sizeof d->dim);
  return TP_SUCCESS;
}
