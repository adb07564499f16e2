/* Post-processing of one tensor's SS-HOPM runs (host code): canonical signs, merging
 * of runs that reached the same eigenpair, stability from the projected Hessian, and
 * ranking by lambda.
 *
 * Each converged run's x is normalised and its lambda recomputed in double as A x^m
 * (the solver's lambda is only checked for finiteness), so merging and ranking do not
 * depend on the precision the solver ran in. The work is done on A / s, s = |A|_F the
 * Frobenius norm, so the tolerances are relative to s and c A gives the pairs of A;
 * lambda is scaled back by s when the pairs are written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/sshopm.h"
#include "tenport/symtensor.h"
#include "portable/tp_error.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"

#ifndef TP_INLINE
#define TP_INLINE static inline
#endif
#include "algorithms/sshopm/tp_symeig.h"

/* A converged run after normalisation and canonicalisation. */
typedef struct run_info {
  double lambda, residual;
  const double *x; /* dim values in the workspace */
  int index;       /* position in the caller's arrays */
} run_info;

/* A merged eigenpair, before ranking. */
typedef struct pair_info {
  double lambda;
  const double *x;
  int dim;
  tp_eig_kind kind;
  int starts;
} pair_info;

void tp_eig_merge_options_init(tp_eig_merge_options *options) {
  if (!options)
    return;
  options->dot_tol = 1e-4;
  options->lambda_tol = 1e-4;
  options->hessian_tol = 1e-6;
}

static tp_status check_options(const tp_eig_merge_options *o) {
  TP_CHECK_ARG(isfinite(o->dot_tol) && o->dot_tol >= 0,
               "dot_tol = %g: must be finite and "
               ">= 0",
               o->dot_tol);
  TP_CHECK_ARG(isfinite(o->lambda_tol) && o->lambda_tol >= 0,
               "lambda_tol = %g: must be "
               "finite and >= 0",
               o->lambda_tol);
  TP_CHECK_ARG(isfinite(o->hessian_tol) && o->hessian_tol >= 0,
               "hessian_tol = %g: must be "
               "finite and >= 0",
               o->hessian_tol);
  return TP_SUCCESS;
}

static double norm2(int n, const double *x) {
  double s = 0.0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return sqrt(s);
}

/* Flags must be tp_sshopm_flag values; converged runs need a finite lambda and a
 * finite, unit-norm x. Other runs are never read beyond their flag. */
static tp_status check_runs(int dim, int num_starts, const double *lambda, const double *x,
                            const int8_t *flag) {
  for (int v = 0; v < num_starts; ++v) {
    TP_CHECK_ARG(flag[v] >= TP_SSHOPM_CONVERGED && flag[v] <= TP_SSHOPM_LAMBDA_OVERFLOW,
                 "run %d: flag %d is not a tp_sshopm_flag", v, (int)flag[v]);
    if (flag[v] != TP_SSHOPM_CONVERGED)
      continue;
    if (!isfinite(lambda[v]))
      return TP_ERROR(TP_ERROR_NUMERICAL, "run %d: converged with lambda = %g", v, lambda[v]);
    const double *xv = x + (size_t)v * (size_t)dim;
    for (int i = 0; i < dim; ++i)
      if (!isfinite(xv[i]))
        return TP_ERROR(TP_ERROR_NUMERICAL, "run %d: converged with x[%d] = %g", v, i, xv[i]);
    double nrm = norm2(dim, xv);
    if (fabs(nrm - 1.0) > 1e-3)
      return TP_ERROR(TP_ERROR_NUMERICAL, "run %d: converged with |x| = %.6g, not unit norm", v,
                      nrm);
  }
  return TP_SUCCESS;
}

static void negate(int n, double *x) {
  for (int i = 0; i < n; ++i)
    x[i] = -x[i];
}

/* Odd m: (lambda, x) ~ (-lambda, -x); keep lambda >= 0, and for lambda == 0 make the
 * first nonzero entry positive. Even m: x ~ -x; make the largest |entry| positive
 * (the first one on ties). */
static void canonicalise(int order, int dim, double *lambda, double *x) {
  if (order % 2) {
    int flip = *lambda < 0;
    if (*lambda == 0) {
      int i = 0;
      while (i < dim && x[i] == 0)
        ++i;
      flip = i < dim && x[i] < 0;
    }
    if (flip) {
      *lambda = -*lambda;
      negate(dim, x);
    }
    return;
  }
  int big = 0;
  for (int i = 1; i < dim; ++i)
    if (fabs(x[i]) > fabs(x[big]))
      big = i;
  if (x[big] < 0)
    negate(dim, x);
}

