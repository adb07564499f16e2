/* tenport sshopm on several ranks (started by mpirun, or with --distributed). The tensors
 * (rows of A.npy) are cut into contiguous ranges as even as possible; each rank reads its
 * range by positioned reads and solves it exactly as one process does (the starting
 * vectors come from --seed and are shared by all tensors, so a tensor's results do not
 * depend on which rank has it). The eigenpair tables are padded to the largest count over
 * all ranks; each output file is made by rank 0 with the whole header, every rank writes
 * its rows, and rank 0 commits once every rank succeeded: the files are the single
 * process's, byte for byte. Rank 0 prints the same summary from the ranks' sums and the
 * first tensors' eigenpairs, gathered. A failure on any rank is agreed on, printed once,
 * and ends every rank with the same exit code. */

#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/sshopm_cli.h"

typedef struct sshopm_job {
  const sshopm_cli *c;
  tp_comm *world;
  tp_space *space;
  tp_output_set *set; /* rank 0 */
  int rank, size, one_tensor, max_count;
  int64_t tensors, unique, first, n; /* all tensors; this rank's range */
  double *a, *padded;
  runs r;
  pair_table tab;
  sshopm_totals totals;
  int64_t least, most;
  double read_seconds, pairs_seconds, write_seconds;
} sshopm_job;

static int root(const sshopm_job *j) { return j->rank == 0; }

static int agree(sshopm_job *j, tp_status local) {
  return tenport_ranks_agree("sshopm", j->world, local);
}
static int collective(const sshopm_job *j, tp_status st) {
  return tenport_ranks_collective("sshopm", j->world, st);
}
static int reported(sshopm_job *j, int code) {
  return tenport_ranks_reported("sshopm", j->world, code);
}

/* A step that failed with a message of its own (not tenport's last error): the lowest
 * failing rank's message, printed by rank 0. */
static int agree_text(sshopm_job *j, int failed, const char *message) {
  int32_t first = failed ? j->rank : j->size;
  char text[512];
  snprintf(text, sizeof text, "%s", *message ? message : "out of host memory");
  tp_status st = tp_comm_allreduce_host(j->world, &first, 1, TP_DTYPE_I32, TP_COMM_MIN);
  if (st == TP_SUCCESS && first < j->size)
    st = tp_comm_broadcast_host(j->world, text, (int64_t)sizeof text, TP_DTYPE_U8, first);
  if (st != TP_SUCCESS)
    return root(j) ? tenport_fail("sshopm", "failed") : 1;
  if (first < j->size && root(j))
    fprintf(stderr, "tenport sshopm: rank %d: %s\n", (int)first, text);
  return first < j->size;
}

static int start(sshopm_job *j) {
  int code = tenport_ranks_start("sshopm", &j->world, &j->space);
  if (j->world)
    j->rank = tp_comm_rank(j->world), j->size = tp_comm_size(j->world);
  return code;
}

static void finish(sshopm_job *j) {
  tp_output_set_destroy(&j->set);
  tenport_sshopm_table_free(&j->tab);
  tenport_sshopm_runs_free(&j->r);
  free(j->a), free(j->padded);
  tenport_ranks_end(&j->world, &j->space);
}

/* What a distributed run cannot do: the example, standard input, pipes. */
static int refuse(sshopm_job *j) {
  return tenport_ranks_refuse("sshopm", j->world, j->c->example, "--input", j->c->input, "tensors");
}

/* The header's shape; rank 0's output set, ready before the work. */
static int prepare(sshopm_job *j) {
  const sshopm_cli *c = j->c;
  tp_npy_header h;
  double none;
  tp_status st = tp_sym_unique_count(c->order, c->dim, &j->unique);
  if (st == TP_SUCCESS)
    st = tp_npy_read_rows(c->input, 0, 0, TP_DTYPE_F64, &none, &h);
  if (agree(j, st))
    return 1;
  if (reported(j, tenport_sshopm_shape(c, c->input, h.ndim, h.shape, &j->tensors, &j->one_tensor,
                                       root(j))))
    return 1;
  int code = 0;
  if (root(j)) {
    const char *inputs[1] = {c->input};
    code = tenport_outputs_begin("sshopm", &j->set, NULL, inputs, 1);
    if (code == 0)
      code = tenport_sshopm_reserve(c, j->set);
  }
  return reported(j, code);
}

