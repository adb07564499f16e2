/* tenport cp-apr: CP-APR of a count tensor read from .tns / .tpb (or the nonzeros of a
 * dense .npy or 'tensor' text); the arguments are cp_apr_args.c's. The pipeline: open (the
 * input, the output set made before any work) -> load -> solve in a space of its own
 * (the start, the model, tp_cp_apr_sparse, the model back on the host) -> write ->
 * report. */
#include <string.h>

#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/cp_apr_cli.h"

typedef struct apr_job {
  tenport_cp_apr_cli *c;
  tp_input *in;
  tp_output_set *set;
  tp_coo coo;
  tp_coo_read_info info;
  int from_dense;
  tp_kruskal init, host_model;
  tp_cp_apr_result result;
} apr_job;

static int fail(void) { return tenport_fail("cp-apr", "failed"); }

static void apr_job_free(apr_job *j) {
  tp_kruskal_free(NULL, &j->host_model), tp_kruskal_free(NULL, &j->init);
  tp_coo_free(NULL, &j->coo);
  tp_output_set_destroy(&j->set);
  tp_input_close(&j->in);
}

static tp_dtype apr_dtype(const tenport_cp_apr_cli *c, tp_dtype fallback) {
  return c->precision ? (!strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64) : fallback;
}

/* A dense input's nonzeros: the zeros add nothing to CP-APR's updates (sum m is lambda's). */
static tp_status load_dense(apr_job *j) {
  tp_dense d;
  tp_status st = tp_dense_read_input(j->in, apr_dtype(j->c, TP_DTYPE_F64), &d);
  if (st != TP_SUCCESS)
    return st;
  st = tp_coo_from_dense(&d, 0.0, &j->coo, NULL);
  tp_dense_free(NULL, &d);
  j->from_dense = 1;
  return st;
}

static tp_status load_sparse(apr_job *j) {
  const tenport_cp_apr_cli *c = j->c;
  tp_dtype dtype = TP_DTYPE_F64;
  tp_status st = c->precision ? TP_SUCCESS : tp_coo_input_dtype(j->in, &dtype);
  if (st != TP_SUCCESS)
    return st;
  return tp_coo_read_input_with(j->in, apr_dtype(c, dtype), c->order, c->order ? c->dims : NULL,
                                &c->text.read, &j->coo, &j->info);
}

/* open and load: the input's content says which path it takes. */
static int load(apr_job *j) {
  const tenport_cp_apr_cli *c = j->c;
  int code = tenport_open_input("cp-apr", c->input, &j->in);
  if (code == 0 && c->output)
    code = tenport_outputs_begin_model("cp-apr", j->in, c->init, NULL, 0, c->output, NULL, &j->set);
  tp_file_format format = TP_FILE_UNKNOWN;
  if (code == 0 && tp_input_format(j->in, &format) != TP_SUCCESS)
    return fail();
  if (code == 0)
    code = tenport_text_options_fit("cp-apr", j->in, &c->text);
  if (code)
    return code;
  const int dense = format == TP_FILE_NPY || format == TP_FILE_DENSE_TEXT;
  if (!dense && format != TP_FILE_TPB && format != TP_FILE_TEXT)
    return (tp_input_wrong_format(j->in, format,
                                  "a count tensor: .tns or .tpb, or a dense .npy or 'tensor' "
                                  "text"),
            fail());
  if ((dense ? load_dense(j) : load_sparse(j)) != TP_SUCCESS)
    return fail();
  if (!dense)
    tenport_note_header("cp-apr", tp_input_name(j->in), &j->info, j->coo.order, j->coo.dims);
  if (j->set && c->output && tp_kruskal_reserve_npy(j->set, c->output, j->coo.order) != TP_SUCCESS)
    return fail();
  return 0;
}

static void print_iteration(const tp_cp_apr_progress *p, void *user) {
  (void)user;
  printf("iteration %4d  kkt %.4e  inner %3d  %.3f s\n", p->iteration, p->kkt, p->inner,
         p->seconds);
  fflush(stdout);
}

