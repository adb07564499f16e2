/* DW-MRI fiber peaks: synthetic single and crossing fibers at L = 4, 6, 8, in both
 * precisions; filtering, ranking, batching and bad input.
 *
 * A voxel's function is f(x) = sum_i w_i (d_i . x)^L, a homogeneous polynomial of
 * degree L, so it lies exactly in the span of the even SH up to L; its coefficients
 * are fitted by least squares at random directions. Where fibers are orthogonal the
 * maxima of f sit exactly on the d_i (the gradient of (d_j . x)^L vanishes on d_j's
 * orthogonal complement). At smaller angles the lobes pull each other's maxima
 * together (at 60 degrees by 0.4 degrees for L = 8, 2.1 for L = 6; at L = 4 they
 * merge below about 65 degrees), so those cases compare with the maxima of f found in
 * double from the formula, and bound their distance from the d_i. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tenport/dwmri.h"
#include "tests/common/tpt.h"

TestSuite(peaks, .init = tpt_setup, .fini = tpt_teardown);

#define MAX_FIBERS 3
#define MAX_COEFFS 45 /* tp_sh_count(8) */
#define FIT_POINTS 500

/* One synthetic voxel: fibers d_i with weights w_i (largest first). */
typedef struct voxel_case {
  int lmax, fibers;
  double d[MAX_FIBERS][3], w[MAX_FIBERS];
  double bias_deg; /* bound on the angle between the maxima of f and the d_i */
} voxel_case;

/* ---- geometry ------------------------------------------------------------- */

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void normalise3(double *a) {
  double n = sqrt(dot3(a, a));
  for (int i = 0; i < 3; ++i)
    a[i] /= n;
}

/* Angle between two axes (x and -x are the same fiber), in degrees; atan2 keeps it
 * accurate near zero. */
static double axis_angle_deg(const double *a, const double *b) {
  double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  return atan2(sqrt(dot3(c, c)), fabs(dot3(a, b))) * 180.0 / M_PI;
}

static void random_unit(tpt_rng *rng, double *u) {
  double n2;
  do {
    for (int i = 0; i < 3; ++i)
      u[i] = tpt_uniform(rng, -1, 1);
    n2 = dot3(u, u);
  } while (n2 > 1 || n2 < 1e-4);
  normalise3(u);
}

