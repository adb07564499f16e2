/* tenport gen sparse: a random sparse tensor as .tns or .tpb, with skewed indices and
 * uniform, Pareto or binary values, or a planted sparse low-rank tensor. Arguments ->
 * generate -> write -> report. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gen_cli.h"

void tenport_gen_usage_sparse(FILE *out) {
  fprintf(out,
          "usage: tenport gen sparse --dims I0xI1x... --nnz N --output X.tns|X.tpb [options]\n"
          "       tenport gen sparse --dims I0xI1x... --rank R --support S --output X [options]\n"
          "A random sparse tensor, written as FROSTT text (.tns) or tenport binary (.tpb) by\n"
          "the output's extension; the same seed gives the same tensor on every machine.\n"
          "With --nnz: N draws, mode m's index floor(u^s_m * I_m) for u uniform in [0, 1), so\n"
          "a skew s_m > 1 crowds the nonzeros into the first slices; equal coordinates are\n"
          "then summed (kept at 1 for --values ones): the tensor may hold fewer than N.\n"
          "With --rank: a planted tensor, a random Kruskal tensor of rank R whose factor\n"
          "columns each have S nonzero rows (entries uniform in [0.5, 1.5), lambda = 1),\n"
          "stored exactly on its nonzero pattern (at most R * S^d nonzeros), each value times\n"
          "1 + noise * N(0, 1); CP of rank R fits it exactly without noise.\n"
          "  --dims I0xI1x...    mode sizes, 1 to %d modes (2 or more with --rank)\n"
          "  --nnz N             number of random draws\n"
          "  --skew S|S0,S1,...  skew of every mode, or one per mode (1: uniform)\n"
          "  --values V          uniform: in [0, 1) (default); pareto: (1 - u)^(-1/alpha) >= 1;\n"
          "                      ones: a binary tensor\n"
          "  --alpha A           shape of the Pareto values (1.5)\n"
          "  --rank R            rank of the planted tensor\n"
          "  --support S         nonzero rows of each planted factor column\n"
          "  --noise X           relative noise of the planted values (0)\n"
          "  --seed S            random seed (1)\n"
          "  --precision P       f32 or f64 (f64)\n"
          "  --output X          X.tns or X.tpb\n" TENPORT_NO_HEADER_OUT_HELP
          "  --truth PREFIX      with --rank: the planted Kruskal tensor as PREFIX_lambda.npy\n"
          "                      and PREFIX_factor<k>.npy (I_k x R, C order)\n",
          TP_COO_MAX_ORDER);
  tenport_conventions_help(out);
}

typedef struct sparse_cli {
  const char *dims_text, *skew_text, *values_text, *output, *truth;
  tp_coo_random_options random; /* dtype, order, dims, nnz, skew, values, alpha, seed */
  int has_nnz, has_alpha, has_noise;
  int no_header_out; /* --no-header-out */
  int rank;
  int64_t support;
  double noise;
} sparse_cli;

static int parse_values(sparse_cli *c, const char *v) {
  static const char *const names[] = {"uniform", "pareto", "ones"};
  static const tp_coo_values kinds[] = {TP_COO_VALUES_UNIFORM, TP_COO_VALUES_PARETO,
                                        TP_COO_VALUES_ONES};
  int k;
  c->values_text = v;
  if (!tenport_parse_choice(v, names, 3, &k))
    return 0;
  c->random.values = kinds[k];
  return 1;
}

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int sparse_value(sparse_cli *c, const char *a, const char *v) {
  tp_coo_random_options *o = &c->random;
  if (!strcmp(a, "--dims"))
    return c->dims_text = v, 1; /* checked with its own messages in sparse_dims */
  if (!strcmp(a, "--skew"))
    return c->skew_text = v, 1; /* likewise in sparse_skew */
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--truth"))
    return tenport_parse_text(v, &c->truth);
  if (!strcmp(a, "--nnz"))
    return c->has_nnz = 1, tenport_gen_parse_count(v, 0, &o->nnz);
  if (!strcmp(a, "--values"))
    return parse_values(c, v);
  if (!strcmp(a, "--alpha"))
    return c->has_alpha = 1, tenport_parse_number(v, 0, 1, INFINITY, 0, &o->alpha);
  if (!strcmp(a, "--rank"))
    return tenport_parse_int(v, 1, 1 << 30, &c->rank);
  if (!strcmp(a, "--support"))
    return tenport_gen_parse_count(v, 1, &c->support);
  if (!strcmp(a, "--noise"))
    return c->has_noise = 1, tenport_parse_number(v, 0, 0, INFINITY, 0, &c->noise);
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &o->seed);
  if (!strcmp(a, "--precision")) {
    int single;
    if (!tenport_parse_choice(v, tenport_precisions, 2, &single))
      return 0;
    o->dtype = single ? TP_DTYPE_F32 : TP_DTYPE_F64;
    return 1;
  }
  return -1;
}