/* This rank's tensors: read, solved, their distinct eigenpairs. */
static int compute(sshopm_job *j) {
  const sshopm_cli *c = j->c;
  tp_status st = tp_even_range(j->tensors, j->size, j->rank, &j->first, &j->n);
  double t0 = tenport_seconds();
  if (st == TP_SUCCESS) {
    j->a = (double *)malloc(sizeof(double) * (size_t)(j->n ? j->n * j->unique : 1));
    st = j->a ? tp_npy_read_rows(c->input, j->first, j->n, TP_DTYPE_F64, j->a, NULL)
              : TP_ERROR_OUT_OF_MEMORY;
  }
  if (agree(j, st))
    return 1;
  j->read_seconds = tenport_seconds() - t0;
  if (agree(j, tenport_sshopm_solve(j->space, c, c->order, c->dim, j->n, j->a, &j->r)))
    return 1;
  char message[512] = "";
  t0 = tenport_seconds();
  st = tenport_sshopm_pairs(&j->r, j->a, j->unique, &j->tab, message, sizeof message);
  j->pairs_seconds = tenport_seconds() - t0;
  if (agree_text(j, st != TP_SUCCESS, message))
    return 1;
  /* the table's width: the largest count of any rank */
  int64_t most = j->tab.max_count;
  if (collective(j, tp_comm_allreduce_host(j->world, &most, 1, TP_DTYPE_I64, TP_COMM_MAX)))
    return 1;
  j->max_count = (int)most;
  j->padded = tenport_sshopm_padded(&j->tab, j->max_count);
  return agree(j, j->padded ? TP_SUCCESS : TP_ERROR_OUT_OF_MEMORY);
}

static int write_one(sshopm_job *j, const char *name, tp_dtype dtype, int tail_ndim,
                     const int64_t *tail, const void *data) {
  int64_t shape[4] = {j->tensors};
  int lead = j->one_tensor ? 0 : 1;
  char path[4096];
  for (int i = 0; i < tail_ndim; ++i)
    shape[lead + i] = tail[i];
  if (!tenport_sshopm_output_path(j->c->output, name, path, sizeof path))
    return 1; /* the same on every rank: the names were reserved already */
  return collective(j, tp_npy_write_rows_dist(j->world, j->set, path, dtype, lead + tail_ndim,
                                              shape, lead, j->first, j->n, data));
}

static int write_all(sshopm_job *j) {
  const int64_t v = j->c->starts, d = j->c->dim;
  const int64_t runs_tail[1] = {v}, x_tail[2] = {v, d},
                pairs_tail[2] = {j->max_count, d + PAIR_FIXED_COLS};
  double t0 = tenport_seconds();
  int code = write_one(j, "lambda", TP_DTYPE_F64, 1, runs_tail, j->r.lambda);
  if (code == 0)
    code = write_one(j, "x", TP_DTYPE_F64, 2, x_tail, j->r.x);
  if (code == 0)
    code = write_one(j, "flag", TP_DTYPE_I8, 1, runs_tail, j->r.flag);
  if (code == 0)
    code = write_one(j, "iterations", TP_DTYPE_I32, 1, runs_tail, j->r.iterations);
  if (code == 0)
    code = write_one(j, "eigenpairs", TP_DTYPE_F64, 2, pairs_tail, j->padded);
  if (code == 0)
    code = reported(j, root(j) ? tenport_outputs_commit("sshopm", j->set) : 0);
  j->write_seconds = tenport_seconds() - t0;
  return code;
}

#define TRY(expr)                   \
  do {                              \
    tp_status try_status_ = (expr); \
    if (try_status_ != TP_SUCCESS)  \
      return try_status_;           \
  } while (0)

/* The summary's sums over the ranks. */
static tp_status reduce_totals(sshopm_job *j) {
  sshopm_totals *t = &j->totals;
  tenport_sshopm_count(&j->r, t);
  int64_t sums[9] = {t->tensors,  t->runs,     t->flags[0],          t->flags[1],  t->flags[2],
                     t->flags[3], t->flags[4], t->nonfinite_tensors, t->iterations};
  double times[4] = {t->seconds, j->read_seconds, j->pairs_seconds, j->write_seconds};
  j->least = j->most = j->n;
  TRY(tp_comm_allreduce_host(j->world, sums, 9, TP_DTYPE_I64, TP_COMM_SUM));
  TRY(tp_comm_allreduce_host(j->world, times, 4, TP_DTYPE_F64, TP_COMM_MAX));
  TRY(tp_comm_allreduce_host(j->world, &j->least, 1, TP_DTYPE_I64, TP_COMM_MIN));
  TRY(tp_comm_allreduce_host(j->world, &j->most, 1, TP_DTYPE_I64, TP_COMM_MAX));
  t->tensors = sums[0], t->runs = sums[1];
  for (int k = 0; k < 5; ++k)
    t->flags[k] = sums[2 + k];
  t->nonfinite_tensors = sums[7], t->iterations = sums[8];
  t->seconds = times[0];
  j->read_seconds = times[1], j->pairs_seconds = times[2], j->write_seconds = times[3];
  return TP_SUCCESS;
}

