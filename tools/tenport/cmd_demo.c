/* tenport demo: the four methods on built-in example data, each checked against what is
 * known about its answer, in a few seconds:
 *   1. SS-HOPM: the fiber directions of a synthetic diffusion-MRI phantom (peaks
 *      --example) and the eigenpairs of the Kofidis-Regalia tensor (sshopm --example);
 *   2. dense CP-ALS of a planted rank-3 tensor (cp-als --example), checked by its fit;
 *   3. sparse CP-ALS on FLYCOO of a planted low-rank sparse tensor, written as .tns and
 *      read back (gen sparse, then cp-als), checked by its fit;
 *   4. an exact sparse tensor train (STTID) of a random power-law tensor (gen sttid, then
 *      sttid), checked by its relative error (at most 1e-6: the error formula's floor in
 *      double precision is a few 1e-7).
 * Each step is the subcommand its first word names, run in this process (found through
 * the dispatcher's table); files go to a temporary folder that is removed afterwards. */
#include <unistd.h>

#include "tools/tenport/commands.h"
#include "tools/tenport/dispatch.h"

typedef struct demo_step {
  const char *title;
  const char *args[16]; /* argv[0], the command's word, first; "@" is replaced by the
                           temporary folder */
} demo_step;

static const demo_step steps[] = {
    {"1a. SS-HOPM: fiber directions of a diffusion-MRI phantom", {"peaks", "--example"}},
    {"1b. SS-HOPM: eigenpairs of the Kofidis-Regalia tensor", {"sshopm", "--example"}},
    {"2. dense CP-ALS of a planted rank-3 tensor", {"cp-als", "--example", "--quiet"}},
    {"3a. a planted rank-3 sparse tensor, written as .tns",
     {"gen", "sparse", "--dims", "60x80x70", "--rank", "3", "--support", "8", "--seed", "7",
      "--output", "@/planted.tns"}},
    {"3b. sparse CP-ALS of it (FLYCOO)",
     {"cp-als", "--input", "@/planted.tns", "--rank", "3", "--tol", "1e-9", "--max-iters", "200",
      "--check-fit", "0.9999", "--quiet"}},
    {"4a. a random power-law tensor 30^4 with 2000 nonzeros",
     {"gen", "sttid", "--kind", "power-law", "--dims", "30,30,30,30", "--nnz", "2000", "--alpha",
      "2", "--seed", "3", "--output", "@/powerlaw.tns"}},
    {"4b. its exact sparse tensor train (STTID)",
     {"sttid", "--input", "@/powerlaw.tns", "--rmax", "100000", "--eps", "1e-12", "--eps-relative",
      "--check-error", "1e-6", "--quiet"}},
};
enum { NUM_STEPS = sizeof steps / sizeof steps[0] };

/* Runs one step with "@" in its arguments replaced by dir; returns its exit code. */
static int run_step(const demo_step *s, const char *dir) {
  char expanded[16][512];
  char *argv[17];
  int argc = 0;
  for (; argc < 16 && s->args[argc]; ++argc) {
    const char *a = s->args[argc];
    if (a[0] == '@')
      snprintf(expanded[argc], sizeof expanded[argc], "%s%s", dir, a + 1);
    else
      snprintf(expanded[argc], sizeof expanded[argc], "%s", a);
    argv[argc] = expanded[argc];
  }
  argv[argc] = NULL;
  printf("== %s\n", s->title);
  fflush(stdout);
  tenport_command_fn run = tenport_command_named(argv[0]);
  int code = run ? run(argc, argv) : 2;
  printf("\n");
  fflush(stdout);
  return code;
}

static void remove_files(const char *dir) {
  static const char *const names[] = {"planted.tns", "powerlaw.tns"};
  char path[600];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

int tenport_cmd_demo(int argc, char **argv) {
  if (argc > 1) {
    int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
    fprintf(help ? stdout : stderr,
            "usage: tenport demo\nRuns the four methods on built-in example data and "
            "checks each answer: SS-HOPM\n(DW-MRI peaks, Kofidis-Regalia eigenpairs), dense "
            "CP-ALS, sparse CP-ALS, STTID.\n");
    return help ? 0 : 2;
  }
  const char *tmp = getenv("TMPDIR");
  char dir[512];
  snprintf(dir, sizeof dir, "%s/tenport-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "tenport demo: cannot create a temporary folder %s: %s\n", dir,
            strerror(errno));
    return 1;
  }
  printf("tenport demo: %s backend\n\n", tp_backend_name());
  const double t0 = tenport_seconds();
  int failed = 0;
  for (int i = 0; i < NUM_STEPS && !failed; ++i)
    if (run_step(&steps[i], dir) != 0) {
      fprintf(stderr, "tenport demo: step '%s' failed\n", steps[i].title);
      failed = 1;
    }
  remove_files(dir);
  if (!failed)
    printf("tenport demo: every step found what was expected, in %.1f s\n", tenport_seconds() - t0);
  tenport_summary_text("checks", failed ? "failed" : "passed");
  return failed;
}
