/* tenport cp-als --mask: weighted least squares over the entries the mask keeps, by
 * CP-WOPT (Acar, Dunlavy, Kolda and Morup, 2011): a gradient method, here L-BFGS-B, on
 * ||W (X - M)||^2, which is exactly gcp's Gaussian loss under the same mask. So the run is
 * gcp's: the command line goes to it with --loss gaussian, and the options that belong to
 * the ALS iteration are refused by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/commands.h"

/* The ALS iteration's options (and gcp's choice of loss and solver), which a weighted fit
 * by CP-WOPT does not take. */
static const char *const als_only[] = {
    "--tol",      "--reg",       "--fix-modes", "--restarts",    "--no-line-search", "--mttkrp",
    "--no-reuse", "--check-fit", "--example",   "--distributed", "--grid",           "--gen-dims",
    "--gen-nnz",  "--gen-skew",  "--gen-seed",  "--gen-shape",   "--gen-rank",       "--gen-noise",
    "--loss",     "--solver",    NULL};

/* arg is the option name, alone or as name=value. */
static int option_is(const char *arg, const char *name) {
  const size_t n = strlen(name);
  return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

int tenport_cp_als_has_mask(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--"); ++i)
    if (option_is(argv[i], "--mask"))
      return 1;
  return 0;
}

int tenport_cp_als_masked(int argc, char **argv) {
  int nonneg = 0, lower = 0;
  for (int i = 1; i < argc && strcmp(argv[i], "--"); ++i)
    nonneg |= !strcmp(argv[i], "--nonneg"), lower |= option_is(argv[i], "--lower");
  if (nonneg && lower) {
    fprintf(stderr, "tenport cp-als: --nonneg with --mask is gcp's --lower 0; give one of them\n");
    return 2;
  }
  for (int i = 1; i < argc && strcmp(argv[i], "--"); ++i)
    for (const char *const *o = als_only; *o; ++o)
      if (option_is(argv[i], *o)) {
        fprintf(stderr,
                "tenport cp-als: %s does not apply with --mask: the observed entries are "
                "fitted by CP-WOPT (L-BFGS-B on their squared error, tenport gcp's Gaussian "
                "loss), whose options are gcp's (--max-iters, --factr, --pgtol, --lower, ...)\n",
                *o);
        return 2;
      }
  char **args = (char **)malloc(sizeof(char *) * (size_t)(2 * argc + 4));
  if (!args) {
    fprintf(stderr, "tenport cp-als: out of host memory\n");
    return 1;
  }
  args[0] = (char *)"gcp", args[1] = (char *)"--loss", args[2] = (char *)"gaussian";
  int n = 3, options = 1;
  for (int i = 1; i < argc; ++i) { /* --nonneg: gcp's bound on the factors */
    options = options && strcmp(argv[i], "--");
    const int nonneg = options && !strcmp(argv[i], "--nonneg");
    args[n++] = nonneg ? (char *)"--lower" : argv[i];
    if (nonneg)
      args[n++] = (char *)"0";
  }
  args[n] = NULL;
  printf("cp-als --mask: weighted least squares over the observed entries by CP-WOPT, run as "
         "tenport gcp --loss gaussian\n");
  fflush(stdout);
  const int code = tenport_cmd_gcp(n, args);
  free(args);
  return code;
}