/* The start, the model in the space, the run, the model on the host. */
static int solve(tp_space *space, void *job) {
  apr_job *j = (apr_job *)job;
  tenport_cp_apr_cli *c = j->c;
  const tp_coo *x = &j->coo;
  tp_kruskal model;
  memset(&model, 0, sizeof model);
  tp_status st = TP_SUCCESS;
  if (c->init)
    st = tp_kruskal_read_npy(c->init, x->dtype, x->order, x->dims, c->rank, &j->init);
  c->solver.init = c->init ? &j->init : NULL;
  c->solver.progress = c->quiet ? NULL : print_iteration;
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(space, x->dtype, x->order, x->dims, c->rank, &model);
  if (st == TP_SUCCESS)
    st = tp_cp_apr_sparse(space, x, &c->solver, &model, &j->result);
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(NULL, x->dtype, x->order, x->dims, c->rank, &j->host_model);
  if (st == TP_SUCCESS)
    st = tp_kruskal_copy_to_host(space, &j->host_model, &model);
  tp_kruskal_free(space, &model);
  return st == TP_SUCCESS ? 0 : fail();
}

static int write_outputs(apr_job *j) {
  if (!j->set)
    return 0;
  tp_status st = tp_kruskal_write_npy_to(j->set, j->c->output, &j->host_model);
  if (st == TP_SUCCESS && (st = tp_output_set_commit(j->set)) == TP_SUCCESS)
    tenport_summary_outputs(j->set);
  return st == TP_SUCCESS ? 0 : fail();
}

static void report(const apr_job *j, double total) {
  const tp_cp_apr_result *r = &j->result;
  char shape[TENPORT_DIMS_TEXT];
  tenport_format_dims(j->coo.order, j->coo.dims, shape, sizeof shape);
  printf("tensor: %s, %s %s, %lld nonzeros%s; rank %d\n", j->c->input, shape,
         tp_dtype_name(j->coo.dtype), (long long)j->coo.nnz,
         j->from_dense ? " (of a dense file)" : "", j->c->rank);
  tenport_cp_apr_print_result(r, j->c, j->coo.order, j->coo.dims);
  printf("total %.3f s (reading, copies and writing included)\n", total);
  tenport_summary_integer("nnz", j->coo.nnz);
}

void tenport_cp_apr_print_result(const tp_cp_apr_result *r, const tenport_cp_apr_cli *c, int order,
                                 const int64_t *dims) {
  printf("log-likelihood %.10e, KKT violation %.3e after %d iteration%s (%lld inner), %s, "
         "%.3f s\n",
         r->loglik, r->kkt, r->iterations, r->iterations == 1 ? "" : "s", (long long)r->inner,
         r->converged ? "converged" : "iteration limit", r->seconds);
  tenport_summary_dims("dims", order, dims);
  tenport_summary_integer("rank", c->rank);
  tenport_summary_number("loglik", r->loglik);
  tenport_summary_number("kkt", r->kkt);
  tenport_summary_integer("iterations", r->iterations);
  tenport_summary_integer("inner", r->inner);
  tenport_summary_bool("converged", r->converged);
  tenport_summary_number("seconds", r->seconds);
  tenport_summary_number("setup_seconds", r->setup_seconds);
  if (c->output)
    printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", c->output, c->output, order - 1);
}

int tenport_cmd_cp_apr(int argc, char **argv) {
  tenport_cp_apr_cli c;
  int code = tenport_parsed(tenport_cp_apr_args(argc, argv, &c), tenport_cp_apr_usage);
  if (code >= 0)
    return code;
  if (tenport_launch_size() != 1) /* under a launcher (mpirun) of several ranks */
    return tenport_cp_apr_distributed(&c);
  apr_job j;
  memset(&j, 0, sizeof j);
  j.c = &c;
  const double t0 = tenport_seconds();
  code = load(&j);
  if (code == 0)
    code = tenport_run_in_space("cp-apr", solve, &j);
  if (code == 0)
    code = write_outputs(&j);
  if (code == 0)
    report(&j, tenport_seconds() - t0);
  apr_job_free(&j);
  return code;
}
