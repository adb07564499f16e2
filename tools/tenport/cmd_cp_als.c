/* tenport cp-als: a rank-R CP decomposition of a tensor read from .npy (dense) or .tns /
 * .tpb (sparse, cmd_cp_als_sparse.c) by alternating least squares; lambda and the factor
 * matrices as .npy files and a summary on stdout. --example decomposes a planted rank-3 tensor made in memory and checks
 * that the fit reaches 0.9999. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/cmd_cp_als.h"
#include "tenport/tenport.h"

#define EXAMPLE_RANK 3
#define EXAMPLE_FIT 0.9999
#define EXAMPLE_TENSOR_SEED 20261122 /* not the default start seed: the start is not the truth */

typedef struct cp_cli {
  const char *input, *init, *output, *precision, *history;
  int rank, quiet, example, tol_set, iters_set;
  int dense_only_options; /* --mttkrp or --no-reuse */
  double check_fit;       /* < 0: none */
  tp_cp_als_options solver;
  tenport_cp_watch watch;
  /* distributed runs */
  const char *grid, *dims_text, *gen_dims_text, *gen_shape_text;
  tenport_text_options text; /* --index-base, --no-header */
  int distributed, order;
  int64_t dims[TP_COO_MAX_ORDER];
  tp_coo_random_options generate; /* nnz > 0: draw the tensor instead of reading it */
  tenport_cp_planted planted;     /* order > 0: make the dense tensor instead */
} cp_cli;

static void usage(FILE *out) {
  fprintf(out,
          "usage: tenport cp-als --input X.npy|X.txt|X.tns|X.tpb --rank R [options]\n"
          "       tenport cp-als --example [options]\n"
          "Rank-R CP decomposition X ~ sum_r lambda_r a_r^(0) o ... o a_r^(d-1) of a dense\n"
          "or sparse tensor by alternating least squares (GenTen / Tensor Toolbox CP-ALS).\n"
          "  --input FILE        X.npy: a float32 or float64 dense tensor of 2 to %d modes, C\n"
          "                      or Fortran order, or dense 'tensor' text (GenTen, Tensor\n"
          "                      Toolbox); X.tns (FROSTT or sptensor text) or X.tpb (tenport\n"
          "                      binary): a sparse tensor, decomposed through FLYCOO; any of\n"
          "                      them gzip-compressed\n"
          "  --rank R            number of components\n"
          "  --tol X             stop when |delta fit| < X (1e-4)\n"
          "  --max-iters N       most iterations (50)\n"
          "  --seed S            seed of the random initial guess (1)\n"
          "  --init I            the start: random (uniform factors from --seed; default),\n"
          "                      nvecs (the leading eigenvectors of each mode's Gram\n"
          "                      X_(k) X_(k)^T, as the Tensor Toolbox's nvecs; one process\n"
          "                      only), or PREFIX: factors from PREFIX_factor<k>.npy (I_k x R;\n"
          "                      write ./random for a prefix named random)\n"
          "  --reg L             ridge (L2) regularisation: each solve is U (V + L I) = G (0)\n"
          "  --fix-modes M,...   modes whose factors keep their --init PREFIX values\n"
          "  --max-seconds S     stop after the iteration that ends past S seconds\n"
          "  --restarts K        K more starts from random factors (seeds S+1..S+K); the\n"
          "                      model of the highest fit is kept (0)\n"
          "  --no-line-search    no extrapolation between iterations (default: from the\n"
          "                      third iteration on, the factors are moved on along their\n"
          "                      last change, kept only when that raises the fit)\n"
          "  --history FILE.json the fit, its change and the time of every iteration\n"
          "  --mttkrp V          auto, elem, slice, tile, gemm or blocked (auto; dense)\n"
          "  --precision P       f32 or f64 (default: the file's; other dtypes give f64)\n"
          "  --no-reuse          one full MTTKRP per mode, no partial contractions shared\n"
          "                      across modes (dense)\n"
          "  --output PREFIX     write PREFIX_lambda.npy and PREFIX_factor<k>.npy (default:\n"
          "                      none; only the summary is printed)\n"
          "  --check-fit F       exit with status 1 unless the final fit is at least F (for\n"
          "                      scripts and tests)\n"
          "  --quiet             no progress line per iteration on stdout, and no live\n"
          "                      progress indicator on a terminal's stderr\n"
          "  --example           a planted rank-%d tensor made in memory (no --input); checks\n"
          "                      fit >= %.4f (tol 1e-9 and 500 iterations unless given)\n"
          "  --index-base B      a .tns input's indices: 1, 0 or auto (1-based unless an\n"
          "                      index 0 appears)\n"
          "  --no-header         every line of a .tns input is a nonzero (no header)\n"
          "  --dims I0xI1x...    the shape of a sparse input (default: each mode's largest\n"
          "                      index)\n"
          "Distributed (sparse or dense; started by mpirun, or with --distributed):\n"
          "  --grid P0xP1x...    ranks along each mode (default: chosen from the shape)\n"
          "  --gen-dims I0x...   draw a random tensor on the ranks instead of reading one:\n"
          "  --gen-nnz N         N draws with indices floor(u^skew I) (tenport gen sparse),\n"
          "  --gen-skew S        each rank drawing its share in place (skew 1; seed 1)\n"
          "  --gen-seed S        (of the planted dense tensor too; default %d there)\n"
          "  --gen-shape I0x...  make a planted dense tensor on the ranks instead, each its\n"
          "  --gen-rank R        block in place (tenport gen dense --rank R --noise X; rank\n"
          "  --gen-noise X       1, noise 0 by default)\n"
          "  --distributed       run distributed even if no MPI launcher is seen\n"
          "Final factors have unit 2-norm columns, lambda >= 0, largest lambda first, and\n"
          "signs as the Tensor Toolbox's fixsigns leaves them (each factor's entry of largest\n"
          "magnitude positive, flipped in pairs); fixed factors are left as given.\n",
          TP_DENSE_MAX_ORDER, EXAMPLE_RANK, EXAMPLE_FIT, EXAMPLE_TENSOR_SEED);
  tenport_conventions_help(out);
}

