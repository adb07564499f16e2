/* The tensor FLYCOO is built from, as the build reads it in the space (flycoo_source: 32-bit
 * indices and the values): from a host COO tensor (checked with every host core, the
 * indices narrowed on the host, then uploaded) or from a COO tensor already in the space
 * (checked by reductions, narrowed by a kernel); and ||X||^2 of either. A bad tensor is
 * reported by tp_coo_validate on the host, so both give the same message. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "tenport/primitives.h"
#include "portable/tp_error.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_build.h"
#include "portable/tp_host_omp.h"
#include "portable/tp_norm_scale.h"
#include "portable/tp_space_common.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { FLYCOO_SUM_BLOCK = 1 << 16 }; /* nonzeros per partial sum of ||X||^2 */

tp_status flycoo_check_coo(const tp_coo *X) {
  TP_CHECK_ARG(X, "the tensor must not be NULL");
  TP_TRY(tp_coo_check(X));
  TP_CHECK_ARG(X->dtype == TP_DTYPE_F32 || X->dtype == TP_DTYPE_F64,
               "the tensor is %s: sparse MTTKRP takes float32 or float64", tp_dtype_name(X->dtype));
  TP_CHECK_ARG(X->order >= 2, "the tensor has %d mode(s): MTTKRP needs at least 2", X->order);
  TP_CHECK_ARG(X->nnz == 0 || X->values, "the tensor's values must not be NULL");
  for (int m = 0; m < X->order; ++m)
    TP_CHECK_ARG(X->nnz == 0 || X->indices[m], "the tensor's indices of mode %d must not be NULL",
                 m);
  if (X->nnz >= (int64_t)UINT32_MAX)
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                    "%lld nonzeros: FLYCOO's records hold 32-bit positions (up to %lld)",
                    (long long)X->nnz, (long long)UINT32_MAX - 1);
  for (int m = 0; m < X->order; ++m)
    if (X->dims[m] > FLYCOO_MAX_DIM)
      return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "mode %d has %lld rows; FLYCOO takes up to %lld", m,
                      (long long)X->dims[m], (long long)FLYCOO_MAX_DIM);
  return TP_SUCCESS;
}

/* ---- checks ------------------------------------------------------------------------------ */

static double flycoo_host_value(const tp_coo *h, int64_t x) {
  return h->dtype == TP_DTYPE_F32 ? (double)((const float *)h->values)[x]
                                  : ((const double *)h->values)[x];
}

/* The host check of a copy, for its message. */
static tp_status flycoo_validate_copy(tp_space *space, const tp_coo *X) {
  tp_coo host;
  TP_TRY(tp_coo_copy_to_host(space, &host, X));
  tp_status st = tp_coo_validate(&host);
  tp_coo_free(NULL, &host);
  return st != TP_SUCCESS ? st
                          : TP_ERROR(TP_ERROR_INTERNAL, "COO tensor: the space's check "
                                                        "failed, the host's passed");
}

/* Every index within its mode and every value finite, by reductions in the space. */
static tp_status flycoo_reduce_checks(tp_space *space, const tp_coo *X, int *bad) {
  int64_t *lim; /* min and max of one mode */
  TP_TRY(tp_temp_alloc(space, 2 * sizeof(int64_t) + sizeof(tp_argmax_f64), (void **)&lim));
  tp_status st = TP_SUCCESS;
  for (int m = 0; m < X->order && st == TP_SUCCESS && !*bad; ++m) {
    int64_t got[2];
    st = tp_reduce_min_i64(space, X->indices[m], X->nnz, &lim[0]);
    if (st == TP_SUCCESS)
      st = tp_reduce_max_i64(space, X->indices[m], X->nnz, &lim[1]);
    if (st == TP_SUCCESS)
      st = tp_copy_to_host(space, got, lim, sizeof got);
    *bad = st == TP_SUCCESS && (got[0] < 0 || got[1] >= X->dims[m]);
  }
  double most = 0;
  if (st == TP_SUCCESS && !*bad && X->dtype == TP_DTYPE_F32) {
    tp_argmax_f32 r;
    st = tp_reduce_argmax_abs_f32(space, (const float *)X->values, X->nnz, (tp_argmax_f32 *)lim);
    if (st == TP_SUCCESS && (st = tp_copy_to_host(space, &r, lim, sizeof r)) == TP_SUCCESS)
      most = r.value;
  } else if (st == TP_SUCCESS && !*bad) {
    tp_argmax_f64 r;
    st = tp_reduce_argmax_abs_f64(space, (const double *)X->values, X->nnz, (tp_argmax_f64 *)lim);
    if (st == TP_SUCCESS && (st = tp_copy_to_host(space, &r, lim, sizeof r)) == TP_SUCCESS)
      most = r.value;
  }
  *bad = *bad || !isfinite(most);
  tp_temp_release(space, lim);
  return st;
}

