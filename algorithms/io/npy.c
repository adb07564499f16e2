/* NumPy .npy files: the Python-dict header, reading from a file or a buffer, conversion
 * to C-order float64/float32, and atomic writing. Format: the magic "\x93NUMPY", a major
 * and minor version byte, a little-endian header length (u16 in 1.0, u32 in 2.0 and 3.0),
 * the header (a Python dict literal, latin-1 or, in 3.0, utf-8) and the raw data. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tenport/npy.h"
#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

enum {
  NPY_MAGIC_LEN = 6,
  NPY_PREFIX_MAX = 12,  /* magic, version and a u32 header length */
  NPY_ALIGN = 64,       /* the writer pads the preamble to a multiple of this */
  NPY_SHAPE_TEXT = 400, /* "(d0, d1, ...)" for TP_NPY_MAX_DIMS 20-digit dimensions */
  NPY_PREAMBLE_MAX = TP_NPY_PREAMBLE_MAX /* the writer's whole preamble */
};
static const unsigned char npy_magic[NPY_MAGIC_LEN] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* ---- dtypes --------------------------------------------------------------- */
typedef struct npy_dtype_info {
  char kind; /* NumPy's kind character: 'f', 'i' or 'u' */
  size_t size;
  const char *name;
} npy_dtype_info;

static const npy_dtype_info npy_dtypes[] = {
    [TP_DTYPE_F32] = {'f', 4, "float32"}, [TP_DTYPE_F64] = {'f', 8, "float64"},
    [TP_DTYPE_I8] = {'i', 1, "int8"},     [TP_DTYPE_U8] = {'u', 1, "uint8"},
    [TP_DTYPE_I32] = {'i', 4, "int32"},   [TP_DTYPE_I64] = {'i', 8, "int64"},
    [TP_DTYPE_U32] = {'u', 4, "uint32"},  [TP_DTYPE_U64] = {'u', 8, "uint64"},
};
enum { NPY_DTYPE_COUNT = (int)(sizeof npy_dtypes / sizeof npy_dtypes[0]) };

static int dtype_valid(tp_dtype d) { return (unsigned)d < (unsigned)NPY_DTYPE_COUNT; }

size_t tp_dtype_size(tp_dtype d) { return dtype_valid(d) ? npy_dtypes[d].size : 0; }

const char *tp_dtype_name(tp_dtype d) { return dtype_valid(d) ? npy_dtypes[d].name : "unknown"; }

