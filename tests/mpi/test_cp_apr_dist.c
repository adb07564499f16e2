/* CP-APR over ranks (tp_cp_apr_sparse_dist) against one process's (tp_cp_apr_sparse) on
 * the same count tensor, start and seed, in f64: each rank holds every size-th nonzero
 * (one count split in two halves on two ranks); after 30 iterations lambda and the
 * factors agree to 1e-9 and the log-likelihood to 1e-10 (relative), every rank holds rank
 * 0's model, a negative count on one rank is every rank's error, and a communicator of
 * host memory is refused with a GPU space's data (taken on a host space). Run as
 * mpirun -np P. */
#include <math.h>
#include <string.h>

#include "tests/mpi/mpi_check.h"

static tp_space *space;
static tp_comm *comm;
static int rank, size;
static const int64_t dims[3] = {14, 11, 9};

/* Counts of a planted rank-2 model, the same on every rank. */
static void make_whole(tp_coo *x) {
  const int64_t N = dims[0] * dims[1] * dims[2];
  CHECK_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, N, x));
  int64_t n = 0;
  for (int64_t e = 0; e < N; ++e) {
    const int64_t i = e / (dims[1] * dims[2]), j = e / dims[2] % dims[1], k = e % dims[2];
    const double m = (i < 7 ? 1.5 : 0.1) * (j % 2 ? 1.0 : 0.3) * (k < 5 ? 1.0 : 0.2) +
                     (i >= 7 ? 1.2 : 0.1) * (j < 6 ? 1.0 : 0.2) * (k % 3 ? 0.9 : 0.1);
    const double c = floor(2.0 * m + 2.0 * (mpi_check_value(21, (uint64_t)e) + 0.5) - 0.5);
    if (c <= 0)
      continue;
    x->indices[0][n] = i, x->indices[1][n] = j, x->indices[2][n] = k;
    ((double *)x->values)[n++] = c;
  }
  x->nnz = n;
}

/* Rank r's share: nonzeros k with k % size == r; nonzero 0 split between the first and
 * the last rank. */
static void take_share(const tp_coo *whole, tp_coo *share) {
  CHECK_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, dims, whole->nnz + 1, share));
  int64_t n = 0;
  for (int64_t k = 0; k < whole->nnz; ++k) {
    const int first = k == 0;
    if ((int)(k % size) != rank && !(first && rank == size - 1))
      continue;
    for (int m = 0; m < 3; ++m)
      share->indices[m][n] = whole->indices[m][k];
    const double v = ((double *)whole->values)[k];
    ((double *)share->values)[n++] = first && size > 1 ? v / 2 : v;
  }
  share->nnz = n;
}

static void to_host(tp_kruskal *dev, tp_kruskal *host) {
  CHECK_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, dev->rank, host));
  CHECK_OK(tp_kruskal_copy_to_host(space, host, dev));
}

