/* --json FILE, which every command takes: a JSON summary of the run, so that a pipeline
 * needs no parsing of the text output. It holds the version and backend, the command and
 * its arguments (in the conventional spellings), the exit code and the error message of a
 * failed run, the wall time, the inputs opened and the outputs written, the phases'
 * seconds and the results the command reports. The file is added to an output set of its
 * own before the command runs (an existing file is refused without --force) and written
 * when it ends, failed or not; in a distributed run, by the process of launch rank 0.
 * The commands record what they know as they go; without --json nothing is written. */
#ifndef TENPORT_CLI_SUMMARY_H
#define TENPORT_CLI_SUMMARY_H

#include <stdint.h>

#include "tenport/files.h"

/* Before the command: 0, or 1 after a message when the file cannot be written. */
int tenport_summary_start(const char *cmd, int argc, char **argv);
/* After it: writes the summary (with --json) and returns code, or 1 if writing failed. */
int tenport_summary_finish(int code);
/* The command writes a JSON file of its own as its summary (tenport bench). */
void tenport_summary_written_by_command(void);

void tenport_summary_input(const char *path);
void tenport_summary_output(const char *path);
void tenport_summary_outputs(const tp_output_set *set); /* every file of the set */
void tenport_summary_phase(const char *name, double seconds);
void tenport_summary_number(const char *key, double value);
void tenport_summary_integer(const char *key, long long value);
void tenport_summary_bool(const char *key, int value);
void tenport_summary_text(const char *key, const char *value);
void tenport_summary_error(const char *message);
/* A shape as text, "401x201x12". */
void tenport_summary_dims(const char *key, int order, const int64_t *dims);

#endif