static int host_is_little(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* Reverses the bytes of each of count elements of size bytes. */
static void swap_bytes(unsigned char *p, int64_t count, size_t size) {
  for (int64_t i = 0; i < count; ++i, p += size)
    for (size_t a = 0, b = size - 1; a < b; ++a, --b) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

/* ---- shapes --------------------------------------------------------------- */
/* count = prod(shape) and its size in bytes; returns 0 if either overflows. A zero
 * dimension makes the count 0 whatever the others are. */
static int shape_size(int ndim, const int64_t *shape, size_t elem, int64_t *count, size_t *nbytes) {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i)
    if (shape[i] == 0)
      n = 0;
  for (int i = 0; i < ndim && n > 0; ++i) {
    if (n > INT64_MAX / shape[i])
      return 0;
    n *= shape[i];
  }
  if ((uint64_t)n > SIZE_MAX / elem || n > INT64_MAX / (int64_t)elem)
    return 0;
  *count = n;
  *nbytes = (size_t)n * elem;
  return 1;
}

/* The shape as Python writes a tuple: "(2, 3)", "(5,)" or "()". */
static void format_shape(int ndim, const int64_t *shape, char buf[NPY_SHAPE_TEXT]) {
  size_t n = 1;
  buf[0] = '(';
  for (int i = 0; i < ndim; ++i)
    n +=
        (size_t)snprintf(buf + n, NPY_SHAPE_TEXT - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
  snprintf(buf + n, NPY_SHAPE_TEXT - n, ndim == 1 ? ",)" : ")");
}

/* ---- header parsing --------------------------------------------------------- */
/* What a header describes. */
typedef struct npy_layout {
  tp_dtype dtype;
  int swap; /* the file's byte order is not the host's */
  int fortran_order;
  int ndim;
  int64_t shape[TP_NPY_MAX_DIMS];
  int64_t count;
  size_t nbytes;
} npy_layout;

/* A position in the header text; every read checks it against end. */
typedef struct npy_cursor {
  const char *p, *end, *start;
  const char *name; /* the file, for messages */
} npy_cursor;

/* Copies up to cap - 1 bytes of s for a message, non-printable bytes as '?'. */
static const char *printable(const char *s, size_t n, char *buf, size_t cap) {
  size_t i = 0;
  for (; i < n && i + 1 < cap; ++i)
    buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
  buf[i] = '\0';
  return buf;
}

static tp_status header_error(const npy_cursor *c, const char *expected) {
  char found[32] = "the end of the header";
  if (c->p < c->end) {
    found[0] = '"';
    printable(c->p, (size_t)(c->end - c->p), found + 1, 25);
    strcat(found, "\"");
  }
  return TP_ERROR(TP_ERROR_FORMAT, "%s: malformed header at byte %zu: expected %s, found %s",
                  c->name, (size_t)(c->p - c->start), expected, found);
}

static void skip_space(npy_cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    ++c->p;
}

static int peek(const npy_cursor *c, char ch) { return c->p < c->end && *c->p == ch; }

static int accept(npy_cursor *c, char ch) {
  if (!peek(c, ch))
    return 0;
  ++c->p;
  return 1;
}

static int is_digit(const npy_cursor *c) { return c->p < c->end && *c->p >= '0' && *c->p <= '9'; }

/* A quoted string, either quote; no escapes, which no valid key or descr contains. */
static tp_status parse_string(npy_cursor *c, const char **s, size_t *len, const char *what) {
  if (!peek(c, '\'') && !peek(c, '"'))
    return header_error(c, what);
  char quote = *c->p++;
  const char *begin = c->p;
  while (c->p < c->end && *c->p != quote)
    ++c->p;
  if (c->p == c->end)
    return header_error(c, "a closing quote");
  *s = begin;
  *len = (size_t)(c->p++ - begin);
  return TP_SUCCESS;
}

/* Maps '<f8', '>i4', '|u1', '=u8'... to a dtype; returns 0 for any other descr. NumPy's
 * bool ('|b1': one byte, 0 or 1) is read as uint8. */
static int descr_lookup(const char *s, size_t len, npy_layout *l) {
  if (len != 3 || s[2] < '1' || s[2] > '8')
    return 0;
  if (s[1] == 'b' && s[2] == '1' && memchr("<>=|", s[0], 4)) {
    l->dtype = TP_DTYPE_U8, l->swap = 0;
    return 1;
  }
  for (int d = 0; d < NPY_DTYPE_COUNT; ++d) {
    if (npy_dtypes[d].kind != s[1] || npy_dtypes[d].size != (size_t)(s[2] - '0'))
      continue;
    int one_byte = npy_dtypes[d].size == 1;
    /* '|' (byte order not applicable) on a wider type is read as numpy reads it: native */
    if (!memchr("<>=|", s[0], 4))
      return 0;
    l->dtype = (tp_dtype)d;
    l->swap = !one_byte && (s[0] == '<' || s[0] == '>') && (s[0] == '<') != host_is_little();
    return 1;
  }
  return 0;
}

static tp_status parse_descr(npy_cursor *c, npy_layout *l) {
  char text[48];
  if (peek(c, '['))
    return TP_ERROR(TP_ERROR_FORMAT, "%s: unsupported descr %s...: structured dtypes are not read",
                    c->name, printable(c->p, (size_t)(c->end - c->p), text, 24));
  const char *s = NULL;
  size_t len = 0;
  TP_TRY(parse_string(c, &s, &len, "a quoted descr"));
  if (descr_lookup(s, len, l))
    return TP_SUCCESS;
  return TP_ERROR(TP_ERROR_FORMAT, "%s: unsupported descr '%s' (%s are read)", c->name,
                  printable(s, len, text, sizeof text),
                  "float32/64, int8/32/64, uint8/32/64 and bool");
}

static tp_status parse_bool(npy_cursor *c, int *value) {
  static const char *const words[2] = {"False", "True"};
  for (int v = 0; v < 2; ++v) {
    size_t n = strlen(words[v]);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, words[v], n) == 0) {
      c->p += n;
      *value = v;
      return TP_SUCCESS;
    }
  }
  return header_error(c, "True or False");
}

