/* tenport gen dense: a random dense tensor as .npy, uniform in [0, 1) or a planted
 * low-rank tensor with relative Gaussian noise, reproducible from a seed; the planted
 * Kruskal tensor can be written beside it. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "tenport/tenport.h"

typedef struct gen_cli {
  const char *shape_text, *output, *truth;
  int order, rank, single;
  int64_t dims[TP_DENSE_MAX_ORDER];
  double noise;
  uint64_t seed;
  tp_layout layout;
} gen_cli;

static void usage(FILE *out) {
  fprintf(out,
          "usage: tenport gen dense --shape I0xI1x... --output X.npy [options]\n"
          "A random dense tensor as a .npy file: every element uniform in [0, 1), or with\n"
          "--rank a planted low-rank tensor M + noise * ||M||_F / sqrt(N) * N(0, 1), M being\n"
          "a random Kruskal tensor (factor entries uniform in [0, 1), lambda = 1) and N the\n"
          "number of elements. The same seed gives the same tensor on every machine, in\n"
          "either layout.\n"
          "  --shape I0xI1x...   mode sizes, 2 to %d modes, each at least 1 (401x201x12x501)\n"
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
}

/* ---- options ------------------------------------------------------------------- */

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int parse_value(gen_cli *c, const char *a, const char *v) {
  if (!strcmp(a, "--shape"))
    return c->shape_text = v, 1; /* checked with its own messages in parse_shape */
  if (!strcmp(a, "--output"))
    return c->output = v, *v != '\0';
  if (!strcmp(a, "--truth"))
    return c->truth = v, *v != '\0';
  if (!strcmp(a, "--rank"))
    return tenport_parse_int(v, 1, 1 << 30, &c->rank);
  if (!strcmp(a, "--noise"))
    return tenport_parse_double(v, &c->noise) && c->noise >= 0;
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &c->seed);
  if (!strcmp(a, "--precision")) {
    c->single = !strcmp(v, "f32");
    return c->single || !strcmp(v, "f64");
  }
  if (!strcmp(a, "--layout")) {
    c->layout = !strcmp(v, "left") ? TP_LAYOUT_LEFT : TP_LAYOUT_RIGHT;
    return !strcmp(v, "left") || !strcmp(v, "right");
  }
  return -1;
}

static int shape_error(const char *text, const char *why) {
  fprintf(stderr, "tenport gen: --shape '%s': %s\n", text, why);
  return 2;
}

/* One size of --shape: the digits in [s, end) as an integer >= 1, or 0 if not. */
static int64_t parse_size(const char *s, const char *end) {
  int64_t v = 0;
  if (s == end)
    return 0;
  for (const char *p = s; p < end; ++p) {
    if (*p < '0' || *p > '9' || v > (INT64_MAX - (*p - '0')) / 10)
      return 0;
    v = v * 10 + (*p - '0');
  }
  return v;
}

/* "401x201x12x501" into c->order and c->dims; 0 on success, 2 after reporting why not. */
static int parse_shape(gen_cli *c) {
  const char *s = c->shape_text, *p = s;
  char why[160];
  c->order = 0;
  for (;;) {
    const char *end = strchr(p, 'x');
    if (!end)
      end = p + strlen(p);
    if (c->order == TP_DENSE_MAX_ORDER) {
      snprintf(why, sizeof why, "more than %d modes", TP_DENSE_MAX_ORDER);
      return shape_error(s, why);
    }
    int64_t v = parse_size(p, end);
    if (v < 1) {
      snprintf(why, sizeof why, "size %d ('%.*s') is not an integer of at least 1", c->order,
               (int)(end - p < 40 ? end - p : 40), p);
      return shape_error(s, why);
    }
    c->dims[c->order++] = v;
    if (!*end)
      break;
    p = end + 1;
  }
  if (c->order < 2)
    return shape_error(s, "a dense tensor has at least 2 modes (sizes separated by 'x')");
  tp_dense t;
  memset(&t, 0, sizeof t);
  t.dtype = c->single ? TP_DTYPE_F32 : TP_DTYPE_F64;
  t.order = c->order;
  memcpy(t.dims, c->dims, sizeof c->dims);
  if (tp_dense_check(&t) != TP_SUCCESS)
    return shape_error(s, "the number of elements or bytes overflows 64 bits");
  return 0;
}

/* 0: run; 1: help was asked for; 2: usage error (reported). */
static int parse_args(int argc, char **argv, gen_cli *c) {
  memset(c, 0, sizeof *c);
  c->seed = 1, c->layout = TP_LAYOUT_RIGHT;
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
    return 1;
  if (argc < 2) {
    fprintf(stderr, "tenport gen: what to generate? 'tenport gen dense ...' ('tenport gen "
            "--help')\n");
    return 2;
  }
  if (strcmp(argv[1], "dense") != 0) {
    fprintf(stderr, "tenport gen: unknown kind '%s': only 'dense' is generated\n", argv[1]);
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    int r = parse_value(c, a, i + 1 < argc ? argv[i + 1] : "");
    if (tenport_option_error("gen", a, r, i + 1 < argc))
      return 2;
    ++i;
  }
  if (!c->shape_text || !c->output) {
    fprintf(stderr, "tenport gen: %s is required ('tenport gen --help')\n",
            !c->shape_text ? "--shape" : "--output");
    return 2;
  }
  if (c->truth && !c->rank) {
    fprintf(stderr, "tenport gen: --truth needs --rank (a uniform tensor has no planted "
            "Kruskal tensor)\n");
    return 2;
  }
  if (c->noise > 0 && !c->rank) {
    fprintf(stderr, "tenport gen: --noise needs --rank (it perturbs a planted tensor)\n");
    return 2;
  }
  return parse_shape(c);
}

/* ---- generating ----------------------------------------------------------------- */

static int fail(void) { return tenport_fail("gen", "failed"); }

static void print_summary(const gen_cli *c, double seconds) {
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

static int generate(const gen_cli *c) {
  tp_dense t;
  tp_kruskal truth;
  memset(&truth, 0, sizeof truth);
  double t0 = tenport_seconds();
  tp_dtype dtype = c->single ? TP_DTYPE_F32 : TP_DTYPE_F64;
  if (tp_dense_alloc(NULL, dtype, c->order, c->dims, c->layout, &t) != TP_SUCCESS)
    return fail();
  tp_status st = c->rank ? tp_dense_random_planted(&t, c->rank, c->noise, c->seed,
                                                   c->truth ? &truth : NULL)
                         : tp_dense_random_uniform(&t, c->seed);
  double seconds = tenport_seconds() - t0;
  if (st == TP_SUCCESS)
    st = tp_dense_write_npy(c->output, &t);
  if (st == TP_SUCCESS && c->truth)
    st = tp_kruskal_write_npy(c->truth, &truth);
  int code = st == TP_SUCCESS ? 0 : fail();
  if (code == 0)
    print_summary(c, seconds);
  tp_kruskal_free(NULL, &truth);
  tp_dense_free(NULL, &t);
  return code;
}

int tenport_cmd_gen(int argc, char **argv) {
  gen_cli c;
  int code = parse_args(argc, argv, &c);
  if (code == 1)
    usage(stdout);
  if (code != 0)
    return code == 1 ? 0 : 2;
  return generate(&c);
}