/* Copies run v's x into xs, normalises it, recomputes lambda = A x^m, canonicalises,
 * and measures the residual |A x^(m-1) - lambda x| (y: dim values of scratch). */
static tp_status prepare_run(int order, int dim, const double *tensor, const double *x_in,
                             double *xs, double *y, run_info *run) {
  double nrm = norm2(dim, x_in);
  for (int i = 0; i < dim; ++i)
    xs[i] = x_in[i] / nrm;
  TP_TRY(tp_sym_axm_f64(order, dim, tensor, xs, &run->lambda));
  canonicalise(order, dim, &run->lambda, xs);
  TP_TRY(tp_sym_axm1_f64(order, dim, tensor, xs, y));
  double r = 0.0;
  for (int i = 0; i < dim; ++i)
    r += (y[i] - run->lambda * xs[i]) * (y[i] - run->lambda * xs[i]);
  run->residual = sqrt(r);
  run->x = xs;
  return TP_SUCCESS;
}

/* Lambda descending, then run index ascending: a total, deterministic order. */
static int compare_runs(const void *pa, const void *pb) {
  const run_info *a = (const run_info *)pa, *b = (const run_info *)pb;
  if (a->lambda != b->lambda)
    return a->lambda > b->lambda ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static int same_pair(const tp_eig_merge_options *o, int dim, const run_info *a, const run_info *b) {
  double dot = 0.0;
  for (int i = 0; i < dim; ++i)
    dot += a->x[i] * b->x[i];
  return fabs(dot) >= 1.0 - o->dot_tol && fabs(a->lambda - b->lambda) <= o->lambda_tol;
}

/* Greedy clustering of the sorted runs: each joins the first cluster whose first
 * member matches it, else starts a new one. rep[k] is the member of cluster k with
 * the smallest residual (the earliest on ties); size[k] counts its members. */
static int cluster_runs(const tp_eig_merge_options *o, int dim, int count, const run_info *runs,
                        int *seed, int *rep, int *size) {
  int clusters = 0;
  for (int r = 0; r < count; ++r) {
    int k = 0;
    while (k < clusters && !same_pair(o, dim, &runs[seed[k]], &runs[r]))
      ++k;
    if (k == clusters) {
      seed[k] = rep[k] = r;
      size[k] = 0;
      ++clusters;
    }
    if (runs[r].residual < runs[rep[k]].residual)
      rep[k] = r;
    ++size[k];
  }
  return clusters;
}

static tp_eig_kind kind_from_eigenvalues(int count, const double *e, size_t stride, double tol) {
  int neg = 0, pos = 0;
  for (int i = 0; i < count; ++i) {
    neg += e[i * stride] < -tol;
    pos += e[i * stride] > tol;
  }
  if (neg == count)
    return TP_EIG_LOCAL_MAX;
  if (pos == count)
    return TP_EIG_LOCAL_MIN;
  return (neg && pos) ? TP_EIG_SADDLE : TP_EIG_DEGENERATE;
}

/* c = P h P with the Householder reflection P = I - 2 w w^T / w^T w, w = x + s e_k
 * (k the largest |x_k|, s its sign): P maps x to -s e_k, so the columns of P other
 * than k are an orthonormal basis of x's complement. t is n x n scratch. */
static void project(int n, const double *x, const double *h, double *c, double *t) {
  int k = 0;
  for (int i = 1; i < n; ++i)
    if (fabs(x[i]) > fabs(x[k]))
      k = i;
  double s = x[k] >= 0 ? 1.0 : -1.0, ww = 2.0 * (1.0 + fabs(x[k]));
  /* t = h P: row i minus (2/ww) (h w)_i w^T; then c = P t likewise on columns. */
  for (int i = 0; i < n; ++i) {
    double hw = h[i * n + k] * s;
    for (int j = 0; j < n; ++j)
      hw += h[i * n + j] * x[j];
    for (int j = 0; j < n; ++j)
      t[i * n + j] = h[i * n + j] - 2.0 / ww * hw * (x[j] + (j == k ? s : 0.0));
  }
  for (int j = 0; j < n; ++j) {
    double wt = t[k * n + j] * s;
    for (int i = 0; i < n; ++i)
      wt += x[i] * t[i * n + j];
    for (int i = 0; i < n; ++i)
      c[i * n + j] = t[i * n + j] - 2.0 / ww * (x[i] + (i == k ? s : 0.0)) * wt;
  }
  /* Drop row and column k, packing into the leading (n-1) x (n-1) block. */
  int p = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != k && j != k)
        c[p++] = c[i * n + j];
}

