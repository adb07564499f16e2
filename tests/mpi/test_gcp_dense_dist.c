/* Distributed GCP (L-BFGS-B) against the single-process run from the same start: the loss
 * after every iteration within 1e-9 (relative) and the factors within 1e-6, in f64, for a
 * Poisson count tensor, a Gaussian one with a mask of missing entries (whose values are
 * NaN: never read) and a 4-mode one on a grid with a mode shorter than its slab count;
 * every rank gets the same model; a refused entry is named by its whole-tensor indices on
 * every rank; a time limit is refused. GCP-Adam over the ranks: its first estimate, from
 * a fixed sample every rank draws a part of, agrees with the exact objective at the same
 * start (a part weighted by its block instead of the whole would be off by the block's
 * share); the estimate falls; every rank holds rank 0's model; on one rank the run is the
 * single process's bit for bit. Run as mpirun -np P. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "tests/mpi/mpi_check.h"

enum { MAX_ITERS = 15 };

static tp_space *space;
static tp_comm *comm;
static int rank, size;
static char folder[256];

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
  o.rank = R, o.loss = loss, o.max_iters = MAX_ITERS, o.seed = 5;
  o.progress = record_loss, o.progress_user = l;
  return o;
}

/* A planted nonnegative tensor; Poisson draws of it (counts) for the Poisson case. */
static void make_tensor(tp_dense *x, int counts) {
  CHECK_OK(tp_dense_random_planted(x, 2, 0.0, 31, NULL));
  double *v = (double *)x->data;
  const int64_t n = tp_dense_count(x);
  uint64_t s = 12345;
  for (int64_t i = 0; i < n; ++i) {
    v[i] = fabs(v[i]);
    if (counts) { /* a count near 3 v: Knuth's method, from a fixed generator */
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      const double limit = exp(-3 * v[i]);
      double p = 1;
      int k = -1;
      do {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        p *= (double)(s >> 11) / 9007199254740992.0;
        ++k;
      } while (p > limit && k < 60);
      v[i] = k;
    }
  }
}

static void write_npy(const char *name, const tp_dense *x, char *path, size_t size) {
  snprintf(path, size, "%s/%s", folder, name);
  if (rank == 0)
    CHECK_OK(tp_dense_write_npy(path, x));
  MPI_Barrier(MPI_COMM_WORLD);
}

static void compare(const char *what, const losses *ld, const losses *lr, const tp_kruskal *d,
                    const tp_kruskal *r) {
  CHECK(ld->count == lr->count, "%s: %d iterations, expected %d", what, ld->count, lr->count);
  for (int i = 0; i < ld->count && i < lr->count; ++i)
    CHECK(fabs(ld->loss[i] - lr->loss[i]) <= 1e-9 * fabs(lr->loss[i]) + 1e-12,
          "%s: iteration %d loss %.15g, single process %.15g", what, i + 1, ld->loss[i],
          lr->loss[i]);
  for (int k = 0; k < r->order; ++k)
    for (int64_t i = 0; i < r->dims[k] * r->rank; ++i)
      if (fabs(((double *)d->factors[k])[i] - ((double *)r->factors[k])[i]) > 1e-6) {
        CHECK(0, "%s: factor %d element %lld differs", what, k, (long long)i);
        break;
      }
  mpi_check_same_model(what, d);
}

/* One case: X (and a mask: every 4th entry missing, NaN in X) from .npy files, the run on
 * the ranks against the single process's. */
