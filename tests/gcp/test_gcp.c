/* Generalized CP: each loss's derivative against central differences; the objective and
 * gradient of a dense tensor in the space against a direct double-precision sum (every
 * loss, f32 and f64, both layouts, with and without a mask, outputs poisoned); the whole
 * objective's gradient against differences; planted models recovered (Gaussian with
 * holes, Poisson counts, Bernoulli links); masked entries never read; the same run twice
 * gives the same bits; sparse input equals its dense form; the data and options checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tenport/gcp.h"
#include "algorithms/gcp/tp_gcp_internal.h"

TestSuite(gcp, .init = tpt_setup, .fini = tpt_teardown);

static double loss_param(tp_gcp_loss loss) {
  return loss == TP_GCP_NEGATIVE_BINOMIAL ? 3.0
         : loss == TP_GCP_HUBER           ? 0.3
         : loss == TP_GCP_BETA            ? 0.5
                                          : 0.0;
}

/* A data value the loss takes, drawn from rng. */
static double valid_value(tp_gcp_loss loss, tpt_rng *rng) {
  switch (loss) {
  case TP_GCP_POISSON:
  case TP_GCP_POISSON_LOG:
  case TP_GCP_NEGATIVE_BINOMIAL:
  case TP_GCP_ZT_POISSON: return (double)tpt_int(rng, 0, 6);
  case TP_GCP_BERNOULLI_ODDS:
  case TP_GCP_BERNOULLI_LOGIT: return (double)tpt_int(rng, 0, 1);
  case TP_GCP_GAMMA:
  case TP_GCP_RAYLEIGH: return tpt_uniform(rng, 0.1, 3.0);
  case TP_GCP_BETA: return tpt_uniform(rng, 0.0, 2.0);
  default: return tpt_uniform(rng, -2.0, 2.0);
  }
}

/* A model value within the loss's domain. */
static double valid_model(tp_gcp_loss loss, tpt_rng *rng) {
  return isinf(tp_gcp_loss_lower_bound(loss)) ? tpt_uniform(rng, -1.5, 1.5)
                                              : tpt_uniform(rng, 0.05, 3.0);
}

Test(gcp, each_derivative_matches_central_differences) {
  tpt_rng rng = tpt_rng_fresh();
  for (int l = 0; l < TP_GCP_LOSS_COUNT; ++l) {
    const tp_gcp_loss loss = (tp_gcp_loss)l;
    for (int t = 0; t < 40; ++t) {
      const double x = valid_value(loss, &rng), m = valid_model(loss, &rng);
      const double p = loss_param(loss), h = 1e-6 * (1.0 + fabs(m));
      if (loss == TP_GCP_HUBER && fabs(fabs(x - m) - p) < 10 * h)
        continue; /* the kink */
      double f, g, fp, fm;
      TPT_OK(tp_gcp_loss_eval(loss, p, x, m, &f, &g));
      TPT_OK(tp_gcp_loss_eval(loss, p, x, m + h, &fp, NULL));
      TPT_OK(tp_gcp_loss_eval(loss, p, x, m - h, &fm, NULL));
      const double fd = (fp - fm) / (2 * h);
      cr_assert(isfinite(f) && fabs(g - fd) <= 1e-5 * (1.0 + fabs(fd)),
                "%s at x = %g, m = %g: df/dm %.12g, central difference %.12g",
                tp_gcp_loss_name(loss), x, m, g, fd);
    }
  }
}

/* ---- the objective and gradient in the space against a direct sum ---------------------- */

typedef struct problem {
  int order;
  int64_t dims[4], R, N;
  tp_layout layout;
  double *x, *w; /* host, N; w NULL: no mask */
  double *A[4];  /* host factors, dims[k] x R */
} problem;

static void problem_index(const problem *p, int64_t e, int64_t *idx) {
  for (int t = 0; t < p->order; ++t) {
    const int k = p->layout == TP_LAYOUT_RIGHT ? p->order - 1 - t : t;
    idx[k] = e % p->dims[k];
    e /= p->dims[k];
  }
}

static double problem_model(const problem *p, const int64_t *idx) {
  double m = 0;
  for (int64_t r = 0; r < p->R; ++r) {
    double q = 1;
    for (int k = 0; k < p->order; ++k)
      q *= p->A[k][idx[k] * p->R + r];
    m += q;
  }
  return m;
}

