/* tenport cp-apr, shared by its files: the arguments (cp_apr_args.c) and the run
 * (cmd_cp_apr.c). */
#ifndef TENPORT_CP_APR_CLI_H
#define TENPORT_CP_APR_CLI_H

#include <stdio.h>

#include "tools/tenport/cli_files.h"
#include "tools/tenport/commands.h"

typedef struct tenport_cp_apr_cli {
  const char *input, *init, *output, *precision, *dims_text;
  int rank, quiet;
  tp_cp_apr_options solver;
  tenport_text_options text; /* --index-base, --no-header (.tns inputs) */
  int order;                 /* order and dims: --dims, else 0 */
  int64_t dims[TP_COO_MAX_ORDER];
} tenport_cp_apr_cli;

void tenport_cp_apr_usage(FILE *out);
/* 0: run; 1: help was asked for; 2: usage error (reported). */
int tenport_cp_apr_args(int argc, char **argv, tenport_cp_apr_cli *c);
/* The result's lines and --json fields (and the model's files with --output). */
void tenport_cp_apr_print_result(const tp_cp_apr_result *r, const tenport_cp_apr_cli *c, int order,
                                 const int64_t *dims);
/* mpirun ... tenport cp-apr: every rank runs this (cp_apr_dist.c); the exit code. */
int tenport_cp_apr_distributed(tenport_cp_apr_cli *c);

#endif
