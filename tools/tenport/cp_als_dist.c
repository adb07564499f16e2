/* tenport cp-als on several ranks (started by mpirun, or with --distributed). Sparse: each
 * rank reads its share of a .tns/.tpb (or draws its share of a random tensor) and the
 * nonzeros go to the blocks of a grid over the modes. Dense: each rank reads its block of
 * a .npy by positioned reads (or makes its block of a planted tensor in place). CP-ALS
 * runs distributed, and rank 0 reports and writes the factors as one output set. Every
 * rank takes the same path: a failure on any rank is agreed on, and all end with its
 * message and exit code. */
#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/cp_als_cli.h"

typedef struct dist_job {
  const tenport_cp_dist_request *q;
  tp_dtype dtype;
  int dense;
  tp_comm *world, *comm;
  tp_space *space;
  tp_output_set *set; /* rank 0, with --output */
  tp_coo share;
  tp_dist_coo *X;   /* sparse */
  tp_dist_dense *D; /* dense */
  tp_grid grid;
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
  int64_t nnz, min_nnz, max_nnz; /* sparse */
  tp_kruskal init, model;
  tp_cp_als_result result;
  double read_seconds, exchange_seconds, build_seconds, write_seconds;
  double mttkrp_least, mttkrp_most; /* over the ranks: what the collectives wait for */
  int64_t peak_bytes;               /* the most any rank's space held */
  int rank;
} dist_job;

static int root(const dist_job *j) { return j->rank == 0; }

static int agree(dist_job *j, tp_status local) {
  return tenport_ranks_agree("cp-als", j->world, local);
}
static int collective(const dist_job *j, tp_status st) {
  return tenport_ranks_collective("cp-als", j->world, st);
}

/* ---- the ranks, their devices and space ------------------------------------------ */

/* The ranks, each with a space on its GPU and a communicator whose data lives there. */
static int start(dist_job *j) {
  int code = tenport_ranks_start("cp-als", &j->world, &j->space);
  if (code)
    return code;
  j->rank = tp_comm_rank(j->world);
  return agree(j, tp_comm_with_space(j->world, j->space, &j->comm));
}

static void finish(dist_job *j) {
  tp_output_set_destroy(&j->set);
  tp_kruskal_free(NULL, &j->model), tp_kruskal_free(NULL, &j->init);
  tp_dist_coo_destroy(&j->X);
  tp_dist_dense_destroy(&j->D);
  tp_coo_free(NULL, &j->share);
  tp_comm_destroy(&j->comm);
  tenport_ranks_end(&j->world, &j->space);
}

/* Rank 0's output set, ready before the work. */
static int begin_outputs(dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  tp_status st = TP_SUCCESS;
  if (root(j) && (q->output || q->history))
    st = tenport_outputs_begin_paths(&q->input, 1, q->init, q->output, q->history, &j->set);
  return agree(j, st);
}

/* ---- what is decomposed -------------------------------------------------------------- */

/* Dense or sparse, and the element type: --precision, else the file's (a .tpb or .npy of
 * float32 stays float32, text is read as float64). */