/* f and the gradient (factors one after another) by loops over every entry. */
static double reference_fg(const problem *p, tp_gcp_loss loss, double *grad) {
  int64_t off[4], total = 0;
  for (int k = 0; k < p->order; ++k)
    off[k] = total, total += p->dims[k] * p->R;
  memset(grad, 0, sizeof(double) * (size_t)total);
  double f = 0;
  for (int64_t e = 0; e < p->N; ++e) {
    if (p->w && p->w[e] == 0)
      continue;
    int64_t idx[4];
    problem_index(p, e, idx);
    double fe, ge;
    TPT_OK(tp_gcp_loss_eval(loss, loss_param(loss), p->x[e], problem_model(p, idx), &fe, &ge));
    f += fe;
    for (int k = 0; k < p->order; ++k)
      for (int64_t r = 0; r < p->R; ++r) {
        double q = ge;
        for (int j = 0; j < p->order; ++j)
          q *= j == k ? 1.0 : p->A[j][idx[j] * p->R + r];
        grad[off[k] + idx[k] * p->R + r] += q;
      }
  }
  return f;
}

static problem make_problem(tpt_rng *rng, tp_gcp_loss loss, int order, const int64_t *dims,
                            int64_t R, tp_layout layout, int masked) {
  problem p;
  memset(&p, 0, sizeof p);
  p.order = order, p.R = R, p.layout = layout, p.N = 1;
  for (int k = 0; k < order; ++k)
    p.dims[k] = dims[k], p.N *= dims[k];
  p.x = (double *)tpt_host_alloc(sizeof(double) * (size_t)p.N);
  for (int64_t e = 0; e < p.N; ++e)
    p.x[e] = valid_value(loss, rng);
  if (masked) {
    p.w = (double *)tpt_host_alloc(sizeof(double) * (size_t)p.N);
    for (int64_t e = 0; e < p.N; ++e) {
      p.w[e] = tpt_uniform(rng, 0, 1) < 0.3 ? 0.0 : 1.0;
      if (p.w[e] == 0)
        p.x[e] = NAN; /* never read */
    }
  }
  const int bounded = !isinf(tp_gcp_loss_lower_bound(loss));
  for (int k = 0; k < order; ++k) {
    p.A[k] = (double *)tpt_host_alloc(sizeof(double) * (size_t)(dims[k] * R));
    for (int64_t i = 0; i < dims[k] * R; ++i)
      p.A[k][i] = bounded ? tpt_uniform(rng, 0.2, 1.0) : tpt_uniform(rng, -0.8, 0.8);
  }
  return p;
}

static void free_problem(problem *p) {
  free(p->x), free(p->w);
  for (int k = 0; k < p->order; ++k)
    free(p->A[k]);
}

/* host doubles -> space buffer of dtype */
static void *to_space_as(const double *v, int64_t n, tp_dtype dtype) {
  const size_t eb = tp_dtype_size(dtype);
  void *host = tpt_host_alloc(eb * (size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == TP_DTYPE_F32)
      ((float *)host)[i] = (float)v[i];
    else
      ((double *)host)[i] = v[i];
  }
  void *dev = tpt_to_space(host, eb * (size_t)n);
  free(host);
  return dev;
}

/* The source's f and gradient at the problem's factors (G poisoned first). */
static double space_fg(const problem *p, tp_gcp_loss loss, tp_dtype dtype, double *grad) {
  tp_dense X = {dtype, p->order, {0}, p->layout, NULL}, W = X;
  memcpy(X.dims, p->dims, sizeof p->dims), memcpy(W.dims, p->dims, sizeof p->dims);
  X.data = to_space_as(p->x, p->N, dtype);
  W.data = p->w ? to_space_as(p->w, p->N, dtype) : NULL;
  tp_kruskal M, G;
  memset(&M, 0, sizeof M), memset(&G, 0, sizeof G);
  M.dtype = G.dtype = dtype, M.order = G.order = p->order, M.rank = G.rank = p->R;
  for (int k = 0; k < p->order; ++k) {
    M.dims[k] = G.dims[k] = p->dims[k];
    M.factors[k] = to_space_as(p->A[k], p->dims[k] * p->R, dtype);
    G.factors[k] = tpt_alloc_poisoned(tp_dtype_size(dtype) * (size_t)(p->dims[k] * p->R));
  }
  tpi_gcp_source src;
  TPT_OK(tpi_gcp_dense_source(tpt_space, &X, p->w ? &W : NULL, loss, loss_param(loss), 1, &src));
  double f;
  TPT_OK(src.fg(src.ctx, tpt_space, &M, &f, &G));
  TPT_OK(tpi_gcp_space_to_vector(tpt_space, &G, grad));
  src.release(src.ctx);
  for (int k = 0; k < p->order; ++k)
    tpt_free(M.factors[k]), tpt_free(G.factors[k]);
  tpt_free(X.data), tpt_free(W.data);
  return f;
}

