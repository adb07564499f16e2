/* CP-APR (tp_cp_apr_sparse): Phi against a double-precision product over the nonzeros on
 * awkward shapes (an empty row, f32 and f64, the output poisoned first); the
 * log-likelihood never falling as iterations are added; a planted Poisson tensor
 * recovered (factor match score >= 0.95) with the KKT violation below tolerance; a tensor
 * with an all-zero slice (inadmissible zeros); the same run twice bit for bit; refusals. */
#include <math.h>
#include <string.h>

#include "algorithms/cp_apr/tp_cp_apr_internal.h"
#include "tests/common/tpt.h"

TestSuite(cp_apr, .init = tpt_setup, .fini = tpt_teardown);

/* A random sparse tensor of nnz entries (values in (0, 5)), index 1 of mode 0 left out. */
static void random_coo(tpt_rng *rng, tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                       tp_coo *x) {
  TPT_OK(tp_coo_alloc(NULL, dtype, order, dims, nnz, x));
  for (int64_t j = 0; j < nnz; ++j) {
    for (int k = 0; k < order; ++k) {
      int64_t i = tpt_int(rng, 0, dims[k] - 1);
      x->indices[k][j] = k == 0 && i == 1 ? 0 : i;
    }
    const double v = tpt_uniform(rng, 0.01, 5);
    dtype == TP_DTYPE_F32 ? (void)(((float *)x->values)[j] = (float)v)
                          : (void)(((double *)x->values)[j] = v);
  }
}

static double value_of(const void *a, tp_dtype dtype, int64_t e) {
  return dtype == TP_DTYPE_F32 ? (double)((const float *)a)[e] : ((const double *)a)[e];
}

static void check_phi(tpt_rng *rng, tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                      int64_t R, int n) {
  tp_coo x;
  random_coo(rng, dtype, order, dims, nnz, &x);
  tp_kruskal host, M;
  TPT_OK(tp_kruskal_alloc(NULL, dtype, order, dims, R, &host));
  TPT_OK(tp_kruskal_random(&host, tpt_next_u64(rng)));
  TPT_OK(tp_kruskal_alloc(tpt_space, dtype, order, dims, R, &M));
  TPT_OK(tp_kruskal_copy_to_device(tpt_space, &M, &host));
  tpi_apr_tensor t;
  TPT_OK(tpi_apr_tensor_create(tpt_space, &x, &t));
  const size_t eb = tp_dtype_size(dtype), count = (size_t)(dims[n] * R);
  void *Phi = tpt_alloc_poisoned(eb * count);
  double *v = tpt_alloc_poisoned(sizeof(double) * (size_t)(nnz + 1));
  void *Pi = tpt_alloc_poisoned(eb * (size_t)(nnz * R));
  TPT_OK(tpi_apr_pi(tpt_space, &t, &M, n, Pi));
  double *pieces = tpt_alloc_poisoned(sizeof(double) * (size_t)tpi_apr_pieces_count(nnz, R));
  tpi_apr_phi q = {&t, &M, M.factors[n], Pi, Phi, v, pieces, n, 1e-10};
  TPT_OK(tpi_apr_phi_run(tpt_space, &q));
  void *got = tpt_host_alloc(eb * count);
  tpt_to_host(got, Phi, eb * count);
  double *want = tpt_host_alloc(sizeof(double) * count);
  memset(want, 0, sizeof(double) * count);
  for (int64_t j = 0; j < nnz; ++j) { /* the product, in double */
    double m = 0;
    for (int64_t r = 0; r < R; ++r) {
      double p = 1;
      for (int k = 0; k < order; ++k)
        p *= value_of(host.factors[k], dtype, x.indices[k][j] * R + r);
      m += p;
    }
    const double w = value_of(x.values, dtype, j) / fmax(m, 1e-10);
    for (int64_t r = 0; r < R; ++r) {
      double p = w;
      for (int k = 0; k < order; ++k)
        p *= k == n ? 1.0 : value_of(host.factors[k], dtype, x.indices[k][j] * R + r);
      want[x.indices[n][j] * R + r] += p;
    }
  }
  for (size_t e = 0; e < count; ++e) {
    const double g = value_of(got, dtype, (int64_t)e);
    cr_assert(fabs(g - want[e]) <= (dtype == TP_DTYPE_F32 ? 1e-5 : 1e-12) * fmax(1, fabs(want[e])),
              "%s order %d mode %d rank %lld: Phi[%zu] = %.10g, the product %.10g",
              tp_dtype_name(dtype), order, n, (long long)R, e, g, want[e]);
  }
  free(got), free(want);
  tpt_free(Phi), tpt_free(v), tpt_free(Pi), tpt_free(pieces);
  tpi_apr_tensor_free(tpt_space, &t);
  tp_kruskal_free(tpt_space, &M), tp_kruskal_free(NULL, &host), tp_coo_free(NULL, &x);
}

