/* Helpers of the SS-HOPM suites (test_sshopm.c, test_sshopm_scale.c): the
 * Kofidis-Regalia tensor and one batch run in either precision, its results on the host
 * as doubles. */
#ifndef TPT_SSHOPM_H
#define TPT_SSHOPM_H

#include <stdlib.h>
#include <string.h>

#include "tenport/sshopm.h"
#include "tenport/symtensor.h"
#include "tests/common/tpt.h"

/* Kofidis & Regalia (2002), Example 1 (m = 4, n = 3): local maxima 0.8893, 0.8169,
 * 0.3633, local minima -0.0451, -0.5629, -1.0954. */
static const double kofidis_regalia[15] = {0.2883, -0.0031, 0.1973, -0.2485, -0.2939,
                                           0.3847, 0.2972,  0.1862, 0.0919,  -0.3619,
                                           0.1241, -0.3420, 0.2127, 0.2727,  -0.3054};

/* One batch's results on the host, as doubles. */
typedef struct runs {
  int64_t count;
  int dim;
  double *lambda, *x;
  int8_t *flag;
  int32_t *iterations;
} runs;

static void runs_free(runs *r) {
  free(r->lambda), free(r->x), free(r->flag), free(r->iterations);
  memset(r, 0, sizeof *r);
}

static void *to_space_in(const double *v, size_t n, int single) {
  if (!single)
    return tpt_to_space(v, n * sizeof(double));
  float *f = tpt_host_alloc(n * sizeof(float) + 1);
  for (size_t i = 0; i < n; ++i)
    f[i] = (float)v[i];
  void *d = tpt_to_space(f, n * sizeof(float));
  free(f);
  return d;
}

static void to_host_as_double(double *out, const void *d, size_t n, int single) {
  if (!single) {
    tpt_to_host(out, d, n * sizeof(double));
    return;
  }
  float *f = tpt_host_alloc(n * sizeof(float) + 1);
  tpt_to_host(f, d, n * sizeof(float));
  for (size_t i = 0; i < n; ++i)
    out[i] = f[i];
  free(f);
}

/* Runs T tensors (host doubles, converted for f32) from the starts x0. */
static runs solve(int order, int dim, int64_t tensors, const double *a, int starts,
                  const double *x0, const tp_sshopm_options *o, int single) {
  int64_t unique;
  TPT_OK(tp_sym_unique_count(order, dim, &unique));
  tp_sshopm_problem p = {order, dim, tensors, starts};
  runs r;
  r.count = tensors * starts, r.dim = dim;
  size_t nr = (size_t)r.count, es = single ? sizeof(float) : sizeof(double);
  r.lambda = tpt_host_alloc(nr * sizeof(double) + 1);
  r.x = tpt_host_alloc(nr * (size_t)dim * sizeof(double) + 1);
  r.flag = tpt_host_alloc(nr + 1);
  r.iterations = tpt_host_alloc(nr * sizeof(int32_t) + 1);
  void *da = to_space_in(a, (size_t)(tensors * unique), single);
  void *dx0 = to_space_in(x0, (size_t)starts * (size_t)dim, single);
  void *dl = tpt_alloc_poisoned(nr * es), *dx = tpt_alloc_poisoned(nr * (size_t)dim * es);
  int8_t *df = tpt_alloc_poisoned(nr);
  int32_t *di = tpt_alloc_poisoned(nr * sizeof(int32_t));
  if (single) {
    tp_sshopm_out_f32 out = {dl, dx, df, di};
    TPT_OK(tp_sshopm_f32(tpt_space, &p, da, dx0, o, &out));
  } else {
    tp_sshopm_out_f64 out = {dl, dx, df, di};
    TPT_OK(tp_sshopm_f64(tpt_space, &p, da, dx0, o, &out));
  }
  to_host_as_double(r.lambda, dl, nr, single);
  to_host_as_double(r.x, dx, nr * (size_t)dim, single);
  tpt_to_host(r.flag, df, nr);
  tpt_to_host(r.iterations, di, nr * sizeof(int32_t));
  tpt_free(da), tpt_free(dx0), tpt_free(dl), tpt_free(dx), tpt_free(df), tpt_free(di);
  return r;
}

#endif
