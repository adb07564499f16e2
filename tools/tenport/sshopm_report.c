/* tenport sshopm's summary, the same in the single-process and distributed runs: the
 * eigenpairs of the first tensors, and the runs' totals. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/tenport/sshopm_cli.h"

static const char *kind_name(int kind) {
  static const char *names[4] = {"local max", "local min", "saddle", "degenerate"};
  return kind >= 0 && kind < 4 ? names[kind] : "?";
}

static void print_vector(const double *x, int n) {
  printf("(");
  for (int i = 0; i < n && i < 6; ++i)
    printf("%s% .4f", i ? ", " : "", x[i]);
  printf("%s)", n > 6 ? ", ..." : "");
}

/* One tensor's pairs; known (may be NULL) lists reference eigenvalues to show beside. */
void tenport_sshopm_print_pairs(const pair_table *tab, int64_t t, int dim, const double *known,
                                int known_count) {
  printf("  %12s  %-*s  %-10s  %6s%s\n", "lambda", 2 + 9 * (dim < 6 ? dim : 7), "x", "kind",
         "starts", known ? "   known" : "");
  for (int k = 0; k < tab->count[t]; ++k) {
    const double *row = tab->rows[t] + (size_t)k * (size_t)tab->width;
    printf("  %12.6f  ", row[0]);
    print_vector(row + PAIR_FIXED_COLS, dim);
    printf("  %-10s  %6d", kind_name((int)row[1]), (int)row[2]);
    for (int j = 0; known && j < known_count; ++j)
      if (fabs(known[j] - row[0]) < 5e-4)
        printf("  %7.4f", known[j]);
    printf("\n");
  }
}

void tenport_sshopm_count(const runs *r, sshopm_totals *t) {
  memset(t, 0, sizeof *t);
  t->tensors = r->tensors, t->runs = r->tensors * r->starts, t->seconds = r->seconds;
  for (int64_t i = 0; i < t->runs; ++i) {
    t->flags[r->flag[i] >= 0 && r->flag[i] <= 4 ? r->flag[i] : TP_SSHOPM_MAX_ITERATIONS]++;
    t->iterations += r->iterations[i];
  }
  for (int64_t k = 0; k < r->tensors; ++k)
    for (int v = 0; v < r->starts; ++v)
      if (r->flag[k * r->starts + v] == TP_SSHOPM_NONFINITE) {
        ++t->nonfinite_tensors;
        break;
      }
}

void tenport_sshopm_print_totals(const sshopm_cli *c, int order, int dim, const sshopm_totals *t) {
  const int64_t n = t->runs, *counts = t->flags;
  const double its = (double)t->iterations, seconds = t->seconds;
  char shift[64];
  if (c->solver.shift == TP_SHIFT_ADAPTIVE)
    snprintf(shift, sizeof shift, "adaptive %s shift", c->solver.concave ? "concave" : "convex");
  else
    snprintf(shift, sizeof shift, "fixed shift alpha = %g", c->solver.alpha);
  int unrolled = c->solver.kernel == TP_SSHOPM_KERNEL_UNROLLED ||
                 (c->solver.kernel == TP_SSHOPM_KERNEL_AUTO && tp_sshopm_has_unrolled(order, dim));
  printf("runs: %lld tensor(s) x %d starts: %lld converged, %lld zero iterate, %lld at the "
         "iteration limit, %lld non-finite tensor(s), %lld lambda overflow\n",
         (long long)t->tensors, c->starts, (long long)counts[0], (long long)counts[1],
         (long long)counts[2], (long long)t->nonfinite_tensors, (long long)counts[4]);
  tenport_summary_integer("tensors", (long long)t->tensors);
  tenport_summary_integer("starts", c->starts);
  tenport_summary_integer("converged", (long long)counts[0]);
  tenport_summary_integer("zero_iterate", (long long)counts[1]);
  tenport_summary_integer("iteration_limit", (long long)counts[2]);
  tenport_summary_integer("nonfinite_tensors", (long long)t->nonfinite_tensors);
  tenport_summary_phase("solver", seconds);
  printf("solver: %.4f s, %.3g tensor-start iterations/s, %.1f iterations per run (%s, %s, "
         "%s kernel)\n",
         seconds, seconds > 0 ? its / seconds : 0.0, n ? its / (double)n : 0.0,
         c->single ? "f32" : "f64", shift, unrolled ? "unrolled" : "generic");
}

void tenport_sshopm_print_result(const sshopm_cli *c, const char *name, const pair_table *tab,
                                 const sshopm_totals *t) {
  const int64_t tensors = t->tensors;
  printf("%s: %lld tensor%s of order %d, dimension %d\n", name, (long long)tensors,
         tensors == 1 ? "" : "s", c->order, c->dim);
  for (int64_t k = 0; k < tensors && k < SUMMARY_TENSORS; ++k) {
    printf("tensor %lld: %d distinct eigenpairs\n", (long long)k, tab->count[k]);
    tenport_sshopm_print_pairs(tab, k, c->dim, NULL, 0);
  }
  if (tensors > SUMMARY_TENSORS)
    printf("(eigenpairs of the other %lld tensors in %s_eigenpairs.npy)\n",
           (long long)(tensors - SUMMARY_TENSORS), c->output);
  tenport_sshopm_print_totals(c, c->order, c->dim, t);
}

/* Reports what went wrong: what, or the last tenport error when what is NULL (empty after
 * host_oom), and gives exit code 1. */
int tenport_sshopm_fail(const char *what) {
  if (!what || !*what)
    return tenport_fail("sshopm", "out of host memory");
  fprintf(stderr, "tenport sshopm: %s\n", what);
  return 1;
}