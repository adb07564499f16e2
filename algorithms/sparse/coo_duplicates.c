/* Merging the nonzeros of equal coordinates: sort, then sum each run of equal
 * coordinates into its first nonzero. Sums are taken in double precision in the original
 * order of the nonzeros (the sort is stable), so the result is deterministic. */
#include "tenport/sparse.h"
#include "tp_error.h"
#include "tp_sparse_internal.h"

static int same_coordinate(const tp_coo *t, int64_t a, int64_t b) {
  for (int m = 0; m < t->order; ++m)
    if (t->indices[m][a] != t->indices[m][b])
      return 0;
  return 1;
}

/* Sums the runs of a sorted tensor into its first nonzeros; returns how many remain. */
static int64_t sum_runs(tp_coo *t) {
  if (t->nnz == 0)
    return 0;
  int64_t out = 0;
  double sum = tp_coo_value(t, 0);
  for (int64_t k = 1; k < t->nnz; ++k) {
    if (same_coordinate(t, k, out)) {
      sum += tp_coo_value(t, k);
      continue;
    }
    tp_coo_set_value(t, out, sum);
    ++out;
    for (int m = 0; m < t->order; ++m)
      t->indices[m][out] = t->indices[m][k];
    sum = tp_coo_value(t, k);
  }
  tp_coo_set_value(t, out, sum);
  return out + 1;
}

static int strictly_increasing(const tp_coo *t) {
  for (int64_t k = 1; k < t->nnz; ++k) {
    int m = 0;
    while (m < t->order && t->indices[m][k - 1] == t->indices[m][k])
      ++m;
    if (m == t->order || t->indices[m][k - 1] > t->indices[m][k])
      return 0;
  }
  return 1;
}

tp_status tp_coo_merge_duplicates(tp_coo *host, int64_t *merged) {
  if (merged)
    *merged = 0;
  if (strictly_increasing(host))
    return TP_SUCCESS;
  TP_TRY(tp_coo_sort(host));
  int64_t kept = sum_runs(host);
  if (merged)
    *merged = host->nnz - kept;
  host->nnz = kept;
  return TP_SUCCESS;
}

tp_status tp_coo_sum_duplicates(tp_coo *host, int64_t *merged) {
  if (merged)
    *merged = 0;
  TP_TRY(tp_coo_check_arrays(host));
  TP_TRY(tp_coo_check_indices(host));
  return tp_coo_merge_duplicates(host, merged);
}