/* A random orthonormal frame e[0], e[1], e[2]. */
static void random_frame(tpt_rng *rng, double e[3][3]) {
  random_unit(rng, e[0]);
  double proj;
  do {
    random_unit(rng, e[1]);
    proj = dot3(e[0], e[1]);
  } while (fabs(proj) > 0.9);
  for (int i = 0; i < 3; ++i)
    e[1][i] -= proj * e[0][i];
  normalise3(e[1]);
  e[2][0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];
  e[2][1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
  e[2][2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
}

/* Case with fibers in a random frame: fiber i at angle_deg[i] from e0 in the plane of
 * e0, e1, except that a third fiber lies along e2. */
static voxel_case make_case(tpt_rng *rng, int lmax, int fibers, const double *angle_deg,
                            const double *w, double bias_deg) {
  voxel_case c;
  double e[3][3];
  memset(&c, 0, sizeof c);
  c.lmax = lmax, c.fibers = fibers, c.bias_deg = bias_deg;
  random_frame(rng, e);
  for (int f = 0; f < fibers; ++f) {
    double a = angle_deg[f] * M_PI / 180.0;
    for (int i = 0; i < 3; ++i)
      c.d[f][i] = f == 2 ? e[2][i] : cos(a) * e[0][i] + sin(a) * e[1][i];
    c.w[f] = w[f];
  }
  return c;
}

/* ---- the function and its SH coefficients ---------------------------------- */

static double f_value(const voxel_case *c, const double *x) {
  double s = 0;
  for (int f = 0; f < c->fibers; ++f)
    s += c->w[f] * pow(dot3(c->d[f], x), c->lmax);
  return s;
}

/* Solves the SPD system a y = b (n x n, overwritten) by Cholesky. */
static void cholesky_solve(int n, double *a, double *b) {
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < j; ++k)
      a[j * n + j] -= a[j * n + k] * a[j * n + k];
    cr_assert(a[j * n + j] > 0, "normal equations not positive definite");
    a[j * n + j] = sqrt(a[j * n + j]);
    for (int i = j + 1; i < n; ++i) {
      for (int k = 0; k < j; ++k)
        a[i * n + j] -= a[i * n + k] * a[j * n + k];
      a[i * n + j] /= a[j * n + j];
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < i; ++k)
      b[i] -= a[i * n + k] * b[k];
    b[i] /= a[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    for (int k = i + 1; k < n; ++k)
      b[i] -= a[k * n + i] * b[k];
    b[i] /= a[i * n + i];
  }
}

/* Row of the basis matrix: every basis function at direction x. */
static void basis_row(int lmax, const double *x, double *row) {
  int count = tp_sh_count(lmax);
  double unit[MAX_COEFFS] = {0};
  for (int j = 0; j < count; ++j) {
    unit[j] = 1.0;
    TPT_OK(tp_sh_eval_f64(lmax, unit, x, &row[j]));
    unit[j] = 0.0;
  }
}

/* Least-squares SH coefficients of f from FIT_POINTS random directions; checks that
 * the fit reproduces f (it is exact up to rounding). */
static void fit_sh(tpt_rng *rng, const voxel_case *c, double *coeffs) {
  const int n = tp_sh_count(c->lmax);
  double ata[MAX_COEFFS * MAX_COEFFS] = {0}, row[MAX_COEFFS], x[3];
  memset(coeffs, 0, sizeof(double) * (size_t)n);
  for (int p = 0; p < FIT_POINTS; ++p) {
    random_unit(rng, x);
    basis_row(c->lmax, x, row);
    double fx = f_value(c, x);
    for (int i = 0; i < n; ++i) {
      coeffs[i] += row[i] * fx;
      for (int j = 0; j < n; ++j)
        ata[i * n + j] += row[i] * row[j];
    }
  }
  cholesky_solve(n, ata, coeffs);
  for (int p = 0; p < 20; ++p) {
    double v;
    random_unit(rng, x);
    TPT_OK(tp_sh_eval_f64(c->lmax, coeffs, x, &v));
    cr_assert(fabs(v - f_value(c, x)) <= 1e-10 * c->w[0], "SH fit off by %g",
              fabs(v - f_value(c, x)));
  }
}

/* The local maximum of f reached from d_i by x <- grad f(x) / |grad f(x)| (SS-HOPM
 * without shift, which ascends because f is convex in R^3). */
static void reference_peak(const voxel_case *c, int fiber, double *x) {
  memcpy(x, c->d[fiber], sizeof(double) * 3);
  for (int it = 0; it < 100000; ++it) {
    double y[3] = {0, 0, 0}, step = 0;
    for (int f = 0; f < c->fibers; ++f) {
      double g = c->w[f] * pow(dot3(c->d[f], x), c->lmax - 1);
      for (int i = 0; i < 3; ++i)
        y[i] += g * c->d[f][i];
    }
    normalise3(y);
    for (int i = 0; i < 3; ++i)
      step += (y[i] - x[i]) * (y[i] - x[i]);
    memcpy(x, y, sizeof y);
    if (step < 1e-30)
      break;
  }
}

/* ---- running and checking ------------------------------------------------- */

typedef struct peaks_out {
  double *dir, *amp;
  int32_t *count;
} peaks_out;

static peaks_out run_peaks(int lmax, int64_t voxels, const double *sh, const tp_peaks_options *o) {
  peaks_out r;
  size_t v = (size_t)voxels, k = (size_t)o->max_peaks;
  r.dir = tpt_host_alloc(sizeof(double) * v * k * 3);
  r.amp = tpt_host_alloc(sizeof(double) * v * k);
  r.count = tpt_host_alloc(sizeof(int32_t) * v);
  memset(r.count, 0xFF, sizeof(int32_t) * v);
  TPT_OK(tp_fiber_peaks(tpt_space, lmax, voxels, sh, o, r.dir, r.amp, r.count));
  return r;
}

static void peaks_free(peaks_out *r) { free(r->dir), free(r->amp), free(r->count); }

/* Unit, canonical sign (largest |entry| positive), NaN in unused slots, amplitudes
 * descending. */
static void check_layout(const peaks_out *r, int64_t v, int k) {
  const double *dir = r->dir + v * k * 3, *amp = r->amp + v * k;
  cr_assert(r->count[v] >= 0 && r->count[v] <= k, "voxel %lld: count %d", (long long)v,
            r->count[v]);
  for (int j = 0; j < r->count[v]; ++j) {
    const double *x = dir + 3 * j;
    cr_assert(fabs(dot3(x, x) - 1) < 1e-9, "voxel %lld peak %d: |x|^2 = %g", (long long)v, j,
              dot3(x, x));
    int big = 0;
    for (int i = 1; i < 3; ++i)
      big = fabs(x[i]) > fabs(x[big]) ? i : big;
    cr_assert(x[big] > 0, "voxel %lld peak %d: largest entry negative", (long long)v, j);
    cr_assert(amp[j] > 0, "voxel %lld peak %d: amplitude %g", (long long)v, j, amp[j]);
    if (j > 0)
      cr_assert(amp[j] <= amp[j - 1], "voxel %lld: amplitudes not descending", (long long)v);
  }
  for (int j = r->count[v]; j < k; ++j) {
    cr_assert(isnan(amp[j]), "voxel %lld slot %d: amplitude %g, not NaN", (long long)v, j, amp[j]);
    for (int i = 0; i < 3; ++i)
      cr_assert(isnan(dir[3 * j + i]), "voxel %lld slot %d: direction not NaN", (long long)v, j);
  }
}

/* Every fiber of the case has one detected peak within angle_tol of the maximum of f
 * near it, whose amplitude is f there; that maximum is within bias_deg of the fiber. */
static void check_voxel(const voxel_case *c, const peaks_out *r, int64_t v, int k, double angle_tol,
                        double amp_tol, const char *what) {
  check_layout(r, v, k);
  cr_assert_eq(r->count[v], c->fibers, "%s, voxel %lld: %d peaks, expected %d", what, (long long)v,
               r->count[v], c->fibers);
  for (int f = 0; f < c->fibers; ++f) {
    double ref[3];
    reference_peak(c, f, ref);
    cr_assert(axis_angle_deg(ref, c->d[f]) <= c->bias_deg,
              "%s: the maximum of f is %.3f "
              "degrees from fiber %d",
              what, axis_angle_deg(ref, c->d[f]), f);
    int best = 0;
    for (int j = 1; j < r->count[v]; ++j)
      if (axis_angle_deg(r->dir + (v * k + j) * 3, ref) <
          axis_angle_deg(r->dir + (v * k + best) * 3, ref))
        best = j;
    double err = axis_angle_deg(r->dir + (v * k + best) * 3, ref), want = f_value(c, ref);
    cr_assert(err <= angle_tol, "%s, voxel %lld fiber %d: peak %.4g degrees off", what,
              (long long)v, f, err);
    cr_assert(fabs(r->amp[v * k + best] - want) <= amp_tol * want,
              "%s, voxel %lld fiber "
              "%d: amplitude %.9g, f = %.9g",
              what, (long long)v, f, r->amp[v * k + best], want);
  }
}

static void options_for(int single, tp_peaks_options *o) {
  tp_peaks_options_init(o);
  o->single_precision = single;
  o->min_amplitude = 0.0;
}

/* Runs cases (each repeated in `repeat` random frames) in one call per precision. */
static void run_cases(tpt_rng *rng, int lmax, int ncases, const double (*angles)[3],
                      const double (*weights)[3], const int *fibers, const double *bias,
                      int repeat) {
  int64_t voxels = (int64_t)ncases * repeat, n = tp_sh_count(lmax);
  voxel_case *cases = tpt_host_alloc(sizeof(voxel_case) * (size_t)voxels);
  double *sh = tpt_host_alloc(sizeof(double) * (size_t)(voxels * n));
  for (int64_t v = 0; v < voxels; ++v) {
    int c = (int)(v % ncases);
    cases[v] = make_case(rng, lmax, fibers[c], angles[c], weights[c], bias[c]);
    fit_sh(rng, &cases[v], sh + v * n);
  }
  for (int single = 0; single <= 1; ++single) {
    tp_peaks_options o;
    options_for(single, &o);
    peaks_out r = run_peaks(lmax, voxels, sh, &o);
    for (int64_t v = 0; v < voxels; ++v) {
      char what[96];
      snprintf(what, sizeof what, "L = %d, %d fibers, case %d, %s", lmax, cases[v].fibers,
               (int)(v % ncases), single ? "f32" : "f64");
      check_voxel(&cases[v], &r, v, o.max_peaks, single ? 0.05 : 1e-4, single ? 1e-5 : 1e-9, what);
    }
    peaks_free(&r);
  }
  free(cases), free(sh);
}

/* One fiber; two at 90 degrees; three orthogonal (exact maxima on the fibers). */
static const double orth_angles[3][3] = {{0, 0, 0}, {0, 90, 0}, {0, 90, 0}};
static const double orth_weights[3][3] = {{1, 0, 0}, {1, 0.7, 0}, {1, 0.8, 0.6}};
static const int orth_fibers[3] = {1, 2, 3};
static const double orth_bias[3] = {1e-6, 1e-6, 1e-6};

Test(peaks, single_and_orthogonal_fibers_l4) {
  tpt_rng rng = tpt_rng_fresh();
  run_cases(&rng, 4, 3, orth_angles, orth_weights, orth_fibers, orth_bias, 4);
}

Test(peaks, single_and_orthogonal_fibers_l6) {
  tpt_rng rng = tpt_rng_fresh();
  run_cases(&rng, 6, 3, orth_angles, orth_weights, orth_fibers, orth_bias, 4);
}

Test(peaks, single_and_orthogonal_fibers_l8) {
  tpt_rng rng = tpt_rng_fresh();
  run_cases(&rng, 8, 3, orth_angles, orth_weights, orth_fibers, orth_bias, 4);
}

/* Crossings below 90 degrees that stay resolved, with the largest pull of a maximum
 * towards the other fiber: L = 4 at 70 degrees (3.3) and 75 degrees with weights 1,
 * 0.8 (1.6); L = 6 at 60 degrees (2.1), and with weights 1, 0.6 (4.9 on the weaker);
 * L = 8 at 60 degrees (0.4) and 50 degrees (2.9). */
Test(peaks, oblique_crossings_resolve_with_known_bias) {
  tpt_rng rng = tpt_rng_fresh();
  const double a4[2][3] = {{0, 70, 0}, {0, 75, 0}}, w4[2][3] = {{1, 1, 0}, {1, 0.8, 0}};
  const int f2[2] = {2, 2};
  const double b4[2] = {3.3, 1.7};
  run_cases(&rng, 4, 2, a4, w4, f2, b4, 3);
  const double a6[2][3] = {{0, 60, 0}, {0, 60, 0}}, w6[2][3] = {{1, 1, 0}, {1, 0.6, 0}};
  const double b6[2] = {2.1, 5.0};
  run_cases(&rng, 6, 2, a6, w6, f2, b6, 3);
  const double a8[2][3] = {{0, 60, 0}, {0, 50, 0}}, w8[2][3] = {{1, 1, 0}, {1, 1, 0}};
  const double b8[2] = {0.45, 2.9};
  run_cases(&rng, 8, 2, a8, w8, f2, b8, 3);
}

/* ---- options: filtering, k, scale ------------------------------------------- */

/* Two orthogonal fibers with weights 1 and w at L = 8, fitted. */
static void two_fibers(tpt_rng *rng, double w, voxel_case *c, double *sh) {
  const double angles[3] = {0, 90, 0}, weights[3] = {1, w, 0};
  *c = make_case(rng, 8, 2, angles, weights, 1e-6);
  fit_sh(rng, c, sh);
}

Test(peaks, min_amplitude_drops_small_maxima) {
  tpt_rng rng = tpt_rng_fresh();
  voxel_case c;
  double sh[MAX_COEFFS];
  two_fibers(&rng, 0.05, &c, sh);
  tp_peaks_options o;
  options_for(0, &o);
  peaks_out all = run_peaks(8, 1, sh, &o);
  check_voxel(&c, &all, 0, o.max_peaks, 1e-4, 1e-9, "min_amplitude 0");
  o.min_amplitude = 0.1;
  peaks_out big = run_peaks(8, 1, sh, &o);
  check_layout(&big, 0, o.max_peaks);
  cr_assert_eq(big.count[0], 1, "min_amplitude 0.1 kept %d peaks", big.count[0]);
  cr_assert(axis_angle_deg(big.dir, c.d[0]) < 1e-4, "the kept peak is not the large fiber");
  peaks_free(&all), peaks_free(&big);
}

/* The absolute threshold keeps the maxima of amplitude >= threshold: here f is 1 and 0.4
 * (about) at the fibers, scaled by 3 so that the threshold is not a relative one. */
Test(peaks, threshold_drops_maxima_below_an_absolute_amplitude) {
  tpt_rng rng = tpt_rng_fresh();
  voxel_case c;
  double sh[MAX_COEFFS];
  two_fibers(&rng, 0.4, &c, sh);
  for (int i = 0; i < tp_sh_count(8); ++i)
    sh[i] *= 3.0;
  tp_peaks_options o;
  options_for(0, &o);
  peaks_out all = run_peaks(8, 1, sh, &o);
  cr_assert_eq(all.count[0], 2, "no threshold: %d peaks", all.count[0]);
  double small = all.amp[1];
  o.threshold = small * (1 + 1e-9);
  peaks_out one = run_peaks(8, 1, sh, &o);
  check_layout(&one, 0, o.max_peaks);
  cr_assert_eq(one.count[0], 1, "threshold just above %g kept %d peaks", small, one.count[0]);
  cr_assert(axis_angle_deg(one.dir, c.d[0]) < 1e-4, "the kept peak is not the large fiber");
  o.threshold = small * (1 - 1e-9);
  peaks_out two = run_peaks(8, 1, sh, &o);
  cr_assert_eq(two.count[0], 2, "threshold just below %g kept %d peaks", small, two.count[0]);
  o.threshold = all.amp[0] * 1.01;
  peaks_out none = run_peaks(8, 1, sh, &o);
  check_layout(&none, 0, o.max_peaks);
  cr_assert_eq(none.count[0], 0, "threshold above the largest kept %d peaks", none.count[0]);
  peaks_free(&all), peaks_free(&one), peaks_free(&two), peaks_free(&none);
}

Test(peaks, max_peaks_keeps_the_largest) {
  tpt_rng rng = tpt_rng_fresh();
  const double angles[3] = {0, 90, 0}, weights[3] = {1, 0.8, 0.6};
  voxel_case c = make_case(&rng, 6, 3, angles, weights, 1e-6);
  double sh[MAX_COEFFS];
  fit_sh(&rng, &c, sh);
  tp_peaks_options o;
  options_for(1, &o);
  o.max_peaks = 2;
  peaks_out r = run_peaks(6, 1, sh, &o);
  check_layout(&r, 0, 2);
  cr_assert_eq(r.count[0], 2, "%d peaks with k = 2", r.count[0]);
  for (int j = 0; j < 2; ++j)
    cr_assert(axis_angle_deg(r.dir + 3 * j, c.d[j]) < 0.05, "peak %d is not fiber %d", j, j);
  peaks_free(&r);
  o.max_peaks = 1;
  r = run_peaks(6, 1, sh, &o);
  check_layout(&r, 0, 1);
  cr_assert(r.count[0] == 1 && axis_angle_deg(r.dir, c.d[0]) < 0.05, "k = 1: wrong peak");
  peaks_free(&r);
}

/* Scaling the coefficients scales the amplitudes and leaves the directions. */
Test(peaks, amplitudes_follow_the_scale_of_the_data) {
  tpt_rng rng = tpt_rng_fresh();
  voxel_case c;
  double sh[2 * MAX_COEFFS];
  const int n = tp_sh_count(8);
  two_fibers(&rng, 0.5, &c, sh);
  for (int j = 0; j < n; ++j)
    sh[n + j] = 3e5 * sh[j];
  for (int single = 0; single <= 1; ++single) {
    tp_peaks_options o;
    options_for(single, &o);
    peaks_out r = run_peaks(8, 2, sh, &o);
    cr_assert(r.count[0] == 2 && r.count[1] == 2, "counts %d and %d", r.count[0], r.count[1]);
    for (int j = 0; j < 2; ++j) {
      cr_assert(fabs(r.amp[3 + j] / r.amp[j] - 3e5) <= 3e5 * 1e-9, "amplitude ratio %.12g",
                r.amp[3 + j] / r.amp[j]);
      cr_assert(axis_angle_deg(r.dir + 3 * j, r.dir + 9 + 3 * j) < 1e-6, "directions moved");
    }
    peaks_free(&r);
  }
}

/* All-zero and everywhere-negative functions have no peaks. */
Test(peaks, voxels_without_positive_maxima) {
  tpt_rng rng = tpt_rng_fresh();
  const int n = tp_sh_count(4);
  double sh[3 * 15] = {0};
  const double angles[3] = {0, 0, 0}, weights[3] = {1, 0, 0};
  voxel_case c = make_case(&rng, 4, 1, angles, weights, 1e-6);
  fit_sh(&rng, &c, sh + n);
  for (int j = 0; j < n; ++j)
    sh[2 * n + j] = -sh[n + j];
  tp_peaks_options o;
  options_for(1, &o);
  peaks_out r = run_peaks(4, 3, sh, &o);
  for (int v = 0; v < 3; ++v)
    check_layout(&r, v, o.max_peaks);
  cr_assert(r.count[0] == 0 && r.count[1] == 1 && r.count[2] == 0, "counts %d %d %d", r.count[0],
            r.count[1], r.count[2]);
  peaks_free(&r);
}

/* More voxels than one batch holds: every voxel matches its pattern run alone. */
Test(peaks, many_voxels_span_several_batches) {
  tpt_rng rng = tpt_rng_fresh();
  const int patterns = 3, n = tp_sh_count(4);
  const int64_t voxels = (1 << 16) + 37;
  double pattern_sh[3 * 15];
  for (int p = 0; p < patterns; ++p) {
    voxel_case c = make_case(&rng, 4, p + 1, orth_angles[p], orth_weights[p], 1e-6);
    fit_sh(&rng, &c, pattern_sh + p * n);
  }
  double *sh = tpt_host_alloc(sizeof(double) * (size_t)(voxels * n));
  for (int64_t v = 0; v < voxels; ++v)
    memcpy(sh + v * n, pattern_sh + (v % patterns) * n, sizeof(double) * (size_t)n);
  tp_peaks_options o;
  options_for(1, &o);
  o.num_starts = 8;
  peaks_out one = run_peaks(4, patterns, pattern_sh, &o);
  peaks_out all = run_peaks(4, voxels, sh, &o);
  const int k = o.max_peaks;
  for (int64_t v = 0; v < voxels; ++v) {
    int64_t p = v % patterns;
    cr_assert_eq(all.count[v], one.count[p], "voxel %lld: %d peaks, alone %d", (long long)v,
                 all.count[v], one.count[p]);
    for (int j = 0; j < k * 3; ++j) {
      double a = all.dir[v * k * 3 + j], b = one.dir[p * k * 3 + j];
      cr_assert((isnan(a) && isnan(b)) || a == b, "voxel %lld: direction differs", (long long)v);
    }
  }
  free(sh);
  peaks_free(&one), peaks_free(&all);
}

/* A memory limit too small for one batch fails cleanly and leaves nothing held. */
Test(peaks, space_memory_exhaustion_is_reported_and_cleaned_up) {
  tpt_rng rng = tpt_rng_fresh();
  voxel_case c;
  double sh[4 * MAX_COEFFS], dir[4 * 9], amp[4 * 3];
  int32_t counts[4];
  for (int v = 0; v < 4; ++v)
    two_fibers(&rng, 0.5, &c, sh + v * tp_sh_count(8));
  tp_peaks_options o;
  tp_peaks_options_init(&o);
  size_t before = tp_space_bytes_in_use(tpt_space);
  TPT_OK(tp_space_set_memory_limit(tpt_space, before + 512));
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 8, 4, sh, &o, dir, amp, counts), TP_ERROR_OUT_OF_MEMORY);
  TPT_OK(tp_space_trim(tpt_space));
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), before, "a failed call left memory held");
  TPT_OK(tp_space_set_memory_limit(tpt_space, 0));
  TPT_OK(tp_fiber_peaks(tpt_space, 8, 4, sh, &o, dir, amp, counts));
  TPT_OK(tp_space_trim(tpt_space)); /* the solver may keep temporaries cached */
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), before, "a call left memory held");
  for (int v = 0; v < 4; ++v)
    cr_assert_eq(counts[v], 2, "voxel %d: %d peaks", v, counts[v]);
}

