/* The commands' inputs and outputs: an input opened once (a path or "-"), and the output
 * set each command fills, created before any work so that a result that cannot be
 * written, or would replace one of the inputs, is refused at once. Each function reports
 * its failure ("tenport CMD: ...") and returns 1, the exit code of failed work, or 0. */
#ifndef TENPORT_CLI_FILES_H
#define TENPORT_CLI_FILES_H

#include "tenport/tenport.h"

int tenport_open_input(const char *cmd, const char *path, tp_input **in);

/* Says on standard error when a sparse text's first line was taken as a header of the
 * one form a first nonzero could also have ("N I1 ... IN"): the tensor's shape comes
 * from it, and --no-header would read it as a nonzero. */
void tenport_note_header(const char *cmd, const char *name, const tp_coo_read_info *info, int order,
                         const int64_t *dims);

/* The sparse-text options a command took (--index-base, --no-header), with whether any
 * was given: they apply to .tns text only. */
typedef struct tenport_text_options {
  tp_tns_options read;
  int given;
} tenport_text_options;

/* Takes --index-base (value v) or --no-header (v NULL) into t: 1 if a was one of them and
 * is valid, 0 if its value is not valid, -1 if a is neither. */
int tenport_text_option(tenport_text_options *t, const char *a, const char *v);

/* 0 when the options fit the input (nothing given, or the input is text), else 2 after a
 * message saying what the input is. */
int tenport_text_options_fit(const char *cmd, tp_input *in, const tenport_text_options *t);

/* A new output set in which neither the input (may be NULL) nor any of the n paths
 * (inputs named by path, such as --init files; NULL entries are skipped) can be
 * replaced. */
int tenport_outputs_begin(const char *cmd, tp_output_set **set, const tp_input *in,
                          const char *const *inputs, int n);
int tenport_outputs_add(const char *cmd, tp_output_set *set, const char *path);
int tenport_outputs_commit(const char *cmd, tp_output_set *set);

/* The folder of an output whose names are known only later exists and is writable. */
int tenport_outputs_check_folder(const char *cmd, const char *path);

/* The output set of a decomposition run with --output PREFIX or --history FILE (either may
 * be NULL), in which none of its inputs can be replaced: the tensor (in, may be NULL), the
 * files of --init PREFIX (init may be NULL: PREFIX_lambda.npy and PREFIX_factor<k>.npy)
 * and the n paths of others (such as a mask). The history's file joins the set at once,
 * the model's once its order is known (tp_kruskal_reserve_npy); output's folder must be
 * writable. */
int tenport_outputs_begin_model(const char *cmd, const tp_input *in, const char *init,
                                const char *const *inputs, int n, const char *output,
                                const char *history, tp_output_set **set);

/* The same set for a distributed run's rank 0, from the inputs' paths (the n of inputs,
 * NULL ones skipped): refuses to replace existing files unless --force; returns the status
 * for the ranks to agree on, the message unprinted. */
tp_status tenport_outputs_begin_paths(const char *const *inputs, int n, const char *init,
                                      const char *output, const char *history, tp_output_set **set);

#endif
