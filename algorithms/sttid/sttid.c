/* The TT-ID sweep (the paper's Algorithm 1) and the sparse decomposition built on it:
 * one PRRLU per bond, each bond's core and next residual taken from the input's own
 * entries, so sparsity carries from the input to every core. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sttid/tp_prrlu_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "algorithms/sttid/tp_sttid_internal.h"

/* An f64 copy of the input without repeated coordinates, validated. */
static tp_status prepare_input(const tp_coo *host, tp_coo *t) {
  TP_TRY(tpi_coo_check_arrays(host));
  TP_CHECK_ARG(host->order >= 2, "STTID: the tensor has order %d; a tensor train needs 2 or more",
               host->order);
  int64_t total;
  TP_TRY(tp_checked_product(host->dims, host->order, "STTID input", &total));
  TP_CHECK_ARG(host->nnz > 0,
               "STTID: the tensor has no nonzeros, so there is nothing to decompose");
  TP_TRY(tp_coo_validate(host));
  TP_TRY(tpi_coo_host_alloc(TP_DTYPE_F64, host->order, host->dims, host->nnz, t));
  for (int m = 0; m < host->order; ++m)
    memcpy(t->indices[m], host->indices[m], (size_t)host->nnz * sizeof(int64_t));
  for (int64_t e = 0; e < host->nnz; ++e)
    ((double *)t->values)[e] = tpi_coo_value(host, e);
  int64_t merged = 0;
  tp_status st = tpi_coo_merge_duplicates(t, &merged);
  if (st == TP_SUCCESS && merged > 0)
    st = TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "STTID: the tensor repeats %lld coordinates; sum duplicates first "
                  "(tp_coo_sum_duplicates)",
                  (long long)merged);
  if (st != TP_SUCCESS)
    tpi_coo_host_free(t);
  return st;
}

static tp_status check_options(const tp_sttid_options *opt) {
  TP_CHECK_ARG(opt, "STTID options are NULL");
  TP_CHECK_ARG(opt->rmax >= 1, "STTID: rmax %lld must be at least 1", (long long)opt->rmax);
  TP_CHECK_ARG(isfinite(opt->eps) && opt->eps >= 0, "STTID: eps %g must be finite and non-negative",
               opt->eps);
  return TP_SUCCESS;
}

static void record_bond(tp_sttid_bond *b, const tp_spmat *m, const tp_prrlu_result *p) {
  b->rows = m->rows, b->cols = m->cols, b->nnz = m->nnz;
  b->rank = p->rank, b->stop = p->stop;
  b->first_pivot = p->first_pivot;
  b->last_pivot = p->rank > 0 ? fabs(p->pivots[p->rank - 1]) : 0;
  b->threshold = p->threshold;
  b->fill = p->fill, b->peak_entries = p->peak_entries, b->host_syncs = p->host_syncs;
}

/* What the bonds of one sweep share: the input, how to factor, and the progress reports. */
typedef struct ttid_sweep {
  const tp_coo *t;
  tp_prrlu_options popt;
  tpi_ttid_factor_fn factor;
  void *ctx;
  tp_sttid_progress_fn progress; /* may be NULL */
  void *progress_user;
  tp_sttid_progress now; /* the next report */
  int64_t pivots_before; /* pivots of the bonds already done */
  double start;
} ttid_sweep;

static void report(ttid_sweep *s, int64_t rank, int bond_done) {
  s->now.rank = rank, s->now.bond_done = bond_done;
  s->now.pivots = s->pivots_before + rank;
  s->now.seconds = tp_wall_seconds() - s->start;
  s->progress(&s->now, s->progress_user);
}

/* The PRRLU's observer: pivots so far at the current bond. */
static void report_pivots(void *ctx, int64_t rank) { report((ttid_sweep *)ctx, rank, 0); }