Test(cp_apr, phi_matches_the_product_over_the_nonzeros) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t d3[3] = {13, 1, 7}, d4[4] = {5, 9, 3, 11};
  for (int single = 0; single <= 1; ++single) {
    const tp_dtype dtype = single ? TP_DTYPE_F32 : TP_DTYPE_F64;
    for (int n = 0; n < 3; ++n)
      check_phi(&rng, dtype, 3, d3, 97, n == 1 ? 1 : 5, n);
    for (int n = 0; n < 4; ++n)
      check_phi(&rng, dtype, 4, d4, 301, 3, n);
  }
}

/* Phi at the pieces' edges (TPI_APR_PIECE nonzeros): mode 1 of d3 is one row, so its
 * only row ends exactly on a piece boundary for nnz a multiple of the piece; fewer
 * nonzeros than a piece; none. */
Test(cp_apr, phi_at_the_edges_of_pieces) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t d3[3] = {13, 1, 7};
  const int64_t counts[5] = {TPI_APR_PIECE, 2 * TPI_APR_PIECE, 3 * TPI_APR_PIECE + 1,
                             TPI_APR_PIECE - 1, 0};
  for (int c = 0; c < 5; ++c)
    for (int n = 0; n < 3; ++n)
      check_phi(&rng, TP_DTYPE_F64, 3, d3, counts[c], 2, n);
}

/* ---- whole runs ------------------------------------------------------------------------ */

/* Poisson counts of a planted rank-2 model with distinct columns; truth on the host. */
static void planted_counts(tpt_rng *rng, tp_coo *x, tp_kruskal *truth) {
  const int64_t dims[3] = {30, 25, 20};
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 2, truth));
  for (int k = 0; k < 3; ++k)
    for (int64_t i = 0; i < dims[k]; ++i)
      for (int r = 0; r < 2; ++r) /* component r lives on the first or second half */
        ((double *)truth->factors[k])[i * 2 + r] =
            (i < dims[k] / 2) == (r == 0) ? tpt_uniform(rng, 0.5, 1) : 0.02;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, dims[0] * dims[1] * dims[2], x));
  int64_t nnz = 0;
  for (int64_t i = 0; i < dims[0]; ++i)
    for (int64_t j = 0; j < dims[1]; ++j)
      for (int64_t k = 0; k < dims[2]; ++k) {
        double m = 0;
        for (int r = 0; r < 2; ++r)
          m += 3 * ((double *)truth->factors[0])[i * 2 + r] *
               ((double *)truth->factors[1])[j * 2 + r] * ((double *)truth->factors[2])[k * 2 + r];
        const double c = tpt_poisson(rng, m);
        if (c > 0) {
          x->indices[0][nnz] = i, x->indices[1][nnz] = j, x->indices[2][nnz] = k;
          ((double *)x->values)[nnz++] = c;
        }
      }
  x->nnz = nnz;
}

static tp_cp_apr_result run(const tp_coo *x, tp_cp_apr_options *o, tp_kruskal *host) {
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, x->dtype, x->order, x->dims, o->rank, &m));
  tp_cp_apr_result res;
  TPT_OK(tp_cp_apr_sparse(tpt_space, x, o, &m, &res));
  TPT_OK(tp_kruskal_alloc(NULL, x->dtype, x->order, x->dims, o->rank, host));
  TPT_OK(tp_kruskal_copy_to_host(tpt_space, host, &m));
  tp_kruskal_free(tpt_space, &m);
  return res;
}

