/* Smoke test of the CUB peer (peer.h): runs the three primitives on small arrays and
 * checks them against host references. Prints one line per case and PASS or FAIL;
 * exits 0 (pass), 1 (fail) or 77 (no CUDA device: skipped).
 * Build: nvcc -c cub_peer.cu; cc -I<cuda>/include -c peer_smoke.c; link both with -lcudart. */
#include "perf/peers/peer.h"

#include <cuda_runtime_api.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CUDA_OK(call)                                                                    \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

static void report(const char *what, int64_t n, int ok, double ms) {
  printf("%s %-12s n=%-9" PRId64 " median %.4f ms\n", ok ? "pass" : "FAIL", what, n, ms);
  if (!ok)
    failures++;
}

static int peer_ok(int rc, const char *what) {
  if (rc != 0)
    printf("FAIL %s: %s\n", what, tp_peer_last_error());
  return rc == 0;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static void check_reduce(void *stream, int64_t n) {
  double *h = malloc((size_t)n * sizeof *h), *d_in, *d_out, got = -1, ms = 0;
  int64_t units = 0; /* values are multiples of 1/4: the sum is exact in any order */
  for (int64_t i = 0; i < n; i++) {
    h[i] = (double)(i % 1001) * 0.25;
    units += i % 1001;
  }
  CUDA_OK(cudaMalloc((void **)&d_in, (size_t)n * sizeof *h));
  CUDA_OK(cudaMalloc((void **)&d_out, sizeof got));
  CUDA_OK(cudaMemcpy(d_in, h, (size_t)n * sizeof *h, cudaMemcpyHostToDevice));
  int ok = peer_ok(tp_peer_reduce_sum_f64(stream, d_in, n, d_out, 2, 5, &ms), "reduce");
  if (ok) {
    CUDA_OK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    ok = got == (double)units * 0.25;
    if (!ok)
      printf("  reduce: got %.17g, want %.17g\n", got, (double)units * 0.25);
  }
  report("reduce_f64", n, ok, ms);
  CUDA_OK(cudaFree(d_in));
  CUDA_OK(cudaFree(d_out));
  free(h);
}

static void check_scan(void *stream, int64_t n) {
  int32_t *h = malloc((size_t)n * sizeof *h), *got = malloc((size_t)n * sizeof *h);
  int32_t *d_in, *d_out;
  double ms = 0;
  for (int64_t i = 0; i < n; i++)
    h[i] = (int32_t)((i * 7 + 3) % 11) - 5;
  CUDA_OK(cudaMalloc((void **)&d_in, (size_t)n * sizeof *h));
  CUDA_OK(cudaMalloc((void **)&d_out, (size_t)n * sizeof *h));
  CUDA_OK(cudaMemcpy(d_in, h, (size_t)n * sizeof *h, cudaMemcpyHostToDevice));
  int ok = peer_ok(tp_peer_exclusive_scan_i32(stream, d_in, d_out, n, 2, 5, &ms), "scan");
  if (ok) {
    CUDA_OK(cudaMemcpy(got, d_out, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
    int32_t acc = 0;
    for (int64_t i = 0; i < n && ok; i++) {
      if (got[i] != acc) {
        printf("  scan: [%" PRId64 "] = %" PRId32 ", want %" PRId32 "\n", i, got[i], acc);
        ok = 0;
      }
      acc += h[i];
    }
  }
  report("scan_i32", n, ok, ms);
  CUDA_OK(cudaFree(d_in));
  CUDA_OK(cudaFree(d_out));
  free(h);
  free(got);
}

typedef struct {
  uint64_t key;
  uint32_t value;
} pair;

static int pair_cmp(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->value > y->value) - (x->value < y->value);
}

static void check_sort(void *stream, int64_t n) {
  uint64_t *keys = malloc((size_t)n * sizeof *keys), *d_keys;
  uint32_t *vals = malloc((size_t)n * sizeof *vals), *d_vals;
  pair *ref = malloc((size_t)n * sizeof *ref);
  double ms = 0;
  /* Keys over all 64 bits, with duplicates; values are the input positions, so the
     * stable result equals the (key, value) order. */
  for (int64_t i = 0; i < n; i++) {
    keys[i] = splitmix64((uint64_t)(i % (n / 2 + 1)));
    vals[i] = (uint32_t)i;
    ref[i].key = keys[i];
    ref[i].value = vals[i];
  }
  qsort(ref, (size_t)n, sizeof *ref, pair_cmp);
  CUDA_OK(cudaMalloc((void **)&d_keys, (size_t)n * sizeof *keys));
  CUDA_OK(cudaMalloc((void **)&d_vals, (size_t)n * sizeof *vals));
  CUDA_OK(cudaMemcpy(d_keys, keys, (size_t)n * sizeof *keys, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_vals, vals, (size_t)n * sizeof *vals, cudaMemcpyHostToDevice));
  int ok = peer_ok(tp_peer_sort_pairs_u64_u32(stream, d_keys, d_vals, n, 2, 5, &ms), "sort");
  if (ok) {
    CUDA_OK(cudaMemcpy(keys, d_keys, (size_t)n * sizeof *keys, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(vals, d_vals, (size_t)n * sizeof *vals, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < n && ok; i++) {
      if (keys[i] != ref[i].key || vals[i] != ref[i].value) {
        printf("  sort: [%" PRId64 "] = (%" PRIx64 ", %" PRIu32 "), want (%" PRIx64 ", %" PRIu32
               ")\n",
               i, keys[i], vals[i], ref[i].key, ref[i].value);
        ok = 0;
      }
    }
  }
  report("sort_u64_u32", n, ok, ms);
  CUDA_OK(cudaFree(d_keys));
  CUDA_OK(cudaFree(d_vals));
  free(keys);
  free(vals);
  free(ref);
}

int main(void) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  printf("peer: %s\n", tp_peer_name());
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));

  const int64_t sizes[] = {1, 1000, 1000003};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    check_reduce(stream, sizes[i]);
    check_scan(stream, sizes[i]);
    check_sort(stream, sizes[i]);
  }
  check_reduce(NULL, 4097); /* the default stream */

  /* Bad arguments must fail with a message. */
  double ms;
  if (tp_peer_reduce_sum_f64(stream, NULL, 0, NULL, 0, 0, &ms) == 0 ||
      tp_peer_last_error()[0] == '\0') {
    printf("FAIL bad arguments were accepted\n");
    failures++;
  }

  CUDA_OK(cudaStreamDestroy(stream));
  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
