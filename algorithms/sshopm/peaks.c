/* Fiber peaks of DW-MRI orientation functions (host code): SH series to symmetric
 * tensors, batched SS-HOPM with the adaptive convex shift in the space, then per voxel
 * the distinct local maxima, filtered and ranked by amplitude.
 *
 * Each voxel's coefficients are divided by their largest |value| before they become a
 * tensor (so that the conversion cannot overflow), and the amplitudes are scaled back
 * at the end; the solver and tp_sshopm_eigenpairs_f64 take the tensor's own scale out.
 * A voxel with a non-finite coefficient or only zeros gets no peaks, and the solver
 * skips it (its tensor is NaN). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/dwmri.h"
#include "tenport/memory.h"
#include "tenport/sshopm.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"

#define PEAKS_MAX_BATCH ((int64_t)1 << 16)

void tp_peaks_options_init(tp_peaks_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->max_peaks = 3;
  o->num_starts = 64;
  o->seed = 1;
  o->single_precision = 1;
  o->tol = 0.0;
  o->xtol = 0.0;
  o->max_iterations = 500;
  o->min_amplitude = 0.1;
  o->tau = 1e-6;
  o->threshold = 0.0;
}

/* ---- validation ------------------------------------------------------------- */

static tp_status check_options(const tp_peaks_options *o) {
  TP_CHECK_ARG(o->max_peaks >= 1, "max_peaks = %d: must be >= 1", o->max_peaks);
  TP_CHECK_ARG(o->num_starts >= 1, "num_starts = %d: must be >= 1", o->num_starts);
  TP_CHECK_ARG(o->max_iterations >= 1, "max_iterations = %d: must be >= 1", o->max_iterations);
  TP_CHECK_ARG(isfinite(o->tol) && o->tol >= 0,
               "tol = %g: must be finite and >= 0 "
               "(0: the default for the precision)",
               o->tol);
  TP_CHECK_ARG(isfinite(o->xtol) && o->xtol >= 0,
               "xtol = %g: must be finite and >= 0 "
               "(0: the default for the precision)",
               o->xtol);
  TP_CHECK_ARG(isfinite(o->tau) && o->tau >= 0, "tau = %g: must be finite and >= 0", o->tau);
  TP_CHECK_ARG(o->min_amplitude >= 0 && o->min_amplitude <= 1,
               "min_amplitude = %g: must "
               "be in [0, 1]",
               o->min_amplitude);
  TP_CHECK_ARG(isfinite(o->threshold), "threshold = %g: must be finite", o->threshold);
  return TP_SUCCESS;
}

static tp_status check_arguments(tp_space *space, int lmax, int64_t num_voxels, const double *sh,
                                 const tp_peaks_options *o, const double *directions,
                                 const double *amplitudes, const int32_t *counts) {
  TP_CHECK_ARG(space && o, "space or options is NULL");
  TP_TRY(check_options(o));
  TP_CHECK_ARG(lmax >= 2 && tp_sh_count(lmax) > 0,
               "lmax = %d: fiber peaks need an even "
               "lmax in [2, 16] (the tensor order; SS-HOPM needs order >= 2)",
               lmax);
  TP_CHECK_ARG(num_voxels >= 0, "num_voxels = %lld is negative", (long long)num_voxels);
  if (num_voxels == 0)
    return TP_SUCCESS;
  TP_CHECK_ARG(sh && directions && amplitudes && counts,
               "sh, directions, amplitudes or counts is NULL");
  int64_t k = o->max_peaks, c = tp_sh_count(lmax);
  if (num_voxels > INT64_MAX / (3 * k) || num_voxels > INT64_MAX / c)
    return TP_ERROR(TP_ERROR_OVERFLOW, "%lld voxels: the array sizes overflow int64",
                    (long long)num_voxels);
  return TP_SUCCESS;
}

/* ---- the batch workspace ------------------------------------------------------ */

/* Settings and buffers shared by all batches: host (h_) and space (d_) arrays sized
 * for `batch` voxels. The solver's lambda and x come back in its precision. */
