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

#include "tenport/space.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of coefficients up to even degree lmax: (L+1)(L+2)/2; -1 if lmax is odd,
 * negative or above 16. */
int tp_sh_count(int lmax);

/* Value of the SH series at a direction (host). The direction is scaled to unit
 * length, so it must be finite (else TP_ERROR_NUMERICAL) and non-zero; non-finite
 * coefficients fail with TP_ERROR_NUMERICAL. */
tp_status tp_sh_eval_f64(int lmax, const double *coeffs, const double direction[3],
                         double *value);

/* Symmetric tensors of order L and dimension 3 (unique values, lexicographic order,
 * see symtensor.h) whose form A x^L equals each voxel's SH series on the unit
 * sphere; a degree l < L enters multiplied by |x|^(L-l). sh is voxels x
 * tp_sh_count(L), tensors is voxels x C(L+2, 2), the same count (host). For L = 0
 * the tensor is the single value c(0, 0) / sqrt(4 pi). */
tp_status tp_sh_to_sym_f64(int lmax, int64_t num_voxels, const double *sh,
                           double *tensors);

#ifdef __cplusplus
}
#endif
#endif
