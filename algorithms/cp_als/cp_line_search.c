/* CP-ALS's line search between iterations (Bro's extrapolation, as in the N-way toolbox
 * and TensorLy's linesearch): after the sweep of iteration it, the free factors move on
 * along the sweep's change, E = C + s (C - P), with P the factors the sweep started from,
 * C those it ended with (the last free mode carrying lambda in both) and the step
 * s = it^(1/p). E, renormalised (max-norm columns, norms into lambda), replaces C only
 * when its fit is higher, so the fit never drops; after four rejections in a row p grows
 * by one (shorter steps). Starting at iteration 3: the first iteration's columns have
 * 2-norm 1, every later one's max-norm 1, and P and C must be scaled alike.
 * The trial's fit needs one MTTKRP (of the mode the tensor reaches at least cost) and
 * the Grams of the free modes; a rejected trial costs those Grams again.
 * Distributed, every rank applies the same steps to all the rows of its slabs, which
 * stay equal on the ranks that share them. A nonnegative run's trial is cut at 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "algorithms/cp_als/tp_cp_run.h"
#include "portable/tp_error.h"

enum { LS_FIRST_ITERATION = 3, LS_PATIENCE = 4 };
#define LS_FIRST_POWER 3.0

struct tpi_cp_line_search {
  void *prev[TP_COO_MAX_ORDER];  /* space: the free factors the sweep started from */
  void *trial[TP_COO_MAX_ORDER]; /* space: the extrapolated free factors */
  tp_kruskal trial_model;        /* the model with the trial's free factors */
  double *lambda_prev, *lambda_cur, *lambda_trial, *scales; /* host: R, R, R, 2R */
  double power;
  int failures;
};

static size_t factor_bytes(const tp_cp_run *run, int k) {
  return tpi_cp_run_elem(run) * (size_t)(tpi_cp_run_slab_rows(run, k) * run->R);
}

void tpi_cp_line_search_destroy(tp_cp_run *run, tpi_cp_line_search **search) {
  tpi_cp_line_search *ls = search ? *search : NULL;
  if (!ls)
    return;
  for (int k = 0; k < TP_COO_MAX_ORDER; ++k) {
    tp_free(run->space, ls->prev[k]);
    tp_free(run->space, ls->trial[k]);
  }
  free(ls->lambda_prev), free(ls->lambda_cur), free(ls->lambda_trial), free(ls->scales);
  free(ls);
  *search = NULL;
}

static tp_status alloc_copies(tp_cp_run *run, tpi_cp_line_search *ls) {
  const size_t R = (size_t)run->R;
  ls->lambda_prev = (double *)malloc(sizeof(double) * R);
  ls->lambda_cur = (double *)malloc(sizeof(double) * R);
  ls->lambda_trial = (double *)malloc(sizeof(double) * R);
  ls->scales = (double *)malloc(sizeof(double) * 2 * R);
  if (!ls->lambda_prev || !ls->lambda_cur || !ls->lambda_trial || !ls->scales)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for the line search");
  ls->trial_model = *run->model;
  for (int k = 0; k < run->d; ++k) {
    if (tpi_cp_run_fixed(run, k))
      continue;
    tp_status st = tp_alloc(run->space, factor_bytes(run, k), &ls->prev[k]);
    if (st == TP_SUCCESS)
      st = tp_alloc(run->space, factor_bytes(run, k), &ls->trial[k]);
    if (st != TP_SUCCESS)
      return TP_ERROR(st,
                      "no memory for the line search's two copies of factor %d (%zu "
                      "bytes each); run without it (line_search = 0, --no-line-search)",
                      k, factor_bytes(run, k));
    ls->trial_model.factors[k] = ls->trial[k];
  }
  return TP_SUCCESS;
}

tp_status tpi_cp_line_search_create(tp_cp_run *run, tpi_cp_line_search **search) {
  *search = NULL;
  if (!run->opts->line_search || !run->X->mttkrp_trial || run->opts->max_iters < LS_FIRST_ITERATION)
    return TP_SUCCESS;
  tpi_cp_line_search *ls = (tpi_cp_line_search *)calloc(1, sizeof *ls);
  if (!ls)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for the line search");
  *search = ls;
  return alloc_copies(run, ls);
}

tp_status tpi_cp_line_search_before(tp_cp_run *run, tpi_cp_line_search *ls, int new_start) {
  if (new_start)
    ls->power = LS_FIRST_POWER, ls->failures = 0;
  for (int k = 0; k < run->d; ++k)
    if (ls->prev[k])
      TP_TRY(
          tp_copy_on_device(run->space, ls->prev[k], run->model->factors[k], factor_bytes(run, k)));
  memcpy(ls->lambda_prev, run->lambda, sizeof(double) * (size_t)run->R);
  return TP_SUCCESS;
}

