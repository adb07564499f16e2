/* Batched SS-HOPM for one precision, written once on the portable layer.
 *
 * Template: the includer defines TP_REAL, TP_SFX (f32 or f64), TP_REAL_SQRT,
 * TP_REAL_RSQRT (the layer's tp_rsqrt_<sfx>), TP_REAL_FABS,
 * TP_REAL_FREXP, TP_REAL_LDEXP, TP_REAL_MIN and TP_REAL_MAX (the smallest normal and
 * largest finite values), TP_REAL_MAX_EXP (as FLT_MAX_EXP), and TP_SSHOPM_PRIMARY to 1
 * in exactly one instance (it then also defines the precision-independent functions).
 *
 * Layout: league = tensors, team threads x lanes = starting vectors. A team finds its
 * tensor's Frobenius norm s = |A|_F = sqrt(sum_j multinomial_j a_j^2), stages the
 * unique values divided by s in team scratch (the units drop out: tol and tau act
 * relative to s, and lambda is scaled back by s at the end), and each run keeps its
 * iterate in registers. s bounds |lambda| and the rounding of A x^m (about m eps s),
 * so a relative tol that the precision allows does so for every shape.
 *
 * Products: for a unit x, y = A x^(m-1) is a small dense product B p(x), where p(x)
 * lists the monomials of degree m-1 and B (n x M1) holds multinomial-scaled tensor
 * entries (the generated prescale). The adaptive shift needs H = A x^(m-2) instead;
 * then y = H x. The team prescales B (or B2) once per tensor in scratch, and each
 * thread copies it to registers when it is small enough. The generic kernels walk
 * term lists built on the host (any m, n).
 * generates: the kernels named in the generates: lists of sshopm_f32_kernels.c and
 * sshopm_f64_kernels.c, which instantiate it (tools/ci/kernel_names.py checks them).*/
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/symtensor.h"
#include "portable/tp_portable.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"
#include "algorithms/sshopm/tp_symeig.h"

#define FN(name) TP_PASTE3(name, _, TP_SFX)
#define TP_SYM_FN(name) TP_PASTE(tp_sym_, FN(name))
#include "algorithms/sshopm/tp_sshopm_unrolled.h"

/* Name of a per-shape function or constant: SHAPE_FN(m4n3, axm1) is tp_sym_m4n3_axm1_f32. */
#define SHAPE_FN(s, name) TP_SYM_FN(TP_PASTE3(s, _, name))
#define SHAPE_K(s, what) TP_PASTE3(TP_SYM_, s, what)
#define SHAPE_SOLVER(s, name) FN(TP_PASTE3(TP_PASTE(sshopm_, s), _, name))

/* Coefficient arrays up to this size are copied to each thread's registers. */
#ifndef SSHOPM_REGISTER_BYTES
#define SSHOPM_REGISTER_BYTES 256
#endif
/* Teams of 256 threads the unrolled kernels' register budget aims to fit on one GPU
 * multiprocessor (the launch bound; teams of 128 threads fit twice as many). */
#ifndef SSHOPM_MIN_TEAMS
#define SSHOPM_MIN_TEAMS 1
#endif

typedef struct FN(sshopm_params) {
  TP_REAL alpha, tau, tol, xtol2;
  TP_REAL inv_scale; /* 1 / s: runs iterate on A / s (per tensor) */
  int max_iterations, concave, adaptive, order;
  int nonfinite; /* the tensor holds a NaN or an infinity (per tensor) */
} FN(sshopm_params);

/* Scales x (n entries) to unit norm; 0 if it is zero or holds NaN or an infinity. x is
 * divided by its largest |entry| first, so that a start of any scale (3e-200 or 1e200)
 * gives the direction a start of scale 1 gives: its squares neither underflow nor
 * overflow. */
TP_DEVICE int FN(sshopm_normalise)(int n, TP_REAL *x) {
  TP_REAL big = 0;
  TP_UNROLL for (int i = 0; i < n; ++i) big = TP_REAL_FABS(x[i]) > big ? TP_REAL_FABS(x[i]) : big;
  if (!(big > 0 && big <= TP_REAL_MAX))
    return 0;
  TP_REAL norm2 = 0;
  TP_UNROLL for (int i = 0; i < n; ++i) {
    x[i] /= big;
    norm2 += x[i] * x[i];
  }
  if (!(norm2 > 0))
    return 0;
  const TP_REAL inv = TP_REAL_RSQRT(norm2);
  TP_UNROLL for (int i = 0; i < n; ++i) x[i] *= inv;
  return 1;
}

