/* ||T - T~|| / ||T|| without densifying either tensor:
 *   ||T - T~||^2 = ||T||^2 - 2 <T, T~> + ||T~||^2.
 *
 * <T, T~> only needs T~ at T's nonzeros. Sorted by index, neighbouring nonzeros share
 * prefixes, and the row vector w_k = w_{k-1} Z_k(:, u_k, :) (Z_k = G_k X_k^{-1}) depends on
 * the prefix (u_0..u_k) alone, so a walk over the sorted nonzeros keeps one vector per
 * level and recomputes only the levels from the first mode that changed: each distinct
 * prefix costs one combination of a slice's core rows and one solve. The nonzeros are
 * cut into a fixed number of chunks (a chunk starts its prefixes afresh) walked in
 * parallel; the chunk count depends only on nnz, and ||T||^2 and <T, T~> are compensated
 * sums added in chunk order, so the result is the same for any thread count.
 *
 * ||T~||^2 is a left-to-right environment contraction: E_{-1} = [1],
 * E_k = sum_u Z_k(:, u, :)^T E_{k-1} Z_k(:, u, :) over the occupied rows of Z_k (each row
 * one solve, pivot rows exact unit vectors), and the last E is ||T~||^2. The equal form
 * X_k^{-T} (sum_u G^T E G) X_k^{-1} is cheaper (sparse slices, 2 r solves) but squares
 * X_k's conditioning: with the tiny last pivots of an exact decomposition it loses every
 * digit, while Z_k stays bounded under complete pivoting. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sttid/tp_prrlu_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "algorithms/sttid/tp_tci_internal.h"

/* ---- T's nonzeros in index order ----------------------------------------------------- */

/* First mode where nonzeros e - 1 and e differ (order when they are equal), and whether
 * e comes after e - 1. */
static int first_difference(const tp_coo *x, int64_t e, int *increasing) {
  for (int m = 0; m < x->order; ++m)
    if (x->indices[m][e] != x->indices[m][e - 1]) {
      *increasing = x->indices[m][e] > x->indices[m][e - 1];
      return m;
    }
  *increasing = 0;
  return x->order;
}

/* Position of the first nonzero that does not come strictly after its predecessor, or
 * nnz. */
static int64_t first_unsorted(const tp_coo *x) {
  for (int64_t e = 1; e < x->nnz; ++e) {
    int increasing;
    first_difference(x, e, &increasing);
    if (!increasing)
      return e;
  }
  return x->nnz;
}

static tp_status sorted_copy(const tp_coo *host, tp_coo *copy) {
  TP_TRY(tpi_coo_host_alloc(TP_DTYPE_F64, host->order, host->dims, host->nnz, copy));
  for (int m = 0; m < host->order; ++m)
    memcpy(copy->indices[m], host->indices[m], (size_t)host->nnz * sizeof(int64_t));
  for (int64_t e = 0; e < host->nnz; ++e)
    ((double *)copy->values)[e] = tpi_coo_value(host, e);
  tp_status st = tpi_coo_sort(copy);
  int64_t e = st == TP_SUCCESS ? first_unsorted(copy) : 0;
  if (st == TP_SUCCESS && e < copy->nnz) { /* sorted, so only a repeat is left */
    char at[TP_COO_COORD_TEXT];
    tpi_coo_format_coordinate(copy, e, at, sizeof at);
    st = TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "tp_tci_error: the tensor repeats the coordinate %s; sum duplicates first "
                  "(tp_coo_sum_duplicates)",
                  at);
  }
  if (st != TP_SUCCESS)
    tpi_coo_host_free(copy);
  return st;
}

/* *view is host itself when it is sorted without repeats, else a sorted copy (*owned). */
static tp_status sorted_view(const tp_coo *host, tp_coo *view, int *owned) {
  *owned = first_unsorted(host) < host->nnz;
  if (!*owned) {
    *view = *host;
    return TP_SUCCESS;
  }
  return sorted_copy(host, view);
}

/* ---- <T, T~> ------------------------------------------------------------------------- */

enum { CHUNK_TARGET = 512, CHUNK_MAX = 4096 };

/* Level k's vector w_k (ranks[k+1] values) starts at work + offset[k]; the scratch of
 * tpi_tci_interpolate (the largest rank) at work + offset[order - 1]. */
typedef struct walk_layout {
  int64_t offset[TP_COO_MAX_ORDER];
  int64_t total;
} walk_layout;