/* ---- options ------------------------------------------------------------------- */

/* --init: random, nvecs or a prefix of factor files. */
static int parse_init(cp_cli *c, const char *v) {
  c->init = NULL;
  if (!strcmp(v, "random") || !strcmp(v, "nvecs")) {
    c->solver.init_method = v[0] == 'r' ? TP_CP_INIT_RANDOM : TP_CP_INIT_NVECS;
    return 1;
  }
  return tenport_parse_text(v, &c->init);
}

/* "0,2": a set of mode numbers, each below TP_CP_MAX_FIXED_MODES. */
static int parse_modes(const char *v, uint32_t *modes) {
  *modes = 0;
  for (const char *p = v;;) {
    char *end;
    long m = strtol(p, &end, 10);
    if (end == p || m < 0 || m >= TP_CP_MAX_FIXED_MODES || (*end != ',' && *end != '\0'))
      return tenport_expected("mode numbers from 0 separated by commas, such as 0,2");
    *modes |= 1u << m;
    if (*end == '\0')
      return 1;
    p = end + 1;
  }
}

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int parse_value(cp_cli *c, const char *a, const char *v) {
  tp_cp_als_options *s = &c->solver;
  if (!strcmp(a, "--input"))
    return tenport_parse_text(v, &c->input);
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--init"))
    return parse_init(c, v);
  if (!strcmp(a, "--reg"))
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &s->reg);
  if (!strcmp(a, "--fix-modes"))
    return parse_modes(v, &s->fixed_modes);
  if (!strcmp(a, "--max-seconds"))
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &s->max_seconds) &&
           (s->max_seconds > 0 || tenport_expected("a number of seconds above 0"));
  if (!strcmp(a, "--restarts"))
    return tenport_parse_int(v, 0, 1 << 20, &s->restarts);
  if (!strcmp(a, "--history"))
    return tenport_parse_text(v, &c->history);
  if (!strcmp(a, "--rank"))
    return tenport_parse_int(v, 1, 1 << 20, &c->rank);
  if (!strcmp(a, "--max-iters"))
    return c->iters_set = 1, tenport_parse_int(v, 1, 1 << 30, &s->max_iters);
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &s->seed);
  if (!strcmp(a, "--tol"))
    return c->tol_set = 1, tenport_parse_number(v, 0, 0, INFINITY, 0, &s->tol);
  if (!strcmp(a, "--mttkrp"))
    return c->dense_only_options = 1,
           tp_mttkrp_variant_parse(v, &s->mttkrp.variant) == TP_SUCCESS ||
               tenport_expected("auto, elem, slice, tile, gemm or blocked");
  if (!strcmp(a, "--precision"))
    return tenport_parse_precision(v, &c->precision);
  if (!strcmp(a, "--grid"))
    return tenport_parse_text(v, &c->grid);
  if (!strcmp(a, "--dims"))
    return tenport_parse_text(v, &c->dims_text);
  if (!strcmp(a, "--gen-dims"))
    return tenport_parse_text(v, &c->gen_dims_text);
  if (!strcmp(a, "--gen-nnz")) {
    uint64_t n;
    return (tenport_parse_u64(v, &n) && n >= 1 && n <= INT64_MAX &&
            (c->generate.nnz = (int64_t)n)) ||
           tenport_expected("an integer from 1 to %lld", (long long)INT64_MAX);
  }
  if (!strcmp(a, "--gen-skew"))
    return tenport_parse_number(v, 0, 1, INFINITY, 0, &c->generate.skew[0]);
  if (!strcmp(a, "--gen-seed"))
    return tenport_parse_u64(v, &c->generate.seed);
  if (!strcmp(a, "--gen-shape"))
    return tenport_parse_text(v, &c->gen_shape_text);
  if (!strcmp(a, "--gen-rank")) {
    int r;
    return tenport_parse_int(v, 1, 1 << 20, &r) && (c->planted.rank = r);
  }
  if (!strcmp(a, "--gen-noise"))
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &c->planted.noise);
  if (!strcmp(a, "--check-fit"))
    return tenport_parse_number(v, 0, 0, 1, 0, &c->check_fit);
  return tenport_text_option(&c->text, a, v);
}

