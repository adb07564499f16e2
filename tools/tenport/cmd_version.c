/* tenport version: the version, the backend and what the build has (MPI, NCCL, zlib);
 * with --json FILE the same as a summary's results. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/commands.h"

static void usage(FILE *out) {
  fprintf(out, "usage: tenport version [--json FILE]\n"
               "Prints the version, the backend and what this build has (MPI, NCCL, zlib).\n");
  tenport_conventions_help(out);
}

int tenport_cmd_version(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
      return usage(stdout), 0;
    fprintf(stderr, "tenport version: unknown option '%s' ('tenport version --help' lists them)\n",
            argv[i]);
    return 2;
  }
  printf("tenport %s (%s backend%s%s%s)\n", tp_version(), tp_backend_name(),
         tp_comm_has_mpi() ? ", MPI" : "", tp_comm_has_nccl() ? ", NCCL" : "",
         tp_input_has_gzip() ? ", zlib" : "");
  tenport_summary_text("version", tp_version());
  tenport_summary_integer("mpi", tp_comm_has_mpi());
  tenport_summary_integer("nccl", tp_comm_has_nccl());
  tenport_summary_integer("zlib", tp_input_has_gzip());
  return 0;
}