static walk_layout layout_of(const tp_tci *t) {
  walk_layout l;
  int64_t largest = 1;
  l.total = 0;
  for (int k = 0; k + 1 < t->order; ++k) {
    l.offset[k] = l.total, l.total += t->ranks[k + 1];
    largest = t->ranks[k + 1] > largest ? t->ranks[k + 1] : largest;
  }
  l.offset[t->order - 1] = l.total, l.total += largest;
  return l;
}

/* A compensated (Neumaier) sum: ||T||^2 and <T, T~> run over every nonzero, and plain
 * sums of that length would lose digits the floor does not account for. */
typedef struct exact_sum {
  double s, c;
} exact_sum;

static void sum_add(exact_sum *a, double x) {
  double t = a->s + x;
  a->c += fabs(a->s) >= fabs(x) ? (a->s - t) + x : (x - t) + a->s;
  a->s = t;
}

/* Adds chunk [begin, end)'s T^2 and T T~ to sums[0] and sums[1]. */
static void walk_chunk(const tpi_tci_prepared *p, const tp_coo *x, int64_t begin, int64_t end,
                       const walk_layout *l, double *work, exact_sum *sums) {
  const tp_tci *t = p->t;
  const double one = 1;
  int d = t->order;
  for (int64_t e = begin; e < end; ++e) {
    int increasing, m = e == begin ? 0 : first_difference(x, e, &increasing);
    double *scratch = work + l->offset[d - 1], approx, v = tpi_coo_value(x, e);
    for (int k = m; k + 1 < d; ++k)
      tpi_tci_interpolate(p, k, k ? work + l->offset[k - 1] : &one, x->indices[k][e],
                          work + l->offset[k], scratch);
    tpi_tci_interpolate(p, d - 1, work + l->offset[d - 2], x->indices[d - 1][e], &approx, scratch);
    sum_add(&sums[0], v * v);
    sum_add(&sums[1], v * approx);
  }
}

static int64_t chunk_count(int64_t nnz) {
  int64_t chunks = (nnz + CHUNK_TARGET - 1) / CHUNK_TARGET;
  return chunks < 1 ? 1 : chunks > (int64_t)CHUNK_MAX ? (int64_t)CHUNK_MAX : chunks;
}

/* ||T||^2 and <T, T~>, the chunks walked in parallel and their sums added in chunk order
 * (the same result on any thread count). */
static tp_status walk_nonzeros(const tpi_tci_prepared *p, const tp_coo *x, double *norm2,
                               double *inner) {
  walk_layout l = layout_of(p->t);
  int64_t chunks = chunk_count(x->nnz);
  exact_sum *partial = (exact_sum *)calloc(2 * (size_t)chunks, sizeof(exact_sum));
  if (!partial)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "tp_tci_error: no host memory for %lld sums",
                    (long long)chunks);
  int failed = 0;
  TP_HOST_OMP(omp parallel if (x->nnz > CHUNK_TARGET)) {
    double *work = (double *)malloc((size_t)l.total * sizeof(double));
    if (!work) {
      TP_HOST_OMP(omp atomic write)
      failed = 1;
    }
    TP_HOST_OMP(omp for schedule(dynamic, 1))
    for (int64_t c = 0; c < chunks; ++c)
      if (work)
        walk_chunk(p, x, x->nnz * c / chunks, x->nnz * (c + 1) / chunks, &l, work, partial + 2 * c);
    free(work);
  }
  exact_sum total[2];
  memset(total, 0, sizeof total);
  for (int64_t c = 0; c < chunks; ++c)
    for (int j = 0; j < 2; ++j)
      sum_add(&total[j], partial[2 * c + j].s), sum_add(&total[j], partial[2 * c + j].c);
  free(partial);
  if (failed)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "tp_tci_error: no host memory for %lld-value "
                    "walk vectors",
                    (long long)l.total);
  *norm2 = total[0].s + total[0].c;
  *inner = total[1].s + total[1].c;
  return TP_SUCCESS;
}

/* ---- ||T~||^2 ------------------------------------------------------------------------ */

/* One batch of whole slices [s0, s1) of core k: Z's rows, H = E(lefts of the slice, :) Z
 * per slice, and next += Z^T H. Every sum runs in a fixed order, whatever the threads. */
typedef struct env_batch {
  const tpi_tci_prepared *p;
  int k;
  const double *e; /* E_{k-1}, ranks[k]^2 */
  double *next;    /* E_k, ranks[k+1]^2 */
  double *z, *h;   /* the batch's rows x ranks[k+1] each */
} env_batch;