/* ---- the tensor's scale ----------------------------------------------------------- */

/* s^2 = q = sum_j multinomial_j a_j^2 in one pass. Where squares overflow or come near
 * the subnormal numbers (or a value is not finite, or all are zero), the tensor's
 * largest |value| big = f 2^e, f in [0.5, 1), gives q' = q / 4^e from a_j / 2^e, and
 * 1 / s = 2^-e / sqrt(q'): the same bits as the one pass where both work, since powers
 * of two scale exactly, and nothing overflows. */

/* 1 / sqrt(q) where q is safe to use (see above), else 0. */
TP_INLINE TP_REAL FN(sshopm_inv_root)(TP_REAL q) {
  return q >= TP_REAL_SQRT(TP_REAL_MIN) && q <= TP_REAL_MAX ? (TP_REAL)1 / TP_REAL_SQRT(q)
                                                            : (TP_REAL)0;
}

/* e of big = f 2^e, at least 2 - emax so that 2^-e is a normal number; 0 unless big is
 * finite and positive. */
TP_INLINE int FN(sshopm_exponent)(TP_REAL big) {
  int e = 0;
  if (big > 0 && big <= TP_REAL_MAX)
    TP_REAL_FREXP(big, &e);
  return e > 2 - TP_REAL_MAX_EXP ? e : 2 - TP_REAL_MAX_EXP;
}

/* 1 / s from big, its exponent e and q' (above); NaN for a non-finite tensor, 1 for
 * zeros. Capped at TP_REAL_MAX: for s below 1 / TP_REAL_MAX (subnormal values) the
 * runs see A / s only scaled up as far as the type allows. */
TP_INLINE TP_REAL FN(sshopm_rescaled_inv)(TP_REAL big, int e, TP_REAL q_scaled) {
  if (!(big - big == 0))
    return (TP_REAL)NAN;
  if (big == 0)
    return (TP_REAL)1;
  const TP_REAL inv = TP_REAL_LDEXP((TP_REAL)1 / TP_REAL_SQRT(q_scaled), -e);
  return inv <= TP_REAL_MAX ? inv : TP_REAL_MAX;
}

/* Largest |value| of the league's tensor (n values), NaN or inf if one is: each team
 * thread takes a share (its lanes repeat it) and the team reduces. Collective. */
TP_DEVICE TP_REAL FN(sshopm_max_abs)(const tp_team *team, const TP_REAL *a, int64_t n) {
  TP_REAL big = 0;
  TP_TEAM_FOR(team, u, 0, n) {
    TP_REAL v = a[u] < 0 ? -a[u] : a[u];
    big = TP_PASTE(tp_join_max_, TP_SFX)(big, v);
  }
  return TP_PASTE(tp_team_max_, TP_SFX)(team, big);
}

/* The same by one thread alone, for small tensors. */
TP_INLINE TP_REAL FN(sshopm_max_abs_here)(int64_t n, const TP_REAL *a) {
  TP_REAL big = 0;
  for (int64_t u = 0; u < n; ++u)
    big = TP_PASTE(tp_join_max_, TP_SFX)(big, a[u] < 0 ? -a[u] : a[u]);
  return big;
}

/* The run parameters for a tensor with 1 / s = inv (NaN: not finite). The fixed shift
 * moves to A / s's units; past about 2^(emax/4) it only freezes the iterate, as it
 * already does past 1 / epsilon, and the cap keeps |y|^2 finite. */
TP_DEVICE FN(sshopm_params) FN(sshopm_tensor_params)(const FN(sshopm_params) * base, TP_REAL inv) {
  FN(sshopm_params) p = *base;
  const TP_REAL cap = TP_REAL_SQRT(TP_REAL_SQRT(TP_REAL_MAX));
  p.nonfinite = !(inv - inv == 0);
  p.inv_scale = p.nonfinite ? (TP_REAL)1 : inv;
  p.alpha = base->alpha * p.inv_scale;
  p.alpha = p.alpha > cap ? cap : p.alpha < -cap ? -cap : p.alpha;
  return p;
}

