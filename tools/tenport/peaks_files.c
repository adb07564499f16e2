/* tenport peaks' files: the shape an input must have (voxels x the coefficients of an
 * even lmax, with room in a .npy for the outputs' two more dimensions), and the outputs'
 * names, added to the set before the work, then written into it. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/peaks_cli.h"

/* lmax from the coefficient count (0 if none fits). */
static int lmax_from_count(int64_t count) {
  for (int l = 2; l <= 16; l += 2)
    if (tp_sh_count(l) == count)
      return l;
  return 0;
}

int tenport_peaks_lmax(const peaks_cli *c, const char *name, int64_t count, int *lmax, int loud) {
  *lmax = c->lmax ? c->lmax : lmax_from_count(count);
  if (*lmax != 0 && tp_sh_count(*lmax) == count)
    return 0;
  if (!loud)
    return 1;
  if (c->lmax)
    fprintf(stderr, "tenport peaks: %s has %lld coefficients per voxel; lmax %d needs %d\n", name,
            (long long)count, c->lmax, tp_sh_count(c->lmax));
  else
    fprintf(stderr,
            "tenport peaks: %s has %lld coefficients per voxel, not (L+1)(L+2)/2 "
            "for an even L in 2..16\n",
            name, (long long)count);
  return 1;
}

int tenport_peaks_shape(const peaks_cli *c, const char *name, int ndim, const int64_t *shape,
                        peaks_result *r, int *lmax, int loud) {
  if (ndim < 1) {
    if (loud)
      fprintf(stderr, "tenport peaks: %s holds a scalar; expected voxels x coefficients\n", name);
    return 1;
  }
  if (tenport_peaks_lmax(c, name, shape[ndim - 1], lmax, loud))
    return 1;
  r->lead_ndim = ndim - 1;
  r->voxels = 1;
  for (int i = 0; i < r->lead_ndim; ++i) {
    r->lead[i] = shape[i];
    r->voxels *= shape[i];
  }
  return 0;
}

int tenport_peaks_check_ndim(const char *name, int ndim, int loud) {
  if (ndim + 1 <= TP_NPY_MAX_DIMS)
    return 0;
  if (loud)
    fprintf(stderr,
            "tenport peaks: %s has %d dimensions; the directions of its voxels would "
            "need %d, and a .npy file holds at most %d (voxel dimensions and coefficients: at "
            "most %d)\n",
            name, ndim, ndim + 1, TP_NPY_MAX_DIMS, TP_NPY_MAX_DIMS - 1);
  return 1;
}

int tenport_peaks_output_path(const char *prefix, const char *name, char *path, size_t cap) {
  if ((size_t)snprintf(path, cap, "%s_%s.npy", prefix, name) < cap)
    return 1;
  fprintf(stderr, "tenport peaks: --output '%s' is too long\n", prefix);
  return 0;
}

/* Adds the output files to the set before any work (the phantom's own coefficients
 * too, with the example). */
int tenport_peaks_reserve(const peaks_cli *c, tp_output_set *set) {
  static const char *const names[4] = {"directions", "amplitudes", "counts", "sh"};
  char path[4096];
  for (int k = 0; k < (c->example ? 4 : 3); ++k)
    if (!tenport_peaks_output_path(c->output, names[k], path, sizeof path) ||
        tenport_outputs_add("peaks", set, path))
      return 1;
  return 0;
}

/* Writes PREFIX_name.npy into the set with the leading shape followed by tail
 * dimensions; reports failures. */
int tenport_peaks_write_array(tp_output_set *set, const char *prefix, const char *name,
                              const peaks_result *r, int tail_ndim, const int64_t *tail,
                              tp_dtype dtype, const void *data) {
  int64_t shape[TP_NPY_MAX_DIMS + 2];
  char path[4096];
  memcpy(shape, r->lead, sizeof(int64_t) * (size_t)r->lead_ndim);
  for (int i = 0; i < tail_ndim; ++i)
    shape[r->lead_ndim + i] = tail[i];
  if (!tenport_peaks_output_path(prefix, name, path, sizeof path))
    return 0;
  if (tp_npy_write_to(set, path, dtype, r->lead_ndim + tail_ndim, shape, 0, data) != TP_SUCCESS) {
    tenport_fail("peaks", "out of host memory");
    return 0;
  }
  return 1;
}

int tenport_peaks_write_result(tp_output_set *set, const char *prefix, const peaks_result *r,
                               int k) {
  const int64_t dir_tail[2] = {k, 3}, amp_tail[1] = {k};
  return tenport_peaks_write_array(set, prefix, "directions", r, 2, dir_tail, TP_DTYPE_F64,
                                   r->dir) &&
         tenport_peaks_write_array(set, prefix, "amplitudes", r, 1, amp_tail, TP_DTYPE_F64,
                                   r->amp) &&
         tenport_peaks_write_array(set, prefix, "counts", r, 0, NULL, TP_DTYPE_I32, r->count);
}