static void check_fg(const problem *p, tp_gcp_loss loss, tp_dtype dtype, const char *what) {
  int64_t n = 0;
  for (int k = 0; k < p->order; ++k)
    n += p->dims[k] * p->R;
  double *want = (double *)tpt_host_alloc(sizeof(double) * (size_t)n);
  double *got = (double *)tpt_host_alloc(sizeof(double) * (size_t)n);
  const double fw = reference_fg(p, loss, want), fg = space_fg(p, loss, dtype, got);
  const double tol = dtype == TP_DTYPE_F64 ? 1e-11 : 2e-4;
  cr_assert(fabs(fg - fw) <= tol * (1 + fabs(fw)), "%s, %s: f %.15g, direct %.15g",
            tp_gcp_loss_name(loss), what, fg, fw);
  double scale = 0;
  for (int64_t i = 0; i < n; ++i)
    scale = fmax(scale, fabs(want[i]));
  for (int64_t i = 0; i < n; ++i)
    cr_assert(fabs(got[i] - want[i]) <= tol * (1 + scale),
              "%s, %s: gradient entry %lld is "
              "%.15g, direct %.15g",
              tp_gcp_loss_name(loss), what, (long long)i, got[i], want[i]);
  free(want), free(got);
}

Test(gcp, objective_and_gradient_match_a_direct_sum) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t d3[3] = {5, 7, 3}, d4[4] = {4, 3, 2, 3};
  for (int l = 0; l < TP_GCP_LOSS_COUNT; ++l) {
    const tp_gcp_loss loss = (tp_gcp_loss)l;
    for (int variant = 0; variant < 4; ++variant) {
      const int order = variant == 3 ? 4 : 3, masked = variant & 1;
      const tp_layout layout = variant == 2 ? TP_LAYOUT_RIGHT : TP_LAYOUT_LEFT;
      problem p = make_problem(&rng, loss, order, order == 4 ? d4 : d3, 3, layout, masked);
      check_fg(&p, loss, TP_DTYPE_F64, masked ? "f64, masked" : "f64");
      check_fg(&p, loss, TP_DTYPE_F32, masked ? "f32, masked" : "f32");
      free_problem(&p);
    }
  }
}

/* Enough elements for several chunks and a block of partials on every backend. */
Test(gcp, objective_of_many_chunks_matches_a_direct_sum) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {61, 37, tpt_size(29, 7)};
  problem p = make_problem(&rng, TP_GCP_POISSON, 3, dims, 4, TP_LAYOUT_LEFT, 1);
  check_fg(&p, TP_GCP_POISSON, TP_DTYPE_F64, "many chunks");
  free_problem(&p);
}

