/* tp-bench-gemm-shapes: FP64 GEMM rate of tp_gemm_batched_f64 (cuBLAS, BLIS or the
 * portable kernel) over a grid of shapes, to see which block shapes the BLOCKED MTTKRP
 * should form within its workspace budget.
 *
 * Every (transA, n, m, k, batch) of the grid with (m + k) * n * batch <= --max-elems
 * (0: no limit) is timed: median of --reps after --warmup (GPU events on GPUs),
 * C = op(A) B with beta = 0, row-major as in tenport's engine; A is m x k (N) or k x m
 * (T), B is k x n. Rate = 2 m n k batch / t. Operands hold uniform random values.
 * --lda-extra E adds E to A's leading dimension and --offset O starts A O elements in, as
 * when A is a block of a tensor whose sizes are odd (misaligned rows).
 *
 * Usage: tp-bench-gemm-shapes [--m LIST] [--n LIST] [--k LIST] [--batch LIST]
 *          [--trans N,T] [--max-elems E] [--lda-extra E] [--offset O] [--reps 5]
 *          [--warmup 2] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/micro/micro.h"
#include "tenport/tenport.h"

enum { MAX_LIST = 32 };

typedef struct int_list {
  int64_t v[MAX_LIST];
  int n;
} int_list;

typedef struct shape_ctx {
  tp_space *space;
  tp_transpose ta;
  int64_t m, n, k, batch, lda_extra;
  const double *A, *B;
  double *C;
} shape_ctx;

static int parse_list(const char *s, int_list *out) {
  return micro_parse_i64_list(s, ',', out->v, MAX_LIST, &out->n);
}

static int64_t list_max(const int_list *l) {
  int64_t m = 0;
  for (int i = 0; i < l->n; ++i)
    m = l->v[i] > m ? l->v[i] : m;
  return m;
}

static tp_status run_gemm(void *p) {
  shape_ctx *c = (shape_ctx *)p;
  const int64_t lda = (c->ta == TP_NO_TRANS ? c->k : c->m) + c->lda_extra;
  const int64_t a_stride = lda * (c->ta == TP_NO_TRANS ? c->m : c->k);
  return tp_gemm_batched_f64(c->space, c->ta, TP_NO_TRANS, c->m, c->n, c->k, 1.0, c->A, lda,
                             a_stride, c->B, c->n, c->k * c->n, 0.0, c->C, c->n, c->m * c->n,
                             c->batch);
}

static tp_status fill_random(tp_space *space, double *dst, int64_t n) {
  double *h = (double *)malloc(sizeof(double) * (size_t)n);
  if (!h)
    return TP_ERROR_OUT_OF_MEMORY;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    h[i] = (double)(x >> 11) * 0x1.0p-53;
  }
  tp_status st = tp_copy_to_device(space, dst, h, sizeof(double) * (size_t)n);
  free(h);
  return st;
}

static void usage(void) {
  fprintf(stderr, "usage: tp-bench-gemm-shapes [--m LIST] [--n LIST] [--k LIST] [--batch LIST]\n"
                  "         [--trans N,T] [--max-elems E] [--lda-extra E] [--offset O]\n"
                  "         [--reps R] [--warmup W]\n");
}

int main(int argc, char **argv) {
  int_list M, N, K, B;
  parse_list("1024,2048,4096", &M);
  parse_list("2000", &N);
  parse_list("1024,2048", &K);
  parse_list("1", &B);
  int trans_n = 1, trans_t = 1, reps = 5, warmup = 2;
  long long max_elems = 0, lda_extra = 0, offset = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = v != NULL;
    if (ok && strcmp(a, "--m") == 0)
      ok = parse_list(v, &M);
    else if (ok && strcmp(a, "--n") == 0)
      ok = parse_list(v, &N);
    else if (ok && strcmp(a, "--k") == 0)
      ok = parse_list(v, &K);
    else if (ok && strcmp(a, "--batch") == 0)
      ok = parse_list(v, &B);
    else if (ok && strcmp(a, "--trans") == 0)
      trans_n = strchr(v, 'N') != NULL, trans_t = strchr(v, 'T') != NULL;
    else if (ok && strcmp(a, "--max-elems") == 0)
      max_elems = atoll(v);
    else if (ok && strcmp(a, "--lda-extra") == 0)
      lda_extra = atoll(v);
    else if (ok && strcmp(a, "--offset") == 0)
      offset = atoll(v);
    else if (ok && strcmp(a, "--reps") == 0)
      reps = atoi(v);
    else if (ok && strcmp(a, "--warmup") == 0)
      warmup = atoi(v);
    else
      ok = 0;
    if (!ok) {
      usage();
      return 2;
    }
    ++i;
  }
  tp_space *space = NULL;
  if (tp_space_create(&space, NULL) != TP_SUCCESS) {
    fprintf(stderr, "tp-bench-gemm-shapes: %s\n", tp_last_error());
    return 1;
  }
  const int64_t mm = list_max(&M), nn = list_max(&N), kk = list_max(&K), bb = list_max(&B);
  double *A = NULL, *Bm = NULL, *C = NULL;
  const int64_t a_elems = (mm + lda_extra) * (kk + lda_extra) * bb + offset;
  tp_status st = tp_alloc(space, sizeof(double) * (size_t)a_elems, (void **)&A);
  if (st == TP_SUCCESS)
    st = tp_alloc(space, sizeof(double) * (size_t)(kk * nn * bb), (void **)&Bm);
  if (st == TP_SUCCESS)
    st = tp_alloc(space, sizeof(double) * (size_t)(mm * nn * bb), (void **)&C);
  if (st == TP_SUCCESS)
    st = fill_random(space, A, a_elems);
  if (st == TP_SUCCESS)
    st = fill_random(space, Bm, kk * nn * bb);
  printf("# GEMM provider %s, backend %s; rate = 2 m n k batch / t; A's leading dimension "
         "+%lld, offset %lld\n",
         tp_gemm_provider(), tp_backend_name(), lda_extra, offset);
  printf("%-2s %6s %6s %6s %5s %10s %10s\n", "op", "n", "m", "k", "batch", "ms", "GFLOP/s");
  for (int t = 0; st == TP_SUCCESS && t < 2; ++t) {
    if ((t == 0 && !trans_n) || (t == 1 && !trans_t))
      continue;
    for (int in = 0; st == TP_SUCCESS && in < N.n; ++in)
      for (int im = 0; st == TP_SUCCESS && im < M.n; ++im)
        for (int ik = 0; st == TP_SUCCESS && ik < K.n; ++ik)
          for (int ib = 0; st == TP_SUCCESS && ib < B.n; ++ib) {
            shape_ctx c = {space,     t ? TP_TRANS : TP_NO_TRANS,
                           M.v[im],   N.v[in],
                           K.v[ik],   B.v[ib],
                           lda_extra, A + offset,
                           Bm,        C};
            if (max_elems && (c.m + c.k) * c.n * c.batch > max_elems)
              continue;
            double ms = 0;
            st = micro_time(space, NULL, run_gemm, &c, warmup, reps, &ms);
            if (st == TP_SUCCESS)
              printf("%-2s %6lld %6lld %6lld %5lld %10.4f %10.1f\n", t ? "T" : "N", (long long)c.n,
                     (long long)c.m, (long long)c.k, (long long)c.batch, ms,
                     2.0 * c.m * c.n * c.k * c.batch / (ms * 1e6));
          }
  }
  if (st != TP_SUCCESS)
    fprintf(stderr, "tp-bench-gemm-shapes: %s\n", tp_last_error());
  tp_free(space, C);
  tp_free(space, Bm);
  tp_free(space, A);
  tp_space_destroy(&space);
  return st == TP_SUCCESS ? 0 : 1;
}