/* ---- bad input ---------------------------------------------------------------- */

Test(peaks, bad_input_is_refused) {
  double sh[3 * 45] = {0}, dir[3 * 3 * 3], amp[3 * 3];
  int32_t counts[3];
  sh[0] = 1.0;
  tp_peaks_options o;
  tp_peaks_options_init(&o);
  for (int lmax = -2; lmax <= 18; ++lmax)
    if (lmax % 2 != 0 || lmax < 2 || lmax > 16)
      TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, lmax, 1, sh, &o, dir, amp, counts),
                     TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, -1, sh, &o, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fiber_peaks(NULL, 4, 1, sh, &o, dir, amp, counts), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, NULL, &o, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, sh, NULL, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, sh, &o, dir, amp, NULL),
                 TP_ERROR_INVALID_ARGUMENT);
  tp_peaks_options bad = o;
  bad.max_peaks = 0;
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, sh, &bad, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  bad = o, bad.num_starts = 0;
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, sh, &bad, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  bad = o, bad.min_amplitude = 1.5;
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, sh, &bad, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  bad = o, bad.tol = NAN;
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, sh, &bad, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  bad = o, bad.xtol = -1;
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, sh, &bad, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  bad = o, bad.threshold = NAN;
  TPT_FAILS_WITH(tp_fiber_peaks(tpt_space, 4, 1, sh, &bad, dir, amp, counts),
                 TP_ERROR_INVALID_ARGUMENT);
  /* No voxels: nothing to do, nothing is read. */
  TPT_OK(tp_fiber_peaks(tpt_space, 4, 0, NULL, &o, NULL, NULL, NULL));
}

