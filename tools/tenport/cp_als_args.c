/* tenport cp-als's command line: the usage text, the options and their checks, into a
 * tenport_cp_cli (cp_als_cli.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cp_als_cli.h"
#include "tenport/tenport.h"

void tenport_cp_als_usage(FILE *out) {
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
          "  --nonneg            nonnegative factors: each mode's update is HALS (column\n"
          "                      by column, each entry the nonnegative least-squares\n"
          "                      minimiser with the others fixed; up to 10 sweeps a\n"
          "                      row); with --mask, gcp's --lower 0\n"
          "  --history FILE.json the fit, its change and the time of every iteration\n"
          "  --mask M            fit only the observed entries (M: a 0/1 .npy of X's shape,\n"
          "                      0 = missing; for a sparse X, a .tns or .tpb listing the\n"
          "                      missing entries): weighted least squares by CP-WOPT, run as\n"
          "                      tenport gcp --loss gaussian --mask M (its options, its\n"
          "                      defaults: L-BFGS-B, at most 1000 iterations)\n"
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
static int parse_init(tenport_cp_cli *c, const char *v) {
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
static int parse_value(tenport_cp_cli *c, const char *a, const char *v) {
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
static int parse_flag(tenport_cp_cli *c, const char *a) {
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
  if (!strcmp(a, "--nonneg"))
    return c->solver.nonneg = 1;
  if (!strcmp(a, "--distributed"))
    return c->distributed = 1;
  return tenport_text_option(&c->text, a, NULL) == 1;
}

/* "I0xI1x..." (or with commas) of option opt into *order and dims; 0 or 2 (reported). */
static int parse_shape(const char *opt, const char *text, int *order, int64_t *dims) {
  return tenport_parse_shape("cp-als", opt, text, order, dims);
}

/* The planted dense tensor the ranks make (--gen-shape), as tenport gen dense makes it. */
static int parse_planted(tenport_cp_cli *c) {
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
static int parse_generate(tenport_cp_cli *c) {
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

static int check_args(tenport_cp_cli *c) {
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

static int flag_of(void *c, const char *a) { return parse_flag((tenport_cp_cli *)c, a); }

static int value_of(void *c, const char *a, const char *v) {
  return parse_value((tenport_cp_cli *)c, a, v);
}

int tenport_cp_als_args(int argc, char **argv, tenport_cp_cli *c) {
  memset(c, 0, sizeof *c);
  c->solver = tp_cp_als_options_default();
  c->check_fit = -1;
  c->text.read = tp_tns_options_default();
  const int r = tenport_parse_options("cp-als", argc, argv, c, flag_of, value_of);
  if (r)
    return r;
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