static tp_status parse_dim(npy_cursor *c, int64_t *dim) {
  if (!is_digit(c))
    return header_error(c, "a non-negative dimension");
  const char *first = c->p;
  int64_t v = 0;
  for (; is_digit(c); ++c->p) {
    int digit = *c->p - '0';
    if (v > (INT64_MAX - digit) / 10) {
      while (is_digit(c))
        ++c->p;
      char text[32];
      return TP_ERROR(TP_ERROR_OVERFLOW, "%s: dimension %s does not fit in int64", c->name,
                      printable(first, (size_t)(c->p - first), text, sizeof text));
    }
    v = v * 10 + digit;
  }
  accept(c, 'L'); /* Python 2 wrote long integers as 3L */
  *dim = v;
  return TP_SUCCESS;
}

/* "()", "(5,)", "(2, 3)", with any spacing and an optional trailing comma. */
static tp_status parse_shape(npy_cursor *c, npy_layout *l) {
  if (!accept(c, '('))
    return header_error(c, "a shape tuple");
  for (l->ndim = 0;;) {
    skip_space(c);
    if (accept(c, ')'))
      return TP_SUCCESS;
    if (l->ndim == TP_NPY_MAX_DIMS)
      return TP_ERROR(TP_ERROR_FORMAT, "%s: the shape has more than %d dimensions", c->name,
                      TP_NPY_MAX_DIMS);
    TP_TRY(parse_dim(c, &l->shape[l->ndim++]));
    skip_space(c);
    if (!accept(c, ',') && !peek(c, ')'))
      return header_error(c, "',' or ')' in the shape");
  }
}

enum { KEY_DESCR, KEY_FORTRAN_ORDER, KEY_SHAPE, KEY_COUNT };
static const char *const npy_keys[KEY_COUNT] = {"descr", "fortran_order", "shape"};

/* One "'key': value" of the dict. */
static tp_status parse_entry(npy_cursor *c, npy_layout *l, int seen[KEY_COUNT]) {
  const char *s = NULL;
  size_t len = 0;
  TP_TRY(parse_string(c, &s, &len, "a quoted key or '}'"));
  int key = 0;
  while (key < KEY_COUNT && !(strlen(npy_keys[key]) == len && !memcmp(s, npy_keys[key], len)))
    ++key;
  char text[48];
  if (key == KEY_COUNT)
    return TP_ERROR(TP_ERROR_FORMAT, "%s: unexpected key '%s' in the header", c->name,
                    printable(s, len, text, sizeof text));
  if (seen[key]++)
    return TP_ERROR(TP_ERROR_FORMAT, "%s: key '%s' appears twice in the header", c->name,
                    npy_keys[key]);
  skip_space(c);
  if (!accept(c, ':'))
    return header_error(c, "':' after the key");
  skip_space(c);
  if (key == KEY_DESCR)
    return parse_descr(c, l);
  if (key == KEY_FORTRAN_ORDER)
    return parse_bool(c, &l->fortran_order);
  return parse_shape(c, l);
}