/* A voxel with a NaN, an infinity or only zeros gets no peaks (count 0, NaN slots),
 * and the other voxels of the batch come out as without it, bit for bit. */
Test(peaks, non_finite_and_zero_voxels_get_no_peaks_and_the_batch_goes_on) {
  tpt_rng rng = tpt_rng_fresh();
  const int n = tp_sh_count(8), at[3] = {0, 2, 5}, bad[3] = {1, 3, 4};
  voxel_case c;
  double good[3 * MAX_COEFFS], all[6 * MAX_COEFFS];
  for (int v = 0; v < 3; ++v) {
    two_fibers(&rng, 0.4 + 0.2 * v, &c, good + v * n);
    memcpy(all + at[v] * n, good + v * n, sizeof(double) * (size_t)n);
  }
  memcpy(all + 1 * n, good, sizeof(double) * (size_t)n);
  all[1 * n + 7] = NAN;
  memcpy(all + 3 * n, good + n, sizeof(double) * (size_t)n);
  all[3 * n] = INFINITY;
  memset(all + 4 * n, 0, sizeof(double) * (size_t)n);
  for (int single = 0; single <= 1; ++single) {
    tp_peaks_options o;
    options_for(single, &o);
    const int k = o.max_peaks;
    peaks_out ref = run_peaks(8, 3, good, &o), r = run_peaks(8, 6, all, &o);
    for (int v = 0; v < 6; ++v)
      check_layout(&r, v, k);
    for (int b = 0; b < 3; ++b)
      cr_assert_eq(r.count[bad[b]], 0, "voxel %d: %d peaks", bad[b], r.count[bad[b]]);
    for (int v = 0; v < 3; ++v) {
      cr_assert_eq(r.count[at[v]], ref.count[v],
                   "voxel %d: %d peaks, %d without the bad "
                   "voxels",
                   at[v], r.count[at[v]], ref.count[v]);
      cr_assert(ref.count[v] == 2, "voxel %d: %d peaks", v, ref.count[v]);
      cr_assert(memcmp(r.amp + at[v] * k, ref.amp + v * k, sizeof(double) * (size_t)k) == 0 &&
                    memcmp(r.dir + at[v] * k * 3, ref.dir + v * k * 3,
                           sizeof(double) * (size_t)k * 3) == 0,
                "%s, voxel %d: peaks differ from the batch without the bad voxels",
                single ? "f32" : "f64", at[v]);
    }
    peaks_free(&ref), peaks_free(&r);
  }
}