/* Options without a value; 1 if a was one of them. */
static int parse_flag(cp_cli *c, const char *a) {
  if (!strcmp(a, "--example"))
    return c->example = 1;
  if (!strcmp(a, "--quiet"))
    return c->quiet = 1;
  if (!strcmp(a, "--no-reuse")) {
    c->solver.reuse_partials = 0, c->dense_only_options = 1;
    return 1;
  }
  if (!strcmp(a, "--no-line-search")) {
    c->solver.line_search = 0;
    return 1;
  }
  if (!strcmp(a, "--distributed"))
    return c->distributed = 1;
  return tenport_text_option(&c->text, a, NULL) == 1;
}

/* "I0xI1x..." (or with commas) of option opt into *order and dims; 0 or 2 (reported). */
static int parse_shape(const char *opt, const char *text, int *order, int64_t *dims) {
  char buf[512], why[160];
  if (strlen(text) >= sizeof buf) {
    fprintf(stderr, "tenport cp-als: %s is too long\n", opt);
    return 2;
  }
  strcpy(buf, text);
  for (char *p = buf; *p; ++p)
    *p = *p == ',' ? 'x' : *p;
  if (tenport_parse_dims(buf, TP_COO_MAX_ORDER, dims, order, why, sizeof why))
    return 0;
  fprintf(stderr, "tenport cp-als: %s '%s': %s\n", opt, text, why);
  return 2;
}

/* The planted dense tensor the ranks make (--gen-shape), as tenport gen dense makes it. */
static int parse_planted(cp_cli *c) {
  tenport_cp_planted *p = &c->planted;
  if (!c->gen_shape_text) {
    if (p->rank || p->noise > 0)
      fprintf(stderr, "tenport cp-als: --gen-rank and --gen-noise go with --gen-shape\n");
    return p->rank || p->noise > 0 ? 2 : 0;
  }
  if (c->gen_dims_text || c->generate.nnz) {
    fprintf(stderr, "tenport cp-als: --gen-shape (dense) and --gen-dims (sparse) exclude each "
                    "other\n");
    return 2;
  }
  p->rank = p->rank ? p->rank : 1;
  /* Not the start's default seed: the planted factors would be the start itself. */
  p->seed = c->generate.seed ? c->generate.seed : EXAMPLE_TENSOR_SEED;
  return parse_shape("--gen-shape", c->gen_shape_text, &p->order, p->dims);
}

/* The random tensor the ranks draw (--gen-*), as tenport gen sparse draws it. */
static int parse_generate(cp_cli *c) {
  tp_coo_random_options *g = &c->generate;
  if (parse_planted(c))
    return 2;
  if (!c->gen_dims_text != !g->nnz) {
    fprintf(stderr, "tenport cp-als: --gen-dims and --gen-nnz go together\n");
    return 2;
  }
  if (!g->nnz)
    return 0;
  double skew = g->skew[0] ? g->skew[0] : 1.0;
  g->dtype = c->precision && !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  g->values = TP_COO_VALUES_UNIFORM;
  g->seed = g->seed ? g->seed : 1;
  if (parse_shape("--gen-dims", c->gen_dims_text, &g->order, g->dims))
    return 2;
  for (int m = 0; m < g->order; ++m)
    g->skew[m] = skew;
  return 0;
}

static int check_args(cp_cli *c) {
  int generated = c->gen_dims_text || c->generate.nnz || c->gen_shape_text;
  if (c->example && (c->input || c->init || c->rank || generated)) {
    fprintf(stderr, "tenport cp-als: --example takes no --input, --gen-*, --init or --rank\n");
    return 2;
  }
  if (!c->example && ((!c->input && !generated) || !c->rank)) {
    fprintf(stderr, "tenport cp-als: --input (or --gen-dims and --gen-nnz, or --gen-shape) "
                    "and --rank are required ('tenport cp-als --help')\n");
    return 2;
  }
  if (c->input && generated) {
    fprintf(stderr, "tenport cp-als: --input and --gen-* exclude each other\n");
    return 2;
  }
  if (c->dims_text && parse_shape("--dims", c->dims_text, &c->order, c->dims))
    return 2;
  if (c->solver.fixed_modes && !c->init) {
    fprintf(stderr, "tenport cp-als: --fix-modes keeps factors given by --init PREFIX (the "
                    "files PREFIX_factor<k>.npy); give them\n");
    return 2;
  }
  return parse_generate(c);
}

