/* GCP-Adam: the sampled objective's mean over many draws against the exact objective
 * (dense uniform and sparse stratified samples); the loss at hand-made samples (its sum
 * by chunks, consecutive or strided, and y alone) against a direct evaluation; the
 * sampled MTTKRP against a direct sum
 * (rows without samples, repeated rows, outputs poisoned); planted models recovered from
 * sparse counts and dense data; a run is the same bits for any thread count and run to
 * run; the options it refuses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tenport/gcp.h"
#include "tenport/primitives.h"
#include "algorithms/gcp/tp_gcp_internal.h"

TestSuite(gcp_adam, .init = tpt_setup, .fini = tpt_teardown);

static const int64_t dims[3] = {9, 8, 7};
enum { RANK = 2, N = 9 * 8 * 7 };

/* A sparse count tensor (about a sixth of the entries nonzero) and its dense form. */
static void count_tensor(tpt_rng *rng, tp_coo *coo, double *dense) {
  int64_t nnz = 0;
  for (int64_t e = 0; e < N; ++e) {
    dense[e] = tpt_uniform(rng, 0, 1) < 0.17 ? (double)tpt_int(rng, 1, 5) : 0.0;
    nnz += dense[e] != 0;
  }
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, nnz, coo));
  for (int64_t e = 0, j = 0; e < N; ++e) {
    if (dense[e] == 0)
      continue;
    coo->indices[0][j] = e % 9, coo->indices[1][j] = (e / 9) % 8, coo->indices[2][j] = e / 72;
    ((double *)coo->values)[j++] = dense[e];
  }
}

static void random_factors(tpt_rng *rng, double *A[3]) {
  for (int k = 0; k < 3; ++k) {
    A[k] = (double *)tpt_host_alloc(sizeof(double) * (size_t)(dims[k] * RANK));
    for (int64_t i = 0; i < dims[k] * RANK; ++i)
      A[k][i] = tpt_uniform(rng, 0.2, 1.0);
  }
}

static double exact_objective(const double *x, double *A[3], tp_gcp_loss loss) {
  double f = 0;
  for (int64_t e = 0; e < N; ++e) {
    const int64_t i = e % 9, j = (e / 9) % 8, k = e / 72;
    double m = 0;
    for (int r = 0; r < RANK; ++r)
      m += A[0][i * RANK + r] * A[1][j * RANK + r] * A[2][k * RANK + r];
    double fe;
    TPT_OK(tp_gcp_loss_eval(loss, 0, x[e], m, &fe, NULL));
    f += fe;
  }
  return f;
}

static tp_kruskal space_model(double *A[3]) {
  tp_kruskal M;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, RANK, &M));
  for (int k = 0; k < 3; ++k)
    TPT_OK(tp_copy_to_device(tpt_space, M.factors[k], A[k], sizeof(double) * dims[k] * RANK));
  return M;
}

/* Mean and standard error of the sampled objective over `draws` function samples. */
static void sampled_mean(const tpi_gcp_source *src, const tp_kruskal *M, int draws, double *mean,
                         double *stderr_out) {
  tp_gcp_options o = tp_gcp_options_default();
  o.function_samples = 40, o.function_zeros = 60, o.gradient_samples = 40;
  int64_t capacity[2];
  TPT_OK(src->plan(src->ctx, &o, capacity));
  tpi_gcp_sample_view v;
  memset(&v, 0, sizeof v);
  void *block = tpt_alloc_poisoned((size_t)capacity[0] * (3 * sizeof(double) + 3 * 4));
  v.x = (double *)block, v.w = v.x + capacity[0], v.y = v.w + capacity[0];
  for (int k = 0; k < 3; ++k)
    v.idx[k] = (uint32_t *)(v.y + capacity[0]) + k * capacity[0];
  double *partial = (double *)tpt_alloc_poisoned(sizeof(double) * (size_t)capacity[0]);
  double sum = 0, sum2 = 0;
  for (int t = 0; t < draws; ++t) {
    int64_t count;
    TPT_OK(src->draw(src->ctx, tpt_space, 0, 1000 + (uint64_t)t * 7919, v, &count));
    tpi_gcp_sample_eval q = {v, count, M, TP_GCP_POISSON, 0, 0, 0};
    double f;
    TPT_OK(tpi_gcp_sample_fg(tpt_space, &q, partial));
    TPT_OK(tpi_gcp_sum_partials(tpt_space, partial, tpi_gcp_chunks(count), &f));
    sum += f, sum2 += f * f;
  }
  *mean = sum / draws;
  *stderr_out = sqrt(fmax(sum2 / draws - *mean * *mean, 0) / draws);
  tpt_free(block), tpt_free(partial);
}

