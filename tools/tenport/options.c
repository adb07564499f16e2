/* Option values and the messages of usage errors. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/options.h"

static char expected_text[256];

int tenport_expected(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(expected_text, sizeof expected_text, fmt, args);
  va_end(args);
  return 0;
}

int tenport_parse_int(const char *s, long lo, long hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi)
    return tenport_expected("an integer from %ld to %ld", lo, hi);
  *out = (int)v;
  return 1;
}

int tenport_parse_u64(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || *s < '0' || *s > '9') /* no sign, no blanks */
    return tenport_expected("an integer from 0 to 18446744073709551615");
  *out = (uint64_t)v;
  return 1;
}

int tenport_parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  /* a number below the normal range (1e-320) is still that number: ERANGE with a finite
   * result is an underflow, not an error */
  if ((errno && !(errno == ERANGE && isfinite(v) && fabs(v) < 1.0)) || end == s || *end ||
      !isfinite(v) || *s == ' ' || *s == '\t')
    return tenport_expected("a finite number");
  *out = v;
  return 1;
}

/* "a number > 0", "a number from 0 to 1", "a number >= 0 and < 1" */
static int expected_range(double lo, int lo_open, double hi, int hi_open) {
  if (isinf(hi))
    return tenport_expected("a number %s %g", lo_open ? ">" : ">=", lo);
  if (!lo_open && !hi_open)
    return tenport_expected("a number from %g to %g", lo, hi);
  return tenport_expected("a number %s %g and %s %g", lo_open ? ">" : ">=", lo,
                          hi_open ? "<" : "<=", hi);
}

int tenport_parse_number(const char *s, double lo, int lo_open, double hi, int hi_open,
                         double *out) {
  double v = 0;
  int ok = tenport_parse_double(s, &v);
  ok = ok && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (!ok)
    return expected_range(lo, lo_open, hi, hi_open);
  *out = v;
  return 1;
}

int tenport_parse_choice(const char *s, const char *const *names, int n, int *index) {
  for (int k = 0; k < n; ++k)
    if (!strcmp(s, names[k]))
      return *index = k, 1;
  char list[200] = "";
  size_t len = 0;
  for (int k = 0; k < n && len < sizeof list; ++k)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                            k == 0       ? ""
                            : k + 1 == n ? " or "
                                         : ", ",
                            names[k]);
  return tenport_expected("%s", list);
}

int tenport_parse_index_base(const char *s, int *out) {
  if (!strcmp(s, "auto"))
    return *out = -1, 1;
  if (!strcmp(s, "0") || !strcmp(s, "1"))
    return *out = s[0] - '0', 1;
  return tenport_expected("0, 1 or auto");
}

const char *const tenport_precisions[2] = {"f64", "f32"};

int tenport_parse_precision(const char *s, const char **out) {
  int k;
  if (!tenport_parse_choice(s, tenport_precisions, 2, &k))
    return 0;
  *out = s;
  return 1;
}

int tenport_parse_text(const char *s, const char **out) {
  if (!*s)
    return tenport_expected("a non-empty value");
  *out = s;
  return 1;
}

const char *tenport_option_value(int argc, char **argv, int i) {
  expected_text[0] = '\0'; /* a new option: nothing recorded yet */
  if (i + 1 >= argc)
    return NULL;
  const char *v = argv[i + 1];
  return v[0] == '-' && v[1] == '-' && v[2] != '\0' ? NULL : v;
}

int tenport_option_error(const char *cmd, const char *opt, int r, const char *value) {
  if (r < 0) {
    fprintf(stderr, "tenport %s: unknown option '%s' ('tenport %s --help' lists them)\n", cmd, opt,
            cmd);
    return 2;
  }
  if (!value) {
    fprintf(stderr, "tenport %s: %s needs a value\n", cmd, opt);
    return 2;
  }
  if (r == 0) {
    fprintf(stderr, "tenport %s: %s '%s' is not valid: expected %s\n", cmd, opt, value,
            *expected_text ? expected_text : "a value 'tenport --help' describes");
    return 2;
  }
  return 0;
}

int tenport_parse_options(const char *cmd, int argc, char **argv, void *ctx, tenport_flag_fn flag,
                          tenport_value_fn value) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (flag(ctx, a))
      continue;
    const char *v = tenport_option_value(argc, argv, i);
    if (tenport_option_error(cmd, a, value(ctx, a, v ? v : ""), v))
      return 2;
    ++i;
  }
  return 0;
}