/* H's rows of slice s, whose rows are batch rows [i0, i1) (i - base in z and h). */
static void slice_h(const env_batch *b, int64_t i0, int64_t i1, int64_t base) {
  const tpi_tci_core_rows *rows = &b->p->rows[b->k];
  int64_t rr = b->p->t->ranks[b->k + 1], rl = b->p->t->ranks[b->k];
  for (int64_t i = i0; i < i1; ++i) { /* H(i, :) = sum_j E(left_i, left_j) Z(j, :) */
    double *h = b->h + (i - base) * rr;
    const double *erow = b->e + rows->left[rows->by_slice[i]] * rl;
    memset(h, 0, (size_t)rr * sizeof(double));
    for (int64_t j = i0; j < i1; ++j) {
      double c = erow[rows->left[rows->by_slice[j]]];
      const double *z = b->z + (j - base) * rr;
      if (c != 0)
        for (int64_t x = 0; x < rr; ++x)
          h[x] += c * z[x];
    }
  }
}

static void batch_slices(const env_batch *b, int64_t s0, int64_t s1) {
  const tpi_tci_core_rows *rows = &b->p->rows[b->k];
  int64_t rr = b->p->t->ranks[b->k + 1];
  int64_t base = rows->slice_ptr[s0], count = rows->slice_ptr[s1] - base;
  TP_HOST_OMP(omp parallel for schedule(dynamic, 16) if (count * rr > 4096))
  for (int64_t i = base; i < base + count; ++i)
    tpi_tci_interpolation_row(b->p, b->k, rows->by_slice[i], b->z + (i - base) * rr);
  TP_HOST_OMP(omp parallel for schedule(dynamic, 4) if (count * rr > 4096))
  for (int64_t s = s0; s < s1; ++s)
    slice_h(b, rows->slice_ptr[s], rows->slice_ptr[s + 1], base);
  TP_HOST_OMP(omp parallel for schedule(static) if (count * rr * rr > 65536))
  for (int64_t x = 0; x < rr; ++x) { /* next(x, :) += sum_i Z(i, x) H(i, :) */
    double *out = b->next + x * rr;
    for (int64_t i = 0; i < count; ++i) {
      double c = b->z[i * rr + x];
      const double *h = b->h + i * rr;
      if (c != 0)
        for (int64_t y = 0; y < rr; ++y)
          out[y] += c * h[y];
    }
  }
}

enum { BATCH_VALUES = 1 << 20 };

/* next = sum_u Z_k(:, u, :)^T e Z_k(:, u, :), in batches of whole slices (a slice holds
 * at most ranks[k] rows) of about BATCH_VALUES values. */
static tp_status environment_step(const tpi_tci_prepared *p, int k, const double *e, double *next) {
  const tpi_tci_core_rows *rows = &p->rows[k];
  int64_t rr = p->t->ranks[k + 1], rl = p->t->ranks[k];
  int64_t cap = BATCH_VALUES / rr > rl ? BATCH_VALUES / rr : rl;
  cap = cap < rows->n ? cap : rows->n;
  env_batch b;
  b.p = p, b.k = k, b.e = e, b.next = next;
  b.z = (double *)malloc((size_t)(cap * rr + 1) * sizeof(double));
  b.h = (double *)malloc((size_t)(cap * rr + 1) * sizeof(double));
  tp_status st = TP_SUCCESS;
  if (!b.z || !b.h)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                  "tp_tci_error: no host memory for a %lld x %lld "
                  "batch of core %d",
                  (long long)cap, (long long)rr, k);
  for (int64_t s0 = 0, s1; st == TP_SUCCESS && s0 < rows->slices; s0 = s1) {
    s1 = s0 + 1;
    while (s1 < rows->slices && rows->slice_ptr[s1 + 1] - rows->slice_ptr[s0] <= cap)
      ++s1;
    batch_slices(&b, s0, s1);
  }
  free(b.z), free(b.h);
  return st;
}

/* ||T~||^2: E_k = Z_k^T E_{k-1} Z_k summed over slices, from E_{-1} = [1]; the last
 * environment is 1 x 1. E_k is symmetrised against rounding. */