Test(gcp_adam, stratified_and_uniform_estimates_average_to_the_objective) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo coo;
  double x[N], *A[3];
  count_tensor(&rng, &coo, x);
  random_factors(&rng, A);
  tp_kruskal M = space_model(A);
  const double exact = exact_objective(x, A, TP_GCP_POISSON);
  tpi_gcp_source sparse, dense;
  TPT_OK(tpi_gcp_sparse_source(tpt_space, &coo, TP_GCP_POISSON, &sparse));
  tp_dense X = {TP_DTYPE_F64, 3, {9, 8, 7}, TP_LAYOUT_LEFT, tpt_to_space(x, sizeof x)};
  TPT_OK(tpi_gcp_dense_source(tpt_space, &X, NULL, TP_GCP_POISSON, 0, 0, &dense));
  const tpi_gcp_source *src[2] = {&sparse, &dense};
  for (int s = 0; s < 2; ++s) {
    double mean, se;
    sampled_mean(src[s], &M, 3000, &mean, &se);
    cr_assert(fabs(mean - exact) <= 5 * se + 1e-9 * fabs(exact),
              "%s: mean estimate %.6g (standard error %.3g), objective %.6g",
              s ? "dense" : "sparse", mean, se, exact);
    cr_assert(se < 0.05 * fabs(exact), "the estimate is too noisy to say: %g", se);
  }
  sparse.release(sparse.ctx), dense.release(dense.ctx);
  tp_kruskal_free(tpt_space, &M);
  tpt_free(X.data);
  tp_coo_free(NULL, &coo);
  for (int k = 0; k < 3; ++k)
    free(A[k]);
}

/* The Poisson loss at hand-made samples (some of weight 0) against a direct evaluation:
 * the sum of w f over the chunks' partials, consecutive and strided, and y = w df/dm with
 * the sum and alone (y poisoned before each). */
