/* tenport peaks' summary, the same in the single-process and distributed runs: the
 * input's voxels, the histogram of peaks per voxel and the time. */
#include <stdio.h>
#include <stdlib.h>

#include "tools/tenport/peaks_cli.h"

static void print_shape(const int64_t *shape, int ndim) {
  for (int i = 0; i < ndim; ++i)
    printf("%s%lld", i ? " x " : "", (long long)shape[i]);
}

void tenport_peaks_print_input(const char *name, const peaks_result *r, int lmax) {
  printf("%s: ", name);
  if (r->lead_ndim == 0) {
    printf("one voxel");
  } else {
    printf("%lld voxels (", (long long)r->voxels);
    print_shape(r->lead, r->lead_ndim);
    printf(")");
  }
  printf(", lmax %d\n", lmax);
}

void tenport_peaks_histogram(const peaks_cli *c, const peaks_result *r, int64_t *hist) {
  for (int j = 0; j <= c->opt.max_peaks; ++j)
    hist[j] = 0;
  for (int64_t v = 0; v < r->voxels; ++v)
    if (r->count[v] >= 0 && r->count[v] <= c->opt.max_peaks)
      hist[r->count[v]]++;
}

void tenport_peaks_print_summary(const peaks_cli *c, int64_t voxels, const int64_t *hist,
                                 int64_t nonfinite, double seconds) {
  printf("peaks per voxel:");
  for (int j = 0; j <= c->opt.max_peaks; ++j)
    printf("  %d: %lld", j, (long long)hist[j]);
  printf("\nnon-finite coefficients: %lld voxel%s (given no peaks)\n", (long long)nonfinite,
         nonfinite == 1 ? "" : "s");
  printf("time: %.3f s (%.3g voxels/s; %d starts, %s)\n", seconds,
         seconds > 0 ? (double)voxels / seconds : 0.0, c->opt.num_starts,
         c->opt.single_precision ? "f32" : "f64");
  tenport_summary_integer("voxels", (long long)voxels);
  tenport_summary_integer("nonfinite_voxels", (long long)nonfinite);
  for (int j = 0; j <= c->opt.max_peaks && j < 16; ++j) {
    char key[32];
    snprintf(key, sizeof key, "voxels_with_%d_peaks", j);
    tenport_summary_integer(key, (long long)hist[j]);
  }
  tenport_summary_phase("peaks", seconds);
}

/* Histogram of the counts and the timing. */
void tenport_peaks_print_histogram(const peaks_cli *c, const peaks_result *r) {
  int64_t *hist = (int64_t *)calloc((size_t)c->opt.max_peaks + 1, sizeof(int64_t));
  if (!hist) {
    printf("peaks per voxel: (no memory for the histogram)\n");
    return;
  }
  tenport_peaks_histogram(c, r, hist);
  tenport_peaks_print_summary(c, r->voxels, hist, r->nonfinite, r->seconds);
  free(hist);
}
