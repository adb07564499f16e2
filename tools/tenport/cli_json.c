/* The commands' JSON documents (cli_json.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_json.h"
#include "tenport/status.h"

static void append(tenport_json *j, const char *fmt, ...) {
  if (j->failed)
    return;
  if (!j->text) { /* vsnprintf(NULL + 0, 0, ...) would add an offset to NULL */
    j->text = (char *)malloc(256);
    if (!j->text) {
      j->failed = 1;
      return;
    }
    j->cap = 256, j->len = 0;
  }
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(j->text + j->len, j->cap - j->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      j->failed = 1;
      return;
    }
    if ((size_t)n < j->cap - j->len) {
      j->len += (size_t)n;
      return;
    }
    size_t cap = j->cap * 2 + (size_t)n + 64;
    char *grown = (char *)realloc(j->text, cap);
    if (!grown) {
      j->failed = 1;
      return;
    }
    j->text = grown, j->cap = cap;
  }
}

static void quoted(tenport_json *j, const char *s) {
  append(j, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    if (*p == '"' || *p == '\\')
      append(j, "\\%c", *p);
    else if (*p < 0x20)
      append(j, "\\u%04x", *p);
    else
      append(j, "%c", *p);
  }
  append(j, "\"");
}

/* The separator, indentation and key before a value at the current level. */
static void member(tenport_json *j, const char *key) {
  append(j, "%s\n%*s", j->items[j->depth] ? "," : "", 2 * (j->depth + 1), "");
  ++j->items[j->depth];
  if (key) {
    quoted(j, key);
    append(j, ": ");
  }
}

void tenport_json_begin(tenport_json *j) {
  memset(j, 0, sizeof *j);
  append(j, "{");
}

void tenport_json_free(tenport_json *j) {
  free(j->text);
  memset(j, 0, sizeof *j);
}

static void open_level(tenport_json *j, const char *key, char opener, char closer) {
  member(j, key);
  append(j, "%c", opener);
  if (j->depth + 1 >= TENPORT_JSON_MAX_DEPTH) {
    j->failed = 1;
    return;
  }
  j->items[++j->depth] = 0;
  j->closer[j->depth] = closer;
}

void tenport_json_object(tenport_json *j, const char *key) { open_level(j, key, '{', '}'); }

void tenport_json_array(tenport_json *j, const char *key) { open_level(j, key, '[', ']'); }

void tenport_json_end(tenport_json *j) {
  if (j->failed || j->depth == 0)
    return;
  char c = j->closer[j->depth];
  --j->depth;
  append(j, "%s%*s%c", j->items[j->depth + 1] ? "\n" : "",
         j->items[j->depth + 1] ? 2 * (j->depth + 1) : 0, "", c);
}

void tenport_json_string(tenport_json *j, const char *key, const char *value) {
  member(j, key);
  if (value)
    quoted(j, value);
  else
    append(j, "null");
}

void tenport_json_number(tenport_json *j, const char *key, double value) {
  member(j, key);
  if (isfinite(value))
    append(j, "%.17g", value);
  else
    append(j, "null");
}

void tenport_json_integer(tenport_json *j, const char *key, long long value) {
  member(j, key);
  append(j, "%lld", value);
}

void tenport_json_bool(tenport_json *j, const char *key, int value) {
  member(j, key);
  append(j, "%s", value ? "true" : "false");
}

/* The document closed: every level ended, then the top's brace. */
static void close_all(tenport_json *j) {
  while (j->depth > 0 && !j->failed)
    tenport_json_end(j);
  append(j, "\n}\n");
}

tp_status tenport_json_print(tenport_json *j, FILE *out) {
  close_all(j);
  if (j->failed) {
    fprintf(stderr, "tenport: out of host memory while building the JSON summary\n");
    return TP_ERROR_OUT_OF_MEMORY;
  }
  fwrite(j->text, 1, j->len, out);
  fflush(out);
  return TP_SUCCESS;
}

tp_status tenport_json_write(tenport_json *j, tp_output_set *set, const char *path) {
  close_all(j);
  if (j->failed) { /* the library's message would be another's: say it here */
    fprintf(stderr, "tenport: out of host memory while building %s\n", path);
    tp_clear_error();
    return TP_ERROR_OUT_OF_MEMORY;
  }
  return tp_output_set_write(set, path, j->text, j->len);
}
