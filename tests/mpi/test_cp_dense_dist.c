/* Distributed dense CP-ALS against the single-process run from the same starting factors
 * (every iteration's fit within 1e-10, factors within 1e-8, in f64), on 3-, 4- and
 * 5-mode tensors, blocks read from .npy files of both orders or made in place, grids
 * chosen and given (a mode shorter than its grid dimension), f32 and f64; every rank's
 * block equals the same elements of the whole tensor. Run as mpirun -np P. */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "tests/mpi/mpi_check.h"

enum { MAX_ITERS = 8 };

static tp_space *space;
static tp_comm *comm;
static int rank, size;
static char folder[256];

typedef struct fits {
  int count;
  double fit[MAX_ITERS];
} fits;

static void record_fit(const tp_cp_als_progress *p, void *user) {
  fits *f = (fits *)user;
  if (f->count < MAX_ITERS)
    f->fit[f->count++] = p->fit;
}

static tp_cp_als_options options(int64_t R, fits *f, const tp_kruskal *init) {
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = R, o.tol = 0, o.max_iters = MAX_ITERS, o.init = init;
  o.progress = record_fit, o.progress_user = f;
  return o;
}

static double load(const void *p, tp_dtype t, int64_t i) {
  return t == TP_DTYPE_F64 ? ((const double *)p)[i] : ((const float *)p)[i];
}

/* The block each rank holds equals the whole tensor's elements there. */
static void check_block(const char *what, tp_dist_dense *X, const tp_dense *whole) {
  tp_dist_dense_info info;
  CHECK_OK(tp_dist_dense_get_info(X, &info));
  tp_dense *b = tp_dist_dense_block(X), host;
  CHECK_OK(tp_dense_alloc(NULL, b->dtype, b->order, b->dims, b->layout, &host));
  CHECK_OK(tp_copy_to_host(space, host.data, b->data,
                           (size_t)tp_dense_count(b) * tp_dtype_size(b->dtype)));
  int64_t n = tp_dense_count(b), idx[TP_DENSE_MAX_ORDER] = {0};
  for (int m = 0; m < b->order; ++m)
    if (info.slab_end[m] == info.slab_begin[m])
      n = 0; /* a block without rows */
  for (int64_t i = 0; i < n; ++i) {
    int64_t g = 0, l = 0; /* offsets in the whole tensor and in the block */
    for (int j = 0; j < b->order; ++j) {
      int k = b->layout == TP_LAYOUT_LEFT ? b->order - 1 - j : j;
      g = g * whole->dims[k] + info.slab_begin[k] + idx[k];
      l = l * b->dims[k] + idx[k];
    }
    if (load(host.data, b->dtype, l) != load(whole->data, whole->dtype, g)) {
      CHECK(0, "%s: block element %lld differs from the whole tensor's", what, (long long)i);
      break;
    }
    for (int k = 0; k < b->order; ++k) {
      if (++idx[k] < b->dims[k])
        break;
      idx[k] = 0;
    }
  }
  tp_dense_free(NULL, &host);
}

static void compare(const char *what, const fits *fd, const fits *fr, const tp_kruskal *d,
                    const tp_kruskal *r, double fit_tol, double factor_tol) {
  CHECK(fd->count == fr->count, "%s: %d iterations, expected %d", what, fd->count, fr->count);
  for (int i = 0; i < fd->count && i < fr->count; ++i)
    CHECK(fabs(fd->fit[i] - fr->fit[i]) <= fit_tol * fabs(fr->fit[i]),
          "%s: iteration %d fit %.15g, single process %.15g", what, i + 1, fd->fit[i], fr->fit[i]);
  for (int k = 0; k < r->order; ++k)
    for (int64_t i = 0; i < r->dims[k] * r->rank; ++i)
      if (fabs(load(d->factors[k], d->dtype, i) - load(r->factors[k], r->dtype, i)) > factor_tol) {
        CHECK(0, "%s: factor %d element %lld differs", what, k, (long long)i);
        break;
      }
}