/* 0: run; 1: help was asked for; 2: usage error (reported). */
static int parse_args(int argc, char **argv, cp_cli *c) {
  memset(c, 0, sizeof *c);
  c->solver = tp_cp_als_options_default();
  c->check_fit = -1;
  c->text.read = tp_tns_options_default();
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (parse_flag(c, a))
      continue;
    const char *v = tenport_option_value(argc, argv, i);
    int r = parse_value(c, a, v ? v : "");
    if (tenport_option_error("cp-als", a, r, v))
      return 2;
    ++i;
  }
  if (check_args(c))
    return 2;
  if (c->example && !c->tol_set)
    c->solver.tol = 1e-9;
  if (c->example && !c->iters_set)
    c->solver.max_iters = 500;
  c->watch.max_iters = c->solver.max_iters, c->watch.tol = c->solver.tol;
  c->watch.quiet = c->quiet; /* quiet runs are timed too (the phases line) */
  c->watch.starts = 1 + c->solver.restarts, c->watch.keep_history = c->history != NULL;
  c->solver.progress = tenport_cp_watch_iteration;
  c->solver.progress_user = &c->watch;
  return 0;
}

/* ---- progress ------------------------------------------------------------------------ */

/* The iteration after which the solver stops (its own rule: |delta| < tol from the
 * second iteration on, or the limit). */
static int last_iteration(const tenport_cp_watch *w, const tp_cp_als_progress *p) {
  return p->iteration >= w->max_iters || (p->iteration > 1 && fabs(p->delta_fit) < w->tol);
}

#define ITERATION_STATUS "iteration %d (at most %d), fit %.6f, delta %+.2e"

/* One more iteration into the history (kept only with --history). */
static void record(tenport_cp_watch *w, const tp_cp_als_progress *p) {
  if (!w->keep_history || w->out_of_memory)
    return;
  if (w->recorded == w->capacity) {
    int cap = w->capacity ? 2 * w->capacity : 64;
    tenport_cp_record *grown =
        (tenport_cp_record *)realloc(w->history, sizeof *grown * (size_t)cap);
    if (!grown) {
      w->out_of_memory = 1;
      return;
    }
    w->history = grown, w->capacity = cap;
  }
  tenport_cp_record *r = &w->history[w->recorded++];
  r->start = p->start, r->iteration = p->iteration, r->extrapolated = p->extrapolated;
  r->fallback_solves = p->fallback_solves;
  r->fit = p->fit, r->delta = p->delta_fit, r->seconds = p->seconds;
}

void tenport_cp_watch_free(tenport_cp_watch *w) {
  free(w->history);
  w->history = NULL, w->recorded = w->capacity = 0;
}

/* The line on stdout as before, and the indicator (the last iteration's state drawn at
 * once: normalisation and writing follow it). */
void tenport_cp_watch_iteration(const tp_cp_als_progress *p, void *watch) {
  tenport_cp_watch *w = (tenport_cp_watch *)watch;
  w->iteration_seconds += p->seconds;
  record(w, p);
  if (w->quiet)
    return;
  tenport_progress_hide(&w->bar);
  if (w->starts > 1 && p->iteration == 1)
    printf("start %d of %d\n", p->start + 1, w->starts);
  tp_cp_als_print_progress(p, stdout);
  if (last_iteration(w, p))
    tenport_progress_show(&w->bar, ITERATION_STATUS, p->iteration, w->max_iters, p->fit,
                          p->delta_fit);
  else
    tenport_progress_update(&w->bar, ITERATION_STATUS, p->iteration, w->max_iters, p->fit,
                            p->delta_fit);
}

