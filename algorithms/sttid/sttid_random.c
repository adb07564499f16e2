/* Random sparse tensors like those the STTID paper decomposes, with exactly nnz distinct
 * nonzeros:
 *   power law: every index uniform in its mode, values Pareto with scale 1 and shape
 *              alpha, (1 - u)^(-1/alpha) >= 1 (the paper's Rnd tensors);
 *   knowledge: binary facts (relation, entity, entity, ...): the relation uniform, each
 *              entity index floor(u^3 * n), so a few entities take part in most facts.
 *
 * Draw n's coordinate and value come from counter-based streams of the seed
 * (tp_random_internal.h), and draws are taken in order until nnz distinct coordinates
 * are seen: the tensor is the first N draws, N being the smallest count holding nnz
 * distinct coordinates, a repeated coordinate adding its value (power law) or nothing
 * (binary). Indices use only exact arithmetic (u^3 as two products), so the pattern is
 * the same on every platform; Pareto values go through the C library's pow, like
 * tp_coo_random's. A hash set of the coordinates seen finds repeats; draws are capped,
 * so asking for nearly every entry of a tensor whose rare entries almost never come up
 * fails with a message instead of running for ever. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/sttid.h"
#include "portable/tp_error.h"
#include "algorithms/dense/tp_random_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"

/* Streams of one seed (distinct from tp_coo_random's, so the two never share draws). */
enum { STREAM_VALUES = 101, STREAM_INDEX = 128 /* + mode */ };

/* Draws allowed per nonzero asked for, beyond a fixed allowance. Filling every entry of
 * E uniformly takes about E ln E draws, so 64 per nonzero covers any reachable E. */
enum { DRAWS_PER_NONZERO = 64, EXTRA_DRAWS = 1 << 20 };

static const char *kind_name(tp_sttid_random_kind kind) {
  return kind == TP_STTID_RANDOM_POWER_LAW ? "power-law" : "knowledge";
}

/* ---- arguments ------------------------------------------------------------------------- */

/* The number of entries, saturated at INT64_MAX (then any nnz fits). */
static int64_t entries_of(int order, const int64_t *dims) {
  int64_t p = 1;
  for (int m = 0; m < order; ++m)
    p = p > INT64_MAX / dims[m] ? INT64_MAX : p * dims[m];
  return p;
}

static tp_status check_args(tp_sttid_random_kind kind, int order, const int64_t *dims, int64_t nnz,
                            double alpha, const tp_coo *host) {
  TP_CHECK_ARG(host, "STTID generator: the output is NULL");
  TP_CHECK_ARG(kind == TP_STTID_RANDOM_POWER_LAW || kind == TP_STTID_RANDOM_KNOWLEDGE,
               "STTID generator: kind %d is neither power-law (%d) nor knowledge (%d)", (int)kind,
               (int)TP_STTID_RANDOM_POWER_LAW, (int)TP_STTID_RANDOM_KNOWLEDGE);
  int least = kind == TP_STTID_RANDOM_KNOWLEDGE ? 2 : 1;
  TP_CHECK_ARG(order >= least && order <= TP_COO_MAX_ORDER,
               "STTID generator: order %d is outside [%d, %d] for a %s tensor", order, least,
               TP_COO_MAX_ORDER, kind_name(kind));
  TP_CHECK_ARG(dims, "STTID generator: dims is NULL");
  for (int m = 0; m < order; ++m)
    TP_CHECK_ARG(dims[m] >= 1, "STTID generator: dims[%d] = %lld, must be at least 1", m,
                 (long long)dims[m]);
  TP_CHECK_ARG(nnz >= 0, "STTID generator: nnz = %lld is negative", (long long)nnz);
  int64_t entries = entries_of(order, dims);
  TP_CHECK_ARG(nnz <= entries,
               "STTID generator: %lld distinct nonzeros asked of a tensor of "
               "%lld entries",
               (long long)nnz, (long long)entries);
  TP_CHECK_ARG(kind != TP_STTID_RANDOM_POWER_LAW || (isfinite(alpha) && alpha > 0),
               "STTID generator: the Pareto shape alpha = %g, must be finite and positive", alpha);
  return TP_SUCCESS;
}

/* ---- one draw -------------------------------------------------------------------------- */

typedef struct drawer {
  tp_sttid_random_kind kind;
  int order;
  const int64_t *dims;
  double alpha;
  uint64_t value_key, index_key[TP_COO_MAX_ORDER];
} drawer;

static void drawer_init(drawer *g, tp_sttid_random_kind kind, int order, const int64_t *dims,
                        double alpha, uint64_t seed) {
  g->kind = kind, g->order = order, g->dims = dims, g->alpha = alpha;
  g->value_key = tpi_rng_stream_key(seed, STREAM_VALUES);
  for (int m = 0; m < order; ++m)
    g->index_key[m] = tpi_rng_stream_key(seed, STREAM_INDEX + (uint64_t)m);
}

static int64_t draw_index(const drawer *g, int m, int64_t n) {
  double u = tpi_rng_uniform(tpi_rng_draw(g->index_key[m], (uint64_t)n), TP_DTYPE_F64);
  if (g->kind == TP_STTID_RANDOM_KNOWLEDGE && m > 0)
    u = u * u * u; /* entity popularity: index i comes up about as often as i^(-2/3) */
  int64_t i = (int64_t)(u * (double)g->dims[m]);
  return i < g->dims[m] - 1 ? i : g->dims[m] - 1; /* u * dim may round up to dim */
}

