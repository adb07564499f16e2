/* Embedding tenport: CP-ALS of a tensor that lives in the program's own host memory.
 *
 * The program plants a rank-3 tensor X = sum_r a_r o b_r o c_r of size 30 x 40 x 50
 * from random factors it makes itself, hands it to tenport (which copies it into a
 * space: the host's threads or a GPU, whichever backend is installed), decomposes it
 * with tp_cp_als and copies the model back into its own arrays. It exits with status 0
 * only when the fit exceeds 0.99 and the model, rebuilt here, matches X.
 *
 * Build against an installed tenport (-lm for this program's own sqrt):
 *   cc -std=c11 cp_als_host.c $(pkg-config --cflags --libs tenport) -lm -o cp_als_host
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <tenport/tenport.h>

enum { ORDER = 3, RANK = 3 };
static const int64_t DIMS[ORDER] = {30, 40, 50};

/* Every tenport call returns a tp_status; on failure tp_last_error() says which
 * function failed, why and where. CHECK reports it and jumps to the cleanup. */
#define CHECK(call)                                                                        \
  do {                                                                                     \
    tp_status st_ = (call);                                                                \
    if (st_ != TP_SUCCESS) {                                                               \
      fprintf(stderr, "%s failed: %s: %s\n", #call, tp_status_name(st_), tp_last_error()); \
      goto done;                                                                           \
    }                                                                                      \
  } while (0)

/* A small generator of our own (splitmix64), uniform in [0, 1). */
static double uniform(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* Element (i, j, k) of the Kruskal tensor with weights lambda and factors U (each
 * dims[n] x RANK, row-major: row i holds the RANK values of component r = 0..RANK-1). */
static double kruskal_entry(const double *lambda, double *const U[ORDER], int64_t i, int64_t j,
                            int64_t k) {
  double sum = 0.0;
  for (int r = 0; r < RANK; ++r)
    sum += lambda[r] * U[0][i * RANK + r] * U[1][j * RANK + r] * U[2][k * RANK + r];
  return sum;
}

/* Decomposes x (DIMS, layout LEFT) with tenport; the model comes back in lambda and
 * factor. Returns 1 when every call succeeded. */
static int decompose(double *x, double lambda[RANK], double *factor[ORDER], tp_cp_als_result *res) {
  int ok = 0;
  tp_space *space = NULL;
  tp_space_info info;
  tp_dense X_space = {0};   /* the tensor's copy in the space */
  tp_kruskal M_space = {0}; /* the model, in the space */
  tp_cp_als_options opts = tp_cp_als_options_default();

  /* Descriptors only describe memory: these two point at our own arrays. */
  tp_dense X_host = {0};
  X_host.dtype = TP_DTYPE_F64;
  X_host.order = ORDER;
  X_host.layout = TP_LAYOUT_LEFT; /* tenport's default: the first index runs fastest */
  X_host.data = x;
  tp_kruskal M_host = {0};
  M_host.dtype = TP_DTYPE_F64;
  M_host.order = ORDER;
  M_host.rank = RANK;
  M_host.lambda = lambda;
  for (int n = 0; n < ORDER; ++n) {
    X_host.dims[n] = M_host.dims[n] = DIMS[n];
    M_host.factors[n] = factor[n];
  }

  /* A space (NULL options: the default device, threads and stream), the tensor copied
   * into it and room for the model. */
  CHECK(tp_space_create(&space, NULL));
  CHECK(tp_space_get_info(space, &info));
  printf("tenport %s backend on %s\n", info.backend, info.device_name);
  CHECK(tp_dense_alloc(space, TP_DTYPE_F64, ORDER, DIMS, TP_LAYOUT_LEFT, &X_space));
  CHECK(tp_dense_copy_to_device(space, &X_space, &X_host));
  CHECK(tp_kruskal_alloc(space, TP_DTYPE_F64, ORDER, DIMS, RANK, &M_space));

  opts.rank = RANK;
  opts.tol = 1e-9; /* an exact low-rank tensor: go on until the fit stops moving */
  opts.max_iters = 500;
  opts.seed = 7; /* the random initial guess; the same seed gives the same run */
  /* opts.progress = tp_cp_als_print_progress;   would print one line per iteration */
  CHECK(tp_cp_als(space, &X_space, &opts, &M_space, res));

  /* The model (lambda and the factors, row-major dims[n] x RANK) into our arrays. */
  CHECK(tp_kruskal_copy_to_host(space, &M_host, &M_space));
  ok = 1;

done:
  /* Free what the space holds before destroying it (destroy frees leftovers too, but
   * reports them as an error). */
  tp_kruskal_free(space, &M_space);
  tp_dense_free(space, &X_space);
  if (space && tp_space_destroy(&space) != TP_SUCCESS) {
    fprintf(stderr, "tp_space_destroy: %s\n", tp_last_error());
    ok = 0;
  }
  return ok;
}

int main(void) {
  const int64_t I = DIMS[0], J = DIMS[1], K = DIMS[2];
  const double ones[RANK] = {1.0, 1.0, 1.0};
  double *x = (double *)malloc(sizeof(double) * (size_t)(I * J * K));
  double *truth[ORDER], *factor[ORDER], lambda[RANK];
  int ok = x != NULL;

  /* The planted factors, uniform in [0, 1), and X built from them. */
  uint64_t seed = 2024;
  for (int n = 0; n < ORDER; ++n) {
    truth[n] = (double *)malloc(sizeof(double) * (size_t)(DIMS[n] * RANK));
    factor[n] = (double *)malloc(sizeof(double) * (size_t)(DIMS[n] * RANK));
    ok = ok && truth[n] && factor[n];
    for (int64_t e = 0; ok && e < DIMS[n] * RANK; ++e)
      truth[n][e] = uniform(&seed);
  }
  if (!ok) {
    fprintf(stderr, "out of host memory\n");
  } else {
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < J; ++j)
        for (int64_t i = 0; i < I; ++i)
          x[i + I * (j + J * k)] = kruskal_entry(ones, truth, i, j, k);
  }

  tp_cp_als_result res;
  ok = ok && decompose(x, lambda, factor, &res);
  if (ok) {
    printf("iterations %d (%s), fit %.8f, %.3f s\n", res.iterations,
           res.converged ? "converged" : "max_iters reached", res.fit, res.seconds);
    printf("lambda (largest first):");
    for (int r = 0; r < RANK; ++r)
      printf(" %.6f", lambda[r]);
    printf("\n");

    /* An independent check of the model: rebuild it element by element. */
    double err2 = 0.0, norm2 = 0.0;
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < J; ++j)
        for (int64_t i = 0; i < I; ++i) {
          double v = x[i + I * (j + J * k)], d = v - kruskal_entry(lambda, factor, i, j, k);
          err2 += d * d, norm2 += v * v;
        }
    double rel = sqrt(err2 / norm2);
    printf("relative error ||X - M|| / ||X|| = %.3e (fit 1 - that = %.8f)\n", rel, 1.0 - rel);
    if (res.fit <= 0.99)
      fprintf(stderr, "the fit %.6f is not above 0.99\n", res.fit), ok = 0;
    if (fabs((1.0 - rel) - res.fit) > 1e-6)
      fprintf(stderr, "tenport's fit and the rebuilt model's disagree\n"), ok = 0;
  }
  printf("%s\n", ok ? "PASS" : "FAIL");

  for (int n = 0; n < ORDER; ++n)
    free(truth[n]), free(factor[n]);
  free(x);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