typedef struct peaks_run {
  tp_space *space;
  int lmax, unique, starts, single;
  int64_t batch;
  size_t es; /* bytes per solver value */
  tp_sshopm_options solver;
  const tp_peaks_options *opt;
  double *h_sh, *h_tensors, *h_scale, *h_starts;
  void *h_stage, *h_lambda, *h_x;
  int8_t *h_flag;
  void *d_tensors, *d_starts, *d_lambda, *d_x;
  int8_t *d_flag;
} peaks_run;

/* Voxels per batch: at most PEAKS_MAX_BATCH, and the space buffers within an eighth
 * of the memory the space reports. */
static int64_t batch_size(tp_space *space, const peaks_run *r, int64_t num_voxels) {
  size_t per_voxel = r->es * (size_t)r->unique + (size_t)r->starts * (4 * r->es + 1);
  int64_t b = num_voxels < PEAKS_MAX_BATCH ? num_voxels : PEAKS_MAX_BATCH;
  tp_space_info info;
  if (tp_space_get_info(space, &info) == TP_SUCCESS && info.memory_bytes > 0) {
    int64_t fit = (int64_t)(info.memory_bytes / 8 / per_voxel);
    if (fit < b)
      b = fit > 1 ? fit : 1;
  }
  return b;
}

static void solver_options(const tp_peaks_options *o, int single, tp_sshopm_options *s) {
  tp_sshopm_options_init(s);
  s->shift = TP_SHIFT_ADAPTIVE;
  s->concave = 0;
  s->tau = o->tau;
  s->tol = o->tol > 0 ? o->tol : (single ? 1e-6 : 1e-12);
  s->xtol = o->xtol > 0 ? o->xtol : (single ? 1e-4 : 1e-8);
  s->max_iterations = o->max_iterations;
  s->kernel = TP_SSHOPM_KERNEL_AUTO;
}

static void run_free(peaks_run *r) {
  free(r->h_sh), free(r->h_tensors), free(r->h_scale), free(r->h_starts), free(r->h_stage);
  free(r->h_lambda), free(r->h_x), free(r->h_flag);
  tp_free(r->space, r->d_tensors), tp_free(r->space, r->d_starts);
  tp_free(r->space, r->d_lambda), tp_free(r->space, r->d_x), tp_free(r->space, r->d_flag);
}

static tp_status alloc_host(peaks_run *r) {
  size_t b = (size_t)r->batch, u = (size_t)r->unique, v = (size_t)r->starts;
  r->h_sh = (double *)malloc(sizeof(double) * b * u);
  r->h_tensors = (double *)malloc(sizeof(double) * b * u);
  r->h_scale = (double *)malloc(sizeof(double) * b);
  r->h_starts = (double *)malloc(sizeof(double) * v * 3);
  r->h_stage = r->single ? malloc(sizeof(float) * (b * u > v * 3 ? b * u : v * 3)) : NULL;
  r->h_lambda = malloc(r->es * b * v);
  r->h_x = malloc(r->es * b * v * 3);
  r->h_flag = (int8_t *)malloc(b * v);
  if (!r->h_sh || !r->h_tensors || !r->h_scale || !r->h_starts || (r->single && !r->h_stage) ||
      !r->h_lambda || !r->h_x || !r->h_flag)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "no room on the host for a batch of %lld "
                    "voxels x %d starts",
                    (long long)r->batch, r->starts);
  return TP_SUCCESS;
}

static tp_status alloc_space(peaks_run *r) {
  size_t b = (size_t)r->batch, v = (size_t)r->starts;
  TP_TRY(tp_alloc(r->space, r->es * b * (size_t)r->unique, &r->d_tensors));
  TP_TRY(tp_alloc(r->space, r->es * v * 3, &r->d_starts));
  TP_TRY(tp_alloc(r->space, r->es * b * v, &r->d_lambda));
  TP_TRY(tp_alloc(r->space, r->es * b * v * 3, &r->d_x));
  return tp_alloc(r->space, b * v, (void **)&r->d_flag);
}

