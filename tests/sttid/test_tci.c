/* Using a tensor train in TCI form: the LU factors of the crosses and their row solves,
 * pivot multi-indices, single entries, whole-tensor reconstruction, the relative error
 * without densifying, core densities and bad inputs. Tensor trains are built by hand
 * from pivots chosen in the test (exact when the pivots span the unfoldings) and by the
 * dense TT-ID reference; everything is compared with dense computations done here. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "tests/common/tpt.h"
#include "tenport/sttid.h"
#include "algorithms/sttid/tp_tci_internal.h"

TestSuite(tci, .init = tpt_setup, .fini = tpt_teardown);

enum { DENSE_LIMIT = 1 << 22 };

/* ---- index helpers ------------------------------------------------------------------- */

static int64_t count_of(const int64_t *dims, int order) {
  int64_t n = 1;
  for (int m = 0; m < order; ++m)
    n *= dims[m];
  return n;
}

/* Multi-index of C-order position lin (last index fastest). */
static void unflatten_c(int64_t lin, const int64_t *dims, int order, int64_t *idx) {
  for (int m = order - 1; m >= 0; --m)
    idx[m] = lin % dims[m], lin /= dims[m];
}

static int64_t flatten_c(const int64_t *idx, const int64_t *dims, int order) {
  int64_t lin = 0;
  for (int m = 0; m < order; ++m)
    lin = lin * dims[m] + idx[m];
  return lin;
}

/* First-index-fastest position, tp_tci_to_dense's layout. */
static int64_t flatten_left(const int64_t *idx, const int64_t *dims, int order) {
  int64_t lin = 0;
  for (int m = order - 1; m >= 0; --m)
    lin = lin * dims[m] + idx[m];
  return lin;
}

/* ---- tensor trains built by hand ----------------------------------------------------- */

/* A tensor train in TCI form of the dense tensor x (C order) from the given pivots:
 * rows[k][a] = left * dims[k] + u_k and cols[k][a] (C-order index of the later modes), the
 * cores holding x's nonzero entries T(I_{k-1}, u_k, J_k). Written independently of the
 * library: the pivot rows' multi-indices unwind here too. */
static tp_tci tci_from_pivots(const double *x, int order, const int64_t *dims, const int64_t *ranks,
                              int64_t *const *rows, int64_t *const *cols) {
  tp_tci t;
  memset(&t, 0, sizeof t);
  t.order = order;
  memcpy(t.dims, dims, (size_t)order * sizeof(int64_t));
  memcpy(t.ranks, ranks, (size_t)(order + 1) * sizeof(int64_t));
  for (int k = 0; k + 1 < order; ++k) {
    t.pivot_rows[k] = (int64_t *)tpt_host_alloc((size_t)ranks[k + 1] * sizeof(int64_t));
    t.pivot_cols[k] = (int64_t *)tpt_host_alloc((size_t)ranks[k + 1] * sizeof(int64_t));
    memcpy(t.pivot_rows[k], rows[k], (size_t)ranks[k + 1] * sizeof(int64_t));
    memcpy(t.pivot_cols[k], cols[k], (size_t)ranks[k + 1] * sizeof(int64_t));
  }
  for (int k = 0; k < order; ++k) {
    int64_t cdims[3] = {ranks[k], dims[k], ranks[k + 1]}, n = 0;
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1)
        TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, cdims, n, &t.cores[k]));
      n = 0;
      for (int64_t left = 0; left < ranks[k]; ++left)
        for (int64_t u = 0; u < dims[k]; ++u)
          for (int64_t b = 0; b < ranks[k + 1]; ++b) {
            int64_t idx[TP_COO_MAX_ORDER], pos = left;
            for (int j = k - 1; j >= 0; --j) { /* unwind the left-nested prefix */
              idx[j] = rows[j][pos] % dims[j];
              pos = rows[j][pos] / dims[j];
            }
            idx[k] = u;
            if (k + 1 < order)
              unflatten_c(cols[k][b], dims + k + 1, order - k - 1, idx + k + 1);
            double v = x[flatten_c(idx, dims, order)];
            if (v == 0)
              continue;
            if (pass == 1) {
              t.cores[k].indices[0][n] = left, t.cores[k].indices[1][n] = u;
              t.cores[k].indices[2][n] = b, ((double *)t.cores[k].values)[n] = v;
            }
            ++n;
          }
    }
  }
  return t;
}

/* The nonzeros of a dense C-order tensor as a sorted COO tensor. */
static tp_coo coo_of(const double *x, int order, const int64_t *dims) {
  int64_t total = count_of(dims, order), n = 0;
  for (int64_t i = 0; i < total; ++i)
    n += x[i] != 0;
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, order, dims, n, &t));
  n = 0;
  for (int64_t i = 0; i < total; ++i)
    if (x[i] != 0) {
      int64_t idx[TP_COO_MAX_ORDER];
      unflatten_c(i, dims, order, idx);
      for (int m = 0; m < order; ++m)
        t.indices[m][n] = idx[m];
      ((double *)t.values)[n++] = x[i];
    }
  return t;
}

