/* The commands' inputs and outputs: an input opened once (a path or "-"), and the output
 * set each command fills, created before any work so that a result that cannot be
 * written, or would replace one of the inputs, is refused at once. Each function reports
 * its failure ("tenport CMD: ...") and returns 1, the exit code of failed work, or 0. */
#ifndef TENPORT_CLI_FILES_H
#define TENPORT_CLI_FILES_H

#include "tenport/tenport.h"

int tenport_open_input(const char *cmd, const char *path, tp_input **in);

/* A new output set in which neither the input (may be NULL) nor any of the n paths
 * (inputs named by path, such as --init files; NULL entries are skipped) can be
 * replaced. */
int tenport_outputs_begin(const char *cmd, tp_output_set **set, const tp_input *in,
                          const char *const *inputs, int n);
int tenport_outputs_add(const char *cmd, tp_output_set *set, const char *path);
int tenport_outputs_commit(const char *cmd, tp_output_set *set);

/* The folder of an output whose names are known only later exists and is writable. */
int tenport_outputs_check_folder(const char *cmd, const char *path);

#endif
