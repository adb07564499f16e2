/* Distributed GCP of a sparse tensor given as the ranks' shares of its nonzeros
 * (tp_gcp_sparse_dist), in f64:
 *   - L-BFGS-B against tp_gcp_sparse in one process from the same start: the loss after
 *     every iteration within 1e-9 (relative) and the factors within 1e-6, for Poisson
 *     counts (one nonzero split in two duplicates on two ranks) and for a Gaussian tensor
 *     with missing coordinates (their share spread over the ranks too);
 *   - GCP-Adam: the first estimate, from a fixed sample the ranks draw in parts from their
 *     blocks, agrees with the exact objective at the same start; the model is as good as
 *     one process's (exact objective within 10%); every rank holds rank 0's model; one
 *     rank runs the single process's run bit for bit;
 *   - a non-count value under Poisson is named by its indices on every rank; missing
 *     coordinates with Adam and shares of different dims are refused on every rank.
 * Run as mpirun -np P. */
#include <math.h>
#include <string.h>

#include "tests/mpi/mpi_check.h"

enum { MAX_ITERS = 12, ORDER = 3 };

static tp_space *space;
static tp_comm *comm;
static int rank, size;
static const int64_t dims[ORDER] = {13, 11, 9};

typedef struct losses {
  int count;
  double loss[MAX_ITERS];
} losses;

static void record_loss(const tp_gcp_progress *p, void *user) {
  losses *l = (losses *)user;
  if (l->count < MAX_ITERS)
    l->loss[l->count++] = p->loss;
}

static tp_gcp_options options(int64_t R, tp_gcp_loss loss, losses *l) {
  tp_gcp_options o = tp_gcp_options_default();
  o.rank = R, o.loss = loss, o.max_iters = MAX_ITERS, o.seed = 7;
  o.progress = l ? record_loss : NULL, o.progress_user = l;
  return o;
}

/* The whole tensor, the same on every rank: about a third of the entries nonzero, counts
 * 1..4 (Poisson) or values in (-2, 2) (Gaussian). */
static void make_whole(int counts, tp_coo *x) {
  int64_t n = 0;
  const int64_t N = dims[0] * dims[1] * dims[2];
  CHECK_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, ORDER, dims, N, x));
  for (int64_t e = 0; e < N; ++e) {
    const double u = mpi_check_value(11, (uint64_t)e) + 0.5, v = mpi_check_value(12, (uint64_t)e);
    if (u > 0.36)
      continue;
    x->indices[0][n] = e / (dims[1] * dims[2]);
    x->indices[1][n] = e / dims[2] % dims[1];
    x->indices[2][n] = e % dims[2];
    ((double *)x->values)[n++] = counts ? 1 + floor((v + 0.5) * 4) : 4 * v;
  }
  x->nnz = n;
}

/* Rank r's share: the nonzeros k with k % size == r; the first nonzero is split into two
 * halves on the first and last rank (duplicates across ranks). */
static void take_share(const tp_coo *whole, tp_coo *share) {
  CHECK_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, ORDER, dims, whole->nnz + 1, share));
  int64_t n = 0;
  for (int64_t k = 0; k < whole->nnz; ++k) {
    const int first = k == 0, mine = (int)(k % size) == rank || (first && rank == size - 1);
    if (!mine)
      continue;
    for (int m = 0; m < ORDER; ++m)
      share->indices[m][n] = whole->indices[m][k];
    const double v = ((double *)whole->values)[k];
    ((double *)share->values)[n++] = first && size > 1 ? v / 2 : v;
  }
  share->nnz = n;
}

/* The model of a run over the ranks, on the host. */
static void run_dist(const tp_coo *share, const tp_coo *missing, const tp_gcp_options *o,
                     tp_kruskal *host, tp_gcp_result *res) {
  tp_kruskal model;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, ORDER, dims, o->rank, &model));
  CHECK_OK(tp_gcp_sparse_dist(comm, space, share, missing, NULL, o, &model, res));
  CHECK_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, ORDER, dims, o->rank, host));
  CHECK_OK(tp_kruskal_copy_to_host(space, host, &model));
  tp_kruskal_free(space, &model);
}

