/* STTID against the dense TT-ID reference and against densely computed facts: exact
 * decompositions reach machine precision with the unfoldings' ranks; truncation error
 * falls with rmax; every core entry is an input entry; identical pivots, ranks and cores
 * on every backend (the dense reference is plain host code); empty modes, one nonzero,
 * ties everywhere, shapes near the 64-bit limit; bad inputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tenport/sttid.h"

TestSuite(sttid, .init = tpt_setup, .fini = tpt_teardown);

enum { DENSE_LIMIT = 1 << 23 };

typedef enum values_kind { PARETO, ONES } values_kind;

/* nnz distinct random coordinates of dims (uniform, or only the first `used` indices of
 * mode 1, leaving the rest of that mode empty), values Pareto(2) or 1. */
static tp_coo random_tensor(tpt_rng *rng, int order, const int64_t *dims, int64_t nnz,
                            values_kind kind, int64_t used) {
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, order, dims, nnz, &t));
  for (int64_t e = 0; e < nnz; ++e) {
    for (int m = 0; m < order; ++m) {
      int64_t hi = (m == 1 && used > 0) ? used : dims[m];
      t.indices[m][e] = tpt_int(rng, 0, hi - 1);
    }
    ((double *)t.values)[e] = kind == ONES ? 1.0 : pow(1 - tpt_uniform(rng, 0, 1), -0.5);
  }
  int64_t merged;
  TPT_OK(tp_coo_sum_duplicates(&t, &merged));
  if (kind == ONES)
    for (int64_t e = 0; e < t.nnz; ++e)
      ((double *)t.values)[e] = 1.0;
  return t;
}

static tp_sttid_options options(int64_t rmax, double eps, int relative) {
  tp_sttid_options o;
  memset(&o, 0, sizeof o);
  o.rmax = rmax, o.eps = eps, o.eps_relative = relative;
  return o;
}

static void expect_same_coo(const tp_coo *a, const tp_coo *b, int k) {
  cr_assert_eq(a->nnz, b->nnz, "core %d: %lld vs %lld entries", k, (long long)a->nnz,
               (long long)b->nnz);
  for (int m = 0; m < 3; ++m) {
    cr_assert_eq(a->dims[m], b->dims[m]);
    for (int64_t e = 0; e < a->nnz; ++e)
      cr_assert_eq(a->indices[m][e], b->indices[m][e]);
  }
  for (int64_t e = 0; e < a->nnz; ++e)
    cr_assert(((double *)a->values)[e] == ((double *)b->values)[e]);
}

/* Same ranks, pivots and cores, bit for bit. */
static void expect_same_tci(const tp_tci *s, const tp_tci *d) {
  cr_assert_eq(s->order, d->order);
  for (int k = 0; k <= s->order; ++k)
    cr_assert_eq(s->ranks[k], d->ranks[k], "rank %d: %lld vs %lld", k, (long long)s->ranks[k],
                 (long long)d->ranks[k]);
  for (int k = 0; k + 1 < s->order; ++k)
    for (int64_t a = 0; a < s->ranks[k + 1]; ++a)
      cr_assert(s->pivot_rows[k][a] == d->pivot_rows[k][a] &&
                    s->pivot_cols[k][a] == d->pivot_cols[k][a],
                "bond %d pivot %lld differs", k, (long long)a);
  for (int k = 0; k < s->order; ++k)
    expect_same_coo(&s->cores[k], &d->cores[k], k);
}

/* Rank of the mode-(0..k) unfolding, densely: Gaussian elimination with complete
 * pivoting on the occupied rows and columns, relative tolerance 1e-10. */