Test(gcp, gradient_matches_differences_of_the_objective) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {4, 5, 3};
  const tp_gcp_loss losses[3] = {TP_GCP_GAUSSIAN, TP_GCP_POISSON, TP_GCP_BERNOULLI_LOGIT};
  for (int l = 0; l < 3; ++l) {
    problem p = make_problem(&rng, losses[l], 3, dims, 2, TP_LAYOUT_LEFT, 1);
    double grad[(4 + 5 + 3) * 2], scratch[(4 + 5 + 3) * 2];
    space_fg(&p, losses[l], TP_DTYPE_F64, grad);
    for (int t = 0; t < 6; ++t) {
      const int k = (int)tpt_int(&rng, 0, 2);
      const int64_t i = tpt_int(&rng, 0, p.dims[k] * 2 - 1);
      int64_t off = 0;
      for (int j = 0; j < k; ++j)
        off += p.dims[j] * 2;
      const double keep = p.A[k][i], h = 1e-6;
      p.A[k][i] = keep + h;
      const double fp = space_fg(&p, losses[l], TP_DTYPE_F64, scratch);
      p.A[k][i] = keep - h;
      const double fm = space_fg(&p, losses[l], TP_DTYPE_F64, scratch);
      p.A[k][i] = keep;
      const double fd = (fp - fm) / (2 * h);
      cr_assert(fabs(grad[off + i] - fd) <= 1e-5 * (1 + fabs(fd)),
                "%s: factor %d entry %lld: gradient %.12g, difference %.12g",
                tp_gcp_loss_name(losses[l]), k, (long long)i, grad[off + i], fd);
    }
    free_problem(&p);
  }
}

/* ---- runs ------------------------------------------------------------------------------- */

typedef struct fitted {
  tp_gcp_result res;
  tp_kruskal host; /* normalised model, f64 */
} fitted;

static fitted run_dense(const tp_dense *host_x, const tp_dense *host_w, tp_gcp_options *o) {
  tp_dense X, W;
  TPT_OK(tp_dense_alloc(tpt_space, host_x->dtype, host_x->order, host_x->dims, host_x->layout, &X));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &X, host_x));
  if (host_w) {
    TPT_OK(
        tp_dense_alloc(tpt_space, host_w->dtype, host_w->order, host_w->dims, host_w->layout, &W));
    TPT_OK(tp_dense_copy_to_device(tpt_space, &W, host_w));
  }
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, X.dtype, X.order, X.dims, o->rank, &m));
  fitted f;
  TPT_OK(tp_gcp(tpt_space, &X, host_w ? &W : NULL, o, &m, &f.res));
  TPT_OK(tp_kruskal_alloc(NULL, X.dtype, X.order, X.dims, o->rank, &f.host));
  TPT_OK(tp_kruskal_copy_to_host(tpt_space, &f.host, &m));
  tp_kruskal_free(tpt_space, &m);
  tp_dense_free(tpt_space, &X);
  if (host_w)
    tp_dense_free(tpt_space, &W);
  return f;
}

#define PLANTED_N(loss, k) ((loss) == TP_GCP_BERNOULLI_ODDS ? 40 : (int64_t[3]){24, 20, 18}[k])

/* A planted tensor of the truth's entries (each drawn as the loss's data: Gaussian
 * noise, Poisson counts or Bernoulli odds). */
static void planted(tp_gcp_loss loss, tp_kruskal *truth, tp_dense *x, tpt_rng *rng) {
  /* binary data says less per entry: a larger tensor */
  const int64_t dims[3] = {PLANTED_N(loss, 0), PLANTED_N(loss, 1), PLANTED_N(loss, 2)};
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 3, truth));
  TPT_OK(tp_kruskal_random(truth, tpt_next_u64(rng)));
  for (int k = 0; k < 3; ++k) /* sparser columns: distinct components */
    for (int64_t i = 0; i < dims[k] * 3; ++i) {
      double *v = (double *)truth->factors[k] + i;
      *v = *v < 0.5 ? 0.05 * *v : *v;
    }
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, x));
  const double scale = loss == TP_GCP_POISSON ? 8.0 : loss == TP_GCP_BERNOULLI_ODDS ? 4.0 : 1.0;
  problem p = {3,
               {dims[0], dims[1], dims[2], 0},
               3,
               dims[0] * dims[1] * dims[2],
               TP_LAYOUT_LEFT,
               NULL,
               NULL,
               {NULL}};
  for (int k = 0; k < 3; ++k)
    p.A[k] = (double *)truth->factors[k];
  for (int64_t e = 0; e < p.N; ++e) {
    int64_t idx[3];
    problem_index(&p, e, idx);
    const double m = scale * problem_model(&p, idx);
    double *v = (double *)x->data + e;
    if (loss == TP_GCP_POISSON)
      *v = tpt_poisson(rng, m);
    else if (loss == TP_GCP_BERNOULLI_ODDS)
      *v = tpt_uniform(rng, 0, 1) < m / (1 + m) ? 1.0 : 0.0;
    else
      *v = m + 0.01 * tpt_uniform(rng, -1, 1);
  }
}