/* staged = scale * the league's tensor (n values) in team scratch. Collective. */
TP_DEVICE void FN(sshopm_stage)(const tp_team *team, const TP_REAL *tensor, int64_t n,
                                TP_REAL scale, TP_REAL *staged) {
  TP_TEAM_VECTOR_FOR(team, u, 0, n) staged[u] = tensor[u] * scale;
  tp_team_barrier(team);
}

/* Kolda & Mayo (2014): the smallest shift keeping the iteration monotone, with the
 * extreme eigenvalues lo, hi of A x^(m-2): convex alpha = max(0, tau/m - (m-1) lo),
 * concave alpha = -max(0, tau/m + (m-1) hi). */
TP_INLINE TP_REAL FN(sshopm_adaptive_alpha)(const FN(sshopm_params) * p, TP_REAL lo, TP_REAL hi) {
  const TP_REAL m = (TP_REAL)p->order;
  if (p->concave) {
    TP_REAL a = p->tau / m + (m - 1) * hi;
    return a > 0 ? -a : (TP_REAL)0;
  }
  TP_REAL a = p->tau / m - (m - 1) * lo;
  return a > 0 ? a : (TP_REAL)0;
}

/* Extreme eigenvalues of the symmetric n x n matrix h. */
TP_DEVICE void FN(sshopm_extremes)(int n, const TP_REAL *h, TP_REAL *lo, TP_REAL *hi) {
  if (n == 1) {
    *lo = *hi = h[0];
  } else if (n == 3) {
    TP_PASTE(tp_symeig3_extremes_, TP_SFX)(h, lo, hi);
  } else {
    TP_REAL w[TP_SSHOPM_MAX_DIM * TP_SSHOPM_MAX_DIM];
    for (int i = 0; i < n * n; ++i)
      w[i] = h[i];
    TP_PASTE(tp_symeig_jacobi_, TP_SFX)(n, w, NULL);
    *lo = *hi = w[0];
    for (int i = 1; i < n; ++i) {
      TP_REAL e = w[i * n + i];
      *lo = e < *lo ? e : *lo;
      *hi = e > *hi ? e : *hi;
    }
  }
}

/* y = h x and the adaptive shift from h = A x^(m-2). */
TP_DEVICE void FN(sshopm_y_from_h)(int n, const FN(sshopm_params) * prm, const TP_REAL *h,
                                   const TP_REAL *x, TP_REAL *y, TP_REAL *alpha) {
  TP_UNROLL for (int i = 0; i < n; ++i) {
    TP_REAL s = 0;
    TP_UNROLL for (int k = 0; k < n; ++k) s += h[i * n + k] * x[k];
    y[i] = s;
  }
  TP_REAL lo, hi;
  FN(sshopm_extremes)(n, h, &lo, &hi);
  *alpha = FN(sshopm_adaptive_alpha)(prm, lo, hi);
}

/* ---- kernel arguments ---------------------------------------------------------- */

/* Generic kernels' view of the term lists (see tpi_sym_terms) and one tensor. */
typedef struct FN(sshopm_generic_ctx) {
  const TP_REAL *a;
  TP_REAL scale; /* a's values count times scale (1 / s when a is not staged); applied
                    to a before the monomial, whose product can be tiny */
  const uint8_t *index;
  const int32_t *t1_class, *t1_meta, *t2_class, *t2_meta;
  const TP_REAL *t0_coef, *t1_coef, *t2_coef;
  int order, dim;
  int64_t unique, n1, n2;
} FN(sshopm_generic_ctx);

typedef struct FN(sshopm_args) {
  const TP_REAL *tensors, *starts;
  int64_t unique;
  int num_starts;
  FN(sshopm_params) prm;
  TP_REAL *lambda, *x;
  int8_t *flag;
  int32_t *iterations;
  FN(sshopm_generic_ctx) generic; /* tables; .a is set per tensor */
  int tensor_in_scratch;          /* generic: 0 when the tensor is too big for scratch */
} FN(sshopm_args);

/* ---- generic products: walks the term lists ------------------------------------- */

TP_DEVICE TP_REAL FN(sshopm_monomial)(const FN(sshopm_generic_ctx) * c, int32_t cls, int skip_p,
                                      int skip_q, const TP_REAL *x) {
  const uint8_t *idx = c->index + (int64_t)cls * c->order;
  TP_REAL prod = 1;
  for (int q = 0; q < c->order; ++q)
    if (q != skip_p && q != skip_q)
      prod *= x[idx[q]];
  return prod;
}