/* A 3 x 4 x 5 tensor of CP rank 2 with zeros (a_0 and a_1 have disjoint support apart
 * from index 2, b_0(2) = 0), other values from rng with magnitudes in [0.5, 1.5]; TT
 * ranks 2 and 2. */
static double *rank2_tensor(tpt_rng *rng, int64_t *dims) {
  dims[0] = 3, dims[1] = 4, dims[2] = 5;
  const double a[2][3] = {{1, 0, 2}, {0, 3, 1}};
  double b[2][4], c[2][5];
  for (int r = 0; r < 2; ++r) {
    for (int j = 0; j < 4; ++j)
      b[r][j] = (j == 2 && r == 0) ? 0 : tpt_uniform(rng, 0.5, 1.5);
    for (int k = 0; k < 5; ++k) /* c_1(4) < 0 keeps rank2_tci's second cross well away
                                    from singular: det = 6 b_1(1) b_0(1) (c_1(4) c_0(1) -
                                    c_1(1) c_0(4)) */
      c[r][k] = tpt_uniform(rng, 0.5, 1.5) * (r == 1 && k == 4 ? -1 : 1);
  }
  double *x = (double *)tpt_host_alloc(60 * sizeof(double));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k)
        x[(i * 4 + j) * 5 + k] = a[0][i] * b[0][j] * c[0][k] + a[1][i] * b[1][j] * c[1][k];
  return x;
}

/* Its exact TCI from pivots in no particular order: bond 0 rows u_0 = 2, 1 and columns
 * (j, k) = (1, 2), (2, 3); bond 1 rows (left, u_1) = (1, 1), (0, 1), that is (u_0, u_1) =
 * (1, 1) and (2, 1), columns u_2 = 4, 1. ((0, 2) would not do: T(2, 2, :) and T(1, 1, :)
 * are both multiples of c_1, a singular cross.) */
static tp_tci rank2_tci(const double *x, const int64_t *dims) {
  int64_t r0[2] = {2, 1}, c0[2] = {1 * 5 + 2, 2 * 5 + 3};
  int64_t r1[2] = {1 * 4 + 1, 0 * 4 + 1}, c1[2] = {4, 1};
  int64_t *rows[2] = {r0, r1}, *cols[2] = {c0, c1};
  const int64_t ranks[4] = {1, 2, 2, 1};
  return tci_from_pivots(x, 3, dims, ranks, rows, cols);
}

/* ---- LU factors and solves ----------------------------------------------------------- */

/* X_k read back from the cores, dense r x r row-major. */
static double *cross_of(const tp_tci *t, int k) {
  int64_t r = t->ranks[k + 1];
  double *x = (double *)tpt_host_alloc((size_t)(r * r) * sizeof(double));
  memset(x, 0, (size_t)(r * r) * sizeof(double));
  const tp_coo *g = &t->cores[k];
  for (int64_t e = 0; e < g->nnz; ++e)
    for (int64_t a = 0; a < r; ++a)
      if (g->indices[0][e] * t->dims[k] + g->indices[1][e] == t->pivot_rows[k][a])
        x[a * r + g->indices[2][e]] = ((double *)g->values)[e];
  return x;
}