/* c f has the peaks of f, amplitudes times c: c = 10^k for k = -30..150 in f64 and
 * -15..15 in f32, and for k = 200, 300, 305, whose squares overflow (one voxel per k
 * in one batch). */
static double sweep_exponent(int single, int v) {
  const int lo = single ? -15 : -30, hi = single ? 15 : 150, huge[3] = {200, 300, 305};
  return lo + v <= hi ? lo + v : huge[lo + v - hi - 1];
}

Test(peaks, peaks_follow_powers_of_ten) {
  tpt_rng rng = tpt_rng_fresh();
  const int n = tp_sh_count(8);
  voxel_case c;
  double sh[MAX_COEFFS];
  two_fibers(&rng, 0.6, &c, sh);
  for (int single = 0; single <= 1; ++single) {
    const int voxels = (single ? 31 : 181) + 3;
    double *scaled = tpt_host_alloc(sizeof(double) * (size_t)(voxels * n));
    for (int v = 0; v < voxels; ++v)
      for (int j = 0; j < n; ++j)
        scaled[v * n + j] = pow(10.0, sweep_exponent(single, v)) * sh[j];
    tp_peaks_options o;
    options_for(single, &o);
    const int k = o.max_peaks;
    peaks_out base = run_peaks(8, 1, sh, &o), r = run_peaks(8, voxels, scaled, &o);
    cr_assert_eq(base.count[0], 2, "%d peaks at c = 1", base.count[0]);
    for (int v = 0; v < voxels; ++v) {
      double s = pow(10.0, sweep_exponent(single, v));
      cr_assert_eq(r.count[v], 2, "%s, c = %g: %d peaks", single ? "f32" : "f64", s, r.count[v]);
      for (int j = 0; j < 2; ++j) {
        cr_assert(fabs(r.amp[v * k + j] / s - base.amp[j]) <= 1e-9 * base.amp[j],
                  "%s, c = %g, peak %d: amplitude / c = %.17g, %.17g at c = 1",
                  single ? "f32" : "f64", s, j, r.amp[v * k + j] / s, base.amp[j]);
        for (int i = 0; i < 3; ++i)
          cr_assert(fabs(r.dir[(v * k + j) * 3 + i] - base.dir[j * 3 + i]) <= 1e-6,
                    "%s, c = %g, peak %d: direction[%d] %.17g, %.17g at c = 1",
                    single ? "f32" : "f64", s, j, i, r.dir[(v * k + j) * 3 + i],
                    base.dir[j * 3 + i]);
      }
    }
    peaks_free(&base), peaks_free(&r);
    free(scaled);
  }
}