TP_DEVICE TP_REAL FN(sshopm_generic_axm)(const FN(sshopm_generic_ctx) * c, const TP_REAL *x) {
  TP_REAL sum = 0;
  for (int32_t j = 0; j < (int32_t)c->unique; ++j)
    sum += c->t0_coef[j] * (c->a[j] * c->scale) * FN(sshopm_monomial)(c, j, -1, -1, x);
  return sum;
}

TP_DEVICE void FN(sshopm_generic_axm1)(const FN(sshopm_generic_ctx) * c, const TP_REAL *x,
                                       TP_REAL *y) {
  for (int i = 0; i < c->dim; ++i)
    y[i] = 0;
  for (int64_t r = 0; r < c->n1; ++r) {
    int32_t cls = c->t1_class[r], meta = c->t1_meta[r];
    y[meta & 255] += c->t1_coef[r] * (c->a[cls] * c->scale) *
                     FN(sshopm_monomial)(c, cls, (meta >> 8) & 255, -1, x);
  }
}

TP_DEVICE void FN(sshopm_generic_axm2)(const FN(sshopm_generic_ctx) * c, const TP_REAL *x,
                                       TP_REAL *h) {
  const int n = c->dim;
  for (int i = 0; i < n * n; ++i)
    h[i] = 0;
  for (int64_t r = 0; r < c->n2; ++r) {
    int32_t cls = c->t2_class[r], meta = c->t2_meta[r];
    int i = meta & 255, k = (meta >> 8) & 255;
    h[i * n + k] += c->t2_coef[r] * (c->a[cls] * c->scale) *
                    FN(sshopm_monomial)(c, cls, (meta >> 16) & 255, (meta >> 24) & 255, x);
  }
  for (int i = 0; i < n; ++i)
    for (int k = i + 1; k < n; ++k)
      h[k * n + i] = h[i * n + k];
}

TP_DEVICE void FN(sshopm_generic_y)(const FN(sshopm_generic_ctx) * c, const FN(sshopm_params) * prm,
                                    const TP_REAL *x, TP_REAL *y, TP_REAL *alpha) {
  if (prm->adaptive) {
    TP_REAL h[TP_SSHOPM_MAX_DIM * TP_SSHOPM_MAX_DIM];
    FN(sshopm_generic_axm2)(c, x, h);
    FN(sshopm_y_from_h)(c->dim, prm, h, x, y, alpha);
  } else {
    FN(sshopm_generic_axm1)(c, x, y);
  }
}

/* One run of the generic kernel (sshopm_iterate_template.h). */
#define SSHOPM_ITERATE FN(sshopm_iterate_generic)
#define SSHOPM_ITERATE_CTX const FN(sshopm_generic_ctx) *
#define SSHOPM_ITERATE_DIM ctx->dim
#define SSHOPM_ITERATE_MAXDIM TP_SSHOPM_MAX_DIM
#define SSHOPM_ITERATE_Y FN(sshopm_generic_y)
#include "algorithms/sshopm/sshopm_iterate_template.h"

/* Runs every start of the league's tensor; out-of-line so kernels stay short. */
TP_DEVICE void FN(sshopm_run_generic)(const tp_team *team, const FN(sshopm_args) * a,
                                      const FN(sshopm_params) * prm,
                                      const FN(sshopm_generic_ctx) * c) {
  const int64_t t = team->league_rank;
  const int n = a->generic.dim;
  TP_TEAM_VECTOR_FOR(team, v, 0, a->num_starts) {
    int64_t run = t * a->num_starts + v;
    FN(sshopm_iterate_generic)
    (c, prm, a->starts + v * n, a->lambda + run, a->x + run * n, a->flag + run,
     a->iterations ? a->iterations + run : NULL);
  }
}

/* sum_j multinomial_j (scale a_j)^2 of the league's tensor, shared out as in
 * sshopm_max_abs. Collective. */
TP_DEVICE TP_REAL FN(sshopm_generic_norm2)(const tp_team *team, const FN(sshopm_generic_ctx) * c,
                                           const TP_REAL *a, TP_REAL scale) {
  TP_REAL q = 0;
  TP_TEAM_FOR(team, j, 0, c->unique) {
    const TP_REAL v = scale * a[j];
    q += c->t0_coef[j] * v * v;
  }
  return TP_PASTE(tp_team_sum_, TP_SFX)(team, q);
}

/* 1 / s of the league's tensor (see "the tensor's scale"). Collective: q is the same
 * in every thread, so the whole team takes the same branch. */
