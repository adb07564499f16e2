/* tenport gcp on several ranks (started by mpirun). A dense .npy (and its .npy mask):
 * each rank reads its block by positioned reads and tp_gcp_dense_dist runs. A sparse .tns
 * or .tpb (and its list of missing coordinates): each rank reads its share of the file
 * (tp_coo_read_share) and tp_gcp_sparse_dist sends every nonzero to its block's rank.
 * Either runs L-BFGS-B (objective and gradient summed over the ranks) or GCP-Adam (each
 * rank drawing its part of every sample). Rank 0 reports and writes the model and
 * history as one output set. Every rank takes the same path: a failure on any rank is
 * agreed on, and all end with its message. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/gcp_cli.h"

typedef struct gcp_dist_job {
  tenport_gcp_job job; /* the set, host model, result and options, as one process has them */
  tp_comm *world, *comm;
  int sparse;
  tp_dist_dense *X, *W;  /* dense: the blocks */
  tp_coo share, missing; /* sparse: this rank's shares of the file and of the mask */
  tp_grid grid;
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

/* The format of a file, agreed on; 1 after a failure (reported). */
static int gcp_dist_format(gcp_dist_job *d, const char *file, tp_file_format *format) {
  tp_input *in = NULL;
  *format = TP_FILE_UNKNOWN;
  tp_status st = tp_input_open(&in, file);
  if (st == TP_SUCCESS)
    st = tp_input_format(in, format);
  tp_input_close(&in);
  return agree(d, st);
}

/* What the ranks cannot do: a time limit; inputs other than a dense .npy or a sparse
 * .tns/.tpb, a mask of the other kind. */
static int gcp_dist_refusals(gcp_dist_job *d) {
  const tenport_gcp_cli *c = d->job.c;
  if (c->solver.max_seconds > 0)
    return gcp_dist_refuse(d,
                           "a distributed gcp takes no --max-seconds: every rank must stop "
                           "at the same iteration",
                           NULL);
  tp_file_format format;
  if (gcp_dist_format(d, c->input, &format))
    return 1;
  d->sparse = format == TP_FILE_TEXT || format == TP_FILE_TPB;
  if (!d->sparse && format != TP_FILE_NPY)
    return gcp_dist_refuse(d,
                           "a distributed gcp reads a dense .npy (each rank its block) or a "
                           "sparse .tns or .tpb (each rank its share)",
                           c->input);
  if (!c->mask)
    return 0;
  if (gcp_dist_format(d, c->mask, &format))
    return 1;
  if (d->sparse ? format != TP_FILE_TEXT && format != TP_FILE_TPB : format != TP_FILE_NPY)
    return gcp_dist_refuse(d,
                           d->sparse ? "the mask of a sparse tensor is a .tns or .tpb of its "
                                       "missing entries' coordinates"
                                     : "the mask of a dense .npy is a .npy of its shape",
                           c->mask);
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

static tp_dtype gcp_dist_dtype(const tenport_gcp_cli *c, tp_dtype fallback) {
  return c->precision ? (!strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64) : fallback;
}

/* Dense: each rank's blocks, X's grid chosen from its shape, the mask on the same grid. */
static int gcp_dist_load_dense(gcp_dist_job *d) {
  const tenport_gcp_cli *c = d->job.c;
  if (collective(d, tp_dist_dense_create_npy(d->comm, d->job.space, c->input,
                                             gcp_dist_dtype(c, TP_DTYPE_F64), NULL, &d->X)))
    return 1;
  tp_dist_dense_info info;
  tp_dist_dense_get_info(d->X, &info);
  if (c->mask && collective(d, tp_dist_dense_create_npy(d->comm, d->job.space, c->mask, info.dtype,
                                                        &info.grid, &d->W)))
    return 1;
  d->grid = info.grid;
  d->job.dtype = info.dtype, d->job.order = info.order;
  memcpy(d->job.dims, info.dims, sizeof d->job.dims);
  return 0;
}

/* Sparse: each rank's share of the file (and of the missing coordinates, within X's
 * dims); the value type of a .tpb unless --precision says. */
static int gcp_dist_load_sparse(gcp_dist_job *d) {
  const tenport_gcp_cli *c = d->job.c;
  tp_dtype dtype = TP_DTYPE_F64;
  tp_input *in = NULL;
  tp_status st = tp_input_open(&in, c->input);
  if (st == TP_SUCCESS && !c->precision)
    st = tp_coo_input_dtype(in, &dtype);
  tp_input_close(&in);
  if (agree(d, st))
    return 1;
  tp_coo_read_info info;
  if (collective(d, tp_coo_read_share(d->world, c->input, gcp_dist_dtype(c, dtype), c->order,
                                      c->order ? c->dims : NULL, &d->share, &info)))
    return 1;
  if (c->mask && collective(d, tp_coo_read_share(d->world, c->mask, d->share.dtype, d->share.order,
                                                 d->share.dims, &d->missing, NULL)))
    return 1;
  d->job.dtype = d->share.dtype, d->job.order = d->share.order;
  memcpy(d->job.dims, d->share.dims, sizeof(int64_t) * (size_t)d->share.order);
  if (d->job.order < 2 || d->job.order > TP_DENSE_MAX_ORDER) {
    if (d->rank == 0)
      fprintf(stderr, "tenport gcp: %s has %d modes; GCP takes 2 to %d\n", c->input, d->job.order,
              TP_DENSE_MAX_ORDER);
    return 1;
  }
  return agree(d, tp_grid_choose(d->job.order, d->job.dims, tp_comm_size(d->world), &d->grid));
}

/* The tensor, the start and the model; the model's files reserved in the set. */
static int gcp_dist_load(gcp_dist_job *d) {
  const tenport_gcp_cli *c = d->job.c;
  const double t0 = tenport_seconds();
  if (d->sparse ? gcp_dist_load_sparse(d) : gcp_dist_load_dense(d))
    return 1;
  d->read_seconds = tenport_seconds() - t0;
  tenport_gcp_job *j = &d->job;
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
  tp_status st =
      d->sparse ? tp_gcp_sparse_dist(d->comm, d->job.space, &d->share, c->mask ? &d->missing : NULL,
                                     &d->grid, &o, &d->job.model, &d->job.result)
                : tp_gcp_dense_dist(d->job.space, d->X, d->W, &o, &d->job.model, &d->job.result);
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
  for (int k = 0; k < j->order; ++k)
    parts[k] = d->grid.parts[k];
  tenport_format_dims(j->order, j->dims, shape, sizeof shape);
  tenport_format_dims(j->order, parts, grid, sizeof grid);
  const int adam = j->c->solver.solver == TP_GCP_SOLVER_ADAM;
  printf("tensor: %s, %s %s %s; rank %d, ", j->c->input, shape, tp_dtype_name(j->dtype),
         !d->sparse ? "dense"
         : adam     ? "sparse, sampled"
                    : "sparse, blocks made dense",
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
  tenport_gcp_print_result(&j->result, adam, total);
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
  tp_coo_free(NULL, &d.missing), tp_coo_free(NULL, &d.share);
  tp_kruskal_free(NULL, &d.job.host_model), tp_kruskal_free(d.job.space, &d.job.model);
  tp_kruskal_free(NULL, &d.job.init);
  tp_output_set_destroy(&d.job.set);
  tp_comm_destroy(&d.comm);
  tenport_ranks_end(&d.world, &d.job.space);
  return code;
}
