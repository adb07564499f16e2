/* The thread-local last-error message behind tp_last_error(). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "portable/tp_error.h"

/* Room for messages that name two paths of PATH_MAX (4096) bytes and an errno text. */
enum { TP_ERROR_MESSAGE_BYTES = 16384 };

static _Thread_local char tp_last_error_message[TP_ERROR_MESSAGE_BYTES];

static const char *tp_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

tp_status tp_error_raise(tp_status code, const char *file, int line, const char *func,
                         const char *fmt, ...) {
  char detail[TP_ERROR_MESSAGE_BYTES - 256]; /* the rest: function, code and location */
  va_list args;
  va_start(args, fmt);
  vsnprintf(detail, sizeof detail, fmt, args);
  va_end(args);
  snprintf(tp_last_error_message, sizeof tp_last_error_message, "%s: %s [%s] (%s:%d)", func, detail,
           tp_status_name(code), tp_basename(file), line);
  return code;
}

const char *tp_last_error(void) { return tp_last_error_message; }

void tp_clear_error(void) { tp_last_error_message[0] = '\0'; }

const char *tp_status_name(tp_status status) {
  switch (status) {
  case TP_SUCCESS: return "TP_SUCCESS";
  case TP_ERROR_INVALID_ARGUMENT: return "TP_ERROR_INVALID_ARGUMENT";
  case TP_ERROR_OUT_OF_MEMORY: return "TP_ERROR_OUT_OF_MEMORY";
  case TP_ERROR_DEVICE: return "TP_ERROR_DEVICE";
  case TP_ERROR_NOT_SUPPORTED: return "TP_ERROR_NOT_SUPPORTED";
  case TP_ERROR_CAPACITY: return "TP_ERROR_CAPACITY";
  case TP_ERROR_OVERFLOW: return "TP_ERROR_OVERFLOW";
  case TP_ERROR_IO: return "TP_ERROR_IO";
  case TP_ERROR_FORMAT: return "TP_ERROR_FORMAT";
  case TP_ERROR_NUMERICAL: return "TP_ERROR_NUMERICAL";
  case TP_ERROR_INTERNAL: return "TP_ERROR_INTERNAL";
  case TP_ERROR_CANCELLED: return "TP_ERROR_CANCELLED";
  }
  return "TP_ERROR_UNKNOWN";
}
