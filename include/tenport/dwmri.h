/* Diffusion MRI: fiber orientation functions given as real symmetric spherical
 * harmonics, their symmetric-tensor form, and fiber peaks found by SS-HOPM.
 *
 * Spherical harmonics follow MRtrix3: even degrees l = 0, 2, ..., L only, an
 * orthonormal real basis that includes the Condon-Shortley phase, and coefficient
 * (l, m), -l <= m <= l, stored at index l(l+1)/2 + m. Directions are unit vectors
 * (x, y, z) with polar angle measured from z and azimuth from x towards y. */
#ifndef TENPORT_DWMRI_H
#define TENPORT_DWMRI_H

#include <stdint.h>

#include "tenport/export.h"
#include "tenport/space.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of coefficients up to even degree lmax: (L+1)(L+2)/2; -1 if lmax is odd,
 * negative or above 16. */
TP_API int tp_sh_count(int lmax);

/* Value of the SH series at a direction (host). The direction is scaled to unit
 * length, so it must be finite (else TP_ERROR_NUMERICAL) and non-zero; non-finite
 * coefficients fail with TP_ERROR_NUMERICAL. */
TP_API tp_status tp_sh_eval_f64(int lmax, const double *coeffs, const double direction[3],
                                double *value);

/* Symmetric tensors of order L and dimension 3 (unique values, lexicographic order,
 * see symtensor.h) whose form A x^L equals each voxel's SH series on the unit
 * sphere; a degree l < L enters multiplied by |x|^(L-l). sh is voxels x
 * tp_sh_count(L), tensors is voxels x C(L+2, 2), the same count (host). For L = 0
 * the tensor is the single value c(0, 0) / sqrt(4 pi). */
TP_API tp_status tp_sh_to_sym_f64(int lmax, int64_t num_voxels, const double *sh, double *tensors);

/* ---- other spherical-harmonic conventions ------------------------------------- */

/* The real symmetric SH bases of other tools, each converted to the one above by a
 * permutation and signs of the coefficients, per (l, m). With Y_l^m the complex
 * orthonormal harmonic including the Condon-Shortley phase,
 * Y_l^m = (-1)^m sqrt((2l+1)/(4 pi) (l-m)!/(l+m)!) P_l^m(cos theta) e^{i m phi},
 * P_l^m without the phase, every basis stores even l only, coefficient (l, m) at
 * l(l+1)/2 + m, m = -l..l, theta from z and phi from x towards y; for m > 0:
 *  - MRtrix3 (DIPY's tournier07, legacy=False): sqrt(2) Re Y_l^m at +m, sqrt(2) Im Y_l^m
 *    at -m;
 *  - DIPY's descoteaux07, legacy=True (DIPY's default): sqrt(2) Im Y_l^m at +m,
 *    sqrt(2) Re Y_l^m at -m: MRtrix3's with +m and -m swapped;
 *  - DIPY's descoteaux07, legacy=False (the basis of Descoteaux et al. 2007):
 *    sqrt(2) Im Y_l^m at +m, sqrt(2) Re Y_l^{-m} = (-1)^m sqrt(2) Re Y_l^m at -m;
 *  - FSL (qboot's ODF coefficients): sqrt(2) (-1)^m Im Y_l^m at +m (the phase taken
 *    out), sqrt(2) Re Y_l^m at -m.
 * m = 0 is Y_l^0 in all of them. */
typedef enum tp_sh_basis {
  TP_SH_MRTRIX = 0,         /* MRtrix3's, the one tenport computes in */
  TP_SH_DIPY = 1,           /* DIPY's descoteaux07, legacy=True */
  TP_SH_DIPY_NONLEGACY = 2, /* DIPY's descoteaux07, legacy=False */
  TP_SH_FSL = 3             /* FSL qboot's */
} tp_sh_basis;

/* "mrtrix", "dipy", "dipy-nonlegacy", "fsl"; "unknown" outside the enum. */
TP_API const char *tp_sh_basis_name(tp_sh_basis basis);

/* Converts num_voxels rows of tp_sh_count(lmax) coefficients in basis to MRtrix3's, in
 * place (host); the series' values on the sphere stay the same. Errors:
 * TP_ERROR_INVALID_ARGUMENT for a basis outside the enum, an odd lmax or one outside
 * [0, 16], num_voxels < 0 or sh NULL. */
TP_API tp_status tp_sh_to_mrtrix(tp_sh_basis basis, int lmax, int64_t num_voxels, double *sh);

/* ---- fiber peaks -------------------------------------------------------------- */

/* Options of tp_fiber_peaks. SS-HOPM runs on each voxel's tensor divided by its
 * Frobenius norm s (see tenport/sshopm.h), so tol and tau are relative to s and the
 * peaks of c f are those of f, amplitudes times c, for every c > 0. */