/* Kind of the pair (lambda, x, unit norm) from the eigenvalues of the projected
 * Hessian (m-1) A x^(m-2) - lambda I, |eigenvalue| <= tol counting as zero. n = 1 has
 * no tangent directions: the pair is both a maximum and a minimum and is reported as
 * TP_EIG_LOCAL_MAX. For m = 1 the projected Hessian is -lambda I. work holds 3 n^2
 * values (m >= 2, n >= 2). */
static tp_status classify(int order, int dim, const double *tensor, double lambda, const double *x,
                          double tol, double *work, tp_eig_kind *kind) {
  if (dim == 1) {
    *kind = TP_EIG_LOCAL_MAX;
    return TP_SUCCESS;
  }
  if (order == 1) {
    double e = -lambda;
    *kind = kind_from_eigenvalues(1, &e, 1, tol);
    return TP_SUCCESS;
  }
  size_t nn = (size_t)dim * (size_t)dim;
  double *h = work, *c = work + nn, *t = work + 2 * nn;
  TP_TRY(tp_sym_axm2_f64(order, dim, tensor, x, h));
  for (size_t i = 0; i < nn; ++i)
    h[i] *= order - 1;
  for (int i = 0; i < dim; ++i)
    h[i * dim + i] -= lambda;
  project(dim, x, h, c, t);
  int r = dim - 1;
  tp_symeig_jacobi_f64(r, c, NULL);
  *kind = kind_from_eigenvalues(r, c, (size_t)r + 1, tol);
  return TP_SUCCESS;
}

/* Lambda descending, then kind, then x lexicographically. */
static int compare_pairs(const void *pa, const void *pb) {
  const pair_info *a = (const pair_info *)pa, *b = (const pair_info *)pb;
  if (a->lambda != b->lambda)
    return a->lambda > b->lambda ? -1 : 1;
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  for (int i = 0; i < a->dim; ++i)
    if (a->x[i] != b->x[i])
      return a->x[i] < b->x[i] ? -1 : 1;
  return 0;
}

static tp_status check_arguments(int order, int dim, const double *tensor, int num_starts,
                                 const double *lambda, const double *x, const int8_t *flag,
                                 const tp_eig_merge_options *options, const tp_eigenpairs *out,
                                 int64_t *unique) {
  TP_CHECK_ARG(tensor != NULL, "tensor is NULL");
  TP_CHECK_ARG(out != NULL, "out is NULL");
  TP_TRY(tp_sym_unique_count(order, dim, unique));
  TP_CHECK_ARG(num_starts >= 0, "num_starts = %d: must be >= 0", num_starts);
  if (num_starts > 0) {
    TP_CHECK_ARG(lambda && x && flag, "lambda, x or flag is NULL");
    TP_CHECK_ARG(out->lambda && out->x && out->kind && out->starts,
                 "an output array of out is NULL");
  }
  TP_TRY(check_options(options));
  return check_runs(dim, num_starts, lambda, x, flag);
}

/* The tensor's Frobenius norm s = big * root (tpi_sym_norm_parts_f64). */
typedef struct tensor_scale {
  double big, root;
} tensor_scale;

/* a = tensor / s; 0, or nonzero (a is then not written) for a tensor with a value
 * that is not finite, or of zeros (whose eigenvectors are all unit vectors). */
static int unit_tensor(int order, int dim, int64_t unique, const double *tensor, double *a,
                       tensor_scale *s) {
  if (tpi_sym_norm_parts_f64(order, dim, unique, tensor, &s->big, &s->root) != 0)
    return -1;
  for (int64_t j = 0; j < unique; ++j)
    a[j] = tensor[j] / s->big / s->root;
  return 0;
}

