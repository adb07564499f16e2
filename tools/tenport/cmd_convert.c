/* tenport convert: a sparse tensor from FROSTT .tns text or tenport's binary .tpb into
 * either format. The input's format is read from its first bytes (the binary magic), the
 * output's from its extension; nonzeros come out sorted, duplicates summed. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "tenport/tenport.h"

typedef struct convert_cli {
  const char *input, *output, *precision, *dims_text;
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
} convert_cli;

static void usage(FILE *out) {
  fprintf(out,
          "usage: tenport convert --input X.tns|X.tpb --output Y.tns|Y.tpb [options]\n"
          "Converts a sparse tensor between FROSTT text (.tns: 1-based indices then the\n"
          "value, one nonzero per line, '#' comments) and tenport's binary format (.tpb).\n"
          "The input's format is recognised by its content, the output's by its extension.\n"
          "Nonzeros are written sorted, with duplicates summed.\n"
          "  --input X           the tensor to read\n"
          "  --output Y          Y.tns or Y.tpb\n"
          "  --precision P       f32 or f64 (default: a .tpb input's own, f64 for text)\n"
          "  --dims I0xI1x...    the shape of a .tns input (default: each mode's largest\n"
          "                      index); a .tpb input must have these dims\n");
}

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int parse_value(convert_cli *c, const char *a, const char *v) {
  if (!strcmp(a, "--input"))
    return c->input = v, *v != '\0';
  if (!strcmp(a, "--output"))
    return c->output = v, *v != '\0';
  if (!strcmp(a, "--precision"))
    return c->precision = v, !strcmp(v, "f32") || !strcmp(v, "f64");
  if (!strcmp(a, "--dims"))
    return c->dims_text = v, 1; /* checked with its own messages in parse_args */
  return -1;
}

static int check_args(convert_cli *c) {
  if (!c->input || !c->output) {
    fprintf(stderr, "tenport convert: %s is required ('tenport convert --help')\n",
            !c->input ? "--input" : "--output");
    return 2;
  }
  if (!tenport_coo_format(c->output)) {
    fprintf(stderr, "tenport convert: --output '%s' must end in .tns (text) or .tpb (binary)\n",
            c->output);
    return 2;
  }
  char why[160];
  if (c->dims_text && !tenport_parse_dims(c->dims_text, TP_COO_MAX_ORDER, c->dims, &c->order,
                                          why, sizeof why)) {
    fprintf(stderr, "tenport convert: --dims '%s': %s\n", c->dims_text, why);
    return 2;
  }
  return 0;
}

/* 0: run; 1: help was asked for; 2: usage error (reported). */
static int parse_args(int argc, char **argv, convert_cli *c) {
  memset(c, 0, sizeof *c);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    int r = parse_value(c, a, i + 1 < argc ? argv[i + 1] : "");
    if (tenport_option_error("convert", a, r, i + 1 < argc))
      return 2;
    ++i;
  }
  return check_args(c);
}

/* ---- converting ---------------------------------------------------------------------- */

/* Whether path starts with the binary magic, and the precision of its values: float32
 * when a binary header says 4-byte values, else float64 (the reader reports bad files). */
static int peek_binary(const char *path, tp_dtype *dtype) {
  unsigned char head[20];
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(head, 1, sizeof head, f) : 0;
  if (f)
    fclose(f);
  int binary = got >= 8 && !memcmp(head, "TPCOO\0\0\1", 8);
  *dtype = binary && got == 20 && head[16] == 4 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  return binary;
}

/* A .tpb input read with --dims must have those dims. */
static int check_dims(const convert_cli *c, const tp_coo *t) {
  int same = t->order == c->order;
  for (int m = 0; same && m < t->order; ++m)
    same = t->dims[m] == c->dims[m];
  if (same)
    return 0;
  fprintf(stderr, "tenport convert: %s has dims ", c->input);
  for (int m = 0; m < t->order; ++m)
    fprintf(stderr, "%s%lld", m ? "x" : "", (long long)t->dims[m]);
  fprintf(stderr, ", not --dims %s\n", c->dims_text);
  return 1;
}

static void print_summary(const convert_cli *c, const tp_coo *t, const tp_coo_read_info *info,
                          double read_s, double write_s) {
  printf("%s: %d mode%s, dims ", c->output, t->order, t->order == 1 ? "" : "s");
  for (int m = 0; m < t->order; ++m)
    printf("%s%lld", m ? "x" : "", (long long)t->dims[m]);
  printf(", nnz %lld, %s, duplicates merged %lld\n", (long long)t->nnz, tp_dtype_name(t->dtype),
         (long long)info->duplicates);
  if (info->lines)
    printf("read %s (%lld lines) in %.3f s, wrote in %.3f s\n", c->input,
           (long long)info->lines, read_s, write_s);
  else
    printf("read %s in %.3f s, wrote in %.3f s\n", c->input, read_s, write_s);
}

static int convert(const convert_cli *c) {
  tp_dtype dtype;
  int binary = peek_binary(c->input, &dtype);
  if (c->precision)
    dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  tp_coo t;
  tp_coo_read_info info;
  memset(&info, 0, sizeof info);
  double t0 = tenport_seconds();
  tp_status st = c->dims_text && !binary
                     ? tp_coo_read_tns(c->input, dtype, c->order, c->dims, &t, &info)
                     : tp_coo_read(c->input, dtype, &t, &info);
  if (st != TP_SUCCESS)
    return tenport_fail("convert", "cannot read the input");
  int code = c->dims_text && binary ? check_dims(c, &t) : 0;
  double t1 = tenport_seconds();
  if (code == 0) {
    st = tenport_coo_format(c->output) == 'b' ? tp_coo_write_binary(c->output, &t)
                                              : tp_coo_write_tns(c->output, &t);
    code = st == TP_SUCCESS ? 0 : tenport_fail("convert", "cannot write the output");
  }
  if (code == 0)
    print_summary(c, &t, &info, t1 - t0, tenport_seconds() - t1);
  tp_coo_free(NULL, &t);
  return code;
}

int tenport_cmd_convert(int argc, char **argv) {
  convert_cli c;
  int code = parse_args(argc, argv, &c);
  if (code == 1)
    usage(stdout);
  if (code != 0)
    return code == 1 ? 0 : 2;
  return convert(&c);
}
