/* Sparse PRRLU (both launch paths) against the dense complete-pivoting reference:
 * identical pivots, ranks, stops and pivot values on random matrices of awkward shapes,
 * under heavy ties, heavy fill (the store grows) and many pivots (the store compacts);
 * stop rules; round-off; shapes near the 64-bit limit; bad inputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tenport/sttid.h"
#include "algorithms/sttid/tp_prrlu_internal.h"

TestSuite(prrlu, .init = tpt_setup, .fini = tpt_teardown);

typedef enum value_kind { REAL, SMALL_INTS, ONES } value_kind;

static double draw_value(tpt_rng *rng, value_kind kind) {
  if (kind == ONES)
    return 1.0;
  if (kind == SMALL_INTS) {
    int64_t v = tpt_int(rng, -3, 3);
    return v == 0 ? 1.0 : (double)v;
  }
  return tpt_uniform(rng, -1, 1);
}

/* A random rows x cols matrix, each entry present with probability density. */
static tp_spmat random_matrix(tpt_rng *rng, int64_t rows, int64_t cols, double density,
                              value_kind kind) {
  tp_spmat m;
  TPT_OK(tp_spmat_alloc(rows, cols, rows * cols, &m));
  int64_t n = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (tpt_uniform(rng, 0, 1) < density)
        m.row[n] = i, m.col[n] = j, m.values[n++] = draw_value(rng, kind);
  m.nnz = n;
  return m;
}

static double *densify(const tp_spmat *m) {
  double *a = (double *)tpt_host_alloc((size_t)(m->rows * m->cols) * sizeof(double));
  memset(a, 0, (size_t)(m->rows * m->cols) * sizeof(double));
  for (int64_t e = 0; e < m->nnz; ++e)
    a[m->row[e] * m->cols + m->col[e]] = m->values[e];
  return a;
}

static void expect_same(const tp_prrlu_result *s, const tp_prrlu_result *d) {
  cr_assert_eq(s->rank, d->rank, "rank %lld, dense %lld", (long long)s->rank, (long long)d->rank);
  cr_assert_eq(s->stop, d->stop, "stop %s, dense %s", tp_prrlu_stop_name(s->stop),
               tp_prrlu_stop_name(d->stop));
  cr_assert_eq(s->first_pivot, d->first_pivot);
  for (int64_t k = 0; k < s->rank; ++k) {
    cr_assert(s->rows[k] == d->rows[k] && s->cols[k] == d->cols[k],
              "pivot %lld at (%lld, %lld), dense (%lld, %lld)", (long long)k, (long long)s->rows[k],
              (long long)s->cols[k], (long long)d->rows[k], (long long)d->cols[k]);
    cr_assert(s->pivots[k] == d->pivots[k], "pivot %lld value %.17g, dense %.17g", (long long)k,
              s->pivots[k], d->pivots[k]);
  }
}

/* Factors m densely and sparsely, the sparse PRRLU once with three launches per step and
 * once with whole batches in one launch of one team, and compares; returns the rank and
 * (if stop is not NULL) the stop reason. */
static int64_t compare_with_dense_stop(const tp_spmat *m, tp_prrlu_options opt,
                                       tp_prrlu_stop *stop) {
  tp_prrlu_result d;
  double *a = densify(m);
  TPT_OK(tp_prrlu_dense(a, m->rows, m->cols, &opt, &d));
  const int64_t one_team_entries[] = {0, INT64_MAX};
  for (int path = 0; path < 2; ++path) {
    tp_prrlu_result s;
    tpi_prrlu_set_one_team_entries(one_team_entries[path]);
    tp_status st = tp_prrlu(tpt_space, m, &opt, &s);
    tpi_prrlu_set_one_team_entries(-1);
    TPT_OK(st);
    expect_same(&s, &d);
    tp_prrlu_result_free(&s);
  }
  int64_t rank = d.rank;
  if (stop)
    *stop = d.stop;
  free(a);
  tp_prrlu_result_free(&d);
  return rank;
}

static int64_t compare_with_dense(const tp_spmat *m, tp_prrlu_options opt) {
  return compare_with_dense_stop(m, opt, NULL);
}

