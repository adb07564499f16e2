/* tenport gcp's command line: the usage text, the options and their checks, into a
 * tenport_gcp_cli (gcp_cli.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/gcp_cli.h"

void tenport_gcp_usage(FILE *out) {
  fprintf(out,
          "usage: tenport gcp --input X.npy|X.txt|X.tns|X.tpb --rank R [options]\n"
          "Generalized CP (Hong, Kolda & Duersch): the rank-R CP model M of a dense or\n"
          "sparse tensor X that minimises the sum over X's observed entries of a loss\n"
          "f(x, m) suited to the data (counts, 0/1, positive values), with a lower bound on\n"
          "the factors, by L-BFGS-B or by Adam on sampled gradients (GCP-Adam), with the\n"
          "defaults of the Tensor Toolbox's gcp_opt.\n"
          "  --input FILE        X.npy: a dense tensor of 2 to %d modes (any numeric dtype,\n"
          "                      C or Fortran order) or dense 'tensor' text; X.tns (FROSTT\n"
          "                      or sptensor text) or X.tpb (tenport binary): a sparse\n"
          "                      tensor, whose unstored entries are zeros that count (made\n"
          "                      dense in memory for L-BFGS-B, never for Adam); any of them\n"
          "                      gzip-compressed\n"
          "  --rank R            number of components\n"
          "  --loss L            the loss (below; gaussian)\n"
          "  --loss-param P      the loss's parameter: negative-binomial's number of trials\n"
          "                      r > 0, huber's threshold d > 0, beta's b (not 0 or 1)\n"
          "  --mask M            the observed entries. Dense X: a .npy of X's shape (any\n"
          "                      numeric dtype, bool too), nonzero where X is observed; X\n"
          "                      may hold anything, NaN too, where it is 0. Sparse X: a\n"
          "                      .tns or .tpb of the missing entries' coordinates (values\n"
          "                      ignored). Default: every entry is observed\n"
          "  --lower B           the factors' lower bound (default: the loss's, below)\n"
          "  --init I            the start: random (factors uniform in [0, 1) from --seed,\n"
          "                      scaled so that ||M|| = ||X||; default) or PREFIX: factors\n"
          "                      from PREFIX_factor<k>.npy (I_k x R) and PREFIX_lambda.npy\n"
          "                      if it exists (write ./random for a prefix named random)\n"
          "  --seed S            seed of the random start (1)\n"
          "  --solver S          lbfgsb (the full gradient; default) or adam (sampled\n"
          "                      gradients: epochs of Adam steps, each epoch checked on a\n"
          "                      fixed sample and undone, with the step times --decay, if\n"
          "                      the loss's estimate rose)\n"
          "  --max-iters N       most L-BFGS-B iterations (1000)\n"
          "  --max-evals N       most evaluations of the loss and its gradient (15000)\n"
          "  --factr F           stop when the loss's relative reduction is below F times\n"
          "                      the machine epsilon (1e7)\n"
          "  --pgtol T           stop when the projected gradient's largest entry is below\n"
          "                      T (1e-5)\n"
          "  --memory M          L-BFGS correction pairs (10)\n"
          "  --epochs N          adam: most epochs (1000)\n"
          "  --epoch-iters N     adam: steps per epoch (1000)\n"
          "  --rate R            adam: the step size (1e-3)\n"
          "  --decay D           adam: the step's factor after a failed epoch (0.1)\n"
          "  --max-fails N       adam: failed epochs allowed (1)\n"
          "  --samples N         adam: samples per step: entries of a dense X (default\n"
          "                      max(1000, 10 N / epochs), at most N), nonzeros of a sparse\n"
          "                      X (max(1000, 3 nnz / epochs), at most nnz)\n"
          "  --zero-samples N    adam, sparse X: zero draws per step (as many as --samples)\n"
          "  --function-samples N  adam: the fixed sample of the loss's estimate: dense\n"
          "                      max(N / 10, 10^6), sparse max(nnz / 100, 10^5) nonzeros\n"
          "  --function-zero-samples N  adam, sparse X: its zero draws (as many)\n"
          "  --max-seconds S     stop after the iteration (or epoch) that ends past S seconds\n"
          "  --precision P       f32 or f64 (default: the file's; other dtypes give f64)\n"
          "  --no-normalize      write the factors as optimised, lambda = 1 (default: unit\n"
          "                      2-norm columns, their norms' product in lambda, largest\n"
          "                      lambda first)\n"
          "  --output PREFIX     write PREFIX_lambda.npy and PREFIX_factor<k>.npy (default:\n"
          "                      none; only the summary is printed)\n"
          "  --history FILE.json the loss, projected gradient and time of every iteration\n"
          "  --quiet             no progress line per iteration on stdout, and no live\n"
          "                      progress indicator on a terminal's stderr\n"
          "  --index-base B      a .tns input's (and mask's) indices: 1, 0 or auto (1-based\n"
          "                      unless an index 0 appears)\n"
          "  --no-header         every line of a .tns input (and mask) is a nonzero\n"
          "  --dims I0xI1x...    the shape of a sparse input (default: each mode's largest\n"
          "                      index)\n"
          "Losses f(x, m), x the data and m the model's entry, eps = 1e-10; in brackets,\n"
          "the observed entries each takes (counts: x = 0, 1, 2, ...), all of them finite:\n"
          "  gaussian           (x - m)^2\n"
          "  poisson            m - x log(m + eps)                       (counts)\n"
          "  poisson-log        exp(m) - x m                             (counts)\n"
          "  bernoulli-odds     log(m + 1) - x log(m + eps)              (0 or 1)\n"
          "  bernoulli-logit    log(exp(m) + 1) - x m                    (0 or 1)\n"
          "  gamma              x / (m + eps) + log(m + eps)             (x > 0)\n"
          "  rayleigh           2 log(m + eps) + (pi / 4) (x / (m + eps))^2  (x > 0)\n"
          "  negative-binomial  (r + x) log(m + 1) - x log(m + eps)      (counts)\n"
          "  huber              (x - m)^2 if |x - m| < d, else 2 d |x - m| - d^2\n"
          "  beta               (m + eps)^b / b - x (m + eps)^(b - 1) / (b - 1)  (x >= 0)\n"
          "  zt-poisson         m - x log(m + eps) + log(1 - exp(-m) + eps)  (counts)\n"
          "The factors' default lower bound is 0 for poisson, bernoulli-odds, gamma,\n"
          "rayleigh, negative-binomial, beta and zt-poisson (--lower may raise it), and\n"
          "none for the others. Under mpirun: a dense .npy (each rank its block) or a\n"
          "sparse .tns/.tpb (each rank its share, sent to the rank of its block);\n"
          "L-BFGS-B takes the single process's steps, Adam has each rank sample its\n"
          "block (docs/distributed.md).\n",
          TP_DENSE_MAX_ORDER);
  tenport_conventions_help(out);
}

/* ---- options ------------------------------------------------------------------- */