Test(gcp_adam, sample_loss_matches_a_direct_evaluation) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t S = tpt_int(&rng, 700, 3000); /* several chunks of 64 */
  double *A[3];
  random_factors(&rng, A);
  tp_kruskal M = space_model(A);
  uint32_t *idx[3];
  double *x = (double *)tpt_host_alloc(sizeof(double) * (size_t)S);
  double *w = (double *)tpt_host_alloc(sizeof(double) * (size_t)S);
  double *y = (double *)tpt_host_alloc(sizeof(double) * (size_t)S);
  double f_sum = 0;
  for (int k = 0; k < 3; ++k) {
    idx[k] = (uint32_t *)tpt_host_alloc(sizeof(uint32_t) * (size_t)S);
    for (int64_t s = 0; s < S; ++s)
      idx[k][s] = (uint32_t)tpt_int(&rng, 0, dims[k] - 1);
  }
  for (int64_t s = 0; s < S; ++s) {
    x[s] = (double)tpt_int(&rng, 0, 4), w[s] = tpt_int(&rng, 0, 9) ? tpt_uniform(&rng, 0.5, 3) : 0;
    double m = 0;
    for (int r = 0; r < RANK; ++r)
      m += A[0][idx[0][s] * RANK + r] * A[1][idx[1][s] * RANK + r] * A[2][idx[2][s] * RANK + r];
    f_sum += w[s] * (m - x[s] * log(m + 1e-10));
    y[s] = w[s] * (1 - x[s] / (m + 1e-10));
  }
  tpi_gcp_sample_view v;
  memset(&v, 0, sizeof v);
  for (int k = 0; k < 3; ++k)
    v.idx[k] = (uint32_t *)tpt_to_space(idx[k], sizeof(uint32_t) * (size_t)S);
  v.x = (double *)tpt_to_space(x, sizeof(double) * (size_t)S);
  v.w = (double *)tpt_to_space(w, sizeof(double) * (size_t)S);
  double *got = (double *)tpt_host_alloc(sizeof(double) * (size_t)S);
  double *partial = (double *)tpt_alloc_poisoned(sizeof(double) * (size_t)tpi_gcp_chunks(S));
  for (int pass = 0; pass < 3; ++pass) { /* consecutive chunks, strided chunks, y alone */
    v.y = (double *)tpt_alloc_poisoned(sizeof(double) * (size_t)S);
    tpi_gcp_sample_eval q = {v, S, &M, TP_GCP_POISSON, 0, 1, pass == 0 ? 2 : 1};
    TPT_OK(tpi_gcp_sample_fg(tpt_space, &q, pass < 2 ? partial : NULL));
    if (pass < 2) {
      double f;
      TPT_OK(tpi_gcp_sum_partials(tpt_space, partial, tpi_gcp_chunks(S), &f));
      cr_assert(fabs(f - f_sum) <= 1e-12 * fabs(f_sum), "pass %d: sum %.15g, direct %.15g", pass, f,
                f_sum);
    }
    tpt_to_host(got, v.y, sizeof(double) * (size_t)S);
    for (int64_t s = 0; s < S; ++s)
      cr_assert(fabs(got[s] - y[s]) <= 1e-12 * (1 + fabs(y[s])),
                "pass %d sample %lld of %lld: y %.15g, direct %.15g", pass, (long long)s,
                (long long)S, got[s], y[s]);
    tpt_free(v.y);
  }
  tpt_free(partial), tpt_free(v.x), tpt_free(v.w);
  for (int k = 0; k < 3; ++k)
    tpt_free(v.idx[k]), free(idx[k]), free(A[k]);
  free(x), free(w), free(y), free(got);
  tp_kruskal_free(tpt_space, &M);
}

/* The sampled MTTKRP of hand-made samples against a direct sum; rows of mode 1 without
 * samples come out 0 (the output starts poisoned). */
Test(gcp_adam, sampled_mttkrp_matches_a_direct_sum) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t S = tpt_int(&rng, 50, 300);
  double *A[3];
  random_factors(&rng, A);
  tp_kruskal M = space_model(A);
  uint32_t *idx[3];
  double *y = (double *)tpt_host_alloc(sizeof(double) * (size_t)S);
  for (int k = 0; k < 3; ++k) {
    idx[k] = (uint32_t *)tpt_host_alloc(sizeof(uint32_t) * (size_t)S);
    for (int64_t s = 0; s < S; ++s) /* mode 1 never uses rows 3 and 4 */
      idx[k][s] = (uint32_t)(k == 1 ? (tpt_int(&rng, 0, 5) + 2 * (tpt_int(&rng, 0, 5) > 2)) % 8
                                    : tpt_int(&rng, 0, dims[k] - 1));
  }
  for (int64_t s = 0; s < S; ++s)
    y[s] = tpt_uniform(&rng, -1, 1);
  tpi_gcp_sample_view v;
  memset(&v, 0, sizeof v);
  for (int k = 0; k < 3; ++k)
    v.idx[k] = (uint32_t *)tpt_to_space(idx[k], sizeof(uint32_t) * (size_t)S);
  v.y = (double *)tpt_to_space(y, sizeof(double) * (size_t)S);
  uint32_t *keys = (uint32_t *)tpt_alloc_poisoned(2 * sizeof(uint32_t) * (size_t)S);
  tpi_gcp_sample_eval q = {v, S, &M, TP_GCP_GAUSSIAN, 0, 1, 0};
  for (int n = 0; n < 3; ++n) {
    void *G = tpt_alloc_poisoned(sizeof(double) * (size_t)(dims[n] * RANK));
    TPT_OK(tpi_gcp_sample_sort_keys(tpt_space, v.idx[n], S, keys, keys + S));
    TPT_OK(tp_sort_pairs_u32_u32(tpt_space, keys, keys + S, S, 0, 32));
    TPT_OK(tpi_gcp_sample_mttkrp(tpt_space, &q, n, keys, keys + S, G));
    double got[9 * RANK], want[9 * RANK];
    tpt_to_host(got, G, sizeof(double) * (size_t)(dims[n] * RANK));
    memset(want, 0, sizeof want);
    for (int64_t s = 0; s < S; ++s)
      for (int r = 0; r < RANK; ++r) {
        double p = y[s];
        for (int k = 0; k < 3; ++k)
          p *= k == n ? 1.0 : A[k][idx[k][s] * RANK + r];
        want[idx[n][s] * RANK + r] += p;
      }
    for (int64_t i = 0; i < dims[n] * RANK; ++i)
      cr_assert(fabs(got[i] - want[i]) <= 1e-12 * (1 + fabs(want[i])),
                "mode %d entry %lld: %.15g, direct %.15g", n, (long long)i, got[i], want[i]);
    tpt_free(G);
  }
  tpt_free(keys), tpt_free(v.y);
  for (int k = 0; k < 3; ++k)
    tpt_free(v.idx[k]), free(idx[k]), free(A[k]);
  free(y);
  tp_kruskal_free(tpt_space, &M);
}

