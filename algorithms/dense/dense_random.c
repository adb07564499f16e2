/* Reproducible random dense and Kruskal tensors on the host.
 *
 * Values come from tenport's counter-based generator (tp_random_internal.h). Each tensor
 * element draws from its number in first-index-fastest order, so the results depend
 * neither on the thread count nor on the layout (both layouts hold the same logical
 * tensor). Uniform values are exact in every precision and identical on every platform;
 * normal values go through the C library's log and cos. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/dense.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/dense/tp_random_internal.h"

/* Streams of one seed. */
enum { STREAM_UNIFORM = 1, STREAM_NOISE = 2, STREAM_FACTOR = TP_RNG_STREAM_FACTOR };

/* Fibers are dealt out in this many chunks at most, whatever the thread count. */
#define MAX_CHUNKS ((int64_t)1024)

/* ---- walking fibers in chunks ------------------------------------------------------- */

/* How a tensor's fibers are dealt out: chunk c covers fibers [first(c), first(c + 1)). */
typedef struct fiber_plan {
  int fast;       /* the fast mode */
  int64_t len;    /* elements per fiber */
  int64_t fibers; /* number of fibers */
  int64_t chunks;
  int64_t step; /* first-index-fastest stride of the fast mode */
} fiber_plan;

static fiber_plan plan_fibers(const tp_dense *t) {
  fiber_plan p;
  p.fast = tpi_dense_fast_mode(t);
  p.len = t->dims[p.fast];
  p.fibers = tp_dense_count(t) / p.len;
  p.chunks = p.fibers < MAX_CHUNKS ? p.fibers : MAX_CHUNKS;
  p.step = 1;
  for (int k = 0; k < p.fast; ++k)
    p.step *= t->dims[k];
  return p;
}

static int64_t chunk_first(const fiber_plan *p, int64_t c) {
  int64_t q = p->fibers / p->chunks, r = p->fibers % p->chunks;
  return c * q + (c < r ? c : r);
}

static tp_status check_host(const tp_dense *host) {
  TP_TRY(tp_dense_check(host));
  TP_CHECK_ARG(host->data, "the tensor's data is NULL");
  return TP_SUCCESS;
}

/* ---- uniform tensors ------------------------------------------------------------------ */

static void uniform_chunk(tp_dense *t, const fiber_plan *p, uint64_t key, int64_t c) {
  int64_t idx[TP_DENSE_MAX_ORDER], end = chunk_first(p, c + 1);
  tpi_dense_unravel(t, chunk_first(p, c) * p->len, idx);
  for (int64_t j = chunk_first(p, c); j < end; ++j, tpi_dense_next_fiber(t, idx)) {
    int64_t n = tpi_dense_left_offset(t, idx);
    for (int64_t i = 0; i < p->len; ++i, n += p->step)
      tpi_dense_store(t->data, t->dtype, j * p->len + i,
                      tpi_rng_uniform(tpi_rng_draw(key, (uint64_t)n), t->dtype));
  }
}

tp_status tp_dense_random_uniform(tp_dense *host, uint64_t seed) {
  TP_TRY(check_host(host));
  fiber_plan p = plan_fibers(host);
  uint64_t key = tpi_rng_stream_key(seed, STREAM_UNIFORM);
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1))
  for (int64_t c = 0; c < p.chunks; ++c)
    uniform_chunk(host, &p, key, c);
  return TP_SUCCESS;
}

/* ---- Kruskal tensors ------------------------------------------------------------------- */

void tpi_kruskal_random_rows(tp_dtype dtype, uint64_t seed, int mode, int64_t first_row,
                             int64_t rows, int64_t rank, void *out) {
  uint64_t key = tpi_rng_stream_key(seed, STREAM_FACTOR + (uint64_t)mode);
  int64_t first = first_row * rank, n = rows * rank;
  for (int64_t e = 0; e < n; ++e)
    tpi_dense_store(out, dtype, e,
                    tpi_rng_uniform(tpi_rng_draw(key, (uint64_t)(first + e)), dtype));
}

tp_status tp_kruskal_random(tp_kruskal *host, uint64_t seed) {
  TP_TRY(tp_kruskal_check(host));
  TP_CHECK_ARG(host->lambda, "lambda is NULL");
  for (int k = 0; k < host->order; ++k)
    TP_CHECK_ARG(host->factors[k], "factors[%d] is NULL", k);
  for (int64_t r = 0; r < host->rank; ++r)
    tpi_dense_store(host->lambda, host->dtype, r, 1.0);
  for (int k = 0; k < host->order; ++k)
    tpi_kruskal_random_rows(host->dtype, seed, k, 0, host->dims[k], host->rank, host->factors[k]);
  return TP_SUCCESS;
}

/* ||M||_F^2 = sum_{r,s} lambda_r lambda_s prod_k <U_k[:, r], U_k[:, s]>, from the factors
 * alone, so the noise scale is known before the tensor is formed. */
static double kruskal_norm2(const tp_kruskal *u) {
  double total = 0.0;
  for (int64_t r = 0; r < u->rank; ++r)
    for (int64_t s = 0; s < u->rank; ++s) {
      double prod = tpi_dense_load(u->lambda, u->dtype, r) * tpi_dense_load(u->lambda, u->dtype, s);
      for (int k = 0; k < u->order; ++k) {
        double dot = 0.0;
        for (int64_t i = 0; i < u->dims[k]; ++i)
          dot += tpi_dense_load(u->factors[k], u->dtype, i * u->rank + r) *
                 tpi_dense_load(u->factors[k], u->dtype, i * u->rank + s);
        prod *= dot;
      }
      total += prod;
    }
  return total;
}

