/* tenport peaks' computation, for the single-process and distributed runs alike: the
 * peaks of a set of voxels, counting those with non-finite coefficients. */
#include <math.h>
#include <stdlib.h>

#include "tools/tenport/peaks_cli.h"

void tenport_peaks_free(peaks_result *r) {
  free(r->dir), free(r->amp), free(r->count);
  r->dir = r->amp = NULL, r->count = NULL;
}

tp_status tenport_peaks_compute(tp_space *s, const peaks_cli *c, int lmax, const double *sh,
                                peaks_result *r) {
  size_t v = (size_t)(r->voxels ? r->voxels : 1), k = (size_t)c->opt.max_peaks;
  int64_t coeffs = tp_sh_count(lmax);
  r->dir = (double *)malloc(sizeof(double) * v * k * 3);
  r->amp = (double *)malloc(sizeof(double) * v * k);
  r->count = (int32_t *)malloc(sizeof(int32_t) * v);
  if (!r->dir || !r->amp || !r->count) {
    tp_clear_error();
    return TP_ERROR_OUT_OF_MEMORY;
  }
  r->nonfinite = 0;
  for (int64_t i = 0; i < r->voxels; ++i)
    for (int64_t j = 0; j < coeffs; ++j)
      if (!isfinite(sh[i * coeffs + j])) {
        ++r->nonfinite;
        break;
      }
  double t0 = tenport_seconds();
  tp_status st = tp_fiber_peaks(s, lmax, r->voxels, sh, &c->opt, r->dir, r->amp, r->count);
  r->seconds = tenport_seconds() - t0;
  return st;
}