/* Factors bond k, checks L U = X and that y X = w for a random w, both to rel_tol. */
static void check_lu(const tp_tci *t, int k, tpt_rng *rng, double rel_tol) {
  tpi_tci_core_rows rows;
  tpi_tci_lu lu;
  TPT_OK(tpi_tci_core_rows_build(&t->cores[k], &rows));
  TPT_OK(tpi_tci_lu_factor(t, k, &rows, &lu));
  int64_t r = t->ranks[k + 1];
  cr_assert_eq(lu.r, r);
  double *x = cross_of(t, k), scale = 0;
  for (int64_t i = 0; i < r * r; ++i)
    scale = fmax(scale, fabs(x[i]));
  for (int64_t i = 0; i < r; ++i) {
    double *lu_row = (double *)tpt_host_alloc((size_t)r * sizeof(double));
    memset(lu_row, 0, (size_t)r * sizeof(double));
    for (int64_t c = 0; c < r; ++c) /* row i of L U = U(i, :) + sum_j L(i, j) U(j, :) */
      lu_row[c] = c == i ? lu.u_diag[i] : 0;
    for (int64_t p = lu.u_ptr[i]; p < lu.u_ptr[i + 1]; ++p) {
      cr_assert_gt(lu.u_col[p], i, "U row %lld holds column %lld", (long long)i,
                   (long long)lu.u_col[p]);
      lu_row[lu.u_col[p]] += lu.u_val[p];
    }
    for (int64_t p = lu.l_ptr[i]; p < lu.l_ptr[i + 1]; ++p) {
      int64_t j = lu.l_col[p];
      cr_assert_lt(j, i, "L row %lld holds column %lld", (long long)i, (long long)j);
      lu_row[j] += lu.l_val[p] * lu.u_diag[j];
      for (int64_t q = lu.u_ptr[j]; q < lu.u_ptr[j + 1]; ++q)
        lu_row[lu.u_col[q]] += lu.l_val[p] * lu.u_val[q];
    }
    for (int64_t c = 0; c < r; ++c)
      cr_assert_leq(fabs(lu_row[c] - x[i * r + c]), rel_tol * scale,
                    "bond %d: (LU)(%lld, %lld) "
                    "= %g, X = %g",
                    k, (long long)i, (long long)c, lu_row[c], x[i * r + c]);
    free(lu_row);
  }
  double *w = (double *)tpt_host_alloc((size_t)r * sizeof(double));
  double *y = (double *)tpt_host_alloc((size_t)r * sizeof(double));
  for (int64_t i = 0; i < r; ++i)
    w[i] = y[i] = tpt_uniform(rng, -1, 1);
  tpi_tci_lu_solve_row(&lu, y);
  for (int64_t c = 0; c < r; ++c) { /* (y X)(c) = w(c) */
    double s = 0, size = 0;
    for (int64_t i = 0; i < r; ++i)
      s += y[i] * x[i * r + c], size += fabs(y[i] * x[i * r + c]);
    cr_assert_leq(fabs(s - w[c]), rel_tol * (size + 1), "bond %d: (y X)(%lld) = %g, w = %g", k,
                  (long long)c, s, w[c]);
  }
  free(w), free(y), free(x);
  tpi_tci_lu_free(&lu);
  tpi_tci_core_rows_free(&rows);
}

Test(tci, lu_factors_and_row_solves_of_hand_built_crosses) {
  tpt_rng rng = tpt_rng_fresh();
  int64_t dims[3];
  double *x = rank2_tensor(&rng, dims);
  tp_tci t = rank2_tci(x, dims);
  check_lu(&t, 0, &rng, 1e-13);
  check_lu(&t, 1, &rng, 1e-13);
  tp_tci_free(&t);
  free(x);
  /* a sparse 4 x 4 cross whose elimination fills in: order 2, every row and column a
   * pivot, in a scrambled order */
  const double m[4][4] = {{4, 0, 1, 0}, {0, 3, 0, 2}, {2, 0, 5, 1}, {0, 1, 0, 6}};
  const int64_t d2[2] = {4, 4}, ranks[3] = {1, 4, 1};
  int64_t r0[4] = {2, 0, 3, 1}, c0[4] = {2, 0, 3, 1}; /* X(1, 2) fills in */
  int64_t *rows[1] = {r0}, *cols[1] = {c0};
  t = tci_from_pivots(&m[0][0], 2, d2, ranks, rows, cols);
  check_lu(&t, 0, &rng, 1e-14);
  tp_tci_free(&t);
}

Test(tci, singular_cross_is_a_numerical_error) {
  /* a rank-1 matrix claimed to have rank 2: X = [[1, 2], [2, 4]] eliminates to an exact
   * zero pivot */
  const double m[3][3] = {{1, 2, 3}, {2, 4, 6}, {3, 6, 9}};
  const int64_t dims[2] = {3, 3}, ranks[3] = {1, 2, 1};
  int64_t r0[2] = {0, 1}, c0[2] = {0, 1};
  int64_t *rows[1] = {r0}, *cols[1] = {c0};
  tp_tci t = tci_from_pivots(&m[0][0], 2, dims, ranks, rows, cols);
  const int64_t idx[2] = {0, 0};
  double v;
  TPT_FAILS_WITH(tp_tci_evaluate(&t, idx, &v), TP_ERROR_NUMERICAL);
  cr_assert(strstr(tp_last_error(), "singular"), "%s", tp_last_error());
  tp_dense full;
  TPT_FAILS_WITH(tp_tci_to_dense(&t, 100, &full), TP_ERROR_NUMERICAL);
  cr_assert_null(full.data);
  tp_coo coo = coo_of(&m[0][0], 2, dims);
  tp_tci_error_info info;
  TPT_FAILS_WITH(tp_tci_error(&t, &coo, &info), TP_ERROR_NUMERICAL);
  tp_coo_free(NULL, &coo);
  t.pivot_rows[0][1] = 0; /* a pivot row given twice */
  TPT_FAILS_WITH(tp_tci_evaluate(&t, idx, &v), TP_ERROR_NUMERICAL);
  cr_assert(strstr(tp_last_error(), "singular"), "%s", tp_last_error());
  tp_tci_free(&t);
  /* a pivot row without stored entries (row 1 of the matrix is zero) */
  const double z[3][3] = {{1, 2, 0}, {0, 0, 0}, {3, 0, 1}};
  r0[0] = 0, r0[1] = 1, c0[0] = 0, c0[1] = 1;
  t = tci_from_pivots(&z[0][0], 2, dims, ranks, rows, cols);
  TPT_FAILS_WITH(tp_tci_evaluate(&t, idx, &v), TP_ERROR_NUMERICAL);
  cr_assert(strstr(tp_last_error(), "no core entry"), "%s", tp_last_error());
  tp_tci_free(&t);
}

