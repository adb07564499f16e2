/* tenport peaks --example: a synthetic diffusion-MRI phantom with known fibers, its peaks
 * found and scored against them; make (the phantom) -> run -> write -> report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/peaks_cli.h"

static int fail(void) { return tenport_fail("peaks", "out of host memory"); }

#define PH_SIZE 16
#define PH_LMAX 8
#define PH_COEFFS 45 /* tp_sh_count(8) */
#define PH_NOISE 0.005
#define PH_SEED 20240607

/* The phantom's regions (tp_dwmri_phantom_region), as the report names them. */
static const char *const ph_region_names[4] = {"one fiber", "two at 90 deg", "two at 60 deg",
                                               "three at 90 deg"};

static int ph_region_of(int64_t v) { return tp_dwmri_phantom_region(PH_SIZE, PH_SIZE, v); }

static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Angle between two axes in degrees (x and -x are one fiber). */
static double axis_angle(const double *a, const double *b) {
  double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  return atan2(sqrt(dot3(c, c)), fabs(dot3(a, b))) * 180.0 / M_PI;
}

typedef struct ph_stats {
  int64_t voxels, right_count, hist[4];
  double sum_err, max_err;
  int64_t matched;
  int fibers;
} ph_stats;

/* Each true fiber against its nearest peak. */
static void ph_score(const peaks_result *r, int k, const double *truth, const int *fibers,
                     ph_stats *st) {
  memset(st, 0, 4 * sizeof *st);
  for (int64_t v = 0; v < r->voxels; ++v) {
    ph_stats *s = &st[ph_region_of(v)];
    int n = r->count[v];
    s->voxels++, s->fibers = fibers[v];
    s->right_count += n == fibers[v];
    s->hist[n < 3 ? n : 3]++;
    for (int f = 0; f < fibers[v] && n > 0; ++f) {
      double best = 180;
      for (int j = 0; j < n; ++j)
        best = fmin(best, axis_angle(truth + (v * 3 + f) * 3, r->dir + (v * k + j) * 3));
      s->sum_err += best;
      s->max_err = fmax(s->max_err, best);
      s->matched++;
    }
  }
}

/* Prints the table; returns 1 if every voxel has its fibers' count and the mean
 * (max) angular error stays below 1 (5) degrees. */
static int ph_report(const ph_stats *st) {
  int ok = 1;
  printf("%-16s %6s %6s %11s %17s %12s %10s\n", "region", "voxels", "fibers", "right count",
         "peaks 0/1/2/3+", "mean error", "max error");
  for (int g = 0; g < 4; ++g) {
    const ph_stats *s = &st[g];
    double mean = s->matched ? s->sum_err / (double)s->matched : NAN;
    char hist[64];
    snprintf(hist, sizeof hist, "%lld/%lld/%lld/%lld", (long long)s->hist[0], (long long)s->hist[1],
             (long long)s->hist[2], (long long)s->hist[3]);
    printf("%-16s %6lld %6d %5lld/%-5lld %17s %8.3f deg %6.3f deg\n", ph_region_names[g],
           (long long)s->voxels, s->fibers, (long long)s->right_count, (long long)s->voxels, hist,
           mean, s->max_err);
    ok = ok && s->right_count == s->voxels && mean < 1.0 && s->max_err < 5.0;
  }
  return ok;
}

static int run_phantom(tp_space *s, const peaks_cli *c, tp_output_set *set) {
  const int64_t voxels = PH_SIZE * PH_SIZE;
  peaks_result r;
  memset(&r, 0, sizeof r);
  r.lead_ndim = 3, r.lead[0] = r.lead[1] = PH_SIZE, r.lead[2] = 1, r.voxels = voxels;
  double *sh = (double *)malloc(sizeof(double) * (size_t)voxels * PH_COEFFS);
  double *truth = (double *)malloc(sizeof(double) * (size_t)voxels * 9);
  int *fibers = (int *)malloc(sizeof(int) * (size_t)voxels);
  int code = 0;
  if (!sh || !truth || !fibers) {
    free(sh), free(truth), free(fibers);
    tp_clear_error();
    return fail();
  }
  if (tp_dwmri_phantom(PH_SIZE, PH_SIZE, PH_LMAX, PH_NOISE, PH_SEED, sh, truth, fibers) !=
      TP_SUCCESS)
    code = fail();
  if (code == 0 && tenport_peaks_compute(s, c, PH_LMAX, sh, &r) != TP_SUCCESS)
    code = fail();
  const int64_t sh_tail[1] = {PH_COEFFS};
  if (code == 0 && set &&
      !(tenport_peaks_write_array(set, c->output, "sh", &r, 1, sh_tail, TP_DTYPE_F64, sh) &&
        tenport_peaks_write_result(set, c->output, &r, c->opt.max_peaks) &&
        tenport_outputs_commit("peaks", set) == 0))
    code = 1;
  if (code == 0) {
    ph_stats st[4];
    printf("phantom: %d x %d x 1 voxels, lmax %d, f = sum_i w_i (d_i . x)^%d per voxel in a "
           "random orientation, coefficient noise sd %g (the peak of one fiber is 1)\n",
           PH_SIZE, PH_SIZE, PH_LMAX, PH_LMAX, PH_NOISE);
    tenport_peaks_print_histogram(c, &r);
    ph_score(&r, c->opt.max_peaks, truth, fibers, st);
    int ok = ph_report(st);
    printf("(the maxima of two equal fibers at 60 deg lie 0.42 deg inside the fibers)\n");
    if (c->output_set)
      printf("wrote %s_sh.npy and the peaks\n", c->output);
    printf("check: %s\n", ok ? "passed" : "FAILED");
    code = ok ? 0 : 1;
  }
  tenport_peaks_free(&r);
  free(sh), free(truth), free(fibers);
  return code;
}

/* The phantom; with --output its files go to a set made before the work. */
int tenport_peaks_example(tp_space *s, const peaks_cli *c) {
  tp_output_set *set = NULL;
  int code = 0;
  if (c->output_set)
    code = tenport_outputs_begin("peaks", &set, NULL, NULL, 0);
  if (code == 0 && c->output_set)
    code = tenport_peaks_reserve(c, set);
  if (code == 0)
    code = run_phantom(s, c, set);
  tp_output_set_destroy(&set);
  return code;
}