static void check_recovery(tp_gcp_loss loss, int masked) {
  tpt_rng rng = tpt_rng_fresh();
  tp_kruskal truth;
  tp_dense x, w;
  planted(loss, &truth, &x, &rng);
  if (masked) {
    TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, x.dims, TP_LAYOUT_LEFT, &w));
    for (int64_t e = 0; e < tp_dense_count(&x); ++e) {
      ((double *)w.data)[e] = tpt_uniform(&rng, 0, 1) < 0.3 ? 0.0 : 1.0;
      if (((double *)w.data)[e] == 0)
        ((double *)x.data)[e] = NAN;
    }
  }
  tp_gcp_options o = tp_gcp_options_default();
  o.rank = 3, o.loss = loss, o.seed = tpt_next_u64(&rng) % 1000 + 1;
  fitted f = run_dense(&x, masked ? &w : NULL, &o);
  const double fms = tpt_factor_match_score(&f.host, &truth);
  cr_assert(fms >= 0.95, "%s%s: factor match score %.4f (loss %.6g after %d iterations, %s)",
            tp_gcp_loss_name(loss), masked ? " with 30%% missing" : "", fms, f.res.loss,
            f.res.iterations, f.res.stop_reason);
  cr_assert(f.res.loss < f.res.initial_loss, "the loss did not go down");
  tp_kruskal_free(NULL, &f.host), tp_kruskal_free(NULL, &truth);
  tp_dense_free(NULL, &x);
  if (masked)
    tp_dense_free(NULL, &w);
}

Test(gcp, recovers_a_planted_gaussian_model_with_holes) { check_recovery(TP_GCP_GAUSSIAN, 1); }
Test(gcp, recovers_a_planted_poisson_model) { check_recovery(TP_GCP_POISSON, 0); }
/* 64000 entries and hundreds of iterations: the HIP CPU runtime's fibers take minutes for
 * what the other backends do in seconds; the kernels are those of the other two cases. */
Test(gcp, recovers_a_planted_bernoulli_model) {
  if (tpt_on_fibers())
    cr_skip_test("the Bernoulli recovery runs on the other backends (fibers: too slow)");
  check_recovery(TP_GCP_BERNOULLI_ODDS, 0);
}

/* Masked entries are never read: NaN or 1e30 there gives the same bits, run to run. */
Test(gcp, masked_entries_change_nothing_and_runs_repeat) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {9, 8, 7};
  tp_dense x, w;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &x));
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &w));
  TPT_OK(tp_dense_random_planted(&x, 2, 0.1, tpt_next_u64(&rng), NULL));
  for (int64_t e = 0; e < tp_dense_count(&x); ++e)
    ((double *)w.data)[e] = tpt_uniform(&rng, 0, 1) < 0.25 ? 0.0 : 1.0;
  tp_gcp_options o = tp_gcp_options_default();
  o.rank = 2, o.max_iters = 40;
  fitted runs[3];
  for (int t = 0; t < 3; ++t) {
    for (int64_t e = 0; e < tp_dense_count(&x); ++e)
      if (((double *)w.data)[e] == 0)
        ((double *)x.data)[e] = t == 1 ? 1e30 : NAN;
    runs[t] = run_dense(&x, &w, &o);
  }
  for (int t = 1; t < 3; ++t) {
    cr_assert(!memcmp(&runs[t].res.loss, &runs[0].res.loss, sizeof(double)),
              "run %d: loss %.17g, first %.17g", t, runs[t].res.loss, runs[0].res.loss);
    for (int k = 0; k < 3; ++k)
      cr_assert(!memcmp(runs[t].host.factors[k], runs[0].host.factors[k],
                        sizeof(double) * (size_t)(dims[k] * 2)),
                "run %d: factor %d differs", t, k);
  }
  for (int t = 0; t < 3; ++t)
    tp_kruskal_free(NULL, &runs[t].host);
  tp_dense_free(NULL, &x), tp_dense_free(NULL, &w);
}