tp_status flycoo_validate_in_space(tp_space *space, const tp_coo *X) {
  int bad = 0;
  if (X->nnz > 0)
    TP_TRY(flycoo_reduce_checks(space, X, &bad));
  return bad ? flycoo_validate_copy(space, X) : TP_SUCCESS;
}

/* ---- ||X||^2 ------------------------------------------------------------------------------ */

/* The sum of squares of value * scale in double, in fixed blocks: the same for any
 * thread count. */
static double flycoo_host_sum_squares(const tp_coo *h, double scale) {
  const int64_t blocks = (h->nnz + FLYCOO_SUM_BLOCK - 1) / FLYCOO_SUM_BLOCK;
  double *part = (double *)malloc(sizeof(double) * (size_t)(blocks > 0 ? blocks : 1));
  if (!part)
    return tpi_coo_norm2_times(h, scale);
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * FLYCOO_SUM_BLOCK < h->nnz ? (b + 1) * FLYCOO_SUM_BLOCK : h->nnz;
    double s = 0;
    for (int64_t x = b * FLYCOO_SUM_BLOCK; x < end; ++x) {
      const double v = flycoo_host_value(h, x) * scale;
      s += v * v;
    }
    part[b] = s;
  }
  double s = 0;
  for (int64_t b = 0; b < blocks; ++b)
    s += part[b];
  free(part);
  return s;
}

/* ||X scale||^2 of a host tensor that may hold duplicates: summed first, on a copy. */
static tp_status flycoo_norm2_merged(const tp_coo *host, double scale, double *norm2) {
  tp_coo copy;
  TP_TRY(tpi_coo_merged_copy(host, &copy));
  *norm2 = flycoo_host_sum_squares(&copy, scale);
  tp_coo_free(NULL, &copy);
  return TP_SUCCESS;
}

/* The scale for a tensor of extreme units: 2^-e from its merged values' largest |value|
 * (1 for the zero tensor). */
static tp_status flycoo_extreme_scale(const tp_coo *host, double *scale) {
  tp_coo copy;
  TP_TRY(tpi_coo_merged_copy(host, &copy));
  const double max_abs = tpi_coo_max_abs(&copy);
  tp_coo_free(NULL, &copy);
  *scale = max_abs > 0 ? tp_scale_for_max_abs(max_abs) : 1.0;
  return TP_SUCCESS;
}

/* The sums are made as the unscaled ones were (the same order), so that a tensor scaled
 * by a power of two gives the same bits. */
tp_status flycoo_norm2_rescaled(tp_space *space, const tp_coo *X, int in_space, double *norm2,
                                double *scale) {
  if (!in_space) {
    TP_TRY(flycoo_extreme_scale(X, scale));
    return flycoo_norm2_merged(X, *scale, norm2);
  }
  tp_coo host;
  TP_TRY(tp_coo_copy_to_host(space, &host, X));
  tp_status st = flycoo_extreme_scale(&host, scale);
  tp_coo_free(NULL, &host);
  TP_TRY(st);
  return flycoo_norm2_in_space(space, X, *scale, norm2);
}

/* ---- staging --------------------------------------------------------------------------------- */

