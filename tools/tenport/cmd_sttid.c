/* tenport sttid: the sparse tensor-train interpolative decomposition of a tensor read
 * from .tns or .tpb. Prints what each bond's PRRLU did, the TT ranks, the cores' sizes
 * and densities and the relative error, and can write the result as TCI files. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_files.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/progress.h"
#include "tenport/tenport.h"

typedef struct sttid_cli {
  const char *input, *dims_text, *output;
  int64_t dims[TP_COO_MAX_ORDER];
  int order;
  int has_rmax, has_eps, backend_info, quiet, no_error;
  double check_error; /* --check-error: fail above this relative error (< 0: none) */
  tp_sttid_options opt;
  tenport_text_options text; /* --index-base, --no-header */
} sttid_cli;

static void usage(FILE *out) {
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

/* ---- options ------------------------------------------------------------------- */

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

/* 0: run; 1: help was asked for; 2: usage error (reported). */
static int parse_args(int argc, char **argv, sttid_cli *c) {
  memset(c, 0, sizeof *c);
  c->check_error = -1;
  c->text.read = tp_tns_options_default();
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (parse_flag(c, a))
      continue;
    const char *v = tenport_option_value(argc, argv, i);
    if (tenport_option_error("sttid", a, parse_value(c, a, v ? v : ""), v))
      return 2;
    ++i;
  }
  return check_args(c);
}

/* ---- the report -------------------------------------------------------------------- */

static void print_backend(tp_space *space) {
  tp_space_info info;
  if (tp_space_get_info(space, &info) != TP_SUCCESS) {
    printf("backend: %s (no device information: %s)\n", tp_backend_name(), tp_last_error());
    return;
  }
  printf("backend: %s, device %d: %s, %d %s\n", info.backend, info.device, info.device_name,
         info.compute_units, info.is_gpu ? "multiprocessors" : "threads");
}

static void print_tensor(const sttid_cli *c, const tp_input *in, const tp_coo *t,
                         const tp_coo_read_info *info) {
  double entries = 1;
  printf("tensor: %s, ", tp_input_name(in));
  for (int m = 0; m < t->order; ++m) {
    printf("%s%lld", m ? "x" : "", (long long)t->dims[m]);
    entries *= (double)t->dims[m];
  }
  printf(", %lld nonzeros (%lld duplicates summed), density %.3g\n", (long long)t->nnz,
         (long long)info->duplicates, (double)t->nnz / entries);
  tenport_summary_dims("dims", t->order, t->dims);
  tenport_summary_integer("nnz", (long long)t->nnz);
  tenport_summary_integer("duplicates", (long long)info->duplicates);
  printf("sttid: rmax %lld, eps %g (%s)\n", (long long)c->opt.rmax, c->opt.eps,
         c->opt.eps_relative ? "relative to each bond's first pivot" : "absolute");
}

static void print_bond(const sttid_cli *c, int k, const tp_sttid_bond *b) {
  printf("bond %d: %lld x %lld, %lld nnz, rank %lld (%s), pivots %.6g .. %.6g, threshold %.3g "
         "(%s), fill %lld; reshape %.3f s, prrlu %.3f s, extract %.3f s\n",
         k, (long long)b->rows, (long long)b->cols, (long long)b->nnz, (long long)b->rank,
         tp_prrlu_stop_name(b->stop), b->first_pivot, b->last_pivot, b->threshold,
         c->opt.eps_relative ? "relative" : "absolute", (long long)b->fill, b->seconds_reshape,
         b->seconds_prrlu, b->seconds_extract);
}

static void print_ranks(const tp_tci *t) {
  printf("tt ranks:");
  for (int k = 0; k <= t->order; ++k)
    printf(" %lld", (long long)t->ranks[k]);
  printf("\n");
  tenport_summary_dims("tt_ranks", t->order + 1, t->ranks);
}

static tp_status print_cores(const tp_tci *t, int quiet) {
  double per_core[TP_COO_MAX_ORDER], average = 0;
  tp_status st = tp_tci_density(t, per_core, &average);
  if (st != TP_SUCCESS)
    return st;
  if (!quiet)
    for (int k = 0; k < t->order; ++k)
      printf("core %d: %lld x %lld x %lld, %lld nnz, density %.4g\n", k,
             (long long)t->cores[k].dims[0], (long long)t->cores[k].dims[1],
             (long long)t->cores[k].dims[2], (long long)t->cores[k].nnz, per_core[k]);
  int64_t stored = 0;
  for (int k = 0; k < t->order; ++k)
    stored += t->cores[k].nnz;
  printf("cores: %lld stored entries, average density %.4g\n", (long long)stored, average);
  tenport_summary_integer("core_entries", (long long)stored);
  return TP_SUCCESS;
}

static void print_error(const tp_tci_error_info *e) {
  tenport_summary_number("relative_error", e->relative_error);
  tenport_summary_phase("error", e->seconds);
  if (e->at_floor)
    printf("relative error: at most %.3g, the floor of ||X||^2 - 2<X, X~> + ||X~||^2 in "
           "double precision (%.3f s)\n",
           e->relative_error, e->seconds);
  else
    printf("relative error: %.6g (%.3f s)\n", e->relative_error, e->seconds);
}

/* ---- running --------------------------------------------------------------------------- */

/* The tensor (a .tpb must have the --dims when they are given), and with --output the
 * tensor train's files added to the set now that the order is known. */
static tp_status read_input(const sttid_cli *c, tp_input *in, tp_output_set *set, tp_coo *host,
                            tp_coo_read_info *info) {
  tp_status st = tp_coo_read_input_with(in, TP_DTYPE_F64, c->dims_text ? c->order : 0,
                                        c->dims_text ? c->dims : NULL, &c->text.read, host, info);
  if (st == TP_SUCCESS && set)
    st = tp_tci_reserve(set, c->output, host->order);
  return st;
}