tp_status tenport_cp_write_history(const tenport_cp_watch *w, const tp_cp_als_options *solver,
                                   const tp_cp_als_result *r, tp_output_set *set,
                                   const char *path) {
  tenport_json j;
  tenport_json_begin(&j);
  tenport_json_string(&j, "command", "cp-als");
  tenport_json_integer(&j, "rank", (long long)solver->rank);
  tenport_json_number(&j, "tol", solver->tol);
  tenport_json_integer(&j, "max_iters", solver->max_iters);
  tenport_json_number(&j, "reg", solver->reg);
  tenport_json_bool(&j, "line_search", solver->line_search);
  tenport_json_integer(&j, "restarts", solver->restarts);
  tenport_json_array(&j, "iterations");
  for (int i = 0; i < w->recorded; ++i) {
    const tenport_cp_record *e = &w->history[i];
    tenport_json_object(&j, NULL);
    tenport_json_integer(&j, "start", e->start);
    tenport_json_integer(&j, "iteration", e->iteration);
    tenport_json_number(&j, "fit", e->fit);
    tenport_json_number(&j, "delta", e->delta);
    tenport_json_number(&j, "seconds", e->seconds);
    tenport_json_bool(&j, "extrapolated", e->extrapolated);
    tenport_json_integer(&j, "fallback_solves", e->fallback_solves);
    tenport_json_end(&j);
  }
  tenport_json_end(&j);
  tenport_json_object(&j, "result");
  tenport_json_number(&j, "fit", r->fit);
  tenport_json_integer(&j, "iterations", r->iterations);
  tenport_json_bool(&j, "converged", r->converged);
  tenport_json_bool(&j, "stopped_by_time", r->stopped_by_time);
  tenport_json_integer(&j, "starts", r->starts);
  tenport_json_integer(&j, "best_start", r->best_start);
  tenport_json_integer(&j, "extrapolations", r->extrapolations);
  tenport_json_number(&j, "seconds", r->seconds);
  tenport_json_end(&j);
  tp_status st = w->out_of_memory ? TP_ERROR_OUT_OF_MEMORY : tenport_json_write(&j, set, path);
  if (w->out_of_memory)
    fprintf(stderr, "tenport cp-als: out of host memory for the iterations' history\n");
  tenport_json_free(&j);
  return st;
}

tp_status tenport_cp_write_outputs(tp_output_set *set, const char *output, const char *history,
                                   const tp_kruskal *host_model, const tenport_cp_watch *watch,
                                   const tp_cp_als_options *solver, const tp_cp_als_result *r) {
  if (!set)
    return TP_SUCCESS;
  tp_status st = output ? tp_kruskal_write_npy_to(set, output, host_model) : TP_SUCCESS;
  if (st == TP_SUCCESS && history)
    st = tenport_cp_write_history(watch, solver, r, set, history);
  if (st == TP_SUCCESS && (st = tp_output_set_commit(set)) == TP_SUCCESS)
    tenport_summary_outputs(set);
  return st;
}

void tenport_cp_print_phases(tenport_cp_phases ph, const tp_cp_als_result *r,
                             const tenport_cp_watch *w) {
  const double solver_rest = r->seconds - w->iteration_seconds;
  printf("phases: read %.3f s, build %.3f s, initialisation %.3f s, iterations %.3f s, "
         "write %.3f s\n",
         ph.read, ph.build, ph.init + (solver_rest > 0 ? solver_rest : 0), w->iteration_seconds,
         ph.write);
  tenport_summary_phase("read", ph.read), tenport_summary_phase("build", ph.build);
  tenport_summary_phase("initialisation", ph.init + (solver_rest > 0 ? solver_rest : 0));
  tenport_summary_phase("iterations", w->iteration_seconds);
  tenport_summary_phase("write", ph.write);
}

void tenport_cp_watch_begin(tenport_cp_watch *w) {
  if (w)
    tenport_progress_begin(&w->bar, "cp-als", tenport_progress_wanted(0));
}

void tenport_cp_watch_end(tenport_cp_watch *w) {
  if (w)
    tenport_progress_end(&w->bar);
}

/* ---- running ------------------------------------------------------------------------- */

static int fail(void) { return tenport_fail("cp-als", "failed"); }

/* Everything one decomposition holds, freed by job_free. */
typedef struct cp_job {
  tp_space *space;
  tp_output_set *set; /* NULL without --output */
  tp_dense host_x, x;
  tp_kruskal init, model, host_model;
  tp_cp_als_result result;
  tenport_cp_phases phases;
} cp_job;

static void job_free(cp_job *j) {
  tp_kruskal_free(NULL, &j->host_model);
  tp_kruskal_free(j->space, &j->model);
  tp_kruskal_free(NULL, &j->init);
  tp_dense_free(j->space, &j->x);
  tp_dense_free(NULL, &j->host_x);
}

static void print_shape(const tp_dense *t) {
  for (int k = 0; k < t->order; ++k)
    printf("%s%lld", k ? "x" : "", (long long)t->dims[k]);
}