typedef struct tp_peaks_options {
  int max_peaks;        /* k: peaks kept per voxel; default 3 */
  int num_starts;       /* SS-HOPM starting vectors, the same for every voxel; default 64 */
  uint64_t seed;        /* of the starting vectors; default 1 */
  int single_precision; /* 1: SS-HOPM in f32 (default); 0: in f64 */
  double tol;           /* on |delta lambda|; 0 (default): 1e-6 in f32, 1e-12 in f64 */
  double xtol;          /* on |delta x|; 0 (default): 1e-4 in f32, 1e-8 in f64 */
  int max_iterations;   /* per start; default 500 */
  double min_amplitude; /* keep maxima with amplitude >= min_amplitude times the voxel's
                           largest, in [0, 1]; default 0.1 (0 keeps every positive one) */
  double tau;           /* margin of the adaptive convex shift; default 1e-6 */
  double threshold;     /* keep maxima with amplitude >= threshold (absolute, in the
                           function's units, as MRtrix3's sh2peaks -threshold); default 0
                           (every positive one); finite */
} tp_peaks_options;

TP_API void tp_peaks_options_init(tp_peaks_options *options);

/* Fiber peaks: the local maxima of each voxel's SH series (even lmax in [2, 16]) with
 * a positive value, found by SS-HOPM with the adaptive convex shift on the symmetric
 * tensor of order lmax (tp_sh_to_sym_f64) and tp_sshopm_eigenpairs_f64.
 *
 * sh is voxels x tp_sh_count(lmax) on the host. For each voxel v, up to k = max_peaks
 * maxima with amplitude >= min_amplitude times the largest and >= threshold, by
 * decreasing amplitude:
 * directions[v][j] (voxels x k x 3, unit vectors; x and -x are the same direction and
 * the one with its largest |entry| positive is reported), amplitudes[v][j] (voxels x k,
 * the series' value there) and counts[v]; unused slots are NaN. Outputs are on the
 * host. SS-HOPM runs in the space in batches of at most 2^16 voxels (fewer when the
 * space's memory is small). An amplitude beyond the range of double is +inf.
 *
 * A voxel with a non-finite coefficient (NaN, +-inf) or with all coefficients zero gets
 * no peaks: counts[v] = 0 and NaN in all its slots, and the other voxels are computed
 * as usual. counts[v] = 0 also means that the function has no positive maximum (or
 * none that SS-HOPM reached); a caller that reports the skipped voxels tells them
 * apart by their rows of sh (not all finite, or all zero).
 *
 * Errors: TP_ERROR_INVALID_ARGUMENT for NULL pointers, an odd lmax or one outside
 * [2, 16], num_voxels < 0 or bad options (k < 1, no starts, negative or non-finite
 * tolerances, min_amplitude outside [0, 1], a threshold that is not finite);
 * TP_ERROR_OUT_OF_MEMORY; the solver's
 * errors. */
TP_API tp_status tp_fiber_peaks(tp_space *space, int lmax, int64_t num_voxels, const double *sh,
                                const tp_peaks_options *options, double *directions,
                                double *amplitudes, int32_t *counts);

/* ---- a phantom of crossing fibers (examples and tests) ------------------------------ */

/* An nx x ny slice (both even) whose four quadrants (region 0: x < nx/2, y < ny/2;
 * 1: x >= nx/2; 2: y >= ny/2; 3: both) hold one fiber, two at 90 degrees, two at 60
 * degrees and three at 90 degrees to each other, with weights 1; 1, 0.8; 1, 1; 1, 0.8,
 * 0.6, in a random orientation in every voxel. A voxel's function is
 * sum_i w_i (d_i . x)^lmax, written in MRtrix3's basis of degree lmax (Funk-Hecke: its
 * coefficients are 2 pi mu_l w_i Y_lm(d_i)), plus Gaussian noise of standard deviation
 * `noise` on every coefficient; one fiber's peak is 1. The same seed gives the same
 * phantom on every platform. Voxel v lies at x = v / ny, y = v % ny. Host arrays:
 * sh (voxels x tp_sh_count(lmax)), truth (voxels x 3 x 3 fiber directions, unit
 * vectors, zero rows past the voxel's fibers) and fibers (voxels; may be NULL).
 * Errors: TP_ERROR_INVALID_ARGUMENT for NULL pointers, an odd or non-positive nx or ny,
 * lmax not even in [2, 16], or noise negative or not finite. */
TP_API tp_status tp_dwmri_phantom(int nx, int ny, int lmax, double noise, uint64_t seed, double *sh,
                                  double *truth, int *fibers);

/* The region (0..3, as above) of voxel v of the nx x ny phantom. */
TP_API int tp_dwmri_phantom_region(int nx, int ny, int64_t v);

#ifdef __cplusplus
}
#endif
#endif
