/* Real symmetric spherical harmonics (MRtrix3 convention) and their symmetric-tensor
 * form. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/dwmri.h"
#include "tenport/symtensor.h"
#include "tests/common/tpt.h"

TestSuite(sh, .init = tpt_setup, .fini = tpt_teardown);

static void random_unit(tpt_rng *rng, double *u) {
  double n2;
  do {
    for (int i = 0; i < 3; ++i)
      u[i] = tpt_uniform(rng, -1, 1);
    n2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  } while (n2 > 1 || n2 < 1e-4);
  for (int i = 0; i < 3; ++i)
    u[i] /= sqrt(n2);
}

static double l2_norm(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return sqrt(s);
}

/* Value of basis function (l, m) alone at a direction. */
static double basis_value(int lmax, int l, int m, const double *dir) {
  double c[153] = {0}, v;
  c[l * (l + 1) / 2 + m] = 1.0;
  TPT_OK(tp_sh_eval_f64(lmax, c, dir, &v));
  return v;
}

/* Largest |A x^L - SH(x)| / |c| over random unit vectors and voxels. */
static double conversion_error(int lmax, int voxels, int points, tpt_rng *rng) {
  int u = tp_sh_count(lmax);
  double *sh = tpt_host_alloc(sizeof(double) * (size_t)(voxels * u));
  double *ten = tpt_host_alloc(sizeof(double) * (size_t)(voxels * u + 1));
  for (int i = 0; i < voxels * u; ++i)
    sh[i] = tpt_uniform(rng, -1, 1);
  ten[voxels * u] = 12345.0;
  TPT_OK(tp_sh_to_sym_f64(lmax, voxels, sh, ten));
  cr_assert_eq(ten[voxels * u], 12345.0, "wrote past the last voxel");
  double worst = 0;
  for (int v = 0; v < voxels; ++v)
    for (int p = 0; p < points; ++p) {
      double x[3], want, got;
      random_unit(rng, x);
      TPT_OK(tp_sh_eval_f64(lmax, sh + v * u, x, &want));
      if (lmax == 0)
        got = ten[v]; /* a tensor of order 0 is its one value */
      else
        TPT_OK(tp_sym_axm_f64(lmax, 3, ten + v * u, x, &got));
      worst = fmax(worst, fabs(got - want) / l2_norm(sh + v * u, u));
    }
  free(sh), free(ten);
  return worst;
}

Test(sh, counts) {
  const int want[] = {1, -1, 6, -1, 15, -1, 28, -1, 45, -1, 66, -1, 91, -1, 120, -1, 153};
  for (int l = 0; l <= 16; ++l)
    cr_assert_eq(tp_sh_count(l), want[l], "lmax %d: %d", l, tp_sh_count(l));
  cr_assert_eq(tp_sh_count(-2), -1);
  cr_assert_eq(tp_sh_count(18), -1);
}

Test(sh, tensor_form_matches_series) {
  tpt_rng rng = tpt_rng_fresh();
  for (int l = 2; l <= 8; l += 2) {
    double err = conversion_error(l, 5, 200, &rng);
    cr_log_info("lmax %d: largest relative error %.3g", l, err);
    cr_assert(err <= 1e-12, "lmax %d: relative error %.3g", l, err);
  }
}

Test(sh, tensor_form_matches_series_other_degrees) {
  tpt_rng rng = tpt_rng_fresh();
  const int degrees[] = {0, 10, 12, 14, 16};
  const double tol[] = {1e-15, 1e-12, 1e-12, 1e-11, 1e-11};
  for (int c = 0; c < 5; ++c) {
    double err = conversion_error(degrees[c], 3, 100, &rng);
    cr_log_info("lmax %d: largest relative error %.3g", degrees[c], err);
    cr_assert(err <= tol[c], "lmax %d: relative error %.3g", degrees[c], err);
  }
}

Test(sh, many_voxels_are_independent) {
  tpt_rng rng = tpt_rng_fresh();
  const int lmax = 4, u = 15, voxels = 1000;
  double *sh = tpt_host_alloc(sizeof(double) * voxels * u);
  double *all = tpt_host_alloc(sizeof(double) * voxels * u), one[15];
  for (int i = 0; i < voxels * u; ++i)
    sh[i] = tpt_uniform(&rng, -1, 1);
  TPT_OK(tp_sh_to_sym_f64(lmax, voxels, sh, all));
  for (int v = 0; v < voxels; v += 97) {
    TPT_OK(tp_sh_to_sym_f64(lmax, 1, sh + v * u, one));
    cr_assert(memcmp(one, all + v * u, sizeof one) == 0, "voxel %d differs", v);
  }
  TPT_OK(tp_sh_to_sym_f64(lmax, 0, NULL, NULL));
  free(sh), free(all);
}

