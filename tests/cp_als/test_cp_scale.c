/* CP-ALS does not depend on the tensor's units: a tensor scaled by a power of two from
 * 2^-660 (its squares underflow) to 2^530 (they overflow) gives bit-identical factors
 * and fit, and lambda scaled exactly; scaled by 1e-200 or 1e160, the same fit up to
 * rounding. Dense tensors, and sparse ones built from the host and in the space. */
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(cp_scale, .init = tpt_setup, .fini = tpt_teardown);

static const int64_t dims[3] = {9, 7, 8};
enum { RANK = 3 };

typedef struct outcome {
  tp_kruskal model; /* on the host */
  double fit;
} outcome;

/* CP-ALS (seed 5, line search on) of the planted tensor times scale. */
static outcome run_scaled(double scale) {
  tp_dense host, dev;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &host));
  TPT_OK(tp_dense_random_planted(&host, RANK, 0.05, 17, NULL));
  double *x = (double *)host.data;
  for (int64_t i = 0; i < tp_dense_count(&host); ++i)
    x[i] *= scale;
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &dev));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &dev, &host));
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = RANK, o.max_iters = 20, o.tol = 0, o.seed = 5;
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, RANK, &m));
  tp_cp_als_result res;
  TPT_OK(tp_cp_als(tpt_space, &dev, &o, &m, &res));
  outcome out;
  out.fit = res.fit;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, RANK, &out.model));
  TPT_OK(tp_kruskal_copy_to_host(tpt_space, &out.model, &m));
  tp_kruskal_free(tpt_space, &m);
  tp_dense_free(tpt_space, &dev);
  tp_dense_free(NULL, &host);
  return out;
}

Test(cp_scale, powers_of_two_from_underflow_to_overflow_give_the_same_bits) {
  outcome unit = run_scaled(1.0);
  cr_assert(unit.fit > 0.9, "the unit run's fit is %g", unit.fit);
  const int exps[4] = {-660, -300, 300, 530};
  for (int t = 0; t < 4; ++t) {
    double scale = ldexp(1.0, exps[t]);
    outcome o = run_scaled(scale);
    cr_assert(!memcmp(&o.fit, &unit.fit, sizeof(double)), "2^%d: fit %.17g, at scale 1 %.17g",
              exps[t], o.fit, unit.fit);
    for (int k = 0; k < 3; ++k)
      cr_assert(!memcmp(o.model.factors[k], unit.model.factors[k],
                        sizeof(double) * (size_t)(dims[k] * RANK)),
                "2^%d: factor %d differs from the unit run's", exps[t], k);
    for (int r = 0; r < RANK; ++r) {
      double got = ((double *)o.model.lambda)[r], want = ((double *)unit.model.lambda)[r] * scale;
      cr_assert(got == want, "2^%d: lambda[%d] = %.17g, not %.17g", exps[t], r, got, want);
    }
    tp_kruskal_free(NULL, &o.model);
  }
  tp_kruskal_free(NULL, &unit.model);
}

Test(cp_scale, decimal_extremes_give_the_same_fit) {
  outcome unit = run_scaled(1.0);
  const double scales[2] = {1e-200, 1e160};
  for (int t = 0; t < 2; ++t) {
    outcome o = run_scaled(scales[t]);
    cr_assert(fabs(o.fit - unit.fit) <= 1e-9, "scale %g: fit %.15g, at scale 1 %.15g", scales[t],
              o.fit, unit.fit);
    tp_kruskal_free(NULL, &o.model);
  }
  tp_kruskal_free(NULL, &unit.model);
}

/* ---- sparse ------------------------------------------------------------------------------ */

enum { SPARSE_FROM_HOST, SPARSE_IN_SPACE };

/* CP-ALS (seed 5) of a planted sparse tensor times scale, FLYCOO built as `how` says. */
static outcome run_sparse_scaled(double scale, int how) {
  tp_coo host;
  TPT_OK(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, RANK, 5, 0.05, 11, &host, NULL));
  double *x = (double *)host.values;
  for (int64_t k = 0; k < host.nnz; ++k)
    x[k] *= scale;
  tp_flycoo *fly = NULL;
  if (how == SPARSE_IN_SPACE) {
    tp_coo dev;
    TPT_OK(tp_coo_copy_to_device(tpt_space, &dev, &host));
    TPT_OK(tp_flycoo_create_in_space(tpt_space, &dev, NULL, &fly));
    tp_coo_free(tpt_space, &dev);
  } else {
    TPT_OK(tp_flycoo_create(tpt_space, &host, NULL, &fly));
  }
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = RANK, o.max_iters = 20, o.tol = 0, o.seed = 5;
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, RANK, &m));
  tp_cp_als_result res;
  TPT_OK(tp_cp_als_sparse(tpt_space, fly, &o, &m, &res));
  outcome out;
  out.fit = res.fit;
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, RANK, &out.model));
  TPT_OK(tp_kruskal_copy_to_host(tpt_space, &out.model, &m));
  tp_kruskal_free(tpt_space, &m);
  TPT_OK(tp_flycoo_destroy(&fly));
  tp_coo_free(NULL, &host);
  return out;
}

Test(cp_scale, sparse_powers_of_two_give_the_same_bits) {
  for (int how = SPARSE_FROM_HOST; how <= SPARSE_IN_SPACE; ++how) {
    outcome unit = run_sparse_scaled(1.0, how);
    cr_assert(unit.fit > 0.9, "the unit run's fit is %g", unit.fit);
    const int exps[4] = {-660, -300, 300, 530};
    for (int t = 0; t < 4; ++t) {
      double scale = ldexp(1.0, exps[t]);
      outcome o = run_sparse_scaled(scale, how);
      cr_assert(!memcmp(&o.fit, &unit.fit, sizeof(double)),
                "build %d, 2^%d: fit %.17g, at scale "
                "1 %.17g",
                how, exps[t], o.fit, unit.fit);
      for (int k = 0; k < 3; ++k)
        cr_assert(!memcmp(o.model.factors[k], unit.model.factors[k],
                          sizeof(double) * (size_t)(dims[k] * RANK)),
                  "build %d, 2^%d: factor %d differs from the unit run's", how, exps[t], k);
      for (int r = 0; r < RANK; ++r) {
        double got = ((double *)o.model.lambda)[r];
        double want = ((double *)unit.model.lambda)[r] * scale;
        cr_assert(got == want, "build %d, 2^%d: lambda[%d] = %.17g, not %.17g", how, exps[t], r,
                  got, want);
      }
      tp_kruskal_free(NULL, &o.model);
    }
    tp_kruskal_free(NULL, &unit.model);
  }
}

Test(cp_scale, sparse_decimal_extremes_give_the_same_fit) {
  outcome unit = run_sparse_scaled(1.0, SPARSE_FROM_HOST);
  const double scales[2] = {1e-200, 1e160};
  for (int t = 0; t < 2; ++t) {
    for (int how = SPARSE_FROM_HOST; how <= SPARSE_IN_SPACE; ++how) {
      outcome o = run_sparse_scaled(scales[t], how);
      cr_assert(fabs(o.fit - unit.fit) <= 1e-9, "build %d, scale %g: fit %.15g, at scale 1 %.15g",
                how, scales[t], o.fit, unit.fit);
      tp_kruskal_free(NULL, &o.model);
    }
  }
  tp_kruskal_free(NULL, &unit.model);
}
