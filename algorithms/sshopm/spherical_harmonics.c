/* Real symmetric spherical harmonics (MRtrix3 convention) and their symmetric-tensor
 * form (host code).
 *
 * The convention, as read in MRtrix3's core/math/SH.h (index(), value()),
 * core/math/legendre.h (Plm_sph) and docs/concepts/spherical_harmonics.rst:
 *  - only even degrees l are stored, coefficient (l, m) at l(l+1)/2 + m;
 *  - Plm_sph is the orthonormalised associated Legendre function
 *    N_l^m P_l^m(cos theta), N_l^m = sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!), and its seed
 *    P_m^m is negated for odd m: the Condon-Shortley phase (-1)^m is included;
 *  - value() adds, for every m > 0, sqrt(2) N P_l^m times cos(m phi) c(l, m) plus
 *    sin(m phi) c(l, -m): m > 0 is sqrt(2) Re Y_l^m, m < 0 is sqrt(2) Im Y_l^|m|,
 *    m = 0 is Y_l^0;
 *  - cos theta = z and (cos phi, sin phi) = (x, y) / hypot(x, y): theta from +z,
 *    phi from +x towards +y.
 *
 * Both routines here stay in Cartesian form, so nothing is singular at the poles: on
 * the unit sphere N P_l^m(z) = Q_l^m(z) s^m with s = hypot(x, y) and a polynomial Q,
 * and s^m cos(m phi), s^m sin(m phi) are Re and Im of (x + iy)^m. */
#include <math.h>
#include <stdlib.h>

#include "tenport/dwmri.h"
#include "tenport/symtensor.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"

#define SH_MAX_L 16
#define SH_MAX_COUNT ((SH_MAX_L + 1) * (SH_MAX_L + 2) / 2)

int tp_sh_count(int lmax) {
  if (lmax < 0 || lmax > SH_MAX_L || lmax % 2 != 0)
    return -1;
  return (lmax + 1) * (lmax + 2) / 2;
}

static int sh_index(int l, int m) { return l * (l + 1) / 2 + m; }

static tp_status check_lmax(int lmax) {
  TP_CHECK_ARG(tp_sh_count(lmax) > 0, "lmax = %d: must be even and in [0, %d]", lmax, SH_MAX_L);
  return TP_SUCCESS;
}

/* ---- evaluation ----------------------------------------------------------- */

/* Q_m^m from Q_{m-1}^{m-1}: the ratio of the normalisations and the sign (-1). */
static double legendre_diagonal_step(int m, double q_prev) {
  return -sqrt((2.0 * m + 1.0) / (2.0 * m)) * q_prev;
}

/* q[l] = Q_l^m(z) for l = m .. lmax, by the three-term recurrence of the normalised
 * functions (stable upwards in l), starting from q[m] = qmm. */
static void legendre_column(int lmax, int m, double z, double qmm, double *q) {
  q[m] = qmm;
  if (m + 1 <= lmax)
    q[m + 1] = sqrt(2.0 * m + 3.0) * z * qmm;
  for (int l = m + 2; l <= lmax; ++l) {
    double d = (double)(l * l - m * m);
    double a = sqrt((4.0 * l * l - 1.0) / d);
    double b = sqrt((2.0 * l + 1.0) * (double)((l - 1) * (l - 1) - m * m) / ((2.0 * l - 3.0) * d));
    q[l] = a * z * q[l - 1] - b * q[l - 2];
  }
}

/* The direction scaled to unit length; it must be finite and non-zero. */
static tp_status unit_direction(const double *d, double *u) {
  TP_TRY(tp_check_finite_f64(d, 3, "direction"));
  double norm = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  TP_CHECK_ARG(norm > 0, "direction is the zero vector");
  for (int i = 0; i < 3; ++i)
    u[i] = d[i] / norm;
  return TP_SUCCESS;
}

/* Sum over the even l >= m of Q_l^m(z) times the (l, m) term's azimuthal part. */
static double order_sum(int lmax, int m, const double *q, double re, double im,
                        const double *coeffs) {
  double sum = 0.0;
  for (int l = m + (m & 1); l <= lmax; l += 2)
    sum += m == 0 ? q[l] * coeffs[sh_index(l, 0)]
                  : M_SQRT2 * q[l] * (re * coeffs[sh_index(l, m)] + im * coeffs[sh_index(l, -m)]);
  return sum;
}