static void print_summary(const cp_cli *c, cp_job *j, const char *name, double seconds) {
  const tp_cp_als_result *r = &j->result;
  printf("tensor: %s, ", name);
  print_shape(&j->x);
  tenport_summary_dims("dims", j->x.order, j->x.dims);
  tenport_summary_text("dtype", tp_dtype_name(j->x.dtype));
  tenport_summary_integer("rank", c->rank);
  printf(" %s, %s; rank %d\n", tp_dtype_name(j->x.dtype),
         j->x.layout == TP_LAYOUT_LEFT ? "Fortran order" : "C order", c->rank);
  printf("mttkrp:");
  for (int k = 0; k < j->x.order; ++k) {
    tp_mttkrp_variant v = c->solver.mttkrp.variant;
    if (v == TP_MTTKRP_AUTO)
      v = tp_mttkrp_choose(j->space, &j->x, k, c->rank, &c->solver.mttkrp);
    printf(" mode %d %s%s", k, tp_mttkrp_variant_name(v), k + 1 < j->x.order ? "," : "");
  }
  printf("; %d pass%s over the tensor per iteration%s\n", r->passes_per_iteration,
         r->passes_per_iteration == 1 ? "" : "es", c->solver.reuse_partials ? "" : " (--no-reuse)");
  tenport_cp_print_phases(j->phases, r, &c->watch);
  tenport_cp_print_result(r, seconds);
}

/* "s per iteration" leaves the setup out: distributed, it holds the first use of every
 * communicator, which on GPUs costs more than many iterations. */
void tenport_cp_print_result(const tp_cp_als_result *r, double seconds) {
  double iterating = r->seconds - r->setup_seconds;
  int all_iterations = 0; /* of every start: the time per iteration counts them all */
  printf("fit %.10f after %d iteration%s (%s), %.3f s (setup %.3f s)", r->fit, r->iterations,
         r->iterations == 1 ? "" : "s",
         r->converged         ? "converged"
         : r->stopped_by_time ? "time limit"
                              : "iteration limit",
         r->seconds, r->setup_seconds);
  all_iterations = r->starts > 1 ? 0 : r->iterations;
  if (all_iterations)
    printf(", %.4f s per iteration", iterating / all_iterations);
  printf("\n");
  if (r->starts > 1)
    printf("starts: %d, the best start %d (seed + %d)\n", r->starts, r->best_start + 1,
           r->best_start);
  printf("line search: %d extrapolation%s kept\n", r->extrapolations,
         r->extrapolations == 1 ? "" : "s");
  printf("rank-revealing fallback solves: %d\n", r->fallback_solves);
  printf("total %.3f s (reading, copies and writing included)\n", seconds);
  tenport_summary_number("fit", r->fit);
  tenport_summary_integer("iterations", r->iterations);
  tenport_summary_text("stopped", r->converged         ? "converged"
                                  : r->stopped_by_time ? "time limit"
                                                       : "iteration limit");
  tenport_summary_integer("starts", r->starts),
      tenport_summary_integer("best_start", r->best_start);
  tenport_summary_integer("extrapolations", r->extrapolations);
  tenport_summary_integer("fallback_solves", r->fallback_solves);
  tenport_summary_number("solver_seconds", r->seconds);
}

/* The model (with --output) and the history (with --history) into the set. */
static tp_status write_outputs(const cp_cli *c, cp_job *j) {
  tp_kruskal *m = &j->model;
  tp_status st = TP_SUCCESS;
  if (c->output)
    st = tp_kruskal_alloc(NULL, m->dtype, m->order, m->dims, m->rank, &j->host_model);
  if (st == TP_SUCCESS && c->output)
    st = tp_kruskal_copy_to_host(j->space, &j->host_model, m);
  if (st == TP_SUCCESS)
    st = tenport_cp_write_outputs(j->set, c->output, c->history, &j->host_model, &c->watch,
                                  &c->solver, &j->result);
  return st;
}

/* X (host_x filled) into the space, the decomposition, and the output files. */
static tp_status decompose(cp_cli *c, cp_job *j) {
  tp_dense *h = &j->host_x;
  double t0 = tenport_seconds();
  tp_status st = tp_dense_alloc(j->space, h->dtype, h->order, h->dims, h->layout, &j->x);
  if (st == TP_SUCCESS)
    st = tp_dense_copy_to_device(j->space, &j->x, h);
  j->phases.build = tenport_seconds() - t0, t0 = tenport_seconds();
  if (st == TP_SUCCESS && c->init) {
    st = tp_kruskal_read_npy(c->init, h->dtype, h->order, h->dims, c->rank, &j->init);
    c->solver.init = &j->init;
  }
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(j->space, h->dtype, h->order, h->dims, c->rank, &j->model);
  c->solver.rank = c->rank;
  j->phases.init = tenport_seconds() - t0;
  c->watch.iteration_seconds = 0;
  tenport_cp_watch *watch = c->quiet ? NULL : &c->watch;
  tenport_cp_watch_begin(watch);
  if (st == TP_SUCCESS)
    st = tp_cp_als(j->space, &j->x, &c->solver, &j->model, &j->result);
  tenport_cp_watch_end(watch);
  t0 = tenport_seconds();
  if (st == TP_SUCCESS)
    st = write_outputs(c, j);
  j->phases.write = tenport_seconds() - t0;
  c->solver.init = NULL;
  return st;
}

