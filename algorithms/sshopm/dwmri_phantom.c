/* The crossing-fiber phantom of tp_dwmri_phantom (include/tenport/dwmri.h): each voxel
 * draws a random orthonormal frame (Gaussian vectors, Gram-Schmidt), places its region's
 * fibers in it, adds w (d . x)^L for each by Funk-Hecke, and noise; the random numbers
 * come from one splitmix64 stream in voxel order, so the phantom is the same everywhere. */
#include <math.h>
#include <string.h>

#include "tenport/dwmri.h"
#include "portable/tp_error.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { PHANTOM_MAX_COEFFS = 153 }; /* tp_sh_count(16) */

/* Fiber configurations, one per quadrant of the slice. */
typedef struct phantom_region {
  int fibers;
  double angle_deg; /* between the first two fibers; a third is normal to both */
  double w[3];
} phantom_region;

static const phantom_region regions[4] = {
    {1, 0, {1, 0, 0}}, {2, 90, {1, 0.8, 0}}, {2, 60, {1, 1, 0}}, {3, 90, {1, 0.8, 0.6}}};

int tp_dwmri_phantom_region(int nx, int ny, int64_t v) {
  int64_t x = v / ny, y = v % ny;
  return (x >= nx / 2) + 2 * (y >= ny / 2);
}

static uint64_t next_u64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double uniform(uint64_t *state) {
  return ((double)(next_u64(state) >> 11) + 0.5) * 0x1.0p-53;
}

static double gaussian(uint64_t *state) {
  return sqrt(-2.0 * log(uniform(state))) * cos(2.0 * M_PI * uniform(state));
}

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* A random orthonormal frame (e0 uniform on the sphere). */
static void random_frame(uint64_t *state, double e[3][3]) {
  for (int k = 0; k < 2; ++k) {
    double n;
    do {
      for (int i = 0; i < 3; ++i)
        e[k][i] = gaussian(state);
      if (k == 1) {
        double p = dot3(e[0], e[1]);
        for (int i = 0; i < 3; ++i)
          e[1][i] -= p * e[0][i];
      }
      n = sqrt(dot3(e[k], e[k]));
    } while (n < 1e-3);
    for (int i = 0; i < 3; ++i)
      e[k][i] /= n;
  }
  e[2][0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];
  e[2][1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
  e[2][2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
}

/* Funk-Hecke: (d . x)^L has coefficients 2 pi mu_l Y_lm(d), with
 * mu_l = int_{-1}^{1} t^L P_l(t) dt = 2^(l+1) L! ((L+l)/2)! / (((L-l)/2)! (L+l+1)!). */
static double funk_hecke_mu(int big_l, int l) {
  double f = ldexp(1.0, l + 1);
  for (int i = 2; i <= big_l; ++i)
    f *= i;
  for (int i = 2; i <= (big_l + l) / 2; ++i)
    f *= i;
  for (int i = 2; i <= (big_l - l) / 2; ++i)
    f /= i;
  for (int i = 2; i <= big_l + l + 1; ++i)
    f /= i;
  return f;
}

/* Adds w (d . x)^lmax to the coefficients c. */
static tp_status add_fiber(int lmax, const double *d, double w, double *c) {
  double unit[PHANTOM_MAX_COEFFS] = {0}, y;
  for (int l = 0, j = 0; l <= lmax; l += 2)
    for (int m = -l; m <= l; ++m, ++j) {
      unit[j] = 1.0;
      tp_status st = tp_sh_eval_f64(lmax, unit, d, &y);
      unit[j] = 0.0;
      TP_TRY(st);
      c[j] += w * 2.0 * M_PI * funk_hecke_mu(lmax, l) * y;
    }
  return TP_SUCCESS;
}

/* One voxel: its region's fibers in a random frame, plus Gaussian noise. */
static tp_status voxel(uint64_t *state, int lmax, double noise, const phantom_region *g,
                       double *truth, double *c) {
  const int coeffs = tp_sh_count(lmax);
  double e[3][3], a = g->angle_deg * M_PI / 180.0;
  random_frame(state, e);
  memset(c, 0, sizeof(double) * (size_t)coeffs);
  memset(truth, 0, sizeof(double) * 9);
  for (int f = 0; f < g->fibers; ++f) {
    double *d = truth + 3 * f;
    for (int i = 0; i < 3; ++i)
      d[i] = f == 0 ? e[0][i] : f == 1 ? cos(a) * e[0][i] + sin(a) * e[1][i] : e[2][i];
    TP_TRY(add_fiber(lmax, d, g->w[f], c));
  }
  for (int j = 0; j < coeffs; ++j)
    c[j] += noise * gaussian(state);
  return TP_SUCCESS;
}

tp_status tp_dwmri_phantom(int nx, int ny, int lmax, double noise, uint64_t seed, double *sh,
                           double *truth, int *fibers) {
  TP_CHECK_ARG(sh && truth, "sh and truth must not be NULL");
  TP_CHECK_ARG(nx >= 2 && ny >= 2 && nx % 2 == 0 && ny % 2 == 0,
               "the slice is %d x %d: both sizes must be even and at least 2", nx, ny);
  TP_CHECK_ARG(lmax >= 2 && lmax <= 16 && lmax % 2 == 0, "lmax %d is not even in [2, 16]", lmax);
  TP_CHECK_ARG(isfinite(noise) && noise >= 0, "noise %g must be finite and >= 0", noise);
  const int64_t voxels = (int64_t)nx * ny, coeffs = tp_sh_count(lmax);
  uint64_t state = seed;
  for (int64_t v = 0; v < voxels; ++v) {
    const phantom_region *g = &regions[tp_dwmri_phantom_region(nx, ny, v)];
    TP_TRY(voxel(&state, lmax, noise, g, truth + v * 9, sh + v * coeffs));
    if (fibers)
      fibers[v] = g->fibers;
  }
  return TP_SUCCESS;
}