/* Factors bond k's matrix, with the PRRLU watched when someone wants the reports. */
static tp_status factor_bond(ttid_sweep *s, int k, const tp_spmat *m, tp_prrlu_result *piv) {
  if (!s->progress)
    return s->factor(s->ctx, m, &s->popt, NULL, piv);
  s->now.bond = k;
  int64_t limit = m->rows < m->cols ? m->rows : m->cols;
  s->now.rank_limit = s->popt.rmax < limit ? s->popt.rmax : limit;
  tpi_prrlu_observer observer;
  observer.pivots = report_pivots, observer.ctx = s;
  return s->factor(s->ctx, m, &s->popt, &observer, piv);
}

static void finish_bond(ttid_sweep *s, int64_t rank) {
  if (s->progress)
    report(s, rank, 1);
  s->pivots_before += rank;
}

/* One bond: factor M_k, keep its pivots, cut core k and the next residual. */
static tp_status sweep_bond(ttid_sweep *s, int k, tpi_ttid_residual *res, tp_tci *out,
                            tp_sttid_bond *b) {
  const tp_coo *t = s->t;
  tp_spmat m;
  tp_prrlu_result piv;
  memset(&piv, 0, sizeof piv);
  double t0 = tp_wall_seconds();
  TP_TRY(tpi_ttid_bond_matrix(t, k, res, &m));
  double t1 = tp_wall_seconds();
  tp_status st = factor_bond(s, k, &m, &piv);
  double t2 = tp_wall_seconds();
  if (st == TP_SUCCESS && piv.rank == 0)
    st = TP_ERROR(TP_ERROR_NUMERICAL,
                  "STTID: bond %d has no pivot above the threshold %g (largest |entry| %g), "
                  "so the approximation would be zero",
                  k, piv.threshold, piv.first_pivot);
  tpi_ttid_residual next;
  memset(&next, 0, sizeof next);
  if (st == TP_SUCCESS)
    st = tpi_ttid_core(t, k, res, &m, &piv, &out->cores[k]);
  if (st == TP_SUCCESS)
    st = tpi_ttid_next_residual(res, &m, &piv, &next);
  if (st == TP_SUCCESS) {
    record_bond(b, &m, &piv);
    out->ranks[k + 1] = piv.rank;
    out->pivot_rows[k] = piv.rows, out->pivot_cols[k] = piv.cols;
    piv.rows = piv.cols = NULL;
    tpi_ttid_residual_free(res);
    *res = next;
  }
  b->seconds_reshape = t1 - t0, b->seconds_prrlu = t2 - t1;
  b->seconds_extract = tp_wall_seconds() - t2;
  if (st == TP_SUCCESS)
    finish_bond(s, piv.rank);
  tp_prrlu_result_free(&piv);
  tp_spmat_free(&m);
  return st;
}

static tp_status first_residual(const tp_coo *t, tpi_ttid_residual *res) {
  memset(res, 0, sizeof *res);
  res->entry = (int64_t *)malloc((size_t)t->nnz * sizeof(int64_t));
  res->left = (int64_t *)calloc((size_t)t->nnz, sizeof(int64_t));
  if (!res->entry || !res->left) {
    tpi_ttid_residual_free(res);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TT-ID: no host memory for the residual");
  }
  for (int64_t e = 0; e < t->nnz; ++e)
    res->entry[e] = e;
  res->n = t->nnz, res->rank_left = 1;
  return TP_SUCCESS;
}

static void sweep_init(ttid_sweep *s, const tp_coo *t, const tp_sttid_options *opt,
                       tpi_ttid_factor_fn factor, void *ctx) {
  memset(s, 0, sizeof *s);
  s->t = t, s->factor = factor, s->ctx = ctx;
  s->popt.rmax = opt->rmax, s->popt.eps = opt->eps, s->popt.eps_relative = opt->eps_relative;
  s->progress = opt->progress, s->progress_user = opt->progress_user;
  s->now.bonds = t->order - 1;
  s->start = tp_wall_seconds();
}