/* Parses the header dict (len bytes, not NUL-terminated) and sizes the data. */
static tp_status parse_header(const char *text, size_t len, const char *name, npy_layout *l) {
  npy_cursor c = {text, text + len, text, name};
  int seen[KEY_COUNT] = {0};
  memset(l, 0, sizeof *l);
  skip_space(&c);
  if (!accept(&c, '{'))
    return header_error(&c, "'{'");
  for (;;) {
    skip_space(&c);
    if (accept(&c, '}'))
      break;
    TP_TRY(parse_entry(&c, l, seen));
    skip_space(&c);
    if (!accept(&c, ',') && !peek(&c, '}'))
      return header_error(&c, "',' or '}'");
  }
  skip_space(&c); /* the padding */
  if (c.p != c.end)
    return header_error(&c, "only spaces after '}'");
  for (int k = 0; k < KEY_COUNT; ++k)
    if (!seen[k])
      return TP_ERROR(TP_ERROR_FORMAT, "%s: the header has no '%s' key", name, npy_keys[k]);
  if (!shape_size(l->ndim, l->shape, npy_dtypes[l->dtype].size, &l->count, &l->nbytes)) {
    char shape[NPY_SHAPE_TEXT];
    format_shape(l->ndim, l->shape, shape);
    return TP_ERROR(TP_ERROR_OVERFLOW, "%s: the size of shape %s of %s overflows", name, shape,
                    npy_dtypes[l->dtype].name);
  }
  return TP_SUCCESS;
}

/* Checks the magic and version in the first n bytes and reads the header length. */
static tp_status parse_prefix(const unsigned char *p, size_t n, const char *name,
                              size_t *prefix_len, size_t *header_len) {
  if (memcmp(p, npy_magic, n < NPY_MAGIC_LEN ? n : NPY_MAGIC_LEN) != 0)
    return TP_ERROR(TP_ERROR_FORMAT, "%s is not a .npy file: bad magic (expected \\x93NUMPY)",
                    name);
  if (n < NPY_MAGIC_LEN + 2)
    return TP_ERROR(TP_ERROR_FORMAT, "%s: truncated: %zu bytes, too short for a .npy preamble",
                    name, n);
  int major = p[6], minor = p[7];
  if (major < 1 || major > 3 || minor != 0)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: unsupported .npy version %d.%d (1.0, 2.0 and 3.0 are read)", name, major,
                    minor);
  *prefix_len = major == 1 ? 10 : 12;
  if (n < *prefix_len)
    return TP_ERROR(TP_ERROR_FORMAT, "%s: truncated header: the file ends in the header length",
                    name);
  *header_len = (size_t)p[8] | (size_t)p[9] << 8;
  if (major > 1)
    *header_len |= (size_t)p[10] << 16 | (size_t)p[11] << 24;
  return TP_SUCCESS;
}

static tp_status truncated_header(const char *name, size_t expected, size_t found) {
  return TP_ERROR(TP_ERROR_FORMAT, "%s: truncated header: expected %zu bytes, found %zu", name,
                  expected, found);
}

static tp_status truncated_data(const char *name, size_t expected, size_t found) {
  return TP_ERROR(TP_ERROR_FORMAT, "%s: truncated data: expected %zu bytes of data, found %zu",
                  name, expected, found);
}

static tp_status alloc_data(const char *name, size_t nbytes, void **data) {
  *data = malloc(nbytes ? nbytes : 1); /* non-NULL even for a zero-size array */
  if (!*data)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes for the data", name,
                    nbytes);
  return TP_SUCCESS;
}

/* Moves a parsed array into out, in the host's byte order. */
static void fill_array(const npy_layout *l, void *data, tp_npy_array *out) {
  if (l->swap)
    swap_bytes(data, l->count, npy_dtypes[l->dtype].size);
  out->dtype = l->dtype;
  out->ndim = l->ndim;
  memcpy(out->shape, l->shape, sizeof l->shape);
  out->fortran_order = l->fortran_order;
  out->count = l->count;
  out->data = data;
}

