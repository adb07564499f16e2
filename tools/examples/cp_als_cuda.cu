/* Embedding tenport in a CUDA program that owns its GPU memory and its stream.
 *
 * The program allocates the tensor, the factor matrices and the output buffers itself
 * with cudaMalloc, fills them with its own kernels on its own stream, and hands tenport
 * descriptors (tp_dense, tp_kruskal) that merely point at that memory. tenport runs on
 * the same stream (tp_space_options.stream), so its work is ordered after the fills
 * without any synchronisation, and it never allocates, tracks or frees these buffers:
 * any device memory of the space's GPU will do (tp_alloc is one way to get some).
 *
 * It checks a mode-0 MTTKRP (tp_mttkrp) against the closed form for a Kruskal tensor,
 * then decomposes the tensor with tp_cp_als into a model whose lambda and factors are
 * also its own cudaMalloc buffers, and checks the fit.
 *
 * Build against tenport installed with the cuda backend:
 *   nvcc -O2 -cudart shared cp_als_cuda.cu $(pkg-config --cflags --libs tenport-cuda) \
 *        -o cp_als_cuda
 * (-cudart shared: tenport uses the shared CUDA runtime; one runtime for both is simplest.)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <tenport/tenport.h>

enum { ORDER = 3, RANK = 4 };
static const int64_t DIMS[ORDER] = {64, 48, 80};

/* Report a failed call and make the enclosing function return false. */
#define CUDA_CHECK(call)                                                 \
  do {                                                                   \
    cudaError_t e_ = (call);                                             \
    if (e_ != cudaSuccess) {                                             \
      fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); \
      return false;                                                      \
    }                                                                    \
  } while (0)
#define TP_CALL(call)                                                                     \
  do {                                                                                    \
    tp_status s_ = (call);                                                                \
    if (s_ != TP_SUCCESS) {                                                               \
      fprintf(stderr, "%s failed: %s: %s\n", #call, tp_status_name(s_), tp_last_error()); \
      return false;                                                                       \
    }                                                                                     \
  } while (0)

/* ---- our own kernels ----------------------------------------------------------------- */

/* a[e] uniform in [0, 1), a hash of (seed, e): the same values on every GPU. */
__global__ void fill_uniform(double *a, int64_t n, uint64_t seed) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
       e += (int64_t)gridDim.x * blockDim.x) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (uint64_t)e * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    a[e] = (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  }
}

/* X(i, j, k) = sum_r A(i, r) B(j, r) C(k, r), first index fastest (TP_LAYOUT_LEFT);
 * the factors are row-major (row i holds its RANK values), as tenport stores them. */
__global__ void build_tensor(double *X, const double *A, const double *B, const double *C,
                             int64_t I, int64_t J, int64_t K) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < I * J * K;
       e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = e % I, j = (e / I) % J, k = e / (I * J);
    double x = 0.0;
    for (int r = 0; r < RANK; ++r)
      x += A[i * RANK + r] * B[j * RANK + r] * C[k * RANK + r];
    X[e] = x;
  }
}

/* ---- everything the program owns -------------------------------------------------------- */

struct Buffers {
  cudaStream_t stream;
  double *X;             /* the tensor, prod(DIMS) values */
  double *truth[ORDER];  /* the planted factors, DIMS[n] x RANK */
  double *G;             /* tp_mttkrp's output, DIMS[0] x RANK */
  double *lambda;        /* the model CP-ALS writes: RANK weights ... */
  double *factor[ORDER]; /* ... and DIMS[n] x RANK factors */
  tp_space *space;
};

static int64_t tensor_count(void) { return DIMS[0] * DIMS[1] * DIMS[2]; }

static bool allocate(Buffers *b) {
  CUDA_CHECK(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc((void **)&b->X, sizeof(double) * tensor_count()));
  CUDA_CHECK(cudaMalloc((void **)&b->G, sizeof(double) * DIMS[0] * RANK));
  CUDA_CHECK(cudaMalloc((void **)&b->lambda, sizeof(double) * RANK));
  for (int n = 0; n < ORDER; ++n) {
    CUDA_CHECK(cudaMalloc((void **)&b->truth[n], sizeof(double) * DIMS[n] * RANK));
    CUDA_CHECK(cudaMalloc((void **)&b->factor[n], sizeof(double) * DIMS[n] * RANK));
  }
  return true;
}