TP_DEVICE TP_REAL FN(sshopm_generic_inv_norm)(const tp_team *team, const FN(sshopm_generic_ctx) * c,
                                              const TP_REAL *a) {
  TP_REAL inv = FN(sshopm_inv_root)(FN(sshopm_generic_norm2)(team, c, a, 1));
  if (inv == 0) {
    const TP_REAL big = FN(sshopm_max_abs)(team, a, c->unique);
    const int e = FN(sshopm_exponent)(big);
    const TP_REAL q = FN(sshopm_generic_norm2)(team, c, a, TP_REAL_LDEXP((TP_REAL)1, -e));
    inv = FN(sshopm_rescaled_inv)(big, e, q);
  }
  return inv;
}

TP_TEAM_KERNEL(FN(sshopm_generic_kernel), FN(sshopm_args), team, a) {
  FN(sshopm_generic_ctx) c = a.generic;
  const TP_REAL *tensor = a.tensors + team->league_rank * a.unique;
  const FN(sshopm_params) prm =
      FN(sshopm_tensor_params)(&a.prm, FN(sshopm_generic_inv_norm)(team, &c, tensor));
  c.a = tensor, c.scale = prm.inv_scale;
  if (a.tensor_in_scratch) {
    TP_REAL *staged = (TP_REAL *)team->scratch;
    FN(sshopm_stage)(team, tensor, a.unique, prm.inv_scale, staged);
    c.a = staged, c.scale = 1;
  }
  FN(sshopm_run_generic)(team, &a, &prm, &c);
}

/* ---- unrolled kernels, one pair per generated shape ------------------------------ */

/* Per shape s = m<M>n<N> of tp_sshopm_unrolled.h (TP_SSHOPM_UNROLLED_SHAPES, made by
 * tools/build/gen_sshopm_unrolled.py): y-functions for fixed and adaptive shifts, their
 * iterations, and one team kernel for each (sshopm_shape_template.h). A shape generated
 * but missing here fails to build (sshopm_launch_unrolled names its kernels), and so
 * does one here that is not generated (its sizes and products are not defined). */
#define SSHOPM_SHAPE m3n2
#define SSHOPM_N 2
#include "algorithms/sshopm/sshopm_shape_template.h"
#define SSHOPM_SHAPE m4n2
#define SSHOPM_N 2
#include "algorithms/sshopm/sshopm_shape_template.h"
#define SSHOPM_SHAPE m3n3
#define SSHOPM_N 3
#include "algorithms/sshopm/sshopm_shape_template.h"
#define SSHOPM_SHAPE m4n3
#define SSHOPM_N 3
#include "algorithms/sshopm/sshopm_shape_template.h"
#define SSHOPM_SHAPE m5n3
#define SSHOPM_N 3
#include "algorithms/sshopm/sshopm_shape_template.h"
#define SSHOPM_SHAPE m6n3
#define SSHOPM_N 3
#include "algorithms/sshopm/sshopm_shape_template.h"
#define SSHOPM_SHAPE m8n3
#define SSHOPM_N 3
#include "algorithms/sshopm/sshopm_shape_template.h"
#define SSHOPM_SHAPE m3n4
#define SSHOPM_N 4
#include "algorithms/sshopm/sshopm_shape_template.h"
#define SSHOPM_SHAPE m4n4
#define SSHOPM_N 4
#include "algorithms/sshopm/sshopm_shape_template.h"

/* ---- validation of inputs in the space ------------------------------------------ */

typedef struct FN(sshopm_values) {
  const TP_REAL *v;
} FN(sshopm_values);

/* x - x is 0 exactly for finite x and NaN otherwise. */
TP_RANGE_REDUCE_KERNEL(FN(sshopm_count_nonfinite), FN(sshopm_values), int64_t, tp_join_sum_i64, 0,
                       i, a, acc) {
  if (!(a.v[i] - a.v[i] == 0))
    *acc += 1;
}

static tp_status FN(sshopm_check_finite)(tp_space *space, const TP_REAL *v, int64_t n,
                                         const char *what) {
  FN(sshopm_values) args;
  args.v = v;
  int64_t *bad_in_space = NULL, bad = 0;
  TP_TRY(tp_temp_alloc(space, sizeof(int64_t), (void **)&bad_in_space));
  tp_status st = TP_LAUNCHER(FN(sshopm_count_nonfinite))(space, n, args, bad_in_space);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(space, &bad, bad_in_space, sizeof bad);
  tp_temp_release(space, bad_in_space);
  TP_TRY(st);
  if (bad > 0)
    return TP_ERROR(TP_ERROR_NUMERICAL, "%s: %lld of %lld values are not finite", what,
                    (long long)bad, (long long)n);
  return TP_SUCCESS;
}