/* Options of one kind of tensor used with the other. */
static int sparse_mixed_options(const sparse_cli *c) {
  if (c->has_nnz && c->rank)
    return tenport_gen_usage_error(
        "--nnz (random draws) and --rank (a planted tensor) exclude each other");
  if (!c->has_nnz && !c->rank)
    return tenport_gen_usage_error("give --nnz N for a random tensor or --rank R --support S for a "
                                   "planted one");
  if (c->rank && !c->support)
    return tenport_gen_usage_error("--rank needs --support (nonzero rows per factor column)");
  if (!c->rank && (c->support || c->has_noise || c->truth))
    return tenport_gen_usage_error(
        "--support, --noise and --truth describe a planted tensor: they need "
        "--rank");
  if (c->rank && (c->skew_text || c->values_text || c->has_alpha))
    return tenport_gen_usage_error(
        "--skew, --values and --alpha describe random draws: they need --nnz, "
        "not --rank");
  if (c->has_alpha && c->random.values != TP_COO_VALUES_PARETO)
    return tenport_gen_usage_error(
        "--alpha is the shape of Pareto values: it needs --values pareto");
  return 0;
}

static int sparse_check(const sparse_cli *c) {
  if (!c->dims_text || !c->output) {
    fprintf(stderr, "tenport gen: %s is required ('tenport gen sparse --help')\n",
            !c->dims_text ? "--dims" : "--output");
    return 2;
  }
  if (!tenport_coo_format(c->output)) {
    fprintf(stderr, "tenport gen: --output '%s' must end in .tns (text) or .tpb (binary)\n",
            c->output);
    return 2;
  }
  if (c->no_header_out && tenport_coo_format(c->output) != 't')
    return tenport_gen_usage_error("--no-header-out applies to a .tns output");
  return sparse_mixed_options(c);
}

static int sparse_dims(sparse_cli *c) {
  char why[160];
  tp_coo_random_options *o = &c->random;
  if (!tenport_parse_dims(c->dims_text, TP_COO_MAX_ORDER, o->dims, &o->order, why, sizeof why))
    return tenport_gen_shape_error("--dims", c->dims_text, why);
  if (c->rank && o->order < 2)
    return tenport_gen_shape_error("--dims", c->dims_text, "a planted tensor has at least 2 modes");
  return 0;
}

/* "4" for every mode or "4,1,1" for each; 0 on success, 2 after reporting why not. */
static int sparse_skew(sparse_cli *c) {
  tp_coo_random_options *o = &c->random;
  const char *p = c->skew_text;
  int n = 0;
  for (; p; ++n) {
    size_t len = strcspn(p, ",");
    char item[64];
    if (n == o->order)
      return tenport_gen_shape_error("--skew", c->skew_text, "more values than modes");
    snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
    if (len > 63 || !tenport_parse_double(item, &o->skew[n]) || o->skew[n] <= 0)
      return tenport_gen_shape_error("--skew", c->skew_text, "each skew is a number above 0");
    p = p[len] ? p + len + 1 : NULL;
  }
  if (n == 1)
    for (int m = 1; m < o->order; ++m)
      o->skew[m] = o->skew[0];
  else if (n > 1 && n != o->order)
    return tenport_gen_shape_error("--skew", c->skew_text, "give one skew, or one per mode");
  return 0;
}