/* A .tns or .tpb input goes to the sparse path. */
static int run_sparse_file(tenport_space_ahead *ahead, cp_cli *c, tp_input *in,
                           tp_output_set *set) {
  if (c->dense_only_options) {
    fprintf(stderr,
            "tenport cp-als: --mttkrp and --no-reuse choose how a dense tensor's "
            "MTTKRPs run; %s is a sparse tensor, whose MTTKRP is FLYCOO's\n",
            tp_input_name(in));
    return 2;
  }
  tenport_cp_request q;
  memset(&q, 0, sizeof q);
  q.in = in, q.set = set, q.init = c->init, q.output = c->output, q.rank = c->rank;
  q.history = c->history;
  q.order = c->order, q.dims = c->order ? c->dims : NULL, q.text = &c->text.read;
  q.dtype = TP_DTYPE_F64;
  if (c->precision)
    q.dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  else if (tp_coo_input_dtype(in, &q.dtype) != TP_SUCCESS)
    return fail();
  q.solver = &c->solver;
  q.watch = c->quiet ? NULL : &c->watch;
  q.check_fit = c->check_fit;
  return tenport_cp_als_sparse(ahead, &q);
}

/* The precision of the run: --precision, else the file's float type (float64 for other
 * element types). With --output, the model's files are added to the set now that the
 * order is known, before the tensor is read. */
static int plan_dense(const cp_cli *c, tp_input *in, tp_output_set *set, tp_dtype *dtype) {
  tp_dense_header h;
  if (tp_dense_peek_header(in, &h) != TP_SUCCESS)
    return fail();
  *dtype = h.dtype == TP_DTYPE_F32 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  if (c->precision)
    *dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  int order_ok = h.order >= 2 && h.order <= TP_DENSE_MAX_ORDER; /* else the reader says why */
  if (set && c->output && order_ok && tp_kruskal_reserve_npy(set, c->output, h.order) != TP_SUCCESS)
    return fail();
  return 0;
}

static int run_dense_file(tenport_space_ahead *ahead, cp_cli *c, tp_input *in, tp_output_set *set) {
  cp_job j;
  memset(&j, 0, sizeof j);
  j.set = set;
  double t0 = tenport_seconds();
  tp_dtype dtype = TP_DTYPE_F64;
  int code = plan_dense(c, in, set, &dtype);
  if (code)
    return code;
  double t_read = tenport_seconds();
  tp_status st = tp_dense_read_input(in, dtype, &j.host_x); /* .npy or dense text */
  j.phases.read = tenport_seconds() - t_read;
  if (st == TP_SUCCESS && !(j.space = tenport_space_ahead_wait(ahead, "cp-als"))) {
    job_free(&j);
    return 1;
  }
  if (st == TP_SUCCESS)
    st = decompose(c, &j);
  code = st == TP_SUCCESS ? 0 : fail();
  if (code == 0) {
    print_summary(c, &j, tp_input_name(in), tenport_seconds() - t0);
    if (c->output)
      printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", c->output, c->output, j.x.order - 1);
    if (c->check_fit >= 0)
      code = tenport_cp_check_fit(j.result.fit, c->check_fit);
  }
  job_free(&j);
  return code;
}

/* Inputs no output may replace: the tensor and the --init files. The history's file
 * joins the set at once; the model's once the order is known. */
static int begin_outputs(const cp_cli *c, const tp_input *in, tp_output_set **set) {
  char names[TP_DENSE_MAX_ORDER + 1][4096];
  const char *inputs[TP_DENSE_MAX_ORDER + 1];
  int n = 0;
  for (int k = -1; c->init && k < TP_DENSE_MAX_ORDER; ++k, ++n) {
    if (k < 0)
      snprintf(names[n], sizeof names[n], "%s_lambda.npy", c->init);
    else
      snprintf(names[n], sizeof names[n], "%s_factor%d.npy", c->init, k);
    inputs[n] = names[n];
  }
  if (tenport_outputs_begin("cp-als", set, in, inputs, n))
    return 1;
  if (c->history && tenport_outputs_add("cp-als", *set, c->history))
    return 1;
  return c->output ? tenport_outputs_check_folder("cp-als", c->output) : 0;
}

/* The input's content says which path it takes: .npy dense, .tns or .tpb sparse. The
 * space is created meanwhile, on a thread of its own. */
