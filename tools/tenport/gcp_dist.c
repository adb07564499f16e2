/* tenport gcp on several ranks (started by mpirun): each rank reads its block of a dense
 * .npy (and of a .npy mask) by positioned reads, tp_gcp_dense_dist runs L-BFGS-B with the
 * objective and gradient summed over the ranks, and rank 0 reports and writes the model
 * and history as one output set. Every rank takes the same path: a failure on any rank
 * is agreed on, and all end with its message. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/gcp_cli.h"

typedef struct gcp_dist_job {
  tenport_gcp_job job; /* the set, host model, result and options, as one process has them */
  tp_comm *world, *comm;
  tp_dist_dense *X, *W;
  tp_dist_dense_info info;
  int rank;
  double read_seconds;
} gcp_dist_job;

static int agree(gcp_dist_job *d, tp_status st) { return tenport_ranks_agree("gcp", d->world, st); }
static int collective(gcp_dist_job *d, tp_status st) {
  return tenport_ranks_collective("gcp", d->world, st);
}

/* A refusal every rank reaches alike: rank 0 says why; 2. */
static int gcp_dist_refuse(const gcp_dist_job *d, const char *why, const char *file) {
  if (d->rank == 0)
    fprintf(stderr, "tenport gcp: %s%s%s\n", file ? file : "", file ? ": " : "", why);
  return 2;
}

/* What the ranks cannot do: a sparse input or mask, Adam, a time limit. */
static int gcp_dist_refusals(gcp_dist_job *d) {
  const tenport_gcp_cli *c = d->job.c;
  if (c->solver.solver != TP_GCP_SOLVER_LBFGSB)
    return gcp_dist_refuse(d,
                           "a distributed gcp runs L-BFGS-B; --solver adam runs in one "
                           "process (without mpirun)",
                           NULL);
  if (c->solver.max_seconds > 0)
    return gcp_dist_refuse(d,
                           "a distributed gcp takes no --max-seconds: every rank must stop "
                           "at the same iteration",
                           NULL);
  const char *files[2] = {c->input, c->mask};
  for (int i = 0; i < 2; ++i) {
    if (!files[i])
      continue;
    tp_input *in = NULL;
    tp_file_format format = TP_FILE_UNKNOWN;
    tp_status st = tp_input_open(&in, files[i]);
    if (st == TP_SUCCESS)
      st = tp_input_format(in, &format);
    tp_input_close(&in);
    if (agree(d, st))
      return 1;
    if (format != TP_FILE_NPY)
      return gcp_dist_refuse(d,
                             "a distributed gcp reads dense .npy files (the tensor and its "
                             "mask), each rank its block; run a sparse tensor in one "
                             "process (without mpirun)",
                             files[i]);
  }
  return 0;
}

/* Rank 0's output set, ready before the work: the inputs protected, the history named. */
static tp_status gcp_dist_outputs(gcp_dist_job *d) {
  const tenport_gcp_cli *c = d->job.c;
  if (d->rank != 0 || (!c->output && !c->history))
    return TP_SUCCESS;
  const char *inputs[2] = {c->input, c->mask};
  return tenport_outputs_begin_paths(inputs, 2, c->init, c->output, c->history, &d->job.set);
}

/* Each rank's blocks: X's grid chosen from its shape, the mask on the same grid. */
static int gcp_dist_load(gcp_dist_job *d) {
  const tenport_gcp_cli *c = d->job.c;
  tp_dtype dtype = TP_DTYPE_F64;
  if (c->precision)
    dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  const double t0 = tenport_seconds();
  if (collective(d, tp_dist_dense_create_npy(d->comm, d->job.space, c->input, dtype, NULL, &d->X)))
    return 1;
  tp_dist_dense_get_info(d->X, &d->info);
  if (c->mask && collective(d, tp_dist_dense_create_npy(d->comm, d->job.space, c->mask,
                                                        d->info.dtype, &d->info.grid, &d->W)))
    return 1;
  d->read_seconds = tenport_seconds() - t0;
  tenport_gcp_job *j = &d->job;
  j->dtype = d->info.dtype, j->order = d->info.order;
  memcpy(j->dims, d->info.dims, sizeof j->dims);
  tp_status st = tp_kruskal_alloc(j->space, j->dtype, j->order, j->dims, c->rank, &j->model);
  if (st == TP_SUCCESS && c->init)
    st = tp_kruskal_read_npy(c->init, j->dtype, j->order, j->dims, c->rank, &j->init);
  if (st == TP_SUCCESS && j->set && c->output)
    st = tp_kruskal_reserve_npy(j->set, c->output, j->order);
  return agree(d, st);
}

