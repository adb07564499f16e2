/* tenport cp-als's outputs: the model's .npy files and the --history document written
 * into the set made before the work (tenport_outputs_begin_model), and committed. */
#include <stdio.h>

#include "tools/tenport/cp_als_cli.h"

tp_status tenport_cp_write_history(const tenport_cp_watch *w, const tp_cp_als_options *solver,
                                   const tp_cp_als_result *r, tp_output_set *set,
                                   const char *path) {
  tenport_json j;
  tenport_json_begin(&j);
  tenport_json_string(&j, "command", "cp-als");
  tenport_json_integer(&j, "rank", (long long)solver->rank);
  tenport_json_number(&j, "tol", solver->tol);
  tenport_json_integer(&j, "max_iters", solver->max_iters);
  tenport_json_number(&j, "reg", solver->reg);
  tenport_json_bool(&j, "line_search", solver->line_search);
  tenport_json_bool(&j, "nonneg", solver->nonneg);
  tenport_json_integer(&j, "restarts", solver->restarts);
  tenport_json_array(&j, "iterations");
  for (int i = 0; i < w->history.count; ++i) {
    const tenport_cp_record *e = (const tenport_cp_record *)tenport_history_at(&w->history, i);
    tenport_json_object(&j, NULL);
    tenport_json_integer(&j, "start", e->start);
    tenport_json_integer(&j, "iteration", e->iteration);
    tenport_json_number(&j, "fit", e->fit);
    tenport_json_number(&j, "delta", e->delta);
    tenport_json_number(&j, "seconds", e->seconds);
    tenport_json_bool(&j, "extrapolated", e->extrapolated);
    tenport_json_integer(&j, "fallback_solves", e->fallback_solves);
    tenport_json_end(&j);
  }
  tenport_json_end(&j);
  tenport_json_object(&j, "result");
  tenport_json_number(&j, "fit", r->fit);
  tenport_json_integer(&j, "iterations", r->iterations);
  tenport_json_bool(&j, "converged", r->converged);
  tenport_json_bool(&j, "stopped_by_time", r->stopped_by_time);
  tenport_json_integer(&j, "starts", r->starts);
  tenport_json_integer(&j, "best_start", r->best_start);
  tenport_json_integer(&j, "extrapolations", r->extrapolations);
  tenport_json_number(&j, "seconds", r->seconds);
  tenport_json_end(&j);
  const int lost = w->history.out_of_memory;
  tp_status st = lost ? TP_ERROR_OUT_OF_MEMORY : tenport_json_write(&j, set, path);
  if (lost)
    fprintf(stderr, "tenport cp-als: out of host memory for the iterations' history\n");
  tenport_json_free(&j);
  return st;
}

tp_status tenport_cp_write_outputs(tp_output_set *set, const char *output, const char *history,
                                   const tp_kruskal *host_model, const tenport_cp_watch *watch,
                                   const tp_cp_als_options *solver, const tp_cp_als_result *r) {
  if (!set)
    return TP_SUCCESS;
  tp_status st = output ? tp_kruskal_write_npy_to(set, output, host_model) : TP_SUCCESS;
  if (st == TP_SUCCESS && history)
    st = tenport_cp_write_history(watch, solver, r, set, history);
  if (st == TP_SUCCESS && (st = tp_output_set_commit(set)) == TP_SUCCESS)
    tenport_summary_outputs(set);
  return st;
}
