/* Writing FROSTT .tns text: one line per nonzero, 1-based indices then the value with
 * enough digits to read back exactly (9 significant digits for float32, 17 for float64). */
#include <stdio.h>

#include "tp_error.h"
#include "tp_sparse_internal.h"

enum { LINE_BYTES = TP_COO_MAX_ORDER * 21 + 32 }; /* 20-digit indices and a %.17g value */

/* Decimal digits of v >= 0 at p; returns the end. */
static char *put_decimal(char *p, uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n > 0)
    *p++ = digits[--n];
  return p;
}

static size_t format_line(const tp_coo *t, int64_t k, char *line) {
  char *p = line;
  for (int m = 0; m < t->order; ++m) {
    p = put_decimal(p, (uint64_t)t->indices[m][k] + 1);
    *p++ = ' ';
  }
  int n = t->dtype == TP_DTYPE_F32
              ? snprintf(p, 32, "%.9g\n", (double)((const float *)t->values)[k])
              : snprintf(p, 32, "%.17g\n", ((const double *)t->values)[k]);
  return (size_t)(p - line) + (size_t)n;
}

tp_status tp_coo_write_tns(const char *path, const tp_coo *host) {
  TP_TRY(tp_coo_validate(host));
  tp_coo_sink s;
  TP_TRY(tp_coo_sink_open(&s, path));
  for (int64_t k = 0; k < host->nnz; ++k) {
    char *line = tp_coo_sink_reserve(&s, LINE_BYTES);
    if (!line)
      break; /* the sink keeps the error for commit */
    s.len += format_line(host, k, line);
  }
  return tp_coo_sink_commit(&s);
}
