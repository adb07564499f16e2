/* COO tensor descriptors on the host: checks, validation of the contents, host
 * allocation and the squared norm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/sparse.h"
#include "portable/tp_block_index.h"
#include "portable/tp_error.h"
#include "portable/tp_host_alloc.h"
#include "portable/tp_host_memory.h"
#include "algorithms/sparse/tp_sparse_internal.h"

/* A descriptor tp_coo_free cleared, or one never filled: order 0 and no arrays. */
static int coo_cleared(const tp_coo *t) {
  int any = t->values != NULL;
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m)
    any |= t->indices[m] != NULL;
  return t->order == 0 && !any;
}

tp_status tp_coo_check(const tp_coo *t) {
  TP_CHECK_ARG(t, "the COO descriptor is NULL");
  TP_CHECK_ARG(!coo_cleared(t),
               "COO tensor: order 0 is outside [1, %d] and there are no "
               "arrays: the tensor has been freed or was never allocated",
               TP_COO_MAX_ORDER);
  TP_CHECK_ARG(tpi_coo_dtype_ok(t->dtype), "COO tensor: dtype %s (%d) is not float32 or float64",
               tp_dtype_name(t->dtype), (int)t->dtype);
  TP_CHECK_ARG(t->order >= 1 && t->order <= TP_COO_MAX_ORDER,
               "COO tensor: order %d is outside [1, %d]", t->order, TP_COO_MAX_ORDER);
  for (int m = 0; m < t->order; ++m)
    TP_CHECK_ARG(t->dims[m] >= 1, "COO tensor: dims[%d] = %lld, must be at least 1", m,
                 (long long)t->dims[m]);
  TP_CHECK_ARG(t->nnz >= 0, "COO tensor: nnz %lld is negative", (long long)t->nnz);
  return TP_SUCCESS;
}

/* Arrays freed while this descriptor (a copy made before the free) still points at them. */
static tp_status coo_not_freed(const tp_coo *t) {
  for (int m = 0; m < t->order; ++m)
    TP_CHECK_ARG(!tp_block_index_was_freed(t->indices[m]),
                 "COO tensor: indices[%d] (%p) was "
                 "freed; the descriptor is a copy made before the free",
                 m, (void *)t->indices[m]);
  TP_CHECK_ARG(!tp_block_index_was_freed(t->values),
               "COO tensor: values (%p) was freed; the "
               "descriptor is a copy made before the free",
               t->values);
  return TP_SUCCESS;
}

tp_status tpi_coo_check_arrays(const tp_coo *t) {
  TP_TRY(tp_coo_check(t));
  if (t->nnz == 0)
    return coo_not_freed(t);
  for (int m = 0; m < t->order; ++m)
    TP_CHECK_ARG(t->indices[m], "COO tensor: indices[%d] is NULL for %lld nonzeros", m,
                 (long long)t->nnz);
  TP_CHECK_ARG(t->values, "COO tensor: values is NULL for %lld nonzeros", (long long)t->nnz);
  return coo_not_freed(t);
}

/* open, nonzero k's indices (plus offset, when given) separated by ", ", close. */
static void coo_format_indices(const tp_coo *t, int64_t k, const int64_t *offset, const char *open,
                               const char *close, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "%s", open);
  for (int m = 0; m < t->order && n < cap; ++m)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", m ? ", " : "",
                          (long long)(t->indices[m][k] + (offset ? offset[m] : 0)));
  if (n < cap)
    snprintf(buf + n, cap - n, "%s", close);
}

void tpi_coo_format_coordinate(const tp_coo *t, int64_t k, char *buf, size_t cap) {
  coo_format_indices(t, k, NULL, "(", ")", buf, cap);
}

void tpi_coo_format_entry(const tp_coo *t, int64_t k, const int64_t *offset, char *buf,
                          size_t cap) {
  coo_format_indices(t, k, offset, "X[", "]", buf, cap);
}

/* Position of the first nonzero before `before` with an index outside dims, or `before`;
 * *mode receives its mode. */
static int64_t first_bad_index(const tp_coo *t, int64_t before, int *mode) {
  for (int m = 0; m < t->order; ++m) {
    const int64_t *idx = t->indices[m];
    const int64_t dim = t->dims[m];
    for (int64_t k = 0; k < before; ++k)
      if (idx[k] < 0 || idx[k] >= dim) {
        before = k, *mode = m;
        break;
      }
  }
  return before;
}

static int64_t first_bad_value(const tp_coo *t, int64_t before) {
  for (int64_t k = 0; k < before; ++k)
    if (!isfinite(tpi_coo_value(t, k)))
      return k;
  return before;
}

static tp_status bad_index(const tp_coo *t, int64_t k, int m) {
  return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "COO tensor: nonzero %lld, mode %d: index %lld is outside [0, %lld)",
                  (long long)k, m, (long long)t->indices[m][k], (long long)t->dims[m]);
}

tp_status tpi_coo_check_indices(const tp_coo *host) {
  int m = 0;
  int64_t k = first_bad_index(host, host->nnz, &m);
  return k < host->nnz ? bad_index(host, k, m) : TP_SUCCESS;
}

