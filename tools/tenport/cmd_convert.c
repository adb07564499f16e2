/* tenport convert: a tensor from any format tenport reads into any it writes, sparse or
 * dense. The input's format is read from its content (convert_run.c), the output's from
 * --format or its extension; a name ending in .gz is written gzip-compressed. This file
 * takes the command line. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_files.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/convert.h"

const char *const convert_format_names[5] = {"tns", "sptensor", "tpb", "npy", "tensor"};

static void usage(FILE *out) {
  fprintf(out,
          "usage: tenport convert --input X --output Y [--format F] [options]\n"
          "Converts a tensor between the formats tenport reads and writes:\n"
          "  tns       FROSTT text (.tns): the indices then the value, one nonzero per line\n"
          "            (after the sptensor header when the text alone would read back as\n"
          "            another tensor: dims beyond the largest indices, 0-based indices\n"
          "            without an index 0)\n"
          "  sptensor  the sparse text of the Tensor Toolbox and GenTen: 'sptensor', lines of\n"
          "            the order, the dims and the number of nonzeros, then the nonzeros\n"
          "  tpb       tenport's binary sparse format (.tpb)\n"
          "  npy       a NumPy array (.npy), dense\n"
          "  tensor    the dense text of GenTen and the Tensor Toolbox: 'tensor', lines of the\n"
          "            order and the dims, then the values one per line, first index fastest\n"
          "The input's format is recognised by its content (sparse text in any of the forms\n"
          "that tenport reads, 0-based too); it may be gzip-compressed. The output's format\n"
          "is --format, else its extension (.tns, .tpb, .npy); a name ending in .gz (Y.tns.gz)\n"
          "is written gzip-compressed (builds with zlib). Sparse to dense fills in zeros;\n"
          "dense to sparse keeps the nonzeros. Nonzeros are written sorted, with duplicates\n"
          "summed.\n"
          "  --input X              the tensor to read ('-': standard input)\n"
          "  --output Y             the file to write\n"
          "  --format F             tns, sptensor, tpb, npy or tensor (default: from Y's\n"
          "                         extension; sptensor and tensor are asked for by name,\n"
          "                         and Y may then end in .tns or .txt, for example)\n"
          "  --precision P          f32 or f64 (default: the input's own; f64 for text)\n"
          "  --dims I0xI1x...       the shape of a sparse input (default: a text header's,\n"
          "                         else each mode's largest index); a .tpb input must\n"
          "                         have these dims\n"
          "  --index-base B         a sparse text input's indices: 1, 0 or auto (auto:\n"
          "                         1-based unless an index 0 appears)\n"
          "  --no-header            every line of a sparse text input is a nonzero (default:\n"
          "                         a header is recognised: sptensor text, an order line and\n"
          "                         a dims line, or one line of both)\n"
          "  --output-index-base B  the indices of a tns or sptensor output: 1 (the\n"
          "                         default) or 0 (sptensor then says\n"
          "                         'sptensor indices-start-at-zero', as GenTen writes it)\n"
          "  --no-header-out        a tns output without the header, whatever its text then\n"
          "                         reads back as (for tools that read no header)\n"
          "  --drop-below T         dense to sparse: also leave out the values of magnitude\n"
          "                         below T (default 0: every nonzero is kept)\n"
          "  --max-elements N       sparse to dense: the largest dense tensor made, in\n"
          "                         elements (default %llu); larger ones, and those the\n"
          "                         memory cannot hold, are refused\n"
          "The output is written beside its name and renamed over it once complete; it may\n"
          "not be the input.\n",
          (unsigned long long)CONVERT_MAX_ELEMENTS);
  tenport_conventions_help(out);
}

static int parse_output_base(const char *v, int *base) {
  if (!strcmp(v, "0") || !strcmp(v, "1"))
    return *base = v[0] - '0', 1;
  return tenport_expected("0 or 1");
}

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int parse_value(convert_cli *c, const char *a, const char *v) {
  if (!strcmp(a, "--input"))
    return tenport_parse_text(v, &c->input);
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--format"))
    return tenport_parse_choice(v, convert_format_names, 5, &c->format);
  if (!strcmp(a, "--precision"))
    return tenport_parse_precision(v, &c->precision);
  if (!strcmp(a, "--dims"))
    return c->dims_text = v, 1; /* checked with its own messages in check_args */
  if (!strcmp(a, "--output-index-base"))
    return c->out_base_given = 1, parse_output_base(v, &c->out_base);
  if (!strcmp(a, "--drop-below"))
    return c->drop_given = 1, tenport_parse_number(v, 0, 0, INFINITY, 0, &c->drop_below);
  if (!strcmp(a, "--max-elements"))
    return c->max_given = 1, tenport_parse_u64(v, &c->max_elements);
  return tenport_text_option(&c->text, a, v);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && !strcmp(s + n - k, suffix);
}