static int64_t unfolding_rank(const tp_coo *t, int k) {
  tp_spmat m;
  TPT_OK(tp_spmat_from_coo(t, k + 1, &m));
  int64_t *rows = (int64_t *)tpt_host_alloc((size_t)m.nnz * sizeof(int64_t) + 8);
  int64_t *cols = (int64_t *)tpt_host_alloc((size_t)m.nnz * sizeof(int64_t) + 8);
  int64_t nr = 0, nc = 0;
  for (int64_t e = 0; e < m.nnz; ++e) { /* small cases: quadratic renumbering is fine */
    int64_t i = 0, j = 0;
    while (i < nr && rows[i] != m.row[e])
      ++i;
    if (i == nr)
      rows[nr++] = m.row[e];
    while (j < nc && cols[j] != m.col[e])
      ++j;
    if (j == nc)
      cols[nc++] = m.col[e];
  }
  double *a = (double *)tpt_host_alloc((size_t)(nr * nc) * sizeof(double));
  memset(a, 0, (size_t)(nr * nc) * sizeof(double));
  for (int64_t e = 0; e < m.nnz; ++e) {
    int64_t i = 0, j = 0;
    while (rows[i] != m.row[e])
      ++i;
    while (cols[j] != m.col[e])
      ++j;
    a[i * nc + j] = m.values[e];
  }
  tp_prrlu_options o;
  o.rmax = nr + nc, o.eps = 1e-10, o.eps_relative = 1;
  tp_prrlu_result r;
  TPT_OK(tp_prrlu_dense(a, nr, nc, &o, &r));
  int64_t rank = r.rank;
  tp_prrlu_result_free(&r);
  free(a), free(rows), free(cols);
  tp_spmat_free(&m);
  return rank;
}

/* ||T - T~|| / ||T|| from the fully rebuilt approximation. */
static double dense_error(const tp_tci *tci, const tp_coo *t) {
  tp_dense full;
  TPT_OK(tp_tci_to_dense(tci, DENSE_LIMIT, &full));
  double *x = (double *)full.data, num = 0, den = 0;
  for (int64_t e = 0; e < t->nnz; ++e) { /* T - T~ on the nonzeros; T~ alone elsewhere */
    int64_t lin = 0;
    for (int m = t->order - 1; m >= 0; --m)
      lin = lin * t->dims[m] + t->indices[m][e];
    double v = ((double *)t->values)[e];
    x[lin] -= v;
    den += v * v;
  }
  int64_t total = 1;
  for (int m = 0; m < t->order; ++m)
    total *= t->dims[m];
  for (int64_t i = 0; i < total; ++i)
    num += x[i] * x[i];
  tp_dense_free(NULL, &full);
  return sqrt(num / den);
}

/* Decomposes t sparsely and densely, checks they agree, and returns the sparse result. */
static tp_tci decompose_both(const tp_coo *t, tp_sttid_options opt) {
  tp_tci s, d;
  TPT_OK(tp_sttid(tpt_space, t, &opt, &s, NULL));
  TPT_OK(tp_ttid_dense(t, &opt, DENSE_LIMIT, &d, NULL));
  expect_same_tci(&s, &d);
  tp_tci_free(&d);
  return s;
}

Test(sttid, exact_decomposition_matches_dense_ranks_and_precision) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t shapes[][5] = {
      {10, 10, 10, 10, 0}, {10, 10, 10, 10, 10}, {50, 50, 50, 50, 0}, {7, 1, 13, 5, 0}};
  const int orders[] = {4, 5, 4, 4};
  const int64_t nnzs[] = {200, 300, 400, 60};
  for (int c = 0; c < 4; ++c) {
    tp_coo t = random_tensor(&rng, orders[c], shapes[c], nnzs[c], PARETO, 0);
    int64_t total = 1;
    for (int m = 0; m < t.order; ++m)
      total *= t.dims[m];
    tp_sttid_options o = options(1 << 20, 1e-13, 1);
    tp_tci s;
    if (total <= (1 << 20)) /* the dense reference's cost grows with the tensor's size */
      s = decompose_both(&t, o);
    else
      TPT_OK(tp_sttid(tpt_space, &t, &o, &s, NULL));
    for (int k = 0; k + 1 < t.order; ++k)
      cr_assert_eq(s.ranks[k + 1], unfolding_rank(&t, k), "case %d bond %d", c, k);
    if (total <= DENSE_LIMIT) {
      double err = dense_error(&s, &t);
      cr_assert_leq(err, 1e-12, "case %d: relative error %g", c, err);
    }
    tp_tci_error_info info;
    TPT_OK(tp_tci_error(&s, &t, &info));
    cr_assert_leq(info.relative_error, 1e-6, "case %d: formula error %g", c, info.relative_error);
    tp_tci_free(&s);
    tp_coo_free(NULL, &t);
  }
}