/* argv[0] is "sparse". 0: run; 1: help was asked for; 2: usage error (reported). */
static int sparse_args(int argc, char **argv, sparse_cli *c) {
  memset(c, 0, sizeof *c);
  c->random.dtype = TP_DTYPE_F64, c->random.seed = 1, c->random.alpha = 1.5;
  c->random.values = TP_COO_VALUES_UNIFORM;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (!strcmp(a, "--no-header-out")) {
      c->no_header_out = 1;
      continue;
    }
    const char *v = tenport_option_value(argc, argv, i);
    int r = sparse_value(c, a, v ? v : "");
    if (tenport_option_error("gen", a, r, v))
      return 2;
    ++i;
  }
  if (sparse_check(c) || sparse_dims(c))
    return 2;
  return sparse_skew(c);
}

static void sparse_summary(const sparse_cli *c, const tp_coo *t, int64_t merged, double seconds) {
  const tp_coo_random_options *o = &c->random;
  tenport_summary_dims("dims", t->order, t->dims);
  tenport_summary_integer("nnz", (long long)t->nnz);
  tenport_summary_phase("generate", seconds);
  printf("%s: ", c->output);
  tenport_gen_print_dims(t);
  printf(", nnz %lld, %s, ", (long long)t->nnz, tp_dtype_name(t->dtype));
  if (c->rank) {
    printf("planted rank %d, support %lld, noise %g", c->rank, (long long)c->support, c->noise);
  } else {
    printf("%lld draws (%lld duplicates merged), %s values", (long long)o->nnz, (long long)merged,
           c->values_text ? c->values_text : "uniform");
    if (o->values == TP_COO_VALUES_PARETO)
      printf(" (alpha %g)", o->alpha);
    printf(", skew %s", c->skew_text ? c->skew_text : "1");
  }
  printf(", seed %llu (%.3f s)\n", (unsigned long long)o->seed, seconds);
  if (c->truth)
    printf("truth: %s_lambda.npy, %s_factor{0..%d}.npy\n", c->truth, c->truth, t->order - 1);
}

static int sparse_generate(const sparse_cli *c) {
  tp_coo t;
  tp_kruskal truth;
  memset(&truth, 0, sizeof truth);
  int64_t merged = 0;
  const tp_coo_random_options *o = &c->random;
  tp_output_set *set = NULL;
  memset(&t, 0, sizeof t);
  double t0 = tenport_seconds();
  if (tenport_gen_begin_outputs(c->output, c->truth, o->order, &set))
    return 1;
  tp_status st = c->rank ? tp_coo_random_planted(o->dtype, o->order, o->dims, c->rank, c->support,
                                                 c->noise, o->seed, &t, c->truth ? &truth : NULL)
                         : tp_coo_random(o, &t, &merged);
  double seconds = tenport_seconds() - t0;
  if (st == TP_SUCCESS)
    st = tenport_gen_write_coo(set, c->output, &t, c->no_header_out);
  if (st == TP_SUCCESS)
    st = tenport_gen_finish_outputs(set, c->truth, &truth);
  int code = st == TP_SUCCESS ? 0 : tenport_gen_fail();
  if (code == 0)
    sparse_summary(c, &t, merged, seconds);
  tp_output_set_destroy(&set);
  tp_kruskal_free(NULL, &truth);
  tp_coo_free(NULL, &t);
  return code;
}

int tenport_gen_sparse(int argc, char **argv) {
  sparse_cli c;
  int code = tenport_parsed(sparse_args(argc, argv, &c), tenport_gen_usage_sparse);
  if (code >= 0)
    return code;
  return sparse_generate(&c);
}