/* The eigenpairs of the first SUMMARY_TENSORS tensors, from the ranks that hold them, as
 * a table on every rank (rows: max_count each, NaN-padded); 0, or 1 (reported). */
static int gather_summary(sshopm_job *j, pair_table *s, double **rows) {
  const int64_t shown = j->tensors < SUMMARY_TENSORS ? j->tensors : SUMMARY_TENSORS;
  const int64_t per = (int64_t)j->max_count * (j->c->dim + PAIR_FIXED_COLS);
  int64_t *tc = (int64_t *)malloc(sizeof(int64_t) * 2 * (size_t)j->size), *rc, mine = 0;
  int32_t local[SUMMARY_TENSORS + 1], all[SUMMARY_TENSORS + 1];
  s->tensors = shown, s->width = j->c->dim + PAIR_FIXED_COLS, s->max_count = j->max_count;
  s->count = (int *)calloc((size_t)shown + 1, sizeof(int));
  s->rows = (double **)calloc((size_t)shown + 1, sizeof(double *));
  *rows = (double *)malloc(sizeof(double) * (size_t)(shown * per + 1));
  if (agree(j, tc && s->count && s->rows && *rows ? TP_SUCCESS : TP_ERROR_OUT_OF_MEMORY)) {
    free(tc);
    return 1;
  }
  rc = tc + j->size;
  for (int r = 0; r < j->size; ++r) { /* rank r's tensors among the shown */
    int64_t first, n;
    tp_even_range(j->tensors, j->size, r, &first, &n);
    int64_t end = first + n < shown ? first + n : shown;
    tc[r] = end > first ? end - first : 0, rc[r] = tc[r] * per;
    if (r == j->rank)
      mine = tc[r];
  }
  for (int64_t k = 0; k < mine; ++k)
    local[k] = j->tab.count[k];
  tp_status st = tp_comm_allgatherv_host(j->world, local, all, tc, TP_DTYPE_I32);
  if (st == TP_SUCCESS)
    st = tp_comm_allgatherv_host(j->world, j->padded, *rows, rc, TP_DTYPE_F64);
  for (int64_t k = 0; st == TP_SUCCESS && k < shown; ++k)
    s->count[k] = all[k], s->rows[k] = *rows + k * per;
  free(tc);
  return collective(j, st);
}

static int report(sshopm_job *j) {
  const sshopm_cli *c = j->c;
  pair_table shown;
  double *rows = NULL;
  double comm_seconds = tp_comm_seconds(j->world);
  memset(&shown, 0, sizeof shown);
  int code = collective(j, reduce_totals(j));
  if (code == 0)
    code = gather_summary(j, &shown, &rows);
  if (code == 0 && root(j)) {
    tenport_sshopm_print_result(c, c->input, &shown, &j->totals);
    printf("distributed: %d ranks, tensors per rank %lld..%lld; phases: read %.3f s, compute "
           "%.3f s (eigenpairs %.3f s), write %.3f s (the slowest rank's; communication "
           "%.3f s)\n",
           j->size, (long long)j->least, (long long)j->most, j->read_seconds,
           j->totals.seconds + j->pairs_seconds, j->pairs_seconds, j->write_seconds, comm_seconds);
    printf("wrote %s_{lambda,x,flag,iterations,eigenpairs}.npy\n", c->output);
  }
  free(shown.count), free(shown.rows), free(rows);
  return code;
}

int tenport_sshopm_distributed(const sshopm_cli *c) {
  if (tenport_ranks_available("sshopm"))
    return 2;
  sshopm_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  int code = start(&j);
  if (code == 0)
    code = refuse(&j);
  if (code == 0)
    code = prepare(&j);
  if (code == 0)
    code = compute(&j);
  if (code == 0)
    code = write_all(&j);
  if (code == 0)
    code = report(&j);
  finish(&j);
  return code;
}
