/* A host COO tensor filled one nonzero at a time (or one builder's worth at a time), for
 * readers that do not know the count in advance: the arrays grow by half their size each
 * time they fill up. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { MIN_CAPACITY = 1024 };

void tpi_coo_builder_init(tpi_coo_builder *b, tp_dtype dtype, int order, int64_t expected_nnz) {
  memset(b, 0, sizeof *b);
  b->t.dtype = dtype;
  b->t.order = order;
  b->first_capacity = expected_nnz > MIN_CAPACITY ? expected_nnz : MIN_CAPACITY;
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m)
    b->max_index[m] = -1;
}

/* Resizes one array to n elements of size bytes; 0 when out of memory (p unchanged). */
static int resize(void **p, int64_t n, size_t size) {
  if ((uint64_t)n > SIZE_MAX / size)
    return 0;
  void *q = realloc(*p, (size_t)n * size);
  if (!q)
    return 0;
  *p = q;
  return 1;
}

tp_status tpi_coo_builder_reserve(tpi_coo_builder *b, int64_t more, const char *name) {
  if (more <= b->capacity - b->t.nnz)
    return TP_SUCCESS;
  int64_t c = b->capacity;
  int64_t want = c == 0 ? b->first_capacity : c > INT64_MAX / 3 * 2 ? INT64_MAX : c + c / 2;
  if (want - b->t.nnz < more)
    want = b->t.nnz > INT64_MAX - more ? INT64_MAX : b->t.nnz + more;
  int ok = want > c;
  for (int m = 0; m < b->t.order && ok; ++m)
    ok = resize((void **)&b->t.indices[m], want, sizeof(int64_t));
  if (ok)
    ok = resize(&b->t.values, want, tp_dtype_size(b->t.dtype));
  if (!ok)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot grow the arrays to %lld nonzeros", name,
                    (long long)want);
  b->capacity = want;
  return TP_SUCCESS;
}

/* Copies the arrays of `from` to nonzero `at` of b (room reserved). */
static void copy_into(tpi_coo_builder *b, int64_t at, const tpi_coo_builder *from) {
  const size_t size = tp_dtype_size(b->t.dtype), n = (size_t)from->t.nnz;
  for (int m = 0; m < b->t.order; ++m)
    memcpy(b->t.indices[m] + at, from->t.indices[m], sizeof(int64_t) * n);
  memcpy((char *)b->t.values + (size_t)at * size, from->t.values, size * n);
}

tp_status tpi_coo_builder_append_all(tpi_coo_builder *b, const tpi_tns_parser *parts, int count,
                                     const char *name) {
  int64_t at[TP_TNS_PIECES + 1];
  at[0] = b->t.nnz;
  for (int i = 0; i < count; ++i)
    at[i + 1] = at[i] + parts[i].b.t.nnz;
  TP_TRY(tpi_coo_builder_reserve(b, at[count] - b->t.nnz, name));
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1))
  for (int i = 0; i < count; ++i)
    copy_into(b, at[i], &parts[i].b);
  for (int i = 0; i < count; ++i)
    for (int m = 0; m < b->t.order; ++m)
      if (parts[i].b.max_index[m] > b->max_index[m])
        b->max_index[m] = parts[i].b.max_index[m];
  b->t.nnz = at[count];
  return TP_SUCCESS;
}

void tpi_coo_builder_free(tpi_coo_builder *b) {
  tpi_coo_host_free(&b->t);
  b->t.nnz = 0;
  b->capacity = 0;
}
