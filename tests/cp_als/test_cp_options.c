/* CP-ALS's options beyond plain ALS, each against a reference of its own on fresh random
 * tensors: the ridge solve against the regularised normal equations, fixed modes left
 * as given, the nvecs start against the eigen-equation of each unfolding's Gram (and
 * sparse against dense), the line search never lowering the fit on 100 planted
 * problems, restarts returning the best start, the time limit, the final signs, and
 * the options' errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(cp_options, .init = tpt_setup, .fini = tpt_teardown);

/* ---- a dense problem and its runs ---------------------------------------------------- */

typedef struct problem {
  tp_dense host, dev;
  double norm_x;
} problem;

/* A random tensor of the given shape (planted rank plus noise: rank 0 for uniform). */
static void make_problem(problem *p, const int64_t *dims, int order, int64_t rank, double noise,
                         uint64_t seed) {
  memset(p, 0, sizeof *p);
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, order, dims, TP_LAYOUT_LEFT, &p->host));
  if (rank > 0)
    TPT_OK(tp_dense_random_planted(&p->host, rank, noise, seed, NULL));
  else
    TPT_OK(tp_dense_random_uniform(&p->host, seed));
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, order, dims, TP_LAYOUT_LEFT, &p->dev));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &p->dev, &p->host));
  double s = 0.0;
  for (int64_t i = 0; i < tp_dense_count(&p->host); ++i)
    s += ((double *)p->host.data)[i] * ((double *)p->host.data)[i];
  p->norm_x = sqrt(s);
}

static void free_problem(problem *p) {
  tp_dense_free(tpt_space, &p->dev);
  tp_dense_free(NULL, &p->host);
}

/* CP-ALS into a fresh model, returned on the host. */
static tp_status run_cp(const problem *p, const tp_cp_als_options *o, tp_kruskal *host_model,
                        tp_cp_als_result *res) {
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, p->host.order, p->host.dims, o->rank, &m));
  tp_status st = tp_cp_als(tpt_space, &p->dev, o, &m, res);
  if (st == TP_SUCCESS) {
    TPT_OK(tp_kruskal_alloc(NULL, m.dtype, m.order, m.dims, m.rank, host_model));
    TPT_OK(tp_kruskal_copy_to_host(tpt_space, host_model, &m));
  }
  tp_kruskal_free(tpt_space, &m);
  return st;
}

static double explicit_fit(const problem *p, const tp_kruskal *k) {
  double resid;
  TPT_OK(tp_cp_residual_reference(&p->host, k, &resid));
  return 1 - resid / p->norm_x;
}

static double *factor(const tp_kruskal *k, int m) { return (double *)k->factors[m]; }

static void random_start(const problem *p, int64_t rank, uint64_t seed, tp_kruskal *init) {
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, p->host.order, p->host.dims, rank, init));
  TPT_OK(tp_kruskal_random(init, seed));
}

/* ---- the ridge solve ------------------------------------------------------------------- */

/* One ALS iteration in double on the host, as the library's first: per mode n,
 * U_n = MTTKRP (V + reg I)^{-1}, then unit 2-norm columns with the norms in lambda. */
static void reference_iteration(const problem *p, tp_kruskal *k, double reg) {
  const int64_t R = k->rank;
  double *V = tpt_host_alloc(sizeof(double) * (size_t)(R * R));
  for (int n = 0; n < k->order; ++n) {
    const int64_t I = k->dims[n];
    double *G = tpt_host_alloc(sizeof(double) * (size_t)(I * R));
    TPT_OK(tp_mttkrp_reference(&p->host, k, n, G));
    for (int64_t a = 0; a < R; ++a)
      for (int64_t b = 0; b < R; ++b) {
        double prod = 1.0;
        for (int m = 0; m < k->order; ++m) {
          if (m == n)
            continue;
          double s = 0.0;
          for (int64_t i = 0; i < k->dims[m]; ++i)
            s += factor(k, m)[i * R + a] * factor(k, m)[i * R + b];
          prod *= s;
        }
        V[a * R + b] = prod + (a == b ? reg : 0.0);
      }
    tpt_solve_rows(V, R, G, I, factor(k, n));
    for (int64_t r = 0; r < R; ++r) {
      double s = 0.0;
      for (int64_t i = 0; i < I; ++i)
        s += factor(k, n)[i * R + r] * factor(k, n)[i * R + r];
      double norm = sqrt(s);
      ((double *)k->lambda)[r] = norm;
      for (int64_t i = 0; i < I; ++i)
        factor(k, n)[i * R + r] /= norm;
    }
    free(G);
  }
  free(V);
}