/* The format the output's extension names (.gz aside), or -1. */
static int format_of_name(const char *name, int gzip) {
  static const char *const ext[3] = {".tns", ".tpb", ".npy"};
  static const int format[3] = {CONVERT_TNS, CONVERT_TPB, CONVERT_NPY};
  size_t n = strlen(name) - (gzip ? 3 : 0);
  for (int i = 0; i < 3; ++i)
    if (n > 4 && !strncmp(name + n - 4, ext[i], 4))
      return format[i];
  return -1;
}

/* The output's format from --format (given: 1) and the name, which must not say
 * another; 0, or 2 after a message. */
static int settle_format(convert_cli *c, int given) {
  c->gzip = ends_with(c->output, ".gz");
  int named = format_of_name(c->output, c->gzip);
  if (!given && named < 0) {
    fprintf(stderr,
            "tenport convert: --output '%s': its format cannot be told from the name; "
            "end it in .tns, .tpb or .npy (.gz may follow), or give --format tns, sptensor, "
            "tpb, npy or tensor\n",
            c->output);
    return 2;
  }
  if (!given)
    c->format = named;
  int agrees =
      named < 0 || named == c->format || (named == CONVERT_TNS && c->format == CONVERT_SPTENSOR);
  if (!agrees) {
    fprintf(stderr,
            "tenport convert: --format %s, but --output '%s' names a .%s file; name "
            "the output otherwise (Y.txt, for example)\n",
            convert_format_names[c->format], c->output, convert_format_names[named]);
    return 2;
  }
  return 0;
}

/* The options that depend only on the output. */
static int check_output_options(const convert_cli *c) {
  if (c->out_base_given && c->format != CONVERT_TNS && c->format != CONVERT_SPTENSOR) {
    fprintf(stderr,
            "tenport convert: --output-index-base applies to sparse text outputs (tns, "
            "sptensor); the output is %s\n",
            convert_format_names[c->format]);
    return 2;
  }
  if (c->no_header_out && c->format != CONVERT_TNS) {
    fprintf(stderr, "tenport convert: --no-header-out applies to a tns output; the output is %s\n",
            convert_format_names[c->format]);
    return 2;
  }
  if (c->gzip && !tp_input_has_gzip()) {
    fprintf(stderr,
            "tenport convert: --output '%s' asks for gzip, and this tenport was built "
            "without zlib; write it uncompressed and compress it with gzip\n",
            c->output);
    return 2;
  }
  return 0;
}

static int check_args(convert_cli *c, int format_given) {
  if (!c->input || !c->output) {
    fprintf(stderr, "tenport convert: %s is required ('tenport convert --help')\n",
            !c->input ? "--input" : "--output");
    return 2;
  }
  int code = settle_format(c, format_given);
  if (code == 0)
    code = check_output_options(c);
  char why[160];
  if (code == 0 && c->dims_text &&
      !tenport_parse_dims(c->dims_text, TP_COO_MAX_ORDER, c->dims, &c->order, why, sizeof why)) {
    fprintf(stderr, "tenport convert: --dims '%s': %s\n", c->dims_text, why);
    code = 2;
  }
  return code;
}

/* 0: run; 1: help was asked for; 2: usage error (reported). */
static int parse_args(int argc, char **argv, convert_cli *c) {
  memset(c, 0, sizeof *c);
  c->text.read = tp_tns_options_default();
  c->out_base = 1, c->format = -1, c->max_elements = CONVERT_MAX_ELEMENTS;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (tenport_text_option(&c->text, a, NULL) == 1) /* --no-header */
      continue;
    if (!strcmp(a, "--no-header-out")) {
      c->no_header_out = 1;
      continue;
    }
    const char *v = tenport_option_value(argc, argv, i);
    int r = parse_value(c, a, v ? v : "");
    if (tenport_option_error("convert", a, r, v))
      return 2;
    ++i;
  }
  return check_args(c, c->format >= 0);
}

int tenport_cmd_convert(int argc, char **argv) {
  convert_cli c;
  int code = tenport_parsed(parse_args(argc, argv, &c), usage);
  if (code >= 0)
    return code;
  return tenport_convert_run(&c);
}