/* Copies count doubles to dst in the solver's precision (through h_stage for f32). */
static tp_status upload(peaks_run *r, void *dst, const double *src, int64_t count) {
  const void *from = src;
  if (r->single) {
    float *f = (float *)r->h_stage;
    for (int64_t i = 0; i < count; ++i)
      f[i] = (float)src[i];
    from = f;
  }
  return tp_copy_to_device(r->space, dst, from, r->es * (size_t)count);
}

static tp_status run_setup(peaks_run *r, tp_space *space, int lmax, int64_t num_voxels,
                           const tp_peaks_options *o) {
  memset(r, 0, sizeof *r);
  r->space = space, r->lmax = lmax, r->opt = o;
  r->unique = tp_sh_count(lmax);
  r->starts = o->num_starts;
  r->single = o->single_precision != 0;
  r->es = r->single ? sizeof(float) : sizeof(double);
  r->batch = batch_size(space, r, num_voxels);
  solver_options(o, r->single, &r->solver);
  TP_TRY(alloc_host(r));
  TP_TRY(alloc_space(r));
  TP_TRY(tp_sshopm_random_starts_f64(o->seed, 3, r->starts, r->h_starts));
  return upload(r, r->d_starts, r->h_starts, (int64_t)r->starts * 3);
}

/* ---- one batch ------------------------------------------------------------------- */

/* out = row / s, s the row's largest |value|; returns s, or 0 (and zeros in out) for
 * a row with a non-finite value or only zeros: a voxel without peaks. */
static double unit_row(int u, const double *row, double *out) {
  double s = 0.0;
  for (int j = 0; j < u; ++j) {
    if (!isfinite(row[j])) {
      s = 0.0;
      break;
    }
    s = fmax(s, fabs(row[j]));
  }
  for (int j = 0; j < u; ++j)
    out[j] = s > 0 ? row[j] / s : 0.0;
  return s;
}

/* Tensors of voxels [first, first + count) from their coefficients divided by
 * h_scale (0 for a voxel without peaks, whose tensor is NaN). */
static tp_status make_tensors(peaks_run *r, const double *sh, int64_t count) {
  const int u = r->unique;
  for (int64_t v = 0; v < count; ++v)
    r->h_scale[v] = unit_row(u, sh + v * u, r->h_sh + v * u);
  TP_TRY(tp_sh_to_sym_f64(r->lmax, count, r->h_sh, r->h_tensors));
  for (int64_t v = 0; v < count; ++v)
    if (r->h_scale[v] == 0)
      for (int j = 0; j < u; ++j)
        r->h_tensors[v * u + j] = NAN;
  return TP_SUCCESS;
}

static tp_status solve_batch(peaks_run *r, int64_t count) {
  tp_sshopm_problem p = {r->lmax, 3, count, r->starts};
  size_t runs = (size_t)count * (size_t)r->starts;
  TP_TRY(upload(r, r->d_tensors, r->h_tensors, count * r->unique));
  if (r->single) {
    tp_sshopm_out_f32 out = {(float *)r->d_lambda, (float *)r->d_x, r->d_flag, NULL};
    TP_TRY(tp_sshopm_f32(r->space, &p, (const float *)r->d_tensors, (const float *)r->d_starts,
                         &r->solver, &out));
  } else {
    tp_sshopm_out_f64 out = {(double *)r->d_lambda, (double *)r->d_x, r->d_flag, NULL};
    TP_TRY(tp_sshopm_f64(r->space, &p, (const double *)r->d_tensors, (const double *)r->d_starts,
                         &r->solver, &out));
  }
  TP_TRY(tp_copy_to_host(r->space, r->h_lambda, r->d_lambda, r->es * runs));
  TP_TRY(tp_copy_to_host(r->space, r->h_x, r->d_x, r->es * runs * 3));
  return tp_copy_to_host(r->space, r->h_flag, r->d_flag, runs);
}

/* ---- per-voxel post-processing ---------------------------------------------------- */