static tp_status flycoo_stage_alloc(tp_space *space, const tp_coo *X, flycoo_staged *s) {
  memset(s, 0, sizeof *s);
  s->src.dtype = X->dtype, s->src.order = X->order, s->src.nnz = X->nnz;
  memcpy(s->src.dims, X->dims, sizeof s->src.dims);
  const size_t words = sizeof(uint32_t) * (size_t)(X->nnz > 0 ? X->nnz : 1);
  for (int m = 0; m < X->order; ++m) {
    TP_TRY(tp_alloc(space, words, (void **)&s->owned[m]));
    s->src.idx[m] = s->owned[m];
  }
  return TP_SUCCESS;
}

/* The values where kernels can read them: in place on a CPU (the space is host memory),
 * else a copy in the space. */
static tp_status flycoo_stage_values(tp_space *space, const tp_coo *host, int is_gpu,
                                     flycoo_staged *s) {
  const size_t bytes = tp_dtype_size(host->dtype) * (size_t)host->nnz;
  if (!is_gpu || bytes == 0) {
    s->src.values = host->values;
    return TP_SUCCESS;
  }
  TP_TRY(tp_alloc(space, bytes, &s->owned_values));
  s->src.values = s->owned_values;
  return tp_copy_to_device(space, s->owned_values, host->values, bytes);
}

/* What one pass over a host tensor found. */
typedef struct flycoo_pass_result {
  int bad;      /* an index out of range or a value not finite */
  int unsorted; /* a coordinate not greater than the one before */
} flycoo_pass_result;

/* Coordinate x - 1 against x: 1 unless x's is greater. */
static int flycoo_not_after(const tp_coo *h, int64_t x) {
  for (int m = 0; m < h->order; ++m)
    if (h->indices[m][x - 1] != h->indices[m][x])
      return h->indices[m][x - 1] > h->indices[m][x];
  return 1;
}

/* One pass over the nonzeros, block by block on every core: each index checked and
 * narrowed into out[m], each value checked and squared into part[block], each coordinate
 * compared with the one before. */
static void flycoo_host_pass(const tp_coo *h, uint32_t *const *out, double *part,
                             flycoo_pass_result *r) {
  const int64_t blocks = (h->nnz + FLYCOO_SUM_BLOCK - 1) / FLYCOO_SUM_BLOCK;
  int bad = 0, unsorted = 0;
  TP_HOST_OMP(omp parallel for schedule(static) reduction(| : bad, unsorted))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t x0 = b * FLYCOO_SUM_BLOCK;
    const int64_t x1 = x0 + FLYCOO_SUM_BLOCK < h->nnz ? x0 + FLYCOO_SUM_BLOCK : h->nnz;
    for (int m = 0; m < h->order; ++m) {
      const int64_t *idx = h->indices[m];
      const uint64_t dim = (uint64_t)h->dims[m];
      for (int64_t x = x0; x < x1; ++x) {
        bad |= (uint64_t)idx[x] >= dim;
        out[m][x] = (uint32_t)idx[x];
      }
    }
    double s = 0;
    for (int64_t x = x0; x < x1; ++x) {
      const double v = flycoo_host_value(h, x);
      bad |= !isfinite(v);
      s += v * v;
    }
    part[b] = s;
    for (int64_t x = x0 > 0 ? x0 : 1; x < x1 && !unsorted; ++x)
      unsorted |= flycoo_not_after(h, x);
  }
  r->bad = bad, r->unsorted = unsorted;
}

/* GPUs: the indices narrowed on the host, then uploaded; CPUs: narrowed into the space's
 * arrays themselves (host memory). */
static tp_status flycoo_host_targets(const tp_coo *host, int is_gpu, flycoo_staged *s,
                                     uint32_t **out) {
  for (int m = 0; m < host->order; ++m) {
    /* on a GPU the host pass writes to host copies (freed by the caller), never to the
     * space's blocks: an empty tensor has none (NULL) */
    out[m] = is_gpu ? NULL : s->owned[m];
    if (is_gpu && host->nnz > 0 &&
        !(out[m] = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)host->nnz)))
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes to stage the indices",
                      sizeof(uint32_t) * (size_t)host->nnz);
  }
  return TP_SUCCESS;
}