tp_status tp_sh_eval_f64(int lmax, const double *coeffs, const double direction[3], double *value) {
  TP_CHECK_ARG(coeffs && direction && value, "coeffs, direction or value is NULL");
  TP_TRY(check_lmax(lmax));
  TP_TRY(tp_check_finite_f64(coeffs, tp_sh_count(lmax), "SH coefficients"));
  double u[3], q[SH_MAX_L + 1];
  TP_TRY(unit_direction(direction, u));
  double qmm = 0.5 / sqrt(M_PI); /* Q_0^0 = 1 / sqrt(4 pi) */
  double re = 1.0, im = 0.0;     /* (x + iy)^m */
  double sum = 0.0;
  for (int m = 0; m <= lmax; ++m) {
    if (m > 0) {
      qmm = legendre_diagonal_step(m, qmm);
      double t = re * u[0] - im * u[1];
      im = im * u[0] + re * u[1];
      re = t;
    }
    legendre_column(lmax, m, u[2], qmm, q);
    sum += order_sum(lmax, m, q, re, im, coeffs);
  }
  *value = sum;
  return TP_SUCCESS;
}

/* ---- conversion to a symmetric tensor ------------------------------------- */
/* With r^2 = x^2 + y^2 + z^2 and |m| = k, Rodrigues' formula gives
 *   r^l P_l^k(z/r) e^{ik phi} = (-1)^k (x + iy)^k r^{l-k} P_l^{(k)}(z/r),
 *   2^l P_l^{(k)}(t) = sum_j (-1)^j C(l, j) C(2l-2j, l) (l-2j)!/(l-2j-k)! t^{l-2j-k},
 * and r^{l-k} t^{l-2j-k} = z^{l-2j-k} (r^2)^j. Multiplied by (r^2)^{(L-l)/2}, every
 * basis function becomes a homogeneous polynomial of degree L with integer
 * coefficients (below 2^88 for L <= 16, exact in __int128) times one real scale. */

typedef __int128 sh_int;

static sh_int binomial(int n, int k) {
  sh_int r = 1;
  for (int i = 1; i <= k; ++i)
    r = r * (n - k + i) / i;
  return r;
}

static sh_int falling_factorial(int n, int k) {
  sh_int r = 1;
  for (int i = 0; i < k; ++i)
    r *= n - i;
  return r;
}

/* Position of the class x^a y^b z^c (a + b + c = order) in lexicographic order of
 * index representations: larger a first, then larger b. */
static int class_position(int order, int a, int b) {
  return (order - a) * (order - a + 1) / 2 + (order - a - b);
}

/* Homogeneous polynomial of degree L, coefficient of x^a y^b z^(L-a-b) at a*(L+1)+b. */
typedef struct sh_poly {
  int order;
  sh_int coef[(SH_MAX_L + 1) * (SH_MAX_L + 1)];
} sh_poly;

/* Adds c x^a y^b (r^2)^p times the power of z that makes the degree L, expanding
 * (r^2)^p by the trinomial theorem. */
static void poly_add_term(sh_poly *poly, sh_int c, int a, int b, int p) {
  for (int i = 0; i <= p; ++i)
    for (int j = 0; i + j <= p; ++j) {
      sh_int mult = binomial(p, i) * binomial(p - i, j);
      poly->coef[(a + 2 * i) * (poly->order + 1) + b + 2 * j] += c * mult;
    }
}

/* r^L Y(l, m) over basis_scale(l, m), an integer polynomial: the Re (m >= 0) or
 * Im (m < 0) part of (x + iy)^|m| times 2^l r^(l-|m|) P_l^(|m|)(z/r) times r^(L-l). */
