/* tenport cp-als on several ranks (started by mpirun, or with --distributed): each rank
 * reads its share of a sparse tensor file (or draws its share of a random one), the
 * nonzeros go to the ranks of a grid over the modes, CP-ALS runs distributed, and rank 0
 * reports and writes the factors as one output set. Every rank takes the same path: a
 * failure on any rank is agreed on, and all end with its message and exit code. */
#include "cmd_cp_als.h"

typedef struct dist_job {
  const tenport_cp_dist_request *q;
  tp_dtype dtype;
  tp_comm *world, *comm;
  tp_space *space;
  tp_output_set *set; /* rank 0, with --output */
  tp_coo share;
  tp_dist_coo *X;
  tp_kruskal init, model;
  tp_cp_als_result result;
  double read_seconds, write_seconds;
  int64_t peak_bytes; /* the most any rank's space held */
  int rank;
} dist_job;

static int root(const dist_job *j) { return j->rank == 0; }

/* The agreed status of a step; only rank 0 prints the message. */
static int agree(dist_job *j, tp_status local) {
  tp_status st = tp_comm_agree(j->world, local);
  if (st == TP_SUCCESS)
    return 0;
  return root(j) ? tenport_fail("cp-als", "failed") : 1;
}

/* ---- the ranks, their devices and space ------------------------------------------ */

static int start(dist_job *j) {
  if (tp_comm_init_world(&j->world, NULL) != TP_SUCCESS)
    return tenport_fail("cp-als", "cannot start MPI");
  j->rank = tp_comm_rank(j->world);
  int devices = 1;
  tp_space_options o = tp_space_options_default();
  tp_status st = tp_device_count(&devices);
  if (st == TP_SUCCESS && devices > 1) /* one rank per GPU of the node */
    o.device = tp_comm_node_rank(j->world) % devices;
  if (st == TP_SUCCESS)
    st = tp_space_create(&j->space, &o);
  if (agree(j, st))
    return 1;
  return agree(j, tp_comm_with_space(j->world, j->space, &j->comm));
}

static void finish(dist_job *j) {
  tp_output_set_destroy(&j->set);
  tp_kruskal_free(NULL, &j->model), tp_kruskal_free(NULL, &j->init);
  tp_dist_coo_destroy(&j->X);
  tp_coo_free(NULL, &j->share);
  tp_comm_destroy(&j->comm);
  tp_space_destroy(&j->space);
  tp_comm_finalize_world(&j->world);
}

/* ---- the tensor ------------------------------------------------------------------------ */

/* Rank 0's output set, ready before the work. */
static int begin_outputs(dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  tp_status st = TP_SUCCESS;
  if (root(j) && q->output) {
    st = tp_output_set_create(&j->set);
    if (st == TP_SUCCESS && q->input)
      st = tp_output_set_protect(j->set, q->input);
    for (int k = -1; st == TP_SUCCESS && q->init && k < TP_COO_MAX_ORDER; ++k) {
      char name[4096];
      snprintf(name, sizeof name, k < 0 ? "%s_lambda.npy" : "%s_factor%d.npy", q->init, k);
      st = tp_output_set_protect(j->set, name);
    }
    if (st == TP_SUCCESS)
      st = tp_output_check_folder(q->output);
  }
  return agree(j, st);
}

static tp_status draw_share(dist_job *j) {
  const tp_coo_random_options *g = &j->q->generate;
  int P = tp_comm_size(j->world);
  int64_t first = g->nnz * j->rank / P, last = g->nnz * (j->rank + 1) / P;
  return tp_coo_random_part(g, first, last - first, &j->share, NULL);
}

/* --precision, else the file's: a .tpb of float32 values stays float32, text is read as
 * float64. */
