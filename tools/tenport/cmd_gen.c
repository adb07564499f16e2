/* tenport gen: test data, reproducible from a seed.
 *   gen dense:  a random dense tensor as .npy, uniform in [0, 1) or a planted low-rank
 *               tensor with relative Gaussian noise; the planted Kruskal tensor can be
 *               written beside it.
 *   gen sparse: a random sparse tensor as .tns or .tpb, with skewed indices and uniform,
 *               Pareto or binary values, or a planted sparse low-rank tensor.
 *   gen sttid:  the STTID paper's kinds of test tensor as .tns or .tpb, with exactly N
 *               distinct nonzeros: power-law (Pareto values) or knowledge-graph facts. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_files.h"
#include "tools/tenport/cli_tns_output.h"
#include "tools/tenport/commands.h"
#include "tenport/tenport.h"

static void usage_dense(FILE *out) {
  fprintf(out,
          "usage: tenport gen dense --dims I0xI1x... --output X.npy [options]\n"
          "A random dense tensor as a .npy file: every element uniform in [0, 1), or with\n"
          "--rank a planted low-rank tensor M + noise * ||M||_F / sqrt(N) * N(0, 1), M being\n"
          "a random Kruskal tensor (factor entries uniform in [0, 1), lambda = 1) and N the\n"
          "number of elements. The same seed gives the same tensor on every machine, in\n"
          "either layout.\n"
          "  --dims I0xI1x...    mode sizes, 2 to %d modes, each at least 1 (401x201x12x501)\n"
          "  --rank R            rank of the planted tensor (omit for a uniform tensor)\n"
          "  --noise X           relative size of the noise of the planted tensor (0)\n"
          "  --seed S            random seed (1)\n"
          "  --precision P       f32 or f64 (f64)\n"
          "  --layout L          right: C order, last index fastest, as NumPy writes (default)\n"
          "                      left: Fortran order, first index fastest\n"
          "  --output X.npy      the tensor\n"
          "  --truth PREFIX      with --rank: the planted Kruskal tensor as PREFIX_lambda.npy\n"
          "                      and PREFIX_factor<k>.npy (I_k x R, C order)\n",
          TP_DENSE_MAX_ORDER);
  tenport_conventions_help(out);
}

static void usage_sparse(FILE *out) {
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

static int usage_error(const char *what) {
  fprintf(stderr, "tenport gen: %s ('tenport gen --help')\n", what);
  return 2;
}

/* ---- gen dense ------------------------------------------------------------------------ */

typedef struct dense_cli {
  const char *shape_text, *output, *truth;
  int order, rank, single;
  int64_t dims[TP_DENSE_MAX_ORDER];
  double noise;
  uint64_t seed;
  tp_layout layout;
} dense_cli;

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int dense_value(dense_cli *c, const char *a, const char *v) {
  if (!strcmp(a, "--dims"))
    return c->shape_text = v, 1; /* checked with its own messages in dense_shape */
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--truth"))
    return tenport_parse_text(v, &c->truth);
  if (!strcmp(a, "--rank"))
    return tenport_parse_int(v, 1, 1 << 30, &c->rank);
  if (!strcmp(a, "--noise"))
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &c->noise);
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &c->seed);
  if (!strcmp(a, "--precision"))
    return tenport_parse_choice(v, tenport_precisions, 2, &c->single);
  if (!strcmp(a, "--layout")) {
    static const char *const names[] = {"right", "left"};
    int k;
    if (!tenport_parse_choice(v, names, 2, &k))
      return 0;
    c->layout = k ? TP_LAYOUT_LEFT : TP_LAYOUT_RIGHT;
    return 1;
  }
  return -1;
}

static int shape_error(const char *option, const char *text, const char *why) {
  fprintf(stderr, "tenport gen: %s '%s': %s\n", option, text, why);
  return 2;
}

/* "401x201x12x501" into c->order and c->dims; 0 on success, 2 after reporting why not. */
static int dense_shape(dense_cli *c) {
  char why[160];
  if (!tenport_parse_dims(c->shape_text, TP_DENSE_MAX_ORDER, c->dims, &c->order, why, sizeof why))
    return shape_error("--dims", c->shape_text, why);
  if (c->order < 2)
    return shape_error("--dims", c->shape_text,
                       "a dense tensor has at least 2 modes (sizes separated by 'x')");
  tp_dense t;
  memset(&t, 0, sizeof t);
  t.dtype = c->single ? TP_DTYPE_F32 : TP_DTYPE_F64;
  t.order = c->order;
  memcpy(t.dims, c->dims, sizeof c->dims);
  if (tp_dense_check(&t) != TP_SUCCESS)
    return shape_error("--dims", c->shape_text,
                       "the number of elements or bytes overflows 64 bits");
  return 0;
}