static tp_prrlu_options options(int64_t rmax, double eps, int relative) {
  tp_prrlu_options o;
  o.rmax = rmax, o.eps = eps, o.eps_relative = relative;
  return o;
}

Test(prrlu, equals_dense_on_awkward_shapes) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t shapes[][2] = {{1, 1}, {1, 7}, {13, 1}, {17, 23}, {40, 31}, {3, 97}, {61, 5}};
  const double densities[] = {0.05, 0.3, 1.0};
  const value_kind kinds[] = {REAL, SMALL_INTS, ONES};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
    for (int d = 0; d < 3; ++d)
      for (int k = 0; k < 3; ++k) {
        tp_spmat m = random_matrix(&rng, shapes[s][0], shapes[s][1], densities[d], kinds[k]);
        compare_with_dense(&m, options(1000, 0, 0));
        compare_with_dense(&m, options(3, 0, 0));
        compare_with_dense(&m, options(1000, 0.3, 1));
        tp_spmat_free(&m);
      }
}

/* Many sparse matrices with ties and fill: stalls, growth and compaction happen at
 * varying points of the pivot loop, also right after an update appended entries. */
Test(prrlu, equals_dense_across_many_sparse_matrices) {
  tpt_rng rng = tpt_rng_fresh();
  for (int c = 0; c < 40; ++c) {
    int64_t rows = tpt_int(&rng, 60, 160), cols = tpt_int(&rng, 60, 160);
    tp_spmat m =
        random_matrix(&rng, rows, cols, tpt_uniform(&rng, 0.01, 0.08), c % 2 ? SMALL_INTS : REAL);
    compare_with_dense(&m, options(1000, 0, 0));
    tp_spmat_free(&m);
  }
}

Test(prrlu, ties_go_to_the_smallest_linear_index) {
  tpt_rng rng = tpt_rng_fresh();
  tp_spmat m = random_matrix(&rng, 29, 37, 0.2, ONES);
  tp_prrlu_options opt = options(1, 0, 0);
  tp_prrlu_result r;
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &r));
  int64_t best = INT64_MAX;
  for (int64_t e = 0; e < m.nnz; ++e)
    best = m.row[e] * m.cols + m.col[e] < best ? m.row[e] * m.cols + m.col[e] : best;
  cr_assert_eq(r.rows[0] * m.cols + r.cols[0], best);
  tp_prrlu_result_free(&r);
  compare_with_dense(&m, options(1000, 0, 0));
  tp_spmat_free(&m);
}

/* An arrow: a dominant corner, a full first row and column and a diagonal. The first
 * elimination fills the whole matrix, far past the store's first capacity. */
Test(prrlu, heavy_fill_grows_the_store) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t n = 211;
  tp_spmat m;
  TPT_OK(tp_spmat_alloc(n, n, 3 * n, &m));
  int64_t k = 0;
  m.row[k] = 0, m.col[k] = 0, m.values[k++] = 100;
  for (int64_t i = 1; i < n; ++i) {
    m.row[k] = 0, m.col[k] = i, m.values[k++] = tpt_uniform(&rng, -1, 1);
    m.row[k] = i, m.col[k] = 0, m.values[k++] = tpt_uniform(&rng, -1, 1);
    m.row[k] = i, m.col[k] = i, m.values[k++] = tpt_uniform(&rng, 1, 2);
  }
  m.nnz = k;
  tp_prrlu_options opt = options(n, 0, 0);
  tp_prrlu_result r;
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &r));
  cr_assert_geq(r.fill, (n - 1) * (n - 1) - (n - 1), "fill %lld", (long long)r.fill);
  cr_assert_eq(r.rank, n);
  tp_prrlu_result_free(&r);
  compare_with_dense(&m, opt);
  tp_spmat_free(&m);
}

/* A block-diagonal matrix of many small blocks: thousands of pivots, each killing a few
 * entries, so dead entries pile up and the store compacts several times. */
