/* SS-HOPM's starting vectors: only a start's direction matters, whatever its scale. A
 * start scaled by a power of two (exactly, down to 2^-660 and up to 2^600) gives
 * bit-identical runs; one scaled by 3e-200 the same runs up to rounding; zero and
 * non-finite starts stop at once. */
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tests/common/tpt_sshopm.h"

TestSuite(sshopm_starts, .init = tpt_setup, .fini = tpt_teardown);

enum { STARTS = 24 };

static runs solve_scaled(const double *x0, double scale, const tp_sshopm_options *o) {
  double x[STARTS * 3];
  for (int i = 0; i < STARTS * 3; ++i)
    x[i] = x0[i] * scale;
  return solve(4, 3, 1, kofidis_regalia, STARTS, x, o, 0);
}

static void options(tp_sshopm_options *o) {
  tp_sshopm_options_init(o);
  o->tol = 1e-14;
  o->max_iterations = 2000;
}

Test(sshopm_starts, starts_scaled_by_powers_of_two_give_the_same_bits) {
  double x0[STARTS * 3];
  TPT_OK(tp_sshopm_random_starts_f64(20261129, 3, STARTS, x0));
  tp_sshopm_options o;
  options(&o);
  runs unit = solve_scaled(x0, 1.0, &o);
  const double scales[2] = {ldexp(1.0, -660), ldexp(1.0, 600)};
  for (int s = 0; s < 2; ++s) {
    runs r = solve_scaled(x0, scales[s], &o);
    for (int i = 0; i < STARTS; ++i) {
      cr_assert_eq(r.flag[i], unit.flag[i], "scale %g, start %d: flag %d, at scale 1 %d", scales[s],
                   i, r.flag[i], unit.flag[i]);
      cr_assert(!memcmp(&r.lambda[i], &unit.lambda[i], sizeof(double)),
                "scale %g, start %d: lambda %.17g, at scale 1 %.17g", scales[s], i, r.lambda[i],
                unit.lambda[i]);
      cr_assert(!memcmp(r.x + 3 * i, unit.x + 3 * i, 3 * sizeof(double)),
                "scale %g, start %d: another iterate", scales[s], i);
    }
    runs_free(&r);
  }
  runs_free(&unit);
}

Test(sshopm_starts, a_tiny_start_converges_as_a_unit_one) {
  double x0[STARTS * 3];
  TPT_OK(tp_sshopm_random_starts_f64(77, 3, STARTS, x0));
  tp_sshopm_options o;
  options(&o);
  runs unit = solve_scaled(x0, 1.0, &o), tiny = solve_scaled(x0, 3e-200, &o);
  int converged = 0;
  for (int i = 0; i < STARTS; ++i) {
    cr_assert_eq(tiny.flag[i], unit.flag[i], "start %d: flag %d at 3e-200, %d at 1", i,
                 tiny.flag[i], unit.flag[i]);
    if (unit.flag[i] != TP_SSHOPM_CONVERGED)
      continue;
    ++converged;
    cr_assert(fabs(tiny.lambda[i] - unit.lambda[i]) <= 1e-10, "start %d: lambda %.15g, %.15g", i,
              tiny.lambda[i], unit.lambda[i]);
  }
  cr_assert(converged > STARTS / 2, "only %d of %d runs converged", converged, STARTS);
  runs_free(&unit), runs_free(&tiny);
}

Test(sshopm_starts, zero_starts_stop_as_zero_iterates) {
  double x0[STARTS * 3];
  TPT_OK(tp_sshopm_random_starts_f64(5, 3, STARTS, x0));
  x0[0] = x0[1] = x0[2] = 0;
  tp_sshopm_options o;
  options(&o);
  runs r = solve_scaled(x0, 1.0, &o);
  cr_assert_eq(r.flag[0], TP_SSHOPM_ZERO_ITERATE, "a zero start: flag %d", r.flag[0]);
  cr_assert_eq(r.flag[1] == TP_SSHOPM_ZERO_ITERATE, 0, "a unit start stopped as zero");
  runs_free(&r);
}