/* ---- runs ---------------------------------------------------------------------------------- */

static tp_gcp_options adam_options(tp_gcp_loss loss, int64_t rank) {
  tp_gcp_options o = tp_gcp_options_default();
  o.solver = TP_GCP_SOLVER_ADAM, o.loss = loss, o.rank = rank;
  o.epochs = 40, o.epoch_iters = 50, o.rate = 0.01;
  return o;
}

typedef struct fitted {
  tp_gcp_result res;
  tp_kruskal host;
} fitted;

static fitted run_sparse(tp_space *space, const tp_coo *coo, const tp_gcp_options *o) {
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(space, coo->dtype, coo->order, coo->dims, o->rank, &m));
  fitted f;
  TPT_OK(tp_gcp_sparse(space, coo, NULL, o, &m, &f.res));
  TPT_OK(tp_kruskal_alloc(NULL, coo->dtype, coo->order, coo->dims, o->rank, &f.host));
  TPT_OK(tp_kruskal_copy_to_host(space, &f.host, &m));
  tp_kruskal_free(space, &m);
  return f;
}

/* Poisson counts of a planted rank-2 model with distinct sparse columns. */
Test(gcp_adam, recovers_a_planted_sparse_count_model) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t pd[3] = {30, 25, 20};
  tp_kruskal truth;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, pd, 2, &truth));
  for (int k = 0; k < 3; ++k)
    for (int64_t i = 0; i < pd[k]; ++i)
      for (int r = 0; r < 2; ++r) /* component r lives on its half of each mode */
        ((double *)truth.factors[k])[i * 2 + r] =
            (i < pd[k] / 2) == (r == 0) ? tpt_uniform(&rng, 0.5, 1.5) : 0.0;
  int64_t nnz = 0, cap = 30 * 25 * 20;
  tp_coo coo;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, pd, cap, &coo));
  for (int64_t i = 0; i < 30; ++i)
    for (int64_t j = 0; j < 25; ++j)
      for (int64_t k = 0; k < 20; ++k) {
        double m = 0;
        for (int r = 0; r < 2; ++r)
          m += 2.0 * ((double *)truth.factors[0])[i * 2 + r] *
               ((double *)truth.factors[1])[j * 2 + r] * ((double *)truth.factors[2])[k * 2 + r];
        double p = tpt_uniform(&rng, 0, 1), limit = exp(-m);
        int c = 0;
        while (p > limit)
          p *= tpt_uniform(&rng, 0, 1), ++c;
        if (c > 0) {
          coo.indices[0][nnz] = i, coo.indices[1][nnz] = j, coo.indices[2][nnz] = k;
          ((double *)coo.values)[nnz++] = c;
        }
      }
  coo.nnz = nnz;
  tp_gcp_options o = adam_options(TP_GCP_POISSON, 2);
  o.seed = tpt_next_u64(&rng) % 100 + 1;
  fitted f = run_sparse(tpt_space, &coo, &o);
  const double score = tpt_factor_match_score(&f.host, &truth);
  cr_assert(score >= 0.95, "match score %.4f (estimate %.6g from %.6g after %d epochs, %s)", score,
            f.res.loss, f.res.initial_loss, f.res.iterations, f.res.stop_reason);
  cr_assert(f.res.loss_is_estimate);
  tp_kruskal_free(NULL, &f.host), tp_kruskal_free(NULL, &truth);
  tp_coo_free(NULL, &coo);
}

