/* tp-bench-sshopm: batched SS-HOPM throughput next to the machine's FP32 FMA ceiling.
 *
 * For each shape it times (median of --reps after --warmup, GPU events on GPUs):
 *   fixed     fixed shift, exactly --iterations iterations (tol = 0)
 *   adaptive  adaptive shift, exactly --iterations iterations
 *   converge  adaptive shift until |delta lambda| < tol and |delta x| < xtol
 * and reports tensor-start iterations per second, GFLOP/s from the flop counts in micro.h,
 * and the share of the measured FMA ceiling. Converged results of the first tensors
 * are checked in double (residual |A x^(m-1) - lambda x|).
 *
 * Usage: tp-bench-sshopm [--small] [--tensors T] [--starts V] [--iterations I]
 *                        [--shapes 4x3,6x3,8x3] [--precision f32|f64] [--reps N]
 *                        [--warmup N] [--seed S] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/micro/micro.h"
#include "tenport/tenport.h"
#include "portable/tp_error.h"

typedef struct bench_config {
  int64_t tensors;
  int starts, iterations, reps, warmup, single;
  char shapes[128];
  uint64_t seed;
} bench_config;

typedef struct bench_run {
  tp_space *space;
  tp_sshopm_problem problem;
  tp_sshopm_options options;
  const void *tensors, *starts;
  tp_sshopm_out_f32 out32;
  tp_sshopm_out_f64 out64;
  int single;
} bench_run;

static tp_status run_op(void *ctx) {
  bench_run *r = (bench_run *)ctx;
  if (r->single)
    return tp_sshopm_f32(r->space, &r->problem, (const float *)r->tensors, (const float *)r->starts,
                         &r->options, &r->out32);
  return tp_sshopm_f64(r->space, &r->problem, (const double *)r->tensors, (const double *)r->starts,
                       &r->options, &r->out64);
}

/* Random tensors of unit Frobenius norm, and the starts, as doubles on the host. */
static tp_status make_inputs(int m, int n, const bench_config *c, int64_t unique, double **tensors,
                             double **starts) {
  int64_t *mult = (int64_t *)malloc(sizeof(int64_t) * (size_t)unique);
  *tensors = (double *)malloc(sizeof(double) * (size_t)(c->tensors * unique));
  *starts = (double *)malloc(sizeof(double) * (size_t)c->starts * n);
  if (!mult || !*tensors || !*starts) {
    free(mult);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for the inputs on the host");
  }
  TP_TRY(tp_sym_index_table(m, n, NULL, mult));
  uint64_t state = c->seed;
  for (int64_t t = 0; t < c->tensors; ++t) {
    double *a = *tensors + t * unique, norm2 = 0;
    for (int64_t j = 0; j < unique; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      a[j] = (double)(state >> 11) * 0x1.0p-53 * 2 - 1;
      norm2 += (double)mult[j] * a[j] * a[j];
    }
    for (int64_t j = 0; j < unique; ++j)
      a[j] /= sqrt(norm2);
  }
  free(mult);
  return tp_sshopm_random_starts_f64(c->seed + 1, n, c->starts, *starts);
}

/* Copies doubles to the space in the benchmark's precision. */
static tp_status upload(tp_space *s, const double *host, int64_t count, int single, void **dev) {
  size_t es = single ? sizeof(float) : sizeof(double);
  void *staged = (void *)host;
  if (single) {
    float *f = (float *)malloc(sizeof(float) * (size_t)count);
    if (!f)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room to convert the inputs");
    for (int64_t i = 0; i < count; ++i)
      f[i] = (float)host[i];
    staged = f;
  }
  tp_status st = tp_alloc(s, es * (size_t)count, dev);
  if (st == TP_SUCCESS)
    st = tp_copy_to_device(s, *dev, staged, es * (size_t)count);
  if (st == TP_SUCCESS)
    st = tp_space_fence(s);
  if (single)
    free(staged);
  return st;
}

/* Checks the converged runs of the first tensors in double; returns the worst residual
 * and fills the iteration statistics over all runs. */
