/* tenport gen dense: a random dense tensor as .npy, uniform in [0, 1) or a planted
 * low-rank tensor with relative Gaussian noise; the planted Kruskal tensor can be written
 * beside it. Arguments -> generate -> write -> report. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gen_cli.h"

void tenport_gen_usage_dense(FILE *out) {
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

/* "401x201x12x501" into c->order and c->dims; 0 on success, 2 after reporting why not. */
static int dense_shape(dense_cli *c) {
  char why[160];
  if (!tenport_parse_dims(c->shape_text, TP_DENSE_MAX_ORDER, c->dims, &c->order, why, sizeof why))
    return tenport_gen_shape_error("--dims", c->shape_text, why);
  if (c->order < 2)
    return tenport_gen_shape_error("--dims", c->shape_text,
                                   "a dense tensor has at least 2 modes (sizes separated by 'x')");
  tp_dense t;
  memset(&t, 0, sizeof t);
  t.dtype = c->single ? TP_DTYPE_F32 : TP_DTYPE_F64;
  t.order = c->order;
  memcpy(t.dims, c->dims, sizeof c->dims);
  if (tp_dense_check(&t) != TP_SUCCESS)
    return tenport_gen_shape_error("--dims", c->shape_text,
                                   "the number of elements or bytes overflows 64 bits");
  return 0;
}

static int dense_check(const dense_cli *c) {
  if (!c->shape_text || !c->output) {
    fprintf(stderr, "tenport gen: %s is required ('tenport gen dense --help')\n",
            !c->shape_text ? "--dims" : "--output");
    return 2;
  }
  /* .npy bytes only under a .npy name (gzip-compressed under .npy.gz) */
  size_t n = strlen(c->output), gz = n > 3 && !strcmp(c->output + n - 3, ".gz") ? 3 : 0;
  if (n < 4 + gz || strncmp(c->output + n - gz - 4, ".npy", 4) != 0) {
    fprintf(stderr,
            "tenport gen: --output '%s': gen dense writes a NumPy .npy file; end the name in "
            ".npy or .npy.gz (tenport convert turns it into another format)\n",
            c->output);
    return 2;
  }
  if (c->truth && !c->rank)
    return tenport_gen_usage_error(
        "--truth needs --rank (a uniform tensor has no planted Kruskal tensor)");
  if (c->noise > 0 && !c->rank)
    return tenport_gen_usage_error("--noise needs --rank (it perturbs a planted tensor)");
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
  if (tenport_gen_begin_outputs(c->output, c->truth, c->order, &set))
    return 1;
  tp_status st = tp_dense_alloc(NULL, dtype, c->order, c->dims, c->layout, &t);
  if (st == TP_SUCCESS)
    st = c->rank ? tp_dense_random_planted(&t, c->rank, c->noise, c->seed, c->truth ? &truth : NULL)
                 : tp_dense_random_uniform(&t, c->seed);
  double seconds = tenport_seconds() - t0;
  if (st == TP_SUCCESS)
    st = tp_dense_write_npy_to(set, c->output, &t);
  if (st == TP_SUCCESS)
    st = tenport_gen_finish_outputs(set, c->truth, &truth);
  int code = st == TP_SUCCESS ? 0 : tenport_gen_fail();
  if (code == 0)
    dense_summary(c, seconds);
  tp_output_set_destroy(&set);
  tp_kruskal_free(NULL, &truth);
  tp_dense_free(NULL, &t);
  return code;
}

int tenport_gen_dense(int argc, char **argv) {
  dense_cli c;
  int code = tenport_parsed(dense_args(argc, argv, &c), tenport_gen_usage_dense);
  if (code >= 0)
    return code;
  return dense_generate(&c);
}
