/* Planted sparse low-rank tensors: a random Kruskal tensor whose factor columns each
 * have `support` nonzero rows, stored exactly on its nonzero pattern.
 *
 * Column r of factor m takes min(support, dims[m]) distinct rows chosen by Floyd's
 * algorithm, with entries uniform in [0.5, 1.5); lambda = 1. The pattern is the union
 * over r of the products of the columns' rows, enumerated and merged; every value is the
 * Kruskal model evaluated at its coordinate (all terms positive, so none vanishes), times
 * 1 + noise * N(0, 1). All draws come from counter-based streams of the seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/dense.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/dense/tp_random_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"

/* Streams of one seed. */
enum { STREAM_NOISE = 4, STREAM_SUPPORT = 64 /* + mode */, STREAM_FACTOR = 96 /* + mode */ };

static tp_status check_args(tp_dtype dtype, int order, const int64_t *dims, int64_t rank,
                            int64_t support, double noise) {
  TP_CHECK_ARG(tpi_coo_dtype_ok(dtype), "dtype %s is not float32 or float64", tp_dtype_name(dtype));
  TP_CHECK_ARG(order >= 2 && order <= TP_COO_MAX_ORDER,
               "order %d is outside [2, %d] (a "
               "planted tensor has at least 2 modes)",
               order, TP_COO_MAX_ORDER);
  TP_CHECK_ARG(dims, "dims is NULL");
  for (int m = 0; m < order; ++m)
    TP_CHECK_ARG(dims[m] >= 1, "dims[%d] = %lld, must be at least 1", m, (long long)dims[m]);
  TP_CHECK_ARG(rank >= 1, "rank %lld, must be at least 1", (long long)rank);
  TP_CHECK_ARG(support >= 1, "support %lld, must be at least 1", (long long)support);
  TP_CHECK_ARG(isfinite(noise) && noise >= 0, "noise %g, must be finite and >= 0", noise);
  return TP_SUCCESS;
}

/* ---- the support of each factor column ------------------------------------------------- */

/* A set of distinct rows, open addressing; slots hold -1 when empty. */
typedef struct row_set {
  int64_t *slots;
  uint64_t mask;
} row_set;

/* Inserts row; returns 0 if it was already there. */
static int set_insert(row_set *s, int64_t row) {
  for (uint64_t h = tpi_rng_mix64((uint64_t)row) & s->mask;; h = (h + 1) & s->mask) {
    if (s->slots[h] == row)
      return 0;
    if (s->slots[h] < 0) {
      s->slots[h] = row;
      return 1;
    }
  }
}