static tp_status choose_kind(dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  j->dtype = q->precision && !strcmp(q->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  j->dense = q->planted.order > 0;
  if (!q->input)
    return TP_SUCCESS;
  tp_input *in = NULL;
  tp_file_format format = TP_FILE_UNKNOWN;
  tp_npy_header h;
  tp_status st = tp_input_open(&in, q->input);
  if (st == TP_SUCCESS)
    st = tp_input_format(in, &format);
  j->dense = format == TP_FILE_NPY;
  if (st == TP_SUCCESS && j->dense)
    st = tp_npy_peek_header(in, &h);
  else if (st == TP_SUCCESS)
    st = tp_coo_input_dtype(in, &j->dtype);
  if (st == TP_SUCCESS && j->dense && !q->precision)
    j->dtype = h.dtype == TP_DTYPE_F32 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  if (q->precision)
    j->dtype = !strcmp(q->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  tp_input_close(&in);
  return st;
}

static const tp_grid *given_grid(const dist_job *j) { return j->q->grid ? &j->grid : NULL; }

static tp_status draw_share(dist_job *j) {
  const tp_coo_random_options *g = &j->q->generate;
  int P = tp_comm_size(j->world);
  int64_t first = g->nnz * j->rank / P, last = g->nnz * (j->rank + 1) / P;
  return tp_coo_random_part(g, first, last - first, &j->share, NULL);
}

static int load_sparse(dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  double t0 = tenport_seconds();
  tp_coo_read_info read;
  memset(&read, 0, sizeof read);
  tp_status st = q->generate.nnz > 0
                     ? draw_share(j)
                     : tp_coo_read_share(j->world, q->input, j->dtype, q->order,
                                         q->order ? q->dims : NULL, &j->share, &read);
  if (agree(j, st))
    return 1;
  if (j->rank == 0)
    tenport_note_header("cp-als", q->input, &read, j->share.order, j->share.dims);
  j->read_seconds = tenport_seconds() - t0;
  st = tp_dist_coo_create(j->comm, j->space, &j->share, given_grid(j), NULL, &j->X);
  tp_coo_free(NULL, &j->share); /* its nonzeros are in the blocks now */
  memset(&j->share, 0, sizeof j->share);
  if (collective(j, st))
    return 1;
  tp_dist_coo_info info;
  tp_dist_coo_get_info(j->X, &info);
  j->grid = info.grid, j->order = info.order, j->nnz = info.nnz;
  memcpy(j->dims, info.dims, sizeof j->dims);
  j->min_nnz = info.min_local_nnz, j->max_nnz = info.max_local_nnz;
  j->exchange_seconds = info.exchange_seconds, j->build_seconds = info.build_seconds;
  return 0;
}

static int load_dense(dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  const tenport_cp_planted *p = &q->planted;
  tp_status st;
  if (q->input) {
    st = tp_dist_dense_create_npy(j->comm, j->space, q->input, j->dtype, given_grid(j), &j->D);
  } else {
    st = tp_dist_dense_create(j->comm, j->space, j->dtype, p->order, p->dims, TP_LAYOUT_LEFT,
                              given_grid(j), &j->D);
    if (st == TP_SUCCESS)
      st = tp_dist_dense_random_planted(j->D, p->rank, p->noise, p->seed);
  }
  if (collective(j, st))
    return 1;
  tp_dist_dense_info info;
  tp_dist_dense_get_info(j->D, &info);
  j->grid = info.grid, j->order = info.order, j->read_seconds = info.fill_seconds;
  memcpy(j->dims, info.dims, sizeof j->dims);
  return 0;
}

static int load(dist_job *j) {
  if (agree(j, j->q->grid ? tp_grid_parse(j->q->grid, &j->grid) : TP_SUCCESS))
    return 1;
  if (agree(j, choose_kind(j)))
    return 1;
  return j->dense ? load_dense(j) : load_sparse(j);
}

/* ---- the decomposition -------------------------------------------------------------- */

static int prepare_model(dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  tp_status st = tp_kruskal_alloc(NULL, j->dtype, j->order, j->dims, q->rank, &j->model);
  if (st == TP_SUCCESS && q->init)
    st = tp_kruskal_read_npy(q->init, j->dtype, j->order, j->dims, q->rank, &j->init);
  if (st == TP_SUCCESS && j->set && q->output)
    st = tp_kruskal_reserve_npy(j->set, q->output, j->order);
  return agree(j, st);
}

static int decompose(dist_job *j) {
  tp_cp_als_options o = *j->q->solver;
  o.rank = j->q->rank;
  o.init = j->q->init ? &j->init : NULL;
  if (!root(j))
    o.progress = NULL; /* rank 0 reports */
  tenport_cp_watch_begin(root(j) ? j->q->watch : NULL);
  tp_status st = j->dense ? tp_cp_als_dense_dist(j->space, j->D, &o, &j->model, &j->result)
                          : tp_cp_als_sparse_dist(j->space, j->X, &o, &j->model, &j->result);
  tenport_cp_watch_end(root(j) ? j->q->watch : NULL);
  return collective(j, st);
}

/* The largest memory any rank's space held (device memory on GPUs), and the least and
 * most time a rank spent in its MTTKRPs (the others wait for the slowest in the
 * collectives). */
static int measure_ranks(dist_job *j) {
  j->peak_bytes = (int64_t)tp_space_bytes_peak(j->space);
  j->mttkrp_least = j->mttkrp_most = j->result.mttkrp_seconds;
  tp_status st = tp_comm_allreduce_host(j->world, &j->peak_bytes, 1, TP_DTYPE_I64, TP_COMM_MAX);
  if (st == TP_SUCCESS)
    st = tp_comm_allreduce_host(j->world, &j->mttkrp_least, 1, TP_DTYPE_F64, TP_COMM_MIN);
  if (st == TP_SUCCESS)
    st = tp_comm_allreduce_host(j->world, &j->mttkrp_most, 1, TP_DTYPE_F64, TP_COMM_MAX);
  return agree(j, st);
}

static int write_model(dist_job *j) {
  double t0 = tenport_seconds();
  tp_status st = TP_SUCCESS;
  if (j->set) { /* rank 0's: its watch has the iterations */
    tp_cp_als_options o = *j->q->solver;
    o.rank = j->q->rank;
    st = tenport_cp_write_outputs(j->set, j->q->output, j->q->history, &j->model,
                                  (const tenport_cp_watch *)o.progress_user, &o, &j->result);
  }
  j->write_seconds = tenport_seconds() - t0;
  return agree(j, st);
}

/* ---- the report --------------------------------------------------------------------- */

static void print_tensor(const dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  printf("tensor: %s, ", q->input ? q->input : "made on every rank");
  for (int m = 0; m < j->order; ++m)
    printf("%s%lld", m ? "x" : "", (long long)j->dims[m]);
  printf(" %s %s", tp_dtype_name(j->dtype), j->dense ? "dense" : "sparse");
  if (!j->dense)
    printf(", %lld nonzeros", (long long)j->nnz);
  printf("; rank %d\n", q->rank);
}

static void print_spread(const dist_job *j) {
  printf("distributed: %d ranks (%s), grid ", tp_comm_size(j->world),
         tp_comm_uses_nccl(j->comm) ? "NCCL between GPUs" : "MPI");
  for (int m = 0; m < j->grid.order; ++m)
    printf("%s%d", m ? "x" : "", j->grid.parts[m]);
  if (!j->dense)
    printf(", nonzeros per rank %lld to %lld", (long long)j->min_nnz, (long long)j->max_nnz);
  printf(", memory per rank at most %.2f GB\n", j->peak_bytes / 1e9);
}

static void report(const dist_job *j, double total) {
  const tenport_cp_dist_request *q = j->q;
  print_tensor(j);
  print_spread(j);
  const tp_cp_als_result *r = &j->result;
  if (j->dense)
    printf("phases: %s %.3f s, ", q->input ? "read" : "made", j->read_seconds);
  else
    printf("phases: read %.3f s, exchange %.3f s, build %.3f s, ", j->read_seconds,
           j->exchange_seconds, j->build_seconds);
  printf("setup %.3f s, iterations %.3f s (MTTKRP %.3f s, communication %.3f s), write "
         "%.3f s\n",
         r->setup_seconds, r->seconds - r->setup_seconds, r->mttkrp_seconds, r->comm_seconds,
         j->write_seconds);
  printf("MTTKRP per rank: %.3f s to %.3f s\n", j->mttkrp_least, j->mttkrp_most);
  tenport_cp_print_result(&j->result, total);
  if (q->output)
    printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", q->output, q->output, j->order - 1);
}

int tenport_cp_als_distributed(const tenport_cp_dist_request *q) {
  dist_job j;
  memset(&j, 0, sizeof j);
  j.q = q;
  double t0 = tenport_seconds();
  int code = start(&j);
  if (code == 0)
    code = begin_outputs(&j);
  if (code == 0)
    code = load(&j);
  if (code == 0)
    code = prepare_model(&j);
  if (code == 0)
    code = decompose(&j);
  if (code == 0)
    code = measure_ranks(&j);
  if (code == 0)
    code = write_model(&j);
  if (code == 0 && root(&j)) {
    report(&j, tenport_seconds() - t0);
    if (q->check_fit >= 0)
      code = tenport_cp_check_fit(j.result.fit, q->check_fit);
  }
  finish(&j);
  return code;
}
