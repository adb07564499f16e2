/* tenport convert: a sparse tensor from FROSTT .tns text or tenport's binary .tpb into
 * either format. The input's format is read from its first bytes (the binary magic), the
 * output's from its extension; nonzeros come out sorted, duplicates summed. */
#include <stdio.h>
#include <string.h>

#include "cli_conventions.h"
#include "cli_files.h"
#include "commands.h"
#include "tenport/tenport.h"

typedef struct convert_cli {
  const char *input, *output, *precision, *dims_text;
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
  tenport_text_options text; /* --index-base, --no-header */
} convert_cli;

static void usage(FILE *out) {
  fprintf(out,
          "usage: tenport convert --input X.tns|X.tpb --output Y.tns|Y.tpb [options]\n"
          "Converts a sparse tensor between FROSTT text (.tns: indices then the\n"
          "value, one nonzero per line, '#' comments) and tenport's binary format (.tpb).\n"
          "The input's format is recognised by its content, the output's by its extension.\n"
          "Nonzeros are written sorted, with duplicates summed.\n"
          "  --input X           the tensor to read ('-': standard input)\n"
          "  --output Y          Y.tns or Y.tpb\n"
          "  --precision P       f32 or f64 (default: a .tpb input's own, f64 for text)\n"
          "  --dims I0xI1x...    the shape of a .tns input (default: its header's, else each\n"
          "                      mode's largest index); a .tpb input must have these dims\n"
          "  --index-base B      a .tns input's indices: 1, 0 or auto (auto: 1-based unless\n"
          "                      an index 0 appears)\n"
          "  --no-header         every line of a .tns input is a nonzero (default: a header\n"
          "                      is recognised: 'sptensor' text of the Tensor Toolbox and\n"
          "                      GenTen, an order line and a dims line, or one line of both)\n"
          "The input may be gzip-compressed (X.tns.gz, X.tpb.gz).\n"
          "The output is written beside its name and renamed over it once complete; it may\n"
          "not be the input.\n");
  tenport_conventions_help(out);
}

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int parse_value(convert_cli *c, const char *a, const char *v) {
  if (!strcmp(a, "--input"))
    return tenport_parse_text(v, &c->input);
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--precision"))
    return tenport_parse_precision(v, &c->precision);
  if (!strcmp(a, "--dims"))
    return c->dims_text = v, 1; /* checked with its own messages in parse_args */
  return tenport_text_option(&c->text, a, v);
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
  c->text.read = tp_tns_options_default();
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (tenport_text_option(&c->text, a, NULL) == 1) /* --no-header */
      continue;
    const char *v = tenport_option_value(argc, argv, i);
    int r = parse_value(c, a, v ? v : "");
    if (tenport_option_error("convert", a, r, v))
      return 2;
    ++i;
  }
  return check_args(c);
}

/* ---- converting ---------------------------------------------------------------------- */

static void print_summary(const convert_cli *c, const tp_input *in, const tp_coo *t,
                          const tp_coo_read_info *info, double read_s, double write_s) {
  printf("%s: %d mode%s, dims ", c->output, t->order, t->order == 1 ? "" : "s");
  for (int m = 0; m < t->order; ++m)
    printf("%s%lld", m ? "x" : "", (long long)t->dims[m]);
  printf(", nnz %lld, %s, duplicates merged %lld\n", (long long)t->nnz, tp_dtype_name(t->dtype),
         (long long)info->duplicates);
  if (info->lines)
    printf("read %s (%lld lines%s%s%s) in %.3f s, wrote in %.3f s\n", tp_input_name(in),
           (long long)info->lines, info->index_base == 0 ? ", 0-based indices" : "",
           info->header_kind ? ", header: " : "", info->header_kind ? info->header_kind : "",
           read_s, write_s);
  else
    printf("read %s in %.3f s, wrote in %.3f s\n", tp_input_name(in), read_s, write_s);
}

/* Reads the input: its precision unless --precision says, the shape --dims gives. */
static int read_tensor(const convert_cli *c, tp_input *in, tp_coo *t, tp_coo_read_info *info) {
  tp_dtype dtype = TP_DTYPE_F64;
  tp_status st = tp_coo_input_dtype(in, &dtype);
  if (c->precision)
    dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  if (tenport_text_options_fit("convert", in, &c->text))
    return 2;
  if (st == TP_SUCCESS)
    st = tp_coo_read_input_with(in, dtype, c->order, c->dims_text ? c->dims : NULL,
                                &c->text.read, t, info);
  return st == TP_SUCCESS ? 0 : tenport_fail("convert", "cannot read the input");
}

static tp_status write_tensor(const convert_cli *c, tp_output_set *set, const tp_coo *t) {
  return tenport_coo_format(c->output) == 'b' ? tp_coo_write_binary_to(set, c->output, t)
                                              : tp_coo_write_tns_to(set, c->output, t);
}

static int convert(const convert_cli *c) {
  tp_input *in = NULL;
  tp_output_set *set = NULL;
  tp_coo t;
  tp_coo_read_info info;
  memset(&t, 0, sizeof t);
  memset(&info, 0, sizeof info);
  int code = tenport_open_input("convert", c->input, &in);
  if (code == 0)
    code = tenport_outputs_begin("convert", &set, in, NULL, 0);
  if (code == 0)
    code = tenport_outputs_add("convert", set, c->output);
  double t0 = tenport_seconds(), t1 = t0;
  if (code == 0)
    code = read_tensor(c, in, &t, &info);
  t1 = tenport_seconds();
  if (code == 0 && write_tensor(c, set, &t) != TP_SUCCESS)
    code = tenport_fail("convert", "cannot write the output");
  if (code == 0)
    code = tenport_outputs_commit("convert", set);
  if (code == 0)
    print_summary(c, in, &t, &info, t1 - t0, tenport_seconds() - t1);
  tp_coo_free(NULL, &t);
  tp_output_set_destroy(&set);
  tp_input_close(&in);
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
