/* CP-APR's layout of the nonzeros, built in the space: per mode, the nonzeros' order by
 * that mode's index (a stable radix sort of (index, position) pairs), each array of the
 * tensor gathered in that order, and the rows' offsets read off the sorted indices. The
 * same order as a stable counting sort, so the same sums as one made on the host. */
/* generates: apr_sort_keys apr_gather_u64 apr_gather_u32 apr_row_offsets */
#include <string.h>

#include "tenport/memory.h"
#include "tenport/primitives.h"
#include "portable/tp_portable.h"
#include "portable/tp_sort_internal.h"
#include "algorithms/cp_apr/tp_cp_apr_internal.h"
#include "portable/tp_error.h"

typedef struct apr_layout_args {
  const int64_t *rows; /* a mode's indices: in input order (keys), sorted (offsets) */
  uint64_t *keys;
  uint32_t *perm;
  const void *src;
  void *dst;
  int64_t nnz, dim;
} apr_layout_args;

TP_RANGE_KERNEL(apr_sort_keys, apr_layout_args, j, a) {
  a.keys[j] = (uint64_t)a.rows[j];
  a.perm[j] = (uint32_t)j;
}

TP_RANGE_KERNEL(apr_gather_u64, apr_layout_args, p, a) {
  ((uint64_t *)a.dst)[p] = ((const uint64_t *)a.src)[a.perm[p]];
}

TP_RANGE_KERNEL(apr_gather_u32, apr_layout_args, p, a) {
  ((uint32_t *)a.dst)[p] = ((const uint32_t *)a.src)[a.perm[p]];
}

/* rowptr[i] = the first sorted position whose row is >= i: work item p (0..nnz) writes p
 * for the rows after its predecessor's up to its own (item nnz: up to dim). */
TP_RANGE_KERNEL(apr_row_offsets, apr_layout_args, p, a) {
  const int64_t lo = p == 0 ? 0 : a.rows[p - 1] + 1;
  const int64_t hi = p == a.nnz ? a.dim : a.rows[p];
  for (int64_t i = lo; i <= hi; ++i)
    ((int64_t *)a.dst)[i] = p;
}

/* Mode n's sorted copy (t->X[n], allocated here) of X (in the space) and its offsets. */
static tp_status apr_layout_mode(tp_space *space, const tp_coo *X, int n, uint64_t *keys,
                                 uint32_t *perm, tpi_apr_tensor *t) {
  apr_layout_args a;
  memset(&a, 0, sizeof a);
  a.keys = keys, a.perm = perm, a.nnz = X->nnz, a.dim = X->dims[n], a.rows = X->indices[n];
  TP_TRY(tp_coo_alloc(space, X->dtype, X->order, X->dims, X->nnz, &t->X[n]));
  TP_TRY(tp_alloc(space, sizeof(int64_t) * (size_t)(X->dims[n] + 1), (void **)&t->rowptr[n]));
  if (X->nnz > 0) {
    TP_TRY(TP_LAUNCHER(apr_sort_keys)(space, X->nnz, a));
    TP_TRY(tp_sort_pairs_u64_u32(space, keys, perm, X->nnz, 0, tp_sort_index_bits(X->dims[n])));
    for (int k = 0; k < X->order; ++k) {
      a.src = X->indices[k], a.dst = t->X[n].indices[k];
      TP_TRY(TP_LAUNCHER(apr_gather_u64)(space, X->nnz, a));
    }
    a.src = X->values, a.dst = t->X[n].values;
    TP_TRY(X->dtype == TP_DTYPE_F64 ? TP_LAUNCHER(apr_gather_u64)(space, X->nnz, a)
                                    : TP_LAUNCHER(apr_gather_u32)(space, X->nnz, a));
  }
  a.rows = t->X[n].indices[n], a.dst = t->rowptr[n];
  return TP_LAUNCHER(apr_row_offsets)(space, X->nnz + 1, a);
}

tp_status tpi_apr_tensor_create(tp_space *space, const tp_coo *host, tpi_apr_tensor *t) {
  memset(t, 0, sizeof *t);
  tp_coo X;
  memset(&X, 0, sizeof X);
  uint64_t *keys = NULL;
  uint32_t *perm = NULL;
  const size_t slots = (size_t)(host->nnz > 0 ? host->nnz : 1);
  tp_status st = tp_coo_copy_to_device(space, &X, host);
  if (st == TP_SUCCESS)
    st = tp_alloc(space, sizeof(uint64_t) * slots, (void **)&keys);
  if (st == TP_SUCCESS)
    st = tp_alloc(space, sizeof(uint32_t) * slots, (void **)&perm);
  for (int n = 0; st == TP_SUCCESS && n < host->order; ++n)
    st = apr_layout_mode(space, &X, n, keys, perm, t);
  tp_free(space, keys), tp_free(space, perm);
  if (X.order > 0)
    tp_coo_free(space, &X);
  if (st != TP_SUCCESS)
    tpi_apr_tensor_free(space, t);
  return st;
}