Test(prrlu, many_pivots_compact_the_store) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t blocks = 300, b = 3, n = blocks * b;
  tp_spmat m;
  TPT_OK(tp_spmat_alloc(n, n, blocks * b * b, &m));
  int64_t k = 0;
  for (int64_t q = 0; q < blocks; ++q)
    for (int64_t i = 0; i < b; ++i)
      for (int64_t j = 0; j < b; ++j)
        m.row[k] = q * b + i, m.col[k] = q * b + j, m.values[k++] = tpt_uniform(&rng, -1, 1);
  m.nnz = k;
  tp_prrlu_options opt = options(n, 1e-13, 1);
  int64_t rank = compare_with_dense(&m, opt);
  cr_assert_eq(rank, n);
  tp_spmat_free(&m);
}

/* Scattered entries 1, 1/2, 1/4, ... (one per row and column, no fill): the pivots come
 * in that order, so each stop rule has a known answer. */
Test(prrlu, stop_rules) {
  tp_spmat m;
  const int64_t n = 12;
  TPT_OK(tp_spmat_alloc(n + 2, n + 5, n, &m)); /* empty rows and columns too */
  for (int64_t k = 0; k < n; ++k)
    m.row[k] = (7 * k) % n, m.col[k] = (5 * k + 3) % (n + 5),
    m.values[k] = ldexp(k % 2 ? -1 : 1, -(int)k);
  tp_prrlu_options opt = options(5, 0, 0);
  tp_prrlu_result r;
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &r));
  cr_assert(r.rank == 5 && r.stop == TP_PRRLU_STOP_RANK);
  for (int64_t k = 0; k < r.rank; ++k)
    cr_assert(r.rows[k] == m.row[k] && r.cols[k] == m.col[k] && r.pivots[k] == m.values[k]);
  tp_prrlu_result_free(&r);
  opt = options(1000, 0.3, 1); /* 1, 1/2 pass; 1/4 <= 0.3 * 1 stops */
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &r));
  cr_assert(r.rank == 2 && r.stop == TP_PRRLU_STOP_TOLERANCE && r.threshold == 0.3 &&
                r.first_pivot == 1,
            "rank %lld stop %s", (long long)r.rank, tp_prrlu_stop_name(r.stop));
  tp_prrlu_result_free(&r);
  opt = options(1000, 0.125, 0); /* |pivot| <= eps stops: 1/8 is not taken */
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &r));
  cr_assert(r.rank == 3 && r.stop == TP_PRRLU_STOP_TOLERANCE && r.threshold == 0.125);
  tp_prrlu_result_free(&r);
  opt = options(1000, 0, 0); /* every entry is a pivot; then nothing is left */
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &r));
  cr_assert(r.rank == n && r.stop == TP_PRRLU_STOP_EXHAUSTED && r.fill == 0);
  tp_prrlu_result_free(&r);
  /* explicit zeros are never pivots: the matrix is exhausted at once */
  for (int64_t e = 0; e < m.nnz; ++e)
    m.values[e] = 0;
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &r));
  cr_assert(r.rank == 0 && r.stop == TP_PRRLU_STOP_EXHAUSTED);
  tp_prrlu_result_free(&r);
  m.nnz = 0;
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &r));
  cr_assert(r.rank == 0 && r.stop == TP_PRRLU_STOP_EXHAUSTED);
  tp_prrlu_result_free(&r);
  tp_spmat_free(&m);
}

/* B C with B rows x 3 and C 3 x cols has rank 3, but its stored entries are rounded, so
 * the Schur complement after three steps holds round-off of about 2^-52 |first pivot|.
 * eps = 0 must stop there (before the round-off floor, such a matrix gave up to
 * min(rows, cols) "pivots", and STTID singular cross matrices), at any scale; a small
 * genuine pivot above the floor is still taken. */