Test(cp_apr, recovers_a_planted_poisson_tensor_and_its_loglikelihood_rises) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo x;
  tp_kruskal truth, got;
  planted_counts(&rng, &x, &truth);
  tp_cp_apr_options o = tp_cp_apr_options_default();
  o.rank = 2, o.seed = 3;
  double last = -INFINITY;
  for (int iters = 1; iters <= 6; ++iters) { /* the same start, more iterations */
    o.max_iters = iters;
    tp_cp_apr_result r = run(&x, &o, &got);
    cr_expect_geq(r.loglik, last - 1e-9 * fabs(last),
                  "loglik after %d iterations %.12g, before %.12g", iters, r.loglik, last);
    last = r.loglik;
    tp_kruskal_free(NULL, &got);
  }
  o.max_iters = 400;
  tp_cp_apr_result r = run(&x, &o, &got);
  cr_expect(r.converged && r.kkt < o.tol, "converged %d after %d iterations, kkt %g", r.converged,
            r.iterations, r.kkt);
  const double fms = tpt_factor_match_score(&got, &truth);
  cr_expect_geq(fms, 0.95, "factor match score %.4f", fms);
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < 2; ++c) { /* columns sum to 1 */
      double s = 0;
      for (int64_t i = 0; i < got.dims[k]; ++i)
        s += ((double *)got.factors[k])[i * 2 + c];
      cr_expect(fabs(s - 1) < 1e-12, "factor %d column %d sums to %.15g", k, c, s);
    }
  tp_kruskal again;
  tp_cp_apr_result r2 = run(&x, &o, &again);
  cr_expect(r2.loglik == r.loglik, "a second run: loglik %.17g, the first %.17g", r2.loglik,
            r.loglik);
  for (int k = 0; k < 3; ++k)
    cr_expect(!memcmp(again.factors[k], got.factors[k], sizeof(double) * (size_t)(got.dims[k] * 2)),
              "a second run: factor %d differs", k);
  tp_kruskal_free(NULL, &again), tp_kruskal_free(NULL, &got), tp_kruskal_free(NULL, &truth);
  tp_coo_free(NULL, &x);
}

Test(cp_apr, an_all_zero_slice_gives_finite_factors_and_zero_rows) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[3] = {9, 8, 7};
  tp_coo x;
  random_coo(&rng, TP_DTYPE_F64, 3, dims, 120, &x); /* mode 0's index 1 never appears */
  for (int64_t j = 0; j < x.nnz; ++j)
    ((double *)x.values)[j] = floor(((double *)x.values)[j]) + 1;
  tp_cp_apr_options o = tp_cp_apr_options_default();
  o.rank = 3, o.max_iters = 50;
  tp_kruskal got;
  tp_cp_apr_result r = run(&x, &o, &got);
  cr_expect(isfinite(r.loglik) && isfinite(r.kkt), "loglik %g kkt %g", r.loglik, r.kkt);
  for (int k = 0; k < 3; ++k)
    for (int64_t e = 0; e < dims[k] * 3; ++e) {
      const double v = ((double *)got.factors[k])[e];
      cr_assert(isfinite(v) && v >= 0, "factor %d entry %lld is %g", k, (long long)e, v);
    }
  for (int c = 0; c < 3; ++c)
    cr_expect_leq(((double *)got.factors[0])[1 * 3 + c], 1e-6, "the empty slice's row: %g",
                  ((double *)got.factors[0])[1 * 3 + c]);
  tp_kruskal_free(NULL, &got), tp_coo_free(NULL, &x);
}

Test(cp_apr, refusals_name_the_problem) {
  const int64_t dims[3] = {4, 3, 2};
  tp_coo x;
  tpt_rng rng = tpt_rng_fresh();
  random_coo(&rng, TP_DTYPE_F64, 3, dims, 10, &x);
  ((double *)x.values)[4] = -1;
  tp_cp_apr_options o = tp_cp_apr_options_default();
  o.rank = 2;
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, 2, &m));
  tp_status st = tp_cp_apr_sparse(tpt_space, &x, &o, &m, NULL);
  cr_expect(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "= -1 (nonzero 4)"),
            "a negative count: %s", tp_last_error());
  ((double *)x.values)[4] = 1;
  o.max_inner = 0;
  st = tp_cp_apr_sparse(tpt_space, &x, &o, &m, NULL);
  cr_expect(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "max_inner"), "%s",
            tp_last_error());
  o = tp_cp_apr_options_default(), o.rank = 3;
  st = tp_cp_apr_sparse(tpt_space, &x, &o, &m, NULL);
  cr_expect(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "rank"), "%s",
            tp_last_error());
  tp_kruskal_free(tpt_space, &m), tp_coo_free(NULL, &x);
}
