/* tenport sshopm: eigenpairs of a batch of symmetric tensors by SS-HOPM, read from a
 * .npy file of unique values (see symtensor.h for their order); per-run results and the
 * distinct eigenpairs of each tensor as .npy files, and a summary on stdout.
 * --example runs the Kofidis-Regalia tensor, whose eigenpairs are known. Under mpirun (or
 * with --distributed) the tensors are spread over the ranks (cmd_sshopm_dist.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cmd_sshopm.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: tenport sshopm --input A.npy --order m --dim n [options]\n"
          "       tenport sshopm --example [options]\n"
          "Eigenpairs (lambda, x), A x^(m-1) = lambda x, |x| = 1, of symmetric tensors by the\n"
          "shifted symmetric higher-order power method, V starting vectors per tensor.\n"
          "  --input A.npy       T x U unique values (or U for one tensor), any numeric dtype,\n"
          "                      U = C(m+n-1, m) in lexicographic order of index classes\n"
          "  --order m           tensor order, 2..%d\n"
          "  --dim n             dimension, 1..%d\n"
          "  --starts V          random unit starting vectors, shared by all tensors (128)\n"
          "  --shift S           'adaptive' (Kolda & Mayo's shift, default) or a fixed alpha\n"
          "                      (alpha >= 0 finds maxima, alpha < 0 minima)\n"
          "  --concave           seek minima (with a fixed shift: alpha = -|S|)\n"
          "  --tol X             stop when |delta lambda| < X (1e-10 in f64, 1e-6 in f32)\n"
          "  --xtol X            and |delta x| <= X (0: no test on x, default)\n"
          "  --max-iters N       iterations per start (1000)\n"
          "  --seed S            seed of the starting vectors (1)\n"
          "  --precision P       f32 or f64 (f64)\n"
          "  --kernel K          auto, generic or unrolled (auto)\n"
          "  --output PREFIX     output files PREFIX_*.npy ('sshopm')\n"
          "  --example           the Kofidis-Regalia tensor (m = 4, n = 3) with the adaptive\n"
          "                      convex and concave shifts, next to its known eigenvalues;\n"
          "                      one process only (refused under mpirun)\n"
          "  --distributed       run distributed even if no MPI launcher is seen\n"
          "Writes PREFIX_lambda.npy (T x V), PREFIX_x.npy (T x V x n), PREFIX_flag.npy (int8\n"
          "T x V: 0 converged, 1 zero iterate, 2 max iterations, 3 the tensor holds a NaN or\n"
          "an infinity (lambda and x NaN), 4 lambda beyond the precision's range),\n"
          "PREFIX_iterations.npy (int32 T x V) and PREFIX_eigenpairs.npy (T x P x (n + 3):\n"
          "lambda, kind, starts, x of each tensor's distinct eigenpairs, largest lambda first,\n"
          "NaN rows after the last; kind 0 local max, 1 local min, 2 saddle, 3 degenerate).\n"
          "For a 1-D input the leading T axis is left out.\n"
          "Distributed (started by mpirun, or with --distributed): each rank reads its range\n"
          "of tensors from A.npy (a regular file, not standard input or a pipe) and solves\n"
          "them on its own GPU where there are several; rank 0 writes each output as one\n"
          "file, byte for byte the one process's, and prints the summary.\n",
          TP_SYM_MAX_ORDER, TP_SSHOPM_MAX_DIM);
  tenport_conventions_help(out);
}

/* ---- options ------------------------------------------------------------------- */

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int parse_value(sshopm_cli *c, const char *a, const char *v) {
  tp_sshopm_options *s = &c->solver;
  if (!strcmp(a, "--input"))
    return tenport_parse_text(v, &c->input);
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--order"))
    return tenport_parse_int(v, 2, TP_SYM_MAX_ORDER, &c->order);
  if (!strcmp(a, "--dim"))
    return tenport_parse_int(v, 1, TP_SSHOPM_MAX_DIM, &c->dim);
  if (!strcmp(a, "--starts"))
    return tenport_parse_int(v, 1, 1 << 24, &c->starts);
  if (!strcmp(a, "--max-iters"))
    return tenport_parse_int(v, 0, 1 << 30, &s->max_iterations);
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &c->seed);
  if (!strcmp(a, "--tol")) {
    c->tol_set = 1;
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &s->tol);
  }
  if (!strcmp(a, "--xtol"))
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &s->xtol);
  if (!strcmp(a, "--shift")) {
    if (!strcmp(v, "adaptive"))
      return s->shift = TP_SHIFT_ADAPTIVE, 1;
    s->shift = TP_SHIFT_FIXED;
    return tenport_parse_double(v, &s->alpha) ||
           tenport_expected("'adaptive' or a finite number (a fixed shift)");
  }
  if (!strcmp(a, "--precision"))
    return tenport_parse_choice(v, tenport_precisions, 2, &c->single);
  if (!strcmp(a, "--kernel")) {
    static const char *const names[3] = {"auto", "generic", "unrolled"};
    int k;
    if (!tenport_parse_choice(v, names, 3, &k))
      return 0;
    return s->kernel = (tp_sshopm_kernel)k, 1;
  }
  return -1;
}