/* Planted factors and the tensor, all on our stream (nothing waits here). */
static bool fill(Buffers *b) {
  for (int n = 0; n < ORDER; ++n) {
    fill_uniform<<<64, 256, 0, b->stream>>>(b->truth[n], DIMS[n] * RANK, 11 + n);
    CUDA_CHECK(cudaGetLastError());
  }
  build_tensor<<<256, 256, 0, b->stream>>>(b->X, b->truth[0], b->truth[1], b->truth[2], DIMS[0],
                                           DIMS[1], DIMS[2]);
  CUDA_CHECK(cudaGetLastError());
  return true;
}

/* Copies n doubles from the GPU into a new host array (after the stream's earlier work). */
static double *download(const Buffers *b, const double *src, int64_t n) {
  double *h = (double *)malloc(sizeof(double) * n);
  if (h && (cudaMemcpyAsync(h, src, sizeof(double) * n, cudaMemcpyDeviceToHost, b->stream) !=
                cudaSuccess ||
            cudaStreamSynchronize(b->stream) != cudaSuccess)) {
    free(h);
    h = NULL;
  }
  if (!h)
    fprintf(stderr, "cannot copy %lld values to the host\n", (long long)n);
  return h;
}

/* Descriptors of our memory: tenport reads and writes it, and owns none of it. */
static tp_dense describe_tensor(const Buffers *b) {
  tp_dense X = tp_dense();
  X.dtype = TP_DTYPE_F64;
  X.order = ORDER;
  X.layout = TP_LAYOUT_LEFT;
  X.data = b->X;
  for (int n = 0; n < ORDER; ++n)
    X.dims[n] = DIMS[n];
  return X;
}

static tp_kruskal describe_kruskal(double *lambda, double *const factors[ORDER]) {
  tp_kruskal K = tp_kruskal();
  K.dtype = TP_DTYPE_F64;
  K.order = ORDER;
  K.rank = RANK;
  K.lambda = lambda;
  for (int n = 0; n < ORDER; ++n) {
    K.dims[n] = DIMS[n];
    K.factors[n] = factors[n];
  }
  return K;
}

/* ---- the checks ---------------------------------------------------------------------------- */

/* For X = [[A, B, C]], the mode-0 MTTKRP is A (B^T B .* C^T C): compare with tp_mttkrp's. */
static bool check_mttkrp(Buffers *b) {
  tp_dense X = describe_tensor(b);
  tp_kruskal truth = describe_kruskal(NULL, b->truth); /* lambda is not read by MTTKRP */
  TP_CALL(tp_mttkrp(b->space, &X, &truth, 0, b->G, NULL));

  double *h[ORDER] = {NULL, NULL, NULL}, *G = download(b, b->G, DIMS[0] * RANK);
  bool ok = G != NULL;
  for (int n = 0; n < ORDER; ++n)
    ok = ok && (h[n] = download(b, b->truth[n], DIMS[n] * RANK)) != NULL;
  double max_err = 0.0, max_ref = 0.0;
  for (int64_t i = 0; ok && i < DIMS[0]; ++i)
    for (int r = 0; r < RANK; ++r) {
      double ref = 0.0;
      for (int s = 0; s < RANK; ++s) {
        double gb = 0.0, gc = 0.0; /* (B^T B)(s, r) and (C^T C)(s, r) */
        for (int64_t j = 0; j < DIMS[1]; ++j)
          gb += h[1][j * RANK + s] * h[1][j * RANK + r];
        for (int64_t k = 0; k < DIMS[2]; ++k)
          gc += h[2][k * RANK + s] * h[2][k * RANK + r];
        ref += h[0][i * RANK + s] * gb * gc;
      }
      max_err = fmax(max_err, fabs(G[i * RANK + r] - ref));
      max_ref = fmax(max_ref, fabs(ref));
    }
  if (ok) {
    printf("tp_mttkrp, mode 0: max |G - A (B'B .* C'C)| = %.3e (max |G| %.3e)\n", max_err, max_ref);
    ok = max_err <= 1e-10 * max_ref;
  }
  for (int n = 0; n < ORDER; ++n)
    free(h[n]);
  free(G);
  return ok;
}

