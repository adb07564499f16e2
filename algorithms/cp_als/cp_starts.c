/* CP-ALS restarts: the first start, then opts->restarts more from random factors (seed
 * + 1, ...), each iterated as the first; the model of the highest final fit is the
 * run's. The best so far waits on the host (its factors as this rank holds them, and
 * lambda) while later starts use the model's memory. */
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "algorithms/cp_als/tp_cp_run.h"
#include "portable/tp_error.h"

typedef struct cp_kept {
  void *factors[TP_COO_MAX_ORDER]; /* host: this rank's rows of each factor */
  double *lambda;                  /* host: R */
} cp_kept;

static size_t kept_bytes(const tp_cp_run *run, int k) {
  return tpi_cp_run_elem(run) * (size_t)(tpi_cp_run_slab_rows(run, k) * run->R);
}

static void kept_free(cp_kept *kept) {
  for (int k = 0; k < TP_COO_MAX_ORDER; ++k)
    free(kept->factors[k]), kept->factors[k] = NULL;
  free(kept->lambda), kept->lambda = NULL;
}

static tp_status kept_alloc(const tp_cp_run *run, cp_kept *kept) {
  memset(kept, 0, sizeof *kept);
  size_t total = sizeof(double) * (size_t)run->R;
  kept->lambda = (double *)malloc(sizeof(double) * (size_t)run->R);
  int ok = kept->lambda != NULL;
  for (int k = 0; k < run->d && ok; ++k) {
    total += kept_bytes(run, k);
    ok = (kept->factors[k] = malloc(kept_bytes(run, k))) != NULL;
  }
  if (ok)
    return TP_SUCCESS;
  kept_free(kept);
  return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                  "no host memory (%zu bytes) to keep the best "
                  "start's model between restarts",
                  total);
}

/* The model and lambda into kept (save) or back (restore). */
static tp_status kept_swap(tp_cp_run *run, cp_kept *kept, int save) {
  const size_t R = (size_t)run->R;
  for (int k = 0; k < run->d; ++k)
    TP_TRY(save ? tp_copy_to_host(run->space, kept->factors[k], run->model->factors[k],
                                  kept_bytes(run, k))
                : tp_copy_to_device(run->space, run->model->factors[k], kept->factors[k],
                                    kept_bytes(run, k)));
  if (save)
    memcpy(kept->lambda, run->lambda, sizeof(double) * R);
  else
    memcpy(run->lambda, kept->lambda, sizeof(double) * R);
  return TP_SUCCESS;
}

/* Starts 0..restarts; *best the start kept in kept (or left in the model when it ran
 * last). */
static tp_status run_each(tp_cp_run *run, cp_kept *kept, tp_cp_als_result *res, int *best) {
  const int starts = 1 + run->opts->restarts;
  int fallbacks = 0;
  for (int s = 0; s < starts; ++s) {
    if (s > 0 && tpi_cp_run_out_of_time(run)) {
      res->stopped_by_time = 1;
      break;
    }
    if (s > 0)
      TP_TRY(tpi_cp_run_initial_guess(run, s));
    tp_cp_als_result one;
    memset(&one, 0, sizeof one);
    TP_TRY(tpi_cp_run_start(run, s, &one));
    fallbacks += one.fallback_solves;
    res->starts = s + 1;
    if (s == 0 || one.fit > res->fit) {
      *best = s;
      res->fit = one.fit, res->iterations = one.iterations, res->converged = one.converged;
      res->extrapolations = one.extrapolations;
      if (s + 1 < starts)
        TP_TRY(kept_swap(run, kept, 1));
    }
    res->stopped_by_time |= one.stopped_by_time;
    if (one.stopped_by_time)
      break;
  }
  res->fallback_solves = fallbacks;
  res->best_start = *best;
  return TP_SUCCESS;
}

tp_status tpi_cp_run_starts(tp_cp_run *run, tp_cp_als_result *res) {
  if (run->opts->restarts == 0) {
    res->starts = 1;
    return tpi_cp_run_start(run, 0, res);
  }
  cp_kept kept;
  TP_TRY(kept_alloc(run, &kept));
  int best = 0;
  tp_status st = run_each(run, &kept, res, &best);
  if (st == TP_SUCCESS && best + 1 < res->starts) /* a later start overwrote it */
    st = kept_swap(run, &kept, 0);
  kept_free(&kept);
  return st;
}