/* ---- pivots -------------------------------------------------------------------------- */

Test(tci, pivot_indices_unwind_the_nesting) {
  const int64_t dims[4] = {3, 2, 4, 5}, ranks[5] = {1, 2, 3, 2, 1};
  double *x = (double *)tpt_host_alloc(120 * sizeof(double));
  for (int i = 0; i < 120; ++i)
    x[i] = 1 + i % 7;
  /* bond 0: u_0 = 2, 0; bond 1: (left, u_1) = (1, 1), (0, 0), (1, 0), that is (u_0, u_1) =
   * (0, 1), (2, 0), (0, 0); bond 2: (left, u_2) = (2, 3), (0, 1), that is (0, 0, 3) and
   * (0, 1, 1) */
  int64_t r0[2] = {2, 0}, r1[3] = {3, 0, 2}, r2[2] = {11, 1};
  int64_t c0[2] = {37, 0}, c1[3] = {19, 0, 5}, c2[2] = {4, 2};
  int64_t *rows[3] = {r0, r1, r2}, *cols[3] = {c0, c1, c2};
  tp_tci t = tci_from_pivots(x, 4, dims, ranks, rows, cols);
  int64_t idx[4];
  TPT_OK(tp_tci_pivot_row_index(&t, 0, 0, idx));
  cr_assert_eq(idx[0], 2);
  TPT_OK(tp_tci_pivot_row_index(&t, 1, 0, idx));
  cr_assert(idx[0] == 0 && idx[1] == 1);
  TPT_OK(tp_tci_pivot_row_index(&t, 1, 1, idx));
  cr_assert(idx[0] == 2 && idx[1] == 0);
  TPT_OK(tp_tci_pivot_row_index(&t, 2, 0, idx));
  cr_assert(idx[0] == 0 && idx[1] == 0 && idx[2] == 3, "(%lld, %lld, %lld)", (long long)idx[0],
            (long long)idx[1], (long long)idx[2]);
  TPT_OK(tp_tci_pivot_row_index(&t, 2, 1, idx));
  cr_assert(idx[0] == 0 && idx[1] == 1 && idx[2] == 1);
  TPT_OK(tp_tci_pivot_col_index(&t, 0, 0, idx)); /* 37 over (2, 4, 5) */
  cr_assert(idx[0] == 1 && idx[1] == 3 && idx[2] == 2);
  TPT_OK(tp_tci_pivot_col_index(&t, 1, 0, idx)); /* 19 over (4, 5) */
  cr_assert(idx[0] == 3 && idx[1] == 4);
  TPT_OK(tp_tci_pivot_col_index(&t, 2, 1, idx));
  cr_assert_eq(idx[0], 2);
  TPT_FAILS_WITH(tp_tci_pivot_row_index(&t, 3, 0, idx), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_tci_pivot_row_index(&t, -1, 0, idx), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_tci_pivot_row_index(&t, 1, 3, idx), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_tci_pivot_col_index(&t, 0, -1, idx), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_tci_pivot_col_index(&t, 0, 0, NULL), TP_ERROR_INVALID_ARGUMENT);
  t.pivot_cols[0][1] = 40; /* past 2 * 4 * 5 columns */
  TPT_FAILS_WITH(tp_tci_pivot_col_index(&t, 0, 1, idx), TP_ERROR_INVALID_ARGUMENT);
  t.pivot_rows[2][1] = 12; /* past 3 * 4 rows */
  TPT_FAILS_WITH(tp_tci_pivot_row_index(&t, 2, 1, idx), TP_ERROR_INVALID_ARGUMENT);
  tp_tci_free(&t);
  free(x);
  tp_tci_free(&t); /* freeing twice, or a zeroed train, is harmless */
  tp_tci_free(NULL);
}

/* ---- evaluation and reconstruction --------------------------------------------------- */

/* Every entry of t~ against x (C order): tp_tci_to_dense to rel_tol of x's largest
 * magnitude, and tp_tci_evaluate against the rebuilt entries. */