/* ---- reading ---------------------------------------------------------------- */
/* Every reader goes through a tp_input: the preamble is looked at without consuming it,
 * so that tp_npy_peek_header leaves the input as it was, and a pipe is read once. */

static tp_status header_too_long(const char *name, size_t header_len) {
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s: the header claims %zu bytes; tenport reads headers of "
                  "at most %d bytes",
                  name, header_len, TP_INPUT_PEEK_MAX - NPY_PREFIX_MAX);
}

/* Parses the preamble at the input's position; *start receives its length. */
static tp_status peek_layout(tp_input *in, npy_layout *l, size_t *start) {
  const unsigned char *p;
  size_t got, prefix_len = 0, header_len = 0;
  TP_TRY(tpi_input_peek(in, NPY_PREFIX_MAX, &p, &got));
  TP_TRY(parse_prefix(p, got, in->name, &prefix_len, &header_len));
  uint64_t avail = tpi_input_remaining(in);
  if (avail != UINT64_MAX && header_len > avail - prefix_len)
    return truncated_header(in->name, header_len, (size_t)(avail - prefix_len));
  if (header_len > (size_t)TP_INPUT_PEEK_MAX - prefix_len)
    return header_too_long(in->name, header_len);
  TP_TRY(tpi_input_peek(in, prefix_len + header_len, &p, &got));
  if (got < prefix_len + header_len)
    return truncated_header(in->name, header_len, got - prefix_len);
  TP_TRY(parse_header((const char *)p + prefix_len, header_len, in->name, l));
  *start = prefix_len + header_len;
  return TP_SUCCESS;
}

static tp_status skip(tp_input *in, size_t n) {
  unsigned char buf[256];
  while (n > 0) {
    size_t take = n < sizeof buf ? n : sizeof buf, got;
    TP_TRY(tpi_input_read(in, buf, take, &got));
    if (got < take)
      return TP_ERROR(TP_ERROR_INTERNAL, "%s: %zu bytes looked at could not be read", in->name,
                      take);
    n -= take;
  }
  return TP_SUCCESS;
}

static tp_status read_data(tp_input *in, const npy_layout *l, void **data) {
  uint64_t avail = tpi_input_remaining(in);
  if (avail != UINT64_MAX && l->nbytes > avail)
    return truncated_data(in->name, l->nbytes, (size_t)avail);
  TP_TRY(alloc_data(in->name, l->nbytes, data));
  size_t got;
  tp_status st = tpi_input_read(in, *data, l->nbytes, &got);
  if (st == TP_SUCCESS && got < l->nbytes)
    st = truncated_data(in->name, l->nbytes, got);
  if (st != TP_SUCCESS) {
    free(*data);
    *data = NULL;
  }
  return st;
}

tp_status tp_npy_peek_header(tp_input *in, tp_npy_header *h) {
  TP_CHECK_ARG(in && h, "in and h must not be NULL");
  memset(h, 0, sizeof *h);
  npy_layout l;
  size_t start;
  TP_TRY(peek_layout(in, &l, &start));
  h->dtype = l.dtype, h->ndim = l.ndim, h->fortran_order = l.fortran_order;
  memcpy(h->shape, l.shape, sizeof l.shape);
  h->count = l.count;
  h->data_offset = in->consumed + start;
  h->byte_swapped = l.swap;
  return TP_SUCCESS;
}

tp_status tp_npy_read_input(tp_input *in, tp_npy_array *out) {
  TP_CHECK_ARG(out, "out is NULL");
  memset(out, 0, sizeof *out);
  TP_CHECK_ARG(in, "in is NULL");
  npy_layout l;
  size_t start;
  void *data = NULL;
  TP_TRY(peek_layout(in, &l, &start));
  TP_TRY(skip(in, start));
  TP_TRY(read_data(in, &l, &data));
  fill_array(&l, data, out);
  return TP_SUCCESS;
}