/* Every stored core entry is the input's entry at the global index it stands for. */
static void expect_cores_from_input(const tp_tci *tci, const tp_coo *t) {
  for (int k = 0; k < tci->order; ++k) {
    const tp_coo *g = &tci->cores[k];
    for (int64_t e = 0; e < g->nnz; ++e) {
      int64_t idx[TP_COO_MAX_ORDER];
      if (k > 0)
        TPT_OK(tp_tci_pivot_row_index(tci, k - 1, g->indices[0][e], idx));
      idx[k] = g->indices[1][e];
      if (k + 1 < tci->order)
        TPT_OK(tp_tci_pivot_col_index(tci, k, g->indices[2][e], idx + k + 1));
      double found = 0;
      for (int64_t x = 0; x < t->nnz && found == 0; ++x) {
        int same = 1;
        for (int m = 0; m < t->order && same; ++m)
          same = t->indices[m][x] == idx[m];
        if (same)
          found = ((double *)t->values)[x];
      }
      cr_assert(found != 0 && found == ((double *)g->values)[e],
                "core %d entry %lld is not an input entry", k, (long long)e);
    }
  }
}

Test(sttid, truncation_error_falls_and_cores_keep_input_entries) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {12, 11, 10, 9};
  tp_coo t = random_tensor(&rng, 4, dims, 500, PARETO, 0);
  double previous = INFINITY;
  const int64_t rmax[] = {1, 2, 4, 8, 16, 32, 64, 128, 1000};
  for (int c = 0; c < 9; ++c) {
    tp_tci s = decompose_both(&t, options(rmax[c], 0, 0));
    for (int k = 1; k < t.order; ++k)
      cr_assert_leq(s.ranks[k], rmax[c]);
    double err = dense_error(&s, &t);
    cr_assert_leq(err, previous * (1 + 1e-9) + 1e-14, "rmax %lld: error %g after %g",
                  (long long)rmax[c], err, previous);
    previous = err;
    expect_cores_from_input(&s, &t);
    tp_tci_free(&s);
  }
  cr_assert_leq(previous, 1e-12);
  tp_coo_free(NULL, &t);
}

Test(sttid, same_result_run_after_run) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[5] = {9, 8, 7, 6, 5};
  tp_coo t = random_tensor(&rng, 5, dims, 700, PARETO, 0);
  tp_sttid_options o = options(1000, 1e-13, 1);
  tp_tci a, b;
  TPT_OK(tp_sttid(tpt_space, &t, &o, &a, NULL));
  TPT_OK(tp_sttid(tpt_space, &t, &o, &b, NULL));
  expect_same_tci(&a, &b);
  tp_tci_free(&a);
  tp_tci_free(&b);
  tp_coo_free(NULL, &t);
}