/* ---- generic term lists in the space -------------------------------------------- */

/* One allocation: coefficient arrays (TP_REAL), then int32 arrays, then the index. */
static tp_status FN(sshopm_upload_terms)(tp_space *space, const tpi_sym_terms *t,
                                         FN(sshopm_generic_ctx) * c, void **block) {
  const size_t u = (size_t)t->unique, n1 = (size_t)t->n1, n2 = (size_t)t->n2;
  const size_t reals = u + n1 + n2, ints = 2 * n1 + 2 * n2;
  const size_t bytes = reals * sizeof(TP_REAL) + ints * sizeof(int32_t) + u * (size_t)t->order;
  unsigned char *host = (unsigned char *)malloc(bytes + 1);
  if (!host)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room to stage %zu bytes of term lists", bytes);
  TP_REAL *r = (TP_REAL *)host;
  for (size_t i = 0; i < u; ++i)
    r[i] = (TP_REAL)t->t0_coef[i];
  for (size_t i = 0; i < n1; ++i)
    r[u + i] = (TP_REAL)t->t1_coef[i];
  for (size_t i = 0; i < n2; ++i)
    r[u + n1 + i] = (TP_REAL)t->t2_coef[i];
  int32_t *w = (int32_t *)(r + reals);
  memcpy(w, t->t1_class, n1 * sizeof(int32_t));
  memcpy(w + n1, t->t1_meta, n1 * sizeof(int32_t));
  memcpy(w + 2 * n1, t->t2_class, n2 * sizeof(int32_t));
  memcpy(w + 2 * n1 + n2, t->t2_meta, n2 * sizeof(int32_t));
  memcpy(w + ints, t->index, u * (size_t)t->order);
  unsigned char *dev = NULL;
  tp_status st = tp_temp_alloc(space, bytes, (void **)&dev);
  if (st == TP_SUCCESS)
    st = tp_copy_to_device(space, dev, host, bytes);
  if (st == TP_SUCCESS)
    st = tp_space_fence(space); /* the staging buffer is freed next */
  free(host);
  if (st != TP_SUCCESS) {
    if (dev)
      tp_temp_release(space, dev);
    return st;
  }
  const TP_REAL *dr = (const TP_REAL *)dev;
  const int32_t *dw = (const int32_t *)(dr + reals);
  c->t0_coef = dr, c->t1_coef = dr + u, c->t2_coef = dr + u + n1;
  c->t1_class = dw, c->t1_meta = dw + n1, c->t2_class = dw + 2 * n1, c->t2_meta = dw + 2 * n1 + n2;
  c->index = (const uint8_t *)(dw + ints);
  c->order = t->order, c->dim = t->dim;
  c->unique = t->unique, c->n1 = t->n1, c->n2 = t->n2;
  c->a = NULL, c->scale = 1;
  *block = dev;
  return TP_SUCCESS;
}

/* ---- launches -------------------------------------------------------------------- */

static tp_team_policy FN(sshopm_policy)(tp_space *space, const tp_sshopm_problem *p,
                                        size_t scratch_bytes) {
  int team = (int)tp_min_i64(8, tp_ceil_div_i64(p->num_starts, 32));
  tp_team_policy policy =
      tp_team_policy_make(p->num_tensors, team < 1 ? 1 : team, 32, scratch_bytes);
  tp_team_policy_fit(space, &policy);
  return policy;
}

static tp_status FN(sshopm_launch_unrolled)(tp_space *space, const tp_sshopm_problem *p,
                                            const FN(sshopm_args) * args) {
#define SSHOPM_LAUNCH_SHAPE(M_, N_, s)                                                            \
  if (p->order == M_ && p->dim == N_) {                                                           \
    size_t nb = args->prm.adaptive ? SHAPE_K(s, _NB2) : SHAPE_K(s, _NB1);                         \
    tp_team_policy policy = FN(sshopm_policy)(space, p, sizeof(TP_REAL) * (SHAPE_K(s, _U) + nb)); \
    return args->prm.adaptive                                                                     \
               ? TP_LAUNCHER(SHAPE_SOLVER(s, kernel_adaptive))(space, policy, *args)              \
               : TP_LAUNCHER(SHAPE_SOLVER(s, kernel_fixed))(space, policy, *args);                \
  }
  TP_SSHOPM_UNROLLED_SHAPES(SSHOPM_LAUNCH_SHAPE)
#undef SSHOPM_LAUNCH_SHAPE
  return TP_ERROR(TP_ERROR_INTERNAL, "no unrolled kernel for order %d, dimension %d", p->order,
                  p->dim);
}

