/* tenport cp-als on a dense tensor: one read from .npy or dense text, or the planted
 * tensor of --example made in memory; the pipeline load (the file, into the host) ->
 * prepare (the space's copy, the start, the model) -> run -> write -> report. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cp_als_cli.h"

static int fail(void) { return tenport_fail("cp-als", "failed"); }

/* Everything one decomposition holds, freed by job_free. */
typedef struct cp_job {
  tp_space *space;
  tp_output_set *set; /* NULL without --output */
  tp_dense host_x, x;
  tp_kruskal init, model, host_model;
  tp_cp_als_result result;
  tenport_phases phases;
} cp_job;

static void job_free(cp_job *j) {
  tp_kruskal_free(NULL, &j->host_model);
  tp_kruskal_free(j->space, &j->model);
  tp_kruskal_free(NULL, &j->init);
  tp_dense_free(j->space, &j->x);
  tp_dense_free(NULL, &j->host_x);
}

static void print_shape(const tp_dense *t) {
  for (int k = 0; k < t->order; ++k)
    printf("%s%lld", k ? "x" : "", (long long)t->dims[k]);
}

static void print_summary(const tenport_cp_cli *c, cp_job *j, const char *name, double seconds) {
  const tp_cp_als_result *r = &j->result;
  printf("tensor: %s, ", name);
  print_shape(&j->x);
  tenport_summary_dims("dims", j->x.order, j->x.dims);
  tenport_summary_text("dtype", tp_dtype_name(j->x.dtype));
  tenport_summary_integer("rank", c->rank);
  printf(" %s, %s; rank %d\n", tp_dtype_name(j->x.dtype),
         j->x.layout == TP_LAYOUT_LEFT ? "Fortran order" : "C order", c->rank);
  printf("mttkrp:");
  for (int k = 0; k < j->x.order; ++k) {
    tp_mttkrp_variant v = c->solver.mttkrp.variant;
    if (v == TP_MTTKRP_AUTO)
      v = tp_mttkrp_choose(j->space, &j->x, k, c->rank, &c->solver.mttkrp);
    printf(" mode %d %s%s", k, tp_mttkrp_variant_name(v), k + 1 < j->x.order ? "," : "");
  }
  printf("; %d pass%s over the tensor per iteration%s\n", r->passes_per_iteration,
         r->passes_per_iteration == 1 ? "" : "es", c->solver.reuse_partials ? "" : " (--no-reuse)");
  tenport_print_phases(j->phases, r->seconds, c->watch.iteration_seconds);
  tenport_cp_print_result(r, seconds);
}

/* The model (with --output) and the history (with --history) into the set. */
static tp_status write_outputs(const tenport_cp_cli *c, cp_job *j) {
  tp_kruskal *m = &j->model;
  tp_status st = TP_SUCCESS;
  if (c->output)
    st = tp_kruskal_alloc(NULL, m->dtype, m->order, m->dims, m->rank, &j->host_model);
  if (st == TP_SUCCESS && c->output)
    st = tp_kruskal_copy_to_host(j->space, &j->host_model, m);
  if (st == TP_SUCCESS)
    st = tenport_cp_write_outputs(j->set, c->output, c->history, &j->host_model, &c->watch,
                                  &c->solver, &j->result);
  return st;
}

/* prepare: X (host_x filled) into the space, the start (--init) and the model. */
static tp_status prepare(tenport_cp_cli *c, cp_job *j) {
  tp_dense *h = &j->host_x;
  double t0 = tenport_seconds();
  tp_status st = tp_dense_alloc(j->space, h->dtype, h->order, h->dims, h->layout, &j->x);
  if (st == TP_SUCCESS)
    st = tp_dense_copy_to_device(j->space, &j->x, h);
  j->phases.build = tenport_seconds() - t0, t0 = tenport_seconds();
  if (st == TP_SUCCESS && c->init) {
    st = tp_kruskal_read_npy(c->init, h->dtype, h->order, h->dims, c->rank, &j->init);
    c->solver.init = &j->init;
  }
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(j->space, h->dtype, h->order, h->dims, c->rank, &j->model);
  c->solver.rank = c->rank;
  j->phases.init = tenport_seconds() - t0;
  return st;
}

/* run: the solver, watched (the indicator around it unless --quiet). */
static tp_status run_solver(tenport_cp_cli *c, cp_job *j) {
  c->watch.iteration_seconds = 0;
  tenport_cp_watch *watch = c->quiet ? NULL : &c->watch;
  tenport_cp_watch_begin(watch);
  tp_status st = tp_cp_als(j->space, &j->x, &c->solver, &j->model, &j->result);
  tenport_cp_watch_end(watch);
  return st;
}

/* write: the model and the history into the set, timed. */
static tp_status write_results(tenport_cp_cli *c, cp_job *j) {
  double t0 = tenport_seconds();
  tp_status st = write_outputs(c, j);
  j->phases.write = tenport_seconds() - t0;
  return st;
}