static void expect_rebuilds(const tp_tci *t, const double *x, double rel_tol) {
  tp_dense full;
  TPT_OK(tp_tci_to_dense(t, DENSE_LIMIT, &full));
  cr_assert(full.dtype == TP_DTYPE_F64 && full.layout == TP_LAYOUT_LEFT && full.order == t->order);
  int64_t total = count_of(t->dims, t->order);
  double scale = 0;
  for (int64_t i = 0; i < total; ++i)
    scale = fmax(scale, fabs(x[i]));
  const double *y = (const double *)full.data;
  for (int64_t i = 0; i < total; ++i) {
    int64_t idx[TP_COO_MAX_ORDER];
    unflatten_c(i, t->dims, t->order, idx);
    double rebuilt = y[flatten_left(idx, t->dims, t->order)], v;
    cr_assert_leq(fabs(rebuilt - x[i]), rel_tol * scale,
                  "entry %lld: %.17g rebuilt, %.17g "
                  "expected",
                  (long long)i, rebuilt, x[i]);
    TPT_OK(tp_tci_evaluate(t, idx, &v));
    cr_assert_leq(fabs(v - rebuilt), 1e-12 * scale,
                  "entry %lld: %.17g evaluated, %.17g "
                  "rebuilt",
                  (long long)i, v, rebuilt);
  }
  tp_dense_free(NULL, &full);
}

Test(tci, hand_built_exact_tci_rebuilds_and_interpolates) {
  tpt_rng rng = tpt_rng_fresh();
  int64_t dims[3];
  double *x = rank2_tensor(&rng, dims);
  tp_tci t = rank2_tci(x, dims);
  expect_rebuilds(&t, x, 1e-13);
  /* the skeleton entries come back exactly: Z_k's pivot rows are unit vectors */
  tp_dense full;
  TPT_OK(tp_tci_to_dense(&t, 60, &full));
  for (int64_t a = 0; a < 2; ++a) {
    int64_t idx[3];
    TPT_OK(tp_tci_pivot_row_index(&t, 1, a, idx));
    TPT_OK(tp_tci_pivot_col_index(&t, 1, a, idx + 2));
    cr_assert(((double *)full.data)[flatten_left(idx, dims, 3)] == x[flatten_c(idx, dims, 3)]);
  }
  tp_dense_free(NULL, &full);
  tp_coo coo = coo_of(x, 3, dims);
  tp_tci_error_info info;
  TPT_OK(tp_tci_error(&t, &coo, &info));
  cr_assert(info.at_floor && info.relative_error == info.floor, "error %g, floor %g",
            info.relative_error, info.floor);
  cr_assert_leq(info.floor, 1e-6);
  cr_assert_float_eq(info.norm2_tensor, tp_coo_norm2(&coo), 1e-15 * info.norm2_tensor);
  cr_assert_leq(fabs(info.inner - info.norm2_tensor), 1e-12 * info.norm2_tensor);
  cr_assert_leq(fabs(info.norm2_tci - info.norm2_tensor), 1e-12 * info.norm2_tensor);
  cr_assert_geq(info.seconds, 0);
  tp_coo_free(NULL, &coo);
  tp_tci_free(&t);
  free(x);
}

/* ---- the dense TT-ID reference ------------------------------------------------------- */

/* nnz distinct random coordinates (fewer when draws repeat), Pareto(2) values. */
static tp_coo random_tensor(tpt_rng *rng, int order, const int64_t *dims, int64_t nnz) {
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, order, dims, nnz, &t));
  for (int64_t e = 0; e < nnz; ++e) {
    for (int m = 0; m < order; ++m)
      t.indices[m][e] = tpt_int(rng, 0, dims[m] - 1);
    ((double *)t.values)[e] = pow(1 - tpt_uniform(rng, 0, 1), -0.5);
  }
  TPT_OK(tp_coo_sum_duplicates(&t, NULL));
  return t;
}

/* The tensor densely, C order. */
static double *dense_of(const tp_coo *t) {
  int64_t total = count_of(t->dims, t->order);
  double *x = (double *)tpt_host_alloc((size_t)total * sizeof(double));
  memset(x, 0, (size_t)total * sizeof(double));
  for (int64_t e = 0; e < t->nnz; ++e) {
    int64_t idx[TP_COO_MAX_ORDER];
    for (int m = 0; m < t->order; ++m)
      idx[m] = t->indices[m][e];
    x[flatten_c(idx, t->dims, t->order)] += ((double *)t->values)[e];
  }
  return x;
}

static tp_tci decompose(const tp_coo *t, int64_t rmax) {
  tp_sttid_options o;
  memset(&o, 0, sizeof o);
  o.rmax = rmax, o.eps = 0, o.eps_relative = 0;
  tp_tci s;
  TPT_OK(tp_ttid_dense(t, &o, DENSE_LIMIT, &s, NULL));
  return s;
}

