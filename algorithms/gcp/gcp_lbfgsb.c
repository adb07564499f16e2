/* GCP's full-gradient solver: L-BFGS-B 3.0 (Morales & Nocedal's Fortran, Debian's
 * liblbfgsb) by reverse communication. The quasi-Newton step runs on the host in double
 * precision over the factors as one vector; each function and gradient is the source's,
 * in the space. (Built without the library: gcp_lbfgsb_none.c.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_clock.h"
#include "portable/tp_error.h"
#include "portable/tp_gemm_provider.h"
#include "algorithms/gcp/tp_gcp_internal.h"

/* The Fortran routine (character arguments' lengths last, as gfortran passes them). */
extern void setulb_(const int *n, const int *m, double *x, const double *l, const double *u,
                    const int *nbd, double *f, double *g, const double *factr, const double *pgtol,
                    double *wa, int *iwa, char *task, const int *iprint, char *csave, int *lsave,
                    int *isave, double *dsave, size_t task_len, size_t csave_len);

enum { LBFGSB_TEXT = 60 };

/* The solver's state: its work arrays and the best iterate seen. */
typedef struct lbfgsb_state {
  int n, m, *nbd, *iwa, lsave[4], isave[44];
  double *l, *u, *g, *wa, *best, dsave[29], f, best_f;
  char task[LBFGSB_TEXT + 1], csave[LBFGSB_TEXT + 1];
} lbfgsb_state;

static void lbfgsb_free(lbfgsb_state *s) {
  free(s->nbd), free(s->iwa), free(s->l), free(s->u), free(s->g), free(s->wa), free(s->best);
}

static tp_status lbfgsb_alloc(lbfgsb_state *s, int64_t n, int m, double lower) {
  memset(s, 0, sizeof *s);
  TP_CHECK_ARG(n <= 0x7fffffff / 3, "%lld factor entries: L-BFGS-B takes fewer than 2^31 / 3",
               (long long)n);
  s->n = (int)n, s->m = m;
  const size_t wa =
      2 * (size_t)m * (size_t)n + 5 * (size_t)n + 11 * (size_t)m * (size_t)m + 8 * (size_t)m;
  s->nbd = (int *)malloc(sizeof(int) * (size_t)n);
  s->iwa = (int *)malloc(sizeof(int) * 3 * (size_t)n);
  s->l = (double *)malloc(sizeof(double) * (size_t)n);
  s->u = (double *)malloc(sizeof(double) * (size_t)n);
  s->g = (double *)malloc(sizeof(double) * (size_t)n);
  s->best = (double *)malloc(sizeof(double) * (size_t)n);
  s->wa = (double *)malloc(sizeof(double) * wa);
  if (!s->nbd || !s->iwa || !s->l || !s->u || !s->g || !s->best || !s->wa) {
    lbfgsb_free(s);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for L-BFGS-B's %zu work values", wa);
  }
  for (int64_t i = 0; i < n; ++i) {
    s->nbd[i] = isfinite(lower) ? 1 : 0; /* 1: a lower bound only */
    s->l[i] = isfinite(lower) ? lower : 0.0, s->u[i] = 0.0;
  }
  memset(s->task, ' ', LBFGSB_TEXT), memset(s->csave, ' ', LBFGSB_TEXT);
  s->task[LBFGSB_TEXT] = s->csave[LBFGSB_TEXT] = '\0';
  memcpy(s->task, "START", 5);
  return TP_SUCCESS;
}

static int lbfgsb_task_is(const lbfgsb_state *s, const char *prefix) {
  return !strncmp(s->task, prefix, strlen(prefix));
}

/* The task's text without its padding, into the result. */
static void lbfgsb_reason(const lbfgsb_state *s, tp_gcp_result *res) {
  size_t len = LBFGSB_TEXT;
  while (len > 0 && s->task[len - 1] == ' ')
    --len;
  len = len < sizeof res->stop_reason - 1 ? len : sizeof res->stop_reason - 1;
  memcpy(res->stop_reason, s->task, len);
  res->stop_reason[len] = '\0';
}

static void lbfgsb_stop(tp_gcp_result *res, const char *why) {
  strncpy(res->stop_reason, why, sizeof res->stop_reason - 1);
  res->stop_reason[sizeof res->stop_reason - 1] = '\0';
}