Test(prrlu, round_off_is_not_a_rank) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t shapes[][2] = {{20, 12}, {7, 31}, {45, 45}};
  const double scales[] = {1e-30, 1, 1e30};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
    const int64_t rows = shapes[s][0], cols = shapes[s][1];
    double b[45 * 3], c[3 * 45];
    for (int64_t k = 0; k < 3 * rows; ++k)
      b[k] = tpt_uniform(&rng, -1, 1);
    for (int64_t k = 0; k < 3 * cols; ++k)
      c[k] = tpt_uniform(&rng, -1, 1);
    for (int sc = 0; sc < 3; ++sc) {
      tp_spmat m;
      TPT_OK(tp_spmat_alloc(rows, cols, rows * cols, &m));
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          double v = b[3 * i] * c[j] + b[3 * i + 1] * c[cols + j] + b[3 * i + 2] * c[2 * cols + j];
          m.row[i * cols + j] = i, m.col[i * cols + j] = j, m.values[i * cols + j] = v * scales[sc];
        }
      tp_prrlu_stop stop;
      int64_t rank = compare_with_dense_stop(&m, options(1000, 0, 0), &stop);
      cr_assert(rank == 3 && stop == TP_PRRLU_STOP_ROUNDOFF,
                "%lld x %lld rank-3 product at scale %g: rank %lld, stop %s", (long long)rows,
                (long long)cols, scales[sc], (long long)rank, tp_prrlu_stop_name(stop));
      tp_spmat_free(&m);
    }
  }
  tp_spmat m; /* diag(1, 1e-12): the second pivot is tiny but real */
  TPT_OK(tp_spmat_alloc(2, 2, 2, &m));
  m.row[0] = m.col[0] = 0, m.row[1] = m.col[1] = 1, m.values[0] = 1, m.values[1] = 1e-12;
  cr_assert_eq(compare_with_dense(&m, options(1000, 0, 0)), 2);
  tp_spmat_free(&m);
}

/* Exact pivots on a diagonal (no update ever touches them) against the floor
 * 4 (s + 1) 2^-52 |first|: 2^-49 at s = 1 and 3 2^-50 at s = 2, inclusive. An eps
 * threshold that is reached first gives the tolerance stop. */
Test(prrlu, round_off_floor_is_four_s_plus_one_ulps_of_the_first_pivot) {
  const struct {
    double d[3];
    double eps;
    int64_t rank;
    tp_prrlu_stop stop;
  } cases[] = {
      {{1, 0x1p-49, 0}, 0, 1, TP_PRRLU_STOP_ROUNDOFF},              /* at the floor */
      {{1, 0x1.01p-49, 0}, 0, 2, TP_PRRLU_STOP_EXHAUSTED},          /* just above */
      {{1, 0x1p-48, 0x3p-50}, 0, 2, TP_PRRLU_STOP_ROUNDOFF},        /* s = 2 */
      {{1, 0x1p-48, 0x1p-48}, 0, 3, TP_PRRLU_STOP_RANK},            /* above it */
      {{1, 0x1p-49, 0}, 1e-10, 1, TP_PRRLU_STOP_TOLERANCE},         /* eps first */
      {{-1e300, 0x1p-49 * 1e300, 0}, 0, 1, TP_PRRLU_STOP_ROUNDOFF}, /* any scale */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    tp_spmat m;
    TPT_OK(tp_spmat_alloc(3, 3, 3, &m));
    m.nnz = 0;
    for (int i = 0; i < 3; ++i)
      if (cases[k].d[i] != 0)
        m.row[m.nnz] = m.col[m.nnz] = i, m.values[m.nnz++] = cases[k].d[i];
    tp_prrlu_stop stop;
    int64_t rank = compare_with_dense_stop(&m, options(1000, cases[k].eps, 0), &stop);
    cr_assert(rank == cases[k].rank && stop == cases[k].stop, "case %zu: rank %lld, stop %s", k,
              (long long)rank, tp_prrlu_stop_name(stop));
    tp_spmat_free(&m);
  }
}

/* Rows and columns near 2^62 in number: keys are formed in compressed coordinates, so
 * nothing wraps, and the pivots come back in the original indices. */
