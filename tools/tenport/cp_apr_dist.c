/* tenport cp-apr on several ranks (started by mpirun): each rank reads its share of a
 * sparse .tns or .tpb (tp_coo_read_share), tp_cp_apr_sparse_dist sums each Phi over the
 * ranks, and rank 0 writes the model and reports. Every rank takes the same path: a
 * failure on any rank is agreed on, and all end with its message. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/cp_apr_cli.h"

typedef struct apr_dist_job {
  tenport_cp_apr_cli *c;
  tp_comm *world; /* host memory: agreements, reading the shares */
  tp_comm *comm;  /* the space's memory: the method's sums */
  tp_space *space;
  tp_output_set *set;
  tp_coo share;
  tp_kruskal init, model, host_model;
  tp_cp_apr_result result;
  int rank;
} apr_dist_job;

static int agree(apr_dist_job *d, tp_status st) {
  return tenport_ranks_agree("cp-apr", d->world, st);
}

/* A sparse file only: a dense one is read by one process. */
static int apr_dist_format(apr_dist_job *d) {
  tp_input *in = NULL;
  tp_file_format format = TP_FILE_UNKNOWN;
  tp_status st = tp_input_open(&in, d->c->input);
  if (st == TP_SUCCESS)
    st = tp_input_format(in, &format);
  tp_input_close(&in);
  if (agree(d, st))
    return 1;
  if (format == TP_FILE_TEXT || format == TP_FILE_TPB)
    return 0;
  if (d->rank == 0)
    fprintf(stderr,
            "tenport cp-apr: %s: a distributed cp-apr reads a sparse .tns or .tpb, each rank "
            "its share; run a dense file in one process (without mpirun)\n",
            d->c->input);
  return 2;
}

static int apr_dist_load(apr_dist_job *d) {
  const tenport_cp_apr_cli *c = d->c;
  const char *inputs[1] = {c->input};
  tp_status st = d->rank == 0 && c->output
                     ? tenport_outputs_begin_paths(inputs, 1, c->init, c->output, NULL, &d->set)
                     : TP_SUCCESS;
  if (agree(d, st))
    return 1;
  const tp_dtype dtype = c->precision && !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  st = tp_coo_read_share(d->world, c->input, dtype, c->order, c->order ? c->dims : NULL, &d->share,
                         NULL);
  if (tenport_ranks_collective("cp-apr", d->world, st))
    return 1;
  const tp_coo *x = &d->share;
  st = tp_kruskal_alloc(d->space, x->dtype, x->order, x->dims, c->rank, &d->model);
  if (st == TP_SUCCESS && c->init)
    st = tp_kruskal_read_npy(c->init, x->dtype, x->order, x->dims, c->rank, &d->init);
  if (st == TP_SUCCESS && d->set)
    st = tp_kruskal_reserve_npy(d->set, c->output, x->order);
  return agree(d, st);
}

static int apr_dist_solve(apr_dist_job *d) {
  tenport_cp_apr_cli *c = d->c;
  c->solver.init = c->init ? &d->init : NULL;
  c->solver.progress = NULL;
  tp_status st =
      tp_cp_apr_sparse_dist(d->comm, d->space, &d->share, &c->solver, &d->model, &d->result);
  if (tenport_ranks_collective("cp-apr", d->world, st))
    return 1;
  const tp_coo *x = &d->share;
  st = TP_SUCCESS;
  if (d->rank == 0 && d->set) {
    st = tp_kruskal_alloc(NULL, x->dtype, x->order, x->dims, c->rank, &d->host_model);
    if (st == TP_SUCCESS)
      st = tp_kruskal_copy_to_host(d->space, &d->host_model, &d->model);
    if (st == TP_SUCCESS)
      st = tp_kruskal_write_npy_to(d->set, c->output, &d->host_model);
    if (st == TP_SUCCESS && (st = tp_output_set_commit(d->set)) == TP_SUCCESS)
      tenport_summary_outputs(d->set);
  }
  return agree(d, st);
}

static void apr_dist_report(const apr_dist_job *d) {
  const tp_cp_apr_result *r = &d->result;
  char shape[TENPORT_DIMS_TEXT];
  tenport_format_dims(d->share.order, d->share.dims, shape, sizeof shape);
  printf("tensor: %s, %s %s; rank %d\n", d->c->input, shape, tp_dtype_name(d->share.dtype),
         d->c->rank);
  printf("distributed: %d ranks (%s), each its share of the nonzeros\n", tp_comm_size(d->world),
         tp_comm_uses_nccl(d->comm) ? "NCCL between GPUs" : "MPI");
  tenport_cp_apr_print_result(r, d->c, d->share.order, d->share.dims);
  tenport_summary_integer("ranks", tp_comm_size(d->world));
}

int tenport_cp_apr_distributed(tenport_cp_apr_cli *c) {
  if (tenport_ranks_available("cp-apr"))
    return 2;
  apr_dist_job d;
  memset(&d, 0, sizeof d);
  d.c = c;
  int code = tenport_ranks_start("cp-apr", &d.world, &d.space);
  if (code == 0) {
    d.rank = tp_comm_rank(d.world);
    code = agree(&d, tp_comm_with_space(d.world, d.space, &d.comm));
  }
  if (code == 0)
    code = apr_dist_format(&d);
  if (code == 0)
    code = apr_dist_load(&d);
  if (code == 0)
    code = apr_dist_solve(&d);
  if (code == 0 && d.rank == 0)
    apr_dist_report(&d);
  tp_kruskal_free(NULL, &d.host_model), tp_kruskal_free(d.space, &d.model);
  tp_kruskal_free(NULL, &d.init), tp_coo_free(NULL, &d.share);
  tp_output_set_destroy(&d.set);
  tp_comm_destroy(&d.comm);
  tenport_ranks_end(&d.world, &d.space);
  return code;
}
