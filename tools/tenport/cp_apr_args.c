/* tenport cp-apr's command line: the usage text and the options, into a
 * tenport_cp_apr_cli (cp_apr_cli.h). */
#include <math.h>
#include <string.h>

#include "tools/tenport/cp_apr_cli.h"

void tenport_cp_apr_usage(FILE *out) {
  fprintf(out,
          "usage: tenport cp-apr --input X.tns|X.tpb|X.npy|X.txt --rank R [options]\n"
          "CP-APR (Chi & Kolda): the rank-R Poisson maximum-likelihood CP model of a count\n"
          "tensor, nonnegative factors, by multiplicative updates with the defaults of the\n"
          "Tensor Toolbox's cp_apr. Prints the log-likelihood sum(x log m - m) and the KKT\n"
          "violation; the factors' columns sum to 1, their weights in lambda.\n"
          "  --input FILE        the counts (finite, >= 0): X.tns or X.tpb sparse, or a\n"
          "                      dense X.npy or 'tensor' text (its nonzeros are taken: zeros\n"
          "                      add nothing to the updates), any of them gzip-compressed\n"
          "  --rank R            number of components\n"
          "  --init I            the start: random (factors uniform in [0, 1) from --seed;\n"
          "                      default) or PREFIX: factors from PREFIX_factor<k>.npy\n"
          "  --seed S            seed of the random start (1)\n"
          "  --max-iters N       most outer iterations (1000)\n"
          "  --max-inner N       multiplicative updates per mode and iteration (10)\n"
          "  --tol T             stop when every mode's KKT violation max |min(B, 1 - Phi)|\n"
          "                      is below T before its first update (1e-4)\n"
          "  --kappa K           the offset of an inadmissible zero (1e-2)\n"
          "  --kappa-tol K       an entry below it counts as zero (1e-10)\n"
          "  --inadmissible-phi P  such an entry is raised when its Phi exceeds P (1, as\n"
          "                      Chi & Kolda and the Tensor Toolbox; pyttb's cp_apr uses 0)\n"
          "  --precision P       f32 or f64 (default: the file's; other dtypes give f64)\n"
          "  --output PREFIX     write PREFIX_lambda.npy and PREFIX_factor<k>.npy\n"
          "  --quiet             no progress line per iteration\n"
          "  --index-base B      a .tns input's indices: 1, 0 or auto\n"
          "  --no-header         every line of a .tns input is a nonzero\n"
          "  --dims I0xI1x...    the shape of a sparse input (default: each mode's largest\n"
          "                      index)\n"
          "Under mpirun: each rank reads its share of a sparse .tns/.tpb; every Phi is summed\n"
          "over the ranks, which take the single process's steps (docs/distributed.md).\n");
  tenport_conventions_help(out);
}

static int parse_value(tenport_cp_apr_cli *c, const char *a, const char *v) {
  tp_cp_apr_options *s = &c->solver;
  if (!strcmp(a, "--input"))
    return tenport_parse_text(v, &c->input);
  if (!strcmp(a, "--rank"))
    return tenport_parse_int(v, 1, 1 << 20, &c->rank);
  if (!strcmp(a, "--init"))
    return (c->init = NULL, !strcmp(v, "random") || tenport_parse_text(v, &c->init));
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &s->seed);
  if (!strcmp(a, "--max-iters"))
    return tenport_parse_int(v, 1, 1 << 30, &s->max_iters);
  if (!strcmp(a, "--max-inner"))
    return tenport_parse_int(v, 1, 1 << 30, &s->max_inner);
  if (!strcmp(a, "--tol"))
    return tenport_parse_number(v, 0, 0, INFINITY, 1, &s->tol);
  if (!strcmp(a, "--kappa"))
    return tenport_parse_number(v, 0, 0, INFINITY, 1, &s->kappa);
  if (!strcmp(a, "--kappa-tol"))
    return tenport_parse_number(v, 0, 0, INFINITY, 1, &s->kappa_tol);
  if (!strcmp(a, "--inadmissible-phi"))
    return tenport_parse_double(v, &s->inadmissible_phi);
  if (!strcmp(a, "--precision"))
    return tenport_parse_precision(v, &c->precision);
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--dims"))
    return tenport_parse_text(v, &c->dims_text);
  return tenport_text_option(&c->text, a, v);
}

static int flag_of(void *c, const char *a) {
  tenport_cp_apr_cli *cli = (tenport_cp_apr_cli *)c;
  if (!strcmp(a, "--quiet"))
    return cli->quiet = 1;
  return tenport_text_option(&cli->text, a, NULL) == 1;
}

static int value_of(void *c, const char *a, const char *v) {
  return parse_value((tenport_cp_apr_cli *)c, a, v);
}

int tenport_cp_apr_args(int argc, char **argv, tenport_cp_apr_cli *c) {
  memset(c, 0, sizeof *c);
  c->solver = tp_cp_apr_options_default();
  c->text.read = tp_tns_options_default();
  const int r = tenport_parse_options("cp-apr", argc, argv, c, flag_of, value_of);
  if (r)
    return r;
  if (!c->input || !c->rank) {
    fprintf(stderr, "tenport cp-apr: --input and --rank are required ('tenport cp-apr --help')\n");
    return 2;
  }
  if (c->dims_text && tenport_parse_shape("cp-apr", "--dims", c->dims_text, &c->order, c->dims))
    return 2;
  c->solver.rank = c->rank;
  return 0;
}