static tp_status flycoo_upload_indices(tp_space *space, const tp_coo *host, uint32_t *const *out,
                                       flycoo_staged *s) {
  for (int m = 0; m < host->order && host->nnz > 0; ++m)
    TP_TRY(tp_copy_to_device(space, s->owned[m], out[m], sizeof(uint32_t) * (size_t)host->nnz));
  return TP_SUCCESS;
}

/* The pass, then what it found: a bad tensor reported as tp_coo_validate reports it,
 * ||X||^2 from the blocks' sums (or, with duplicates, from a merged copy). */
static tp_status flycoo_host_checks(const tp_coo *host, uint32_t *const *out, double *norm2) {
  const int64_t blocks = (host->nnz + FLYCOO_SUM_BLOCK - 1) / FLYCOO_SUM_BLOCK;
  double *part = (double *)malloc(sizeof(double) * (size_t)(blocks > 0 ? blocks : 1));
  if (!part)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %lld partial sums", (long long)blocks);
  flycoo_pass_result r;
  flycoo_host_pass(host, out, part, &r);
  *norm2 = 0;
  for (int64_t b = 0; b < blocks; ++b)
    *norm2 += part[b];
  free(part);
  if (r.bad) {
    TP_TRY(tp_coo_validate(host)); /* names the first bad nonzero */
    return TP_ERROR(TP_ERROR_INTERNAL, "COO tensor: a bad index or value was seen, not found");
  }
  return r.unsorted ? flycoo_norm2_merged(host, 1.0, norm2) : TP_SUCCESS;
}

tp_status flycoo_stage_host(tp_space *space, const tp_coo *host, flycoo_staged *s, double *norm2) {
  TP_TRY(tpi_coo_check_arrays(host));
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  TP_TRY(flycoo_stage_alloc(space, host, s));
  uint32_t *out[TP_COO_MAX_ORDER];
  memset(out, 0, sizeof out);
  tp_status st = flycoo_host_targets(host, info.is_gpu, s, out);
  if (st == TP_SUCCESS)
    st = flycoo_host_checks(host, out, norm2);
  if (st == TP_SUCCESS && info.is_gpu)
    st = flycoo_upload_indices(space, host, out, s);
  for (int m = 0; m < host->order && info.is_gpu; ++m)
    free(out[m]);
  return st == TP_SUCCESS ? flycoo_stage_values(space, host, info.is_gpu, s) : st;
}

tp_status flycoo_stage_in_space(tp_space *space, const tp_coo *X, flycoo_staged *s) {
  TP_TRY(flycoo_stage_alloc(space, X, s));
  for (int m = 0; m < X->order && X->nnz > 0; ++m)
    TP_TRY(flycoo_bk_narrow(space, X->indices[m], s->owned[m], X->nnz));
  s->src.values = X->values;
  return TP_SUCCESS;
}

void flycoo_staged_free(tp_space *space, flycoo_staged *s) {
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m)
    tp_free(space, s->owned[m]);
  tp_free(space, s->owned_values);
  memset(s, 0, sizeof *s);
}

tp_status flycoo_norm2_in_space(tp_space *space, const tp_coo *X, double scale, double *norm2) {
  int64_t *out; /* [0]: pairs not increasing; [1]: the sum of squares */
  TP_TRY(tp_temp_alloc(space, 2 * sizeof(int64_t), (void **)&out));
  int64_t got[2] = {0, 0};
  tp_status st = flycoo_bk_coo_checks(space, X, scale, &out[0], (double *)&out[1]);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(space, got, out, sizeof got);
  tp_temp_release(space, out);
  TP_TRY(st);
  if (got[0] == 0) {
    memcpy(norm2, &got[1], sizeof *norm2);
    return TP_SUCCESS;
  }
  tp_coo host; /* duplicates, or out of order: summed on the host */
  TP_TRY(tp_coo_copy_to_host(space, &host, X));
  st = flycoo_norm2_merged(&host, scale, norm2);
  tp_coo_free(NULL, &host);
  return st;
}
