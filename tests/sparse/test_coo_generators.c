/* The random (uniform, skewed, Pareto and binary values) and planted (Kruskal model plus
 * noise) COO generators: reproducible, pinned, independent of the thread count. */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tests/sparse/tpt_sparse.h"

TestSuite(coo_generators, .init = sparse_setup, .fini = sparse_teardown);

/* ---- the random generator ------------------------------------------------------------------ */

static tp_coo_random_options random_options(tp_dtype dtype, int order, const int64_t *dims,
                                            int64_t nnz, uint64_t seed) {
  tp_coo_random_options o;
  memset(&o, 0, sizeof o);
  o.dtype = dtype, o.order = order, o.nnz = nnz, o.seed = seed;
  memcpy(o.dims, dims, sizeof(int64_t) * (size_t)order);
  o.values = TP_COO_VALUES_UNIFORM;
  return o;
}

Test(coo_generators, random_is_reproducible_and_seeds_differ) {
  const int64_t dims[4] = {30, 20, 10, 7};
  for (int d = 0; d < 2; ++d) {
    tp_coo_random_options o = random_options(both_dtypes[d], 4, dims, 5000, 42);
    o.skew[0] = 2;
    tp_coo a, b, c;
    int64_t merged;
    TPT_OK(tp_coo_random(&o, &a, &merged));
    cr_assert(merged > 0 && a.nnz + merged == 5000, "merged %lld", (long long)merged);
    TPT_OK(tp_coo_validate(&a));
    assert_sorted_unique(&a);
    TPT_OK(tp_coo_random(&o, &b, NULL));
    assert_same_tensor(&a, &b);
    o.seed = 43;
    TPT_OK(tp_coo_random(&o, &c, NULL));
    int differ = a.nnz != c.nnz;
    for (int64_t k = 0; k < a.nnz && !differ; ++k)
      differ = a.indices[0][k] != c.indices[0][k] || value_at(&a, k) != value_at(&c, k);
    cr_assert(differ, "seeds 42 and 43 gave the same tensor");
    tp_coo_free(NULL, &a), tp_coo_free(NULL, &b), tp_coo_free(NULL, &c);
  }
}

/* Uniform indices and values involve no library maths: the same on every platform. */
Test(coo_generators, random_values_are_pinned) {
  const int64_t dims[3] = {7, 11, 1000003};
  const struct {
    int64_t i, j, k;
    double v;
  } want[4] = {{3, 8, 90222, 0x1.efac999b3906p-3},
               {4, 4, 201769, 0x1.9722aec462ae7p-1},
               {6, 2, 490518, 0x1.8ce6fa129f0c8p-2},
               {6, 7, 140661, 0x1.8fa7b6f9fcd28p-3}};
  tp_coo_random_options o = random_options(TP_DTYPE_F64, 3, dims, 4, 2026);
  tp_coo t;
  TPT_OK(tp_coo_random(&o, &t, NULL));
  cr_assert_eq(t.nnz, 4);
  for (int k = 0; k < 4; ++k)
    cr_assert(t.indices[0][k] == want[k].i && t.indices[1][k] == want[k].j &&
                  t.indices[2][k] == want[k].k && value_at(&t, k) == want[k].v,
              "nonzero %d: (%lld, %lld, %lld) %a", k, (long long)t.indices[0][k],
              (long long)t.indices[1][k], (long long)t.indices[2][k], value_at(&t, k));
  tp_coo_free(NULL, &t);
}

/* Generation, the radix sort's blocks and the text reader's pieces are cut the same
 * way whatever the thread count. */
Test(coo_generators, thread_count_does_not_change_the_results) {
  const int64_t dims[3] = {300, 200, 100};
  tp_coo_random_options o = random_options(TP_DTYPE_F32, 3, dims, 1200000, 9);
  o.skew[0] = 3, o.values = TP_COO_VALUES_PARETO, o.alpha = 1.1;
  tp_coo a, b, ta, tb;
  const char *path = tmp_path("threads.tns");
#ifdef _OPENMP
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  TPT_OK(tp_coo_random(&o, &a, NULL));
  TPT_OK(tp_coo_write_tns(path, &a));
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F32, 3, dims, &ta, NULL));
#ifdef _OPENMP
  omp_set_num_threads(threads > 1 ? threads : 4);
#endif
  TPT_OK(tp_coo_random(&o, &b, NULL));
  TPT_OK(tp_coo_read_tns(path, TP_DTYPE_F32, 3, dims, &tb, NULL));
  assert_same_tensor(&a, &b);
  assert_same_tensor(&a, &ta);
  assert_same_tensor(&a, &tb);
  tp_coo_free(NULL, &a), tp_coo_free(NULL, &b), tp_coo_free(NULL, &ta), tp_coo_free(NULL, &tb);
}

