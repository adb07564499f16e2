/* The option conventions every tenport command follows, applied once by the dispatcher
 * before a command parses its own options:
 *   --name=value        the same as --name value
 *   short forms         -r rank, -i input, -o output, -s seed, -q quiet, -t threads,
 *                       -h help; a value may follow attached (-r10)
 *   one spelling        --max-iters (also --maxiters, --maxits, --max-iter),
 *                       --dims (also --shape), --input (also peaks' --sh)
 *   for every command   --threads N, --device D, --force, --json FILE
 * The command parsers see the long spellings only. */
#ifndef TENPORT_CLI_CONVENTIONS_H
#define TENPORT_CLI_CONVENTIONS_H

#include <stdio.h>

#include "tenport/tenport.h"

/* What the options every command takes asked for. */
typedef struct tenport_cli_settings {
  int threads;      /* --threads: OpenMP threads; 0: the default */
  int device;       /* --device: the GPU of a one-process run */
  int device_set;   /* --device was given */
  int force;        /* --force: outputs may replace existing files */
  const char *json; /* --json: the run's summary (cli_summary.h), or NULL */
} tenport_cli_settings;

extern tenport_cli_settings tenport_settings;

/* What an output set says when it refuses to replace a file (without --force). */
#define TENPORT_FORCE_ADVICE "--force replaces it, or name another output"

/* argv of one command (argv[0] the command word) in the spellings its parser takes, with
 * --threads, --device, --force and --json taken out into tenport_settings. Returns 0 with
 * *out_argv from malloc (free it; its strings are argv's, or parts of them copied), or 2
 * after a usage message. */
int tenport_conventional_args(const char *cmd, int argc, char **argv, int *out_argc,
                              char ***out_argv);
void tenport_conventional_args_free(int argc, char **argv, char **out_argv);

/* The space a one-process run asks for: tenport_settings' device and threads. */
tp_space_options tenport_space_options(void);

/* The lines each command's --help ends with. */
void tenport_conventions_help(FILE *out);

#endif