/* Dense data through uniform samples: the exact loss of the result is reported. */
Test(gcp_adam, fits_a_dense_gaussian_tensor_and_reports_the_exact_loss) {
  tp_dense host, X;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &host));
  TPT_OK(tp_dense_random_planted(&host, RANK, 0.01, 5, NULL));
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &X));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &X, &host));
  tp_gcp_options o = adam_options(TP_GCP_GAUSSIAN, RANK);
  o.gradient_samples = 200;
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, RANK, &m));
  tp_gcp_result res;
  TPT_OK(tp_gcp(tpt_space, &X, NULL, &o, &m, &res));
  cr_assert(!res.loss_is_estimate);
  double norm2 = 0;
  for (int64_t e = 0; e < N; ++e)
    norm2 += ((double *)host.data)[e] * ((double *)host.data)[e];
  cr_assert(res.loss < 0.01 * norm2, "loss %g against ||X||^2 %g after %d epochs (%s)", res.loss,
            norm2, res.iterations, res.stop_reason);
  tp_kruskal_free(tpt_space, &m);
  tp_dense_free(tpt_space, &X), tp_dense_free(NULL, &host);
}

/* The same seed gives the same bits on 1 and 3 threads and twice on one space. */
Test(gcp_adam, runs_do_not_depend_on_threads) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo coo;
  double x[N];
  count_tensor(&rng, &coo, x);
  tp_gcp_options o = adam_options(TP_GCP_POISSON, RANK);
  o.epochs = 5;
  tp_space *spaces[2] = {tpt_space, NULL};
  tp_space_options so = tp_space_options_default();
  so.threads = 3;
  TPT_OK(tp_space_create(&spaces[1], &so));
  fitted f[3] = {run_sparse(spaces[0], &coo, &o), run_sparse(spaces[1], &coo, &o),
                 run_sparse(spaces[0], &coo, &o)};
  for (int t = 1; t < 3; ++t) {
    cr_assert(!memcmp(&f[t].res.loss, &f[0].res.loss, sizeof(double)), "run %d: %.17g vs %.17g", t,
              f[t].res.loss, f[0].res.loss);
    for (int k = 0; k < 3; ++k)
      cr_assert(!memcmp(f[t].host.factors[k], f[0].host.factors[k],
                        sizeof(double) * (size_t)(dims[k] * RANK)),
                "run %d: factor %d differs", t, k);
  }
  for (int t = 0; t < 3; ++t)
    tp_kruskal_free(NULL, &f[t].host);
  TPT_OK(tp_space_destroy(&spaces[1]));
  tp_coo_free(NULL, &coo);
}

Test(gcp_adam, refusals) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo coo;
  double x[N];
  count_tensor(&rng, &coo, x);
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, RANK, &m));
  tp_gcp_options o = adam_options(TP_GCP_POISSON, RANK);
  o.rate = 0;
  TPT_FAILS_WITH(tp_gcp_sparse(tpt_space, &coo, NULL, &o, &m, NULL), TP_ERROR_INVALID_ARGUMENT);
  o = adam_options(TP_GCP_POISSON, RANK), o.decay = 2;
  TPT_FAILS_WITH(tp_gcp_sparse(tpt_space, &coo, NULL, &o, &m, NULL), TP_ERROR_INVALID_ARGUMENT);
  o = adam_options(TP_GCP_POISSON, RANK);
  TPT_FAILS_WITH(tp_gcp_sparse(tpt_space, &coo, &coo, &o, &m, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "missing"), "%s", tp_last_error());
  ((double *)coo.values)[0] = 0.5; /* not a count */
  TPT_FAILS_WITH(tp_gcp_sparse(tpt_space, &coo, NULL, &o, &m, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "counts"), "%s", tp_last_error());
  tp_kruskal_free(tpt_space, &m);
  tp_coo_free(NULL, &coo);
}