/* Share of the nonzeros in the 10% most populated slices of mode m. */
static double top_decile_share(const tp_coo *t, int m) {
  int64_t *count = tpt_host_alloc(sizeof(int64_t) * (size_t)t->dims[m]);
  memset(count, 0, sizeof(int64_t) * (size_t)t->dims[m]);
  for (int64_t k = 0; k < t->nnz; ++k)
    ++count[t->indices[m][k]];
  int64_t top = 0, slices = t->dims[m] / 10;
  for (int64_t s = 0; s < slices; ++s) { /* selection of the largest counts */
    int64_t best = 0;
    for (int64_t i = 1; i < t->dims[m]; ++i)
      best = count[i] > count[best] ? i : best;
    top += count[best];
    count[best] = -1;
  }
  free(count);
  return (double)top / (double)t->nnz;
}

Test(coo_generators, skew_concentrates_nonzeros_in_few_slices) {
  const int64_t dims[3] = {1000, 1000, 1000};
  tp_coo_random_options o = random_options(TP_DTYPE_F64, 3, dims, 20000, 7);
  o.skew[0] = 4; /* P(index < 100) = 0.1^(1/4) = 0.56 */
  tp_coo t;
  TPT_OK(tp_coo_random(&o, &t, NULL));
  double skewed = top_decile_share(&t, 0), plain = top_decile_share(&t, 1);
  cr_assert(skewed > 0.5, "skew 4: the top 10%% of slices hold %.3f of the nonzeros", skewed);
  cr_assert(plain < 0.2, "skew 1: the top 10%% of slices hold %.3f of the nonzeros", plain);
  tp_coo_free(NULL, &t);
}

Test(coo_generators, pareto_and_binary_values) {
  const int64_t dims[3] = {8, 9, 10};
  tp_coo_random_options o = random_options(TP_DTYPE_F32, 3, dims, 3000, 5);
  o.values = TP_COO_VALUES_PARETO, o.alpha = 0.7;
  tp_coo t;
  int64_t merged;
  TPT_OK(tp_coo_random(&o, &t, &merged));
  cr_assert_gt(merged, 0);
  for (int64_t k = 0; k < t.nnz; ++k)
    cr_assert(value_at(&t, k) >= 1 && isfinite(value_at(&t, k)), "value %g", value_at(&t, k));
  tp_coo_free(NULL, &t);
  o.values = TP_COO_VALUES_ONES;
  TPT_OK(tp_coo_random(&o, &t, &merged));
  cr_assert_gt(merged, 0, "duplicates were drawn");
  for (int64_t k = 0; k < t.nnz; ++k)
    cr_assert_eq(value_at(&t, k), 1.0);
  tp_coo_free(NULL, &t);
  o.values = TP_COO_VALUES_UNIFORM, o.nnz = 50, o.dims[0] = 1000; /* few duplicates */
  TPT_OK(tp_coo_random(&o, &t, &merged));
  for (int64_t k = 0; k < t.nnz; ++k)
    cr_assert(value_at(&t, k) >= 0 && value_at(&t, k) < (merged ? 2 : 1));
  tp_coo_free(NULL, &t);
}