tp_status tpi_ttid_sweep(const tp_coo *t, const tp_sttid_options *opt, tpi_ttid_factor_fn factor,
                         void *ctx, tp_tci *out, tp_sttid_info *info) {
  ttid_sweep s;
  sweep_init(&s, t, opt, factor, ctx);
  tp_sttid_info local;
  memset(&local, 0, sizeof local);
  memset(out, 0, sizeof *out);
  out->order = t->order;
  memcpy(out->dims, t->dims, (size_t)t->order * sizeof(int64_t));
  out->ranks[0] = out->ranks[t->order] = 1;
  local.bonds = t->order - 1;
  tpi_ttid_residual res;
  TP_TRY(first_residual(t, &res));
  tp_status st = TP_SUCCESS;
  for (int k = 0; k + 1 < t->order && st == TP_SUCCESS; ++k)
    st = sweep_bond(&s, k, &res, out, &local.bond[k]);
  if (st == TP_SUCCESS)
    st = tpi_ttid_last_core(t, &res, &out->cores[t->order - 1]);
  tpi_ttid_residual_free(&res);
  if (st != TP_SUCCESS) {
    tp_tci_free(out);
    return st;
  }
  local.seconds_total = tp_wall_seconds() - s.start;
  if (info)
    *info = local;
  return TP_SUCCESS;
}

static tp_status factor_sparse(void *ctx, const tp_spmat *m, const tp_prrlu_options *opt,
                               const tpi_prrlu_observer *observer, tp_prrlu_result *res) {
  return tpi_prrlu_observed((tp_space *)ctx, m, opt, observer, res);
}

tp_status tp_sttid(tp_space *space, const tp_coo *host, const tp_sttid_options *opt, tp_tci *out,
                   tp_sttid_info *info) {
  TP_CHECK_ARG(space && out, "tp_sttid: space and output must not be NULL");
  memset(out, 0, sizeof *out);
  TP_TRY(check_options(opt));
  tp_coo t;
  TP_TRY(prepare_input(host, &t));
  tp_status st = tpi_ttid_sweep(&t, opt, factor_sparse, space, out, info);
  tpi_coo_host_free(&t);
  return st;
}

/* ---- the dense reference ------------------------------------------------------------ */

typedef struct dense_ctx {
  int64_t max_elements;
} dense_ctx;

static tp_status factor_dense(void *ctx, const tp_spmat *m, const tp_prrlu_options *opt,
                              const tpi_prrlu_observer *observer, tp_prrlu_result *res) {
  (void)observer; /* a reference for tests: it reports finished bonds only */
  const dense_ctx *c = (const dense_ctx *)ctx;
  if (m->rows > c->max_elements / m->cols)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "dense TT-ID: a %lld x %lld bond matrix exceeds the limit of %lld elements",
                    (long long)m->rows, (long long)m->cols, (long long)c->max_elements);
  double *a = (double *)calloc((size_t)(m->rows * m->cols), sizeof *a);
  if (!a)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "dense TT-ID: no host memory for %lld x %lld",
                    (long long)m->rows, (long long)m->cols);
  for (int64_t e = 0; e < m->nnz; ++e)
    a[m->row[e] * m->cols + m->col[e]] = m->values[e];
  tp_status st = tp_prrlu_dense(a, m->rows, m->cols, opt, res);
  free(a);
  return st;
}

tp_status tp_ttid_dense(const tp_coo *host, const tp_sttid_options *opt, int64_t max_elements,
                        tp_tci *out, tp_sttid_info *info) {
  TP_CHECK_ARG(out, "tp_ttid_dense: output must not be NULL");
  memset(out, 0, sizeof *out);
  TP_TRY(check_options(opt));
  TP_CHECK_ARG(max_elements >= 1, "dense TT-ID: max_elements %lld must be positive",
               (long long)max_elements);
  tp_coo t;
  TP_TRY(prepare_input(host, &t));
  dense_ctx c;
  c.max_elements = max_elements;
  tp_status st = tpi_ttid_sweep(&t, opt, factor_dense, &c, out, info);
  tpi_coo_host_free(&t);
  return st;
}
