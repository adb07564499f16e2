/* Merging the nonzeros of equal coordinates: sort, then sum each run of equal
 * coordinates into its first nonzero. Sums are taken in double precision in the original
 * order of the nonzeros (the sort is stable), so the result is deterministic.
 *
 * Every step runs on all host cores and gives the same result for any thread count: the
 * order check and the merge work in fixed blocks; a run belongs to the block holding its
 * first nonzero (and is summed there, in order, even past the block's end); the merged
 * nonzeros are written to new arrays at their rank among the runs, then copied back. */
#include <stdlib.h>
#include <string.h>

#include "tenport/sparse.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { MERGE_BLOCK = 1 << 16 };

static int same_coordinate(const tp_coo *t, int64_t a, int64_t b) {
  for (int m = 0; m < t->order; ++m)
    if (t->indices[m][a] != t->indices[m][b])
      return 0;
  return 1;
}

static int64_t block_count(int64_t n) { return (n + MERGE_BLOCK - 1) / MERGE_BLOCK; }

static int64_t block_end(int64_t n, int64_t b) {
  return (b + 1) * MERGE_BLOCK < n ? (b + 1) * MERGE_BLOCK : n;
}

/* Runs starting in each block (heads: nonzeros whose coordinate differs from the one
 * before), then their exclusive prefix sums; returns the total. */
static int64_t count_heads(const tp_coo *t, int64_t *first) {
  const int64_t blocks = block_count(t->nnz);
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t heads = 0;
    for (int64_t k = b * MERGE_BLOCK; k < block_end(t->nnz, b); ++k)
      heads += k == 0 || !same_coordinate(t, k - 1, k);
    first[b] = heads;
  }
  int64_t total = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t h = first[b];
    first[b] = total;
    total += h;
  }
  return total;
}

/* The merged tensor's arrays, kept entries each. */
static tp_status alloc_merged(const tp_coo *t, int64_t kept, tp_coo *out) {
  return tpi_coo_host_alloc(t->dtype, t->order, t->dims, kept, out);
}

/* Each block's runs, summed in order, to their ranks in out. */
static void sum_runs_into(const tp_coo *t, const int64_t *first, tp_coo *out) {
  const int64_t blocks = block_count(t->nnz);
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t r = first[b];
    for (int64_t k = b * MERGE_BLOCK; k < block_end(t->nnz, b); ++k) {
      if (k > 0 && same_coordinate(t, k - 1, k))
        continue; /* summed with its run's head */
      double sum = tpi_coo_value(t, k);
      for (int64_t j = k + 1; j < t->nnz && same_coordinate(t, k, j); ++j)
        sum += tpi_coo_value(t, j);
      for (int m = 0; m < t->order; ++m)
        out->indices[m][r] = t->indices[m][k];
      tpi_coo_set_value(out, r++, sum);
    }
  }
}

/* out's arrays back into t's, on every core. */
static void copy_back(const tp_coo *out, tp_coo *t) {
  const int64_t blocks = block_count(out->nnz);
  const size_t vb = tp_dtype_size(t->dtype);
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t k0 = b * MERGE_BLOCK, n = block_end(out->nnz, b) - k0;
    for (int m = 0; m < t->order; ++m)
      memcpy(t->indices[m] + k0, out->indices[m] + k0, sizeof(int64_t) * (size_t)n);
    memcpy((char *)t->values + (size_t)k0 * vb, (const char *)out->values + (size_t)k0 * vb,
           vb * (size_t)n);
  }
}

/* Sums the runs of a sorted tensor into its first nonzeros; *kept: how many remain. */
static tp_status sum_runs(tp_coo *t, int64_t *kept) {
  *kept = t->nnz;
  if (t->nnz == 0)
    return TP_SUCCESS;
  int64_t *first = (int64_t *)malloc(sizeof(int64_t) * (size_t)block_count(t->nnz));
  if (!first)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the merge's block counts");
  *kept = count_heads(t, first);
  tp_coo out;
  tp_status st = alloc_merged(t, *kept, &out);
  if (st == TP_SUCCESS) {
    sum_runs_into(t, first, &out);
    copy_back(&out, t);
    tpi_coo_host_free(&out);
  }
  free(first);
  return st;
}

static int strictly_increasing(const tp_coo *t) {
  int bad = 0;
  TP_HOST_OMP(omp parallel for schedule(static) reduction(| : bad))
  for (int64_t k = 1; k < t->nnz; ++k) {
    int m = 0;
    while (m < t->order && t->indices[m][k - 1] == t->indices[m][k])
      ++m;
    bad |= m == t->order || t->indices[m][k - 1] > t->indices[m][k];
  }
  return !bad;
}

tp_status tpi_coo_merge_duplicates(tp_coo *host, int64_t *merged) {
  if (merged)
    *merged = 0;
  if (strictly_increasing(host))
    return TP_SUCCESS;
  TP_TRY(tpi_coo_sort(host));
  int64_t kept = 0;
  TP_TRY(sum_runs(host, &kept));
  if (merged)
    *merged = host->nnz - kept;
  host->nnz = kept;
  return TP_SUCCESS;
}

tp_status tp_coo_sum_duplicates(tp_coo *host, int64_t *merged) {
  if (merged)
    *merged = 0;
  TP_TRY(tpi_coo_check_arrays(host));
  TP_TRY(tpi_coo_check_indices(host));
  return tpi_coo_merge_duplicates(host, merged);
}

tp_status tpi_coo_merged_copy(const tp_coo *host, tp_coo *copy) {
  TP_TRY(tp_coo_alloc(NULL, host->dtype, host->order, host->dims, host->nnz, copy));
  for (int m = 0; m < host->order; ++m)
    memcpy(copy->indices[m], host->indices[m], sizeof(int64_t) * (size_t)host->nnz);
  memcpy(copy->values, host->values, tp_dtype_size(host->dtype) * (size_t)host->nnz);
  tp_status st = tp_coo_sum_duplicates(copy, NULL);
  if (st != TP_SUCCESS)
    tp_coo_free(NULL, copy);
  return st;
}