Test(coo_generators, random_rejects_bad_options) {
  const int64_t dims[2] = {5, 5};
  tp_coo t;
  tp_coo_random_options o = random_options(TP_DTYPE_F64, 2, dims, 10, 1);
  o.order = 0;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  o = random_options(TP_DTYPE_F64, 2, dims, -1, 1);
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("nnz -1");
  o = random_options(TP_DTYPE_F64, 2, dims, 10, 1);
  o.skew[1] = -1;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("skew[1]");
  o.skew[1] = NAN;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  o.skew[1] = 0, o.values = TP_COO_VALUES_PARETO, o.alpha = 0;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("alpha");
  o.values = (tp_coo_values)9;
  TPT_FAILS_WITH(tp_coo_random(&o, &t, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(t.values == NULL);
  o = random_options(TP_DTYPE_F64, 2, dims, 0, 1);
  TPT_OK(tp_coo_random(&o, &t, NULL));
  cr_assert_eq(t.nnz, 0);
  tp_coo_free(NULL, &t);
}

/* ---- the planted generator ------------------------------------------------------------------- */

static double kruskal_at(const tp_kruskal *u, const int64_t *idx) {
  double s = 0;
  for (int64_t r = 0; r < u->rank; ++r) {
    double x =
        u->dtype == TP_DTYPE_F32 ? ((const float *)u->lambda)[r] : ((const double *)u->lambda)[r];
    for (int m = 0; m < u->order; ++m) {
      int64_t e = idx[m] * u->rank + r;
      x *= u->dtype == TP_DTYPE_F32 ? ((const float *)u->factors[m])[e]
                                    : ((const double *)u->factors[m])[e];
    }
    s += x;
  }
  return s;
}

/* Every coordinate of the small dense shape: the model is nonzero exactly on the stored
 * pattern, where it equals the stored value. */
static void assert_planted_exact(const tp_coo *t, const tp_kruskal *u) {
  int64_t idx[TP_COO_MAX_ORDER] = {0}, k = 0;
  double tol = t->dtype == TP_DTYPE_F32 ? 1e-6 : 1e-14;
  for (;;) {
    double model = kruskal_at(u, idx);
    int stored = k < t->nnz;
    for (int m = 0; m < t->order && stored; ++m)
      stored = t->indices[m][k] == idx[m];
    cr_assert_eq(model != 0, stored, "nonzero pattern differs from the model at nonzero %lld",
                 (long long)k);
    if (stored) {
      cr_assert(fabs(value_at(t, k) - model) <= tol * model, "nonzero %lld: %.17g vs %.17g",
                (long long)k, value_at(t, k), model);
      ++k;
    }
    int m = t->order - 1;
    for (; m >= 0 && ++idx[m] == t->dims[m]; --m)
      idx[m] = 0;
    if (m < 0)
      break;
  }
  cr_assert_eq(k, t->nnz);
}

Test(coo_generators, planted_values_are_the_kruskal_model) {
  const int64_t dims[4] = {9, 7, 11, 5};
  for (int d = 0; d < 2; ++d)
    for (int order = 2; order <= 4; ++order) {
      tp_coo t;
      tp_kruskal u;
      const int64_t rank = 3, support = 4;
      TPT_OK(tp_coo_random_planted(both_dtypes[d], order, dims, rank, support, 0, 11, &t, &u));
      int64_t bound = rank;
      for (int m = 0; m < order; ++m)
        bound *= support;
      cr_assert(t.nnz > 0 && t.nnz <= bound, "nnz %lld, bound %lld", (long long)t.nnz,
                (long long)bound);
      TPT_OK(tp_coo_validate(&t));
      assert_sorted_unique(&t);
      assert_planted_exact(&t, &u);
      for (int m = 0; m < order; ++m)
        for (int64_t r = 0; r < rank; ++r) {
          int64_t nonzero_rows = 0;
          for (int64_t i = 0; i < dims[m]; ++i) {
            double x = both_dtypes[d] == TP_DTYPE_F32 ? ((float *)u.factors[m])[i * rank + r]
                                                      : ((double *)u.factors[m])[i * rank + r];
            cr_assert(x == 0 || (x >= 0.5 && x < 1.5), "factor entry %g", x);
            nonzero_rows += x != 0;
          }
          cr_assert_eq(nonzero_rows, support < dims[m] ? support : dims[m]);
        }
      tp_coo_free(NULL, &t);
      tp_kruskal_free(NULL, &u);
    }
}

Test(coo_generators, planted_noise_is_relative_and_reproducible) {
  const int64_t dims[3] = {40, 30, 20};
  tp_coo a, b;
  tp_kruskal u;
  TPT_OK(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 10, 0.01, 3, &a, &u));
  TPT_OK(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 10, 0.01, 3, &b, NULL));
  assert_same_tensor(&a, &b);
  double sum2 = 0;
  for (int64_t k = 0; k < a.nnz; ++k) {
    int64_t idx[3] = {a.indices[0][k], a.indices[1][k], a.indices[2][k]};
    double rel = value_at(&a, k) / kruskal_at(&u, idx) - 1;
    sum2 += rel * rel;
  }
  double rms = sqrt(sum2 / (double)a.nnz);
  cr_assert(rms > 0.008 && rms < 0.012, "relative noise %.4f, expected about 0.01", rms);
  tp_coo_free(NULL, &a), tp_coo_free(NULL, &b);
  tp_kruskal_free(NULL, &u);
}

Test(coo_generators, planted_rejects_bad_arguments) {
  const int64_t dims[3] = {4, 4, 4};
  tp_coo t;
  tp_kruskal u;
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_F64, 1, dims, 2, 2, 0, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("order 1");
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 0, 2, 0, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("rank 0");
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 0, 0, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("support 0");
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 2, -1, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("noise");
  TPT_FAILS_WITH(tp_coo_random_planted(TP_DTYPE_I8, 3, dims, 2, 2, 0, 1, &t, &u),
                 TP_ERROR_INVALID_ARGUMENT);
  cr_assert(t.values == NULL && u.lambda == NULL);
}
