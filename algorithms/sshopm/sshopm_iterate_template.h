/* One SS-HOPM run from one starting vector (Algorithm 1 of Kolda & Mayo), written
 * once and included once per kernel family with a parameter block:
 *
 *   #define SSHOPM_ITERATE        the function's name
 *   #define SSHOPM_ITERATE_CTX    the type of its first argument, ctx
 *   #define SSHOPM_ITERATE_DIM    the dimension n: an expression that may use ctx (a
 *                                 constant in unrolled kernels, so the loops unroll and
 *                                 the iterates stay in registers)
 *   #define SSHOPM_ITERATE_MAXDIM a bound of n, the iterate arrays' size
 *   #define SSHOPM_ITERATE_Y      yfn(ctx, params, x, y, &alpha): sets y = A x^(m-1)
 *                                 and, for adaptive shifts, alpha
 *   #include "algorithms/sshopm/sshopm_iterate_template.h"
 *
 * It undefines them at its end, and has no include guard. The includer
 * (sshopm_solver_template.h) defines TP_REAL, TP_REAL_SQRT, FN(), the FN(sshopm_params) type and
 * FN(sshopm_normalise).
 * generates: SSHOPM_ITERATE(ctx, params, x0, lambda_out, x_out, flag_out,
 * iterations_out), a device function: sshopm_iterate_generic_<sfx> and, per shape s,
 * sshopm_<s>_iterate_fixed_<sfx> and sshopm_<s>_iterate_adaptive_<sfx>.
 *
 * yfn works on A / s (params->inv_scale = 1 / s), so lambda and the tests below are
 * in those units until lambda is scaled back at the end (a result beyond the type is
 * flagged TP_SSHOPM_LAMBDA_OVERFLOW); a non-finite tensor (params->nonfinite) gives
 * NaN and no iterations.
 *
 * The start is normalised first; lambda_k = x_k . A x_k^(m-1) = A x_k^m, so each
 * iteration costs one product. A run converges when |lambda_{k+1} - lambda_k| < tol
 * and the step |x_{k+1} - x_k|^2 <= xtol2 (xtol2 is +inf unless an xtol was set). A
 * vanishing (or NaN) update stops the run with TP_SSHOPM_ZERO_ITERATE. */

TP_DEVICE void SSHOPM_ITERATE(SSHOPM_ITERATE_CTX ctx, const FN(sshopm_params) * prm,
                              const TP_REAL *x0, TP_REAL *lambda_out, TP_REAL *x_out,
                              int8_t *flag_out, int32_t *iterations_out) {
  const int n = (SSHOPM_ITERATE_DIM);
  /* Concave runs (sign -1) ascend -f and so find minima. */
  const TP_REAL sign = prm->concave ? (TP_REAL)-1 : (TP_REAL)1;
  TP_REAL x[SSHOPM_ITERATE_MAXDIM], y[SSHOPM_ITERATE_MAXDIM], lambda = 0, alpha = prm->alpha;
  int flag = TP_SSHOPM_MAX_ITERATIONS, it = 0;
  TP_UNROLL for (int i = 0; i < n; ++i) x[i] = prm->nonfinite ? (TP_REAL)NAN : x0[i];
  if (prm->nonfinite) {
    flag = TP_SSHOPM_NONFINITE, lambda = (TP_REAL)NAN;
  } else if (!FN(sshopm_normalise)(n, x)) {
    flag = TP_SSHOPM_ZERO_ITERATE;
  } else {
    SSHOPM_ITERATE_Y(ctx, prm, x, y, &alpha);
    TP_UNROLL for (int i = 0; i < n; ++i) lambda += x[i] * y[i];
  }
  /* The step test costs 2n operations an iteration: only runs given an xtol pay them. */
  const int test_step = prm->xtol2 <= TP_REAL_MAX;
  while (flag == TP_SSHOPM_MAX_ITERATIONS && it < prm->max_iterations) {
    TP_REAL norm2 = 0; /* y holds the unnormalised update until yfn refills it */
    TP_UNROLL for (int i = 0; i < n; ++i) {
      y[i] += alpha * x[i];
      norm2 += y[i] * y[i];
    }
    if (!(norm2 > 0)) { /* also catches NaN: the iterate is lost */
      flag = TP_SSHOPM_ZERO_ITERATE;
      break;
    }
    const TP_REAL inv = sign * TP_REAL_RSQRT(norm2); /* x = sign (y + alpha x) / |...| */
    TP_REAL step2 = 0;
    if (test_step) {
      TP_UNROLL for (int i = 0; i < n; ++i) {
        const TP_REAL xi = y[i] * inv;
        step2 += (xi - x[i]) * (xi - x[i]);
        x[i] = xi;
      }
    } else {
      TP_UNROLL for (int i = 0; i < n; ++i) x[i] = y[i] * inv;
    }
    ++it;
    SSHOPM_ITERATE_Y(ctx, prm, x, y, &alpha);
    TP_REAL next = 0;
    TP_UNROLL for (int i = 0; i < n; ++i) next += x[i] * y[i];
    const TP_REAL change = next - lambda;
    lambda = next;
    if (TP_REAL_FABS(change) < prm->tol && step2 <= prm->xtol2)
      flag = TP_SSHOPM_CONVERGED;
  }
  const TP_REAL scaled = lambda / prm->inv_scale;
  if (!(scaled - scaled == 0) && lambda - lambda == 0)
    flag = TP_SSHOPM_LAMBDA_OVERFLOW;
  *lambda_out = scaled;
  TP_UNROLL for (int i = 0; i < n; ++i) x_out[i] = x[i];
  *flag_out = (int8_t)flag;
  if (iterations_out)
    *iterations_out = it;
}

#undef SSHOPM_ITERATE
#undef SSHOPM_ITERATE_CTX
#undef SSHOPM_ITERATE_DIM
#undef SSHOPM_ITERATE_MAXDIM
#undef SSHOPM_ITERATE_Y
