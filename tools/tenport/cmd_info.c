/* tenport info: what this build runs on, the machine's ceilings measured now, and the
 * portable layer's micro-benchmarks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/commands.h"
#include "perf/micro/micro.h"
#include "tenport/tenport.h"

static void print_device(const tp_space_info *info) {
  printf("tenport %s, %s backend\n", tp_version(), info->backend);
  printf("device %d: %s\n", info->device, info->device_name);
  printf("  %s units: %d | memory: %.1f GiB | L1/shared per unit: %zu KiB | last-level "
         "cache: %.1f MiB\n",
         info->is_gpu ? "multiprocessor" : "thread", info->compute_units,
         (double)info->memory_bytes / (1 << 30), info->l1_bytes >> 10,
         (double)info->l2_bytes / (1 << 20));
  printf("  teams: up to %d threads, vector length up to %d, %zu KiB of scratch\n",
         info->max_team_threads, info->max_vector_length, info->max_scratch_bytes >> 10);
  printf("  dense products: %s\n\n", tp_gemm_provider());
}

int tenport_cmd_info(int argc, char **argv) {
  micro_config cfg = micro_config_small();
  tp_space_options opts = tenport_space_options();
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--full") == 0) {
      cfg = micro_config_full();
    } else {
      fprintf(stderr, "usage: tenport info [--full] [--device D]\n"
                      "  --full      micro-benchmarks at the design sizes (2^28 elements; "
                      "several GB of memory)\n"
                      "  --device D  the GPU to use (default 0)\n");
      tenport_conventions_help(stderr);
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  tp_space *space = NULL;
  tp_space_info info;
  micro_report report;
  if (tp_space_create(&space, &opts) != TP_SUCCESS ||
      tp_space_get_info(space, &info) != TP_SUCCESS) {
    fprintf(stderr, "tenport info: %s\n", tp_last_error());
    return 1;
  }
  print_device(&info);
  fflush(stdout);
  int code = 0;
  if (micro_run_all(space, &cfg, &report) != TP_SUCCESS) {
    fprintf(stderr, "tenport info: %s\n", tp_last_error());
    code = 1;
  } else {
    micro_print(stdout, &report);
    for (int i = 0; i < report.count; ++i)
      code |= !report.results[i].verified;
  }
  if (tp_space_destroy(&space) != TP_SUCCESS) {
    fprintf(stderr, "tenport info: %s\n", tp_last_error());
    code = 1;
  }
  return code;
}
