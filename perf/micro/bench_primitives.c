/* tp-bench-primitives: the portable layer's micro-benchmarks at full size.
 * Usage: tp-bench-primitives [--small] [--warmup N] [--reps N] [--only reduce|scan|sort|hash] [--device D] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/micro/micro.h"

int main(int argc, char **argv) {
  micro_config cfg = micro_config_full();
  tp_space_options opts = tp_space_options_default();
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--small") == 0) {
      cfg = micro_config_small();
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      cfg.reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) {
      cfg.warmup = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      cfg.only = argv[++i];
    } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      opts.device = atoi(argv[++i]);
    } else {
      fprintf(stderr,
              "usage: %s [--small] [--warmup N] [--reps N] [--only reduce|scan|sort|hash] "
              "[--device D]\n",
              argv[0]);
      return 2;
    }
  }
  if (cfg.reps < 1 || cfg.warmup < 0) {
    fprintf(stderr, "tp-bench-primitives: --reps must be at least 1, --warmup at least 0\n");
    return 2;
  }
  tp_space *space = NULL;
  micro_report report;
  if (tp_space_create(&space, &opts) != TP_SUCCESS ||
      micro_run_all(space, &cfg, &report) != TP_SUCCESS) {
    fprintf(stderr, "tp-bench-primitives: %s\n", tp_last_error());
    tp_space_destroy(&space);
    return 1;
  }
  micro_print(stdout, &report);
  tp_space_destroy(&space);
  for (int i = 0; i < report.count; ++i)
    if (!report.results[i].verified)
      return 1;
  return 0;
}