static int compare_rows(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Floyd's algorithm: k distinct rows of [0, dim) for column r, in increasing order. */
static void choose_rows(uint64_t key, int64_t r, int64_t dim, int64_t k, row_set *set,
                        int64_t *rows) {
  memset(set->slots, 0xff, sizeof(int64_t) * (size_t)(set->mask + 1));
  int64_t n = 0;
  for (int64_t j = dim - k; j < dim; ++j) {
    uint64_t bits = tpi_rng_draw(key, (uint64_t)(r * k + n));
    int64_t pick = (int64_t)(bits % (uint64_t)(j + 1));
    if (!set_insert(set, pick)) { /* taken: j itself cannot be, as picks so far are < j */
      set_insert(set, j);
      pick = j;
    }
    rows[n++] = pick;
  }
  qsort(rows, (size_t)k, sizeof(int64_t), compare_rows);
}

/* rows[m] holds rank sorted runs of k[m] rows each. */
static tp_status choose_supports(uint64_t seed, int order, const int64_t *dims, int64_t rank,
                                 const int64_t *k, int64_t **rows) {
  for (int m = 0; m < order; ++m) {
    uint64_t cap = 2;
    while (cap < 2 * (uint64_t)k[m])
      cap *= 2;
    row_set set = {(int64_t *)malloc(sizeof(int64_t) * cap), cap - 1};
    rows[m] = (int64_t *)malloc(sizeof(int64_t) * (size_t)(rank * k[m]));
    if (!set.slots || !rows[m]) {
      free(set.slots);
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the supports of mode %d", m);
    }
    uint64_t key = tpi_rng_stream_key(seed, STREAM_SUPPORT + (uint64_t)m);
    for (int64_t r = 0; r < rank; ++r)
      choose_rows(key, r, dims[m], k[m], &set, rows[m] + r * k[m]);
    free(set.slots);
  }
  return TP_SUCCESS;
}

/* ---- the Kruskal tensor and its pattern --------------------------------------------------- */

static void fill_factors(uint64_t seed, tp_kruskal *u, const int64_t *k, int64_t *const *rows) {
  for (int64_t r = 0; r < u->rank; ++r)
    tpi_dense_store(u->lambda, u->dtype, r, 1.0);
  for (int m = 0; m < u->order; ++m) {
    uint64_t key = tpi_rng_stream_key(seed, STREAM_FACTOR + (uint64_t)m);
    memset(u->factors[m], 0, (size_t)(u->dims[m] * u->rank) * tp_dtype_size(u->dtype));
    for (int64_t r = 0; r < u->rank; ++r)
      for (int64_t j = 0; j < k[m]; ++j) {
        int64_t e = rows[m][r * k[m] + j] * u->rank + r;
        double x = 0.5 + tpi_rng_uniform(tpi_rng_draw(key, (uint64_t)e), u->dtype);
        tpi_dense_store(u->factors[m], u->dtype, e, x);
      }
  }
}

/* Every coordinate of every component's block, in order r, then last mode fastest. */
static void enumerate_blocks(int order, int64_t rank, const int64_t *k, int64_t *const *rows,
                             tp_coo *t) {
  int64_t per_rank = t->nnz / rank, pos = 0;
  for (int64_t r = 0; r < rank; ++r) {
    int64_t c[TP_COO_MAX_ORDER] = {0};
    for (int64_t j = 0; j < per_rank; ++j, ++pos) {
      for (int m = 0; m < order; ++m)
        t->indices[m][pos] = rows[m][r * k[m] + c[m]];
      for (int m = order - 1; m >= 0 && ++c[m] == k[m]; --m)
        c[m] = 0;
    }
  }
}

/* lambda-weighted sum over r of the product of the factors' entries at nonzero p. */
static double model_value(const tp_kruskal *u, const tp_coo *t, int64_t p) {
  double s = 0.0;
  for (int64_t r = 0; r < u->rank; ++r) {
    double x = tpi_dense_load(u->lambda, u->dtype, r);
    for (int m = 0; m < u->order; ++m)
      x *= tpi_dense_load(u->factors[m], u->dtype, t->indices[m][p] * u->rank + r);
    s += x;
  }
  return s;
}

static void evaluate(const tp_kruskal *u, double noise, uint64_t seed, tp_coo *t) {
  uint64_t key = tpi_rng_stream_key(seed, STREAM_NOISE);
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t p = 0; p < t->nnz; ++p) {
    double v = model_value(u, t, p);
    if (noise > 0)
      v *= 1.0 + noise * tpi_rng_normal(key, (uint64_t)p);
    tpi_coo_set_value(t, p, v);
  }
}

/* rank * prod(k) nonzeros before merging, or -1 when that overflows int64. */
static int64_t block_nonzeros(int order, int64_t rank, const int64_t *k) {
  int64_t n = rank;
  for (int m = 0; m < order; ++m) {
    if (n > INT64_MAX / k[m])
      return -1;
    n *= k[m];
  }
  return n;
}

static tp_status build(tp_kruskal *u, int64_t support, double noise, uint64_t seed, tp_coo *host) {
  int64_t k[TP_COO_MAX_ORDER];
  int64_t *rows[TP_COO_MAX_ORDER] = {NULL};
  for (int m = 0; m < u->order; ++m)
    k[m] = support < u->dims[m] ? support : u->dims[m];
  int64_t total = block_nonzeros(u->order, u->rank, k);
  tp_status st = total < 0 ? TP_ERROR(TP_ERROR_OVERFLOW, "rank * support^order overflows int64")
                           : choose_supports(seed, u->order, u->dims, u->rank, k, rows);
  if (st == TP_SUCCESS)
    st = tpi_coo_host_alloc(u->dtype, u->order, u->dims, total, host);
  if (st == TP_SUCCESS) {
    fill_factors(seed, u, k, rows);
    enumerate_blocks(u->order, u->rank, k, rows, host);
    memset(host->values, 0, (size_t)total * tp_dtype_size(u->dtype));
    st = tpi_coo_merge_duplicates(host, NULL);
  }
  if (st == TP_SUCCESS)
    evaluate(u, noise, seed, host);
  for (int m = 0; m < u->order; ++m)
    free(rows[m]);
  return st;
}

tp_status tp_coo_random_planted(tp_dtype dtype, int order, const int64_t *dims, int64_t rank,
                                int64_t support, double noise, uint64_t seed, tp_coo *host,
                                tp_kruskal *truth) {
  if (truth)
    memset(truth, 0, sizeof *truth);
  TP_CHECK_ARG(host, "host is NULL");
  memset(host, 0, sizeof *host);
  TP_TRY(check_args(dtype, order, dims, rank, support, noise));
  tp_kruskal u;
  TP_TRY(tp_kruskal_alloc(NULL, dtype, order, dims, rank, &u));
  tp_status st = build(&u, support, noise, seed, host);
  if (st != TP_SUCCESS) {
    tpi_coo_host_free(host);
    memset(host, 0, sizeof *host);
  }
  if (st == TP_SUCCESS && truth)
    *truth = u;
  else
    tp_kruskal_free(NULL, &u);
  return st;
}