static double max_diff(const tp_kruskal *a, const tp_kruskal *b) {
  double worst = 0.0;
  for (int64_t r = 0; r < a->rank; ++r)
    worst = fmax(worst, tpt_rel_diff(((double *)a->lambda)[r], ((double *)b->lambda)[r]));
  for (int m = 0; m < a->order; ++m)
    for (int64_t i = 0; i < a->dims[m] * a->rank; ++i)
      worst = fmax(worst, fabs(factor(a, m)[i] - factor(b, m)[i]));
  return worst;
}

Test(cp_options, ridge_solves_the_regularised_normal_equations) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {7 + tpt_int(&rng, 0, 4), 5, 6 + tpt_int(&rng, 0, 5)};
  problem p;
  make_problem(&p, dims, 3, 3, 0.2, tpt_next_u64(&rng));
  const double regs[3] = {0.0, 0.37, 5.0};
  for (int t = 0; t < 3; ++t) {
    tp_kruskal init, ref, got;
    random_start(&p, 4, tpt_next_u64(&rng), &init);
    random_start(&p, 4, 0, &ref);
    for (int m = 0; m < 3; ++m)
      memcpy(ref.factors[m], init.factors[m], sizeof(double) * (size_t)(dims[m] * 4));
    reference_iteration(&p, &ref, regs[t] * p.norm_x);
    tp_cp_als_options o = tp_cp_als_options_default();
    o.rank = 4, o.max_iters = 1, o.normalize = 0, o.init = &init, o.reg = regs[t] * p.norm_x;
    tp_cp_als_result res;
    TPT_OK(run_cp(&p, &o, &got, &res));
    cr_expect_leq(max_diff(&got, &ref), 1e-9,
                  "reg %g: the model differs from the reference "
                  "by %g",
                  o.reg, max_diff(&got, &ref));
    cr_expect_leq(fabs(res.fit - explicit_fit(&p, &got)), 1e-10,
                  "reg %g: fit %.12f, "
                  "explicit %.12f",
                  o.reg, res.fit, explicit_fit(&p, &got));
    tp_kruskal_free(NULL, &init), tp_kruskal_free(NULL, &ref), tp_kruskal_free(NULL, &got);
  }
  free_problem(&p);
}

/* ---- fixed modes ----------------------------------------------------------------------- */

Test(cp_options, fixed_modes_keep_their_factors_and_the_fit_is_the_explicit_one) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {6, 7 + tpt_int(&rng, 0, 3), 5, 8};
  problem p;
  make_problem(&p, dims, 4, 3, 0.05, tpt_next_u64(&rng));
  const uint32_t sets[3] = {1u << 0 | 1u << 2, 1u << 3, 1u << 1 | 1u << 3}; /* last mode too */
  for (int t = 0; t < 3; ++t)
    for (int normalize = 0; normalize <= 1; ++normalize) {
      tp_kruskal init, got;
      random_start(&p, 3, tpt_next_u64(&rng), &init);
      tp_cp_als_options o = tp_cp_als_options_default();
      o.rank = 3, o.max_iters = 30, o.init = &init, o.fixed_modes = sets[t];
      o.normalize = normalize;
      tp_cp_als_result res;
      TPT_OK(run_cp(&p, &o, &got, &res));
      for (int m = 0; m < 4; ++m)
        if (sets[t] >> m & 1u)
          cr_expect(
              !memcmp(got.factors[m], init.factors[m], sizeof(double) * (size_t)(dims[m] * 3)),
              "fixed 0x%x: factor %d changed", sets[t], m);
      cr_expect_leq(fabs(res.fit - explicit_fit(&p, &got)), 1e-10,
                    "fixed 0x%x, normalize %d: fit %.12f, explicit %.12f", sets[t], normalize,
                    res.fit, explicit_fit(&p, &got));
      tp_kruskal_free(NULL, &init), tp_kruskal_free(NULL, &got);
    }
  free_problem(&p);
}

