/* Distributed sparse CP-ALS against the single-process run from the same starting
 * factors: every iteration's fit within 1e-10 (relative, f64) and the final factors
 * within 1e-8, on 3-, 4- and 5-mode tensors, with grids chosen and given (an empty
 * block, a mode shorter than its grid dimension), ranks without nonzeros, duplicate
 * coordinates split across ranks; the random start is the same for every rank count.
 * Run as mpirun -np P test_cp_sparse_dist. */
#include <math.h>
#include <string.h>

#include "tests/mpi/mpi_check.h"

enum { MAX_ITERS = 12 };

static tp_space *space;
static tp_comm *comm;
static int rank, size;

typedef struct fits {
  int count;
  double fit[MAX_ITERS];
} fits;

static void record_fit(const tp_cp_als_progress *p, void *user) {
  fits *f = (fits *)user;
  if (f->count < MAX_ITERS)
    f->fit[f->count++] = p->fit;
}

/* Every value of the next tensors is times this (units must not matter). */
static double value_scale = 1.0;

/* A tensor every rank builds the same: nnz draws (duplicates possible and wanted),
 * values in [0.5, 1.5) times value_scale; its nonzero k goes to rank (k * 7) % size's share, so the
 * copies of a duplicate usually land on different ranks. Ranks at or past
 * `holders` get none. */
static void make_tensor(int order, const int64_t *dims, int64_t nnz, uint64_t seed, tp_dtype dtype,
                        int holders, tp_coo *all, tp_coo *share) {
  CHECK_OK(tp_coo_alloc(NULL, dtype, order, dims, nnz, all));
  for (int64_t k = 0; k < nnz; ++k) {
    for (int m = 0; m < order; ++m) {
      double u = mpi_check_value(seed, (uint64_t)(k * order + m)) + 0.5;
      all->indices[m][k] = (int64_t)(u * u * (double)dims[m]) % dims[m];
    }
    double v = (mpi_check_value(seed + 1, (uint64_t)k) + 1.0) * value_scale;
    if (dtype == TP_DTYPE_F64)
      ((double *)all->values)[k] = v;
    else
      ((float *)all->values)[k] = (float)v;
  }
  int64_t mine = 0;
  for (int64_t k = 0; k < nnz; ++k)
    mine += (k * 7) % holders == rank && rank < holders;
  CHECK_OK(tp_coo_alloc(NULL, dtype, order, dims, mine, share));
  for (int64_t k = 0, j = 0; k < nnz; ++k) {
    if (!((k * 7) % holders == rank && rank < holders))
      continue;
    for (int m = 0; m < order; ++m)
      share->indices[m][j] = all->indices[m][k];
    memcpy((char *)share->values + (size_t)j * tp_dtype_size(dtype),
           (char *)all->values + (size_t)k * tp_dtype_size(dtype), tp_dtype_size(dtype));
    ++j;
  }
  int64_t merged;
  CHECK_OK(tp_coo_sum_duplicates(all, &merged));
}

static tp_cp_als_options options(int64_t R, fits *f, const tp_kruskal *init) {
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = R, o.tol = 0, o.max_iters = MAX_ITERS, o.seed = 11, o.init = init;
  o.progress = record_fit, o.progress_user = f;
  return o;
}

/* The single-process answer on every rank. */
static void reference(const tp_coo *all, int64_t R, const tp_kruskal *init, fits *f,
                      tp_kruskal *host) {
  tp_flycoo *fly = NULL;
  tp_kruskal model;
  CHECK_OK(tp_flycoo_create(space, all, NULL, &fly));
  CHECK_OK(tp_kruskal_alloc(space, all->dtype, all->order, all->dims, R, &model));
  tp_cp_als_options o = options(R, f, init);
  CHECK_OK(tp_cp_als_sparse(space, fly, &o, &model, NULL));
  CHECK_OK(tp_kruskal_alloc(NULL, all->dtype, all->order, all->dims, R, host));
  CHECK_OK(tp_kruskal_copy_to_host(space, host, &model));
  tp_kruskal_free(space, &model);
  tp_flycoo_destroy(&fly);
}