static int dense_check(const dense_cli *c) {
  if (!c->shape_text || !c->output) {
    fprintf(stderr, "tenport gen: %s is required ('tenport gen dense --help')\n",
            !c->shape_text ? "--dims" : "--output");
    return 2;
  }
  if (c->truth && !c->rank)
    return usage_error("--truth needs --rank (a uniform tensor has no planted Kruskal tensor)");
  if (c->noise > 0 && !c->rank)
    return usage_error("--noise needs --rank (it perturbs a planted tensor)");
  return 0;
}

/* argv[0] is "dense". 0: run; 1: help was asked for; 2: usage error (reported). */
static int dense_args(int argc, char **argv, dense_cli *c) {
  memset(c, 0, sizeof *c);
  c->seed = 1, c->layout = TP_LAYOUT_RIGHT;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    const char *v = tenport_option_value(argc, argv, i);
    int r = dense_value(c, a, v ? v : "");
    if (tenport_option_error("gen", a, r, v))
      return 2;
    ++i;
  }
  return dense_check(c) ? 2 : dense_shape(c);
}

static int fail(void) { return tenport_fail("gen", "failed"); }

/* The output set of a generator, ready before the work: the tensor, then the truth's
 * files (a model of `order` modes) when asked for. */
static int begin_outputs(const char *output, const char *truth, int order, tp_output_set **set) {
  if (tenport_outputs_begin("gen", set, NULL, NULL, 0))
    return 1;
  int code = tenport_outputs_add("gen", *set, output);
  if (code == 0 && truth && tp_kruskal_reserve_npy(*set, truth, order) != TP_SUCCESS)
    code = fail();
  if (code)
    tp_output_set_destroy(set);
  return code;
}

/* Writes the truth (if asked for) into the set and commits it. */
static tp_status finish_outputs(tp_output_set *set, const char *truth, const tp_kruskal *k) {
  tp_status st = truth ? tp_kruskal_write_npy_to(set, truth, k) : TP_SUCCESS;
  if (st == TP_SUCCESS && (st = tp_output_set_commit(set)) == TP_SUCCESS)
    tenport_summary_outputs(set);
  return st;
}

static void dense_summary(const dense_cli *c, double seconds) {
  tenport_summary_text("dims", c->shape_text);
  tenport_summary_phase("generate", seconds);
  printf("%s: %s", c->output, c->shape_text);
  printf(" %s, %s, ", c->single ? "float32" : "float64",
         c->layout == TP_LAYOUT_LEFT ? "Fortran order" : "C order");
  if (c->rank)
    printf("planted rank %d, noise %g", c->rank, c->noise);
  else
    printf("uniform in [0, 1)");
  printf(", seed %llu (%.3f s)\n", (unsigned long long)c->seed, seconds);
  if (c->truth)
    printf("truth: %s_lambda.npy, %s_factor{0..%d}.npy\n", c->truth, c->truth, c->order - 1);
}

static int dense_generate(const dense_cli *c) {
  tp_dense t;
  tp_kruskal truth;
  tp_output_set *set = NULL;
  memset(&truth, 0, sizeof truth);
  memset(&t, 0, sizeof t);
  double t0 = tenport_seconds();
  tp_dtype dtype = c->single ? TP_DTYPE_F32 : TP_DTYPE_F64;
  if (begin_outputs(c->output, c->truth, c->order, &set))
    return 1;
  tp_status st = tp_dense_alloc(NULL, dtype, c->order, c->dims, c->layout, &t);
  if (st == TP_SUCCESS)
    st = c->rank ? tp_dense_random_planted(&t, c->rank, c->noise, c->seed, c->truth ? &truth : NULL)
                 : tp_dense_random_uniform(&t, c->seed);
  double seconds = tenport_seconds() - t0;
  if (st == TP_SUCCESS)
    st = tp_dense_write_npy_to(set, c->output, &t);
  if (st == TP_SUCCESS)
    st = finish_outputs(set, c->truth, &truth);
  int code = st == TP_SUCCESS ? 0 : fail();
  if (code == 0)
    dense_summary(c, seconds);
  tp_output_set_destroy(&set);
  tp_kruskal_free(NULL, &truth);
  tp_dense_free(NULL, &t);
  return code;
}

