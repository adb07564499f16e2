/* tenport sshopm's files: the shape an input must have, and the outputs' names, added to
 * the set before the work. */
#include <stdio.h>

#include "tools/tenport/sshopm_cli.h"

const char *const tenport_sshopm_outputs[5] = {"lambda", "x", "flag", "iterations", "eigenpairs"};

int tenport_sshopm_output_path(const char *prefix, const char *name, char *path, size_t cap) {
  if ((size_t)snprintf(path, cap, "%s_%s.npy", prefix, name) < cap)
    return 1;
  fprintf(stderr, "tenport sshopm: --output '%s' is too long\n", prefix);
  return 0;
}

/* Adds every output file to the set before the work, so that a run that could not write
 * them, or would replace its input, stops at once. */
int tenport_sshopm_reserve(const sshopm_cli *c, tp_output_set *set) {
  char path[4096];
  for (int k = 0; k < 5; ++k) {
    if (!tenport_sshopm_output_path(c->output, tenport_sshopm_outputs[k], path, sizeof path))
      return 1;
    if (tenport_outputs_add("sshopm", set, path))
      return 1;
  }
  return 0;
}

int tenport_sshopm_shape(const sshopm_cli *c, const char *name, int ndim, const int64_t *shape,
                         int64_t *tensors, int *one_tensor, int loud) {
  int64_t unique;
  if (tp_sym_unique_count(c->order, c->dim, &unique) != TP_SUCCESS)
    return loud ? tenport_fail("sshopm", "out of host memory") : 1;
  if (ndim != 1 && ndim != 2) {
    if (loud)
      fprintf(stderr,
              "tenport sshopm: %s has %d dimensions; expected T x U (or U for one "
              "tensor)\n",
              name, ndim);
    return 1;
  }
  int64_t u = shape[ndim - 1];
  if (u != unique) {
    if (loud)
      fprintf(stderr,
              "tenport sshopm: %s has %lld values per tensor; order %d, dimension %d "
              "needs %lld\n",
              name, (long long)u, c->order, c->dim, (long long)unique);
    return 1;
  }
  *one_tensor = ndim == 1;
  *tensors = *one_tensor ? 1 : shape[0];
  return 0;
}
