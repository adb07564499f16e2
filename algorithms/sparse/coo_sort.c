/* Sorting a host COO tensor by coordinate (mode 0 slowest), stably and in place.
 *
 * A coordinate is linearised into one uint64 key (i0 * d1 + i1) * d2 + ... when
 * prod(dims) fits in 64 bits, and a permutation is radix-sorted by that key. When it does
 * not fit, the modes are cut into groups whose keys fit, and the permutation is sorted by
 * the least significant group first, then by each more significant one: each pass is a
 * stable sort, so the result is the lexicographic order. Sorting a sorted tensor is a
 * single check. */
#include <stdlib.h>
#include <string.h>

#include "tp_error.h"
#include "tp_host_omp.h"
#include "tp_sparse_internal.h"

/* Modes [first, last) linearised into keys of at most `bits` bits. */
typedef struct key_group {
  int first, last, bits;
} key_group;

static int bit_width(uint64_t x) {
  int bits = 0;
  for (; x; x >>= 1)
    ++bits;
  return bits;
}

/* Cuts the modes into as few groups as fit in uint64 keys, from the last mode back;
 * groups[0] holds mode 0. Returns the number of groups. */
static int plan_groups(const tp_coo *t, key_group *groups) {
  key_group rev[TP_COO_MAX_ORDER];
  int count = 0;
  for (int last = t->order; last > 0; ++count) {
    int first = last - 1;
    uint64_t max_key = (uint64_t)(t->dims[first] - 1);
    while (first > 0) {
      uint64_t d = (uint64_t)t->dims[first - 1];
      /* max_key' = max_key + (d - 1) * (max_key + 1), the key of the last coordinate */
      if (d > 1 && (max_key == UINT64_MAX || max_key + 1 > (UINT64_MAX - max_key) / (d - 1)))
        break;
      max_key += (d - 1) * (max_key + 1);
      --first;
    }
    rev[count].first = first, rev[count].last = last, rev[count].bits = bit_width(max_key);
    last = first;
  }
  for (int g = 0; g < count; ++g)
    groups[g] = rev[count - 1 - g];
  return count;
}

static void group_keys(const tp_coo *t, const key_group *g, const int64_t *perm,
                       uint64_t *keys) {
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t k = 0; k < t->nnz; ++k) {
    int64_t p = perm[k];
    uint64_t key = 0;
    for (int m = g->first; m < g->last; ++m)
      key = key * (uint64_t)t->dims[m] + (uint64_t)t->indices[m][p];
    keys[k] = key;
  }
}

/* -1, 0 or 1 as nonzero a's coordinate is before, equal to or after b's. */
static int compare_coordinates(const tp_coo *t, int64_t a, int64_t b) {
  for (int m = 0; m < t->order; ++m)
    if (t->indices[m][a] != t->indices[m][b])
      return t->indices[m][a] < t->indices[m][b] ? -1 : 1;
  return 0;
}

static int is_sorted(const tp_coo *t) {
  for (int64_t k = 1; k < t->nnz; ++k)
    if (compare_coordinates(t, k - 1, k) > 0)
      return 0;
  return 1;
}

/* Reorders the tensor's arrays so that nonzero k becomes old nonzero perm[k]; scratch
 * holds nnz 8-byte words. */
static void apply_permutation(tp_coo *t, const int64_t *perm, void *scratch) {
  int64_t *idx_tmp = (int64_t *)scratch;
  for (int m = 0; m < t->order; ++m) {
    const int64_t *idx = t->indices[m];
    TP_HOST_OMP(omp parallel for schedule(static))
    for (int64_t k = 0; k < t->nnz; ++k)
      idx_tmp[k] = idx[perm[k]];
    memcpy(t->indices[m], idx_tmp, sizeof(int64_t) * (size_t)t->nnz);
  }
  size_t size = tp_dtype_size(t->dtype);
  const char *values = (const char *)t->values;
  char *val_tmp = (char *)scratch;
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t k = 0; k < t->nnz; ++k)
    memcpy(val_tmp + (size_t)k * size, values + (size_t)perm[k] * size, size);
  memcpy(t->values, val_tmp, size * (size_t)t->nnz);
}

/* perm sorted by coordinate, through the groups from least to most significant. */
static tp_status sort_permutation(const tp_coo *t, int64_t *perm, int64_t *perm_tmp,
                                  uint64_t *keys, uint64_t *keys_tmp) {
  key_group groups[TP_COO_MAX_ORDER];
  int count = plan_groups(t, groups);
  for (int64_t k = 0; k < t->nnz; ++k)
    perm[k] = k;
  for (int g = count - 1; g >= 0; --g) {
    group_keys(t, &groups[g], perm, keys);
    TP_TRY(tp_radix_sort_u64(keys, perm, keys_tmp, perm_tmp, t->nnz, groups[g].bits));
  }
  return TP_SUCCESS;
}

tp_status tp_coo_sort(tp_coo *host) {
  TP_TRY(tp_coo_check_arrays(host));
  if (is_sorted(host))
    return TP_SUCCESS;
  size_t bytes = sizeof(int64_t) * (size_t)host->nnz;
  int64_t *perm = (int64_t *)malloc(bytes), *perm_tmp = (int64_t *)malloc(bytes);
  uint64_t *keys = (uint64_t *)malloc(bytes), *keys_tmp = (uint64_t *)malloc(bytes);
  tp_status st = TP_SUCCESS;
  if (!perm || !perm_tmp || !keys || !keys_tmp)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate 4 x %zu bytes to sort %lld nonzeros",
                  bytes, (long long)host->nnz);
  if (st == TP_SUCCESS)
    st = sort_permutation(host, perm, perm_tmp, keys, keys_tmp);
  free(perm_tmp), free(keys_tmp);
  if (st == TP_SUCCESS)
    apply_permutation(host, perm, keys);
  free(perm), free(keys);
  return st;
}