/* --loss: one of the library's loss names (the list of them otherwise). */
static int parse_loss(const char *v, tp_gcp_loss *loss) {
  const char *names[TP_GCP_LOSS_COUNT];
  for (int k = 0; k < TP_GCP_LOSS_COUNT; ++k)
    names[k] = tp_gcp_loss_name((tp_gcp_loss)k);
  int k;
  if (!tenport_parse_choice(v, names, TP_GCP_LOSS_COUNT, &k))
    return 0;
  *loss = (tp_gcp_loss)k;
  return 1;
}

/* --init: random or a prefix of factor files. */
static int parse_init(tenport_gcp_cli *c, const char *v) {
  c->init = NULL;
  return !strcmp(v, "random") || tenport_parse_text(v, &c->init);
}

/* A sample count: a positive integer below 2^62. */
static int parse_count(const char *v, int64_t *out) {
  uint64_t u;
  if (!tenport_parse_u64(v, &u))
    return 0;
  if (u < 1 || u > ((uint64_t)1 << 62))
    return tenport_expected("a count from 1 to 2^62");
  *out = (int64_t)u;
  return 1;
}

/* --solver: lbfgsb or adam. */
static int parse_solver_name(const char *v, tp_gcp_solver *solver) {
  static const char *const names[2] = {"lbfgsb", "adam"};
  int k;
  if (!tenport_parse_choice(v, names, 2, &k))
    return 0;
  *solver = k ? TP_GCP_SOLVER_ADAM : TP_GCP_SOLVER_LBFGSB;
  return 1;
}

