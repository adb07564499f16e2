/* tenport gcp: Generalized CP of a tensor read from .npy or dense text (gcp_dense.c) or
 * from .tns / .tpb (gcp_sparse.c), with an optional mask; the arguments are gcp_args.c's.
 * This file is the pipeline: open (the inputs, the output set made before any work) ->
 * load (the input's content says which path) -> prepare (the space, created meanwhile,
 * the start and the model) -> run -> write -> report. Under mpirun, gcp_dist.c's run. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/gcp_cli.h"

static int fail(void) { return tenport_fail("gcp", "failed"); }

void tenport_gcp_job_free(tenport_gcp_job *j) {
  tp_kruskal_free(NULL, &j->host_model), tp_kruskal_free(j->space, &j->model);
  tp_kruskal_free(NULL, &j->init);
  tp_dense_free(j->space, &j->w), tp_dense_free(j->space, &j->x);
  tp_dense_free(NULL, &j->host_w), tp_dense_free(NULL, &j->host_x);
  tp_coo_free(NULL, &j->missing), tp_coo_free(NULL, &j->coo);
  tp_output_set_destroy(&j->set);
  tp_input_close(&j->mask_in), tp_input_close(&j->in);
}

/* open: the tensor, the mask, and the output set, in which neither (nor the --init
 * files) can be replaced. */
static int open_inputs(tenport_gcp_job *j) {
  const tenport_gcp_cli *c = j->c;
  int code = tenport_open_input("gcp", c->input, &j->in);
  if (code == 0 && c->mask)
    code = tenport_open_input("gcp", c->mask, &j->mask_in);
  const char *inputs[1] = {c->mask};
  if (code == 0 && (c->output || c->history))
    code = tenport_outputs_begin_model("gcp", j->in, c->init, inputs, 1, c->output, c->history,
                                       &j->set);
  return code;
}

/* load: the input's content says which path it takes: .npy or dense text dense, .tns or
 * .tpb sparse. */
static int load(tenport_gcp_job *j) {
  const tenport_gcp_cli *c = j->c;
  tp_file_format format = TP_FILE_UNKNOWN;
  if (tp_input_format(j->in, &format) != TP_SUCCESS)
    return fail();
  int code = tenport_text_options_fit("gcp", j->in, &c->text);
  int dense = format == TP_FILE_NPY || format == TP_FILE_DENSE_TEXT;
  if (code == 0 && dense && c->dims_text) {
    fprintf(stderr,
            "tenport gcp: --dims applies to sparse inputs (.tns, .tpb); %s is a dense tensor, "
            "whose file gives its dims\n",
            tp_input_name(j->in));
    return 2;
  }
  if (code == 0 && dense)
    return tenport_gcp_load_dense(j);
  if (code == 0 && (format == TP_FILE_TPB || format == TP_FILE_TEXT))
    return tenport_gcp_load_sparse(j);
  if (code == 0)
    code = (tp_input_wrong_format(j->in, format,
                                  "a dense tensor (.npy or dense 'tensor' text) or a sparse "
                                  "one (.tns or .tpb)"),
            fail());
  return code;
}

/* prepare: the space (waited for), the tensor and mask copied into it, the start
 * (--init) and the model. */
static tp_status prepare(tenport_space_ahead *ahead, tenport_gcp_job *j) {
  tenport_gcp_cli *c = j->c;
  double t = tenport_seconds();
  if (!(j->space = tenport_space_ahead_wait(ahead, "gcp")))
    return TP_ERROR_INVALID_ARGUMENT; /* reported */
  const double waited = tenport_seconds() - t;
  t = tenport_seconds();
  tp_status st = j->sparse ? TP_SUCCESS : tenport_gcp_dense_to_space(j);
  j->phases.build = tenport_seconds() - t, t = tenport_seconds();
  if (st == TP_SUCCESS && c->init) {
    st = tp_kruskal_read_npy(c->init, j->dtype, j->order, j->dims, c->rank, &j->init);
    c->solver.init = st == TP_SUCCESS ? &j->init : NULL;
  }
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(j->space, j->dtype, j->order, j->dims, c->rank, &j->model);
  j->phases.init = waited + (tenport_seconds() - t);
  return st;
}

/* run: the solver, watched (the indicator around it unless --quiet). */
static tp_status run_solver(tenport_gcp_job *j) {
  tenport_gcp_cli *c = j->c;
  tenport_gcp_watch *watch = c->quiet ? NULL : &c->watch;
  c->watch.iteration_seconds = 0;
  tenport_gcp_watch_begin(watch);
  double t = tenport_seconds();
  tp_status st = j->sparse ? tp_gcp_sparse(j->space, &j->coo, j->mask_in ? &j->missing : NULL,
                                           &c->solver, &j->model, &j->result)
                           : tp_gcp(j->space, &j->x, j->mask_in ? &j->w : NULL, &c->solver,
                                    &j->model, &j->result);
  j->solve_seconds = tenport_seconds() - t;
  tenport_gcp_watch_end(watch);
  c->solver.init = NULL;
  return st;
}

/* write: the model back on the host (with --output), then the set's files, timed. */
static tp_status write_results(tenport_gcp_job *j) {
  const tenport_gcp_cli *c = j->c;
  double t = tenport_seconds();
  tp_status st = TP_SUCCESS;
  if (c->output)
    st = tp_kruskal_alloc(NULL, j->dtype, j->order, j->dims, c->rank, &j->host_model);
  if (st == TP_SUCCESS && c->output)
    st = tp_kruskal_copy_to_host(j->space, &j->host_model, &j->model);
  if (st == TP_SUCCESS)
    st = tenport_gcp_write_outputs(j);
  j->phases.write = tenport_seconds() - t;
  return st;
}

/* prepare -> run -> write; the exit code. */
static int decompose(tenport_space_ahead *ahead, tenport_gcp_job *j) {
  tp_status st = prepare(ahead, j);
  if (st != TP_SUCCESS && !j->space)
    return 1; /* the space's failure is reported */
  if (st == TP_SUCCESS)
    st = run_solver(j);
  if (st == TP_SUCCESS)
    st = write_results(j);
  return st == TP_SUCCESS ? 0 : fail();
}

static int run_file(tenport_gcp_cli *c) {
  tenport_gcp_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  tenport_space_ahead ahead;
  tenport_space_ahead_start(&ahead);
  double t0 = tenport_seconds();
  int code = open_inputs(&j);
  if (code == 0)
    code = load(&j);
  if (code == 0)
    code = decompose(&ahead, &j);
  if (code == 0)
    tenport_gcp_report(&j, tenport_seconds() - t0);
  tenport_gcp_job_free(&j);
  return tenport_space_ahead_finish(&ahead, "gcp", code);
}

int tenport_cmd_gcp(int argc, char **argv) {
  tenport_gcp_cli c;
  int code = tenport_parsed(tenport_gcp_args(argc, argv, &c), tenport_gcp_usage);
  if (code >= 0)
    return code;
  /* under a launcher (mpirun) of several ranks: the distributed run */
  code = tenport_launch_size() != 1 ? tenport_gcp_distributed(&c) : run_file(&c);
  tenport_gcp_watch_free(&c.watch);
  return code;
}