/* ||T - T~|| / ||T||, <T, T~> and ||T~||^2 from the rebuilt tensor. */
typedef struct dense_terms {
  double error, inner, norm2_tci, norm2_tensor;
} dense_terms;

static dense_terms dense_error(const tp_tci *s, const tp_coo *t) {
  tp_dense full;
  TPT_OK(tp_tci_to_dense(s, DENSE_LIMIT, &full));
  double *y = (double *)full.data;
  dense_terms d;
  memset(&d, 0, sizeof d);
  int64_t total = count_of(t->dims, t->order);
  for (int64_t i = 0; i < total; ++i)
    d.norm2_tci += y[i] * y[i];
  for (int64_t e = 0; e < t->nnz; ++e) {
    int64_t idx[TP_COO_MAX_ORDER];
    for (int m = 0; m < t->order; ++m)
      idx[m] = t->indices[m][e];
    double v = ((double *)t->values)[e];
    int64_t at = flatten_left(idx, t->dims, t->order);
    d.inner += v * y[at];
    d.norm2_tensor += v * v;
    y[at] -= v;
  }
  double num = 0;
  for (int64_t i = 0; i < total; ++i)
    num += y[i] * y[i];
  d.error = sqrt(num / d.norm2_tensor);
  tp_dense_free(NULL, &full);
  return d;
}

/* Shapes with 1s and primes, orders 3 to 5. */
static const int64_t shapes[][5] = {{5, 1, 7},       {3, 11, 2},      {7, 3, 5, 1}, {1, 13, 3, 5},
                                    {2, 3, 1, 5, 7}, {3, 5, 2, 3, 2}, {11, 2, 13}};
static const int shape_orders[] = {3, 3, 4, 4, 5, 5, 3};
static const int64_t shape_nnz[] = {20, 40, 120, 100, 150, 80, 280};
enum { SHAPES = 7 };

Test(tci, exact_decompositions_rebuild_and_evaluate) {
  tpt_rng rng = tpt_rng_fresh();
  for (int c = 0; c < SHAPES; ++c) {
    tp_coo t = random_tensor(&rng, shape_orders[c], shapes[c], shape_nnz[c]);
    tp_tci s = decompose(&t, 1000);
    double *x = dense_of(&t);
    expect_rebuilds(&s, x, 1e-12);
    dense_terms d = dense_error(&s, &t);
    cr_assert_leq(d.error, 1e-12, "shape %d: rebuilt with relative error %g", c, d.error);
    tp_tci_error_info info;
    TPT_OK(tp_tci_error(&s, &t, &info));
    cr_assert_leq(info.relative_error, 3e-7, "shape %d: error %g (floor %g)", c,
                  info.relative_error, info.floor);
    cr_assert(info.at_floor, "shape %d: exact, yet %g is above the floor %g", c,
              info.relative_error, info.floor);
    free(x);
    tp_tci_free(&s);
    tp_coo_free(NULL, &t);
  }
}

Test(tci, error_formula_matches_the_dense_error) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t rmax[] = {1, 2, 3, 5, 8, 1000};
  int above = 0;
  for (int c = 0; c < SHAPES; ++c) {
    tp_coo t = random_tensor(&rng, shape_orders[c], shapes[c], shape_nnz[c]);
    for (int q = 0; q < 6; ++q) {
      tp_tci s = decompose(&t, rmax[q]);
      dense_terms d = dense_error(&s, &t);
      tp_tci_error_info info;
      TPT_OK(tp_tci_error(&s, &t, &info));
      double n2 = d.norm2_tensor;
      cr_assert_leq(fabs(info.norm2_tensor - n2), 1e-14 * n2);
      cr_assert_leq(fabs(info.inner - d.inner), 1e-10 * n2,
                    "shape %d rmax %lld: inner %.17g "
                    "vs %.17g densely",
                    c, (long long)rmax[q], info.inner, d.inner);
      cr_assert_leq(fabs(info.norm2_tci - d.norm2_tci), 1e-10 * n2,
                    "shape %d rmax %lld: "
                    "||T~||^2 %.17g vs %.17g densely",
                    c, (long long)rmax[q], info.norm2_tci, d.norm2_tci);
      if (info.at_floor) {
        cr_assert_leq(d.error, 2 * info.floor,
                      "shape %d rmax %lld: at the floor %g but the "
                      "dense error is %g",
                      c, (long long)rmax[q], info.floor, d.error);
      } else { /* the squares agree to about the floor's square */
        ++above;
        double e2 = info.relative_error * info.relative_error;
        cr_assert_leq(fabs(e2 - d.error * d.error), info.floor * info.floor,
                      "shape %d rmax %lld: %.17g vs %.17g densely (floor %g)", c,
                      (long long)rmax[q], info.relative_error, d.error, info.floor);
      }
      tp_tci_free(&s);
    }
    tp_coo_free(NULL, &t);
  }
  cr_assert_gt(above, 10, "only %d truncations were above the floor", above);
}