/* Options of GCP-Adam; 1 if valid, 0 if not, -1 if a is none of them. */
static int parse_adam(tenport_gcp_cli *c, const char *a, const char *v) {
  tp_gcp_options *s = &c->solver;
  if (!strcmp(a, "--solver"))
    return parse_solver_name(v, &s->solver);
  if (!strcmp(a, "--epochs"))
    return tenport_parse_int(v, 1, 1 << 30, &s->epochs);
  if (!strcmp(a, "--epoch-iters"))
    return tenport_parse_int(v, 1, 1 << 30, &s->epoch_iters);
  if (!strcmp(a, "--rate"))
    return tenport_parse_number(v, 0, 1, INFINITY, 1, &s->rate);
  if (!strcmp(a, "--decay"))
    return tenport_parse_number(v, 0, 1, 1, 0, &s->decay);
  if (!strcmp(a, "--max-fails"))
    return tenport_parse_int(v, 0, 1 << 30, &s->max_fails);
  if (!strcmp(a, "--samples"))
    return parse_count(v, &s->gradient_samples);
  if (!strcmp(a, "--zero-samples"))
    return parse_count(v, &s->gradient_zeros);
  if (!strcmp(a, "--function-samples"))
    return parse_count(v, &s->function_samples);
  if (!strcmp(a, "--function-zero-samples"))
    return parse_count(v, &s->function_zeros);
  return -1;
}

/* Options of the solver; 1 if valid, 0 if not, -1 if a is none of them. */
static int parse_solver(tenport_gcp_cli *c, const char *a, const char *v) {
  tp_gcp_options *s = &c->solver;
  if (!strcmp(a, "--loss"))
    return parse_loss(v, &s->loss);
  if (!strcmp(a, "--loss-param"))
    return c->param_set = 1, tenport_parse_double(v, &s->loss_param);
  if (!strcmp(a, "--lower"))
    return tenport_parse_double(v, &s->lower);
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &s->seed);
  if (!strcmp(a, "--max-iters"))
    return tenport_parse_int(v, 1, 1 << 30, &s->max_iters);
  if (!strcmp(a, "--max-evals"))
    return tenport_parse_int(v, 1, 1 << 30, &s->max_evals);
  if (!strcmp(a, "--factr"))
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &s->factr);
  if (!strcmp(a, "--pgtol"))
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &s->pgtol);
  if (!strcmp(a, "--memory"))
    return tenport_parse_int(v, 1, 1000, &s->memory);
  if (!strcmp(a, "--max-seconds"))
    return tenport_parse_number(v, 0, 1, INFINITY, 0, &s->max_seconds);
  return parse_adam(c, a, v);
}

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int parse_value(tenport_gcp_cli *c, const char *a, const char *v) {
  int r = parse_solver(c, a, v);
  if (r >= 0)
    return r;
  if (!strcmp(a, "--input"))
    return tenport_parse_text(v, &c->input);
  if (!strcmp(a, "--mask"))
    return tenport_parse_text(v, &c->mask);
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--history"))
    return tenport_parse_text(v, &c->history);
  if (!strcmp(a, "--init"))
    return parse_init(c, v);
  if (!strcmp(a, "--rank"))
    return tenport_parse_int(v, 1, 1 << 20, &c->rank);
  if (!strcmp(a, "--precision"))
    return tenport_parse_precision(v, &c->precision);
  if (!strcmp(a, "--dims"))
    return tenport_parse_text(v, &c->dims_text);
  return tenport_text_option(&c->text, a, v);
}