/* The indicator's line for a report of tp_sttid (bonds counted from 1 there). */
static void show_progress(const tp_sttid_progress *p, void *user) {
  tenport_progress *bar = (tenport_progress *)user;
  if (p->bond_done)
    tenport_progress_show(bar, "bond %d of %d done, rank %lld; %lld pivots in all", p->bond + 1,
                          p->bonds, (long long)p->rank, (long long)p->pivots);
  else
    tenport_progress_update(bar, "bond %d of %d: %lld pivots (at most %lld); %lld in all",
                            p->bond + 1, p->bonds, (long long)p->rank, (long long)p->rank_limit,
                            (long long)p->pivots);
}

static tp_status decompose(tp_space *space, const sttid_cli *c, const tp_coo *host,
                           tenport_progress *bar, tp_tci *tci, tp_sttid_info *info) {
  tp_sttid_options opt = c->opt;
  if (bar->enabled)
    opt.progress = show_progress, opt.progress_user = bar;
  tp_status st = tp_sttid(space, host, &opt, tci, info);
  tenport_progress_hide(bar); /* the report follows on stdout */
  return st;
}

static tp_status report_error(const sttid_cli *c, const tp_tci *tci, const tp_coo *host,
                              tenport_progress *bar, tp_tci_error_info *err_out) {
  err_out->relative_error = -1;
  if (c->no_error)
    return TP_SUCCESS;
  tp_tci_error_info err;
  tenport_progress_show(bar, "the relative error ||X - X~|| / ||X||");
  tp_status st = tp_tci_error(tci, host, &err);
  tenport_progress_hide(bar);
  if (st == TP_SUCCESS)
    print_error(&err), *err_out = err;
  return st;
}

static void print_done(const sttid_cli *c, const tp_tci *tci, const tp_sttid_info *info,
                       double seconds) {
  printf("sttid %.3f s; total %.3f s (reading, error and writing included)\n", info->seconds_total,
         seconds);
  tenport_summary_phase("sttid", info->seconds_total);
  if (c->output)
    printf("wrote %s.tci, %s.core{0..%d}.tns\n", c->output, c->output, tci->order - 1);
}

static int check_error(const sttid_cli *c, const tp_tci_error_info *err) {
  if (c->check_error < 0)
    return 0;
  int pass = err->relative_error <= c->check_error;
  printf("check: relative error %.3g <= %.3g: %s\n", err->relative_error, c->check_error,
         pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

static tp_status write_output(const sttid_cli *c, tp_output_set *set, const tp_tci *tci) {
  tp_status st = tp_tci_write_to(set, c->output, tci);
  if (st == TP_SUCCESS && (st = tp_output_set_commit(set)) == TP_SUCCESS)
    tenport_summary_outputs(set);
  return st;
}

static int run_input(tp_space *space, const sttid_cli *c, tp_input *in, tp_output_set *set) {
  double t0 = tenport_seconds();
  tp_coo host;
  tp_coo_read_info read_info = {0};
  tp_tci tci;
  tp_sttid_info info;
  tenport_progress bar;
  memset(&host, 0, sizeof host), memset(&tci, 0, sizeof tci), memset(&info, 0, sizeof info);
  if (tenport_text_options_fit("sttid", in, &c->text))
    return 2;
  tenport_progress_begin(&bar, "sttid", tenport_progress_wanted(c->quiet));
  if (c->backend_info)
    print_backend(space);
  tp_status st = read_input(c, in, set, &host, &read_info);
  if (st == TP_SUCCESS) {
    print_tensor(c, in, &host, &read_info);
    st = decompose(space, c, &host, &bar, &tci, &info);
  }
  for (int k = 0; st == TP_SUCCESS && !c->quiet && k < info.bonds; ++k)
    print_bond(c, k, &info.bond[k]);
  if (st == TP_SUCCESS) {
    print_ranks(&tci);
    st = print_cores(&tci, c->quiet);
  }
  tp_tci_error_info err;
  if (st == TP_SUCCESS)
    st = report_error(c, &tci, &host, &bar, &err);
  if (st == TP_SUCCESS && set)
    st = write_output(c, set, &tci);
  tenport_progress_end(&bar); /* before any message on stderr */
  int code = st == TP_SUCCESS ? 0 : tenport_fail("sttid", "failed");
  if (code == 0) {
    print_done(c, &tci, &info, tenport_seconds() - t0);
    code = check_error(c, &err);
  }
  tp_tci_free(&tci);
  tp_coo_free(NULL, &host);
  return code;
}

/* The input opened once; with --output, the set that will hold the tensor train, its
 * folder checked before anything is read. */
static int run(tp_space *space, void *cli) {
  const sttid_cli *c = (const sttid_cli *)cli;
  tp_input *in = NULL;
  tp_output_set *set = NULL;
  int code = tenport_open_input("sttid", c->input, &in);
  if (code == 0 && c->output)
    code = tenport_outputs_begin("sttid", &set, in, NULL, 0);
  if (code == 0 && c->output)
    code = tenport_outputs_check_folder("sttid", c->output);
  if (code == 0)
    code = run_input(space, c, in, set);
  tp_output_set_destroy(&set);
  tp_input_close(&in);
  return code;
}

int tenport_cmd_sttid(int argc, char **argv) {
  sttid_cli c;
  int code = tenport_parsed(parse_args(argc, argv, &c), usage);
  if (code >= 0)
    return code;
  return tenport_run_in_space("sttid", run, &c);
}