Test(sh, known_values_pin_the_convention) {
  const double pi = M_PI, eps = 1e-14;
  tpt_rng rng = tpt_rng_fresh();
  double x[3];
  random_unit(&rng, x);
  cr_assert(fabs(basis_value(8, 0, 0, x) - 1 / sqrt(4 * pi)) <= eps, "Y_0^0");
  const double zaxis[3] = {0, 0, 1};
  cr_assert(fabs(basis_value(2, 2, 0, zaxis) - sqrt(5 / (4 * pi))) <= eps, "Y_2^0 at z");
  /* Degree 2 in Cartesian form on the unit sphere, Condon-Shortley phase included:
   * m = -2: sqrt(15/pi)/2 xy, m = -1: -sqrt(15/(4pi)) yz, m = 0: sqrt(5/pi)/4 (3z^2 - 1),
   * m = 1: -sqrt(15/(4pi)) xz, m = 2: sqrt(15/pi)/4 (x^2 - y^2). */
  const double d[3] = {1, 2, 2}; /* not unit: the direction is normalised */
  const double X = 1.0 / 3, Y = 2.0 / 3, Z = 2.0 / 3;
  const double want[5] = {sqrt(15 / pi) / 2 * X * Y, -sqrt(15 / (4 * pi)) * Y * Z,
                          sqrt(5 / pi) / 4 * (3 * Z * Z - 1), -sqrt(15 / (4 * pi)) * X * Z,
                          sqrt(15 / pi) / 4 * (X * X - Y * Y)};
  for (int m = -2; m <= 2; ++m) {
    double got = basis_value(2, 2, m, d);
    cr_assert(fabs(got - want[m + 2]) <= eps, "Y(2, %d): %.17g vs %.17g", m, got, want[m + 2]);
  }
  /* Degree 4, m = 4 and m = -3: sqrt(2) N P_4^k (CS phase) in Cartesian form. */
  double y44 =
      3.0 / 16 * sqrt(35 / (2 * pi)) * M_SQRT2 * (pow(X, 4) - 6 * X * X * Y * Y + pow(Y, 4));
  double y4m3 = -3.0 / 8 * sqrt(35 / pi) * M_SQRT2 * (3 * X * X * Y - pow(Y, 3)) * Z;
  cr_assert(fabs(basis_value(4, 4, 4, d) - y44) <= eps, "Y(4, 4)");
  cr_assert(fabs(basis_value(4, 4, -3, d) - y4m3) <= eps, "Y(4, -3)");
}

/* Reference in spherical angles: N_l^k P_l^k(cos theta), P unnormalised with the
 * Condon-Shortley phase (P_k^k = (-1)^k (2k-1)!! sin^k theta, then the recurrence in l)
 * and N_l^k from factorials; reference_basis is MRtrix3's basis function from it. */
static double legendre_normalised(int l, int k, const double *u) {
  double z = u[2], s = hypot(u[0], u[1]);
  double pkk = 1;
  for (int i = 1; i <= k; ++i)
    pkk *= -(2 * i - 1) * s;
  double p0 = pkk, p1 = (2 * k + 1) * z * pkk, p = l == k ? p0 : p1;
  for (int n = k + 2; n <= l; ++n) {
    p = ((2 * n - 1) * z * p1 - (n + k - 1) * p0) / (n - k);
    p0 = p1, p1 = p;
  }
  double fact_ratio = 1;
  for (int i = l - k + 1; i <= l + k; ++i)
    fact_ratio /= i;
  return sqrt((2 * l + 1) / (4 * M_PI) * fact_ratio) * p;
}

static double reference_basis(int l, int m, const double *u) {
  int k = abs(m);
  double np = legendre_normalised(l, k, u), phi = atan2(u[1], u[0]);
  if (m == 0)
    return np;
  return M_SQRT2 * np * (m > 0 ? cos(k * phi) : sin(k * phi));
}

Test(sh, series_matches_angular_reference) {
  tpt_rng rng = tpt_rng_fresh();
  for (int t = 0; t < 200; ++t) {
    double x[3];
    random_unit(&rng, x);
    for (int l = 0; l <= 12; l += 2)
      for (int m = -l; m <= l; ++m) {
        double got = basis_value(12, l, m, x), want = reference_basis(l, m, x);
        cr_assert(fabs(got - want) <= 1e-12, "Y(%d, %d) at (%g, %g, %g): %.17g vs %.17g", l, m,
                  x[0], x[1], x[2], got, want);
      }
  }
}