Test(sttid, empty_modes_one_nonzero_and_ties) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {6, 40, 5, 7};
  tp_coo t = random_tensor(&rng, 4, dims, 150, PARETO, 9); /* mode 1: 31 empty slices */
  tp_tci s = decompose_both(&t, options(1000, 0, 0));
  cr_assert_leq(dense_error(&s, &t), 1e-12);
  tp_tci_free(&s);
  tp_coo_free(NULL, &t);
  t = random_tensor(&rng, 4, dims, 1, PARETO, 0);
  s = decompose_both(&t, options(1000, 0, 0));
  for (int k = 0; k <= 4; ++k)
    cr_assert_eq(s.ranks[k], 1);
  cr_assert_leq(dense_error(&s, &t), 1e-15);
  tp_tci_free(&s);
  tp_coo_free(NULL, &t);
  t = random_tensor(&rng, 4, dims, 300, ONES, 0); /* every pivot search is a tie */
  s = decompose_both(&t, options(1000, 1e-12, 1));
  cr_assert_leq(dense_error(&s, &t), 1e-12);
  tp_tci_free(&s);
  tp_coo_free(NULL, &t);
}

Test(sttid, shapes_near_the_64_bit_limit) {
  const int64_t dims[3] = {(int64_t)1 << 21, (int64_t)1 << 20, (int64_t)1 << 21};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, 3, &t));
  const int64_t idx[3][3] = {{5, 7, 9}, {(1 << 21) - 1, 0, (1 << 21) - 1}, {5, 1 << 19, 3}};
  for (int e = 0; e < 3; ++e) {
    for (int m = 0; m < 3; ++m)
      t.indices[m][e] = idx[e][m];
    ((double *)t.values)[e] = 1.5 + e;
  }
  TPT_OK(tp_coo_sum_duplicates(&t, NULL));
  tp_sttid_options o = options(10, 0, 0);
  tp_tci s;
  TPT_OK(tp_sttid(tpt_space, &t, &o, &s, NULL));
  for (int e = 0; e < 3; ++e) {
    double v;
    TPT_OK(tp_tci_evaluate(&s, idx[e], &v));
    cr_assert_float_eq(v, 1.5 + e, 1e-14);
  }
  tp_tci_free(&s);
  t.dims[1] = (int64_t)1 << 22; /* 2^64 entries: rejected, not wrapped */
  TPT_FAILS_WITH(tp_sttid(tpt_space, &t, &o, &s, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "2^63"), "%s", tp_last_error());
  tp_coo_free(NULL, &t);
}

Test(sttid, rejects_bad_input) {
  const int64_t dims[3] = {4, 5, 6};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, 2, &t));
  for (int m = 0; m < 3; ++m)
    t.indices[m][0] = t.indices[m][1] = 1;
  ((double *)t.values)[0] = ((double *)t.values)[1] = 1;
  tp_sttid_options o = options(4, 0, 0);
  tp_tci s;
  TPT_FAILS_WITH(tp_sttid(tpt_space, &t, &o, &s, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "repeats"), "%s", tp_last_error());
  t.indices[2][1] = 2;
  ((double *)t.values)[1] = NAN;
  TPT_FAILS_WITH(tp_sttid(tpt_space, &t, &o, &s, NULL), TP_ERROR_NUMERICAL);
  ((double *)t.values)[1] = 1;
  t.indices[2][1] = 6;
  TPT_FAILS_WITH(tp_sttid(tpt_space, &t, &o, &s, NULL), TP_ERROR_INVALID_ARGUMENT);
  t.indices[2][1] = 2;
  o.rmax = 0;
  TPT_FAILS_WITH(tp_sttid(tpt_space, &t, &o, &s, NULL), TP_ERROR_INVALID_ARGUMENT);
  o.rmax = 4, o.eps = 10; /* nothing above the threshold */
  TPT_FAILS_WITH(tp_sttid(tpt_space, &t, &o, &s, NULL), TP_ERROR_NUMERICAL);
  o.eps = 0, t.nnz = 0;
  TPT_FAILS_WITH(tp_sttid(tpt_space, &t, &o, &s, NULL), TP_ERROR_INVALID_ARGUMENT);
  t.nnz = 2, t.order = 1;
  TPT_FAILS_WITH(tp_sttid(tpt_space, &t, &o, &s, NULL), TP_ERROR_INVALID_ARGUMENT);
  t.order = 3;
  tp_coo_free(NULL, &t);
}

