/* Other tools' real symmetric SH bases to MRtrix3's (tenport/dwmri.h gives each
 * definition). Every one differs from MRtrix3's only in which of the pair (l, +m),
 * (l, -m) holds the cosine term and in the sign (-1)^m of one of them, so a conversion
 * swaps each pair and flips signs:
 *   basis            MRtrix3 (l, +m)          MRtrix3 (l, -m)
 *   dipy             c(l, -m)                 c(l, +m)
 *   dipy-nonlegacy   (-1)^m c(l, -m)          c(l, +m)
 *   fsl              c(l, -m)                 (-1)^m c(l, +m)
 * as DIPY's convert_sh_descoteaux_tournier and convert_sh_from_legacy, and FSL qboot's
 * fill_SH_matrix, define them. */
#include "tenport/dwmri.h"
#include "portable/tp_error.h"

const char *tp_sh_basis_name(tp_sh_basis basis) {
  switch (basis) {
  case TP_SH_MRTRIX: return "mrtrix";
  case TP_SH_DIPY: return "dipy";
  case TP_SH_DIPY_NONLEGACY: return "dipy-nonlegacy";
  case TP_SH_FSL: return "fsl";
  }
  return "unknown";
}

/* One voxel's coefficients, each pair (l, +m), (l, -m) swapped, signs as the table says. */
static void voxel_to_mrtrix(tp_sh_basis basis, int lmax, double *c) {
  for (int l = 2; l <= lmax; l += 2) {
    int centre = l * (l + 1) / 2;
    for (int m = 1; m <= l; ++m) {
      double odd = m % 2 ? -1.0 : 1.0;
      double plus = c[centre + m], minus = c[centre - m];
      c[centre + m] = basis == TP_SH_DIPY_NONLEGACY ? odd * minus : minus;
      c[centre - m] = basis == TP_SH_FSL ? odd * plus : plus;
    }
  }
}

tp_status tp_sh_to_mrtrix(tp_sh_basis basis, int lmax, int64_t num_voxels, double *sh) {
  TP_CHECK_ARG(basis >= TP_SH_MRTRIX && basis <= TP_SH_FSL, "basis %d is not a tp_sh_basis",
               (int)basis);
  int count = tp_sh_count(lmax);
  TP_CHECK_ARG(count > 0, "lmax = %d: must be even and in [0, 16]", lmax);
  TP_CHECK_ARG(num_voxels >= 0, "num_voxels = %lld is negative", (long long)num_voxels);
  TP_CHECK_ARG(sh || num_voxels == 0, "sh is NULL");
  if (basis == TP_SH_MRTRIX)
    return TP_SUCCESS;
  for (int64_t v = 0; v < num_voxels; ++v)
    voxel_to_mrtrix(basis, lmax, sh + v * count);
  return TP_SUCCESS;
}
