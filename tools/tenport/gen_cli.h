/* tenport gen, shared by its files: each kind's command (gen_dense.c, gen_sparse.c,
 * gen_sttid.c; cmd_gen.c picks one by the word after gen), the argument helpers
 * (gen_args.c) and the outputs (gen_files.c). */
#ifndef TENPORT_GEN_CLI_H
#define TENPORT_GEN_CLI_H

#include <stdio.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_files.h"
#include "tools/tenport/cli_tns_output.h"
#include "tools/tenport/commands.h"
#include "tenport/tenport.h"

/* Each kind on its arguments (argv[0] the kind's word); the exit code. */
int tenport_gen_dense(int argc, char **argv);
int tenport_gen_sparse(int argc, char **argv);
int tenport_gen_sttid(int argc, char **argv);
void tenport_gen_usage_dense(FILE *out);
void tenport_gen_usage_sparse(FILE *out);
void tenport_gen_usage_sttid(FILE *out);

/* "tenport gen: WHAT ('tenport gen --help')"; returns 2. */
int tenport_gen_usage_error(const char *what);
/* "tenport gen: OPTION 'TEXT': WHY"; returns 2. */
int tenport_gen_shape_error(const char *option, const char *text, const char *why);
/* An integer from lo to INT64_MAX; 1, or 0 (tenport_expected says why). */
int tenport_gen_parse_count(const char *v, int64_t lo, int64_t *out);

/* The last tenport error, reported; returns 1. */
int tenport_gen_fail(void);
/* The output set, ready before the work: the tensor, then the truth's files (a model of
 * `order` modes) when asked for; 0, or 1 (reported). */
int tenport_gen_begin_outputs(const char *output, const char *truth, int order,
                              tp_output_set **set);
/* Writes the truth (if asked for) into the set and commits it. */
tp_status tenport_gen_finish_outputs(tp_output_set *set, const char *truth, const tp_kruskal *k);
/* A .tpb, or a .tns with the sptensor header when its text alone would read back as
 * another shape (unless no_header). */
tp_status tenport_gen_write_coo(tp_output_set *set, const char *path, const tp_coo *t,
                                int no_header);
/* "I0xI1x..." on stdout. */
void tenport_gen_print_dims(const tp_coo *t);

#endif