static void compare_runs(void) {
  tp_coo whole, share;
  make_whole(&whole);
  take_share(&whole, &share);
  tp_cp_apr_options o = tp_cp_apr_options_default();
  o.rank = 2, o.max_iters = 30, o.seed = 9;
  tp_kruskal m1, md, h1, hd;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, 3, dims, 2, &m1));
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, 3, dims, 2, &md));
  tp_cp_apr_result r1, rd;
  CHECK_OK(tp_cp_apr_sparse(space, &whole, &o, &m1, &r1));
  CHECK_OK(tp_cp_apr_sparse_dist(comm, space, &share, &o, &md, &rd));
  to_host(&m1, &h1), to_host(&md, &hd);
  CHECK(rd.iterations == r1.iterations && rd.inner == r1.inner,
        "%d iterations (%lld inner), one process %d (%lld)", rd.iterations, (long long)rd.inner,
        r1.iterations, (long long)r1.inner);
  CHECK(fabs(rd.loglik - r1.loglik) <= 1e-10 * fabs(r1.loglik), "loglik %.15g, one process %.15g",
        rd.loglik, r1.loglik);
  for (int r = 0; r < 2; ++r) {
    const double a = ((double *)hd.lambda)[r], b = ((double *)h1.lambda)[r];
    CHECK(fabs(a - b) <= 1e-9 * fabs(b), "lambda[%d] %.15g, one process %.15g", r, a, b);
  }
  for (int k = 0; k < 3; ++k)
    for (int64_t e = 0; e < dims[k] * 2; ++e) {
      const double a = ((double *)hd.factors[k])[e], b = ((double *)h1.factors[k])[e];
      if (fabs(a - b) > 1e-9) {
        CHECK(0, "factor %d entry %lld: %.15g, one process %.15g", k, (long long)e, a, b);
        break;
      }
    }
  mpi_check_same_model("CP-APR", &hd);
  tp_kruskal_free(NULL, &hd), tp_kruskal_free(NULL, &h1);
  tp_kruskal_free(space, &md), tp_kruskal_free(space, &m1);
  tp_coo_free(NULL, &share), tp_coo_free(NULL, &whole);
}

static void refusal(void) {
  tp_coo whole, share;
  make_whole(&whole);
  ((double *)whole.values)[whole.nnz - 1] = -3; /* on rank (nnz - 1) % size */
  take_share(&whole, &share);
  tp_cp_apr_options o = tp_cp_apr_options_default();
  o.rank = 2;
  tp_kruskal m;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, 3, dims, 2, &m));
  tp_status st = tp_cp_apr_sparse_dist(comm, space, &share, &o, &m, NULL);
  CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "finite and >= 0"),
        "a negative count on one rank: %s: %s", tp_status_name(st), tp_last_error());
  tp_kruskal_free(space, &m), tp_coo_free(NULL, &share), tp_coo_free(NULL, &whole);
}

/* A communicator made for host memory: refused with a GPU space (its sums would hand
 * device pointers to MPI), taken with a host space. */
static void host_comm_with_space(void) {
  tp_comm *host = NULL;
  CHECK_OK(tp_comm_with_space(comm, NULL, &host));
  tp_space_info info;
  CHECK_OK(tp_space_get_info(space, &info));
  /* the check itself: a communicator with its own space, host memory with host memory */
  CHECK(tp_comm_check_space(comm, space) == TP_SUCCESS, "comm with its space: %s", tp_last_error());
  CHECK(tp_comm_check_space(host, NULL) == TP_SUCCESS, "host with host: %s", tp_last_error());
  CHECK((tp_comm_check_space(host, space) == TP_SUCCESS) == !info.is_gpu,
        "host comm with this space: %s", tp_last_error());
  CHECK((tp_comm_check_space(comm, NULL) == TP_SUCCESS) == !info.is_gpu,
        "this space's comm with host memory: %s", tp_last_error());
  tp_coo whole, share;
  make_whole(&whole);
  take_share(&whole, &share);
  tp_cp_apr_options o = tp_cp_apr_options_default();
  o.rank = 2, o.max_iters = 2;
  tp_kruskal m;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, 3, dims, 2, &m));
  tp_status st = tp_cp_apr_sparse_dist(host, space, &share, &o, &m, NULL);
  if (info.is_gpu)
    CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "tp_comm_with_space"),
          "a host communicator with a GPU space: %s: %s", tp_status_name(st), tp_last_error());
  else
    CHECK(st == TP_SUCCESS, "a host communicator with a host space: %s: %s", tp_status_name(st),
          tp_last_error());
  tp_kruskal_free(space, &m), tp_coo_free(NULL, &share), tp_coo_free(NULL, &whole);
  tp_comm_destroy(&host);
}

int main(int argc, char **argv) {
  mpi_check_start(&argc, &argv, &space, &comm, &rank, &size);
  compare_runs();
  refusal();
  host_comm_with_space();
  return mpi_check_end("test_cp_apr_dist", NULL, &space, &comm);
}