static double load(const void *p, tp_dtype t, int64_t i) {
  return t == TP_DTYPE_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

static void compare(const char *what, const fits *fd, const fits *fr, const tp_kruskal *d,
                    const tp_kruskal *r, double fit_tol, double factor_tol) {
  CHECK(fd->count == fr->count, "%s: %d iterations, expected %d", what, fd->count, fr->count);
  for (int i = 0; i < fd->count && i < fr->count; ++i)
    CHECK(fabs(fd->fit[i] - fr->fit[i]) <= fit_tol * fabs(fr->fit[i]),
          "%s: iteration %d fit %.15g, single process %.15g", what, i + 1, fd->fit[i], fr->fit[i]);
  for (int64_t q = 0; q < r->rank; ++q)
    CHECK(fabs(load(d->lambda, d->dtype, q) - load(r->lambda, r->dtype, q)) <=
              factor_tol * fabs(load(r->lambda, r->dtype, q)),
          "%s: lambda %lld", what, (long long)q);
  for (int k = 0; k < r->order; ++k)
    for (int64_t i = 0; i < r->dims[k] * r->rank; ++i) {
      double a = load(d->factors[k], d->dtype, i), b = load(r->factors[k], r->dtype, i);
      if (fabs(a - b) > factor_tol) {
        CHECK(0, "%s: factor %d element %lld is %.12g, single process %.12g", what, k, (long long)i,
              a, b);
        break;
      }
    }
}

/* One case: the distributed run (grid given or chosen) against the single process,
 * from init (or from the seed's random start when init is NULL). */
static void run_case(const char *what, int order, const int64_t *dims, int64_t nnz, int64_t R,
                     tp_dtype dtype, const tp_grid *grid, int holders, int with_init) {
  tp_coo all, share;
  make_tensor(order, dims, nnz, 7 + (uint64_t)order, dtype, holders, &all, &share);
  tp_kruskal init, ref, got;
  memset(&init, 0, sizeof init);
  if (with_init) {
    CHECK_OK(tp_kruskal_alloc(NULL, dtype, order, dims, R, &init));
    CHECK_OK(tp_kruskal_random(&init, 99));
  }
  fits fr = {0, {0}}, fd = {0, {0}};
  reference(&all, R, with_init ? &init : NULL, &fr, &ref);
  tp_dist_coo *X = NULL;
  CHECK_OK(tp_dist_coo_create(comm, space, &share, grid, NULL, &X));
  CHECK_OK(tp_kruskal_alloc(NULL, dtype, order, dims, R, &got));
  tp_cp_als_options o = options(R, &fd, with_init ? &init : NULL);
  tp_cp_als_result res;
  CHECK_OK(tp_cp_als_sparse_dist(space, X, &o, &got, &res));
  tp_dist_coo_info info;
  CHECK_OK(tp_dist_coo_get_info(X, &info));
  CHECK(info.nnz == all.nnz, "%s: %lld nonzeros after the exchange, expected %lld", what,
        (long long)info.nnz, (long long)all.nnz);
  CHECK(size == 1 || res.comm_seconds > 0, "%s: the collective time is counted", what);
  int f64 = dtype == TP_DTYPE_F64;
  compare(what, &fd, &fr, &got, &ref, f64 ? 1e-10 : 2e-4, f64 ? 1e-8 : 2e-3);
  tp_dist_coo_destroy(&X);
  tp_kruskal_free(NULL, &got), tp_kruskal_free(NULL, &ref), tp_kruskal_free(NULL, &init);
  tp_coo_free(NULL, &all), tp_coo_free(NULL, &share);
}

int main(int argc, char **argv) {
  mpi_check_start(&argc, &argv, &space, &comm, &rank, &size);
  const int64_t d3[3] = {37, 23, 41}, d4[4] = {13, 3, 17, 11}, d5[5] = {7, 9, 5, 11, 6};
  run_case("3 modes, chosen grid", 3, d3, 3000, 5, TP_DTYPE_F64, NULL, size, 1);
  run_case("3 modes, random start", 3, d3, 3000, 4, TP_DTYPE_F64, NULL, size, 0);
  /* mode 1 has 3 indices: more ranks than rows past 3 */
  tp_grid g = mpi_check_line_grid(4, 1, size);
  run_case("4 modes, all ranks on a 3-row mode", 4, d4, 2500, 3, TP_DTYPE_F64, &g, size, 1);
  run_case("5 modes, one rank holds every nonzero", 5, d5, 1500, 3, TP_DTYPE_F64, NULL, 1, 1);
  g = mpi_check_line_grid(3, 2, size);
  run_case("3 modes, few nonzeros (empty blocks)", 3, d3, 9, 2, TP_DTYPE_F64, &g, size, 1);
  run_case("3 modes, float32", 3, d3, 3000, 4, TP_DTYPE_F32, NULL, size, 1);
  /* one holder packs its share in many chunks (over 1024 nonzeros each) */
  const int64_t d3_big[3] = {97, 61, 43};
  run_case("3 modes, 60000 nonzeros on one rank", 3, d3_big, 60000, 3, TP_DTYPE_F64, NULL, 1, 1);
  /* squares that underflow, then overflow: scaled over the ranks as on one */
  value_scale = ldexp(1.0, -660);
  run_case("3 modes, values times 2^-660", 3, d3, 3000, 4, TP_DTYPE_F64, NULL, size, 1);
  value_scale = ldexp(1.0, 530);
  run_case("3 modes, values times 2^530", 3, d3, 3000, 4, TP_DTYPE_F64, NULL, size, 1);
  value_scale = 1.0;
  return mpi_check_end("test_cp_sparse_dist", NULL, &space, &comm);
}