Test(tci, error_walk_is_independent_of_nonzero_order_and_chunks) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {6, 7, 8, 9}; /* more nonzeros than one chunk of the walk */
  tp_coo t = random_tensor(&rng, 4, dims, 1500);
  tp_tci s = decompose(&t, 12);
  tp_tci_error_info sorted, shuffled;
  TPT_OK(tp_tci_error(&s, &t, &sorted));
  dense_terms d = dense_error(&s, &t);
  cr_assert_leq(fabs(sorted.inner - d.inner), 1e-10 * d.norm2_tensor);
  for (int64_t e = t.nnz - 1; e > 0; --e) { /* Fisher-Yates on the nonzeros */
    int64_t f = tpt_int(&rng, 0, e);
    for (int m = 0; m < 4; ++m) {
      int64_t i = t.indices[m][e];
      t.indices[m][e] = t.indices[m][f], t.indices[m][f] = i;
    }
    double v = ((double *)t.values)[e];
    ((double *)t.values)[e] = ((double *)t.values)[f], ((double *)t.values)[f] = v;
  }
  TPT_OK(tp_tci_error(&s, &t, &shuffled));
  cr_assert(shuffled.inner == sorted.inner && shuffled.norm2_tci == sorted.norm2_tci &&
                shuffled.norm2_tensor == sorted.norm2_tensor,
            "inner %.17g vs %.17g", shuffled.inner, sorted.inner);
#ifdef _OPENMP
  int threads = omp_get_max_threads(); /* fixed chunks: one thread gives the same bits */
  omp_set_num_threads(1);
  tp_tci_error_info serial;
  TPT_OK(tp_tci_error(&s, &t, &serial));
  omp_set_num_threads(threads);
  cr_assert(serial.inner == sorted.inner && serial.norm2_tci == sorted.norm2_tci);
#endif
  /* a repeated coordinate would be counted twice: refused */
  for (int m = 0; m < 4; ++m)
    t.indices[m][7] = t.indices[m][3];
  TPT_FAILS_WITH(tp_tci_error(&s, &t, &shuffled), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "repeats"), "%s", tp_last_error());
  tp_tci_free(&s);
  tp_coo_free(NULL, &t);
}

/* ---- densities ----------------------------------------------------------------------- */

Test(tci, densities_by_hand) {
  tpt_rng rng = tpt_rng_fresh();
  int64_t dims[3];
  double *x = rank2_tensor(&rng, dims);
  tp_tci t = rank2_tci(x, dims);
  double per[3], avg;
  TPT_OK(tp_tci_density(&t, per, &avg));
  /* stored entries over the core shapes 1 x 3 x 2, 2 x 4 x 2 and 2 x 5 x 1 */
  const double sizes[3] = {6, 16, 10};
  double stored = 0;
  for (int k = 0; k < 3; ++k) {
    cr_assert_float_eq(per[k], (double)t.cores[k].nnz / sizes[k], 1e-15);
    stored += (double)t.cores[k].nnz;
  }
  cr_assert_float_eq(avg, stored / 32, 1e-15);
  TPT_OK(tp_tci_density(&t, NULL, &avg));
  tp_tci_free(&t);
  free(x);
  /* a fully known case: order 2, a diagonal 3 x 3 matrix, pivots on the diagonal */
  const double m[3][3] = {{2, 0, 0}, {0, 3, 0}, {0, 0, 5}};
  const int64_t d2[2] = {3, 3}, ranks[3] = {1, 3, 1};
  int64_t r0[3] = {2, 1, 0}, c0[3] = {2, 1, 0};
  int64_t *rows[1] = {r0}, *cols[1] = {c0};
  t = tci_from_pivots(&m[0][0], 2, d2, ranks, rows, cols);
  TPT_OK(tp_tci_density(&t, per, &avg));
  cr_assert(per[0] == 3.0 / 9 && per[1] == 3.0 / 9 && avg == 6.0 / 18, "%g %g %g", per[0], per[1],
            avg);
  expect_rebuilds(&t, &m[0][0], 0);
  TPT_FAILS_WITH(tp_tci_density(&t, per, NULL), TP_ERROR_INVALID_ARGUMENT);
  tp_tci_free(&t);
}

/* ---- bad inputs ---------------------------------------------------------------------- */

