/* Sparse CP-ALS over FLYCOO: recovery of planted sparse low-rank tensors, the fit against
 * an explicit residual, agreement with dense CP-ALS on the same tensor, bad inputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tenport/cp_als.h"

TestSuite(cp_als_sparse, .init = tpt_setup, .fini = tpt_teardown);

static const int64_t dims[] = {23, 31, 17};

static tp_coo planted(tp_dtype dtype, int64_t rank, double noise, tp_kruskal *truth) {
  tp_coo t;
  TPT_OK(tp_coo_random_planted(dtype, 3, dims, rank, 5, noise, 11, &t, truth));
  return t;
}

/* The dense tensor of a host COO tensor (first index fastest). */
static tp_dense densify(const tp_coo *t) {
  tp_dense d;
  TPT_OK(tp_dense_alloc(NULL, t->dtype, t->order, t->dims, TP_LAYOUT_LEFT, &d));
  const size_t eb = tp_dtype_size(t->dtype);
  memset(d.data, 0, eb * (size_t)tp_dense_count(&d));
  for (int64_t x = 0; x < t->nnz; ++x) {
    int64_t at = 0, stride = 1;
    for (int m = 0; m < t->order; ++m)
      at += t->indices[m][x] * stride, stride *= t->dims[m];
    memcpy((char *)d.data + (size_t)at * eb, (const char *)t->values + (size_t)x * eb, eb);
  }
  return d;
}

typedef struct fitted {
  tp_cp_als_result res;
  tp_kruskal host;
} fitted;

static fitted run_sparse(const tp_coo *t, const tp_cp_als_options *o) {
  tp_flycoo *fly = NULL;
  TPT_OK(tp_flycoo_create(tpt_space, t, NULL, &fly));
  tp_kruskal model;
  TPT_OK(tp_kruskal_alloc(tpt_space, t->dtype, t->order, t->dims, o->rank, &model));
  fitted f;
  TPT_OK(tp_cp_als_sparse(tpt_space, fly, o, &model, &f.res));
  TPT_OK(tp_kruskal_alloc(NULL, t->dtype, t->order, t->dims, o->rank, &f.host));
  TPT_OK(tp_kruskal_copy_to_host(tpt_space, &f.host, &model));
  tp_kruskal_free(tpt_space, &model);
  TPT_OK(tp_flycoo_destroy(&fly));
  return f;
}

static tp_cp_als_options options(int64_t rank) {
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = rank;
  o.tol = 1e-10;
  o.max_iters = 300;
  o.seed = 5;
  return o;
}

Test(cp_als_sparse, recovers_planted_tensor) {
  const tp_dtype types[] = {TP_DTYPE_F64, TP_DTYPE_F32};
  for (int k = 0; k < 2; ++k) {
    tp_coo t = planted(types[k], 3, 0.0, NULL);
    tp_cp_als_options o = options(3);
    fitted f = run_sparse(&t, &o);
    const double want = types[k] == TP_DTYPE_F64 ? 0.9999 : 0.999;
    cr_assert_geq(f.res.fit, want, "%s: fit %.8f after %d iterations", tp_dtype_name(types[k]),
                  f.res.fit, f.res.iterations);
    cr_assert_eq(f.res.passes_per_iteration, 3);
    tp_kruskal_free(NULL, &f.host);
    tp_coo_free(NULL, &t);
  }
}

/* With noise, the fit reaches (about) the planted model's own fit. */
Test(cp_als_sparse, fit_close_to_planted_fit) {
  tp_kruskal truth;
  tp_coo t = planted(TP_DTYPE_F64, 3, 0.05, &truth);
  tp_dense d = densify(&t);
  double planted_residual = 0, norm = 0;
  TPT_OK(tp_cp_residual_reference(&d, &truth, &planted_residual));
  for (int64_t x = 0; x < t.nnz; ++x)
    norm += ((double *)t.values)[x] * ((double *)t.values)[x];
  const double planted_fit = 1.0 - planted_residual / sqrt(norm);
  tp_cp_als_options o = options(3);
  fitted f = run_sparse(&t, &o);
  cr_assert_geq(f.res.fit, planted_fit - 1e-3, "fit %.6f, planted fit %.6f", f.res.fit,
                planted_fit);
  /* the reported fit is 1 - ||X - M|| / ||X|| computed explicitly */
  double residual = 0;
  TPT_OK(tp_cp_residual_reference(&d, &f.host, &residual));
  cr_assert(fabs(f.res.fit - (1.0 - residual / sqrt(norm))) <= 1e-9, "fit %.12f, explicit %.12f",
            f.res.fit, 1.0 - residual / sqrt(norm));
  tp_kruskal_free(NULL, &f.host);
  tp_kruskal_free(NULL, &truth);
  tp_dense_free(NULL, &d);
  tp_coo_free(NULL, &t);
}