/* ---- the nvecs start --------------------------------------------------------------------- */

/* Y_k = X_(k) X_(k)^T of a host tensor (first index fastest), in double. */
static double *unfolding_gram(const tp_dense *X, int k) {
  const int64_t I = X->dims[k], n = tp_dense_count(X);
  double *Y = tpt_host_alloc(sizeof(double) * (size_t)(I * I));
  memset(Y, 0, sizeof(double) * (size_t)(I * I));
  int64_t stride = 1;
  for (int m = 0; m < k; ++m)
    stride *= X->dims[m];
  const double *x = (const double *)X->data;
  for (int64_t e = 0; e < n; ++e) { /* e and the element with index b in mode k */
    int64_t a = e / stride % I, base = e - a * stride;
    for (int64_t b = 0; b < I; ++b)
      Y[a * I + b] += x[e] * x[base + b * stride];
  }
  return Y;
}

/* The largest eigenvalue of the symmetric I x I matrix A by power iteration. */
static double largest_eigenvalue(const double *A, int64_t I) {
  double *v = tpt_host_alloc(sizeof(double) * (size_t)I),
         *w = tpt_host_alloc(sizeof(double) * (size_t)I);
  for (int64_t i = 0; i < I; ++i)
    v[i] = 1.0 + 0.01 * (double)(i % 7);
  double lambda = 0.0;
  for (int it = 0; it < 3000; ++it) {
    double norm = 0.0;
    for (int64_t i = 0; i < I; ++i) {
      double s = 0.0;
      for (int64_t j = 0; j < I; ++j)
        s += A[i * I + j] * v[j];
      w[i] = s, norm += s * s;
    }
    norm = sqrt(norm);
    if (norm == 0)
      break;
    lambda = norm;
    for (int64_t i = 0; i < I; ++i)
      v[i] = w[i] / norm;
  }
  free(v), free(w);
  return lambda;
}

/* The nvecs columns of factor k against Y_k: orthonormal, each an eigenvector (residual
 * small against the largest eigenvalue), signed with its largest entry positive, and
 * the largest: what Y_k has left once they are removed is no larger than the last. */
static void check_nvecs_factor(const tp_dense *X, const tp_kruskal *K, int k, double tol) {
  const int64_t I = X->dims[k], R = K->rank, want = R < I ? R : I;
  double *Y = unfolding_gram(X, k);
  const double *U = factor(K, k);
  double top = largest_eigenvalue(Y, I), last = 0.0;
  for (int64_t a = 0; a < want; ++a) {
    double theta = 0.0, lead = 0.0;
    for (int64_t i = 0; i < I; ++i) {
      double yu = 0.0;
      for (int64_t j = 0; j < I; ++j)
        yu += Y[i * I + j] * U[j * R + a];
      theta += U[i * R + a] * yu;
      lead = fabs(U[i * R + a]) > fabs(lead) ? U[i * R + a] : lead;
    }
    double resid = 0.0;
    for (int64_t i = 0; i < I; ++i) {
      double yu = 0.0;
      for (int64_t j = 0; j < I; ++j)
        yu += Y[i * I + j] * U[j * R + a];
      resid += (yu - theta * U[i * R + a]) * (yu - theta * U[i * R + a]);
    }
    cr_expect_leq(sqrt(resid), tol * top, "mode %d vector %lld: residual %g of %g", k, (long long)a,
                  sqrt(resid), top);
    cr_expect_gt(lead, 0.0, "mode %d vector %lld: its largest entry is negative", k, (long long)a);
    for (int64_t b = 0; b <= a; ++b) {
      double dot = 0.0;
      for (int64_t i = 0; i < I; ++i)
        dot += U[i * R + a] * U[i * R + b];
      cr_expect_leq(fabs(dot - (a == b)), 1e-8, "mode %d vectors %lld, %lld: dot %g", k,
                    (long long)a, (long long)b, dot);
    }
    for (int64_t i = 0; i < I; ++i) /* deflate */
      for (int64_t j = 0; j < I; ++j)
        Y[i * I + j] -= theta * U[i * R + a] * U[j * R + a];
    last = theta;
  }
  if (want < I)
    cr_expect_leq(largest_eigenvalue(Y, I), last * (1 + 1e-6) + tol * top,
                  "mode %d: an eigenvalue larger than the vectors' own was left", k);
  free(Y);
}