static void run_case(const char *what, int order, const int64_t *dims, int64_t R, tp_gcp_loss loss,
                     int masked, const tp_grid *grid) {
  tp_dense whole, mask, dev, dmask;
  CHECK_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, order, dims, TP_LAYOUT_RIGHT, &whole));
  CHECK_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, order, dims, TP_LAYOUT_RIGHT, &mask));
  make_tensor(&whole, loss == TP_GCP_POISSON);
  const int64_t n = tp_dense_count(&whole);
  for (int64_t i = 0; i < n; ++i) {
    ((double *)mask.data)[i] = masked && i % 4 == 1 ? 0.0 : 1.0;
    if (masked && i % 4 == 1)
      ((double *)whole.data)[i] = NAN;
  }
  char xpath[512], wpath[512];
  write_npy("x.npy", &whole, xpath, sizeof xpath);
  write_npy("w.npy", &mask, wpath, sizeof wpath);
  losses lr = {0, {0}}, ld = {0, {0}};
  tp_gcp_options o = options(R, loss, &lr);
  tp_kruskal ref, ref_host, got;
  CHECK_OK(tp_dense_alloc(space, TP_DTYPE_F64, order, dims, TP_LAYOUT_RIGHT, &dev));
  CHECK_OK(tp_dense_copy_to_device(space, &dev, &whole));
  CHECK_OK(tp_dense_alloc(space, TP_DTYPE_F64, order, dims, TP_LAYOUT_RIGHT, &dmask));
  CHECK_OK(tp_dense_copy_to_device(space, &dmask, &mask));
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, order, dims, R, &ref));
  CHECK_OK(tp_gcp(space, &dev, masked ? &dmask : NULL, &o, &ref, NULL));
  CHECK_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, order, dims, R, &ref_host));
  CHECK_OK(tp_kruskal_copy_to_host(space, &ref_host, &ref));
  tp_dist_dense *X = NULL, *W = NULL;
  CHECK_OK(tp_dist_dense_create_npy(comm, space, xpath, TP_DTYPE_F64, grid, &X));
  if (masked)
    CHECK_OK(tp_dist_dense_create_npy(comm, space, wpath, TP_DTYPE_F64, grid, &W));
  tp_kruskal dmodel;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, order, dims, R, &dmodel));
  o = options(R, loss, &ld);
  tp_gcp_result res;
  CHECK_OK(tp_gcp_dense_dist(space, X, W, &o, &dmodel, &res));
  CHECK_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, order, dims, R, &got));
  CHECK_OK(tp_kruskal_copy_to_host(space, &got, &dmodel));
  compare(what, &ld, &lr, &got, &ref_host);
  tp_dist_dense_destroy(&W), tp_dist_dense_destroy(&X);
  tp_kruskal_free(NULL, &got), tp_kruskal_free(NULL, &ref_host);
  tp_kruskal_free(space, &dmodel), tp_kruskal_free(space, &ref);
  tp_dense_free(space, &dmask), tp_dense_free(space, &dev);
  tp_dense_free(NULL, &mask), tp_dense_free(NULL, &whole);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A non-count entry under the Poisson loss is named by its indices in the whole tensor,
 * on every rank; a time limit is refused before any work. */
static void refusals(void) {
  const int64_t dims[3] = {6, 5, 7};
  tp_dense whole;
  CHECK_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_RIGHT, &whole));
  memset(whole.data, 0, sizeof(double) * 210);
  ((double *)whole.data)[(5 * 5 + 4) * 7 + 6] = 2.5; /* X[5, 4, 6] */
  char path[512];
  write_npy("bad.npy", &whole, path, sizeof path);
  tp_dist_dense *X = NULL;
  CHECK_OK(tp_dist_dense_create_npy(comm, space, path, TP_DTYPE_F64, NULL, &X));
  tp_kruskal model;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, 3, dims, 2, &model));
  tp_gcp_options o = options(2, TP_GCP_POISSON, NULL);
  o.progress = NULL;
  tp_status st = tp_gcp_dense_dist(space, X, NULL, &o, &model, NULL);
  CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "X[5, 4, 6] = 2.5"),
        "a non-count entry: %s: %s", tp_status_name(st), tp_last_error());
  o.loss = TP_GCP_GAUSSIAN, o.max_seconds = 10;
  st = tp_gcp_dense_dist(space, X, NULL, &o, &model, NULL);
  CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "time limit"), "max_seconds: %s",
        tp_last_error());
  tp_kruskal_free(space, &model);
  tp_dist_dense_destroy(&X);
  tp_dense_free(NULL, &whole);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* The exact objective of the model (host) over the ranks: L-BFGS-B's value at the start. */
static double exact_objective(tp_dist_dense *X, const tp_kruskal *host) {
  tp_kruskal model;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, host->order, host->dims, host->rank, &model));
  tp_gcp_options o = options(host->rank, TP_GCP_POISSON, NULL);
  o.progress = NULL, o.max_iters = 1, o.init = host;
  tp_gcp_result r;
  CHECK_OK(tp_gcp_dense_dist(space, X, NULL, &o, &model, &r));
  tp_kruskal_free(space, &model);
  return r.initial_loss;
}

/* GCP-Adam of a Poisson count tensor over the ranks (see the top); its model is as good
 * as one process's (the exact objective within 10%), which a sample naming the wrong
 * rows would not give. */
