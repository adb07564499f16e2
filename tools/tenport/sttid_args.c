/* tenport sttid's command line: the usage text, the options and their checks, into a
 * sttid_cli (sttid_cli.h). */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/sttid_cli.h"

void tenport_sttid_usage(FILE *out) {
  fprintf(out,
          "usage: tenport sttid --input X.tns|X.tpb --rmax R --eps E [options]\n"
          "Sparse tensor-train interpolative decomposition (STTID): one partial rank-revealing\n"
          "LU with complete pivoting per bond, the cores keeping the input's own entries, so\n"
          "they stay sparse. Prints each bond's factorisation, the TT ranks, core densities\n"
          "and the relative error ||X - X~|| / ||X||.\n"
          "  --input FILE        X.tns (FROSTT text) or X.tpb (tenport binary), 2 to %d modes\n"
          "  --dims I0,I1,...    the shape of a .tns file (default: its header's, else each\n"
          "                      mode's largest index)\n"
          "  --index-base B      a .tns file's indices: 1, 0 or auto (1-based unless an\n"
          "                      index 0 appears)\n"
          "  --no-header         every line of a .tns file is a nonzero (no header)\n"
          "  --rmax R            largest rank of any bond (at least 1)\n"
          "  --eps E             a bond stops at a pivot of magnitude <= E (E >= 0)\n"
          "  --eps-relative      ... of magnitude <= E * |that bond's first pivot|\n"
          "                      (pivots at round-off level never count: E = 0 gives the\n"
          "                      ranks to working precision)\n"
          "  --output PREFIX     write PREFIX.tci and PREFIX.core<k>.tns (default: none)\n"
          "  --no-error          skip the relative error (its cost grows with the square of\n"
          "                      the largest rank)\n"
          "  --check-error E     exit with status 1 unless the relative error is at most E\n"
          "                      (a bound at the formula's floor counts as that bound)\n"
          "  --backend-info      print the backend and device\n"
          "  --quiet             leave out the per-bond and per-core lines, and the live\n"
          "                      progress indicator on a terminal's stderr\n",
          TP_COO_MAX_ORDER);
  tenport_conventions_help(out);
}

static int parse_rmax(const char *v, int64_t *out) {
  uint64_t u;
  if (!tenport_parse_u64(v, &u) || u < 1 || u > INT64_MAX)
    return tenport_expected("an integer from 1 to %lld", (long long)INT64_MAX);
  *out = (int64_t)u;
  return 1;
}

/* Parses the value v of option a; 1 if it is valid, 0 if not, -1 if a is unknown. */
static int parse_value(sttid_cli *c, const char *a, const char *v) {
  if (!strcmp(a, "--input"))
    return tenport_parse_text(v, &c->input);
  if (!strcmp(a, "--output"))
    return tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--dims"))
    return c->dims_text = v, 1; /* checked with its own messages in parse_dims */
  if (!strcmp(a, "--rmax"))
    return c->has_rmax = 1, parse_rmax(v, &c->opt.rmax);
  if (!strcmp(a, "--eps"))
    return c->has_eps = 1, tenport_parse_number(v, 0, 0, INFINITY, 0, &c->opt.eps);
  if (!strcmp(a, "--check-error"))
    return tenport_parse_number(v, 0, 0, INFINITY, 0, &c->check_error);
  return tenport_text_option(&c->text, a, v);
}

/* Options without a value; 1 if a was one of them. */
static int parse_flag(sttid_cli *c, const char *a) {
  if (!strcmp(a, "--eps-relative"))
    return c->opt.eps_relative = 1;
  if (!strcmp(a, "--backend-info"))
    return c->backend_info = 1;
  if (!strcmp(a, "--quiet"))
    return c->quiet = 1;
  if (!strcmp(a, "--no-error"))
    return c->no_error = 1;
  return tenport_text_option(&c->text, a, NULL) == 1;
}

/* "100,100,100" (or "100x100x100") into c->order and c->dims; 0, or 2 after reporting. */
static int parse_dims(sttid_cli *c) {
  char text[512], why[160];
  if (strlen(c->dims_text) >= sizeof text) {
    fprintf(stderr, "tenport sttid: --dims is too long\n");
    return 2;
  }
  strcpy(text, c->dims_text);
  for (char *p = text; *p; ++p)
    *p = *p == ',' ? 'x' : *p;
  if (!tenport_parse_dims(text, TP_COO_MAX_ORDER, c->dims, &c->order, why, sizeof why)) {
    fprintf(stderr, "tenport sttid: --dims '%s': %s\n", c->dims_text, why);
    return 2;
  }
  if (c->order < 2) {
    fprintf(stderr, "tenport sttid: --dims '%s': a tensor train has at least 2 modes\n",
            c->dims_text);
    return 2;
  }
  return 0;
}

static int check_args(sttid_cli *c) {
  const char *missing = !c->input      ? "--input"
                        : !c->has_rmax ? "--rmax"
                        : !c->has_eps  ? "--eps"
                                       : NULL;
  if (missing) {
    fprintf(stderr, "tenport sttid: %s is required ('tenport sttid --help')\n", missing);
    return 2;
  }
  if (c->no_error && c->check_error >= 0) {
    fprintf(stderr, "tenport sttid: --check-error needs the relative error: drop --no-error\n");
    return 2;
  }
  return c->dims_text ? parse_dims(c) : 0;
}

static int flag_of(void *c, const char *a) { return parse_flag((sttid_cli *)c, a); }

static int value_of(void *c, const char *a, const char *v) {
  return parse_value((sttid_cli *)c, a, v);
}

int tenport_sttid_args(int argc, char **argv, sttid_cli *c) {
  memset(c, 0, sizeof *c);
  c->check_error = -1;
  c->text.read = tp_tns_options_default();
  const int r = tenport_parse_options("sttid", argc, argv, c, flag_of, value_of);
  if (r)
    return r;
  return check_args(c);
}
