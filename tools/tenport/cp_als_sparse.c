/* tenport cp-als on a sparse tensor (.tns or .tpb): load (the file, into the host) ->
 * prepare (FLYCOO built from it in the space, the start, the model) -> run (the same
 * CP-ALS as for dense tensors) -> write (lambda and the factors as .npy) -> report. */
#include "tools/tenport/cp_als_cli.h"

/* Everything one sparse decomposition holds, freed by job_free. */
typedef struct sparse_job {
  const tenport_cp_request *q;
  tp_space *space;
  tp_coo host;
  tp_coo_read_info info;
  tp_flycoo *fly;
  tp_kruskal init, model, host_model;
  tp_cp_als_options solver;
  tp_cp_als_result result;
  tenport_phases phases;
  tenport_cp_watch *timer; /* the solver's watch (--quiet too): the iterations' time */
} sparse_job;

static void job_free(sparse_job *j) {
  tp_kruskal_free(NULL, &j->host_model), tp_kruskal_free(j->space, &j->model);
  tp_kruskal_free(NULL, &j->init);
  tp_flycoo_destroy(&j->fly);
  tp_coo_free(NULL, &j->host);
}

/* load: the tensor into host memory; with --output, its files join the set now that the
 * order is known. */
static tp_status load(sparse_job *j) {
  const tenport_cp_request *q = j->q;
  double t = tenport_seconds();
  tp_status st =
      tp_coo_read_input_with(q->in, q->dtype, q->order, q->dims, q->text, &j->host, &j->info);
  if (st == TP_SUCCESS)
    tenport_note_header("cp-als", tp_input_name(q->in), &j->info, j->host.order, j->host.dims);
  if (st == TP_SUCCESS && q->output)
    st = tp_kruskal_reserve_npy(q->set, q->output, j->host.order);
  j->phases.read = tenport_seconds() - t;
  return st;
}

/* prepare: the space (waited for), FLYCOO built in it, the start and the model. */
static tp_status prepare(tenport_space_ahead *ahead, sparse_job *j) {
  const tenport_cp_request *q = j->q;
  const tp_coo *h = &j->host;
  double t = tenport_seconds();
  if (!(j->space = tenport_space_ahead_wait(ahead, "cp-als")))
    return TP_ERROR_INVALID_ARGUMENT; /* reported */
  const double waited = tenport_seconds() - t;
  t = tenport_seconds();
  tp_status st = tp_flycoo_create(j->space, h, NULL, &j->fly);
  j->phases.build = tenport_seconds() - t, t = tenport_seconds();
  if (st == TP_SUCCESS && q->init) {
    st = tp_kruskal_read_npy(q->init, h->dtype, h->order, h->dims, q->rank, &j->init);
    j->solver.init = &j->init;
  }
  j->solver.rank = q->rank;
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(j->space, h->dtype, h->order, h->dims, q->rank, &j->model);
  j->phases.init = waited + (tenport_seconds() - t);
  return st;
}

/* run: the solver, watched (the indicator around it unless --quiet). */
static tp_status run_solver(sparse_job *j) {
  if (j->timer)
    j->timer->iteration_seconds = 0;
  tenport_cp_watch_begin(j->q->watch);
  tp_status st = tp_cp_als_sparse(j->space, j->fly, &j->solver, &j->model, &j->result);
  tenport_cp_watch_end(j->q->watch);
  return st;
}

/* write: the model back on the host (with --output), then the set's files. */
static tp_status write_results(sparse_job *j) {
  const tenport_cp_request *q = j->q;
  const tp_coo *h = &j->host;
  double t = tenport_seconds();
  tp_status st = TP_SUCCESS;
  if (q->output) {
    st = tp_kruskal_alloc(NULL, h->dtype, h->order, h->dims, q->rank, &j->host_model);
    if (st == TP_SUCCESS)
      st = tp_kruskal_copy_to_host(j->space, &j->host_model, &j->model);
  }
  if (st == TP_SUCCESS)
    st = tenport_cp_write_outputs(q->set, q->output, q->history, &j->host_model, j->timer,
                                  &j->solver, &j->result);
  j->phases.write = tenport_seconds() - t;
  return st;
}

static void print_sparse_summary(const tp_flycoo_stats *s, const char *input, int rank,
                                 const tp_cp_als_result *r, int64_t duplicates) {
  printf("tensor: %s, ", input);
  for (int k = 0; k < s->order; ++k)
    printf("%s%lld", k ? "x" : "", (long long)s->dims[k]);
  printf(" %s, %lld nonzeros (%lld duplicates summed); rank %d\n", tp_dtype_name(s->dtype),
         (long long)s->nnz, (long long)duplicates, rank);
  tenport_summary_dims("dims", s->order, s->dims);
  tenport_summary_text("dtype", tp_dtype_name(s->dtype));
  tenport_summary_integer("nnz", (long long)s->nnz);
  tenport_summary_integer("rank", rank);
  printf("mttkrp: FLYCOO, %d partitions, %s (%d-byte records, %.1f MB), built in %.3f s; "
         "%d pass%s over the nonzeros per iteration\n",
         s->partitions, s->remaps ? "dynamic remapping" : "a record copy per mode", s->record_bytes,
         s->device_bytes / 1e6, s->build_seconds, r->passes_per_iteration,
         r->passes_per_iteration == 1 ? "" : "es");
}

/* report: the summary, the files written and --check-fit's verdict; the exit code. */
static int report(const sparse_job *j, double seconds) {
  const tenport_cp_request *q = j->q;
  tp_flycoo_stats s;
  tp_flycoo_get_stats(j->fly, &s);
  print_sparse_summary(&s, tp_input_name(q->in), q->rank, &j->result, j->info.duplicates);
  if (j->timer)
    tenport_print_phases(j->phases, j->result.seconds, j->timer->iteration_seconds);
  tenport_cp_print_result(&j->result, seconds);
  if (q->output)
    printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", q->output, q->output, j->host.order - 1);
  return q->check_fit >= 0 ? tenport_cp_check_fit(j->result.fit, q->check_fit) : 0;
}

int tenport_cp_als_sparse(tenport_space_ahead *ahead, const tenport_cp_request *q) {
  double t0 = tenport_seconds();
  sparse_job j;
  memset(&j, 0, sizeof j);
  j.q = q, j.solver = *q->solver;
  j.timer = j.solver.progress == tenport_cp_watch_iteration
                ? (tenport_cp_watch *)j.solver.progress_user
                : NULL;
  tp_status st = load(&j);
  if (st == TP_SUCCESS && (st = prepare(ahead, &j)) != TP_SUCCESS && !j.space) {
    job_free(&j);
    return 1; /* the space's failure is reported */
  }
  if (st == TP_SUCCESS)
    st = run_solver(&j);
  if (st == TP_SUCCESS)
    st = write_results(&j);
  int code =
      st == TP_SUCCESS ? report(&j, tenport_seconds() - t0) : tenport_fail("cp-als", "failed");
  job_free(&j);
  return code;
}