static int run_file(cp_cli *c) {
  tp_input *in = NULL;
  tp_output_set *set = NULL;
  tp_file_format format = TP_FILE_UNKNOWN;
  tenport_space_ahead ahead;
  tenport_space_ahead_start(&ahead);
  int code = tenport_open_input("cp-als", c->input, &in);
  if (code == 0 && (c->output || c->history))
    code = begin_outputs(c, in, &set);
  if (code == 0 && tp_input_format(in, &format) != TP_SUCCESS)
    code = fail();
  if (code == 0)
    code = tenport_text_options_fit("cp-als", in, &c->text);
  int dense = format == TP_FILE_NPY || format == TP_FILE_DENSE_TEXT;
  if (code == 0 && dense && c->dims_text) {
    fprintf(stderr,
            "tenport cp-als: --dims applies to sparse inputs (.tns, .tpb); %s is a "
            "dense tensor, whose file gives its dims\n",
            tp_input_name(in));
    code = 2;
  }
  if (code == 0 && dense)
    code = run_dense_file(&ahead, c, in, set);
  else if (code == 0 && (format == TP_FILE_TPB || format == TP_FILE_TEXT))
    code = run_sparse_file(&ahead, c, in, set);
  else if (code == 0)
    code = (tp_input_wrong_format(in, format,
                                  "a dense tensor (.npy or dense 'tensor' text) or "
                                  "a sparse one (.tns or .tpb)"),
            fail());
  tp_output_set_destroy(&set);
  tp_input_close(&in);
  return tenport_space_ahead_finish(&ahead, "cp-als", code);
}

static int run_example(tp_space *space, cp_cli *c) {
  static const int64_t dims[3] = {30, 40, 20};
  cp_job j;
  memset(&j, 0, sizeof j);
  j.space = space;
  c->rank = EXAMPLE_RANK;
  double t0 = tenport_seconds();
  tp_dtype dtype = c->precision && !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  printf("planted rank-%d tensor 30x40x20 (%s, no noise, seed %d), random start seed %llu\n",
         EXAMPLE_RANK, tp_dtype_name(dtype), EXAMPLE_TENSOR_SEED,
         (unsigned long long)c->solver.seed);
  int code = c->output || c->history ? begin_outputs(c, NULL, &j.set) : 0;
  if (code == 0 && c->output && tp_kruskal_reserve_npy(j.set, c->output, 3) != TP_SUCCESS)
    code = fail();
  tp_status st =
      code ? TP_SUCCESS : tp_dense_alloc(NULL, dtype, 3, dims, TP_LAYOUT_LEFT, &j.host_x);
  if (code == 0 && st == TP_SUCCESS)
    st = tp_dense_random_planted(&j.host_x, EXAMPLE_RANK, 0.0, EXAMPLE_TENSOR_SEED, NULL);
  if (code == 0 && st == TP_SUCCESS)
    st = decompose(c, &j);
  code = code ? code : st == TP_SUCCESS ? 0 : fail();
  if (code == 0) {
    print_summary(c, &j, "planted (in memory)", tenport_seconds() - t0);
    code = tenport_cp_check_fit(j.result.fit, c->check_fit >= 0 ? c->check_fit : EXAMPLE_FIT);
  }
  tp_output_set_destroy(&j.set);
  job_free(&j);
  return code;
}

int tenport_cp_check_fit(double fit, double want) {
  int pass = fit >= want;
  printf("check: fit %.10f >= %.4f: %s\n", fit, want, pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

static int run_example_job(tp_space *space, void *cli) { return run_example(space, (cp_cli *)cli); }

/* mpirun ... tenport cp-als (or --distributed): every rank runs this. */
static int run_distributed(cp_cli *c) {
  if (tenport_ranks_available("cp-als"))
    return 2;
  if (c->text.given) { /* every rank prints it: no rank is known before MPI starts */
    fprintf(stderr, "tenport cp-als: --index-base and --no-header do not apply to a "
                    "distributed run: the ranks read FROSTT text (1-based unless a header "
                    "says 0-based)\n");
    return 2;
  }
  if (c->input)
    tenport_summary_input(c->input);
  tenport_cp_dist_request q;
  memset(&q, 0, sizeof q);
  q.input = c->input, q.init = c->init, q.output = c->output, q.grid = c->grid;
  q.rank = c->rank, q.order = c->order;
  memcpy(q.dims, c->dims, sizeof q.dims);
  q.generate = c->generate;
  q.planted = c->planted;
  q.solver = &c->solver, q.watch = c->quiet ? NULL : &c->watch, q.check_fit = c->check_fit;
  q.precision = c->precision, q.history = c->history;
  return tenport_cp_als_distributed(&q);
}

int tenport_cmd_cp_als(int argc, char **argv) {
  cp_cli c;
  int code = tenport_parsed(parse_args(argc, argv, &c), usage);
  if (code >= 0)
    return code;
  if (!c.example && (c.distributed || c.generate.nnz || c.planted.order || tp_comm_launched())) {
    code = run_distributed(&c);
    tenport_cp_watch_free(&c.watch);
    return code;
  }
  if (c.example)
    code = tenport_run_in_space("cp-als", run_example_job, &c);
  else
    code = run_file(&c);
  tenport_cp_watch_free(&c.watch);
  return code;
}