/* Per-thread scratch: one voxel's distinct converged runs in double (flags all
 * converged) and its eigenpairs. */
typedef struct voxel_work {
  double *lambda, *x;
  int8_t *flag;
  tp_eigenpairs pairs;
} voxel_work;

static void work_free(voxel_work *w) {
  free(w->lambda), free(w->x), free(w->flag);
  free(w->pairs.lambda), free(w->pairs.x), free(w->pairs.kind), free(w->pairs.starts);
}

static int work_alloc(voxel_work *w, int starts) {
  size_t v = (size_t)starts;
  memset(w, 0, sizeof *w);
  w->lambda = (double *)malloc(sizeof(double) * v);
  w->x = (double *)malloc(sizeof(double) * v * 3);
  w->flag = (int8_t *)calloc(v, 1); /* TP_SSHOPM_CONVERGED */
  w->pairs.lambda = (double *)malloc(sizeof(double) * v);
  w->pairs.x = (double *)malloc(sizeof(double) * v * 3);
  w->pairs.kind = (tp_eig_kind *)malloc(sizeof(tp_eig_kind) * v);
  w->pairs.starts = (int *)malloc(sizeof(int) * v);
  return w->lambda && w->x && w->flag && w->pairs.lambda && w->pairs.x && w->pairs.kind &&
         w->pairs.starts;
}

/* Run j of voxel i (first = i * V) as doubles. */
static void load_run(const peaks_run *r, size_t first, size_t j, double *lambda, double *x) {
  size_t at = first + j;
  if (r->single) {
    *lambda = ((const float *)r->h_lambda)[at];
    for (int d = 0; d < 3; ++d)
      x[d] = ((const float *)r->h_x)[3 * at + d];
  } else {
    *lambda = ((const double *)r->h_lambda)[at];
    memcpy(x, (const double *)r->h_x + 3 * at, 3 * sizeof(double));
  }
}

/* Whether run (lambda, x) repeats one of the kept runs: an axis within about 0.25
 * degrees and lambda within 1e-5 s (s: the tensor's Frobenius norm), ten times
 * tighter than tp_sshopm_eigenpairs_f64's default merging, so this only drops runs it
 * would merge anyway. */
static int repeats_kept(const voxel_work *w, int kept, double lambda, const double *x, double s) {
  for (int k = 0; k < kept; ++k) {
    const double *y = w->x + 3 * k;
    double dot = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    if (fabs(dot) >= 1.0 - 1e-5 && fabs(lambda - w->lambda[k]) <= 1e-5 * s)
      return 1;
  }
  return 0;
}

/* Frobenius norm of voxel i's tensor (finite: voxels without peaks never get here). */
static double tensor_norm(const peaks_run *r, int64_t i) {
  double big = 1.0, root = 1.0;
  tpi_sym_norm_parts_f64(r->lmax, 3, r->unique, r->h_tensors + i * r->unique, &big, &root);
  return big * root;
}

/* Voxel i's converged runs as doubles in w, repeats dropped (most of the V starts
 * reach the same few maxima, and the exact post-processing costs per run). Returns the
 * number kept. */
static int gather_runs(const peaks_run *r, int64_t i, voxel_work *w) {
  const size_t first = (size_t)i * (size_t)r->starts;
  const double s = tensor_norm(r, i);
  int kept = 0;
  for (int j = 0; j < r->starts; ++j) {
    double lambda, x[3];
    if (r->h_flag[first + (size_t)j] != TP_SSHOPM_CONVERGED)
      continue;
    load_run(r, first, (size_t)j, &lambda, x);
    if (!isfinite(lambda) || repeats_kept(w, kept, lambda, x, s))
      continue;
    w->lambda[kept] = lambda;
    memcpy(w->x + 3 * kept, x, sizeof x);
    ++kept;
  }
  return kept;
}

/* Keeps the positive local maxima of the ranked pairs, down to min_amplitude times
 * the largest and to the absolute threshold, at most k; writes the voxel's outputs
 * (scaled back) and NaN after. */