static void run_one(const tp_coo *whole, const tp_coo *missing, const tp_gcp_options *o,
                    tp_kruskal *host, tp_gcp_result *res) {
  tp_kruskal model;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, ORDER, dims, o->rank, &model));
  CHECK_OK(tp_gcp_sparse(space, whole, missing, o, &model, res));
  CHECK_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, ORDER, dims, o->rank, host));
  CHECK_OK(tp_kruskal_copy_to_host(space, host, &model));
  tp_kruskal_free(space, &model);
}

static void lbfgsb_case(const char *what, tp_gcp_loss loss, int with_missing) {
  tp_coo whole, share, missing, missing_share;
  make_whole(loss == TP_GCP_POISSON, &whole);
  take_share(&whole, &share);
  if (with_missing) { /* every 7th entry missing: coordinates only, values unused */
    const int64_t N = dims[0] * dims[1] * dims[2];
    CHECK_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, ORDER, dims, N / 7 + 1, &missing));
    int64_t n = 0;
    for (int64_t e = 3; e < N; e += 7, ++n) {
      missing.indices[0][n] = e / (dims[1] * dims[2]);
      missing.indices[1][n] = e / dims[2] % dims[1];
      missing.indices[2][n] = e % dims[2];
      ((double *)missing.values)[n] = 1;
    }
    missing.nnz = n;
    take_share(&missing, &missing_share);
  }
  losses lo = {0, {0}}, ld = {0, {0}};
  tp_gcp_options o = options(3, loss, &lo);
  tp_kruskal ref, got;
  tp_gcp_result r1, rd;
  run_one(&whole, with_missing ? &missing : NULL, &o, &ref, &r1);
  o = options(3, loss, &ld);
  run_dist(&share, with_missing ? &missing_share : NULL, &o, &got, &rd);
  CHECK(ld.count == lo.count, "%s: %d iterations, one process %d", what, ld.count, lo.count);
  for (int i = 0; i < ld.count && i < lo.count; ++i)
    CHECK(fabs(ld.loss[i] - lo.loss[i]) <= 1e-9 * fabs(lo.loss[i]) + 1e-12,
          "%s: iteration %d loss %.15g, one process %.15g", what, i + 1, ld.loss[i], lo.loss[i]);
  for (int k = 0; k < ORDER; ++k)
    for (int64_t i = 0; i < dims[k] * 3; ++i)
      if (fabs(((double *)got.factors[k])[i] - ((double *)ref.factors[k])[i]) > 1e-6) {
        CHECK(0, "%s: factor %d element %lld differs", what, k, (long long)i);
        break;
      }
  mpi_check_same_model(what, &got);
  tp_kruskal_free(NULL, &got), tp_kruskal_free(NULL, &ref);
  if (with_missing)
    tp_coo_free(NULL, &missing_share), tp_coo_free(NULL, &missing);
  tp_coo_free(NULL, &share), tp_coo_free(NULL, &whole);
}

/* The exact Poisson objective of a model: L-BFGS-B's value at it as the start. */
static double exact_objective(const tp_coo *share, const tp_kruskal *host) {
  tp_gcp_options o = options(host->rank, TP_GCP_POISSON, NULL);
  o.max_iters = 1, o.init = host;
  tp_kruskal unused;
  tp_gcp_result r;
  run_dist(share, NULL, &o, &unused, &r);
  tp_kruskal_free(NULL, &unused);
  return r.initial_loss;
}