Test(tci, bad_indices_sizes_and_shapes) {
  tpt_rng rng = tpt_rng_fresh();
  int64_t dims[3];
  double *x = rank2_tensor(&rng, dims);
  tp_tci t = rank2_tci(x, dims);
  double v;
  const int64_t bad1[3] = {0, 4, 0}, bad2[3] = {-1, 0, 0};
  TPT_FAILS_WITH(tp_tci_evaluate(&t, bad1, &v), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "mode 1") && strstr(tp_last_error(), "index 4"), "%s",
            tp_last_error());
  TPT_FAILS_WITH(tp_tci_evaluate(&t, bad2, &v), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "mode 0"), "%s", tp_last_error());
  TPT_FAILS_WITH(tp_tci_evaluate(&t, NULL, &v), TP_ERROR_INVALID_ARGUMENT);
  tp_dense full;
  TPT_FAILS_WITH(tp_tci_to_dense(&t, 59, &full), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "max_elements"), "%s", tp_last_error());
  TPT_FAILS_WITH(tp_tci_to_dense(&t, 0, &full), TP_ERROR_INVALID_ARGUMENT);
  /* the error needs T's shape, nonzero T and no repeats */
  tp_coo coo = coo_of(x, 3, dims);
  tp_tci_error_info info;
  coo.dims[2] = 6;
  TPT_FAILS_WITH(tp_tci_error(&t, &coo, &info), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "mode 2"), "%s", tp_last_error());
  coo.dims[2] = 5, coo.order = 2;
  TPT_FAILS_WITH(tp_tci_error(&t, &coo, &info), TP_ERROR_INVALID_ARGUMENT);
  coo.order = 3;
  for (int64_t e = 0; e < coo.nnz; ++e)
    ((double *)coo.values)[e] = 0;
  TPT_FAILS_WITH(tp_tci_error(&t, &coo, &info), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_tci_error(&t, &coo, NULL), TP_ERROR_INVALID_ARGUMENT);
  tp_coo_free(NULL, &coo);
  /* malformed trains: a core out of order, a wrong core shape, a bad rank, an entry out
   * of range */
  tp_coo *g = &t.cores[1];
  int64_t keep = g->indices[1][0];
  g->indices[1][0] = g->indices[1][1] + 1;
  const int64_t ok[3] = {0, 0, 0};
  TPT_FAILS_WITH(tp_tci_evaluate(&t, ok, &v), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "sorted"), "%s", tp_last_error());
  g->indices[1][0] = keep;
  g->dims[1] = 5;
  TPT_FAILS_WITH(tp_tci_to_dense(&t, 100, &full), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "core 1"), "%s", tp_last_error());
  g->dims[1] = 4;
  t.ranks[3] = 2;
  TPT_FAILS_WITH(tp_tci_evaluate(&t, ok, &v), TP_ERROR_INVALID_ARGUMENT);
  t.ranks[3] = 1;
  keep = g->indices[2][g->nnz - 1];
  g->indices[2][g->nnz - 1] = 2;
  TPT_FAILS_WITH(tp_tci_evaluate(&t, ok, &v), TP_ERROR_INVALID_ARGUMENT);
  g->indices[2][g->nnz - 1] = keep;
  TPT_OK(tp_tci_evaluate(&t, ok, &v));
  tp_tci_free(&t);
  free(x);
}

Test(tci, huge_shapes_are_refused_not_wrapped) {
  /* order 2, 2^32 x 2^32 entries: rank 1, one stored entry per core */
  const int64_t big = (int64_t)1 << 32, dims[2] = {big, big}, ranks[3] = {1, 1, 1};
  tp_tci t;
  memset(&t, 0, sizeof t);
  t.order = 2;
  memcpy(t.dims, dims, sizeof dims);
  memcpy(t.ranks, ranks, sizeof ranks);
  for (int k = 0; k < 2; ++k) {
    int64_t cdims[3] = {1, big, 1};
    TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, cdims, 1, &t.cores[k]));
    t.cores[k].indices[0][0] = t.cores[k].indices[2][0] = 0;
    t.cores[k].indices[1][0] = big - 3;
    ((double *)t.cores[k].values)[0] = 4;
  }
  t.pivot_rows[0] = (int64_t *)tpt_host_alloc(sizeof(int64_t));
  t.pivot_cols[0] = (int64_t *)tpt_host_alloc(sizeof(int64_t));
  t.pivot_rows[0][0] = t.pivot_cols[0][0] = big - 3;
  const int64_t idx[2] = {big - 3, big - 3}, other[2] = {big - 3, 5};
  double v;
  TPT_OK(tp_tci_evaluate(&t, idx, &v));
  cr_assert(v == 4, "%g", v);
  TPT_OK(tp_tci_evaluate(&t, other, &v));
  cr_assert(v == 0, "%g", v);
  tp_dense full;
  TPT_FAILS_WITH(tp_tci_to_dense(&t, INT64_MAX, &full), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "2^63"), "%s", tp_last_error());
  double per[2], avg;
  TPT_OK(tp_tci_density(&t, per, &avg));
  cr_assert_float_eq(avg, 2.0 / (2.0 * (double)big), 1e-25);
  tp_tci_free(&t);
}