static tp_status FN(sshopm_launch_generic)(tp_space *space, const tp_sshopm_problem *p,
                                           FN(sshopm_args) * args) {
  tpi_sym_terms terms;
  void *block = NULL;
  TP_TRY(tpi_sym_terms_build(p->order, p->dim, &terms));
  tp_status st = FN(sshopm_upload_terms)(space, &terms, &args->generic, &block);
  tpi_sym_terms_free(&terms);
  TP_TRY(st);
  tp_team_policy policy = FN(sshopm_policy)(space, p, 0);
  size_t tensor_bytes = sizeof(TP_REAL) * (size_t)args->unique;
  args->tensor_in_scratch = tensor_bytes <= tp_team_scratch_limit(space, policy.team_size);
  if (args->tensor_in_scratch)
    policy.scratch_bytes = tensor_bytes;
  st = TP_LAUNCHER(FN(sshopm_generic_kernel))(space, policy, *args);
  if (st == TP_SUCCESS)
    st = tp_space_fence(space); /* the term lists are released next */
  tp_temp_release(space, block);
  return st;
}

static tp_status FN(sshopm_check_out)(const tp_sshopm_problem *p, const TP_REAL *tensors,
                                      const TP_REAL *starts, const TP_REAL *lambda,
                                      const TP_REAL *x, const int8_t *flag) {
  TP_CHECK_ARG(tensors && starts, "tensors or starts is NULL");
  TP_CHECK_ARG(lambda && x && flag, "an output array (lambda, x or flag) is NULL");
  double runs = (double)p->num_tensors * (double)p->num_starts * (double)p->dim;
  if (runs > 9.0e18)
    return TP_ERROR(TP_ERROR_OVERFLOW, "%lld tensors x %d starts x %d entries overflow",
                    (long long)p->num_tensors, p->num_starts, p->dim);
  return TP_SUCCESS;
}

tp_status TP_PASTE(tp_sshopm_, TP_SFX)(tp_space *space, const tp_sshopm_problem *p,
                                       const TP_REAL *tensors, const TP_REAL *starts,
                                       const tp_sshopm_options *o, const FN(tp_sshopm_out) * out) {
  TP_CHECK_ARG(space && out, "space or out is NULL");
  TP_TRY(tpi_sshopm_validate(p, o));
  if (p->num_tensors == 0 || p->num_starts == 0)
    return TP_SUCCESS;
  TP_TRY(FN(sshopm_check_out)(p, tensors, starts, out->lambda, out->x, out->flag));
  FN(sshopm_args) args;
  memset(&args, 0, sizeof args);
  TP_TRY(tp_sym_unique_count(p->order, p->dim, &args.unique));
  TP_TRY(FN(sshopm_check_finite)(space, starts, (int64_t)p->num_starts * p->dim, "starts"));
  args.tensors = tensors, args.starts = starts, args.num_starts = p->num_starts;
  args.lambda = out->lambda, args.x = out->x, args.flag = out->flag;
  args.iterations = out->iterations;
  args.prm.adaptive = o->shift == TP_SHIFT_ADAPTIVE;
  args.prm.alpha = args.prm.adaptive ? 0 : (TP_REAL)o->alpha;
  args.prm.concave = args.prm.adaptive ? (o->concave != 0) : (o->alpha < 0);
  args.prm.tau = (TP_REAL)o->tau, args.prm.tol = (TP_REAL)o->tol;
  args.prm.xtol2 = o->xtol > 0 ? (TP_REAL)(o->xtol * o->xtol) : (TP_REAL)INFINITY;
  args.prm.max_iterations = o->max_iterations, args.prm.order = p->order;
  if (o->kernel != TP_SSHOPM_KERNEL_GENERIC && tp_sshopm_has_unrolled(p->order, p->dim))
    return FN(sshopm_launch_unrolled)(space, p, &args);
  return FN(sshopm_launch_generic)(space, p, &args);
}

