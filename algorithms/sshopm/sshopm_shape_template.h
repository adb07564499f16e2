/* The unrolled SS-HOPM solver of one shape s = m<M>n<N> of tp_sshopm_unrolled.h:
 * sshopm_solver_template.h includes it once per shape with
 *
 *   #define SSHOPM_SHAPE  s, as the generated names spell it (m4n3)
 *   #define SSHOPM_N      its dimension N
 *   #include "algorithms/sshopm/sshopm_shape_template.h"
 *
 * It undefines them at its end, and has no include guard.
 * generates: per shape s, the kernels sshopm_<s>_kernel_fixed_<sfx> and
 * sshopm_<s>_kernel_adaptive_<sfx> (named in the generates: lists of sshopm_f32_kernels.c and
 * sshopm_f64_kernels.c) and the device functions sshopm_<s>_y_fixed_<sfx>,
 * sshopm_<s>_y_adaptive_<sfx>, sshopm_<s>_inv_norm_<sfx>, sshopm_<s>_iterate_fixed_<sfx>,
 * sshopm_<s>_iterate_adaptive_<sfx>, sshopm_<s>_runs_fixed_<sfx> and
 * sshopm_<s>_runs_adaptive_<sfx>. */

/* y = A x^(m-1) from B (the fixed shift: alpha stays). */
TP_DEVICE void SHAPE_SOLVER(SSHOPM_SHAPE, y_fixed)(const TP_REAL *b, const FN(sshopm_params) * prm,
                                                   const TP_REAL *x, TP_REAL *y, TP_REAL *alpha) {
  (void)prm, (void)alpha;
  SHAPE_FN(SSHOPM_SHAPE, axm1)(b, x, y);
}

/* y = H x and the adaptive shift, from H = A x^(m-2) built from B2. */
TP_DEVICE void SHAPE_SOLVER(SSHOPM_SHAPE,
                            y_adaptive)(const TP_REAL *b2, const FN(sshopm_params) * prm,
                                        const TP_REAL *x, TP_REAL *y, TP_REAL *alpha) {
  TP_REAL h[SSHOPM_N * SSHOPM_N];
  SHAPE_FN(SSHOPM_SHAPE, axm2)(b2, x, h);
  FN(sshopm_y_from_h)(SSHOPM_N, prm, h, x, y, alpha);
}

/* 1 / s of a tensor of the shape, by one thread (see "the tensor's scale"). */
TP_DEVICE TP_REAL SHAPE_SOLVER(SSHOPM_SHAPE, inv_norm)(const TP_REAL *a) {
  TP_REAL inv = FN(sshopm_inv_root)(SHAPE_FN(SSHOPM_SHAPE, norm2)(a, 1));
  if (inv == 0) {
    const TP_REAL big = FN(sshopm_max_abs_here)(SHAPE_K(SSHOPM_SHAPE, _U), a);
    const int e = FN(sshopm_exponent)(big);
    const TP_REAL q = SHAPE_FN(SSHOPM_SHAPE, norm2)(a, TP_REAL_LDEXP((TP_REAL)1, -e));
    inv = FN(sshopm_rescaled_inv)(big, e, q);
  }
  return inv;
}

#define SSHOPM_ITERATE SHAPE_SOLVER(SSHOPM_SHAPE, iterate_fixed)
#define SSHOPM_ITERATE_CTX const TP_REAL *
#define SSHOPM_ITERATE_DIM SSHOPM_N
#define SSHOPM_ITERATE_MAXDIM SSHOPM_N
#define SSHOPM_ITERATE_Y SHAPE_SOLVER(SSHOPM_SHAPE, y_fixed)
#include "algorithms/sshopm/sshopm_iterate_template.h"

#define SSHOPM_ITERATE SHAPE_SOLVER(SSHOPM_SHAPE, iterate_adaptive)
#define SSHOPM_ITERATE_CTX const TP_REAL *
#define SSHOPM_ITERATE_DIM SSHOPM_N
#define SSHOPM_ITERATE_MAXDIM SSHOPM_N
#define SSHOPM_ITERATE_Y SHAPE_SOLVER(SSHOPM_SHAPE, y_adaptive)
#include "algorithms/sshopm/sshopm_iterate_template.h"

#define SSHOPM_SHIFT fixed
#define SSHOPM_PRESCALE prescale1
#define SSHOPM_NB _NB1
#include "algorithms/sshopm/sshopm_shape_kernel_template.h"

#define SSHOPM_SHIFT adaptive
#define SSHOPM_PRESCALE prescale2
#define SSHOPM_NB _NB2
#include "algorithms/sshopm/sshopm_shape_kernel_template.h"

#undef SSHOPM_SHAPE
#undef SSHOPM_N
