/* Starting the ranks of a distributed command and agreeing on each step (cli_ranks.h). */
#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/tenport/commands.h"

static int failed(const char *cmd, const tp_comm *world) {
  return tp_comm_rank(world) == 0 ? tenport_fail(cmd, "failed") : 1;
}

int tenport_ranks_agree(const char *cmd, tp_comm *world, tp_status local) {
  return tp_comm_agree(world, local) == TP_SUCCESS ? 0 : failed(cmd, world);
}

int tenport_ranks_collective(const char *cmd, const tp_comm *world, tp_status st) {
  return st == TP_SUCCESS ? 0 : failed(cmd, world);
}

int tenport_ranks_reported(const char *cmd, tp_comm *world, int code) {
  int32_t worst = code;
  if (tp_comm_allreduce_host(world, &worst, 1, TP_DTYPE_I32, TP_COMM_MAX) != TP_SUCCESS)
    return failed(cmd, world);
  return (int)worst;
}

/* The value of the first of the variables in names that the environment sets, as an
 * integer; fallback when it sets none. */
static int first_set(const char *const *names, size_t n, int fallback) {
  for (size_t k = 0; k < n; ++k)
    if (getenv(names[k]))
      return atoi(getenv(names[k]));
  return fallback;
}

int tenport_launch_rank(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
  return first_set(names, sizeof names / sizeof names[0], 0);
}

int tenport_launch_size(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"};
  return first_set(names, sizeof names / sizeof names[0], tp_comm_launched() ? 0 : 1);
}

int tenport_ranks_available(const char *cmd) {
  if (tp_comm_has_mpi())
    return 0;
  fprintf(stderr,
          "tenport %s: started by an MPI launcher (or with --distributed), but this "
          "tenport was built without MPI: configure with -Dmpi=enabled\n",
          cmd);
  return 2;
}

int tenport_ranks_start(const char *cmd, tp_comm **world, tp_space **space) {
  if (tp_comm_init_world(world, NULL) != TP_SUCCESS)
    return tenport_fail(cmd, "cannot start MPI");
  int devices = 1;
  tp_space_options o = tenport_space_options();
  if (tenport_settings.device_set) {
    if (tp_comm_rank(*world) == 0)
      fprintf(stderr,
              "tenport %s: --device does not apply to a distributed run (each rank "
              "takes the GPU of its rank on the node)\n",
              cmd);
    return 2;
  }
  tp_status st = tp_device_count(&devices);
  if (st == TP_SUCCESS && devices > 1) /* one rank per GPU of the node */
    o.device = tp_comm_node_rank(*world) % devices;
  if (st == TP_SUCCESS)
    st = tp_space_create(space, &o);
  return tenport_ranks_agree(cmd, *world, st);
}

void tenport_ranks_end(tp_comm **world, tp_space **space) {
  tp_space_destroy(space);
  tp_comm_finalize_world(world);
}

int tenport_ranks_refuse(const char *cmd, tp_comm *world, int example, const char *opt,
                         const char *path, const char *rows) {
  int root = tp_comm_rank(world) == 0, code = 0;
  struct stat st;
  if (example) {
    if (root)
      fprintf(stderr,
              "tenport %s: --example runs in one process; run it without mpirun (and "
              "without --distributed)\n",
              cmd);
    return 2;
  }
  if (!strcmp(path, "-"))
    code = 2;
  else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    code = 1;
  code = tenport_ranks_reported(cmd, world, code); /* each rank checks its own view */
  if (code && root)
    fprintf(stderr,
            "tenport %s: a distributed run reads each rank's %s from %s by positioned "
            "reads: '%s' must be a regular file, not standard input, a pipe or a device\n",
            cmd, rows, opt, path);
  return code;
}
