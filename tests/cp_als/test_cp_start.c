/* CP-ALS's given start (opts.init): a start ALS cannot move is refused by name, before
 * any iteration: a factor with a column of zeros (that component would stay zero), an
 * all-zero start, a non-finite entry. A start with one small nonzero entry per column is
 * taken. The model CP-ALS writes may not share memory with the tensor or itself. */
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(cp_start, .init = tpt_setup, .fini = tpt_teardown);

static const int64_t dims[3] = {7, 5, 6};
enum { RANK = 3 };

/* CP-ALS of a planted 7x5x6 tensor from the host start init; the status. */
static tp_status run_from(const tp_kruskal *init) {
  tp_dense host, dev;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &host));
  TPT_OK(tp_dense_random_planted(&host, RANK, 0.0, 11, NULL));
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &dev));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &dev, &host));
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = RANK, o.max_iters = 5, o.init = init;
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, RANK, &m));
  tp_cp_als_result res;
  tp_status st = tp_cp_als(tpt_space, &dev, &o, &m, &res);
  tp_kruskal_free(tpt_space, &m);
  tp_dense_free(tpt_space, &dev);
  tp_dense_free(NULL, &host);
  return st;
}

static void random_start(tp_kruskal *k) {
  TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, RANK, k));
  TPT_OK(tp_kruskal_random(k, 3));
}

static void expect_refused(const tp_kruskal *init, tp_status status, const char *needle) {
  TPT_FAILS_WITH(run_from(init), status);
  cr_expect(strstr(tp_last_error(), needle), "'%s' not in: %s", needle, tp_last_error());
}

Test(cp_start, a_column_of_zeros_is_refused_by_factor_and_column) {
  tp_kruskal k;
  random_start(&k);
  double *b = (double *)k.factors[1];
  for (int64_t i = 0; i < dims[1]; ++i)
    b[i * RANK + 2] = 0;
  expect_refused(&k, TP_ERROR_INVALID_ARGUMENT, "factor 1 has a column of zeros (column 2)");
  tp_kruskal_free(NULL, &k);
}

Test(cp_start, an_all_zero_start_is_refused) {
  tp_kruskal k;
  random_start(&k);
  for (int f = 0; f < 3; ++f)
    memset(k.factors[f], 0, sizeof(double) * (size_t)(dims[f] * RANK));
  expect_refused(&k, TP_ERROR_INVALID_ARGUMENT, "factor 0 has a column of zeros (column 0)");
  tp_kruskal_free(NULL, &k);
}

Test(cp_start, a_non_finite_entry_is_refused_where_it_is) {
  tp_kruskal k;
  random_start(&k);
  ((double *)k.factors[2])[4 * RANK + 1] = NAN;
  expect_refused(&k, TP_ERROR_NUMERICAL, "factor 2 has a non-finite value at (4, 1)");
  tp_kruskal_free(NULL, &k);
}

Test(cp_start, one_small_entry_a_column_is_a_start) {
  tp_kruskal k;
  random_start(&k);
  for (int f = 0; f < 3; ++f) {
    double *a = (double *)k.factors[f];
    memset(a, 0, sizeof(double) * (size_t)(dims[f] * RANK));
    for (int r = 0; r < RANK; ++r)
      a[r * RANK + r] = 1e-3;
  }
  TPT_OK(run_from(&k));
  tp_kruskal_free(NULL, &k);
}

/* ---- the model's memory ------------------------------------------------------------ */

Test(cp_start, a_model_factor_over_the_tensors_values_is_refused) {
  tp_dense host, dev;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &host));
  TPT_OK(tp_dense_random_planted(&host, RANK, 0.0, 11, NULL));
  TPT_OK(tp_dense_alloc(tpt_space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &dev));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &dev, &host));
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = RANK, o.max_iters = 2;
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(tpt_space, TP_DTYPE_F64, 3, dims, RANK, &m));
  void *own = m.factors[1];
  m.factors[1] = (double *)dev.data + 10; /* inside the tensor's 210 values */
  tp_cp_als_result res;
  TPT_FAILS_WITH(tp_cp_als(tpt_space, &dev, &o, &m, &res), TP_ERROR_INVALID_ARGUMENT);
  cr_expect(strstr(tp_last_error(), "model factor 1 shares memory with the tensor's values"),
            "message: %s", tp_last_error());
  m.factors[1] = m.factors[0]; /* two factors in one place */
  TPT_FAILS_WITH(tp_cp_als(tpt_space, &dev, &o, &m, &res), TP_ERROR_INVALID_ARGUMENT);
  cr_expect(strstr(tp_last_error(), "model factor 1 shares memory with model factor 0"),
            "message: %s", tp_last_error());
  m.factors[1] = own;
  TPT_OK(tp_cp_als(tpt_space, &dev, &o, &m, &res));
  tp_kruskal_free(tpt_space, &m);
  tp_dense_free(tpt_space, &dev);
  tp_dense_free(NULL, &host);
}