static tp_status check_results(bench_run *r, const double *tensors, int64_t unique, double *worst,
                               double *mean_iterations, double *converged) {
  const int64_t runs = r->problem.num_tensors * r->problem.num_starts;
  const int n = r->problem.dim, m = r->problem.order;
  const int64_t checked = runs < 4096 ? runs : 4096;
  size_t es = r->single ? sizeof(float) : sizeof(double);
  int32_t *its = (int32_t *)malloc(sizeof(int32_t) * (size_t)runs);
  int8_t *flag = (int8_t *)malloc((size_t)runs);
  unsigned char *lam = (unsigned char *)malloc(es * (size_t)checked);
  unsigned char *x = (unsigned char *)malloc(es * (size_t)(checked * n));
  if (!its || !flag || !lam || !x) {
    free(its), free(flag), free(lam), free(x);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room to check the results");
  }
  int32_t *d_its = r->single ? r->out32.iterations : r->out64.iterations;
  int8_t *d_flag = r->single ? r->out32.flag : r->out64.flag;
  void *d_lam = r->single ? (void *)r->out32.lambda : (void *)r->out64.lambda;
  void *d_x = r->single ? (void *)r->out32.x : (void *)r->out64.x;
  tp_status st = tp_copy_to_host(r->space, its, d_its, sizeof(int32_t) * (size_t)runs);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(r->space, flag, d_flag, (size_t)runs);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(r->space, lam, d_lam, es * (size_t)checked);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(r->space, x, d_x, es * (size_t)(checked * n));
  double sum_its = 0, conv = 0;
  *worst = 0;
  for (int64_t i = 0; st == TP_SUCCESS && i < runs; ++i) {
    sum_its += its[i];
    if (flag[i] != TP_SSHOPM_CONVERGED)
      continue;
    conv += 1;
    if (i >= checked)
      continue;
    double xv[TP_SSHOPM_MAX_DIM], y[TP_SSHOPM_MAX_DIM], l, res2 = 0;
    for (int d = 0; d < n; ++d)
      xv[d] = r->single ? ((float *)x)[i * n + d] : ((double *)x)[i * n + d];
    l = r->single ? ((float *)lam)[i] : ((double *)lam)[i];
    st = tp_sym_axm1_f64(m, n, tensors + (i / r->problem.num_starts) * unique, xv, y);
    for (int d = 0; d < n; ++d)
      res2 += (y[d] - l * xv[d]) * (y[d] - l * xv[d]);
    *worst = fmax(*worst, sqrt(res2));
  }
  *mean_iterations = sum_its / (double)runs;
  *converged = conv / (double)runs;
  free(its), free(flag), free(lam), free(x);
  return st;
}

static tp_status alloc_outputs(bench_run *r) {
  int64_t runs = r->problem.num_tensors * r->problem.num_starts;
  size_t es = r->single ? sizeof(float) : sizeof(double);
  void *lambda, *x, *flag, *its;
  TP_TRY(tp_alloc(r->space, es * (size_t)runs, &lambda));
  TP_TRY(tp_alloc(r->space, es * (size_t)(runs * r->problem.dim), &x));
  TP_TRY(tp_alloc(r->space, (size_t)runs, &flag));
  TP_TRY(tp_alloc(r->space, sizeof(int32_t) * (size_t)runs, &its));
  r->out32.lambda = (float *)lambda, r->out32.x = (float *)x;
  r->out64.lambda = (double *)lambda, r->out64.x = (double *)x;
  r->out32.flag = r->out64.flag = (int8_t *)flag;
  r->out32.iterations = r->out64.iterations = (int32_t *)its;
  return TP_SUCCESS;
}

static void free_outputs(bench_run *r) {
  tp_free(r->space, r->out64.lambda), tp_free(r->space, r->out64.x);
  tp_free(r->space, r->out64.flag), tp_free(r->space, r->out64.iterations);
}

static tp_status bench_shape(tp_space *s, const bench_config *c, int m, int n, double ceiling) {
  int64_t unique;
  TP_TRY(tp_sym_unique_count(m, n, &unique));
  double *tensors = NULL, *starts = NULL;
  bench_run r;
  memset(&r, 0, sizeof r);
  r.space = s, r.single = c->single;
  r.problem.order = m, r.problem.dim = n, r.problem.num_tensors = c->tensors;
  r.problem.num_starts = c->starts;
  void *d_tensors = NULL, *d_starts = NULL;
  tp_status st = make_inputs(m, n, c, unique, &tensors, &starts);
  if (st == TP_SUCCESS)
    st = upload(s, tensors, c->tensors * unique, c->single, &d_tensors);
  if (st == TP_SUCCESS)
    st = upload(s, starts, (int64_t)c->starts * n, c->single, &d_starts);
  if (st == TP_SUCCESS)
    st = alloc_outputs(&r);
  r.tensors = d_tensors, r.starts = d_starts;
  const char *modes[3] = {"fixed", "adaptive", "converge"};
  for (int mode = 0; st == TP_SUCCESS && mode < 3; ++mode) {
    tp_sshopm_options_init(&r.options);
    r.options.shift = mode == 0 ? TP_SHIFT_FIXED : TP_SHIFT_ADAPTIVE;
    r.options.alpha = m - 1; /* >= (m-1) |A| for unit-norm tensors: convex */
    r.options.tol = mode == 2 ? (c->single ? 1e-6 : 1e-12) : 0;
    r.options.xtol = mode == 2 ? (c->single ? 1e-4 : 1e-8) : 0;
    r.options.max_iterations = mode == 2 ? 1000 : c->iterations;
    double ms = 0, worst = 0, mean_its = 0, conv = 0;
    st = micro_time(s, NULL, run_op, &r, c->warmup, c->reps, &ms);
    if (st == TP_SUCCESS)
      st = check_results(&r, tensors, unique, &worst, &mean_its, &conv);
    if (st != TP_SUCCESS)
      break;
    double its = mean_its * (double)(c->tensors * c->starts), rate = its / (ms * 1e-3);
    const int step_test = r.options.xtol > 0;
    double f = mode == 0 ? micro_sshopm_flops_fixed(m, n, step_test)
                         : micro_sshopm_flops_adaptive(m, n, step_test);
    double gflops = rate * f * 1e-9;
    printf("(%d,%d) %-3s %-8s %9.3f ms  %8.2e it/s  %8.1f GFLOP/s  %5.1f%% of FMA peak  "
           "mean its %6.1f  converged %5.1f%%  worst residual %.2e  (%s kernel, %.0f flops/it)\n",
           m, n, c->single ? "f32" : "f64", modes[mode], ms, rate, gflops,
           ceiling > 0 ? 100.0 * gflops / ceiling : NAN, mean_its, 100.0 * conv, worst,
           tp_sshopm_has_unrolled(m, n) ? "unrolled" : "generic", f);
    fflush(stdout);
  }
  if (r.out64.lambda)
    free_outputs(&r);
  tp_free(s, d_tensors), tp_free(s, d_starts);
  free(tensors), free(starts);
  return st;
}