Test(sh, degree_two_tensors_in_closed_form) {
  /* Classes for L = 2: xx, xy, xz, yy, yz, zz; A x^2 = sum_j mult_j a_j x^k_j. */
  const double pi = M_PI;
  double sh[6] = {0}, t[6];
  sh[2] = 1; /* (2, -1) = -sqrt(15/(4pi)) yz */
  TPT_OK(tp_sh_to_sym_f64(2, 1, sh, t));
  const double want[6] = {0, 0, 0, 0, -sqrt(15 / (4 * pi)) / 2, 0};
  for (int j = 0; j < 6; ++j)
    cr_assert(fabs(t[j] - want[j]) <= 1e-15, "class %d: %.17g vs %.17g", j, t[j], want[j]);
  memset(sh, 0, sizeof sh);
  sh[0] = 1; /* Y_0^0 = (x^2 + y^2 + z^2) / sqrt(4 pi) */
  TPT_OK(tp_sh_to_sym_f64(2, 1, sh, t));
  const double c = 1 / sqrt(4 * pi), want0[6] = {c, 0, 0, c, 0, c};
  for (int j = 0; j < 6; ++j)
    cr_assert(fabs(t[j] - want0[j]) <= 1e-15, "class %d: %.17g vs %.17g", j, t[j], want0[j]);
}

/* Gauss-Legendre nodes and weights on [-1, 1] by Newton's method. */
static void gauss_legendre(int n, double *node, double *weight) {
  for (int i = 0; i < n; ++i) {
    double z = cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = z;
      for (int k = 2; k <= n; ++k) {
        double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1, p1 = p2;
      }
      dp = n * (z * p1 - p0) / (z * z - 1);
      double dz = p1 / dp;
      z -= dz;
      if (fabs(dz) < 1e-16)
        break;
    }
    node[i] = z;
    weight[i] = 2 / ((1 - z * z) * dp * dp);
  }
}

Test(sh, basis_is_orthonormal) {
  /* Products have degree <= 16: 12 nodes in z and 24 in phi integrate them exactly. */
  enum { L = 8, U = 45, NZ = 12, NPHI = 24 };
  double node[NZ], weight[NZ], gram[U][U] = {{0}}, val[U];
  gauss_legendre(NZ, node, weight);
  for (int i = 0; i < NZ; ++i)
    for (int k = 0; k < NPHI; ++k) {
      double phi = 2 * M_PI * k / NPHI, s = sqrt(1 - node[i] * node[i]);
      double dir[3] = {s * cos(phi), s * sin(phi), node[i]}, w = weight[i] * 2 * M_PI / NPHI;
      for (int l = 0, b = 0; l <= L; l += 2)
        for (int m = -l; m <= l; ++m)
          val[b++] = basis_value(L, l, m, dir);
      for (int a = 0; a < U; ++a)
        for (int b = 0; b < U; ++b)
          gram[a][b] += w * val[a] * val[b];
    }
  for (int a = 0; a < U; ++a)
    for (int b = 0; b < U; ++b)
      cr_assert(fabs(gram[a][b] - (a == b)) <= 1e-10, "<Y_%d, Y_%d> = %.17g", a, b, gram[a][b]);
}

