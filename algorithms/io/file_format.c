/* Recognising an input's format from its first bytes: the magic numbers of the binary
 * formats and of the tensor-train manifest, gzip, and otherwise text or unknown binary
 * data (a NUL or a control character other than blanks among the first bytes). Text is
 * dense text when its first word outside comments is "tensor" (dense_text_word). */
#include <stdio.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

enum { SNIFF_BYTES = 64, WORD_SNIFF_MAX = 1 << 16 };

typedef struct magic {
  tp_file_format format;
  const char *bytes;
  size_t len;
} magic;

/* "TPCOO" alone, not the whole magic with its version: a .tpb of another version is still
 * a .tpb, and its reader says which version it found. */
static const magic magics[] = {
    {TP_FILE_NPY, "\x93NUMPY", 6},
    {TP_FILE_TPB, "TPCOO", 5},
    {TP_FILE_TCI, "tenport-tci", 11},
    {TP_FILE_GZIP, "\x1f\x8b", 2},
};

const char *tp_file_format_name(tp_file_format format) {
  switch (format) {
  case TP_FILE_NPY: return "npy";
  case TP_FILE_TPB: return "tpb";
  case TP_FILE_TCI: return "tci";
  case TP_FILE_GZIP: return "gzip";
  case TP_FILE_TEXT: return "text";
  case TP_FILE_DENSE_TEXT: return "tensor";
  case TP_FILE_EMPTY: return "empty";
  case TP_FILE_UNKNOWN: break;
  }
  return "unknown";
}

static int is_text_byte(unsigned char c) {
  return c >= 0x20 ? c != 0x7f : c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static tp_file_format classify(const unsigned char *p, size_t n) {
  if (n == 0)
    return TP_FILE_EMPTY;
  for (size_t i = 0; i < sizeof magics / sizeof magics[0]; ++i)
    if (n >= magics[i].len && memcmp(p, magics[i].bytes, magics[i].len) == 0)
      return magics[i].format;
  for (size_t i = 0; i < n; ++i)
    if (!is_text_byte(p[i]))
      return TP_FILE_UNKNOWN;
  return TP_FILE_TEXT;
}

static int is_blank_byte(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Whether the first word of text[0, n) outside comments is "tensor": 1 or 0, or -1 when
 * the text stops before that is known and more of it may follow (at_end 0). */
static int first_word_is_tensor(const unsigned char *p, size_t n, int at_end) {
  static const char word[] = "tensor";
  const size_t len = sizeof word - 1;
  size_t i = 0;
  for (;;) {
    while (i < n && (is_blank_byte(p[i]) || p[i] == '\n'))
      ++i;
    if (i == n || (p[i] == '/' && i + 1 == n))
      return at_end ? 0 : -1;
    if (p[i] == '#' || (p[i] == '/' && p[i + 1] == '/')) {
      while (i < n && p[i] != '\n')
        ++i;
      continue;
    }
    size_t k = 0;
    while (i + k < n && k < len && p[i + k] == (unsigned char)word[k])
      ++k;
    if (i + k == n)
      return at_end ? k == len : -1;
    if (k < len)
      return 0;
    unsigned char after = p[i + k];
    return is_blank_byte(after) || after == '\n' || after == '#';
  }
}

/* Text whose first word is "tensor" is dense text; the word may lie past the first
 * SNIFF_BYTES (comments), so more is looked at, up to WORD_SNIFF_MAX bytes. */
static tp_status dense_text_word(tp_input *in, const unsigned char *p, size_t got, size_t asked,
                                 tp_file_format *format) {
  int is_tensor = first_word_is_tensor(p, got, got < asked);
  while (is_tensor < 0 && asked < WORD_SNIFF_MAX) {
    asked *= 2;
    TP_TRY(tpi_input_peek(in, asked, &p, &got));
    is_tensor = first_word_is_tensor(p, got, got < asked);
  }
  if (is_tensor > 0)
    *format = TP_FILE_DENSE_TEXT;
  return TP_SUCCESS;
}

tp_status tp_input_format(tp_input *in, tp_file_format *format) {
  TP_CHECK_ARG(in && format, "in and format must not be NULL");
  const unsigned char *p;
  size_t got;
  TP_TRY(tpi_input_peek(in, SNIFF_BYTES, &p, &got));
  *format = classify(p, got);
  if (*format == TP_FILE_TEXT)
    TP_TRY(dense_text_word(in, p, got, SNIFF_BYTES, format));
  return TP_SUCCESS;
}

/* Up to 8 first bytes in hex, for a message about data of no known format. */
static void first_bytes(tp_input *in, char *text, size_t cap) {
  const unsigned char *p;
  size_t got = 0, len = 0;
  text[0] = '\0';
  if (tpi_input_peek(in, 8, &p, &got) != TP_SUCCESS)
    return;
  for (size_t i = 0; i < got && len + 4 < cap; ++i)
    len += (size_t)snprintf(text + len, cap - len, "%s%02x", i ? " " : "", p[i]);
}

static const char *what_it_is(tp_file_format found) {
  switch (found) {
  case TP_FILE_NPY: return "a NumPy .npy array";
  case TP_FILE_TPB: return "a tenport binary sparse tensor (.tpb)";
  case TP_FILE_TCI: return "a tensor-train manifest (.tci)";
  case TP_FILE_GZIP:
    return "gzip-compressed, and this tenport was built without zlib; "
           "decompress it first (zcat FILE | tenport ... --input -)";
  case TP_FILE_TEXT: return "sparse tensor text";
  case TP_FILE_DENSE_TEXT:
    return "dense tensor text (the 'tensor' format of GenTen and the "
           "Tensor Toolbox)";
  case TP_FILE_EMPTY: return "empty";
  case TP_FILE_UNKNOWN: break;
  }
  return "binary data of no format tenport reads";
}

tp_status tp_input_wrong_format(tp_input *in, tp_file_format found, const char *wanted) {
  char bytes[40] = "";
  if (found == TP_FILE_UNKNOWN)
    first_bytes(in, bytes, sizeof bytes);
  return TP_ERROR(TP_ERROR_FORMAT, "%s is %s%s%s%s, not %s", in->name, what_it_is(found),
                  *bytes ? " (it starts with bytes " : "", bytes, *bytes ? ")" : "", wanted);
}