static tp_status choose_dtype(dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  j->dtype = q->precision && !strcmp(q->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  if (q->precision || !q->input)
    return TP_SUCCESS;
  tp_input *in = NULL;
  tp_status st = tp_input_open(&in, q->input);
  if (st == TP_SUCCESS)
    st = tp_coo_input_dtype(in, &j->dtype);
  tp_input_close(&in);
  return st;
}

static int load_share(dist_job *j) {
  const tenport_cp_dist_request *q = j->q;
  double t0 = tenport_seconds();
  if (agree(j, choose_dtype(j)))
    return 1;
  tp_status st = q->generate.nnz > 0
                     ? draw_share(j)
                     : tp_coo_read_share(j->world, q->input, j->dtype, q->order,
                                         q->order ? q->dims : NULL, &j->share, NULL);
  if (agree(j, st))
    return 1;
  j->read_seconds = tenport_seconds() - t0;
  return 0;
}

static int spread(dist_job *j) {
  tp_grid grid;
  tp_status st = j->q->grid ? tp_grid_parse(j->q->grid, &grid) : TP_SUCCESS;
  if (agree(j, st))
    return 1;
  st = tp_dist_coo_create(j->comm, j->space, &j->share, j->q->grid ? &grid : NULL, NULL, &j->X);
  tp_coo_free(NULL, &j->share); /* its nonzeros are in the blocks now */
  memset(&j->share, 0, sizeof j->share);
  return st == TP_SUCCESS ? 0 : root(j) ? tenport_fail("cp-als", "failed") : 1;
}

/* ---- the decomposition -------------------------------------------------------------- */

static int prepare_model(dist_job *j, const tp_dist_coo_info *info) {
  const tenport_cp_dist_request *q = j->q;
  tp_status st = tp_kruskal_alloc(NULL, info->dtype, info->order, info->dims, q->rank,
                                  &j->model);
  if (st == TP_SUCCESS && q->init)
    st = tp_kruskal_read_npy(q->init, info->dtype, info->order, info->dims, q->rank, &j->init);
  if (st == TP_SUCCESS && j->set)
    st = tp_kruskal_reserve_npy(j->set, q->output, info->order);
  return agree(j, st);
}

static int decompose(dist_job *j) {
  tp_cp_als_options o = *j->q->solver;
  o.rank = j->q->rank;
  o.init = j->q->init ? &j->init : NULL;
  if (!root(j))
    o.progress = NULL; /* rank 0 reports */
  tenport_cp_watch_begin(root(j) ? j->q->watch : NULL);
  tp_status st = tp_cp_als_sparse_dist(j->space, j->X, &o, &j->model, &j->result);
  tenport_cp_watch_end(root(j) ? j->q->watch : NULL);
  return st == TP_SUCCESS ? 0 : root(j) ? tenport_fail("cp-als", "failed") : 1;
}

/* The largest memory any rank's space held (device memory on GPUs). */
static int measure_memory(dist_job *j) {
  j->peak_bytes = (int64_t)tp_space_bytes_peak(j->space);
  return agree(j, tp_comm_allreduce_host(j->world, &j->peak_bytes, 1, TP_DTYPE_I64,
                                         TP_COMM_MAX));
}

static int write_model(dist_job *j) {
  double t0 = tenport_seconds();
  tp_status st = TP_SUCCESS;
  if (j->set) {
    st = tp_kruskal_write_npy_to(j->set, j->q->output, &j->model);
    if (st == TP_SUCCESS)
      st = tp_output_set_commit(j->set);
  }
  j->write_seconds = tenport_seconds() - t0;
  return agree(j, st);
}

/* ---- the report --------------------------------------------------------------------- */

static void print_grid(const tp_grid *g) {
  for (int m = 0; m < g->order; ++m)
    printf("%s%d", m ? "x" : "", g->parts[m]);
}

static void report(const dist_job *j, const tp_dist_coo_info *info, double total) {
  const tenport_cp_dist_request *q = j->q;
  printf("tensor: %s, ", q->generate.nnz > 0 ? "drawn on every rank" : q->input);
  for (int m = 0; m < info->order; ++m)
    printf("%s%lld", m ? "x" : "", (long long)info->dims[m]);
  printf(" %s, %lld nonzeros; rank %d\n", tp_dtype_name(info->dtype), (long long)info->nnz,
         q->rank);
  printf("distributed: %d ranks (%s), grid ", tp_comm_size(j->world),
         tp_comm_uses_nccl(j->comm) ? "NCCL between GPUs" : "MPI");
  print_grid(&info->grid);
  printf(", nonzeros per rank %lld to %lld, memory per rank at most %.2f GB\n",
         (long long)info->min_local_nnz, (long long)info->max_local_nnz, j->peak_bytes / 1e9);
  printf("phases: read %.3f s, exchange %.3f s, build %.3f s, iterations %.3f s "
         "(communication %.3f s), write %.3f s\n", j->read_seconds, info->exchange_seconds,
         info->build_seconds, j->result.seconds, j->result.comm_seconds, j->write_seconds);
  tenport_cp_print_result(&j->result, total);
  if (q->output)
    printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", q->output, q->output,
           info->order - 1);
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
    code = load_share(&j);
  if (code == 0)
    code = spread(&j);
  tp_dist_coo_info info;
  memset(&info, 0, sizeof info);
  if (code == 0)
    code = agree(&j, tp_dist_coo_get_info(j.X, &info));
  if (code == 0)
    code = prepare_model(&j, &info);
  if (code == 0)
    code = decompose(&j);
  if (code == 0)
    code = measure_memory(&j);
  if (code == 0)
    code = write_model(&j);
  if (code == 0 && root(&j)) {
    report(&j, &info, tenport_seconds() - t0);
    if (q->check_fit >= 0)
      code = tenport_cp_check_fit(j.result.fit, q->check_fit);
  }
  finish(&j);
  return code;
}
