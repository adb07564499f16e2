/* tenport gen's argument helpers, shared by its kinds: usage errors and counts. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gen_cli.h"

int tenport_gen_usage_error(const char *what) {
  fprintf(stderr, "tenport gen: %s ('tenport gen --help')\n", what);
  return 2;
}

int tenport_gen_shape_error(const char *option, const char *text, const char *why) {
  fprintf(stderr, "tenport gen: %s '%s': %s\n", option, text, why);
  return 2;
}

int tenport_gen_parse_count(const char *v, int64_t lo, int64_t *out) {
  uint64_t u;
  if (!tenport_parse_u64(v, &u) || u > INT64_MAX || (int64_t)u < lo)
    return tenport_expected("an integer from %lld to %lld", (long long)lo, (long long)INT64_MAX);
  *out = (int64_t)u;
  return 1;
}