Test(cp_options, nvecs_are_the_leading_eigenvectors_of_each_unfoldings_gram) {
  tpt_rng rng = tpt_rng_fresh();
  /* mode 2 is past the direct eigensolver's size: subspace iteration there */
  const int64_t dims[3] = {9 + tpt_int(&rng, 0, 4), 6, tpt_size(300, 270)};
  problem p;
  make_problem(&p, dims, 3, 4, 0.3, tpt_next_u64(&rng));
  for (int64_t R = 3; R <= 7; R += 4) { /* 7: more columns than mode 1 has rows */
    tp_kruskal K, random;
    random_start(&p, R, 0, &K);
    random_start(&p, R, 11, &random);
    TPT_OK(tp_cp_nvecs_dense(tpt_space, &p.dev, 11, &K));
    for (int k = 0; k < 3; ++k)
      check_nvecs_factor(&p.host, &K, k, 1e-8);
    for (int64_t i = 0; i < dims[1]; ++i) /* columns past I_1 = 6: the random start's */
      cr_expect(R < 7 || factor(&K, 1)[i * R + 6] == factor(&random, 1)[i * R + 6]);
    tp_kruskal_free(NULL, &K), tp_kruskal_free(NULL, &random);
  }
  free_problem(&p);
}

/* The same tensor as COO (a third of its entries zeroed): the sparse Gram's operator
 * gives the dense one's vectors. */
Test(cp_options, sparse_nvecs_agree_with_dense) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {8, 11 + tpt_int(&rng, 0, 3), 7};
  problem p;
  make_problem(&p, dims, 3, 0, 0.0, tpt_next_u64(&rng));
  double *x = (double *)p.host.data;
  const int64_t n = tp_dense_count(&p.host);
  int64_t nnz = 0;
  for (int64_t e = 0; e < n; ++e) {
    x[e] = tpt_int(&rng, 0, 2) == 0 ? 0.0 : x[e];
    nnz += x[e] != 0.0;
  }
  TPT_OK(tp_dense_copy_to_device(tpt_space, &p.dev, &p.host));
  tp_coo coo;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, nnz, &coo));
  for (int64_t e = 0, a = 0; e < n; ++e) {
    if (x[e] == 0.0)
      continue;
    coo.indices[0][a] = e % dims[0], coo.indices[1][a] = e / dims[0] % dims[1];
    coo.indices[2][a] = e / (dims[0] * dims[1]);
    ((double *)coo.values)[a++] = x[e];
  }
  tp_kruskal dense, sparse;
  random_start(&p, 3, 0, &dense);
  random_start(&p, 3, 0, &sparse);
  TPT_OK(tp_cp_nvecs_dense(tpt_space, &p.dev, 5, &dense));
  TPT_OK(tp_cp_nvecs_coo(&coo, 5, &sparse));
  for (int k = 0; k < 3; ++k)
    check_nvecs_factor(&p.host, &sparse, k, 1e-8);
  cr_expect_leq(max_diff(&dense, &sparse), 1e-7, "dense and sparse nvecs differ by %g",
                max_diff(&dense, &sparse));
  tp_coo_free(NULL, &coo);
  tp_kruskal_free(NULL, &dense), tp_kruskal_free(NULL, &sparse);
  free_problem(&p);
}

Test(cp_options, the_nvecs_start_recovers_a_planted_tensor) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {12, 10, 11};
  problem p;
  make_problem(&p, dims, 3, 3, 0.0, tpt_next_u64(&rng));
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 3, o.max_iters = 1000, o.tol = 1e-13, o.init_method = TP_CP_INIT_NVECS;
  tp_kruskal got;
  tp_cp_als_result res;
  TPT_OK(run_cp(&p, &o, &got, &res));
  cr_expect_geq(res.fit, 1 - 1e-6, "fit %.12f from the nvecs start", res.fit);
  tp_kruskal_free(NULL, &got);
  free_problem(&p);
}

/* ---- the line search --------------------------------------------------------------------- */

