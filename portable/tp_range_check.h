/* Validation of kernel ranges, shared by the backends' launchers. */
#ifndef TP_RANGE_CHECK_H
#define TP_RANGE_CHECK_H

#include <stdint.h>
#include "portable/tp_error.h"

static inline tp_status tp_check_range(int64_t n, const char *kernel) {
  if (n < 0)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "kernel %s: range size %lld is negative", kernel,
                    (long long)n);
  return TP_SUCCESS;
}

static inline tp_status tp_check_range2(int64_t n0, int64_t n1, const char *kernel) {
  if (n0 < 0 || n1 < 0)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "kernel %s: negative range %lld x %lld", kernel,
                    (long long)n0, (long long)n1);
  if (n1 > 0 && n0 > INT64_MAX / n1)
    return TP_ERROR(TP_ERROR_OVERFLOW, "kernel %s: range %lld x %lld overflows 64 bits", kernel,
                    (long long)n0, (long long)n1);
  return TP_SUCCESS;
}

#endif