static int gcp_dist_solve(gcp_dist_job *d) {
  tenport_gcp_cli *c = d->job.c;
  tp_gcp_options o = c->solver;
  o.init = c->init ? &d->job.init : NULL;
  tenport_gcp_watch *watch = d->rank == 0 && !c->quiet ? &c->watch : NULL;
  if (d->rank != 0)
    o.progress = NULL; /* rank 0 reports */
  tenport_gcp_watch_begin(watch);
  const double t0 = tenport_seconds();
  tp_status st = tp_gcp_dense_dist(d->job.space, d->X, d->W, &o, &d->job.model, &d->job.result);
  d->job.solve_seconds = tenport_seconds() - t0;
  tenport_gcp_watch_end(watch);
  return collective(d, st);
}

/* Rank 0: the model to the host and the set written. */
static int gcp_dist_write(gcp_dist_job *d) {
  tenport_gcp_job *j = &d->job;
  tp_status st = TP_SUCCESS;
  if (d->rank == 0 && j->c->output) {
    st = tp_kruskal_alloc(NULL, j->dtype, j->order, j->dims, j->c->rank, &j->host_model);
    if (st == TP_SUCCESS)
      st = tp_kruskal_copy_to_host(j->space, &j->host_model, &j->model);
  }
  if (st == TP_SUCCESS && d->rank == 0)
    st = tenport_gcp_write_outputs(j);
  return agree(d, st);
}

static void gcp_dist_report(const gcp_dist_job *d, double total) {
  const tenport_gcp_job *j = &d->job;
  char shape[TENPORT_DIMS_TEXT], grid[TENPORT_DIMS_TEXT];
  int64_t parts[TP_DENSE_MAX_ORDER];
  for (int k = 0; k < d->info.order; ++k)
    parts[k] = d->info.grid.parts[k];
  tenport_format_dims(j->order, j->dims, shape, sizeof shape);
  tenport_format_dims(j->order, parts, grid, sizeof grid);
  printf("tensor: %s, %s %s dense; rank %d, ", j->c->input, shape, tp_dtype_name(j->dtype),
         j->c->rank);
  tenport_gcp_print_loss(&j->c->solver);
  if (j->c->mask)
    printf("mask: %s\n", j->c->mask);
  printf("distributed: %d ranks (%s), grid %s; read %.3f s\n", tp_comm_size(d->world),
         tp_comm_uses_nccl(d->comm) ? "NCCL between GPUs" : "MPI", grid, d->read_seconds);
  tenport_summary_dims("dims", j->order, j->dims);
  tenport_summary_text("dtype", tp_dtype_name(j->dtype));
  tenport_summary_integer("rank", j->c->rank);
  tenport_summary_integer("ranks", tp_comm_size(d->world));
  tenport_gcp_print_result(&j->result, 0, total);
  if (j->c->output)
    printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", j->c->output, j->c->output, j->order - 1);
}

int tenport_gcp_distributed(tenport_gcp_cli *c) {
  if (tenport_ranks_available("gcp"))
    return 2;
  gcp_dist_job d;
  memset(&d, 0, sizeof d);
  d.job.c = c;
  const double t0 = tenport_seconds();
  int code = tenport_ranks_start("gcp", &d.world, &d.job.space);
  if (code == 0) {
    d.rank = tp_comm_rank(d.world);
    code = agree(&d, tp_comm_with_space(d.world, d.job.space, &d.comm));
  }
  if (code == 0)
    code = gcp_dist_refusals(&d);
  if (code == 0)
    code = agree(&d, gcp_dist_outputs(&d));
  if (code == 0)
    code = gcp_dist_load(&d);
  if (code == 0)
    code = gcp_dist_solve(&d);
  if (code == 0)
    code = gcp_dist_write(&d);
  if (code == 0 && d.rank == 0)
    gcp_dist_report(&d, tenport_seconds() - t0);
  tp_dist_dense_destroy(&d.W), tp_dist_dense_destroy(&d.X);
  tp_kruskal_free(NULL, &d.job.host_model), tp_kruskal_free(d.job.space, &d.job.model);
  tp_kruskal_free(NULL, &d.job.init);
  tp_output_set_destroy(&d.job.set);
  tp_comm_destroy(&d.comm);
  tenport_ranks_end(&d.world, &d.job.space);
  return code;
}
