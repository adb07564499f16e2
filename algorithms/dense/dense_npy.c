/* Dense and Kruskal tensors as NumPy .npy files. A dense tensor is one file, read in the
 * file's own memory order (Fortran order gives TP_LAYOUT_LEFT, C order TP_LAYOUT_RIGHT);
 * a Kruskal tensor is PREFIX_lambda.npy (rank values) and PREFIX_factor<k>.npy
 * (dims[k] x rank, C order). Every value read must be finite. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/dense.h"
#include "tenport/npy.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"

enum { INDEX_TEXT = 16 * 22 + 4 }; /* "(i0, ..., i15)" with 20-digit indices */

static int is_float(tp_dtype d) { return d == TP_DTYPE_F32 || d == TP_DTYPE_F64; }

/* Offset of the first non-finite of n values in memory order, or -1. */
static int64_t first_nonfinite(const void *data, tp_dtype dtype, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!isfinite(tpi_dense_load(data, dtype, i)))
      return i;
  return -1;
}

/* ---- dense tensors -------------------------------------------------------------- */

/* Element i of integer data as a double (rounded beyond 2^53). */
static double integer_value(const void *data, tp_dtype dtype, int64_t i) {
  switch (dtype) {
  case TP_DTYPE_I8: return (double)((const int8_t *)data)[i];
  case TP_DTYPE_U8: return (double)((const uint8_t *)data)[i];
  case TP_DTYPE_I32: return (double)((const int32_t *)data)[i];
  case TP_DTYPE_U32: return (double)((const uint32_t *)data)[i];
  case TP_DTYPE_I64: return (double)((const int64_t *)data)[i];
  default: return (double)((const uint64_t *)data)[i];
  }
}

/* An integer array's elements, in their memory order, as a malloc'ed array of want
 * (float32 or float64): integer files are read as their values. */
static tp_status integers_to_float(const char *path, tp_npy_array *a, tp_dtype want) {
  void *dst = malloc((size_t)(a->count ? a->count : 1) * tp_dtype_size(want));
  if (!dst)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the %s copy of %lld elements",
                    path, tp_dtype_name(want), (long long)a->count);
  for (int64_t i = 0; i < a->count; ++i)
    tpi_dense_store(dst, want, i, integer_value(a->data, a->dtype, i));
  free(a->data);
  a->data = dst, a->dtype = want;
  return TP_SUCCESS;
}

/* The file must hold values in 2..TP_DENSE_MAX_ORDER dimensions >= 1. */
static tp_status check_dense_file(const char *path, const tp_npy_array *a) {
  if (a->ndim < 2 || a->ndim > TP_DENSE_MAX_ORDER)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s holds a %d-dimensional array; a dense tensor has 2 to "
                    "%d dimensions",
                    path, a->ndim, TP_DENSE_MAX_ORDER);
  for (int k = 0; k < a->ndim; ++k)
    if (a->shape[k] < 1)
      return TP_ERROR(TP_ERROR_FORMAT,
                      "%s: dimension %d has size %lld; a dense tensor needs "
                      "every size to be at least 1",
                      path, k, (long long)a->shape[k]);
  return TP_SUCCESS;
}

/* Replaces t->data (t->dtype, from the file) by a malloc'ed copy in want. */
static tp_status convert(const char *path, tp_dense *t, tp_dtype want) {
  int64_t n = tp_dense_count(t);
  void *dst = malloc((size_t)n * tp_dtype_size(want));
  if (!dst)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the %s copy of %lld elements",
                    path, tp_dtype_name(want), (long long)n);
  for (int64_t i = 0; i < n; ++i)
    tpi_dense_store(dst, want, i, tpi_dense_load(t->data, t->dtype, i));
  free(t->data);
  t->data = dst;
  t->dtype = want;
  return TP_SUCCESS;
}

/* Names the first non-finite element of t (read from path), if any; note ends the
 * message. */
static tp_status check_finite(const char *path, const tp_dense *t, const char *note) {
  int64_t off = first_nonfinite(t->data, t->dtype, tp_dense_count(t));
  if (off < 0)
    return TP_SUCCESS;
  int64_t idx[TP_DENSE_MAX_ORDER];
  char text[INDEX_TEXT];
  tpi_dense_unravel(t, off, idx);
  tpi_dense_format_index(t->order, idx, text, sizeof text);
  double v = tpi_dense_load(t->data, t->dtype, off);
  return TP_ERROR(TP_ERROR_NUMERICAL, "%s: element %s is %s%s; dense tensors must be finite", path,
                  text,
                  isnan(v) ? "NaN"
                  : v > 0  ? "+Inf"
                           : "-Inf",
                  note);
}

