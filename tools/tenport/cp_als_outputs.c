/* tenport cp-als's outputs: the set made before the work (no input replaced), then the
 * model's .npy files and the --history document written into it and committed. */
#include <stdio.h>

#include "tools/tenport/cp_als_cli.h"

/* Inputs no output may replace: the tensor and the --init files. The history's file
 * joins the set at once; the model's once the order is known. */
int tenport_cp_begin_outputs(const tenport_cp_cli *c, const tp_input *in, tp_output_set **set) {
  char names[TP_DENSE_MAX_ORDER + 1][4096];
  const char *inputs[TP_DENSE_MAX_ORDER + 1];
  int n = 0;
  for (int k = -1; c->init && k < TP_DENSE_MAX_ORDER; ++k, ++n) {
    if (k < 0)
      snprintf(names[n], sizeof names[n], "%s_lambda.npy", c->init);
    else
      snprintf(names[n], sizeof names[n], "%s_factor%d.npy", c->init, k);
    inputs[n] = names[n];
  }
  if (tenport_outputs_begin("cp-als", set, in, inputs, n))
    return 1;
  if (c->history && tenport_outputs_add("cp-als", *set, c->history))
    return 1;
  return c->output ? tenport_outputs_check_folder("cp-als", c->output) : 0;
}

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
  tenport_json_integer(&j, "restarts", solver->restarts);
  tenport_json_array(&j, "iterations");
  for (int i = 0; i < w->recorded; ++i) {
    const tenport_cp_record *e = &w->history[i];
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
  tp_status st = w->out_of_memory ? TP_ERROR_OUT_OF_MEMORY : tenport_json_write(&j, set, path);
  if (w->out_of_memory)
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