/* One case: the tensor from a file of the given order (fortran) or made in place. */
static void run_case(const char *what, int order, const int64_t *dims, int64_t R, tp_dtype dtype,
                     const tp_grid *grid, int source /* 0: planted in place, 1: C, 2: F */) {
  tp_layout layout = source == 2 ? TP_LAYOUT_LEFT : TP_LAYOUT_RIGHT;
  tp_dense whole, dev;
  CHECK_OK(tp_dense_alloc(NULL, dtype, order, dims, layout, &whole));
  CHECK_OK(tp_dense_random_planted(&whole, 3, 0.05, 21, NULL));
  char path[512];
  snprintf(path, sizeof path, "%s/x.npy", folder);
  if (source && rank == 0)
    CHECK_OK(tp_dense_write_npy(path, &whole));
  MPI_Barrier(MPI_COMM_WORLD);
  tp_kruskal init, ref, got;
  CHECK_OK(tp_kruskal_alloc(NULL, dtype, order, dims, R, &init));
  CHECK_OK(tp_kruskal_random(&init, 77));
  fits fr = {0, {0}}, fd = {0, {0}};
  tp_cp_als_options o = options(R, &fr, &init);
  CHECK_OK(tp_dense_alloc(space, dtype, order, dims, layout, &dev));
  CHECK_OK(tp_dense_copy_to_device(space, &dev, &whole));
  CHECK_OK(tp_kruskal_alloc(space, dtype, order, dims, R, &ref));
  CHECK_OK(tp_cp_als(space, &dev, &o, &ref, NULL));
  tp_kruskal ref_host;
  CHECK_OK(tp_kruskal_alloc(NULL, dtype, order, dims, R, &ref_host));
  CHECK_OK(tp_kruskal_copy_to_host(space, &ref_host, &ref));
  tp_dist_dense *X = NULL;
  if (source)
    CHECK_OK(tp_dist_dense_create_npy(comm, space, path, dtype, grid, &X));
  else {
    CHECK_OK(tp_dist_dense_create(comm, space, dtype, order, dims, layout, grid, &X));
    CHECK_OK(tp_dist_dense_random_planted(X, 3, 0.05, 21));
  }
  check_block(what, X, &whole);
  CHECK_OK(tp_kruskal_alloc(NULL, dtype, order, dims, R, &got));
  o = options(R, &fd, &init);
  tp_cp_als_result res;
  CHECK_OK(tp_cp_als_dense_dist(space, X, &o, &got, &res));
  int f64 = dtype == TP_DTYPE_F64;
  compare(what, &fd, &fr, &got, &ref_host, f64 ? 1e-10 : 1e-4, f64 ? 1e-8 : 1e-3);
  tp_dist_dense_destroy(&X);
  tp_kruskal_free(NULL, &got), tp_kruskal_free(NULL, &ref_host), tp_kruskal_free(NULL, &init);
  tp_kruskal_free(space, &ref), tp_dense_free(space, &dev), tp_dense_free(NULL, &whole);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  mpi_check_start(&argc, &argv, &space, &comm, &rank, &size);
  mpi_check_folder_make(folder, (int)sizeof folder, "tenport-dense");
  const int64_t d3[3] = {17, 13, 19}, d4[4] = {7, 3, 11, 5}, d5[5] = {5, 4, 3, 6, 2};
  run_case("3 modes, C-order file", 3, d3, 4, TP_DTYPE_F64, NULL, 1);
  run_case("3 modes, Fortran-order file", 3, d3, 4, TP_DTYPE_F64, NULL, 2);
  run_case("3 modes, made in place", 3, d3, 4, TP_DTYPE_F64, NULL, 0);
  tp_grid g = mpi_check_line_grid(4, 1, size); /* mode 1 has 3 rows */
  run_case("4 modes, every rank on a 3-row mode", 4, d4, 3, TP_DTYPE_F64, &g, 1);
  run_case("5 modes, made in place", 5, d5, 2, TP_DTYPE_F64, NULL, 0);
  run_case("3 modes, float32 file", 3, d3, 3, TP_DTYPE_F32, NULL, 1);
  return mpi_check_end("test_cp_dense_dist", folder, &space, &comm);
}