tp_status tp_dense_read_npy_input(tp_input *in, tp_dtype want_dtype, tp_dense *t) {
  TP_CHECK_ARG(t, "t is NULL");
  memset(t, 0, sizeof *t);
  TP_CHECK_ARG(in, "in is NULL");
  TP_CHECK_ARG(is_float(want_dtype), "want_dtype %s is not float32 or float64",
               tp_dtype_name(want_dtype));
  const char *path = tp_input_name(in);
  tp_npy_array a;
  TP_TRY(tp_npy_read_input(in, &a));
  tp_status st = check_dense_file(path, &a);
  if (st == TP_SUCCESS && !is_float(a.dtype))
    st = integers_to_float(path, &a, want_dtype);
  if (st != TP_SUCCESS) {
    tp_npy_free(&a);
    return st;
  }
  t->dtype = a.dtype;
  t->order = a.ndim;
  memcpy(t->dims, a.shape, sizeof(int64_t) * (size_t)a.ndim);
  t->layout = a.fortran_order ? TP_LAYOUT_LEFT : TP_LAYOUT_RIGHT;
  t->data = a.data; /* t owns the buffer from here on */
  st = check_finite(path, t, "");
  if (st == TP_SUCCESS && a.dtype != want_dtype)
    st = convert(path, t, want_dtype);
  if (st == TP_SUCCESS && want_dtype == TP_DTYPE_F32 && a.dtype == TP_DTYPE_F64) /* beyond f32 */
    st = check_finite(path, t, " after conversion to float32");
  if (st != TP_SUCCESS) {
    free(t->data);
    memset(t, 0, sizeof *t);
  }
  return st;
}

tp_status tp_dense_read_npy(const char *path, tp_dtype want_dtype, tp_dense *t) {
  TP_CHECK_ARG(t, "t is NULL");
  memset(t, 0, sizeof *t);
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = tp_dense_read_npy_input(in, want_dtype, t);
  tp_input_close(&in);
  return st;
}

static tp_status check_dense_host(const tp_dense *host) {
  TP_TRY(tp_dense_check(host));
  TP_CHECK_ARG(host->data, "the tensor's data is NULL");
  return TP_SUCCESS;
}

tp_status tp_dense_write_npy(const char *path, const tp_dense *host) {
  TP_TRY(check_dense_host(host));
  return tp_npy_write(path, host->dtype, host->order, host->dims, host->layout == TP_LAYOUT_LEFT,
                      host->data);
}

tp_status tp_dense_write_npy_to(tp_output_set *set, const char *path, const tp_dense *host) {
  TP_TRY(check_dense_host(host));
  return tp_npy_write_to(set, path, host->dtype, host->order, host->dims,
                         host->layout == TP_LAYOUT_LEFT, host->data);
}

/* ---- Kruskal tensors -------------------------------------------------------------- */

/* prefix + suffix in a malloc'ed string (NULL when out of memory). */
static char *path_of(const char *prefix, const char *name, int k) {
  size_t cap = strlen(prefix) + strlen(name) + 32;
  char *p = (char *)malloc(cap);
  if (p && k >= 0)
    snprintf(p, cap, "%s_%s%d.npy", prefix, name, k);
  else if (p)
    snprintf(p, cap, "%s_%s.npy", prefix, name);
  return p;
}

static tp_status no_path(const char *prefix) {
  return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate a file name for prefix %s", prefix);
}

/* Writes one array of the Kruskal tensor into the set: lambda (k < 0) or factor k. */
static tp_status write_part(tp_output_set *set, const char *prefix, const tp_kruskal *u, int k) {
  char *path = path_of(prefix, k < 0 ? "lambda" : "factor", k);
  if (!path)
    return no_path(prefix);
  int64_t shape[2] = {k < 0 ? u->rank : u->dims[k], u->rank};
  tp_status st = tp_npy_write_to(set, path, u->dtype, k < 0 ? 1 : 2, shape, 0,
                                 k < 0 ? u->lambda : u->factors[k]);
  free(path);
  return st;
}

tp_status tp_kruskal_reserve_npy(tp_output_set *set, const char *prefix, int order) {
  TP_CHECK_ARG(set && prefix && *prefix, "set or prefix is NULL or empty");
  TP_CHECK_ARG(order >= 1 && order <= TP_DENSE_MAX_ORDER, "order %d is outside [1, %d]", order,
               TP_DENSE_MAX_ORDER);
  tp_status st = TP_SUCCESS;
  for (int k = -1; k < order && st == TP_SUCCESS; ++k) {
    char *path = path_of(prefix, k < 0 ? "lambda" : "factor", k);
    st = path ? tp_output_set_add(set, path) : no_path(prefix);
    free(path);
  }
  return st;
}

tp_status tp_kruskal_write_npy_to(tp_output_set *set, const char *prefix, const tp_kruskal *host) {
  TP_CHECK_ARG(set, "set is NULL");
  TP_CHECK_ARG(prefix && *prefix, "prefix is NULL or empty");
  TP_TRY(tp_kruskal_check(host));
  TP_CHECK_ARG(host->lambda, "lambda is NULL");
  for (int k = 0; k < host->order; ++k)
    TP_CHECK_ARG(host->factors[k], "factors[%d] is NULL", k);
  for (int k = -1; k < host->order; ++k)
    TP_TRY(write_part(set, prefix, host, k));
  return TP_SUCCESS;
}