/* trial[k] = C_k + step (C_k - P_k), lambda folded into the last free mode's. */
static tp_status extrapolate(tp_cp_run *run, tpi_cp_line_search *ls, double step) {
  const int64_t R = run->R;
  for (int k = 0; k < run->d; ++k) {
    if (!ls->trial[k])
      continue;
    const int carries = k == run->fit_mode;
    for (int64_t r = 0; r < R; ++r) {
      ls->scales[r] = carries ? ls->lambda_cur[r] : 1.0;
      ls->scales[R + r] = carries ? ls->lambda_prev[r] : 1.0;
    }
    TP_TRY(tpi_cp_columns_extrapolate(run->space, run->dtype, run->model->factors[k], ls->prev[k],
                                      ls->trial[k], tpi_cp_run_slab_rows(run, k), R, step,
                                      ls->scales, run->opts->nonneg));
  }
  return TP_SUCCESS;
}

/* The trial's free factors to max-norm columns, their norms into lambda_trial. */
static tp_status renormalise(tp_cp_run *run, tpi_cp_line_search *ls) {
  const int64_t R = run->R;
  double *norms = ls->scales; /* R of its 2R */
  for (int64_t r = 0; r < R; ++r)
    ls->lambda_trial[r] = 1.0;
  for (int k = 0; k < run->d; ++k) {
    if (!ls->trial[k])
      continue;
    const void *own = tpi_cp_run_row(run, &ls->trial_model, k, tpi_cp_run_own_offset(run, k));
    TP_TRY(tpi_cp_run_owned_columns(run, TP_CP_COLUMN_MAXABS, own, NULL, k, norms));
    for (int64_t r = 0; r < R; ++r) {
      if (!isfinite(norms[r]))
        return TP_ERROR(TP_ERROR_NUMERICAL,
                        "the line search's extrapolation of factor %d "
                        "has non-finite values in column %lld",
                        k, (long long)r);
      ls->lambda_trial[r] *= norms[r];
      norms[r] = norms[r] > 0 ? 1.0 / norms[r] : 1.0;
    }
    TP_TRY(tpi_cp_columns_scale(run->space, run->dtype, ls->trial[k], tpi_cp_run_slab_rows(run, k),
                                R, norms));
  }
  return TP_SUCCESS;
}

/* The fit of the trial: its Grams (kept where the run keeps its own) and one MTTKRP. */
static tp_status trial_fit(tp_cp_run *run, tpi_cp_line_search *ls, double *fit) {
  run->M = &ls->trial_model;
  memcpy(run->lambda, ls->lambda_trial, sizeof(double) * (size_t)run->R);
  tp_status st = TP_SUCCESS;
  for (int k = 0; k < run->d && st == TP_SUCCESS; ++k)
    if (ls->trial[k])
      st = tpi_cp_run_gram(run, k);
  int mode = 0;
  void *G_own = NULL;
  if (st == TP_SUCCESS)
    st = tpi_cp_run_mttkrp_trial(run, &mode, &G_own);
  if (st == TP_SUCCESS)
    st = tpi_cp_run_fit(run, mode, G_own, fit);
  run->M = run->model;
  return st;
}

/* Keeps the trial (its Grams are in place), or goes back to the sweep's model. */
static tp_status settle(tp_cp_run *run, tpi_cp_line_search *ls, int keep) {
  const size_t R = (size_t)run->R;
  memcpy(run->lambda, keep ? ls->lambda_trial : ls->lambda_cur, sizeof(double) * R);
  for (int k = 0; k < run->d; ++k) {
    if (!ls->trial[k])
      continue;
    if (keep)
      TP_TRY(tp_copy_on_device(run->space, run->model->factors[k], ls->trial[k],
                               factor_bytes(run, k)));
    else
      TP_TRY(tpi_cp_run_gram(run, k));
  }
  return TP_SUCCESS;
}

/* Four rejections in a row shorten the steps. */
static void count(tpi_cp_line_search *ls, int kept) {
  ls->failures = kept ? 0 : ls->failures + 1;
  if (ls->failures == LS_PATIENCE)
    ls->power += 1.0, ls->failures = 0;
}

tp_status tpi_cp_line_search_after(tp_cp_run *run, tpi_cp_line_search *ls, int it, double *fit,
                                   int *kept) {
  *kept = 0;
  if (it < LS_FIRST_ITERATION)
    return TP_SUCCESS;
  memcpy(ls->lambda_cur, run->lambda, sizeof(double) * (size_t)run->R);
  double trial = 0.0;
  TP_TRY(extrapolate(run, ls, pow((double)it, 1.0 / ls->power)));
  TP_TRY(renormalise(run, ls));
  TP_TRY(trial_fit(run, ls, &trial));
  *kept = trial > *fit;
  TP_TRY(settle(run, ls, *kept));
  count(ls, *kept);
  if (*kept)
    *fit = trial;
  return TP_SUCCESS;
}