/* ---- planted low-rank tensors ---------------------------------------------------------- */

/* Where a block lies in the whole tensor M of u's dims: its first index in every mode,
 * and the whole tensor's first-index-fastest stride of the block's fast mode, so that
 * an element's noise is the whole tensor's. */
typedef struct block_place {
  const int64_t *first;
  int64_t step;
} block_place;

static int64_t whole_left_offset(const tp_kruskal *u, const int64_t *g) {
  int64_t off = 0;
  for (int k = u->order - 1; k >= 0; --k)
    off = off * u->dims[k] + g[k];
  return off;
}

/* Writes M + sigma * noise over chunk c of the block t; 0 when the scratch row cannot be
 * allocated. */
static int planted_chunk(tp_dense *t, const tp_kruskal *u, const fiber_plan *p,
                         const block_place *b, double sigma, uint64_t key, int64_t c) {
  double *partial = (double *)malloc(sizeof(double) * (size_t)u->rank);
  if (!partial)
    return 0;
  int64_t idx[TP_DENSE_MAX_ORDER], g[TP_DENSE_MAX_ORDER], end = chunk_first(p, c + 1);
  tpi_dense_unravel(t, chunk_first(p, c) * p->len, idx);
  for (int64_t j = chunk_first(p, c); j < end; ++j, tpi_dense_next_fiber(t, idx)) {
    for (int k = 0; k < t->order; ++k)
      g[k] = b->first[k] + idx[k];
    tpi_kruskal_partial(u, g, p->fast, -1, 1, partial);
    int64_t n = whole_left_offset(u, g);
    for (int64_t i = 0; i < p->len; ++i, n += b->step) {
      double v = tpi_kruskal_fiber_value(u, p->fast, partial, g[p->fast] + i);
      if (sigma > 0.0)
        v += sigma * tpi_rng_normal(key, (uint64_t)n);
      tpi_dense_store(t->data, t->dtype, j * p->len + i, v);
    }
  }
  free(partial);
  return 1;
}

/* The block at first of the planted tensor of u (the whole one when first is zeros). */
static tp_status fill_planted(tp_dense *host, const int64_t *first, const tp_kruskal *u,
                              double noise, uint64_t seed) {
  fiber_plan p = plan_fibers(host);
  double n = 1.0;
  block_place b = {first, 1};
  for (int k = 0; k < u->order; ++k) {
    n *= (double)u->dims[k];
    b.step *= k < p.fast ? u->dims[k] : 1;
  }
  double sigma = noise > 0.0 ? noise * sqrt(kruskal_norm2(u) / n) : 0.0;
  uint64_t key = tpi_rng_stream_key(seed, STREAM_NOISE);
  int failed = 0;
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1))
  for (int64_t c = 0; c < p.chunks; ++c)
    if (!planted_chunk(host, u, &p, &b, sigma, key, c)) {
      TP_HOST_OMP(omp atomic write)
      failed = 1;
    }
  if (failed)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %lld doubles of scratch",
                    (long long)u->rank);
  return TP_SUCCESS;
}

tp_status tp_dense_random_planted(tp_dense *host, int64_t rank, double noise, uint64_t seed,
                                  tp_kruskal *truth) {
  if (truth)
    memset(truth, 0, sizeof *truth);
  TP_TRY(check_host(host));
  TP_CHECK_ARG(rank >= 1, "rank %lld, must be at least 1", (long long)rank);
  TP_CHECK_ARG(isfinite(noise) && noise >= 0.0, "noise %g, must be finite and >= 0", noise);
  tp_kruskal u;
  TP_TRY(tp_kruskal_alloc(NULL, host->dtype, host->order, host->dims, rank, &u));
  tp_status st = tp_kruskal_random(&u, tpi_rng_planted_seed(seed));
  const int64_t zeros[TP_DENSE_MAX_ORDER] = {0};
  if (st == TP_SUCCESS)
    st = fill_planted(host, zeros, &u, noise, seed);
  if (st == TP_SUCCESS && truth)
    *truth = u;
  else
    tp_kruskal_free(NULL, &u);
  return st;
}

tp_status tpi_dense_random_planted_block(tp_dense *block, const int64_t *first,
                                         const tp_kruskal *truth, double noise, uint64_t seed) {
  TP_TRY(check_host(block));
  TP_TRY(tp_kruskal_check(truth));
  TP_CHECK_ARG(first, "first is NULL");
  TP_CHECK_ARG(block->order == truth->order && block->dtype == truth->dtype,
               "the block and the truth differ in order or dtype");
  for (int k = 0; k < block->order; ++k)
    TP_CHECK_ARG(first[k] >= 0 && first[k] + block->dims[k] <= truth->dims[k],
                 "mode %d: rows "
                 "%lld..%lld are outside the tensor's %lld",
                 k, (long long)first[k], (long long)(first[k] + block->dims[k]),
                 (long long)truth->dims[k]);
  TP_CHECK_ARG(isfinite(noise) && noise >= 0.0, "noise %g, must be finite and >= 0", noise);
  return fill_planted(block, first, truth, noise, seed);
}