tp_status tp_kruskal_write_npy(const char *prefix, const tp_kruskal *host) {
  tp_output_set *set;
  TP_TRY(tp_output_set_create(&set));
  tp_status st = tp_kruskal_write_npy_to(set, prefix, host);
  if (st == TP_SUCCESS)
    st = tp_output_set_commit(set);
  tp_output_set_destroy(&set);
  return st;
}

/* "(5, 3)" or "(5,)", as NumPy prints shapes. */
static void format_shape(int ndim, const int64_t *shape, char *buf, size_t cap) {
  tpi_dense_format_index(ndim, shape, buf, cap);
  if (ndim == 1)
    snprintf(buf + strlen(buf) - 1, cap - (strlen(buf) - 1), ",)");
}

/* C-order multi-index of element off of an array. */
static void format_c_index(const tp_npy_array *a, int64_t off, char *buf, size_t cap) {
  int64_t idx[TP_NPY_MAX_DIMS];
  for (int k = a->ndim - 1; k >= 0; --k) {
    idx[k] = off % a->shape[k];
    off /= a->shape[k];
  }
  tpi_dense_format_index(a->ndim, idx, buf, cap);
}

/* Checks a converted C-order array against the expected shape and finiteness. */
static tp_status check_part(const char *path, const tp_npy_array *a, int ndim,
                            const int64_t *shape) {
  int same = a->ndim == ndim;
  for (int k = 0; same && k < ndim; ++k)
    same = a->shape[k] == shape[k];
  char want[INDEX_TEXT], found[INDEX_TEXT];
  if (!same) {
    format_shape(ndim, shape, want, sizeof want);
    format_shape(a->ndim, a->shape, found, sizeof found);
    return TP_ERROR(TP_ERROR_FORMAT, "%s has shape %s, expected %s", path, found, want);
  }
  int64_t off = first_nonfinite(a->data, a->dtype, a->count);
  if (off < 0)
    return TP_SUCCESS;
  format_c_index(a, off, found, sizeof found);
  return TP_ERROR(TP_ERROR_NUMERICAL, "%s: element %s is not finite", path, found);
}

/* Reads path (any numeric dtype, either order) into dst as C-order dtype values. */
static tp_status read_part(const char *path, tp_dtype dtype, int ndim, const int64_t *shape,
                           void *dst) {
  tp_npy_array a;
  TP_TRY(dtype == TP_DTYPE_F32 ? tp_npy_read_f32(path, -1, &a) : tp_npy_read_f64(path, -1, &a));
  tp_status st = check_part(path, &a, ndim, shape);
  if (st == TP_SUCCESS)
    memcpy(dst, a.data, (size_t)a.count * tp_dtype_size(dtype));
  tp_npy_free(&a);
  return st;
}

static int file_missing(const char *path) {
  errno = 0;
  FILE *f = fopen(path, "rb");
  if (f)
    fclose(f);
  return !f && errno == ENOENT;
}

/* lambda from PREFIX_lambda.npy when it exists, else all ones. */
static tp_status read_lambda(const char *prefix, tp_kruskal *u) {
  char *path = path_of(prefix, "lambda", -1);
  if (!path)
    return no_path(prefix);
  tp_status st = TP_SUCCESS;
  if (file_missing(path))
    for (int64_t r = 0; r < u->rank; ++r)
      tpi_dense_store(u->lambda, u->dtype, r, 1.0);
  else
    st = read_part(path, u->dtype, 1, &u->rank, u->lambda);
  free(path);
  return st;
}

static tp_status read_factor(const char *prefix, tp_kruskal *u, int k) {
  char *path = path_of(prefix, "factor", k);
  if (!path)
    return no_path(prefix);
  int64_t shape[2] = {u->dims[k], u->rank};
  tp_status st = read_part(path, u->dtype, 2, shape, u->factors[k]);
  free(path);
  return st;
}

tp_status tp_kruskal_read_npy(const char *prefix, tp_dtype dtype, int order, const int64_t *dims,
                              int64_t rank, tp_kruskal *host) {
  TP_CHECK_ARG(host, "host is NULL");
  memset(host, 0, sizeof *host);
  TP_CHECK_ARG(prefix && *prefix, "prefix is NULL or empty");
  TP_TRY(tp_kruskal_alloc(NULL, dtype, order, dims, rank, host));
  tp_status st = TP_SUCCESS;
  for (int k = 0; k < order && st == TP_SUCCESS; ++k)
    st = read_factor(prefix, host, k);
  if (st == TP_SUCCESS)
    st = read_lambda(prefix, host);
  if (st != TP_SUCCESS) {
    tp_kruskal_free(NULL, host);
    memset(host, 0, sizeof *host);
  }
  return st;
}