/* 0: run; 1: help was asked for; 2: usage error (reported). */
static int parse_args(int argc, char **argv, sshopm_cli *c) {
  memset(c, 0, sizeof *c);
  c->output = "sshopm", c->starts = 128, c->seed = 1;
  tp_sshopm_options_init(&c->solver);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (!strcmp(a, "--example")) {
      c->example = 1;
      continue;
    }
    if (!strcmp(a, "--distributed")) {
      c->distributed = 1;
      continue;
    }
    if (!strcmp(a, "--concave")) {
      c->solver.concave = 1;
      continue;
    }
    const char *v = tenport_option_value(argc, argv, i);
    int r = parse_value(c, a, v ? v : "");
    if (tenport_option_error("sshopm", a, r, v))
      return 2;
    ++i;
  }
  if (!c->example && (!c->input || !c->order || !c->dim)) {
    fprintf(stderr, "tenport sshopm: --input, --order and --dim are required\n");
    return 2;
  }
  if (c->example && (c->input || c->order || c->dim)) {
    fprintf(stderr, "tenport sshopm: --example takes no --input, --order or --dim\n");
    return 2;
  }
  if (!c->tol_set)
    c->solver.tol = c->single ? 1e-6 : 1e-10;
  if (c->solver.shift == TP_SHIFT_FIXED && c->solver.concave)
    c->solver.alpha = -fabs(c->solver.alpha);
  return 0;
}

/* ---- solving ------------------------------------------------------------------- */

/* Host allocation failures of this tool: no library message goes with them. */
static tp_status host_oom(void) {
  tp_clear_error();
  return TP_ERROR_OUT_OF_MEMORY;
}

void tenport_sshopm_runs_free(runs *r) {
  free(r->lambda), free(r->x), free(r->flag), free(r->iterations);
  memset(r, 0, sizeof *r);
}

static int runs_alloc(runs *r) {
  size_t n = (size_t)r->tensors * (size_t)r->starts;
  r->lambda = (double *)malloc(sizeof(double) * (n ? n : 1));
  r->x = (double *)malloc(sizeof(double) * (n ? n : 1) * (size_t)r->dim);
  r->flag = (int8_t *)malloc(n ? n : 1);
  r->iterations = (int32_t *)malloc(sizeof(int32_t) * (n ? n : 1));
  return r->lambda && r->x && r->flag && r->iterations;
}

/* Copies n doubles into new space memory, as floats if single. */
static tp_status upload(tp_space *s, const double *h, size_t n, int single, void **d) {
  *d = NULL;
  tp_status st = tp_alloc(s, n * (single ? sizeof(float) : sizeof(double)), d);
  if (st != TP_SUCCESS)
    return st;
  if (!single)
    return tp_copy_to_device(s, *d, h, n * sizeof(double));
  float *f = (float *)malloc(sizeof(float) * (n ? n : 1));
  if (!f)
    return host_oom();
  for (size_t i = 0; i < n; ++i)
    f[i] = (float)h[i];
  st = tp_copy_to_device(s, *d, f, n * sizeof(float));
  free(f);
  return st;
}

/* Copies n values of the run's precision back into doubles. */
static tp_status download(tp_space *s, const void *d, size_t n, int single, double *h) {
  if (!single)
    return tp_copy_to_host(s, h, d, n * sizeof(double));
  float *f = (float *)malloc(sizeof(float) * (n ? n : 1));
  if (!f)
    return host_oom();
  tp_status st = tp_copy_to_host(s, f, d, n * sizeof(float));
  for (size_t i = 0; st == TP_SUCCESS && i < n; ++i)
    h[i] = f[i];
  free(f);
  return st;
}