Test(prrlu, shapes_near_the_64_bit_limit) {
  tp_spmat m;
  TPT_OK(tp_spmat_alloc((int64_t)1 << 40, (int64_t)1 << 22, 4, &m));
  const int64_t r[] = {((int64_t)1 << 40) - 1, 5, ((int64_t)1 << 39) + 3, 5};
  const int64_t c[] = {((int64_t)1 << 22) - 1, 0, 17, 17};
  const double v[] = {4, 3, 2, 1};
  for (int e = 0; e < 4; ++e)
    m.row[e] = r[e], m.col[e] = c[e], m.values[e] = v[e];
  tp_prrlu_options opt = options(10, 0, 0);
  tp_prrlu_result res;
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &res));
  cr_assert_eq(res.rank, 3);
  cr_assert(res.rows[0] == r[0] && res.cols[0] == c[0] && res.pivots[0] == 4);
  cr_assert(res.rows[1] == r[1] && res.cols[1] == c[1] && res.pivots[1] == 3);
  cr_assert(res.rows[2] == r[2] && res.cols[2] == c[2] && res.pivots[2] == 2);
  tp_prrlu_result_free(&res);
  tp_spmat_free(&m);
}

Test(prrlu, is_repeatable) {
  tpt_rng rng = tpt_rng_fresh();
  tp_spmat m = random_matrix(&rng, 120, 90, 0.05, SMALL_INTS);
  tp_prrlu_options opt = options(1000, 0, 0);
  tp_prrlu_result a, b;
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &a));
  TPT_OK(tp_prrlu(tpt_space, &m, &opt, &b));
  expect_same(&a, &b);
  tp_prrlu_result_free(&a);
  tp_prrlu_result_free(&b);
  tp_spmat_free(&m);
}

Test(prrlu, rejects_bad_input) {
  tp_spmat m;
  TPT_OK(tp_spmat_alloc(4, 4, 2, &m));
  m.row[0] = 1, m.col[0] = 2, m.values[0] = 1;
  m.row[1] = 1, m.col[1] = 2, m.values[1] = 2;
  tp_prrlu_options opt = options(4, 0, 0);
  tp_prrlu_result r;
  TPT_FAILS_WITH(tp_prrlu(tpt_space, &m, &opt, &r), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "twice"), "%s", tp_last_error());
  m.col[1] = 3, m.values[1] = NAN;
  TPT_FAILS_WITH(tp_prrlu(tpt_space, &m, &opt, &r), TP_ERROR_NUMERICAL);
  m.values[1] = 1, m.col[1] = 4;
  TPT_FAILS_WITH(tp_prrlu(tpt_space, &m, &opt, &r), TP_ERROR_INVALID_ARGUMENT);
  m.col[1] = 3;
  opt.rmax = 0;
  TPT_FAILS_WITH(tp_prrlu(tpt_space, &m, &opt, &r), TP_ERROR_INVALID_ARGUMENT);
  opt.rmax = 4, opt.eps = -1;
  TPT_FAILS_WITH(tp_prrlu(tpt_space, &m, &opt, &r), TP_ERROR_INVALID_ARGUMENT);
  opt.eps = NAN;
  TPT_FAILS_WITH(tp_prrlu(tpt_space, &m, &opt, &r), TP_ERROR_INVALID_ARGUMENT);
  tp_spmat_free(&m);
}

Test(prrlu, reshape_rejects_products_past_2_63) {
  const int64_t dims[3] = {(int64_t)1 << 32, (int64_t)1 << 31, 4};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, 1, &t));
  t.indices[0][0] = t.indices[1][0] = t.indices[2][0] = 0;
  ((double *)t.values)[0] = 1;
  tp_spmat m;
  TPT_FAILS_WITH(tp_spmat_from_coo(&t, 1, &m), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "2^63"), "%s", tp_last_error());
  t.dims[2] = 1; /* exactly 2^63: still one past the largest int64 */
  TPT_FAILS_WITH(tp_spmat_from_coo(&t, 2, &m), TP_ERROR_INVALID_ARGUMENT);
  t.dims[1] = (int64_t)1 << 30;
  TPT_OK(tp_spmat_from_coo(&t, 2, &m));
  cr_assert(m.rows == (int64_t)1 << 62 && m.cols == 1 && m.nnz == 1);
  tp_spmat_free(&m);
  tp_coo_free(NULL, &t);
}