static int gen_dense(int argc, char **argv) {
  dense_cli c;
  int code = tenport_parsed(dense_args(argc, argv, &c), usage_dense);
  if (code >= 0)
    return code;
  return dense_generate(&c);
}

/* ---- gen sparse ----------------------------------------------------------------------- */

typedef struct sparse_cli {
  const char *dims_text, *skew_text, *values_text, *output, *truth;
  tp_coo_random_options random; /* dtype, order, dims, nnz, skew, values, alpha, seed */
  int has_nnz, has_alpha, has_noise;
  int no_header_out; /* --no-header-out */
  int rank;
  int64_t support;
  double noise;
} sparse_cli;

static int parse_count(const char *v, int64_t lo, int64_t *out) {
  uint64_t u;
  if (!tenport_parse_u64(v, &u) || u > INT64_MAX || (int64_t)u < lo)
    return tenport_expected("an integer from %lld to %lld", (long long)lo, (long long)INT64_MAX);
  *out = (int64_t)u;
  return 1;
}

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
    return c->has_nnz = 1, parse_count(v, 0, &o->nnz);
  if (!strcmp(a, "--values"))
    return parse_values(c, v);
  if (!strcmp(a, "--alpha"))
    return c->has_alpha = 1, tenport_parse_number(v, 0, 1, INFINITY, 0, &o->alpha);
  if (!strcmp(a, "--rank"))
    return tenport_parse_int(v, 1, 1 << 30, &c->rank);
  if (!strcmp(a, "--support"))
    return parse_count(v, 1, &c->support);
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
    return usage_error("--nnz (random draws) and --rank (a planted tensor) exclude each other");
  if (!c->has_nnz && !c->rank)
    return usage_error("give --nnz N for a random tensor or --rank R --support S for a "
                       "planted one");
  if (c->rank && !c->support)
    return usage_error("--rank needs --support (nonzero rows per factor column)");
  if (!c->rank && (c->support || c->has_noise || c->truth))
    return usage_error("--support, --noise and --truth describe a planted tensor: they need "
                       "--rank");
  if (c->rank && (c->skew_text || c->values_text || c->has_alpha))
    return usage_error("--skew, --values and --alpha describe random draws: they need --nnz, "
                       "not --rank");
  if (c->has_alpha && c->random.values != TP_COO_VALUES_PARETO)
    return usage_error("--alpha is the shape of Pareto values: it needs --values pareto");
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
    return usage_error("--no-header-out applies to a .tns output");
  return sparse_mixed_options(c);
}

static int sparse_dims(sparse_cli *c) {
  char why[160];
  tp_coo_random_options *o = &c->random;
  if (!tenport_parse_dims(c->dims_text, TP_COO_MAX_ORDER, o->dims, &o->order, why, sizeof why))
    return shape_error("--dims", c->dims_text, why);
  if (c->rank && o->order < 2)
    return shape_error("--dims", c->dims_text, "a planted tensor has at least 2 modes");
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
      return shape_error("--skew", c->skew_text, "more values than modes");
    snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
    if (len > 63 || !tenport_parse_double(item, &o->skew[n]) || o->skew[n] <= 0)
      return shape_error("--skew", c->skew_text, "each skew is a number above 0");
    p = p[len] ? p + len + 1 : NULL;
  }
  if (n == 1)
    for (int m = 1; m < o->order; ++m)
      o->skew[m] = o->skew[0];
  else if (n > 1 && n != o->order)
    return shape_error("--skew", c->skew_text, "give one skew, or one per mode");
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

static void print_dims(const tp_coo *t) {
  for (int m = 0; m < t->order; ++m)
    printf("%s%lld", m ? "x" : "", (long long)t->dims[m]);
}