typedef struct fit_log {
  double fits[512];
  int count, extrapolated, fell;
} fit_log;

static void log_fit(const tp_cp_als_progress *pr, void *user) {
  fit_log *l = (fit_log *)user;
  if (l->count > 0 && pr->fit < l->fits[l->count - 1] - 1e-13)
    ++l->fell;
  if (l->count < 512)
    l->fits[l->count++] = pr->fit;
  l->extrapolated += pr->extrapolated;
}

/* On 100 planted problems (noise, ranks and sizes drawn) the fit never falls from one
 * iteration to the next with the line search, the model is the one whose fit is
 * reported, and the line search ends no lower than plain ALS from the same start (up
 * to the convergence tolerance) while it keeps some of its extrapolations. */
Test(cp_options, the_line_search_never_lowers_the_fit, .timeout = 600) {
  tpt_rng rng = tpt_rng_fresh();
  int kept = 0, problems = (int)tpt_size(100, 12), lower = 0;
  for (int t = 0; t < problems; ++t) {
    const int64_t dims[3] = {tpt_int(&rng, 4, 9), tpt_int(&rng, 4, 9), tpt_int(&rng, 3, 8)};
    const int64_t R = tpt_int(&rng, 2, 4);
    problem p;
    make_problem(&p, dims, 3, R, tpt_uniform(&rng, 0, 0.2), tpt_next_u64(&rng));
    double final[2];
    uint64_t seed = tpt_next_u64(&rng);
    for (int ls = 0; ls <= 1; ++ls) {
      fit_log log;
      memset(&log, 0, sizeof log);
      tp_cp_als_options o = tp_cp_als_options_default();
      o.rank = R, o.seed = seed, o.line_search = ls, o.max_iters = 200, o.tol = 1e-9;
      o.progress = log_fit, o.progress_user = &log;
      tp_kruskal got;
      tp_cp_als_result res;
      TPT_OK(run_cp(&p, &o, &got, &res));
      cr_expect_eq(log.fell, 0, "problem %d, line search %d: the fit fell %d times", t, ls,
                   log.fell);
      cr_expect_leq(fabs(res.fit - explicit_fit(&p, &got)), 1e-9,
                    "problem %d: fit %.12f, "
                    "explicit %.12f",
                    t, res.fit, explicit_fit(&p, &got));
      cr_expect_eq(res.extrapolations, log.extrapolated);
      final[ls] = res.fit, kept += log.extrapolated;
      tp_kruskal_free(NULL, &got);
    }
    lower += final[1] < final[0] - 1e-6;
    free_problem(&p);
  }
  cr_expect_gt(kept, 0, "no extrapolation was ever kept");
  cr_expect_leq(lower, problems / 20,
                "the line search ended lower than plain ALS on %d of "
                "%d problems",
                lower, problems);
}

/* ---- restarts and the time limit -------------------------------------------------------- */

typedef struct start_log {
  double last_fit[8];
  int starts;
} start_log;

static void log_start(const tp_cp_als_progress *pr, void *user) {
  start_log *l = (start_log *)user;
  l->starts = pr->start + 1 > l->starts ? pr->start + 1 : l->starts;
  if (pr->start < 8)
    l->last_fit[pr->start] = pr->fit;
}

Test(cp_options, restarts_return_the_best_start) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {9, 8, 7};
  problem p;
  make_problem(&p, dims, 3, 4, 0.3, tpt_next_u64(&rng));
  start_log log;
  memset(&log, 0, sizeof log);
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 4, o.restarts = 4, o.max_iters = 6, o.seed = tpt_next_u64(&rng);
  o.progress = log_start, o.progress_user = &log;
  tp_kruskal got;
  tp_cp_als_result res;
  TPT_OK(run_cp(&p, &o, &got, &res));
  cr_assert_eq(log.starts, 5);
  cr_expect_eq(res.starts, 5);
  int best = 0;
  for (int s = 1; s < 5; ++s)
    best = log.last_fit[s] > log.last_fit[best] ? s : best;
  cr_expect_eq(res.best_start, best, "best start %d, reported %d", best, res.best_start);
  cr_expect_eq(res.fit, log.last_fit[best]);
  cr_expect_leq(fabs(res.fit - explicit_fit(&p, &got)), 1e-10,
                "the model is not the best "
                "start's: fit %.12f, explicit %.12f",
                res.fit, explicit_fit(&p, &got));
  tp_kruskal_free(NULL, &got);
  free_problem(&p);
}

