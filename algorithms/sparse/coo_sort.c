/* Sorting a host COO tensor by coordinate (mode 0 slowest), stably and in place.
 *
 * A coordinate is linearised into one uint64 key (i0 * d1 + i1) * d2 + ... when
 * prod(dims) fits in 64 bits: the (key, value) pairs are radix-sorted and the indices
 * decoded from the sorted keys, so nothing is gathered at random. When it does not fit,
 * the modes are cut into groups whose keys fit, and a permutation is sorted by the least
 * significant group first, then by each more significant one (each pass is a stable
 * sort, so the result is the lexicographic order), and applied to every array. Sorting a
 * sorted tensor is a single check. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

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

/* keys[k] of nonzero perm[k] (of nonzero k when perm is NULL). */
static void group_keys(const tp_coo *t, const key_group *g, const int64_t *perm, uint64_t *keys) {
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t k = 0; k < t->nnz; ++k) {
    int64_t p = perm ? perm[k] : k;
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
  int bad = 0;
  TP_HOST_OMP(omp parallel for schedule(static) reduction(| : bad))
  for (int64_t k = 1; k < t->nnz; ++k)
    bad |= compare_coordinates(t, k - 1, k) > 0;
  return !bad;
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

/* ---- one key for all modes: the values ride along, the indices are decoded ---------- */

static void pack_values(const tp_coo *t, int64_t *payload) {
  size_t size = tp_dtype_size(t->dtype);
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t k = 0; k < t->nnz; ++k) {
    payload[k] = 0;
    memcpy(&payload[k], (const char *)t->values + (size_t)k * size, size);
  }
}

/* Indices from sorted keys, values from the payload that moved with them. */
static void unpack(tp_coo *t, const uint64_t *keys, const int64_t *payload) {
  size_t size = tp_dtype_size(t->dtype);
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t k = 0; k < t->nnz; ++k) {
    uint64_t key = keys[k];
    for (int m = t->order - 1; m > 0; --m) {
      uint64_t d = (uint64_t)t->dims[m];
      t->indices[m][k] = (int64_t)(key % d);
      key /= d;
    }
    t->indices[0][k] = (int64_t)key;
    memcpy((char *)t->values + (size_t)k * size, &payload[k], size);
  }
}

/* Scratch of a sort: four arrays of nnz 8-byte words. */
typedef struct sort_arrays {
  uint64_t *keys, *keys_tmp;
  int64_t *payload, *payload_tmp;
} sort_arrays;

/* Sorting (key, value) pairs and decoding them back moves no data at random. */
static tp_status sort_one_key(tp_coo *t, const key_group *g, sort_arrays *a) {
  group_keys(t, g, NULL, a->keys);
  pack_values(t, a->payload);
  TP_TRY(tpi_radix_sort_u64(a->keys, a->payload, a->keys_tmp, a->payload_tmp, t->nnz, g->bits));
  unpack(t, a->keys, a->payload);
  return TP_SUCCESS;
}

/* A permutation sorted by the groups from least to most significant, then applied. */
static tp_status sort_by_groups(tp_coo *t, const key_group *groups, int count, sort_arrays *a) {
  int64_t *perm = a->payload;
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t k = 0; k < t->nnz; ++k)
    perm[k] = k;
  for (int g = count - 1; g >= 0; --g) {
    group_keys(t, &groups[g], perm, a->keys);
    TP_TRY(tpi_radix_sort_u64(a->keys, perm, a->keys_tmp, a->payload_tmp, t->nnz, groups[g].bits));
  }
  apply_permutation(t, perm, a->keys);
  return TP_SUCCESS;
}

tp_status tpi_coo_sort(tp_coo *host) {
  TP_TRY(tpi_coo_check_arrays(host));
  if (is_sorted(host))
    return TP_SUCCESS;
  key_group groups[TP_COO_MAX_ORDER];
  int count = plan_groups(host, groups);
  size_t bytes = sizeof(int64_t) * (size_t)host->nnz;
  sort_arrays a = {(uint64_t *)malloc(bytes), (uint64_t *)malloc(bytes), (int64_t *)malloc(bytes),
                   (int64_t *)malloc(bytes)};
  tp_status st = TP_SUCCESS;
  if (!a.keys || !a.keys_tmp || !a.payload || !a.payload_tmp)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate 4 x %zu bytes to sort %lld nonzeros",
                  bytes, (long long)host->nnz);
  else if (count == 1)
    st = sort_one_key(host, &groups[0], &a);
  else
    st = sort_by_groups(host, groups, count, &a);
  free(a.keys), free(a.keys_tmp), free(a.payload), free(a.payload_tmp);
  return st;
}