/* Options without a value; 1 if a was one of them. */
static int parse_flag(tenport_gcp_cli *c, const char *a) {
  if (!strcmp(a, "--quiet"))
    return c->quiet = 1;
  if (!strcmp(a, "--no-normalize")) {
    c->solver.normalize = 0;
    return 1;
  }
  return tenport_text_option(&c->text, a, NULL) == 1;
}

/* What each loss's parameter is, for the message when it is missing. */
static const char *param_meaning(tp_gcp_loss loss) {
  return loss == TP_GCP_NEGATIVE_BINOMIAL ? "its number of trials r > 0"
         : loss == TP_GCP_HUBER           ? "its threshold d > 0"
                                          : "its exponent b, not 0 or 1";
}

/* --loss-param given exactly when the loss has one, and valid for it; --lower within the
 * loss's own bound. 0, or 2 after a message. */
static int check_loss(const tenport_gcp_cli *c) {
  const tp_gcp_options *s = &c->solver;
  const char *name = tp_gcp_loss_name(s->loss);
  if (tp_gcp_loss_has_param(s->loss) && !c->param_set) {
    fprintf(stderr, "tenport gcp: --loss %s needs --loss-param (%s)\n", name,
            param_meaning(s->loss));
    return 2;
  }
  if (!tp_gcp_loss_has_param(s->loss) && c->param_set) {
    fprintf(stderr,
            "tenport gcp: --loss %s has no parameter: --loss-param applies to "
            "negative-binomial, huber and beta\n",
            name);
    return 2;
  }
  if (c->param_set && tp_gcp_loss_eval(s->loss, s->loss_param, 1, 1, NULL, NULL) != TP_SUCCESS) {
    fprintf(stderr, "tenport gcp: --loss-param %g is not valid for --loss %s: expected %s\n",
            s->loss_param, name, param_meaning(s->loss));
    return 2;
  }
  const double natural = tp_gcp_loss_lower_bound(s->loss);
  if (!isnan(s->lower) && s->lower < natural) {
    fprintf(stderr, "tenport gcp: --lower %g: the %s loss needs factors >= %g (its default)\n",
            s->lower, name, natural);
    return 2;
  }
  return 0;
}

static int check_args(tenport_gcp_cli *c) {
  if (!c->input || !c->rank) {
    fprintf(stderr, "tenport gcp: --input and --rank are required ('tenport gcp --help')\n");
    return 2;
  }
  if (c->dims_text && tenport_parse_shape("gcp", "--dims", c->dims_text, &c->order, c->dims))
    return 2;
  return check_loss(c);
}

static int flag_of(void *c, const char *a) { return parse_flag((tenport_gcp_cli *)c, a); }

static int value_of(void *c, const char *a, const char *v) {
  return parse_value((tenport_gcp_cli *)c, a, v);
}

int tenport_gcp_args(int argc, char **argv, tenport_gcp_cli *c) {
  memset(c, 0, sizeof *c);
  c->solver = tp_gcp_options_default();
  c->text.read = tp_tns_options_default();
  const int r = tenport_parse_options("gcp", argc, argv, c, flag_of, value_of);
  if (r)
    return r;
  if (check_args(c))
    return 2;
  c->solver.rank = c->rank;
  c->watch.max_iters =
      c->solver.solver == TP_GCP_SOLVER_ADAM ? c->solver.epochs : c->solver.max_iters;
  c->watch.quiet = c->quiet; /* quiet runs are timed too (the phases line) */
  c->watch.keep_history = c->history != NULL;
  c->solver.progress = tenport_gcp_watch_iteration;
  c->solver.progress_user = &c->watch;
  return 0;
}