/* The solver call itself, timed on the space. */
static tp_status run_timed(tp_space *s, const sshopm_cli *c, const tp_sshopm_problem *p,
                           void *const d[6], double *seconds) {
  tp_timer *timer = NULL;
  double ms = 0;
  tp_status st = tp_timer_create(s, &timer);
  if (st == TP_SUCCESS)
    st = tp_timer_start(timer);
  if (st == TP_SUCCESS && c->single) {
    tp_sshopm_out_f32 out = {(float *)d[2], (float *)d[3], (int8_t *)d[4], (int32_t *)d[5]};
    st = tp_sshopm_f32(s, p, (const float *)d[0], (const float *)d[1], &c->solver, &out);
  } else if (st == TP_SUCCESS) {
    tp_sshopm_out_f64 out = {(double *)d[2], (double *)d[3], (int8_t *)d[4], (int32_t *)d[5]};
    st = tp_sshopm_f64(s, p, (const double *)d[0], (const double *)d[1], &c->solver, &out);
  }
  if (st == TP_SUCCESS)
    st = tp_timer_stop(timer, &ms);
  if (timer)
    tp_timer_destroy(&timer);
  *seconds = 1e-3 * ms;
  return st;
}

static void runs_free(runs *r) { tenport_sshopm_runs_free(r); }

/* Runs V starts on T tensors a (host, T x U doubles) and fills r. */
tp_status tenport_sshopm_solve(tp_space *s, const sshopm_cli *c, int order, int dim,
                               int64_t tensors, const double *a, runs *r) {
  int64_t unique;
  tp_status st = tp_sym_unique_count(order, dim, &unique);
  if (st != TP_SUCCESS)
    return st;
  memset(r, 0, sizeof *r);
  r->tensors = tensors, r->starts = c->starts, r->order = order, r->dim = dim;
  size_t n = (size_t)tensors * (size_t)c->starts, es = c->single ? 4 : 8;
  double *x0 = (double *)malloc(sizeof(double) * (size_t)c->starts * (size_t)dim);
  void *d[6] = {NULL, NULL, NULL, NULL, NULL, NULL}; /* tensors, starts, lambda, x, flag, its */
  if (!runs_alloc(r) || !x0) {
    free(x0);
    return host_oom();
  }
  st = tp_sshopm_random_starts_f64(c->seed, dim, c->starts, x0);
  if (st == TP_SUCCESS)
    st = upload(s, a, (size_t)(tensors * unique), c->single, &d[0]);
  if (st == TP_SUCCESS)
    st = upload(s, x0, (size_t)c->starts * (size_t)dim, c->single, &d[1]);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, es * n, &d[2]);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, es * n * (size_t)dim, &d[3]);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, n, &d[4]);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, sizeof(int32_t) * n, &d[5]);
  tp_sshopm_problem p = {order, dim, tensors, c->starts};
  if (st == TP_SUCCESS)
    st = run_timed(s, c, &p, d, &r->seconds);
  if (st == TP_SUCCESS)
    st = download(s, d[2], n, c->single, r->lambda);
  if (st == TP_SUCCESS)
    st = download(s, d[3], n * (size_t)dim, c->single, r->x);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(s, r->flag, d[4], n);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(s, r->iterations, d[5], sizeof(int32_t) * n);
  for (int i = 0; i < 6; ++i)
    tp_free(s, d[i]);
  free(x0);
  return st;
}

/* ---- distinct eigenpairs ---------------------------------------------------------- */

static tp_status solve(tp_space *s, const sshopm_cli *c, int order, int dim, int64_t tensors,
                       const double *a, runs *r) {
  return tenport_sshopm_solve(s, c, order, dim, tensors, a, r);
}

void tenport_sshopm_table_free(pair_table *t) {
  for (int64_t i = 0; t->rows && i < t->tensors; ++i)
    free(t->rows[i]);
  free(t->rows), free(t->count);
  memset(t, 0, sizeof *t);
}

static void table_free(pair_table *t) { tenport_sshopm_table_free(t); }