tp_status tp_npy_read_buffer(const void *bytes, size_t size, tp_npy_array *out) {
  TP_CHECK_ARG(out, "out is NULL");
  memset(out, 0, sizeof *out);
  TP_CHECK_ARG(bytes || size == 0, "bytes is NULL but size is %zu", size);
  tp_input in;
  tpi_input_init_buffer(&in, "npy buffer", bytes, size);
  tp_status st = tp_npy_read_input(&in, out);
  tpi_input_release(&in);
  return st;
}

tp_status tp_npy_read(const char *path, tp_npy_array *out) {
  TP_CHECK_ARG(out, "out is NULL");
  memset(out, 0, sizeof *out);
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = tp_npy_read_input(in, out);
  tp_input_close(&in);
  return st;
}

void tp_npy_free(tp_npy_array *a) {
  if (!a)
    return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

/* ---- conversion ------------------------------------------------------------- */
static double load_f64(const void *data, tp_dtype dtype, int64_t i);

void tpi_npy_decode(const void *raw, tp_dtype dtype, int swap, int64_t n, tp_dtype to, void *out) {
  const size_t size = npy_dtypes[dtype].size;
  for (int64_t i = 0; i < n; ++i) {
    unsigned char e[8];
    memcpy(e, (const unsigned char *)raw + (size_t)i * size, size);
    if (swap)
      swap_bytes(e, 1, size);
    double v = load_f64(e, dtype, 0);
    if (to == TP_DTYPE_F32)
      ((float *)out)[i] = (float)v;
    else
      ((double *)out)[i] = v;
  }
}

static double load_f64(const void *data, tp_dtype dtype, int64_t i) {
  switch (dtype) {
  case TP_DTYPE_F32: return ((const float *)data)[i];
  case TP_DTYPE_F64: return ((const double *)data)[i];
  case TP_DTYPE_I8: return ((const int8_t *)data)[i];
  case TP_DTYPE_U8: return ((const uint8_t *)data)[i];
  case TP_DTYPE_I32: return ((const int32_t *)data)[i];
  case TP_DTYPE_I64: return (double)((const int64_t *)data)[i];
  case TP_DTYPE_U32: return ((const uint32_t *)data)[i];
  case TP_DTYPE_U64: return (double)((const uint64_t *)data)[i];
  }
  return 0;
}

/* Converts a's elements to float64 or float32 in C order. Fortran-order data is visited
 * with a C-order index (last dimension fastest) that tracks its Fortran offset. */
void tpi_npy_c_order(const tp_npy_array *a, void *dst, int to_f32) {
  int n = a->fortran_order && a->count > 0 ? a->ndim : 0; /* 0: read straight through */
  int64_t index[TP_NPY_MAX_DIMS] = {0}, stride[TP_NPY_MAX_DIMS];
  for (int k = 0; k < n; ++k)
    stride[k] = k == 0 ? 1 : stride[k - 1] * a->shape[k - 1];
  int64_t src = 0;
  for (int64_t c = 0; c < a->count; ++c) {
    double v = load_f64(a->data, a->dtype, n ? src : c);
    if (to_f32)
      ((float *)dst)[c] = (float)v;
    else
      ((double *)dst)[c] = v;
    for (int k = n - 1; k >= 0; --k) {
      src += stride[k];
      if (++index[k] < a->shape[k])
        break;
      src -= stride[k] * a->shape[k];
      index[k] = 0;
    }
  }
}

static tp_status read_converted(tp_input *in, int required_ndim, tp_dtype to, tp_npy_array *out) {
  TP_CHECK_ARG(out, "out is NULL");
  memset(out, 0, sizeof *out);
  TP_CHECK_ARG(required_ndim >= -1 && required_ndim <= TP_NPY_MAX_DIMS,
               "required_ndim %d is outside [-1, %d]", required_ndim, TP_NPY_MAX_DIMS);
  tp_npy_array a;
  TP_TRY(tp_npy_read_input(in, &a));
  if (required_ndim >= 0 && a.ndim != required_ndim) {
    int ndim = a.ndim;
    tp_npy_free(&a);
    return TP_ERROR(TP_ERROR_FORMAT, "%s holds a %d-dimensional array, expected %d dimensions",
                    in->name, ndim, required_ndim);
  }
  size_t size = npy_dtypes[to].size;
  if (a.dtype != to || (a.fortran_order && a.ndim > 1)) {
    void *dst = NULL;
    if ((uint64_t)a.count <= SIZE_MAX / size)
      dst = malloc(a.count ? (size_t)a.count * size : 1);
    if (!dst) {
      tp_npy_free(&a);
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the %s copy of %lld elements",
                      in->name, npy_dtypes[to].name, (long long)a.count);
    }
    tpi_npy_c_order(&a, dst, to == TP_DTYPE_F32);
    free(a.data);
    a.data = dst;
    a.dtype = to;
  }
  a.fortran_order = 0;
  *out = a;
  return TP_SUCCESS;
}

