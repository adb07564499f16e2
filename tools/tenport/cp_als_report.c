/* tenport cp-als's summary lines shared by its paths: the result and --check-fit's
 * verdict (where the time went: cli_solver.h). */
#include <stdio.h>

#include "tools/tenport/cp_als_cli.h"

/* "s per iteration" leaves the setup out: distributed, it holds the first use of every
 * communicator, which on GPUs costs more than many iterations. */
void tenport_cp_print_result(const tp_cp_als_result *r, double seconds) {
  double iterating = r->seconds - r->setup_seconds;
  int all_iterations = 0; /* of every start: the time per iteration counts them all */
  printf("fit %.10f after %d iteration%s (%s), %.3f s (setup %.3f s)", r->fit, r->iterations,
         r->iterations == 1 ? "" : "s",
         r->converged         ? "converged"
         : r->stopped_by_time ? "time limit"
                              : "iteration limit",
         r->seconds, r->setup_seconds);
  all_iterations = r->starts > 1 ? 0 : r->iterations;
  if (all_iterations)
    printf(", %.4f s per iteration", iterating / all_iterations);
  printf("\n");
  if (r->starts > 1)
    printf("starts: %d, the best start %d (seed + %d)\n", r->starts, r->best_start + 1,
           r->best_start);
  printf("line search: %d extrapolation%s kept\n", r->extrapolations,
         r->extrapolations == 1 ? "" : "s");
  printf("rank-revealing fallback solves: %d\n", r->fallback_solves);
  printf("total %.3f s (reading, copies and writing included)\n", seconds);
  tenport_summary_number("fit", r->fit);
  tenport_summary_integer("iterations", r->iterations);
  tenport_summary_text("stopped", r->converged         ? "converged"
                                  : r->stopped_by_time ? "time limit"
                                                       : "iteration limit");
  tenport_summary_integer("starts", r->starts),
      tenport_summary_integer("best_start", r->best_start);
  tenport_summary_integer("extrapolations", r->extrapolations);
  tenport_summary_integer("fallback_solves", r->fallback_solves);
  tenport_summary_number("solver_seconds", r->seconds);
}

int tenport_cp_check_fit(double fit, double want) {
  int pass = fit >= want;
  printf("check: fit %.10f >= %.4f: %s\n", fit, want, pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
