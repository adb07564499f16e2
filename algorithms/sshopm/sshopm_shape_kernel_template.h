/* The team kernel of one unrolled shape (SSHOPM_SHAPE, SSHOPM_N: sshopm_shape_template.h)
 * for one kind of shift, and the runs it starts: sshopm_shape_template.h includes it
 * twice, with
 *
 *   #define SSHOPM_SHIFT     fixed or adaptive: the part of the names that says which
 *                            shift the runs take (sshopm_<s>_iterate_<shift>_<sfx>)
 *   #define SSHOPM_PRESCALE  prescale1 (B, for y = A x^(m-1)) or prescale2 (B2, for
 *                            H = A x^(m-2))
 *   #define SSHOPM_NB        _NB1 or _NB2: the size of B or B2 (TP_SYM_<s>_NB1, _NB2)
 *   #include "algorithms/sshopm/sshopm_shape_kernel_template.h"
 *
 * It undefines them at its end, and has no include guard.
 * generates: sshopm_<s>_kernel_<shift>_<sfx>, a kernel, and sshopm_<s>_runs_<shift>_<sfx>.
 *
 * Each thread finds s itself (U is small: no team reduction, no extra barrier), the
 * team stages A / s in scratch and prescales it once, and every run then reads the
 * coefficients from registers (small shapes) or from scratch. */

#define SSHOPM_RUNS SHAPE_SOLVER(SSHOPM_SHAPE, TP_PASTE(runs_, SSHOPM_SHIFT))

/* Runs every start of the league's tensor from the coefficients coef. */
TP_DEVICE void SSHOPM_RUNS(const tp_team *team, const FN(sshopm_args) * a,
                           const FN(sshopm_params) * prm, const TP_REAL *coef) {
  const int64_t t = team->league_rank;
  TP_TEAM_VECTOR_FOR(team, v, 0, a->num_starts) {
    int64_t run = t * a->num_starts + v;
    SHAPE_SOLVER(SSHOPM_SHAPE, TP_PASTE(iterate_, SSHOPM_SHIFT))
    (coef, prm, a->starts + v * SSHOPM_N, a->lambda + run, a->x + run * SSHOPM_N, a->flag + run,
     a->iterations ? a->iterations + run : NULL);
  }
}

TP_TEAM_KERNEL_BOUNDED(SHAPE_SOLVER(SSHOPM_SHAPE, TP_PASTE(kernel_, SSHOPM_SHIFT)), FN(sshopm_args),
                       256, SSHOPM_MIN_TEAMS, team, a) {
  TP_REAL *staged = (TP_REAL *)team->scratch;
  TP_REAL *coef = staged + SHAPE_K(SSHOPM_SHAPE, _U);
  const TP_REAL *tensor = a.tensors + team->league_rank * SHAPE_K(SSHOPM_SHAPE, _U);
  const FN(sshopm_params) prm =
      FN(sshopm_tensor_params)(&a.prm, SHAPE_SOLVER(SSHOPM_SHAPE, inv_norm)(tensor));
  FN(sshopm_stage)(team, tensor, SHAPE_K(SSHOPM_SHAPE, _U), prm.inv_scale, staged);
  TP_TEAM_SINGLE(team) SHAPE_FN(SSHOPM_SHAPE, SSHOPM_PRESCALE)(staged, coef);
  tp_team_barrier(team);
  if (SHAPE_K(SSHOPM_SHAPE, SSHOPM_NB) * sizeof(TP_REAL) <= SSHOPM_REGISTER_BYTES) {
    TP_REAL held[SHAPE_K(SSHOPM_SHAPE, SSHOPM_NB)];
    TP_UNROLL for (int k = 0; k < SHAPE_K(SSHOPM_SHAPE, SSHOPM_NB); ++k) held[k] = coef[k];
    SSHOPM_RUNS(team, &a, &prm, held);
  } else {
    SSHOPM_RUNS(team, &a, &prm, coef);
  }
}

#undef SSHOPM_RUNS
#undef SSHOPM_SHIFT
#undef SSHOPM_PRESCALE
#undef SSHOPM_NB