static int parse(int argc, char **argv, bench_config *c) {
  c->tensors = (int64_t)1 << 20, c->starts = 128, c->iterations = 50;
  c->reps = 5, c->warmup = 1, c->single = 1, c->seed = 2026;
  strcpy(c->shapes, "4x3,6x3,8x3");
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--small") == 0)
      c->tensors = 1 << 12, c->reps = 3;
    else if (strcmp(a, "--tensors") == 0 && v)
      c->tensors = atoll(v), ++i;
    else if (strcmp(a, "--starts") == 0 && v)
      c->starts = atoi(v), ++i;
    else if (strcmp(a, "--iterations") == 0 && v)
      c->iterations = atoi(v), ++i;
    else if (strcmp(a, "--reps") == 0 && v)
      c->reps = atoi(v), ++i;
    else if (strcmp(a, "--warmup") == 0 && v)
      c->warmup = atoi(v), ++i;
    else if (strcmp(a, "--seed") == 0 && v)
      c->seed = strtoull(v, NULL, 10), ++i;
    else if (strcmp(a, "--precision") == 0 && v)
      c->single = strcmp(v, "f64") != 0, ++i;
    else if (strcmp(a, "--shapes") == 0 && v && strlen(v) < sizeof c->shapes)
      strcpy(c->shapes, v), ++i;
    else
      return 0;
  }
  return c->tensors > 0 && c->starts > 0 && c->iterations > 0 && c->reps > 0 && c->warmup >= 0;
}

int main(int argc, char **argv) {
  bench_config c;
  if (!parse(argc, argv, &c)) {
    fprintf(stderr,
            "usage: %s [--small] [--tensors T] [--starts V] [--iterations I] "
            "[--shapes 4x3,6x3] [--precision f32|f64] [--reps N] [--warmup N] "
            "[--seed S]\n",
            argv[0]);
    return 2;
  }
  tp_space *s = NULL;
  tp_space_info info;
  double ceiling = 0;
  if (tp_space_create(&s, NULL) != TP_SUCCESS || tp_space_get_info(s, &info) != TP_SUCCESS ||
      micro_fp32_fma_ceiling(s, &ceiling) != TP_SUCCESS) {
    fprintf(stderr, "tp-bench-sshopm: %s\n", tp_last_error());
    tp_space_destroy(&s);
    return 1;
  }
  if (!c.single)
    ceiling = 0; /* only the FP32 ceiling is measured: no share printed for f64 */
  printf("tp-bench-sshopm: %s backend, %s (%d units)\n", info.backend, info.device_name,
         info.compute_units);
  printf("FP32 FMA ceiling %.1f GFLOP/s; %lld tensors x %d starts, %d iterations in the "
         "fixed-count modes; median of %d after %d warm-up\n",
         ceiling, (long long)c.tensors, c.starts, c.iterations, c.reps, c.warmup);
  int rc = 0;
  for (char *tok = strtok(c.shapes, ","); tok; tok = strtok(NULL, ",")) {
    int m = 0, n = 0;
    if (sscanf(tok, "%dx%d", &m, &n) != 2) {
      fprintf(stderr, "tp-bench-sshopm: bad shape '%s' (want MxN, e.g. 4x3)\n", tok);
      rc = 2;
      break;
    }
    if (bench_shape(s, &c, m, n, ceiling) != TP_SUCCESS) {
      fprintf(stderr, "tp-bench-sshopm: (%d,%d): %s\n", m, n, tp_last_error());
      rc = 1;
      break;
    }
  }
  tp_space_destroy(&s);
  return rc;
}