/* Fills runs (and xs) from the converged runs; returns their number in *count. */
static tp_status prepare_runs(int order, int dim, const double *tensor, int num_starts,
                              const double *x, const int8_t *flag, double *xs, double *y,
                              run_info *runs, int *count) {
  int c = 0;
  for (int v = 0; v < num_starts; ++v) {
    if (flag[v] != TP_SSHOPM_CONVERGED)
      continue;
    runs[c].index = v;
    TP_TRY(prepare_run(order, dim, tensor, x + (size_t)v * (size_t)dim,
                       xs + (size_t)c * (size_t)dim, y, &runs[c]));
    ++c;
  }
  *count = c;
  return TP_SUCCESS;
}

/* Classifies each cluster's representative (on a = A / s) and writes the ranked pairs
 * to out, lambda scaled back by s. */
static tp_status report_pairs(int order, int dim, const double *a, tensor_scale scale,
                              double hessian_tol, int clusters, const run_info *runs,
                              const int *rep, const int *size, pair_info *pairs, double *work,
                              tp_eigenpairs *out) {
  for (int k = 0; k < clusters; ++k) {
    const run_info *r = &runs[rep[k]];
    pairs[k].lambda = r->lambda;
    pairs[k].x = r->x;
    pairs[k].dim = dim;
    pairs[k].starts = size[k];
    TP_TRY(classify(order, dim, a, r->lambda, r->x, hessian_tol, work, &pairs[k].kind));
  }
  qsort(pairs, (size_t)clusters, sizeof *pairs, compare_pairs);
  for (int k = 0; k < clusters; ++k) {
    out->lambda[k] = pairs[k].lambda * scale.root * scale.big;
    if (!isfinite(out->lambda[k]))
      return TP_ERROR(TP_ERROR_NUMERICAL,
                      "eigenvalue %.17g times the tensor's norm "
                      "%g x %.17g is beyond the range of double",
                      pairs[k].lambda, scale.big, scale.root);
    memcpy(out->x + (size_t)k * (size_t)dim, pairs[k].x, sizeof(double) * (size_t)dim);
    out->kind[k] = pairs[k].kind;
    out->starts[k] = pairs[k].starts;
  }
  out->count = clusters;
  return TP_SUCCESS;
}

tp_status tp_sshopm_eigenpairs_f64(int order, int dim, const double *tensor, int num_starts,
                                   const double *lambda, const double *x, const int8_t *flag,
                                   const tp_eig_merge_options *options, tp_eigenpairs *out) {
  tp_eig_merge_options defaults;
  tp_eig_merge_options_init(&defaults);
  const tp_eig_merge_options *o = options ? options : &defaults;
  int64_t unique;
  TP_TRY(check_arguments(order, dim, tensor, num_starts, lambda, x, flag, o, out, &unique));
  out->count = 0;
  if (num_starts == 0)
    return TP_SUCCESS;

  size_t v = (size_t)num_starts, n = (size_t)dim, u = (size_t)unique;
  size_t hess = (order >= 2 && dim >= 2) ? 3 * n * n : 0;
  double *xs = (double *)malloc(sizeof(double) * (v * n + n + hess + u));
  run_info *runs = (run_info *)malloc(sizeof(run_info) * v);
  pair_info *pairs = (pair_info *)malloc(sizeof(pair_info) * v);
  int *ints = (int *)malloc(sizeof(int) * 3 * v);
  tp_status st = TP_SUCCESS;
  int count = 0, clusters = 0;
  double *a;
  tensor_scale scale;
  if (!xs || !runs || !pairs || !ints) {
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                  "no room for the workspace of %d runs of "
                  "dimension %d",
                  num_starts, dim);
    goto done;
  }
  /* xs: normalised x of each converged run, then dim values of scratch, then the
   * Hessian workspace, then A / s. ints: cluster seeds, representatives and sizes. */
  a = xs + v * n + n + hess;
  if (unit_tensor(order, dim, unique, tensor, a, &scale) != 0)
    goto done; /* no eigenpairs to report */
  TP_TRY_GOTO(st, prepare_runs(order, dim, a, num_starts, x, flag, xs, xs + v * n, runs, &count),
              done);
  qsort(runs, (size_t)count, sizeof *runs, compare_runs);
  clusters = cluster_runs(o, dim, count, runs, ints, ints + v, ints + 2 * v);
  TP_TRY_GOTO(st,
              report_pairs(order, dim, a, scale, o->hessian_tol, clusters, runs, ints + v,
                           ints + 2 * v, pairs, xs + v * n + n, out),
              done);
done:
  free(xs);
  free(runs);
  free(pairs);
  free(ints);
  return st;
}