tp_status tp_coo_validate(const tp_coo *host) {
  TP_TRY(tpi_coo_check_arrays(host));
  int m = 0;
  int64_t k_index = first_bad_index(host, host->nnz, &m);
  int64_t k_value = first_bad_value(host, k_index);
  if (k_value < k_index) {
    char at[TP_COO_COORD_TEXT];
    double v = tpi_coo_value(host, k_value);
    tpi_coo_format_coordinate(host, k_value, at, sizeof at);
    return TP_ERROR(TP_ERROR_NUMERICAL, "COO tensor: nonzero %lld at %s: value %s is not finite",
                    (long long)k_value, at,
                    isnan(v) ? "NaN"
                    : v > 0  ? "+Inf"
                             : "-Inf");
  }
  return k_index < host->nnz ? bad_index(host, k_index, m) : TP_SUCCESS;
}

/* ---- host allocation ----------------------------------------------------------------- */

/* nnz elements of size bytes must fit in size_t. */
static tp_status array_bytes(int64_t nnz, size_t size, size_t *bytes) {
  if ((uint64_t)nnz > SIZE_MAX / size)
    return TP_ERROR(TP_ERROR_OVERFLOW, "COO tensor: %lld nonzeros of %zu bytes overflow size_t",
                    (long long)nnz, size);
  *bytes = (size_t)nnz * size;
  return TP_SUCCESS;
}

/* "COO tensor 50x40x30 with 100 nonzeros (float64)": what the memory check names. */
static void coo_what(const tp_coo *t, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "COO tensor ");
  for (int m = 0; m < t->order && n < cap; ++m)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", m ? "x" : "", (long long)t->dims[m]);
  if (n < cap)
    snprintf(buf + n, cap - n, " with %lld nonzeros (%s)", (long long)t->nnz,
             tp_dtype_name(t->dtype));
}

/* The bytes of all arrays: order index arrays and the values. */
static tp_status coo_bytes(const tp_coo *t, size_t *index_bytes, size_t *value_bytes,
                           size_t *total) {
  TP_TRY(array_bytes(t->nnz, sizeof(int64_t), index_bytes));
  TP_TRY(array_bytes(t->nnz, tp_dtype_size(t->dtype), value_bytes));
  if (*index_bytes > (SIZE_MAX - *value_bytes) / (size_t)t->order)
    return TP_ERROR(TP_ERROR_OVERFLOW, "COO tensor: %lld nonzeros of %d modes overflow size_t",
                    (long long)t->nnz, t->order);
  *total = *index_bytes * (size_t)t->order + *value_bytes;
  return TP_SUCCESS;
}

static tp_status coo_memory_check(const tp_coo *t, size_t total) {
  char what[TP_COO_MAX_ORDER * 21 + 96];
  if (total < TP_HOST_MEMORY_CHECK_FROM)
    return TP_SUCCESS;
  coo_what(t, what, sizeof what);
  return tp_host_memory_check(total, what);
}

tp_status tpi_coo_describe(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz, tp_coo *t) {
  TP_CHECK_ARG(t, "t is NULL");
  memset(t, 0, sizeof *t);
  TP_CHECK_ARG(dims, "dims is NULL");
  TP_CHECK_ARG(order >= 1 && order <= TP_COO_MAX_ORDER, "COO tensor: order %d is outside [1, %d]",
               order, TP_COO_MAX_ORDER);
  t->dtype = dtype;
  t->order = order;
  memcpy(t->dims, dims, sizeof(int64_t) * (size_t)order);
  t->nnz = nnz;
  return tp_coo_check(t);
}

tp_status tpi_coo_host_alloc(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                             tp_coo *t) {
  size_t index_bytes = 0, value_bytes = 0, total = 0;
  tp_status st = tpi_coo_describe(dtype, order, dims, nnz, t);
  if (st == TP_SUCCESS)
    st = coo_bytes(t, &index_bytes, &value_bytes, &total);
  if (st == TP_SUCCESS)
    st = coo_memory_check(t, total);
  for (int m = 0; m < order && st == TP_SUCCESS; ++m)
    st = tp_host_alloc(index_bytes, NULL, (void **)&t->indices[m]);
  if (st == TP_SUCCESS)
    st = tp_host_alloc(value_bytes, NULL, &t->values);
  if (st != TP_SUCCESS) {
    tpi_coo_host_free(t);
    memset(t, 0, sizeof *t);
  }
  return st;
}

/* The arrays of a host tensor, whatever allocated them (a refusal frees nothing of that
 * array: tp_coo_free checks first). */
void tpi_coo_host_free(tp_coo *t) {
  if (!t)
    return;
  int order = t->order < 0 ? 0 : t->order > TP_COO_MAX_ORDER ? TP_COO_MAX_ORDER : t->order;
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m) {
    if (m < order)
      (void)tp_host_free(t->indices[m], "an index array of the COO tensor");
    t->indices[m] = NULL;
  }
  (void)tp_host_free(t->values, "the COO tensor's values");
  t->values = NULL;
}

/* ---- norm ------------------------------------------------------------------------------ */

double tp_coo_norm2(const tp_coo *host) {
  if (tpi_coo_check_arrays(host) != TP_SUCCESS)
    return NAN;
  double s = 0.0;
  for (int64_t k = 0; k < host->nnz; ++k) {
    double v = tpi_coo_value(host, k);
    s += v * v;
  }
  return s;
}

double tpi_coo_max_abs(const tp_coo *host) {
  double m = 0.0;
  for (int64_t k = 0; k < host->nnz; ++k)
    m = fmax(m, fabs(tpi_coo_value(host, k)));
  return m;
}

double tpi_coo_norm2_times(const tp_coo *host, double scale) {
  double s = 0.0;
  for (int64_t k = 0; k < host->nnz; ++k) {
    double v = tpi_coo_value(host, k) * scale;
    s += v * v;
  }
  return s;
}