tp_status tp_npy_read_converted_input(tp_input *in, tp_dtype to, int required_ndim,
                                      tp_npy_array *out) {
  TP_CHECK_ARG(to == TP_DTYPE_F32 || to == TP_DTYPE_F64, "to is %s, not float32 or float64",
               tp_dtype_name(to));
  return read_converted(in, required_ndim, to, out);
}

static tp_status read_converted_path(const char *path, int required_ndim, tp_dtype to,
                                     tp_npy_array *out) {
  TP_CHECK_ARG(out, "out is NULL");
  memset(out, 0, sizeof *out);
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = read_converted(in, required_ndim, to, out);
  tp_input_close(&in);
  return st;
}

tp_status tp_npy_read_f64(const char *path, int required_ndim, tp_npy_array *out) {
  return read_converted_path(path, required_ndim, TP_DTYPE_F64, out);
}

tp_status tp_npy_read_f32(const char *path, int required_ndim, tp_npy_array *out) {
  return read_converted_path(path, required_ndim, TP_DTYPE_F32, out);
}

/* ---- writing ---------------------------------------------------------------- */
/* Magic, version, header length and the dict padded with spaces and a final '\n' to a
 * multiple of NPY_ALIGN bytes (so the data can be memory-mapped aligned). Returns its
 * length. */