/* ---- progress reports ------------------------------------------------------------- */

enum { MAX_REPORTS = 4096 };

typedef struct report_log {
  int count;
  tp_sttid_progress report[MAX_REPORTS];
} report_log;

static void log_report(const tp_sttid_progress *p, void *user) {
  report_log *log = (report_log *)user;
  cr_assert_lt(log->count, MAX_REPORTS, "more reports than expected");
  log->report[log->count++] = *p;
}

/* Reports in order: bonds never go back, a bond's reports end with its bond_done one,
 * pivots and seconds only grow; every bond reported done once, with the result's rank. */
static void expect_reports_in_order(const report_log *log, const tp_tci *s) {
  int done = 0;
  int64_t pivots = 0;
  double seconds = 0;
  for (int i = 0; i < log->count; ++i) {
    const tp_sttid_progress *p = &log->report[i];
    cr_assert_eq(p->bonds, s->order - 1);
    cr_assert_eq(p->bond, done, "report %d is about bond %d while bond %d runs", i, p->bond, done);
    cr_assert_leq(p->rank, p->rank_limit, "report %d: rank above the limit", i);
    cr_assert_geq(p->pivots, pivots, "report %d: the pivot count fell", i);
    cr_assert_geq(p->seconds, seconds, "report %d: the clock went back", i);
    pivots = p->pivots, seconds = p->seconds;
    if (p->bond_done) {
      cr_assert_eq(p->rank, s->ranks[p->bond + 1], "bond %d: reported rank %lld, result %lld",
                   p->bond, (long long)p->rank, (long long)s->ranks[p->bond + 1]);
      ++done;
    }
  }
  cr_assert_eq(done, s->order - 1, "%d bonds reported done of %d", done, s->order - 1);
  int64_t total = 0;
  for (int k = 1; k < s->order; ++k)
    total += s->ranks[k];
  cr_assert_eq(pivots, total);
}

/* The reports a bond made before it was done. */
static int64_t reports_within(const report_log *log, int bond) {
  int64_t n = 0;
  for (int i = 0; i < log->count; ++i)
    n += log->report[i].bond == bond && !log->report[i].bond_done;
  return n;
}

Test(sttid, progress_reports_each_bond_and_changes_nothing) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[5] = {9, 8, 7, 6, 5};
  tp_coo t = random_tensor(&rng, 5, dims, 700, PARETO, 0);
  static report_log sparse_log, dense_log;
  memset(&sparse_log, 0, sizeof sparse_log), memset(&dense_log, 0, sizeof dense_log);
  tp_sttid_options quiet = options(1000, 1e-13, 1), watched = quiet;
  watched.progress = log_report, watched.progress_user = &sparse_log;
  tp_sttid_info info;
  tp_tci a, b, d;
  TPT_OK(tp_sttid(tpt_space, &t, &quiet, &a, NULL));
  TPT_OK(tp_sttid(tpt_space, &t, &watched, &b, &info));
  expect_same_tci(&a, &b);
  expect_reports_in_order(&sparse_log, &b);
  /* one report per read-back of the PRRLU's state, and no read-back of its own */
  for (int k = 0; k < info.bonds; ++k)
    cr_assert_eq(reports_within(&sparse_log, k), info.bond[k].host_syncs, "bond %d", k);
  watched.progress_user = &dense_log;
  TPT_OK(tp_ttid_dense(&t, &watched, DENSE_LIMIT, &d, NULL));
  expect_reports_in_order(&dense_log, &d);
  cr_assert_eq(dense_log.count, t.order - 1, "the dense reference reports bonds only");
  tp_tci_free(&a), tp_tci_free(&b), tp_tci_free(&d);
  tp_coo_free(NULL, &t);
}