/* The phantom's coefficients describe sum_i w_i (d_i . x)^L exactly when noise is 0
 * (checked by evaluating both at random x), its fibers are unit vectors in the region's
 * number, and a seed gives one phantom. */
Test(peaks, the_phantom_is_the_sum_of_its_fibers) {
  tpt_rng rng = tpt_rng_fresh();
  const int nx = 6, ny = 4, lmax = 2 * (int)tpt_int(&rng, 2, 5), C = tp_sh_count(lmax);
  const int want_fibers[4] = {1, 2, 2, 3};
  const double weights[4][3] = {{1, 0, 0}, {1, 0.8, 0}, {1, 1, 0}, {1, 0.8, 0.6}};
  double *sh = tpt_host_alloc(sizeof(double) * (size_t)(nx * ny * C));
  double *again = tpt_host_alloc(sizeof(double) * (size_t)(nx * ny * C));
  double *truth = tpt_host_alloc(sizeof(double) * (size_t)(nx * ny * 9));
  int fibers[24];
  uint64_t seed = tpt_next_u64(&rng);
  TPT_OK(tp_dwmri_phantom(nx, ny, lmax, 0.0, seed, sh, truth, fibers));
  for (int64_t v = 0; v < nx * ny; ++v) {
    int g = tp_dwmri_phantom_region(nx, ny, v);
    cr_assert_eq(fibers[v], want_fibers[g], "voxel %lld", (long long)v);
    cr_assert_eq(g, (v / ny >= nx / 2) + 2 * (v % ny >= ny / 2));
    for (int t = 0; t < 5; ++t) {
      double x[3] = {tpt_uniform(&rng, -1, 1), tpt_uniform(&rng, -1, 1), tpt_uniform(&rng, -1, 1)};
      double n = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), want = 0, got;
      for (int i = 0; i < 3; ++i)
        x[i] /= n;
      for (int f = 0; f < fibers[v]; ++f) {
        const double *d = truth + v * 9 + f * 3;
        cr_assert_float_eq(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], 1.0, 1e-12);
        want += weights[g][f] * pow(d[0] * x[0] + d[1] * x[1] + d[2] * x[2], lmax);
      }
      TPT_OK(tp_sh_eval_f64(lmax, sh + v * C, x, &got));
      cr_assert_float_eq(got, want, 1e-10, "voxel %lld, lmax %d: %.15f, the fibers %.15f",
                         (long long)v, lmax, got, want);
    }
  }
  TPT_OK(tp_dwmri_phantom(nx, ny, lmax, 0.0, seed, again, truth, NULL));
  cr_assert(!memcmp(sh, again, sizeof(double) * (size_t)(nx * ny * C)));
  TPT_OK(tp_dwmri_phantom(nx, ny, lmax, 0.0, seed + 1, again, truth, NULL));
  cr_assert(memcmp(sh, again, sizeof(double) * (size_t)(nx * ny * C)) != 0);
  TPT_FAILS_WITH(tp_dwmri_phantom(5, 4, lmax, 0.0, seed, sh, truth, NULL),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_dwmri_phantom(4, 4, 7, 0.0, seed, sh, truth, NULL), TP_ERROR_INVALID_ARGUMENT);
  free(sh), free(again), free(truth);
}