static double draw_value(const drawer *g, int64_t n) {
  if (g->kind == TP_STTID_RANDOM_KNOWLEDGE)
    return 1.0;
  double u = tpi_rng_uniform(tpi_rng_draw(g->value_key, (uint64_t)n), TP_DTYPE_F64);
  double v = pow(1.0 - u, -1.0 / g->alpha);
  return v < DBL_MAX ? v : DBL_MAX; /* a tiny alpha reaches past the largest double */
}

/* ---- the set of coordinates seen --------------------------------------------------------- */

/* Open addressing over positions in the tensor being filled; -1 marks a free slot. */
typedef struct coord_set {
  int64_t *slot;
  uint64_t mask;
} coord_set;

static tp_status coord_set_init(coord_set *s, int64_t nnz) {
  uint64_t cap = 16;
  while (cap < 2 * (uint64_t)nnz && cap < ((uint64_t)1 << 62))
    cap *= 2;
  s->mask = cap - 1;
  int fits = cap >= 2 * (uint64_t)nnz && cap <= SIZE_MAX / sizeof(int64_t);
  s->slot = fits ? (int64_t *)malloc(cap * sizeof(int64_t)) : NULL;
  if (!s->slot)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "STTID generator: no memory for a set of %lld "
                    "coordinates",
                    (long long)nnz);
  memset(s->slot, 0xff, cap * sizeof(int64_t));
  return TP_SUCCESS;
}

static uint64_t coord_hash(const tp_coo *t, int64_t e) {
  uint64_t h = 0;
  for (int m = 0; m < t->order; ++m)
    h = tpi_rng_mix64(h ^ ((uint64_t)t->indices[m][e] + (uint64_t)m * TP_RNG_GOLDEN));
  return h;
}

static int same_coord(const tp_coo *t, int64_t a, int64_t b) {
  for (int m = 0; m < t->order; ++m)
    if (t->indices[m][a] != t->indices[m][b])
      return 0;
  return 1;
}

/* The position holding the coordinate of entry e, which is added when new (then e). */
static int64_t coord_set_insert(coord_set *s, const tp_coo *t, int64_t e) {
  for (uint64_t i = coord_hash(t, e) & s->mask;; i = (i + 1) & s->mask) {
    if (s->slot[i] < 0)
      return s->slot[i] = e;
    if (same_coord(t, s->slot[i], e))
      return s->slot[i];
  }
}

/* ---- drawing ----------------------------------------------------------------------------- */

static int64_t draw_limit(int64_t nnz) {
  if (nnz > (INT64_MAX - EXTRA_DRAWS) / DRAWS_PER_NONZERO)
    return INT64_MAX;
  return nnz * DRAWS_PER_NONZERO + EXTRA_DRAWS;
}

/* Draws into t (capacity t->nnz) until it holds t->nnz distinct coordinates. Each draw is
 * written at the first free position and kept there only if its coordinate is new. */
static tp_status draw_distinct(const drawer *g, coord_set *s, tp_coo *t) {
  double *values = (double *)t->values;
  int64_t have = 0, limit = draw_limit(t->nnz), n = 0;
  for (; have < t->nnz && n < limit; ++n) {
    for (int m = 0; m < t->order; ++m)
      t->indices[m][have] = draw_index(g, m, n);
    double v = draw_value(g, n);
    int64_t at = coord_set_insert(s, t, have);
    if (at == have)
      values[have++] = v;
    else if (g->kind == TP_STTID_RANDOM_POWER_LAW)
      values[at] = values[at] + v < DBL_MAX ? values[at] + v : DBL_MAX;
  }
  if (have < t->nnz)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "STTID generator: %lld draws gave only %lld "
                    "distinct coordinates of the %lld asked for; the %s distribution rarely "
                    "reaches the remaining entries (ask for fewer nonzeros)",
                    (long long)n, (long long)have, (long long)t->nnz, kind_name(g->kind));
  return TP_SUCCESS;
}

tp_status tp_sttid_random(tp_sttid_random_kind kind, int order, const int64_t *dims, int64_t nnz,
                          double alpha, uint64_t seed, tp_coo *host) {
  if (host)
    memset(host, 0, sizeof *host);
  TP_TRY(check_args(kind, order, dims, nnz, alpha, host));
  TP_TRY(tp_coo_alloc(NULL, TP_DTYPE_F64, order, dims, nnz, host));
  drawer g;
  drawer_init(&g, kind, order, dims, alpha, seed);
  coord_set s;
  int64_t merged = 0;
  tp_status st = coord_set_init(&s, nnz);
  if (st == TP_SUCCESS) {
    st = draw_distinct(&g, &s, host);
    free(s.slot);
  }
  /* The coordinates are distinct already: this only sorts them. */
  if (st == TP_SUCCESS)
    st = tp_coo_sum_duplicates(host, &merged);
  if (st == TP_SUCCESS && merged != 0)
    st = TP_ERROR(TP_ERROR_INTERNAL,
                  "STTID generator: %lld repeated coordinates slipped "
                  "through",
                  (long long)merged);
  if (st != TP_SUCCESS) {
    tp_coo_free(NULL, host);
    memset(host, 0, sizeof *host);
  }
  return st;
}