static void adam_case(void) {
  const int64_t dims[3] = {13, 11, 9};
  tp_dense whole, dev;
  CHECK_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_RIGHT, &whole));
  make_tensor(&whole, 1);
  char xpath[512];
  write_npy("adam.npy", &whole, xpath, sizeof xpath);
  tp_dist_dense *X = NULL;
  CHECK_OK(tp_dist_dense_create_npy(comm, space, xpath, TP_DTYPE_F64, NULL, &X));
  tp_kruskal model, got, ref;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, 3, dims, 3, &model));
  CHECK_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 3, &got));
  CHECK_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 3, dims, 3, &ref));
  tp_gcp_options o = options(3, TP_GCP_POISSON, NULL);
  o.progress = NULL, o.max_iters = 1;
  tp_gcp_result exact, res, one;
  CHECK_OK(tp_gcp_dense_dist(space, X, NULL, &o, &model, &exact)); /* the exact start value */
  o.solver = TP_GCP_SOLVER_ADAM, o.epochs = 4, o.epoch_iters = 25, o.rate = 1e-2;
  o.function_samples = 20 * tp_dense_count(&whole), o.gradient_samples = 400;
  CHECK_OK(tp_gcp_dense_dist(space, X, NULL, &o, &model, &res));
  CHECK(fabs(res.initial_loss - exact.initial_loss) <= 0.03 * exact.initial_loss,
        "Adam's first estimate %.6g, the objective at the start %.6g", res.initial_loss,
        exact.initial_loss);
  CHECK(res.loss < 0.9 * res.initial_loss, "Adam's estimate went from %.6g to %.6g",
        res.initial_loss, res.loss);
  CHECK_OK(tp_kruskal_copy_to_host(space, &got, &model));
  mpi_check_same_model("Adam", &got);
  CHECK_OK(tp_dense_alloc(space, TP_DTYPE_F64, 3, dims, TP_LAYOUT_RIGHT, &dev));
  CHECK_OK(tp_dense_copy_to_device(space, &dev, &whole));
  CHECK_OK(tp_gcp(space, &dev, NULL, &o, &model, &one)); /* one process */
  CHECK_OK(tp_kruskal_copy_to_host(space, &ref, &model));
  const double f_ranks = exact_objective(X, &got), f_one = exact_objective(X, &ref);
  CHECK(f_ranks <= 1.1 * f_one, "Adam over the ranks ends at %.6g, in one process at %.6g", f_ranks,
        f_one);
  if (rank == 0)
    printf("Adam on %d rank%s: first estimate %.6g (exact %.6g), end %.6g (one process %.6g)\n",
           size, size > 1 ? "s" : "", res.initial_loss, exact.initial_loss, f_ranks, f_one);
  if (size == 1) { /* the single process's run, bit for bit */
    CHECK(one.loss == res.loss, "Adam on one rank: loss %.17g, one process %.17g", res.loss,
          one.loss);
    for (int k = 0; k < 3; ++k)
      CHECK(!memcmp(got.factors[k], ref.factors[k], sizeof(double) * (size_t)(dims[k] * 3)),
            "Adam on one rank: factor %d differs from one process's", k);
  }
  tp_kruskal_free(NULL, &ref), tp_kruskal_free(NULL, &got), tp_kruskal_free(space, &model);
  tp_dense_free(space, &dev), tp_dist_dense_destroy(&X), tp_dense_free(NULL, &whole);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Adam over a grid whose ranks past a 3-row mode's rows hold empty blocks: they draw
 * nothing, yet take every step with the others, and every rank ends with rank 0's
 * model. */
static void adam_with_empty_blocks(const tp_grid *grid) {
  const int64_t dims[4] = {7, 3, 8, 5};
  tp_dense whole;
  CHECK_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 4, dims, TP_LAYOUT_RIGHT, &whole));
  make_tensor(&whole, 0);
  char path[512];
  write_npy("empty.npy", &whole, path, sizeof path);
  tp_dist_dense *X = NULL;
  CHECK_OK(tp_dist_dense_create_npy(comm, space, path, TP_DTYPE_F64, grid, &X));
  tp_kruskal model, got;
  CHECK_OK(tp_kruskal_alloc(space, TP_DTYPE_F64, 4, dims, 2, &model));
  tp_gcp_options o = options(2, TP_GCP_GAUSSIAN, NULL);
  o.progress = NULL, o.solver = TP_GCP_SOLVER_ADAM, o.epochs = 3, o.epoch_iters = 10;
  o.rate = 1e-2, o.gradient_samples = 100;
  tp_gcp_result res;
  CHECK_OK(tp_gcp_dense_dist(space, X, NULL, &o, &model, &res));
  CHECK(res.loss < res.initial_loss, "Adam with empty blocks: %.6g from %.6g", res.loss,
        res.initial_loss);
  CHECK_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, 4, dims, 2, &got));
  CHECK_OK(tp_kruskal_copy_to_host(space, &got, &model));
  mpi_check_same_model("Adam with empty blocks", &got);
  tp_kruskal_free(NULL, &got), tp_kruskal_free(space, &model);
  tp_dist_dense_destroy(&X), tp_dense_free(NULL, &whole);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  mpi_check_start(&argc, &argv, &space, &comm, &rank, &size);
  mpi_check_folder_make(folder, (int)sizeof folder, "tenport-gcp");
  const int64_t d3[3] = {13, 11, 9}, d4[4] = {7, 3, 8, 5};
  run_case("Poisson counts, 3 modes", 3, d3, 3, TP_GCP_POISSON, 0, NULL);
  run_case("Gaussian with missing entries", 3, d3, 2, TP_GCP_GAUSSIAN, 1, NULL);
  tp_grid g = mpi_check_line_grid(4, 1, size); /* mode 1 has 3 rows */
  run_case("4 modes, ranks on a 3-row mode", 4, d4, 2, TP_GCP_GAUSSIAN, 0, &g);
  refusals();
  adam_case();
  adam_with_empty_blocks(&g);
  return mpi_check_end("test_gcp_dense_dist", folder, &space, &comm);
}
