/* tenport bench: the standard cases of the four methods on this build's backend, next to
 * the machine's ceilings measured in the same run (perf/suite/). */
#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_files.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/progress.h"
#include "perf/suite/suite.h"

typedef struct bench_cli {
  int full, quiet;
  const char *only, *json;
} bench_cli;

static void usage(FILE *out) {
  fprintf(out,
          "usage: tenport bench [--quick|--full] [--only METHOD] [--json OUT.json] [--quiet]\n"
          "  --quick        small sizes: under a minute on two CPU cores (the default)\n"
          "  --full         the design brief's problems, where the machine's memory holds\n"
          "                 them (minutes on a CPU)\n"
          "  --only METHOD  one of: %s\n"
          "  --json FILE    also write every figure, the machine, backend, compilers and\n"
          "                 revision as JSON (plot with tools/plot/plot_bench.py)\n"
          "  --quiet        no progress on the terminal\n",
          tps_method_list());
  tenport_conventions_help(out);
}

static int parse(int argc, char **argv, bench_cli *c) {
  memset(c, 0, sizeof *c);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = tenport_option_value(argc, argv, i);
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return usage(stdout), -1;
    if (!strcmp(a, "--quick") || !strcmp(a, "--full"))
      c->full = !strcmp(a, "--full");
    else if (!strcmp(a, "--quiet"))
      c->quiet = 1;
    else if (!strcmp(a, "--only")) {
      if (!v)
        return tenport_option_error("bench", a, 1, NULL);
      if (!strcmp(a, "--only") && !tps_is_method(v)) {
        fprintf(stderr, "tenport bench: no method '%s' (there are: %s)\n", v, tps_method_list());
        return 2;
      }
      c->only = v;
      ++i;
    } else
      return tenport_option_error("bench", a, -1, NULL);
  }
  c->json = tenport_settings.json; /* taken as every command's --json is */
  return 0;
}

/* What is running now, on the progress line of the terminal. */
static void show_step(const char *what, void *user) {
  tenport_progress_show((tenport_progress *)user, "%s", what);
}

static int run_suite(tp_space *space, const bench_cli *c, tp_output_set *set) {
  tps_run *run = (tps_run *)malloc(sizeof *run);
  if (!run)
    return fprintf(stderr, "tenport bench: out of host memory\n"), 1;
  tenport_progress bar;
  tenport_progress_begin(&bar, "bench", tenport_progress_wanted(c->quiet));
  tp_status st = tps_init(run, space, c->full, c->only);
  run->progress = show_step, run->progress_user = &bar;
  if (st == TP_SUCCESS)
    st = tps_run_all(run);
  tenport_progress_end(&bar);
  int code = 0;
  if (st != TP_SUCCESS)
    code = tenport_fail("bench", "the suite failed");
  else {
    tps_print(stdout, run);
    tps_machine m;
    tps_machine_describe(run, &m);
    if (c->json && (tps_write_json(set, c->json, run, &m) != TP_SUCCESS ||
                    tp_output_set_commit(set) != TP_SUCCESS))
      code = tenport_fail("bench", "cannot write the JSON file");
    int unverified = 0;
    for (int i = 0; i < run->count; ++i)
      unverified |= !run->results[i].verified;
    fflush(stdout);
    if (unverified)
      fprintf(stderr, "tenport bench: a result failed its check (see the table)\n");
    code |= unverified;
  }
  free(run);
  return code;
}

/* With --json, the file is added to an output set before the suite runs: a path that
 * cannot be written stops the run at once, and an existing file is replaced only by a
 * complete new one. */
static int run_bench(tp_space *space, void *cli) {
  const bench_cli *c = (const bench_cli *)cli;
  tp_output_set *set = NULL;
  int code = 0;
  if (c->json)
    code = tenport_outputs_begin("bench", &set, NULL, NULL, 0) ||
           tenport_outputs_add("bench", set, c->json);
  if (code == 0)
    code = run_suite(space, c, set);
  tp_output_set_destroy(&set);
  return code;
}

int tenport_cmd_bench(int argc, char **argv) {
  bench_cli cli;
  int r = parse(argc, argv, &cli);
  if (r)
    return r < 0 ? 0 : r;
  return tenport_run_in_space("bench", run_bench, &cli);
}
