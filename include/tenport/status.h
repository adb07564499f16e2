/* Status codes and the thread-local last-error message. */
#ifndef TENPORT_STATUS_H
#define TENPORT_STATUS_H

#include "tenport/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible tenport function returns one of these; 0 means success. */
typedef enum tp_status {
  TP_SUCCESS = 0,
  TP_ERROR_INVALID_ARGUMENT = 1, /* a NULL handle, a negative size, a bad option */
  TP_ERROR_OUT_OF_MEMORY = 2,    /* host or device allocation failed, or a space's memory limit */
  TP_ERROR_DEVICE = 3,           /* the GPU runtime reported an error (launch, copy, sync) */
  TP_ERROR_NOT_SUPPORTED = 4,    /* this backend or build cannot do what was asked */
  TP_ERROR_CAPACITY = 5,         /* a fixed-capacity structure (hash map) is full */
  TP_ERROR_OVERFLOW = 6,         /* an integer size or index does not fit its type */
  TP_ERROR_IO = 7,               /* a file could not be opened, read or written */
  TP_ERROR_FORMAT = 8,           /* malformed input data */
  TP_ERROR_NUMERICAL = 9,        /* non-finite values or a numerically impossible request */
  TP_ERROR_INTERNAL = 10,        /* a broken invariant inside tenport: please report it */
  TP_ERROR_CANCELLED = 11        /* the caller asked the run to stop (a cancel flag) */
} tp_status;

/* Short name of a status code ("TP_ERROR_OUT_OF_MEMORY"). */
TP_API const char *tp_status_name(tp_status status);

/* Message describing the last error raised on the calling thread, or "" if none.
 * The text names the function, the problem and the source location. */
TP_API const char *tp_last_error(void);

/* Clears the calling thread's last-error message. */
TP_API void tp_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