static void select_peaks(const tp_eigenpairs *pairs, int k, const tp_peaks_options *o, double scale,
                         double *dir, double *amp, int32_t *count) {
  int kept = 0;
  double largest = 0.0;
  for (int p = 0; p < pairs->count && kept < k; ++p) {
    double lambda = pairs->lambda[p];
    if (pairs->kind[p] != TP_EIG_LOCAL_MAX || !(lambda > 0))
      continue;
    if (kept == 0)
      largest = lambda;
    if (lambda < o->min_amplitude * largest || !(lambda * scale >= o->threshold))
      break; /* ranked by lambda: every later pair is smaller */
    amp[kept] = lambda * scale;
    memcpy(dir + 3 * kept, pairs->x + 3 * p, 3 * sizeof(double));
    ++kept;
  }
  for (int j = kept; j < k; ++j) {
    amp[j] = NAN;
    dir[3 * j] = dir[3 * j + 1] = dir[3 * j + 2] = NAN;
  }
  *count = kept;
}

static tp_status voxel_peaks(const peaks_run *r, int64_t i, voxel_work *w, double *dir, double *amp,
                             int32_t *count) {
  const int k = r->opt->max_peaks;
  if (r->h_scale[i] == 0) { /* non-finite or all-zero coefficients: no peaks */
    w->pairs.count = 0;
    select_peaks(&w->pairs, k, r->opt, 0.0, dir, amp, count);
    return TP_SUCCESS;
  }
  int runs = gather_runs(r, i, w);
  TP_TRY(tp_sshopm_eigenpairs_f64(r->lmax, 3, r->h_tensors + i * r->unique, runs, w->lambda, w->x,
                                  w->flag, NULL, &w->pairs));
  select_peaks(&w->pairs, k, r->opt, r->h_scale[i], dir, amp, count);
  return TP_SUCCESS;
}

/* Post-processes voxels [0, count) of the batch starting at voxel `first`. A failure
 * does not stop the other voxels; the one with the smallest index is reported. */
static tp_status batch_peaks(const peaks_run *r, int64_t first, int64_t count, double *directions,
                             double *amplitudes, int32_t *counts) {
  const int k = r->opt->max_peaks;
  tpi_loop_error err;
  memset(&err, 0, sizeof err);
  TP_HOST_OMP(omp parallel) {
    voxel_work w;
    int ok = work_alloc(&w, r->starts);
    if (!ok)
      tpi_loop_error_record(&err,
                            TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                                     "no room for the "
                                     "eigenpairs of %d starts",
                                     r->starts),
                            first);
TP_HOST_OMP(omp for schedule(dynamic, 64))
for (int64_t i = 0; i < count; ++i) {
  if (!ok)
    continue;
  int64_t g = first + i;
  tp_status st = voxel_peaks(r, i, &w, directions + g * k * 3, amplitudes + g * k, counts + g);
  if (st != TP_SUCCESS)
    tpi_loop_error_record(&err, st, g);
}
work_free(&w);
  }
  return tpi_loop_error_raise(&err, "voxel");
}

tp_status tp_fiber_peaks(tp_space *space, int lmax, int64_t num_voxels, const double *sh,
                         const tp_peaks_options *o, double *directions, double *amplitudes,
                         int32_t *counts) {
  TP_TRY(check_arguments(space, lmax, num_voxels, sh, o, directions, amplitudes, counts));
  if (num_voxels == 0)
    return TP_SUCCESS;
  peaks_run r;
  tp_status st = run_setup(&r, space, lmax, num_voxels, o);
  for (int64_t first = 0; st == TP_SUCCESS && first < num_voxels; first += r.batch) {
    int64_t count = num_voxels - first < r.batch ? num_voxels - first : r.batch;
    st = make_tensors(&r, sh + first * r.unique, count);
    if (st == TP_SUCCESS)
      st = solve_batch(&r, count);
    if (st == TP_SUCCESS)
      st = batch_peaks(&r, first, count, directions, amplitudes, counts);
  }
  run_free(&r);
  return st;
}