/* f and g at x: the factors to the space, the source's evaluation, the gradient back. */
static tp_status lbfgsb_evaluate(tp_space *space, const tpi_gcp_source *src, const double *x,
                                 tp_kruskal *M, tp_kruskal *G, double *f, double *g,
                                 tp_gcp_result *res) {
  const double t0 = tp_wall_seconds();
  TP_TRY(tpi_gcp_vector_to_space(space, x, M));
  TP_TRY(src->fg(src->ctx, space, M, f, G));
  TP_TRY(tpi_gcp_space_to_vector(space, G, g));
  res->eval_seconds += tp_wall_seconds() - t0;
  res->evaluations++;
  return TP_SUCCESS;
}

/* After an accepted step: the progress callback, then the limits. Returns 1 to stop. */
static int lbfgsb_after_step(const tp_gcp_options *o, lbfgsb_state *s, double t0,
                             tp_gcp_result *res, int *cancelled) {
  res->iterations++;
  res->gradient_norm = s->dsave[12]; /* the projected gradient's largest |entry| */
  if (o->progress) {
    tp_gcp_progress p = {res->iterations,
                         res->evaluations,
                         s->f,
                         res->gradient_norm,
                         tp_wall_seconds() - t0,
                         0.0,
                         0};
    o->progress(&p, o->progress_user);
  }
  if (o->cancel && *o->cancel) {
    *cancelled = 1;
    return 1;
  }
  if (res->iterations >= o->max_iters) {
    lbfgsb_stop(res, "max_iters");
    return 1;
  }
  if (o->max_seconds > 0 && tp_wall_seconds() - t0 > o->max_seconds) {
    res->stopped_by_time = 1;
    lbfgsb_stop(res, "max_seconds");
    return 1;
  }
  return 0;
}

static tp_status lbfgsb_loop(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *o,
                             lbfgsb_state *s, double *x, tp_kruskal *M, tp_kruskal *G,
                             tp_gcp_result *res) {
  const double t0 = tp_wall_seconds();
  const int iprint = -1;
  int cancelled = 0, first = 1;
  for (;;) {
    tpi_blas_threads blas; /* the solver's LAPACK calls are on 2m x 2m matrices */
    tpi_blas_single_thread(&blas);
    setulb_(&s->n, &s->m, x, s->l, s->u, s->nbd, &s->f, s->g, &o->factr, &o->pgtol, s->wa, s->iwa,
            s->task, &iprint, s->csave, s->lsave, s->isave, s->dsave, LBFGSB_TEXT, LBFGSB_TEXT);
    tpi_blas_threads_restore(&blas);
    if (lbfgsb_task_is(s, "FG")) {
      if (res->evaluations >= o->max_evals) {
        lbfgsb_stop(res, "max_evals");
        break;
      }
      TP_TRY(lbfgsb_evaluate(space, src, x, M, G, &s->f, s->g, res));
      if (first) { /* the start (projected onto the bounds by the solver) */
        res->initial_loss = s->f, s->best_f = s->f, first = 0;
        memcpy(s->best, x, sizeof(double) * (size_t)s->n);
      }
      continue;
    }
    if (lbfgsb_task_is(s, "NEW_X")) {
      s->best_f = s->f;
      memcpy(s->best, x, sizeof(double) * (size_t)s->n);
      if (lbfgsb_after_step(o, s, t0, res, &cancelled))
        break;
      continue;
    }
    lbfgsb_reason(s, res);
    res->converged = lbfgsb_task_is(s, "CONV");
    if (lbfgsb_task_is(s, "ERROR"))
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "L-BFGS-B: %s", res->stop_reason);
    break;
  }
  if (cancelled)
    return TP_ERROR(TP_ERROR_CANCELLED, "GCP cancelled after %d iterations", res->iterations);
  /* the last accepted iterate: an abnormal line search may leave x elsewhere */
  if (!first)
    memcpy(x, s->best, sizeof(double) * (size_t)s->n);
  res->loss = first ? NAN : s->best_f;
  return TP_SUCCESS;
}

tp_status tpi_gcp_lbfgsb(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *o,
                         double *x, tp_kruskal *M, tp_kruskal *G, tp_gcp_result *res) {
  int64_t n = 0;
  for (int k = 0; k < src->order; ++k)
    n += src->dims[k] * M->rank;
  lbfgsb_state s;
  TP_TRY(lbfgsb_alloc(&s, n, o->memory, o->lower));
  tp_status st = lbfgsb_loop(space, src, o, &s, x, M, G, res);
  lbfgsb_free(&s);
  return st;
}
