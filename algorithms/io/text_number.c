/* Numbers in text files (.tns values, dense text), read as strtod and strtof read them,
 * and written so that they read back exactly. Short decimals (an integer mantissa of at
 * most 2^53 times a power of ten exact in a double) are read by hand: one correctly
 * rounded multiplication or division then gives strtod's value (and strtof's, see
 * exact_decimal); strtod and strtof take every other spelling. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/io/tp_io_internal.h"

enum { MAX_DIGITS = 400 /* leading zeros included */ };

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* [+-]digits[.digits][(e|E)[+-]digits] whose digits fit in a uint64 mantissa: sets the
 * mantissa, the power of ten and the sign, and returns the end; NULL for anything else. */
static const char *scan_decimal(const char *p, const char *end, uint64_t *mantissa, int *exp10,
                                int *negative) {
  *negative = p < end && *p == '-';
  if (p < end && (*p == '-' || *p == '+'))
    ++p;
  uint64_t m = 0;
  int e = 0, digits = 0;
  for (; p < end && is_digit(*p); ++p, ++digits) {
    if (m > (UINT64_MAX - 9) / 10 || digits > MAX_DIGITS)
      return NULL;
    m = m * 10 + (uint64_t)(*p - '0');
  }
  if (p < end && *p == '.')
    for (++p; p < end && is_digit(*p); ++p, ++digits, --e) {
      if (m > (UINT64_MAX - 9) / 10 || digits > MAX_DIGITS)
        return NULL;
      m = m * 10 + (uint64_t)(*p - '0');
    }
  if (digits == 0)
    return NULL;
  if (p < end && (*p == 'e' || *p == 'E')) {
    int sign = 1, x = 0;
    ++p;
    if (p < end && (*p == '-' || *p == '+'))
      sign = *p++ == '-' ? -1 : 1;
    if (p == end || !is_digit(*p))
      return NULL;
    for (; p < end && is_digit(*p); ++p)
      if ((x = x * 10 + (*p - '0')) > 1000)
        return NULL;
    e += sign * x;
  }
  *mantissa = m, *exp10 = e;
  return p;
}

/* 1 when a double in the float32 normal range lies exactly halfway between two floats:
 * its 29 significand bits below float32's are 1 followed by zeros. */
static int is_float_midpoint(double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  return (bits & (((uint64_t)1 << 29) - 1)) == (uint64_t)1 << 28;
}

/* The fast path; 0 when the decimal is not exact enough for it. m * 10^e is rounded once
 * to a double. For float32 that double is rounded again, which gives strtof's result
 * unless the double fell exactly on a float32 midpoint (or below the normal range). */
static int exact_decimal(uint64_t m, int e, int negative, tp_dtype dtype, double *v) {
  static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (m > ((uint64_t)1 << 53) || e < -22 || e > 22)
    return 0;
  double d = e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
  if (dtype == TP_DTYPE_F32) {
    if (d != 0 && (d < 2 * FLT_MIN || is_float_midpoint(d)))
      return 0;
    d = (float)d;
  }
  *v = negative ? -d : d;
  return 1;
}

/* Where a number may end for the fast path: what cannot continue it for strtod. */
static int ends_number(const char *p, const char *end) {
  return p == end || *p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f' ||
         *p == '\n' || *p == '#' || *p == '\0';
}

const char *tpi_text_number(const char *p, const char *end, tp_dtype dtype, double *v) {
  uint64_t m;
  int e, negative;
  const char *q = scan_decimal(p, end, &m, &e, &negative);
  if (q && ends_number(q, end) && exact_decimal(m, e, negative, dtype, v))
    return q;
  char *stop;
  *v = dtype == TP_DTYPE_F32 ? (double)strtof(p, &stop) : strtod(p, &stop);
  return stop;
}

size_t tpi_text_format_number(char *p, size_t cap, double v, tp_dtype dtype) {
  const int fewer = dtype == TP_DTYPE_F32 ? 6 : 15, enough = dtype == TP_DTYPE_F32 ? 9 : 17;
  int n = snprintf(p, cap, "%.*g", fewer, v);
  int exact = n > 0 && (size_t)n < cap &&
              (dtype == TP_DTYPE_F32 ? strtof(p, NULL) == (float)v : strtod(p, NULL) == v);
  if (!exact)
    n = snprintf(p, cap, "%.*g", enough, v);
  return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}