static void adam_case(void) {
  tp_coo whole, share;
  make_whole(1, &whole);
  take_share(&whole, &share);
  tp_gcp_options o = options(3, TP_GCP_POISSON, NULL);
  o.max_iters = 1;
  tp_kruskal start, got, ref;
  tp_gcp_result exact, rd, r1;
  run_dist(&share, NULL, &o, &start, &exact);
  o.solver = TP_GCP_SOLVER_ADAM, o.epochs = 4, o.epoch_iters = 25, o.rate = 1e-2;
  o.function_samples = 20 * whole.nnz, o.function_zeros = 20 * whole.nnz;
  o.gradient_samples = 200, o.gradient_zeros = 200;
  run_dist(&share, NULL, &o, &got, &rd);
  run_one(&whole, NULL, &o, &ref, &r1);
  CHECK(fabs(rd.initial_loss - exact.initial_loss) <= 0.03 * exact.initial_loss,
        "Adam's first estimate %.6g, the objective at the start %.6g", rd.initial_loss,
        exact.initial_loss);
  mpi_check_same_model("Adam", &got);
  const double f_ranks = exact_objective(&share, &got), f_one = exact_objective(&share, &ref);
  CHECK(f_ranks < 0.9 * exact.initial_loss && f_ranks <= 1.1 * f_one,
        "Adam over the ranks went from %.6g to %.6g, in one process to %.6g", exact.initial_loss,
        f_ranks, f_one);
  if (rank == 0)
    printf("Adam on %d rank%s: first estimate %.6g (exact %.6g), end %.6g (one process %.6g)\n",
           size, size > 1 ? "s" : "", rd.initial_loss, exact.initial_loss, f_ranks, f_one);
  if (size == 1) {
    CHECK(rd.loss == r1.loss, "Adam on one rank: loss %.17g, one process %.17g", rd.loss, r1.loss);
    for (int k = 0; k < ORDER; ++k)
      CHECK(!memcmp(got.factors[k], ref.factors[k], sizeof(double) * (size_t)(dims[k] * 3)),
            "Adam on one rank: factor %d differs from one process's", k);
  }
  tp_kruskal_free(NULL, &start), tp_kruskal_free(NULL, &got), tp_kruskal_free(NULL, &ref);
  tp_coo_free(NULL, &share), tp_coo_free(NULL, &whole);
}

static void refusals(void) {
  tp_coo whole, share;
  make_whole(1, &whole);
  ((double *)whole.values)[whole.nnz - 1] = 2.5; /* on rank (nnz - 1) % size */
  take_share(&whole, &share);
  char want[64];
  snprintf(want, sizeof want, "X[%lld, %lld, %lld] = 2.5",
           (long long)whole.indices[0][whole.nnz - 1], (long long)whole.indices[1][whole.nnz - 1],
           (long long)whole.indices[2][whole.nnz - 1]);
  tp_gcp_options o = options(2, TP_GCP_POISSON, NULL);
  tp_kruskal model;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, ORDER, dims, 2, &model));
  for (int solver = 0; solver < 2; ++solver) {
    o.solver = solver ? TP_GCP_SOLVER_ADAM : TP_GCP_SOLVER_LBFGSB;
    tp_status st = tp_gcp_sparse_dist(comm, space, &share, NULL, NULL, &o, &model, NULL);
    CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), want),
          "a non-count value (%s): %s: %s", solver ? "Adam" : "L-BFGS-B", tp_status_name(st),
          tp_last_error());
  }
  o.loss = TP_GCP_GAUSSIAN, o.solver = TP_GCP_SOLVER_ADAM;
  tp_status st = tp_gcp_sparse_dist(comm, space, &share, &share, NULL, &o, &model, NULL);
  CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "missing"),
        "missing entries with Adam: %s", tp_last_error());
  if (size > 1) { /* one rank's share of other dims */
    o.solver = TP_GCP_SOLVER_LBFGSB;
    share.dims[2] += rank == 1;
    st = tp_gcp_sparse_dist(comm, space, &share, NULL, NULL, &o, &model, NULL);
    CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "disagree"),
          "shares of other dims: %s", tp_last_error());
  }
  tp_kruskal_free(space, &model);
  tp_coo_free(NULL, &share), tp_coo_free(NULL, &whole);
}

int main(int argc, char **argv) {
  mpi_check_start(&argc, &argv, &space, &comm, &rank, &size);
  lbfgsb_case("Poisson counts", TP_GCP_POISSON, 0);
  lbfgsb_case("Gaussian with missing coordinates", TP_GCP_GAUSSIAN, 1);
  adam_case();
  refusals();
  return mpi_check_end("test_gcp_sparse_dist", NULL, &space, &comm);
}
