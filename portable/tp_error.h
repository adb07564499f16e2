/* Raising and propagating tp_status errors inside tenport. */
#ifndef TP_ERROR_H
#define TP_ERROR_H

#include "tenport/status.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Records "function: message (file:line)" as the calling thread's last error and
 * returns code, so that `return TP_ERROR(...)` both reports and propagates. */
tp_status tp_error_raise(tp_status code, const char *file, int line, const char *func,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

TP_EXTERN_C_END

#define TP_ERROR(code, ...) tp_error_raise((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* Returns from the enclosing function if expr fails; the callee already set the message. */
#define TP_TRY(expr)                   \
  do {                                 \
    tp_status tp_try_status_ = (expr); \
    if (tp_try_status_ != TP_SUCCESS)  \
      return tp_try_status_;           \
  } while (0)

/* Stores the status of expr in st and jumps to label on failure (for cleanup paths). */
#define TP_TRY_GOTO(st, expr, label) \
  do {                               \
    (st) = (expr);                   \
    if ((st) != TP_SUCCESS)          \
      goto label;                    \
  } while (0)

#define TP_CHECK_ARG(cond, ...)                                \
  do {                                                         \
    if (!(cond))                                               \
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, __VA_ARGS__); \
  } while (0)

#endif