Test(gcp, sparse_input_equals_its_dense_form) {
  tp_coo coo;
  const int64_t dims[3] = {8, 6, 5};
  TPT_OK(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 3, 0.0, 7, &coo, NULL));
  for (int64_t q = 0; q < coo.nnz; ++q) /* counts */
    ((double *)coo.values)[q] = floor(3 * ((double *)coo.values)[q]);
  tp_dense dense;
  TPT_OK(tp_coo_to_dense(&coo, &dense));
  tp_gcp_options o = tp_gcp_options_default();
  o.rank = 2, o.loss = TP_GCP_POISSON, o.max_iters = 30;
  fitted fd = run_dense(&dense, NULL, &o);
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, 2, &m));
  tp_gcp_result rs;
  TPT_OK(tp_gcp_sparse(tpt_space, &coo, NULL, &o, &m, &rs));
  cr_assert(!memcmp(&rs.loss, &fd.res.loss, sizeof(double)), "sparse %.17g, dense %.17g", rs.loss,
            fd.res.loss);
  tp_kruskal_free(tpt_space, &m), tp_kruskal_free(NULL, &fd.host);
  tp_dense_free(NULL, &dense), tp_coo_free(NULL, &coo);
}

/* ---- refusals -------------------------------------------------------------------------- */

static tp_status run_on(const double *values, const double *mask, tp_gcp_options *o) {
  const int64_t dims[3] = {2, 3, 2};
  tp_dense x = {TP_DTYPE_F64, 3, {2, 3, 2}, TP_LAYOUT_LEFT, NULL}, w = x;
  x.data = tpt_to_space(values, sizeof(double) * 12);
  w.data = mask ? tpt_to_space(mask, sizeof(double) * 12) : NULL;
  tp_kruskal m; /* of rank 1 when the options' is wrong */
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, o->rank > 0 ? o->rank : 1, &m));
  tp_status st = tp_gcp(tpt_space, &x, mask ? &w : NULL, o, &m, NULL);
  tp_kruskal_free(tpt_space, &m);
  tpt_free(x.data), tpt_free(w.data);
  return st;
}

Test(gcp, data_the_loss_cannot_take_is_refused_by_entry) {
  double v[12] = {0, 1, 2, 0, 1, 3, 0, 0, 1, 2, 1, 0};
  tp_gcp_options o = tp_gcp_options_default();
  o.rank = 1, o.max_iters = 2, o.loss = TP_GCP_POISSON;
  TPT_OK(run_on(v, NULL, &o));
  v[7] = 2.5; /* X[1, 0, 1] */
  TPT_FAILS_WITH(run_on(v, NULL, &o), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "X[1, 0, 1] = 2.5") && strstr(tp_last_error(), "counts"), "%s",
            tp_last_error());
  double mask[12] = {1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1};
  TPT_OK(run_on(v, mask, &o)); /* the entry is missing */
  o.loss = TP_GCP_BERNOULLI_LOGIT;
  TPT_FAILS_WITH(run_on(v, mask, &o), TP_ERROR_INVALID_ARGUMENT); /* 2 and 3 */
  cr_assert(strstr(tp_last_error(), "X[0, 1, 0] = 2") && strstr(tp_last_error(), "0 or 1"), "%s",
            tp_last_error());
  o.loss = TP_GCP_GAMMA;
  TPT_FAILS_WITH(run_on(v, mask, &o), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "positive"), "%s", tp_last_error());
  o.loss = TP_GCP_GAUSSIAN;
  v[3] = INFINITY;
  TPT_FAILS_WITH(run_on(v, mask, &o), TP_ERROR_INVALID_ARGUMENT);
  const double none[12] = {0};
  TPT_FAILS_WITH(run_on(v, none, &o), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "no observed entry"), "%s", tp_last_error());
}