static void basis_polynomial(int order, int l, int m, sh_poly *poly) {
  int k = abs(m);
  for (int i = 0; i < (SH_MAX_L + 1) * (SH_MAX_L + 1); ++i)
    poly->coef[i] = 0;
  poly->order = order;
  for (int j = 0; 2 * j <= l - k; ++j) {
    sh_int leg = binomial(l, j) * binomial(2 * l - 2 * j, l) * falling_factorial(l - 2 * j, k);
    if (j & 1)
      leg = -leg;
    /* i^t from (iy)^t: real for even t (m >= 0), imaginary for odd t (m < 0). */
    for (int t = m < 0 ? 1 : 0; t <= k; t += 2) {
      sh_int c = leg * binomial(k, t);
      if ((t / 2) & 1)
        c = -c;
      poly_add_term(poly, c, k - t, t, j + (order - l) / 2);
    }
  }
}

/* The real factor that turns basis_polynomial into r^L Y(l, m):
 * (-1)^k 2^-l N_l^k, times sqrt(2) for m != 0. */
static double basis_scale(int l, int m) {
  int k = abs(m);
  double ratio = 1.0; /* (l-k)! / (l+k)! */
  for (int i = l - k + 1; i <= l + k; ++i)
    ratio /= i;
  double s = sqrt((2.0 * l + 1.0) / (4.0 * M_PI) * ratio) * ldexp(1.0, -l);
  if (k & 1)
    s = -s;
  return m == 0 ? s : M_SQRT2 * s;
}

/* Column col = sh_index(l, m) of the U x U map (row-major): the unique values of the
 * tensor whose form is r^L Y(l, m), i.e. polynomial coefficients over multinomials. */
static void fill_column(int order, int l, int m, sh_poly *poly, double *map) {
  int u = tp_sh_count(order), col = sh_index(l, m);
  double scale = basis_scale(l, m), ford = tpi_sym_factorial(order);
  basis_polynomial(order, l, m, poly);
  for (int a = 0; a <= order; ++a)
    for (int b = 0; a + b <= order; ++b) {
      double mult =
          ford / (tpi_sym_factorial(a) * tpi_sym_factorial(b) * tpi_sym_factorial(order - a - b));
      double c = (double)poly->coef[a * (order + 1) + b];
      map[class_position(order, a, b) * u + col] = scale * c / mult;
    }
}

/* The map from SH coefficients to unique tensor values for degree L (u x u). */
static tp_status build_map(int order, double **map_out) {
  int u = tp_sh_count(order);
  double *map = (double *)malloc(sizeof(double) * (size_t)u * (size_t)u);
  sh_poly *poly = (sh_poly *)malloc(sizeof *poly);
  if (!map || !poly) {
    free(map), free(poly);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for the %d x %d SH-to-tensor map", u, u);
  }
  for (int l = 0; l <= order; l += 2)
    for (int m = -l; m <= l; ++m)
      fill_column(order, l, m, poly, map);
  free(poly);
  *map_out = map;
  return TP_SUCCESS;
}

tp_status tp_sh_to_sym_f64(int lmax, int64_t num_voxels, const double *sh, double *tensors) {
  TP_TRY(check_lmax(lmax));
  TP_CHECK_ARG(num_voxels >= 0, "num_voxels = %lld: must not be negative", (long long)num_voxels);
  if (num_voxels == 0)
    return TP_SUCCESS;
  TP_CHECK_ARG(sh && tensors, "sh or tensors is NULL");
  const int64_t u = tp_sh_count(lmax); /* C(L+2, 2): as many unique values as SH terms */
  if (num_voxels > INT64_MAX / u)
    return TP_ERROR(TP_ERROR_OVERFLOW, "%lld voxels x %lld coefficients overflow int64",
                    (long long)num_voxels, (long long)u);
  TP_TRY(tp_check_finite_f64(sh, num_voxels * u, "SH coefficients"));
  double *map = NULL;
  TP_TRY(build_map(lmax, &map));
TP_HOST_OMP(omp parallel for schedule(static))
for (int64_t v = 0; v < num_voxels; ++v) {
  const double *in = sh + v * u;
  double *out = tensors + v * u;
  for (int64_t j = 0; j < u; ++j) {
    double s = 0.0;
    for (int64_t i = 0; i < u; ++i)
      s += map[j * u + i] * in[i];
    out[j] = s;
  }
}
free(map);
return TP_SUCCESS;
}
