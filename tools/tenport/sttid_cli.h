/* tenport sttid, shared by its files: the arguments (sttid_args.c), the report's lines
 * (sttid_report.c) and the pipeline that runs them (cmd_sttid.c). */
#ifndef TENPORT_STTID_CLI_H
#define TENPORT_STTID_CLI_H

#include <stdio.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_files.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/progress.h"
#include "tenport/tenport.h"

/* What the command line asked for. */
typedef struct sttid_cli {
  const char *input, *dims_text, *output;
  int64_t dims[TP_COO_MAX_ORDER];
  int order;
  int has_rmax, has_eps, backend_info, quiet, no_error;
  double check_error; /* --check-error: fail above this relative error (< 0: none) */
  tp_sttid_options opt;
  tenport_text_options text; /* --index-base, --no-header */
} sttid_cli;

void tenport_sttid_usage(FILE *out);
/* 0: run; 1: help was asked for; 2: usage error (reported). */
int tenport_sttid_args(int argc, char **argv, sttid_cli *c);

/* --backend-info's line. */
void tenport_sttid_print_backend(tp_space *space);
/* The tensor read and the options of the run. */
void tenport_sttid_print_tensor(const sttid_cli *c, const tp_input *in, const tp_coo *t,
                                const tp_coo_read_info *info);
/* Bond k's PRRLU. */
void tenport_sttid_print_bond(const sttid_cli *c, int k, const tp_sttid_bond *b);
void tenport_sttid_print_ranks(const tp_tci *t);
/* The cores' sizes and densities (one line each unless quiet). */
tp_status tenport_sttid_print_cores(const tp_tci *t, int quiet);
void tenport_sttid_print_error(const tp_tci_error_info *e);
/* The times and the files written. */
void tenport_sttid_print_done(const sttid_cli *c, const tp_tci *tci, const tp_sttid_info *info,
                              double seconds);
/* --check-error's verdict: the exit code, 0 or 1 (0 without it). */
int tenport_sttid_check_error(const sttid_cli *c, const tp_tci_error_info *err);

#endif