Test(sh, bad_input_is_rejected) {
  double c[15] = {0}, v, t[15];
  const double x[3] = {0, 0, 1}, zero[3] = {0, 0, 0}, bad[3] = {0, NAN, 1};
  TPT_FAILS_WITH(tp_sh_eval_f64(3, c, x, &v), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_eval_f64(-2, c, x, &v), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_eval_f64(18, c, x, &v), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_eval_f64(4, NULL, x, &v), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_eval_f64(4, c, NULL, &v), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_eval_f64(4, c, x, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_eval_f64(4, c, zero, &v), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_eval_f64(4, c, bad, &v), TP_ERROR_NUMERICAL);
  TPT_FAILS_WITH(tp_sh_to_sym_f64(3, 1, c, t), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_to_sym_f64(-4, 1, c, t), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_to_sym_f64(4, -1, c, t), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_to_sym_f64(4, 1, NULL, t), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_to_sym_f64(4, 1, c, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_to_sym_f64(4, INT64_MAX / 2, c, t), TP_ERROR_OVERFLOW);
  c[7] = NAN;
  TPT_FAILS_WITH(tp_sh_eval_f64(4, c, x, &v), TP_ERROR_NUMERICAL);
  TPT_FAILS_WITH(tp_sh_to_sym_f64(4, 1, c, t), TP_ERROR_NUMERICAL);
  c[7] = INFINITY;
  TPT_FAILS_WITH(tp_sh_to_sym_f64(4, 1, c, t), TP_ERROR_NUMERICAL);
}

/* ---- other tools' bases ----------------------------------------------------------- */

/* Y_l^m with the Condon-Shortley phase, as (re, im): N_l^|m| P_l^|m|(cos theta) e^{i|m|phi},
 * and Y_l^{-k} = (-1)^k conj(Y_l^k). */
static void complex_harmonic(int l, int m, const double *u, double *re, double *im) {
  int k = abs(m);
  double phi = atan2(u[1], u[0]), np = legendre_normalised(l, k, u);
  *re = np * cos(k * phi), *im = np * sin(k * phi);
  if (m < 0 && k % 2)
    *re = -*re, *im = -*im;
  if (m < 0)
    *im = -*im;
}

/* Basis function (l, m) of DIPY's descoteaux07 (legacy or not) and FSL qboot's, from
 * their definitions. */
static double other_basis(tp_sh_basis basis, int l, int m, const double *u) {
  double re, im;
  if (m == 0)
    return reference_basis(l, 0, u);
  if (basis == TP_SH_DIPY) { /* sqrt2 Im Y_l^m (m > 0), sqrt2 Re Y_l^|m| (m < 0) */
    complex_harmonic(l, abs(m), u, &re, &im);
    return M_SQRT2 * (m > 0 ? im : re);
  }
  if (basis == TP_SH_DIPY_NONLEGACY) { /* sqrt2 Im Y_l^m (m > 0), sqrt2 Re Y_l^m (m < 0) */
    complex_harmonic(l, m, u, &re, &im);
    return M_SQRT2 * (m > 0 ? im : re);
  }
  /* FSL: m < 0: sqrt2 N P cos(|m| phi); m > 0: (-1)^m sqrt2 N P sin(m phi), P with the
   * phase */
  complex_harmonic(l, abs(m), u, &re, &im);
  return m < 0 ? M_SQRT2 * re : (m % 2 ? -1 : 1) * M_SQRT2 * im;
}

Test(sh, other_bases_convert_to_the_same_function) {
  tpt_rng rng = tpt_rng_fresh();
  const tp_sh_basis bases[3] = {TP_SH_DIPY, TP_SH_DIPY_NONLEGACY, TP_SH_FSL};
  for (int b = 0; b < 3; ++b)
    for (int lmax = 0; lmax <= 10; lmax += 2) {
      int count = tp_sh_count(lmax);
      double c[66 * 2], x[3];
      for (int i = 0; i < 2 * count; ++i)
        c[i] = tpt_uniform(&rng, -1, 1);
      double given[66 * 2];
      memcpy(given, c, sizeof given);
      TPT_OK(tp_sh_to_mrtrix(bases[b], lmax, 2, c));
      for (int t = 0; t < 20; ++t) {
        random_unit(&rng, x);
        for (int v = 0; v < 2; ++v) {
          double want = 0, got;
          for (int l = 0, i = 0; l <= lmax; l += 2)
            for (int m = -l; m <= l; ++m, ++i)
              want += given[v * count + i] * other_basis(bases[b], l, m, x);
          TPT_OK(tp_sh_eval_f64(lmax, c + v * count, x, &got));
          cr_assert(fabs(got - want) <= 1e-11 * l2_norm(given + v * count, count),
                    "%s lmax %d voxel %d: %.17g, the basis's own series %.17g",
                    tp_sh_basis_name(bases[b]), lmax, v, got, want);
        }
      }
    }
}

Test(sh, basis_conversion_arguments) {
  double c[15] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, same[15];
  memcpy(same, c, sizeof c);
  TPT_OK(tp_sh_to_mrtrix(TP_SH_MRTRIX, 4, 1, c));
  cr_assert(!memcmp(c, same, sizeof c), "MRtrix3's basis is left as it is");
  TPT_OK(tp_sh_to_mrtrix(TP_SH_DIPY, 4, 0, NULL));
  TPT_FAILS_WITH(tp_sh_to_mrtrix((tp_sh_basis)4, 4, 1, c), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_to_mrtrix(TP_SH_FSL, 3, 1, c), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_to_mrtrix(TP_SH_FSL, 4, -1, c), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sh_to_mrtrix(TP_SH_FSL, 4, 1, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert_str_eq(tp_sh_basis_name(TP_SH_DIPY_NONLEGACY), "dipy-nonlegacy");
}