static void sparse_summary(const sparse_cli *c, const tp_coo *t, int64_t merged, double seconds) {
  const tp_coo_random_options *o = &c->random;
  tenport_summary_dims("dims", t->order, t->dims);
  tenport_summary_integer("nnz", (long long)t->nnz);
  tenport_summary_phase("generate", seconds);
  printf("%s: ", c->output);
  print_dims(t);
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

/* A .tpb, or a .tns with the sptensor header when its text alone would read back as
 * another shape (unless no_header). */
static tp_status write_coo(tp_output_set *set, const char *path, const tp_coo *t, int no_header) {
  tp_tns_write_options text = tenport_tns_output_options(t, 1, 0, no_header);
  return tenport_coo_format(path) == 'b' ? tp_coo_write_binary_to(set, path, t)
                                         : tp_coo_write_text_to(set, path, t, &text);
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
  if (begin_outputs(c->output, c->truth, o->order, &set))
    return 1;
  tp_status st = c->rank ? tp_coo_random_planted(o->dtype, o->order, o->dims, c->rank, c->support,
                                                 c->noise, o->seed, &t, c->truth ? &truth : NULL)
                         : tp_coo_random(o, &t, &merged);
  double seconds = tenport_seconds() - t0;
  if (st == TP_SUCCESS)
    st = write_coo(set, c->output, &t, c->no_header_out);
  if (st == TP_SUCCESS)
    st = finish_outputs(set, c->truth, &truth);
  int code = st == TP_SUCCESS ? 0 : fail();
  if (code == 0)
    sparse_summary(c, &t, merged, seconds);
  tp_output_set_destroy(&set);
  tp_kruskal_free(NULL, &truth);
  tp_coo_free(NULL, &t);
  return code;
}

static int gen_sparse(int argc, char **argv) {
  sparse_cli c;
  int code = tenport_parsed(sparse_args(argc, argv, &c), usage_sparse);
  if (code >= 0)
    return code;
  return sparse_generate(&c);
}

/* ---- gen sttid ------------------------------------------------------------------------ */

static void usage_sttid(FILE *out) {
  fprintf(out,
          "usage: tenport gen sttid --kind K --dims I0,I1,... --nnz N --output X.tns|X.tpb "
          "[options]\n"
          "A sparse tensor of exactly N distinct nonzeros like the STTID paper's test data,\n"
          "written as FROSTT text (.tns) or tenport binary (.tpb) by the output's extension;\n"
          "the same seed gives the same tensor on every machine.\n"
          "  --kind K            power-law: indices uniform, values Pareto (1 - u)^(-1/alpha)\n"
          "                      >= 1, a repeated coordinate adding its value (the paper's\n"
          "                      Rnd tensors, e.g. 100,100,100,100 with N = 12729);\n"
          "                      knowledge: binary facts, mode 0 a relation drawn uniformly,\n"
          "                      the others entities floor(u^3 * I) (a few entities in most\n"
          "                      facts; e.g. 66,12270,12270,12270 with N = 25820)\n"
          "  --dims I0,I1,...    mode sizes ('x' separates them too), 1 to %d modes (2 or\n"
          "                      more for knowledge)\n"
          "  --nnz N             distinct nonzeros, at most the number of entries\n"
          "  --alpha A           shape of the Pareto values, power-law only (2)\n"
          "  --seed S            random seed (1)\n"
          "  --output X          X.tns or X.tpb\n" TENPORT_NO_HEADER_OUT_HELP,
          TP_COO_MAX_ORDER);
  tenport_conventions_help(out);
}

typedef struct sttid_gen_cli {
  const char *kind_text, *dims_text, *output;
  tp_sttid_random_kind kind;
  int order, has_nnz, has_alpha;
  int no_header_out; /* --no-header-out */
  int64_t dims[TP_COO_MAX_ORDER], nnz;
  double alpha;
  uint64_t seed;
} sttid_gen_cli;

static int parse_kind(sttid_gen_cli *c, const char *v) {
  static const char *const names[] = {"power-law", "knowledge"};
  int k;
  c->kind_text = v;
  if (!tenport_parse_choice(v, names, 2, &k))
    return 0;
  c->kind = k ? TP_STTID_RANDOM_KNOWLEDGE : TP_STTID_RANDOM_POWER_LAW;
  return 1;
}

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int sttid_value(sttid_gen_cli *c, const char *a, const char *v) {
  if (!strcmp(a, "--kind"))
    return parse_kind(c, v);
  if (!strcmp(a, "--dims"))
    return c->dims_text = v, 1; /* checked with its own messages in sttid_dims */
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--nnz"))
    return c->has_nnz = 1, parse_count(v, 0, &c->nnz);
  if (!strcmp(a, "--alpha"))
    return c->has_alpha = 1, tenport_parse_number(v, 0, 1, INFINITY, 0, &c->alpha);
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &c->seed);
  return -1;
}

static int sttid_check(const sttid_gen_cli *c) {
  const char *missing = !c->kind_text   ? "--kind"
                        : !c->dims_text ? "--dims"
                        : !c->has_nnz   ? "--nnz"
                        : !c->output    ? "--output"
                                        : NULL;
  if (missing) {
    fprintf(stderr, "tenport gen: %s is required ('tenport gen sttid --help')\n", missing);
    return 2;
  }
  if (!tenport_coo_format(c->output)) {
    fprintf(stderr, "tenport gen: --output '%s' must end in .tns (text) or .tpb (binary)\n",
            c->output);
    return 2;
  }
  if (c->no_header_out && tenport_coo_format(c->output) != 't')
    return usage_error("--no-header-out applies to a .tns output");
  if (c->has_alpha && c->kind != TP_STTID_RANDOM_POWER_LAW)
    return usage_error("--alpha is the shape of Pareto values: it needs --kind power-law");
  return 0;
}