/* Tensor t's pairs of the batch as rows of the table (lambda, kind, starts, x). */
static tp_status table_rows(const tp_eigenpairs_batch *b, int64_t t, int dim, pair_table *tab) {
  const int64_t first = b->first[t];
  const int count = (int)(b->first[t + 1] - first);
  double *rows =
      (double *)malloc(sizeof(double) * (size_t)(count ? count : 1) * (size_t)tab->width);
  if (!rows)
    return host_oom();
  for (int k = 0; k < count; ++k) {
    double *row = rows + (size_t)k * (size_t)tab->width;
    row[0] = b->lambda[first + k], row[1] = (double)b->kind[first + k];
    row[2] = (double)b->starts[first + k];
    memcpy(row + PAIR_FIXED_COLS, b->x + (size_t)(first + k) * (size_t)dim,
           sizeof(double) * (size_t)dim);
  }
  tab->rows[t] = rows;
  tab->count[t] = count;
  tab->max_count = count > tab->max_count ? count : tab->max_count;
  return TP_SUCCESS;
}

/* The distinct eigenpairs of every tensor (a: T x U), merged by the library
 * (tp_sshopm_eigenpairs_batch_f64), as the table's rows. On failure, message holds the
 * error's text. */
tp_status tenport_sshopm_pairs(const runs *r, const double *a, int64_t unique, pair_table *tab,
                               char *message, size_t message_size) {
  (void)unique; /* the library knows it from the order and dimension */
  memset(tab, 0, sizeof *tab);
  tab->tensors = r->tensors, tab->width = r->dim + PAIR_FIXED_COLS;
  size_t t_count = (size_t)(r->tensors ? r->tensors : 1);
  tab->count = (int *)calloc(t_count, sizeof(int));
  tab->rows = (double **)calloc(t_count, sizeof(double *));
  if (!tab->count || !tab->rows)
    return host_oom();
  tp_eigenpairs_batch b;
  tp_status st = tp_sshopm_eigenpairs_batch_f64(r->order, r->dim, r->tensors, a, r->starts,
                                                r->lambda, r->x, r->flag, NULL, &b);
  for (int64_t t = 0; st == TP_SUCCESS && t < r->tensors; ++t)
    st = table_rows(&b, t, r->dim, tab);
  if (st != TP_SUCCESS)
    snprintf(message, message_size, "%s",
             *tp_last_error() ? tp_last_error() : "out of host memory");
  tp_eigenpairs_batch_free(&b);
  return st;
}

static tp_status all_pairs(const runs *r, const double *a, int64_t unique, pair_table *tab,
                           char *message, size_t message_size) {
  return tenport_sshopm_pairs(r, a, unique, tab, message, message_size);
}

