/* tenport gcp's watch on the iterations (tp_gcp_options.progress): the library's line per
 * iteration on stdout, the live indicator on a terminal, and with --history every
 * iteration kept; then the files of the run: the model and the history, written into the
 * output set and committed together. */
#include <math.h>
#include <stdio.h>

#include "tools/tenport/gcp_cli.h"

void tenport_gcp_watch_iteration(const tp_gcp_progress *p, void *watch) {
  tenport_gcp_watch *w = (tenport_gcp_watch *)watch;
  w->iteration_seconds = p->seconds; /* p->seconds counts from the solver's start */
  tenport_gcp_record *r =
      w->keep_history ? (tenport_gcp_record *)tenport_history_push(&w->history, sizeof *r) : NULL;
  if (r) {
    r->iteration = p->iteration, r->evaluations = p->evaluations;
    r->loss = p->loss, r->gradient_norm = p->gradient_norm, r->seconds = p->seconds;
  }
  if (w->quiet)
    return;
  tenport_progress_hide(&w->bar);
  tp_gcp_print_progress(p, stdout);
  if (p->step > 0) /* an Adam epoch */
    tenport_progress_update(&w->bar, "epoch %d (at most %d), loss estimate %.6e, step %.1e",
                            p->iteration, w->max_iters, p->loss, p->step);
  else
    tenport_progress_update(&w->bar, "iteration %d (at most %d), loss %.6e, |pg| %.2e",
                            p->iteration, w->max_iters, p->loss, p->gradient_norm);
}

void tenport_gcp_watch_begin(tenport_gcp_watch *w) {
  if (w)
    tenport_progress_begin(&w->bar, "gcp", tenport_progress_wanted(0));
}

void tenport_gcp_watch_end(tenport_gcp_watch *w) {
  if (w)
    tenport_progress_end(&w->bar);
}

void tenport_gcp_watch_free(tenport_gcp_watch *w) { tenport_history_free(&w->history); }

/* The options that shape the run, as the history's first members. */
static void history_options(tenport_json *j, const tenport_gcp_job *job) {
  const tp_gcp_options *s = &job->c->solver;
  tenport_json_string(j, "command", "gcp");
  tenport_json_integer(j, "rank", (long long)s->rank);
  tenport_json_string(j, "loss", tp_gcp_loss_name(s->loss));
  if (tp_gcp_loss_has_param(s->loss))
    tenport_json_number(j, "loss_param", s->loss_param);
  tenport_json_number(j, "lower", isnan(s->lower) ? tp_gcp_loss_lower_bound(s->loss) : s->lower);
  if (s->solver == TP_GCP_SOLVER_ADAM) {
    tenport_json_string(j, "solver", "adam");
    tenport_json_integer(j, "epochs", s->epochs);
    tenport_json_integer(j, "epoch_iters", s->epoch_iters);
    tenport_json_number(j, "rate", s->rate);
    tenport_json_number(j, "decay", s->decay);
    tenport_json_integer(j, "max_fails", s->max_fails);
    return;
  }
  tenport_json_string(j, "solver", "lbfgsb");
  tenport_json_integer(j, "max_iters", s->max_iters);
  tenport_json_integer(j, "max_evals", s->max_evals);
  tenport_json_number(j, "factr", s->factr);
  tenport_json_number(j, "pgtol", s->pgtol);
  tenport_json_integer(j, "memory", s->memory);
}

/* The --history document: the options, each iteration's number, evaluations so far, loss,
 * projected gradient norm and seconds, then the result. */
static tp_status write_history(const tenport_gcp_job *job, tp_output_set *set, const char *path) {
  const tenport_history *h = &job->c->watch.history;
  const tp_gcp_result *r = &job->result;
  tenport_json j;
  tenport_json_begin(&j);
  history_options(&j, job);
  tenport_json_array(&j, "iterations");
  for (int i = 0; i < h->count; ++i) {
    const tenport_gcp_record *e = (const tenport_gcp_record *)tenport_history_at(h, i);
    tenport_json_object(&j, NULL);
    tenport_json_integer(&j, "iteration", e->iteration);
    tenport_json_integer(&j, "evaluations", e->evaluations);
    tenport_json_number(&j, "loss", e->loss);
    tenport_json_number(&j, "gradient_norm", e->gradient_norm);
    tenport_json_number(&j, "seconds", e->seconds);
    tenport_json_end(&j);
  }
  tenport_json_end(&j);
  tenport_json_object(&j, "result");
  tenport_json_number(&j, "loss", r->loss);
  tenport_json_number(&j, "initial_loss", r->initial_loss);
  tenport_json_number(&j, "gradient_norm", r->gradient_norm);
  tenport_json_integer(&j, "iterations", r->iterations);
  tenport_json_integer(&j, "evaluations", r->evaluations);
  tenport_json_bool(&j, "converged", r->converged);
  tenport_json_string(&j, "stop_reason", r->stop_reason);
  tenport_json_number(&j, "seconds", r->seconds);
  tenport_json_end(&j);
  tp_status st = h->out_of_memory ? TP_ERROR_OUT_OF_MEMORY : tenport_json_write(&j, set, path);
  if (h->out_of_memory)
    fprintf(stderr, "tenport gcp: out of host memory for the iterations' history\n");
  tenport_json_free(&j);
  return st;
}

tp_status tenport_gcp_write_outputs(const tenport_gcp_job *j) {
  const tenport_gcp_cli *c = j->c;
  if (!j->set)
    return TP_SUCCESS;
  tp_status st =
      c->output ? tp_kruskal_write_npy_to(j->set, c->output, &j->host_model) : TP_SUCCESS;
  if (st == TP_SUCCESS && c->history)
    st = write_history(j, j->set, c->history);
  if (st == TP_SUCCESS && (st = tp_output_set_commit(j->set)) == TP_SUCCESS)
    tenport_summary_outputs(j->set);
  return st;
}