/* Sparse and dense CP-ALS from the same start give the same iterates. */
Test(cp_als_sparse, agrees_with_dense_cp_als) {
  tp_coo t = planted(TP_DTYPE_F64, 2, 0.1, NULL);
  tp_dense host = densify(&t), dev;
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &dev));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &dev, &host));
  tp_cp_als_options o = options(2);
  o.max_iters = 8;
  o.tol = 0;
  fitted s = run_sparse(&t, &o);
  tp_kruskal model;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, 2, &model));
  tp_cp_als_result dense_res;
  TPT_OK(tp_cp_als(tpt_space, &dev, &o, &model, &dense_res));
  cr_assert_eq(s.res.iterations, dense_res.iterations);
  cr_assert(fabs(s.res.fit - dense_res.fit) <= 1e-9, "sparse %.12f dense %.12f", s.res.fit,
            dense_res.fit);
  tp_kruskal_free(tpt_space, &model);
  tp_kruskal_free(NULL, &s.host);
  tp_dense_free(tpt_space, &dev);
  tp_dense_free(NULL, &host);
  tp_coo_free(NULL, &t);
}

Test(cp_als_sparse, bad_inputs) {
  tp_coo t = planted(TP_DTYPE_F64, 2, 0.0, NULL);
  tp_flycoo *fly = NULL;
  TPT_OK(tp_flycoo_create(tpt_space, &t, NULL, &fly));
  tp_kruskal model;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, 2, &model));
  tp_cp_als_options o = options(0);
  TPT_FAILS_WITH(tp_cp_als_sparse(tpt_space, fly, &o, &model, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "rank"), "%s", tp_last_error());
  o = options(3); /* the model has rank 2 */
  TPT_FAILS_WITH(tp_cp_als_sparse(tpt_space, fly, &o, &model, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(tp_flycoo_destroy(&fly));
  /* an all-zero tensor has no fit */
  memset(t.values, 0, sizeof(double) * (size_t)t.nnz);
  TPT_OK(tp_flycoo_create(tpt_space, &t, NULL, &fly));
  o = options(2);
  TPT_FAILS_WITH(tp_cp_als_sparse(tpt_space, fly, &o, &model, NULL), TP_ERROR_NUMERICAL);
  TPT_OK(tp_flycoo_destroy(&fly));
  /* non-finite values are refused when the structure is built */
  ((double *)t.values)[t.nnz / 2] = NAN;
  TPT_FAILS_WITH(tp_flycoo_create(tpt_space, &t, NULL, &fly), TP_ERROR_NUMERICAL);
  cr_assert_null(fly);
  tp_kruskal_free(tpt_space, &model);
  tp_coo_free(NULL, &t);
}

/* Duplicate coordinates add up: each nonzero stored as two halves gives the same fit. */
Test(cp_als_sparse, duplicates_add_up_in_the_fit) {
  tp_coo t = planted(TP_DTYPE_F64, 2, 0.2, NULL), twice;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, 2 * t.nnz, &twice));
  for (int64_t x = 0; x < 2 * t.nnz; ++x) {
    for (int m = 0; m < 3; ++m)
      twice.indices[m][x] = t.indices[m][x % t.nnz];
    ((double *)twice.values)[x] = 0.5 * ((double *)t.values)[x % t.nnz];
  }
  tp_cp_als_options o = options(2);
  o.max_iters = 6;
  o.tol = 0;
  fitted a = run_sparse(&t, &o), b = run_sparse(&twice, &o);
  cr_assert(fabs(a.res.fit - b.res.fit) <= 1e-9, "fit %.12f with duplicates, %.12f without",
            b.res.fit, a.res.fit);
  tp_kruskal_free(NULL, &a.host);
  tp_kruskal_free(NULL, &b.host);
  tp_coo_free(NULL, &twice);
  tp_coo_free(NULL, &t);
}