/* prepare -> run -> write, for a file's tensor and --example's alike. */
static tp_status decompose(tenport_cp_cli *c, cp_job *j) {
  tp_status st = prepare(c, j);
  if (st == TP_SUCCESS)
    st = run_solver(c, j);
  if (st == TP_SUCCESS)
    st = write_results(c, j);
  c->solver.init = NULL;
  return st;
}

/* The precision of the run: --precision, else the file's float type (float64 for other
 * element types). With --output, the model's files are added to the set now that the
 * order is known, before the tensor is read. */
static int plan_dense(const tenport_cp_cli *c, tp_input *in, tp_output_set *set, tp_dtype *dtype) {
  tp_dense_header h;
  if (tp_dense_peek_header(in, &h) != TP_SUCCESS)
    return fail();
  *dtype = h.dtype == TP_DTYPE_F32 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  if (c->precision)
    *dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  int order_ok = h.order >= 2 && h.order <= TP_DENSE_MAX_ORDER; /* else the reader says why */
  if (set && c->output && order_ok && tp_kruskal_reserve_npy(set, c->output, h.order) != TP_SUCCESS)
    return fail();
  return 0;
}

/* load: the file's tensor into host memory, timed. */
static int load(const tenport_cp_cli *c, tp_input *in, cp_job *j) {
  tp_dtype dtype = TP_DTYPE_F64;
  int code = plan_dense(c, in, j->set, &dtype);
  if (code)
    return code;
  double t0 = tenport_seconds();
  tp_status st = tp_dense_read_input(in, dtype, &j->host_x); /* .npy or dense text */
  j->phases.read = tenport_seconds() - t0;
  return st == TP_SUCCESS ? 0 : fail();
}

/* report: the summary, the files written and --check-fit's verdict; the exit code. */
static int report(const tenport_cp_cli *c, cp_job *j, const char *name, double seconds) {
  print_summary(c, j, name, seconds);
  if (c->output)
    printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", c->output, c->output, j->x.order - 1);
  return c->check_fit >= 0 ? tenport_cp_check_fit(j->result.fit, c->check_fit) : 0;
}

int tenport_cp_als_dense_file(tenport_space_ahead *ahead, tenport_cp_cli *c, tp_input *in,
                              tp_output_set *set) {
  cp_job j;
  memset(&j, 0, sizeof j);
  j.set = set;
  double t0 = tenport_seconds();
  int code = load(c, in, &j);
  if (code == 0 && !(j.space = tenport_space_ahead_wait(ahead, "cp-als")))
    code = 1;
  if (code == 0)
    code = decompose(c, &j) == TP_SUCCESS ? 0 : fail();
  if (code == 0)
    code = report(c, &j, tp_input_name(in), tenport_seconds() - t0);
  job_free(&j);
  return code;
}

/* load for --example: the planted tensor made in memory (the set made first, so that an
 * output that cannot be written is refused before the work). */
static int make_example(tenport_cp_cli *c, cp_job *j) {
  static const int64_t dims[3] = {30, 40, 20};
  tp_dtype dtype = c->precision && !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  printf("planted rank-%d tensor 30x40x20 (%s, no noise, seed %d), random start seed %llu\n",
         EXAMPLE_RANK, tp_dtype_name(dtype), EXAMPLE_TENSOR_SEED,
         (unsigned long long)c->solver.seed);
  int code = 0;
  if (c->output || c->history)
    code = tenport_outputs_begin_model("cp-als", NULL, c->init, NULL, 0, c->output, c->history,
                                       &j->set);
  if (code == 0 && c->output && tp_kruskal_reserve_npy(j->set, c->output, 3) != TP_SUCCESS)
    code = fail();
  if (code)
    return code;
  tp_status st = tp_dense_alloc(NULL, dtype, 3, dims, TP_LAYOUT_LEFT, &j->host_x);
  if (st == TP_SUCCESS)
    st = tp_dense_random_planted(&j->host_x, EXAMPLE_RANK, 0.0, EXAMPLE_TENSOR_SEED, NULL);
  return st == TP_SUCCESS ? 0 : fail();
}

int tenport_cp_als_example(tp_space *space, tenport_cp_cli *c) {
  cp_job j;
  memset(&j, 0, sizeof j);
  j.space = space;
  c->rank = EXAMPLE_RANK;
  double t0 = tenport_seconds();
  int code = make_example(c, &j);
  if (code == 0)
    code = decompose(c, &j) == TP_SUCCESS ? 0 : fail();
  if (code == 0) {
    print_summary(c, &j, "planted (in memory)", tenport_seconds() - t0);
    code = tenport_cp_check_fit(j.result.fit, c->check_fit >= 0 ? c->check_fit : EXAMPLE_FIT);
  }
  tp_output_set_destroy(&j.set);
  job_free(&j);
  return code;
}