/* ---- output -------------------------------------------------------------------- */

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
static void print_pairs(const pair_table *tab, int64_t t, int dim, const double *known,
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

static void print_totals(const sshopm_cli *c, const runs *r) {
  sshopm_totals t;
  tenport_sshopm_count(r, &t);
  tenport_sshopm_print_totals(c, r->order, r->dim, &t);
}

const char *const tenport_sshopm_outputs[5] = {"lambda", "x", "flag", "iterations", "eigenpairs"};

int tenport_sshopm_output_path(const char *prefix, const char *name, char *path, size_t cap) {
  if ((size_t)snprintf(path, cap, "%s_%s.npy", prefix, name) < cap)
    return 1;
  fprintf(stderr, "tenport sshopm: --output '%s' is too long\n", prefix);
  return 0;
}

static int output_path(const char *prefix, const char *name, char *path, size_t cap) {
  return tenport_sshopm_output_path(prefix, name, path, cap);
}

/* Adds every output file to the set before the work, so that a run that could not write
 * them, or would replace its input, stops at once. */
int tenport_sshopm_reserve(const sshopm_cli *c, tp_output_set *set) {
  char path[4096];
  for (int k = 0; k < 5; ++k) {
    if (!output_path(c->output, tenport_sshopm_outputs[k], path, sizeof path))
      return 1;
    if (tenport_outputs_add("sshopm", set, path))
      return 1;
  }
  return 0;
}

static int write_file(tp_output_set *set, const char *prefix, const char *name, tp_dtype dtype,
                      int ndim, const int64_t *shape, const void *data) {
  char path[4096];
  return output_path(prefix, name, path, sizeof path) &&
         tp_npy_write_to(set, path, dtype, ndim, shape, 0, data) == TP_SUCCESS;
}

double *tenport_sshopm_padded(const pair_table *tab, int max_count) {
  size_t per = (size_t)max_count * (size_t)tab->width, t = (size_t)tab->tensors;
  double *out = (double *)malloc(sizeof(double) * (per * t > 0 ? per * t : 1));
  if (!out)
    return NULL;
  for (size_t i = 0; i < per * t; ++i)
    out[i] = NAN;
  for (size_t i = 0; i < t; ++i)
    memcpy(out + i * per, tab->rows[i],
           sizeof(double) * (size_t)tab->count[i] * (size_t)tab->width);
  return out;
}

/* The eigenpair table padded with NaN rows to its largest count (P), as one array. */
static double *padded_pairs(const pair_table *tab) {
  return tenport_sshopm_padded(tab, tab->max_count);
}

static int write_outputs(const sshopm_cli *c, tp_output_set *set, const runs *r,
                         const pair_table *tab, int one_tensor) {
  int64_t shape[4] = {r->tensors, r->starts, r->dim, 0};
  const int64_t *s = one_tensor ? shape + 1 : shape;
  int lead = one_tensor ? 0 : 1, ok = 1;
  double *pairs = padded_pairs(tab);
  if (!pairs)
    host_oom();
  ok = ok && write_file(set, c->output, "lambda", TP_DTYPE_F64, lead + 1, s, r->lambda);
  ok = ok && write_file(set, c->output, "x", TP_DTYPE_F64, lead + 2, s, r->x);
  ok = ok && write_file(set, c->output, "flag", TP_DTYPE_I8, lead + 1, s, r->flag);
  ok = ok && write_file(set, c->output, "iterations", TP_DTYPE_I32, lead + 1, s, r->iterations);
  shape[1] = tab->max_count, shape[2] = tab->width;
  ok = ok && pairs && write_file(set, c->output, "eigenpairs", TP_DTYPE_F64, lead + 2, s, pairs);
  free(pairs);
  ok = ok && tp_output_set_commit(set) == TP_SUCCESS;
  if (ok)
    tenport_summary_outputs(set);
  return ok;
}

/* ---- the two modes ----------------------------------------------------------------- */

/* Reports what went wrong: what, or the last tenport error when what is NULL (empty after
 * host_oom), and gives exit code 1. */
static int fail(const char *what) {
  if (!what || !*what)
    return tenport_fail("sshopm", "out of host memory");
  fprintf(stderr, "tenport sshopm: %s\n", what);
  return 1;
}

/* The input as T x U doubles; 1-D input is one tensor. */
static int read_input(const sshopm_cli *c, tp_input *in, tp_npy_array *arr, int64_t *tensors,
                      int *one_tensor) {
  int64_t unique;
  if (tp_sym_unique_count(c->order, c->dim, &unique) != TP_SUCCESS ||
      tp_npy_read_converted_input(in, TP_DTYPE_F64, -1, arr) != TP_SUCCESS)
    return fail(NULL);
  return tenport_sshopm_shape(c, tp_input_name(in), arr->ndim, arr->shape, tensors, one_tensor, 1);
}

int tenport_sshopm_shape(const sshopm_cli *c, const char *name, int ndim, const int64_t *shape,
                         int64_t *tensors, int *one_tensor, int loud) {
  int64_t unique;
  if (tp_sym_unique_count(c->order, c->dim, &unique) != TP_SUCCESS)
    return loud ? fail(NULL) : 1;
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

static int run_input(tp_space *s, const sshopm_cli *c, tp_input *in, tp_output_set *set) {
  tp_npy_array arr;
  int64_t tensors, unique;
  int one_tensor, code;
  memset(&arr, 0, sizeof arr);
  if ((code = read_input(c, in, &arr, &tensors, &one_tensor)) != 0) {
    tp_npy_free(&arr);
    return code;
  }
  tp_sym_unique_count(c->order, c->dim, &unique);
  runs r;
  pair_table tab;
  char message[512] = "";
  memset(&tab, 0, sizeof tab);
  const double *a = (const double *)arr.data;
  if (solve(s, c, c->order, c->dim, tensors, a, &r) != TP_SUCCESS)
    code = fail(NULL);
  else if (all_pairs(&r, a, unique, &tab, message, sizeof message) != TP_SUCCESS)
    code = fail(message);
  else if (!write_outputs(c, set, &r, &tab, one_tensor))
    code = fail(NULL);
  if (code == 0) {
    sshopm_totals t;
    tenport_sshopm_count(&r, &t);
    tenport_sshopm_print_result(c, tp_input_name(in), &tab, &t);
    printf("wrote %s_{lambda,x,flag,iterations,eigenpairs}.npy\n", c->output);
  }
  table_free(&tab);
  runs_free(&r);
  tp_npy_free(&arr);
  return code;
}

void tenport_sshopm_print_result(const sshopm_cli *c, const char *name, const pair_table *tab,
                                 const sshopm_totals *t) {
  const int64_t tensors = t->tensors;
  printf("%s: %lld tensor%s of order %d, dimension %d\n", name, (long long)tensors,
         tensors == 1 ? "" : "s", c->order, c->dim);
  for (int64_t k = 0; k < tensors && k < SUMMARY_TENSORS; ++k) {
    printf("tensor %lld: %d distinct eigenpairs\n", (long long)k, tab->count[k]);
    print_pairs(tab, k, c->dim, NULL, 0);
  }
  if (tensors > SUMMARY_TENSORS)
    printf("(eigenpairs of the other %lld tensors in %s_eigenpairs.npy)\n",
           (long long)(tensors - SUMMARY_TENSORS), c->output);
  tenport_sshopm_print_totals(c, c->order, c->dim, t);
}

/* The input opened once, and the output set ready before the work. */
static int run_file(tp_space *s, const sshopm_cli *c) {
  tp_input *in = NULL;
  tp_output_set *set = NULL;
  int code = tenport_open_input("sshopm", c->input, &in);
  if (code == 0)
    code = tenport_outputs_begin("sshopm", &set, in, NULL, 0);
  if (code == 0)
    code = tenport_sshopm_reserve(c, set);
  if (code == 0)
    code = run_input(s, c, in, set);
  tp_output_set_destroy(&set);
  tp_input_close(&in);
  return code;
}

/* Kofidis & Regalia (2002), Example 1, and its known eigenvalues. */
static const double kr_tensor[15] = {0.2883, -0.0031, 0.1973, -0.2485, -0.2939,
                                     0.3847, 0.2972,  0.1862, 0.0919,  -0.3619,
                                     0.1241, -0.3420, 0.2127, 0.2727,  -0.3054};
static const double kr_known[2][3] = {{0.8893, 0.8169, 0.3633}, {-0.0451, -0.5629, -1.0954}};

/* How many of the known values a pair of the wanted kind matches. */
static int known_found(const pair_table *tab, const double *known, int kind) {
  int found = 0;
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < tab->count[0]; ++k) {
      const double *row = tab->rows[0] + (size_t)k * (size_t)tab->width;
      if ((int)row[1] == kind && fabs(row[0] - known[j]) < 5e-4) {
        ++found;
        break;
      }
    }
  return found;
}

static int run_example(tp_space *s, sshopm_cli *c) {
  int all = 1;
  printf("Kofidis-Regalia tensor (m = 4, n = 3), %d starts, %s\n", c->starts,
         c->single ? "f32" : "f64");
  c->solver.shift = TP_SHIFT_ADAPTIVE;
  for (int concave = 0; concave <= 1; ++concave) {
    runs r;
    pair_table tab;
    char message[512] = "";
    c->solver.concave = concave;
    if (solve(s, c, 4, 3, 1, kr_tensor, &r) != TP_SUCCESS)
      return fail(NULL);
    if (all_pairs(&r, kr_tensor, 15, &tab, message, sizeof message) != TP_SUCCESS) {
      runs_free(&r);
      table_free(&tab);
      return fail(message);
    }
    int found = known_found(&tab, kr_known[concave], concave ? TP_EIG_LOCAL_MIN : TP_EIG_LOCAL_MAX);
    printf("\nadaptive %s shift: %d distinct eigenpairs\n", concave ? "concave" : "convex",
           tab.count[0]);
    print_pairs(&tab, 0, 3, kr_known[concave], 3);
    print_totals(c, &r);
    printf("known local %s (Kofidis & Regalia): %.4f %.4f %.4f -- %d of 3 found\n",
           concave ? "minima" : "maxima", kr_known[concave][0], kr_known[concave][1],
           kr_known[concave][2], found);
    all = all && found == 3;
    table_free(&tab);
    runs_free(&r);
  }
  printf("\ncheck: %s\n", all ? "passed" : "FAILED");
  return all ? 0 : 1;
}

/* The example or the input file, as the options say. */
static int run(tp_space *space, void *cli) {
  sshopm_cli *c = (sshopm_cli *)cli;
  return c->example ? run_example(space, c) : run_file(space, c);
}

int tenport_cmd_sshopm(int argc, char **argv) {
  sshopm_cli c;
  int code = tenport_parsed(parse_args(argc, argv, &c), usage);
  if (code >= 0)
    return code;
  if (c.distributed || tp_comm_launched())
    return tenport_sshopm_distributed(&c);
  return tenport_run_in_space("sshopm", run, &c);
}
