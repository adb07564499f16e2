/* tenport sshopm: eigenpairs of a batch of symmetric tensors by SS-HOPM, read from a
 * .npy file of unique values (see symtensor.h for their order); per-run results and the
 * distinct eigenpairs of each tensor as .npy files, and a summary on stdout.
 * --example runs the Kofidis-Regalia tensor, whose eigenpairs are known. Under mpirun (or
 * with --distributed) the tensors are spread over the ranks (sshopm_dist.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/sshopm_cli.h"

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

static int write_file(tp_output_set *set, const char *prefix, const char *name, tp_dtype dtype,
                      int ndim, const int64_t *shape, const void *data) {
  char path[4096];
  return tenport_sshopm_output_path(prefix, name, path, sizeof path) &&
         tp_npy_write_to(set, path, dtype, ndim, shape, 0, data) == TP_SUCCESS;
}

static int write_outputs(const sshopm_cli *c, tp_output_set *set, const runs *r,
                         const pair_table *tab, int one_tensor) {
  int64_t shape[4] = {r->tensors, r->starts, r->dim, 0};
  const int64_t *s = one_tensor ? shape + 1 : shape;
  int lead = one_tensor ? 0 : 1, ok = 1;
  double *pairs = tenport_sshopm_padded(tab, tab->max_count);
  if (!pairs)
    tp_clear_error(); /* out of host memory: no library message */
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

/* The input as T x U doubles; 1-D input is one tensor. */
static int read_input(const sshopm_cli *c, tp_input *in, tp_npy_array *arr, int64_t *tensors,
                      int *one_tensor) {
  int64_t unique;
  if (tp_sym_unique_count(c->order, c->dim, &unique) != TP_SUCCESS ||
      tp_npy_read_converted_input(in, TP_DTYPE_F64, -1, arr) != TP_SUCCESS)
    return tenport_sshopm_fail(NULL);
  return tenport_sshopm_shape(c, tp_input_name(in), arr->ndim, arr->shape, tensors, one_tensor, 1);
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
  if (tenport_sshopm_solve(s, c, c->order, c->dim, tensors, a, &r) != TP_SUCCESS)
    code = tenport_sshopm_fail(NULL);
  else if (tenport_sshopm_pairs(&r, a, unique, &tab, message, sizeof message) != TP_SUCCESS)
    code = tenport_sshopm_fail(message);
  else if (!write_outputs(c, set, &r, &tab, one_tensor))
    code = tenport_sshopm_fail(NULL);
  if (code == 0) {
    sshopm_totals t;
    tenport_sshopm_count(&r, &t);
    tenport_sshopm_print_result(c, tp_input_name(in), &tab, &t);
    printf("wrote %s_{lambda,x,flag,iterations,eigenpairs}.npy\n", c->output);
  }
  tenport_sshopm_table_free(&tab);
  tenport_sshopm_runs_free(&r);
  tp_npy_free(&arr);
  return code;
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

/* The example or the input file, as the options say. */
static int run(tp_space *space, void *cli) {
  sshopm_cli *c = (sshopm_cli *)cli;
  return c->example ? tenport_sshopm_example(space, c) : run_file(space, c);
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