static tp_status tci_norm2(const tpi_tci_prepared *p, double *norm2) {
  const tp_tci *t = p->t;
  double *e = (double *)calloc(1, sizeof(double));
  tp_status st = e ? TP_SUCCESS : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "tp_tci_error: no memory");
  if (e)
    e[0] = 1;
  for (int k = 0; k < t->order && st == TP_SUCCESS; ++k) {
    int64_t r = t->ranks[k + 1];
    double *next = (double *)calloc((size_t)(r * r), sizeof(double));
    if (!next)
      st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "tp_tci_error: no host memory for a %lld x %lld "
                    "environment",
                    (long long)r, (long long)r);
    else
      st = environment_step(p, k, e, next);
    for (int64_t i = 0; st == TP_SUCCESS && i < r; ++i)
      for (int64_t j = i + 1; j < r; ++j)
        next[i * r + j] = next[j * r + i] = 0.5 * (next[i * r + j] + next[j * r + i]);
    free(e);
    e = next;
  }
  if (st == TP_SUCCESS)
    *norm2 = e[0];
  free(e);
  return st;
}

/* ---- the error ----------------------------------------------------------------------- */

static tp_status check_shapes(const tp_tci *t, const tp_coo *host) {
  TP_CHECK_ARG(host->order == t->order, "tp_tci_error: the tensor has order %d, the TCI %d",
               host->order, t->order);
  for (int m = 0; m < t->order; ++m)
    TP_CHECK_ARG(host->dims[m] == t->dims[m],
                 "tp_tci_error: mode %d has size %lld in the tensor but %lld in the TCI", m,
                 (long long)host->dims[m], (long long)t->dims[m]);
  return TP_SUCCESS;
}

/* The difference of squares cancels: each term carries rounding of about eps times its
 * size (sums over nonzeros and contractions add a modest factor, here 16 per mode), so
 * relative errors below the square root of that are not resolved. */
static void finish(tp_tci_error_info *info, int order) {
  double n2t = info->norm2_tensor, inner = info->inner, n2tt = info->norm2_tci;
  double diff = n2t - 2 * inner + n2tt;
  double scale = n2t + 2 * fabs(inner) + fabs(n2tt);
  info->relative_error = sqrt(diff > 0 ? diff : 0) / sqrt(n2t);
  info->floor = sqrt(16.0 * order * DBL_EPSILON * scale) / sqrt(n2t);
  info->at_floor = info->relative_error < info->floor;
  if (info->at_floor)
    info->relative_error = info->floor;
}

static tp_status error_terms(const tp_tci *t, const tp_coo *host, tp_tci_error_info *info) {
  tpi_tci_prepared p;
  TP_TRY(tpi_tci_prepare(t, &p));
  tp_coo view;
  int owned = 0;
  tp_status st = sorted_view(host, &view, &owned);
  if (st == TP_SUCCESS)
    st = walk_nonzeros(&p, &view, &info->norm2_tensor, &info->inner);
  if (st == TP_SUCCESS)
    st = tci_norm2(&p, &info->norm2_tci);
  if (owned)
    tpi_coo_host_free(&view);
  tpi_tci_prepared_free(&p);
  return st;
}

tp_status tp_tci_error(const tp_tci *t, const tp_coo *host, tp_tci_error_info *info) {
  double start = tp_wall_seconds();
  TP_CHECK_ARG(info, "tp_tci_error: info is NULL");
  memset(info, 0, sizeof *info);
  TP_TRY(tpi_tci_check(t));
  TP_TRY(tp_coo_validate(host));
  TP_TRY(check_shapes(t, host));
  int64_t e = 0;
  while (e < host->nnz && tpi_coo_value(host, e) == 0)
    ++e;
  TP_CHECK_ARG(e < host->nnz, "tp_tci_error: the tensor has no nonzero value, so the "
                              "relative error is undefined");
  tp_tci_error_info local;
  memset(&local, 0, sizeof local);
  TP_TRY(error_terms(t, host, &local));
  TP_CHECK_ARG(local.norm2_tensor > 0 && isfinite(local.norm2_tensor),
               "tp_tci_error: ||T||^2 = %g, so the relative error is undefined",
               local.norm2_tensor);
  if (!isfinite(local.inner) || !isfinite(local.norm2_tci))
    return TP_ERROR(TP_ERROR_NUMERICAL,
                    "tp_tci_error: <T, T~> = %g and ||T~||^2 = %g are "
                    "not both finite (an ill-conditioned cross?)",
                    local.inner, local.norm2_tci);
  finish(&local, t->order);
  local.seconds = tp_wall_seconds() - start;
  *info = local;
  return TP_SUCCESS;
}
