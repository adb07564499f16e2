/* tenport sttid: the sparse tensor-train interpolative decomposition of a tensor read
 * from .tns or .tpb. Prints what each bond's PRRLU did, the TT ranks, the cores' sizes
 * and densities and the relative error, and can write the result as TCI files. The
 * arguments are sttid_args.c's and the report's lines sttid_report.c's; this file is the
 * pipeline: read -> decompose -> error -> write -> report. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/sttid_cli.h"

/* The tensor (a .tpb must have the --dims when they are given), and with --output the
 * tensor train's files added to the set now that the order is known. */
static tp_status read_input(const sttid_cli *c, tp_input *in, tp_output_set *set, tp_coo *host,
                            tp_coo_read_info *info) {
  tp_status st = tp_coo_read_input_with(in, TP_DTYPE_F64, c->dims_text ? c->order : 0,
                                        c->dims_text ? c->dims : NULL, &c->text.read, host, info);
  if (st == TP_SUCCESS)
    tenport_note_header("sttid", tp_input_name(in), info, host->order, host->dims);
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
    tenport_sttid_print_error(&err), *err_out = err;
  return st;
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
    tenport_sttid_print_backend(space);
  tp_status st = read_input(c, in, set, &host, &read_info);
  if (st == TP_SUCCESS) {
    tenport_sttid_print_tensor(c, in, &host, &read_info);
    st = decompose(space, c, &host, &bar, &tci, &info);
  }
  for (int k = 0; st == TP_SUCCESS && !c->quiet && k < info.bonds; ++k)
    tenport_sttid_print_bond(c, k, &info.bond[k]);
  if (st == TP_SUCCESS) {
    tenport_sttid_print_ranks(&tci);
    st = tenport_sttid_print_cores(&tci, c->quiet);
  }
  tp_tci_error_info err;
  if (st == TP_SUCCESS)
    st = report_error(c, &tci, &host, &bar, &err);
  if (st == TP_SUCCESS && set)
    st = write_output(c, set, &tci);
  tenport_progress_end(&bar); /* before any message on stderr */
  int code = st == TP_SUCCESS ? 0 : tenport_fail("sttid", "failed");
  if (code == 0) {
    tenport_sttid_print_done(c, &tci, &info, tenport_seconds() - t0);
    code = tenport_sttid_check_error(c, &err);
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
  int code = tenport_parsed(tenport_sttid_args(argc, argv, &c), tenport_sttid_usage);
  if (code >= 0)
    return code;
  return tenport_run_in_space("sttid", run, &c);
}