size_t tpi_npy_preamble(tp_dtype dtype, int ndim, const int64_t *shape, int fortran,
                        char buf[NPY_PREAMBLE_MAX]) {
  char shape_text[NPY_SHAPE_TEXT], dict[NPY_SHAPE_TEXT + 64];
  const npy_dtype_info *t = &npy_dtypes[dtype];
  format_shape(ndim, shape, shape_text);
  size_t len = (size_t)snprintf(
      dict, sizeof dict, "{'descr': '%c%c%zu', 'fortran_order': %s, 'shape': %s, }",
      t->size == 1 ? '|' : '<', t->kind, t->size, fortran ? "True" : "False", shape_text);
  int major = len + NPY_ALIGN > 65535 ? 2 : 1; /* 2.0 only for headers over a u16 */
  size_t prefix = major == 1 ? 10 : 12;
  size_t total = (prefix + len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
  size_t header_len = total - prefix;
  memcpy(buf, npy_magic, NPY_MAGIC_LEN);
  buf[6] = (char)major;
  buf[7] = 0;
  for (size_t i = 8; i < prefix; ++i)
    buf[i] = (char)(header_len >> 8 * (i - 8) & 0xff);
  memcpy(buf + prefix, dict, len);
  memset(buf + prefix + len, ' ', total - prefix - len - 1);
  buf[total - 1] = '\n';
  return total;
}

/* Writes count elements little-endian, through a small swapped copy on big-endian hosts. */
static void write_data(tpi_output *f, const void *data, int64_t count, size_t size) {
  if (size == 1 || host_is_little()) {
    tpi_output_write(f, data, (size_t)count * size);
    return;
  }
  unsigned char chunk[4096];
  const unsigned char *p = data;
  int64_t per = (int64_t)(sizeof chunk / size);
  for (int64_t done = 0; done < count && !tpi_output_failed(f); done += per) {
    int64_t n = count - done < per ? count - done : per;
    memcpy(chunk, p + (size_t)done * size, (size_t)n * size);
    swap_bytes(chunk, n, size);
    tpi_output_write(f, chunk, (size_t)n * size);
  }
}

void tpi_npy_to_little(void *bytes, int64_t count, size_t size) {
  if (size > 1 && !host_is_little())
    swap_bytes((unsigned char *)bytes, count, size);
}

/* An array to write, checked. */
typedef struct npy_out {
  tp_dtype dtype;
  int ndim, fortran_order;
  const int64_t *shape;
  const void *data;
  int64_t count;
} npy_out;

static tp_status write_array(tpi_output *f, const void *what) {
  const npy_out *a = (const npy_out *)what;
  char preamble[NPY_PREAMBLE_MAX];
  size_t len = tpi_npy_preamble(a->dtype, a->ndim, a->shape, a->fortran_order != 0, preamble);
  tpi_output_write(f, preamble, len);
  write_data(f, a->data, a->count, npy_dtypes[a->dtype].size);
  return TP_SUCCESS;
}

static tp_status check_array(const char *path, tp_dtype dtype, int ndim, const int64_t *shape,
                             int fortran_order, const void *data, npy_out *a) {
  TP_CHECK_ARG(path && *path, "path is NULL or empty");
  TP_CHECK_ARG(dtype_valid(dtype), "dtype %d is not a tp_dtype", (int)dtype);
  TP_CHECK_ARG(ndim >= 0 && ndim <= TP_NPY_MAX_DIMS, "%s: ndim %d is outside [0, %d]", path, ndim,
               TP_NPY_MAX_DIMS);
  TP_CHECK_ARG(shape || ndim == 0, "shape is NULL");
  for (int i = 0; i < ndim; ++i)
    TP_CHECK_ARG(shape[i] >= 0, "shape[%d] is negative (%lld)", i, (long long)shape[i]);
  size_t nbytes, size = npy_dtypes[dtype].size;
  if (!shape_size(ndim, shape, size, &a->count, &nbytes)) {
    char text[NPY_SHAPE_TEXT];
    format_shape(ndim, shape, text);
    return TP_ERROR(TP_ERROR_OVERFLOW, "%s: the size of shape %s of %s overflows", path, text,
                    npy_dtypes[dtype].name);
  }
  TP_CHECK_ARG(data || a->count == 0, "data is NULL for %lld elements", (long long)a->count);
  a->dtype = dtype, a->ndim = ndim, a->shape = shape, a->fortran_order = fortran_order;
  a->data = data;
  return TP_SUCCESS;
}

tp_status tp_npy_write_to(tp_output_set *set, const char *path, tp_dtype dtype, int ndim,
                          const int64_t *shape, int fortran_order, const void *data) {
  TP_CHECK_ARG(set, "set is NULL");
  npy_out a;
  TP_TRY(check_array(path, dtype, ndim, shape, fortran_order, data, &a));
  return tpi_output_write_in(set, path, write_array, &a);
}

tp_status tp_npy_write(const char *path, tp_dtype dtype, int ndim, const int64_t *shape,
                       int fortran_order, const void *data) {
  npy_out a;
  TP_TRY(check_array(path, dtype, ndim, shape, fortran_order, data, &a));
  return tpi_output_write_one(path, write_array, &a);
}
