/* tenport cp-als's watch on the iterations (tp_cp_als_options.progress): a line per
 * iteration on stdout, the live indicator on a terminal, and with --history every
 * iteration kept. */
#include <math.h>
#include <stdio.h>

#include "tools/tenport/cp_als_cli.h"

/* The iteration after which the solver stops (its own rule: |delta| < tol from the
 * second iteration on, or the limit). */
static int last_iteration(const tenport_cp_watch *w, const tp_cp_als_progress *p) {
  return p->iteration >= w->max_iters || (p->iteration > 1 && fabs(p->delta_fit) < w->tol);
}

#define ITERATION_STATUS "iteration %d (at most %d), fit %.6f, delta %+.2e"

/* One more iteration into the history (kept only with --history). */
static void record(tenport_cp_watch *w, const tp_cp_als_progress *p) {
  tenport_cp_record *r =
      w->keep_history ? (tenport_cp_record *)tenport_history_push(&w->history, sizeof *r) : NULL;
  if (!r)
    return;
  r->start = p->start, r->iteration = p->iteration, r->extrapolated = p->extrapolated;
  r->fallback_solves = p->fallback_solves;
  r->fit = p->fit, r->delta = p->delta_fit, r->seconds = p->seconds;
}

void tenport_cp_watch_free(tenport_cp_watch *w) { tenport_history_free(&w->history); }

/* The line on stdout as before, and the indicator (the last iteration's state drawn at
 * once: normalisation and writing follow it). */
void tenport_cp_watch_iteration(const tp_cp_als_progress *p, void *watch) {
  tenport_cp_watch *w = (tenport_cp_watch *)watch;
  w->iteration_seconds += p->seconds;
  record(w, p);
  if (w->quiet)
    return;
  tenport_progress_hide(&w->bar);
  if (w->starts > 1 && p->iteration == 1)
    printf("start %d of %d\n", p->start + 1, w->starts);
  tp_cp_als_print_progress(p, stdout);
  if (last_iteration(w, p))
    tenport_progress_show(&w->bar, ITERATION_STATUS, p->iteration, w->max_iters, p->fit,
                          p->delta_fit);
  else
    tenport_progress_update(&w->bar, ITERATION_STATUS, p->iteration, w->max_iters, p->fit,
                            p->delta_fit);
}

void tenport_cp_watch_begin(tenport_cp_watch *w) {
  if (w)
    tenport_progress_begin(&w->bar, "cp-als", tenport_progress_wanted(0));
}

void tenport_cp_watch_end(tenport_cp_watch *w) {
  if (w)
    tenport_progress_end(&w->bar);
}