Test(gcp, options_that_cannot_work_are_refused) {
  const double v[12] = {0, 1, 2, 0, 1, 3, 0, 0, 1, 2, 1, 0};
  tp_gcp_options o = tp_gcp_options_default();
  o.rank = 1, o.max_iters = 2;
  o.loss = TP_GCP_HUBER; /* no threshold */
  TPT_FAILS_WITH(run_on(v, NULL, &o), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "threshold"), "%s", tp_last_error());
  o.loss_param = 0.5;
  TPT_OK(run_on(v, NULL, &o));
  o.loss = TP_GCP_POISSON, o.lower = -1;
  TPT_FAILS_WITH(run_on(v, NULL, &o), TP_ERROR_INVALID_ARGUMENT);
  o.lower = 0.01;
  TPT_OK(run_on(v, NULL, &o));
  o.lower = NAN, o.rank = 0;
  TPT_FAILS_WITH(run_on(v, NULL, &o), TP_ERROR_INVALID_ARGUMENT);
  tp_gcp_loss loss;
  TPT_FAILS_WITH(tp_gcp_loss_from_name("poison", &loss), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "poisson"), "%s", tp_last_error());
  TPT_OK(tp_gcp_loss_from_name("zt-poisson", &loss));
  cr_assert_eq(loss, TP_GCP_ZT_POISSON);
}

/* A lower bound holds for every factor entry of the result. */
Test(gcp, the_lower_bound_holds) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {7, 6, 5};
  tp_dense x;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &x));
  TPT_OK(tp_dense_random_uniform(&x, tpt_next_u64(&rng)));
  for (int64_t e = 0; e < tp_dense_count(&x); ++e)
    ((double *)x.data)[e] -= 0.5; /* negative data pulls factors below 0 */
  tp_gcp_options o = tp_gcp_options_default();
  o.rank = 3, o.lower = 0, o.max_iters = 50;
  fitted f = run_dense(&x, NULL, &o);
  for (int k = 0; k < 3; ++k)
    for (int64_t i = 0; i < dims[k] * 3; ++i)
      cr_assert(((double *)f.host.factors[k])[i] >= 0, "factor %d entry %lld is %g", k,
                (long long)i, ((double *)f.host.factors[k])[i]);
  tp_kruskal_free(NULL, &f.host);
  tp_dense_free(NULL, &x);
}

/* The GPUs' order of a pass (chunks of strided elements) gives the same derivative tensor
 * and the objective up to the order of its sums, on any backend. */
Test(gcp, strided_chunks_give_the_same_pass) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {37, 29, tpt_size(23, 5)};
  problem p = make_problem(&rng, TP_GCP_POISSON, 3, dims, 3, TP_LAYOUT_RIGHT, 1);
  tp_dense X = {TP_DTYPE_F64, 3, {0}, TP_LAYOUT_RIGHT, NULL}, W = X;
  memcpy(X.dims, dims, sizeof dims), memcpy(W.dims, dims, sizeof dims);
  X.data = to_space_as(p.x, p.N, TP_DTYPE_F64), W.data = to_space_as(p.w, p.N, TP_DTYPE_F64);
  tp_kruskal M;
  memset(&M, 0, sizeof M);
  M.dtype = TP_DTYPE_F64, M.order = 3, M.rank = 3;
  for (int k = 0; k < 3; ++k)
    M.dims[k] = dims[k], M.factors[k] = to_space_as(p.A[k], dims[k] * 3, TP_DTYPE_F64);
  const int64_t chunks = tpi_gcp_chunks(p.N);
  double f[2], *y[2];
  for (int v = 0; v < 2; ++v) {
    void *Y = tpt_alloc_poisoned(sizeof(double) * (size_t)p.N);
    double *partial = (double *)tpt_alloc_poisoned(sizeof(double) * (size_t)chunks);
    tpi_gcp_pass pass = {&X, &W, &M, Y, TP_GCP_POISSON, 0.0, v};
    TPT_OK(tpi_gcp_pass_fg(tpt_space, &pass, partial));
    TPT_OK(tpi_gcp_sum_partials(tpt_space, partial, chunks, &f[v]));
    y[v] = (double *)tpt_host_alloc(sizeof(double) * (size_t)p.N);
    tpt_to_host(y[v], Y, sizeof(double) * (size_t)p.N);
    tpt_free(Y), tpt_free(partial);
  }
  cr_assert(fabs(f[0] - f[1]) <= 1e-12 * fabs(f[0]), "objective %.17g and %.17g", f[0], f[1]);
  cr_assert(!memcmp(y[0], y[1], sizeof(double) * (size_t)p.N), "the derivative tensors differ");
  free(y[0]), free(y[1]);
  for (int k = 0; k < 3; ++k)
    tpt_free(M.factors[k]);
  tpt_free(X.data), tpt_free(W.data);
  free_problem(&p);
}
