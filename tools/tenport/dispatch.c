/* tenport's dispatcher: the command word picks a subcommand. main.c calls it; the
 * libFuzzer target tests/fuzz/fuzz_cli.c calls it in process. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_summary.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/dispatch.h"
#include "tenport/tenport.h"

typedef struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
  int own_json; /* writes --json FILE itself (its figures), not the run's summary */
} command;

static const command commands[] = {
    {"demo", tenport_cmd_demo,
     "the four methods on built-in example data, each answer checked (a few seconds)", 0},
    {"info", tenport_cmd_info,
     "backend, device and the machine's measured ceilings, with the portable layer's "
     "micro-benchmarks (--full for the large sizes)",
     0},
    {"sshopm", tenport_cmd_sshopm,
     "eigenpairs of symmetric tensors (.npy of unique values) by SS-HOPM", 0},
    {"peaks", tenport_cmd_peaks,
     "DW-MRI fiber peaks: local maxima of spherical-harmonic functions (.npy, NIfTI, "
     ".mif)",
     0},
    {"cp-als", tenport_cmd_cp_als,
     "CP decomposition of a dense (.npy, dense text) or sparse (.tns, .tpb) tensor by "
     "alternating least squares",
     0},
    {"gcp", tenport_cmd_gcp,
     "Generalized CP of a dense or sparse tensor: a loss for its data (counts, 0/1, "
     "positive values, ...), missing entries masked, by L-BFGS-B",
     0},
    {"cp-apr", tenport_cmd_cp_apr,
     "CP-APR: Poisson CP of a count tensor (.tns, .tpb, or a dense file's nonzeros) with "
     "nonnegative factors, by multiplicative updates",
     0},
    {"sttid", tenport_cmd_sttid,
     "sparse tensor-train interpolative decomposition of a sparse tensor (.tns, .tpb)", 0},
    {"gen", tenport_cmd_gen,
     "generate test data: 'tenport gen dense' (.npy) and 'tenport gen sparse' (.tns, .tpb), "
     "random or planted low-rank tensors, 'tenport gen sttid' power-law or knowledge-graph "
     "tensors",
     0},
    {"bench", tenport_cmd_bench,
     "the four methods' standard cases on this backend, next to the machine's ceilings "
     "(--quick, --full, --json)",
     1},
    {"convert", tenport_cmd_convert,
     "convert a tensor between .tns, sptensor text, .tpb, .npy and dense 'tensor' text, "
     "sparse or dense, gzip-compressed or not",
     0},
    {"version", tenport_cmd_version, "print the version and backend", 0},
};

static void usage(FILE *out) {
  fprintf(out, "usage: tenport <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
    fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n'tenport <command> --help' describes a command's options.\n");
}

/* The command on its arguments in the conventional spellings (cli_conventions.h). */
static int run_command(const command *c, int argc, char **argv) {
  int n;
  char **args;
  if (tenport_conventional_args(c->name, argc, argv, &n, &args))
    return 2;
  tp_output_run_begin(); /* the command's inputs and outputs: one run's files */
  int code = c->own_json ? 0 : tenport_summary_start(c->name, n, args);
  if (code == 0)
    code = c->own_json ? c->run(n, args) : tenport_summary_finish(c->run(n, args));
  tp_output_run_end();
  tenport_conventional_args_free(argc, argv, args);
  return code;
}

tenport_command_fn tenport_command_named(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
    if (strcmp(name, commands[i].name) == 0)
      return commands[i].run;
  return NULL;
}

int tenport_main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "--version") == 0)
    return tenport_cmd_version(1, argv + 1);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
    if (strcmp(argv[1], commands[i].name) == 0)
      return run_command(&commands[i], argc - 1, argv + 1);
  fprintf(stderr, "tenport: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
