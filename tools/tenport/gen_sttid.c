/* tenport gen sttid: the STTID paper's kinds of test tensor as .tns or .tpb, with exactly
 * N distinct nonzeros: power-law (Pareto values) or knowledge-graph facts. Arguments ->
 * generate -> write -> report. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gen_cli.h"

void tenport_gen_usage_sttid(FILE *out) {
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
    return c->has_nnz = 1, tenport_gen_parse_count(v, 0, &c->nnz);
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
    return tenport_gen_usage_error("--no-header-out applies to a .tns output");
  if (c->has_alpha && c->kind != TP_STTID_RANDOM_POWER_LAW)
    return tenport_gen_usage_error(
        "--alpha is the shape of Pareto values: it needs --kind power-law");
  return 0;
}

/* "66,12270,12270" or "66x12270x12270"; 0 on success, 2 after reporting why not. */
static int sttid_dims(sttid_gen_cli *c) {
  char text[512], why[160];
  if (strlen(c->dims_text) >= sizeof text)
    return tenport_gen_shape_error("--dims", "...", "too long");
  strcpy(text, c->dims_text);
  for (char *p = text; *p; ++p)
    *p = *p == ',' ? 'x' : *p;
  if (!tenport_parse_dims(text, TP_COO_MAX_ORDER, c->dims, &c->order, why, sizeof why))
    return tenport_gen_shape_error("--dims", c->dims_text, why);
  if (c->kind == TP_STTID_RANDOM_KNOWLEDGE && c->order < 2)
    return tenport_gen_shape_error("--dims", c->dims_text,
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
  tenport_gen_print_dims(t);
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
  if (tenport_gen_begin_outputs(c->output, NULL, c->order, &set))
    return 1;
  tp_status st = tp_sttid_random(c->kind, c->order, c->dims, c->nnz, c->alpha, c->seed, &t);
  double seconds = tenport_seconds() - t0;
  if (st == TP_SUCCESS)
    st = tenport_gen_write_coo(set, c->output, &t, c->no_header_out);
  if (st == TP_SUCCESS)
    st = tenport_gen_finish_outputs(set, NULL, NULL);
  int code = st == TP_SUCCESS ? 0 : tenport_gen_fail();
  if (code == 0)
    sttid_summary(c, &t, seconds);
  tp_output_set_destroy(&set);
  tp_coo_free(NULL, &t);
  return code;
}

int tenport_gen_sttid(int argc, char **argv) {
  sttid_gen_cli c;
  int code = tenport_parsed(sttid_args(argc, argv, &c), tenport_gen_usage_sttid);
  if (code >= 0)
    return code;
  return sttid_generate(&c);
}
