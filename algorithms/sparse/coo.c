/* COO tensor descriptors on the host: checks, validation of the contents, host
 * allocation and the squared norm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/sparse.h"
#include "tp_error.h"
#include "tp_sparse_internal.h"

tp_status tp_coo_check(const tp_coo *t) {
  TP_CHECK_ARG(t, "the COO descriptor is NULL");
  TP_CHECK_ARG(tp_coo_dtype_ok(t->dtype), "COO tensor: dtype %s (%d) is not float32 or float64",
               tp_dtype_name(t->dtype), (int)t->dtype);
  TP_CHECK_ARG(t->order >= 1 && t->order <= TP_COO_MAX_ORDER,
               "COO tensor: order %d is outside [1, %d]", t->order, TP_COO_MAX_ORDER);
  for (int m = 0; m < t->order; ++m)
    TP_CHECK_ARG(t->dims[m] >= 1, "COO tensor: dims[%d] = %lld, must be at least 1", m,
                 (long long)t->dims[m]);
  TP_CHECK_ARG(t->nnz >= 0, "COO tensor: nnz %lld is negative", (long long)t->nnz);
  return TP_SUCCESS;
}

tp_status tp_coo_check_arrays(const tp_coo *t) {
  TP_TRY(tp_coo_check(t));
  if (t->nnz == 0)
    return TP_SUCCESS;
  for (int m = 0; m < t->order; ++m)
    TP_CHECK_ARG(t->indices[m], "COO tensor: indices[%d] is NULL for %lld nonzeros", m,
                 (long long)t->nnz);
  TP_CHECK_ARG(t->values, "COO tensor: values is NULL for %lld nonzeros", (long long)t->nnz);
  return TP_SUCCESS;
}

void tp_coo_format_coordinate(const tp_coo *t, int64_t k, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "(");
  for (int m = 0; m < t->order && n < cap; ++m)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", m ? ", " : "",
                          (long long)t->indices[m][k]);
  if (n < cap)
    snprintf(buf + n, cap - n, ")");
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
    if (!isfinite(tp_coo_value(t, k)))
      return k;
  return before;
}

static tp_status bad_index(const tp_coo *t, int64_t k, int m) {
  return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "COO tensor: nonzero %lld, mode %d: index %lld is outside [0, %lld)",
                  (long long)k, m, (long long)t->indices[m][k], (long long)t->dims[m]);
}

tp_status tp_coo_check_indices(const tp_coo *host) {
  int m = 0;
  int64_t k = first_bad_index(host, host->nnz, &m);
  return k < host->nnz ? bad_index(host, k, m) : TP_SUCCESS;
}

tp_status tp_coo_validate(const tp_coo *host) {
  TP_TRY(tp_coo_check_arrays(host));
  int m = 0;
  int64_t k_index = first_bad_index(host, host->nnz, &m);
  int64_t k_value = first_bad_value(host, k_index);
  if (k_value < k_index) {
    char at[TP_COO_COORD_TEXT];
    double v = tp_coo_value(host, k_value);
    tp_coo_format_coordinate(host, k_value, at, sizeof at);
    return TP_ERROR(TP_ERROR_NUMERICAL, "COO tensor: nonzero %lld at %s: value %s is not finite",
                    (long long)k_value, at, isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
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

static tp_status host_array(size_t bytes, void **p) {
  *p = malloc(bytes ? bytes : 1); /* non-NULL even for no nonzeros */
  if (!*p)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "COO tensor: cannot allocate %zu bytes on the host",
                    bytes);
  return TP_SUCCESS;
}

tp_status tp_coo_describe(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                          tp_coo *t) {
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

tp_status tp_coo_host_alloc(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                            tp_coo *t) {
  size_t index_bytes = 0, value_bytes = 0;
  tp_status st = tp_coo_describe(dtype, order, dims, nnz, t);
  if (st == TP_SUCCESS)
    st = array_bytes(nnz, sizeof(int64_t), &index_bytes);
  if (st == TP_SUCCESS)
    st = array_bytes(nnz, tp_dtype_size(dtype), &value_bytes);
  for (int m = 0; m < order && st == TP_SUCCESS; ++m)
    st = host_array(index_bytes, (void **)&t->indices[m]);
  if (st == TP_SUCCESS)
    st = host_array(value_bytes, &t->values);
  if (st != TP_SUCCESS) {
    tp_coo_host_free(t);
    memset(t, 0, sizeof *t);
  }
  return st;
}

void tp_coo_host_free(tp_coo *t) {
  if (!t)
    return;
  int order = t->order < 0 ? 0 : t->order > TP_COO_MAX_ORDER ? TP_COO_MAX_ORDER : t->order;
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m) {
    if (m < order)
      free(t->indices[m]);
    t->indices[m] = NULL;
  }
  free(t->values);
  t->values = NULL;
}

/* ---- norm ------------------------------------------------------------------------------ */

double tp_coo_norm2(const tp_coo *host) {
  if (tp_coo_check_arrays(host) != TP_SUCCESS)
    return NAN;
  double s = 0.0;
  for (int64_t k = 0; k < host->nnz; ++k) {
    double v = tp_coo_value(host, k);
    s += v * v;
  }
  return s;
}