/* "66,12270,12270" or "66x12270x12270"; 0 on success, 2 after reporting why not. */
static int sttid_dims(sttid_gen_cli *c) {
  char text[512], why[160];
  if (strlen(c->dims_text) >= sizeof text)
    return shape_error("--dims", "...", "too long");
  strcpy(text, c->dims_text);
  for (char *p = text; *p; ++p)
    *p = *p == ',' ? 'x' : *p;
  if (!tenport_parse_dims(text, TP_COO_MAX_ORDER, c->dims, &c->order, why, sizeof why))
    return shape_error("--dims", c->dims_text, why);
  if (c->kind == TP_STTID_RANDOM_KNOWLEDGE && c->order < 2)
    return shape_error("--dims", c->dims_text,
                       "knowledge facts need a relation mode and at "
                       "least one entity mode");
  return 0;
}

/* argv[0] is "sttid". 0: run; 1: help was asked for; 2: usage error (reported). */
static int sttid_args(int argc, char **argv, sttid_gen_cli *c) {
  memset(c, 0, sizeof *c);
  c->seed = 1, c->alpha = 2.0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (!strcmp(a, "--no-header-out")) {
      c->no_header_out = 1;
      continue;
    }
    const char *v = tenport_option_value(argc, argv, i);
    if (tenport_option_error("gen", a, sttid_value(c, a, v ? v : ""), v))
      return 2;
    ++i;
  }
  return sttid_check(c) ? 2 : sttid_dims(c);
}

static void sttid_summary(const sttid_gen_cli *c, const tp_coo *t, double seconds) {
  printf("%s: ", c->output);
  print_dims(t);
  printf(", nnz %lld, %s, %s", (long long)t->nnz, tp_dtype_name(t->dtype), c->kind_text);
  if (c->kind == TP_STTID_RANDOM_POWER_LAW)
    printf(" (Pareto alpha %g)", c->alpha);
  else
    printf(" (binary, entities floor(u^3 * I))");
  printf(", seed %llu (%.3f s)\n", (unsigned long long)c->seed, seconds);
}

static int sttid_generate(const sttid_gen_cli *c) {
  tp_coo t;
  tp_output_set *set = NULL;
  memset(&t, 0, sizeof t);
  double t0 = tenport_seconds();
  if (begin_outputs(c->output, NULL, c->order, &set))
    return 1;
  tp_status st = tp_sttid_random(c->kind, c->order, c->dims, c->nnz, c->alpha, c->seed, &t);
  double seconds = tenport_seconds() - t0;
  if (st == TP_SUCCESS)
    st = write_coo(set, c->output, &t, c->no_header_out);
  if (st == TP_SUCCESS)
    st = finish_outputs(set, NULL, NULL);
  int code = st == TP_SUCCESS ? 0 : fail();
  if (code == 0)
    sttid_summary(c, &t, seconds);
  tp_output_set_destroy(&set);
  tp_coo_free(NULL, &t);
  return code;
}

static int gen_sttid(int argc, char **argv) {
  sttid_gen_cli c;
  int code = tenport_parsed(sttid_args(argc, argv, &c), usage_sttid);
  if (code >= 0)
    return code;
  return sttid_generate(&c);
}

/* ---- the subcommand ----------------------------------------------------------------- */

int tenport_cmd_gen(int argc, char **argv) {
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage_dense(stdout);
    printf("\n");
    usage_sparse(stdout);
    printf("\n");
    usage_sttid(stdout);
    return 0;
  }
  if (argc < 2)
    return usage_error("what to generate? 'tenport gen dense ...', 'tenport gen sparse ...' "
                       "or 'tenport gen sttid ...'");
  if (!strcmp(argv[1], "dense"))
    return gen_dense(argc - 1, argv + 1);
  if (!strcmp(argv[1], "sparse"))
    return gen_sparse(argc - 1, argv + 1);
  if (!strcmp(argv[1], "sttid"))
    return gen_sttid(argc - 1, argv + 1);
  fprintf(stderr, "tenport gen: unknown kind '%s': 'dense', 'sparse' or 'sttid'\n", argv[1]);
  return 2;
}