Test(cp_options, the_time_limit_stops_after_an_iteration) {
  const int64_t dims[3] = {9, 8, 7};
  problem p;
  make_problem(&p, dims, 3, 3, 0.3, 4);
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 3, o.restarts = 3, o.max_seconds = 1e-9, o.tol = 0;
  tp_kruskal got;
  tp_cp_als_result res;
  TPT_OK(run_cp(&p, &o, &got, &res));
  cr_expect(res.stopped_by_time && res.iterations == 1 && res.starts == 1,
            "stopped %d after %d iterations and %d starts", res.stopped_by_time, res.iterations,
            res.starts);
  tp_kruskal_free(NULL, &got);
  free_problem(&p);
}

/* ---- signs ------------------------------------------------------------------------------- */

/* As the Tensor Toolbox's fixsigns leaves them: in each component, at most one factor's
 * entry of largest magnitude is negative. */
Test(cp_options, final_signs_are_fixed_in_pairs) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {5, 6, 4, 7};
  problem p;
  make_problem(&p, dims, 4, 0, 0.0, tpt_next_u64(&rng));
  double *x = (double *)p.host.data, sumsq = 0.0; /* centred: factors of both signs */
  for (int64_t e = 0; e < tp_dense_count(&p.host); ++e)
    x[e] -= 0.5, sumsq += x[e] * x[e];
  p.norm_x = sqrt(sumsq);
  TPT_OK(tp_dense_copy_to_device(tpt_space, &p.dev, &p.host));
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 5, o.max_iters = 20;
  tp_kruskal got;
  tp_cp_als_result res;
  TPT_OK(run_cp(&p, &o, &got, &res));
  for (int64_t r = 0; r < 5; ++r) {
    int negative = 0;
    for (int m = 0; m < 4; ++m) {
      double lead = 0.0;
      for (int64_t i = 0; i < dims[m]; ++i)
        lead = fabs(factor(&got, m)[i * 5 + r]) > fabs(lead) ? factor(&got, m)[i * 5 + r] : lead;
      negative += lead < 0;
    }
    cr_expect_leq(negative, 1, "component %lld: %d factors lead with a negative entry",
                  (long long)r, negative);
    cr_expect_geq(((double *)got.lambda)[r], 0.0);
  }
  cr_expect_leq(fabs(res.fit - explicit_fit(&p, &got)), 1e-10);
  tp_kruskal_free(NULL, &got);
  free_problem(&p);
}

/* ---- errors ------------------------------------------------------------------------------ */

static void expect_refused(const problem *p, tp_cp_als_options o, const char *needle) {
  tp_kruskal got;
  tp_cp_als_result res;
  TPT_FAILS_WITH(run_cp(p, &o, &got, &res), TP_ERROR_INVALID_ARGUMENT);
  cr_expect(strstr(tp_last_error(), needle), "'%s' not in: %s", needle, tp_last_error());
}

Test(cp_options, bad_options_are_refused_by_name) {
  const int64_t dims[3] = {5, 4, 3};
  problem p;
  make_problem(&p, dims, 3, 2, 0.0, 3);
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 2;
  tp_cp_als_options b = o;
  b.reg = -1;
  expect_refused(&p, b, "reg = -1");
  b = o, b.reg = NAN;
  expect_refused(&p, b, "reg");
  b = o, b.fixed_modes = 7;
  expect_refused(&p, b, "fixes every mode");
  b = o, b.fixed_modes = 1u << 3;
  expect_refused(&p, b, "beyond the tensor's 3");
  b = o, b.restarts = -2;
  expect_refused(&p, b, "restarts = -2");
  b = o, b.max_seconds = -1;
  expect_refused(&p, b, "max_seconds");
  b = o, b.init_method = (tp_cp_init_method)7;
  expect_refused(&p, b, "init_method 7");
  b = o, b.line_search = 2;
  expect_refused(&p, b, "line_search = 2");
  free_problem(&p);
}