/* ---- products for the tests ------------------------------------------------------ */

typedef struct FN(sym_products_args) {
  const TP_REAL *tensors, *x;
  int64_t unique;
  TP_REAL *out0, *out1, *out2;
  FN(sshopm_generic_ctx) generic;
} FN(sym_products_args);

TP_RANGE_KERNEL(FN(sym_products_generic), FN(sym_products_args), t, a) {
  FN(sshopm_generic_ctx) c = a.generic;
  const int n = c.dim;
  c.a = a.tensors + t * a.unique;
  a.out0[t] = FN(sshopm_generic_axm)(&c, a.x + t * n);
  FN(sshopm_generic_axm1)(&c, a.x + t * n, a.out1 + t * n);
  FN(sshopm_generic_axm2)(&c, a.x + t * n, a.out2 + t * n * n);
}

#define SSHOPM_DEFINE_PRODUCTS(M_, N_, s)                                   \
  TP_RANGE_KERNEL(SHAPE_SOLVER(s, products), FN(sym_products_args), t, a) { \
    const TP_REAL *at = a.tensors + t * SHAPE_K(s, _U), *xt = a.x + t * N_; \
    TP_REAL b1[SHAPE_K(s, _NB1)], b2[SHAPE_K(s, _NB2)];                     \
    SHAPE_FN(s, prescale1)(at, b1);                                         \
    SHAPE_FN(s, prescale2)(at, b2);                                         \
    a.out0[t] = SHAPE_FN(s, axm)(at, xt);                                   \
    SHAPE_FN(s, axm1)(b1, xt, a.out1 + t * N_);                             \
    SHAPE_FN(s, axm2)(b2, xt, a.out2 + t * N_ * N_);                        \
  }
TP_SSHOPM_UNROLLED_SHAPES(SSHOPM_DEFINE_PRODUCTS)

tp_status TP_PASTE(tp_sym_products_, TP_SFX)(tp_space *space, int order, int dim,
                                             int64_t num_tensors, const TP_REAL *tensors,
                                             const TP_REAL *x, tp_sshopm_kernel kernel,
                                             TP_REAL *out0, TP_REAL *out1, TP_REAL *out2) {
  TP_CHECK_ARG(order >= 2, "order %d: products need m >= 2", order);
  TP_CHECK_ARG(num_tensors >= 0, "num_tensors is negative");
  FN(sym_products_args) args;
  memset(&args, 0, sizeof args);
  TP_TRY(tp_sym_unique_count(order, dim, &args.unique));
  args.tensors = tensors, args.x = x, args.out0 = out0, args.out1 = out1, args.out2 = out2;
  if (kernel != TP_SSHOPM_KERNEL_GENERIC) {
#define SSHOPM_PRODUCTS_SHAPE(M_, N_, s) \
  if (order == M_ && dim == N_)          \
    return TP_LAUNCHER(SHAPE_SOLVER(s, products))(space, num_tensors, args);
    TP_SSHOPM_UNROLLED_SHAPES(SSHOPM_PRODUCTS_SHAPE)
#undef SSHOPM_PRODUCTS_SHAPE
    if (kernel == TP_SSHOPM_KERNEL_UNROLLED)
      return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "no unrolled kernel for order %d, dimension %d",
                      order, dim);
  }
  tpi_sym_terms terms;
  void *block = NULL;
  TP_TRY(tpi_sym_terms_build(order, dim, &terms));
  tp_status st = FN(sshopm_upload_terms)(space, &terms, &args.generic, &block);
  tpi_sym_terms_free(&terms);
  TP_TRY(st);
  st = TP_LAUNCHER(FN(sym_products_generic))(space, num_tensors, args);
  if (st == TP_SUCCESS)
    st = tp_space_fence(space);
  tp_temp_release(space, block);
  return st;
}

/* ---- precision-independent --------------------------------------------------------- */
#if TP_SSHOPM_PRIMARY
int tp_sshopm_has_unrolled(int order, int dim) {
#define SSHOPM_HAS_SHAPE(M_, N_, s) \
  if (order == M_ && dim == N_)     \
    return 1;
  TP_SSHOPM_UNROLLED_SHAPES(SSHOPM_HAS_SHAPE)
#undef SSHOPM_HAS_SHAPE
  return 0;
}
#endif