/* CP-ALS into our own model buffers; fit above 0.99, and the fit recomputed here from
 * the model agrees. */
static bool check_cp_als(Buffers *b) {
  tp_dense X = describe_tensor(b);
  tp_kruskal model = describe_kruskal(b->lambda, b->factor);
  tp_cp_als_options opts = tp_cp_als_options_default();
  opts.rank = RANK;
  opts.tol = 1e-9;
  opts.max_iters = 500;
  tp_cp_als_result res;
  TP_CALL(tp_cp_als(b->space, &X, &opts, &model, &res));

  double *x = download(b, b->X, tensor_count()), *lambda = download(b, b->lambda, RANK);
  double *U[ORDER] = {NULL, NULL, NULL};
  bool ok = x && lambda;
  for (int n = 0; n < ORDER; ++n)
    ok = ok && (U[n] = download(b, b->factor[n], DIMS[n] * RANK)) != NULL;
  if (ok) {
    printf("tp_cp_als: iterations %d (%s), fit %.8f, %.3f s\n", res.iterations,
           res.converged ? "converged" : "max_iters reached", res.fit, res.seconds);
    printf("lambda (largest first):");
    for (int r = 0; r < RANK; ++r)
      printf(" %.6f", lambda[r]);
    printf("\n");
    double err2 = 0.0, norm2 = 0.0;
    for (int64_t e = 0; e < tensor_count(); ++e) {
      const int64_t i = e % DIMS[0], j = (e / DIMS[0]) % DIMS[1], k = e / (DIMS[0] * DIMS[1]);
      double m = 0.0;
      for (int r = 0; r < RANK; ++r)
        m += lambda[r] * U[0][i * RANK + r] * U[1][j * RANK + r] * U[2][k * RANK + r];
      err2 += (x[e] - m) * (x[e] - m), norm2 += x[e] * x[e];
    }
    double rel = sqrt(err2 / norm2);
    printf("relative error ||X - M|| / ||X|| = %.3e\n", rel);
    ok = res.fit > 0.99 && fabs((1.0 - rel) - res.fit) < 1e-6;
  }
  free(x), free(lambda);
  for (int n = 0; n < ORDER; ++n)
    free(U[n]);
  return ok;
}

static bool run(Buffers *b) {
  if (!allocate(b) || !fill(b))
    return false;
  /* tenport on our stream: its kernels queue behind fill()'s. */
  tp_space_options o = tp_space_options_default();
  o.device = 0; /* the device our buffers are on (cudaMalloc used the current one, 0) */
  o.stream = b->stream;
  TP_CALL(tp_space_create(&b->space, &o));
  tp_space_info info;
  TP_CALL(tp_space_get_info(b->space, &info));
  printf("tenport %s backend on %s\n", info.backend, info.device_name);
  return check_mttkrp(b) && check_cp_als(b);
}

static void release(Buffers *b) {
  /* The space was given our stream: destroying it waits for the stream but leaves it to
   * us, and it frees none of our buffers. */
  if (b->space && tp_space_destroy(&b->space) != TP_SUCCESS)
    fprintf(stderr, "tp_space_destroy: %s\n", tp_last_error());
  cudaFree(b->X), cudaFree(b->G), cudaFree(b->lambda);
  for (int n = 0; n < ORDER; ++n)
    cudaFree(b->truth[n]), cudaFree(b->factor[n]);
  if (b->stream)
    cudaStreamDestroy(b->stream);
}

int main(void) {
  Buffers b = Buffers();
  bool ok = run(&b);
  release(&b);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
