/* GCP-Adam's samplers: how many samples a dense or sparse tensor's estimates take
 * (pyttb's defaults unless the options say), and how they are drawn: uniform entries
 * of a dense tensor; for a sparse one, its nonzeros and then uniform draws over the whole
 * tensor that count only as zeros (gcp_sample_template.h). The sparse source lives here
 * too: the tensor in the space with a map of its nonzeros' linear indices. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/hashmap.h"
#include "tenport/memory.h"
#include "portable/tp_error.h"
#include "algorithms/gcp/tp_gcp_internal.h"
#include "algorithms/gcp/tp_gcp_loss.h"
#include "algorithms/sparse/tp_sparse_internal.h"

/* Counter streams of the two kinds of samples. */
#define GCP_STREAM_ZEROS 0x5a45524fu

static int64_t gcp_clamp(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

static int64_t gcp_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static tp_status gcp_check_samples(const tp_gcp_options *o) {
  TP_CHECK_ARG(o->gradient_samples >= 0 && o->gradient_zeros >= 0 && o->function_samples >= 0 &&
                   o->function_zeros >= 0,
               "sample counts must be >= 0 (0: the default)");
  return TP_SUCCESS;
}

/* ---- dense: uniform entries ----------------------------------------------------------------- */

tp_status tpi_gcp_dense_plan(const tp_dense *X, const tp_gcp_options *o, int64_t capacity[2]) {
  TP_TRY(gcp_check_samples(o));
  const int64_t N = tp_dense_count(X);
  capacity[0] =
      o->function_samples ? o->function_samples : gcp_clamp(gcp_ceil_div(N, 10), 1000000, N);
  capacity[1] = o->gradient_samples
                    ? o->gradient_samples
                    : gcp_clamp(gcp_ceil_div(10 * N, o->epochs > 0 ? o->epochs : 1), 1000, N);
  capacity[0] = capacity[0] < N || o->function_samples ? capacity[0] : N;
  capacity[1] = capacity[1] < N || o->gradient_samples ? capacity[1] : N;
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(X->dims[k] <= UINT32_MAX,
                 "dim %d is %lld: GCP-Adam's samples take dims "
                 "below 2^32",
                 k, (long long)X->dims[k]);
  return TP_SUCCESS;
}

tp_status tpi_gcp_dense_draw(tp_space *space, const tp_dense *X, const tp_dense *W,
                             const int64_t *offset, const int64_t capacity[2], int which,
                             uint64_t key, tpi_gcp_sample_view smp, int64_t *count) {
  tpi_gcp_draw q;
  memset(&q, 0, sizeof q);
  for (int k = 0; offset && k < X->order; ++k)
    q.offset[k] = offset[k];
  q.out = smp, q.count = capacity[which], q.key = key, q.X = X, q.W = W;
  q.weight = (double)tp_dense_count(X) / (double)q.count;
  *count = q.count;
  return tpi_gcp_draw_dense(space, &q);
}

/* ---- sparse: nonzeros and zeros apart --------------------------------------------------------- */

tp_status tpi_gcp_sparse_counts(int64_t nnz, double N, const tp_gcp_options *o, int64_t nz[2],
                                int64_t zeros[2]) {
  TP_TRY(gcp_check_samples(o));
  const int64_t epochs = o->epochs > 0 ? o->epochs : 1;
  const double zeros_exist = N - (double)nnz;
  const int64_t zero_cap = zeros_exist < 9e18 ? (int64_t)zeros_exist : INT64_MAX;
  nz[0] =
      o->function_samples ? o->function_samples : gcp_clamp(gcp_ceil_div(nnz, 100), 100000, nnz);
  nz[1] = o->gradient_samples ? o->gradient_samples
                              : gcp_clamp(gcp_ceil_div(3 * nnz, epochs), 1000, nnz);
  nz[0] = nz[0] < nnz || o->function_samples ? nz[0] : nnz;
  nz[1] = nz[1] < nnz || o->gradient_samples ? nz[1] : nnz;
  const int64_t fz = o->function_zeros ? o->function_zeros : nz[0];
  const int64_t gz = o->gradient_zeros ? o->gradient_zeros : nz[1];
  zeros[0] = o->function_zeros ? fz : (fz < zero_cap ? fz : zero_cap);
  zeros[1] = o->gradient_zeros ? gz : (gz < zero_cap ? gz : zero_cap);
  TP_CHECK_ARG(nz[0] + zeros[0] > 0 && nz[1] + zeros[1] > 0, "no samples to draw");
  return TP_SUCCESS;
}

static tpi_gcp_sample_view gcp_view_from(tpi_gcp_sample_view v, int order, int64_t first) {
  for (int k = 0; k < order; ++k)
    v.idx[k] += first;
  v.x += first, v.w += first, v.y += first;
  return v;
}

tp_status tpi_gcp_sparse_box_draw(tp_space *space, const tpi_gcp_sparse_box *box, int64_t nonzeros,
                                  int64_t zeros, uint64_t key, tpi_gcp_sample_view smp) {
  tpi_gcp_draw q;
  memset(&q, 0, sizeof q);
  memcpy(q.offset, box->offset, sizeof q.offset);
  q.coo = &box->X, q.out = smp, q.count = nonzeros, q.key = key;
  q.weight = (double)box->X.nnz / (double)(q.count > 0 ? q.count : 1);
  if (q.count > 0)
    TP_TRY(tpi_gcp_draw_nonzeros(space, &q));
  q.out = gcp_view_from(smp, box->X.order, nonzeros);
  q.count = zeros, q.key = key ^ tpi_gcp_stream_mix(GCP_STREAM_ZEROS);
  q.weight = box->N / (double)(q.count > 0 ? q.count : 1);
  return q.count > 0 ? tpi_gcp_draw_zeros(space, &q, box->nonzeros) : TP_SUCCESS;
}

/* The stored values against the loss (the zeros are taken as data the loss accepts),
 * naming the first refused nonzero by its whole-tensor indices; their sum of squares. */
static tp_status gcp_sparse_stats(const tp_coo *X, const int64_t *offset, tp_gcp_loss loss,
                                  double *norm2) {
  const int rule = tp_gcp_data_rule((int)loss);
  *norm2 = 0;
  for (int64_t j = 0; j < X->nnz; ++j) {
    const double v = tpi_coo_value(X, j);
    if (tp_gcp_data_bad(rule, v)) {
      char where[TP_COO_COORD_TEXT];
      tpi_coo_format_entry(X, j, offset, where, sizeof where);
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "%s = %.17g (nonzero %lld): the %s loss "
                      "needs %s",
                      where, v, (long long)j, tp_gcp_loss_name(loss), tpi_gcp_data_rule_text(loss));
    }
    *norm2 += v * v;
  }
  return TP_SUCCESS;
}

/* The nonzeros' linear indices into a map (duplicates merged first by the caller). */
static tp_status gcp_sparse_map(tp_space *space, tpi_gcp_sparse_box *box) {
  TP_TRY(tp_hashmap_create(space, 2 * box->X.nnz + 16, &box->nonzeros));
  uint64_t *keys = NULL;
  TP_TRY(tp_alloc(space, 2 * sizeof(uint64_t) * (size_t)(box->X.nnz + 1), (void **)&keys));
  tp_status st = tpi_gcp_nonzero_keys(space, &box->X, keys, keys + box->X.nnz);
  if (st == TP_SUCCESS && box->X.nnz > 0)
    st = tp_hashmap_insert(box->nonzeros, keys, keys + box->X.nnz, box->X.nnz, NULL);
  tp_free(space, keys);
  return st;
}

static tp_status gcp_sparse_box_fill(tp_space *space, const tp_coo *X, tp_gcp_loss loss,
                                     tpi_gcp_sparse_box *box, double *norm2) {
  TP_TRY(tp_coo_validate(X));
  box->N = 1;
  for (int k = 0; k < X->order; ++k) {
    TP_CHECK_ARG(X->dims[k] + box->offset[k] <= UINT32_MAX,
                 "dim %d is %lld: GCP-Adam's samples take dims below 2^32", k,
                 (long long)(X->dims[k] + box->offset[k]));
    box->N *= (double)X->dims[k];
  }
  TP_CHECK_ARG(box->N < 0x1p64, "the tensor has %g entries: GCP-Adam takes fewer than 2^64",
               box->N);
  tp_coo merged; /* duplicates summed: each nonzero once in the map */
  TP_TRY(tpi_coo_merged_copy(X, &merged));
  tp_status st = gcp_sparse_stats(&merged, box->offset, loss, norm2);
  if (st == TP_SUCCESS)
    st = tp_coo_copy_to_device(space, &box->X, &merged);
  tp_coo_free(NULL, &merged);
  TP_TRY(st);
  return gcp_sparse_map(space, box);
}

tp_status tpi_gcp_sparse_box_create(tp_space *space, const tp_coo *X, const int64_t *offset,
                                    tp_gcp_loss loss, tpi_gcp_sparse_box *box, double *norm2) {
  memset(box, 0, sizeof *box);
  for (int k = 0; offset && k < X->order && k < TP_DENSE_MAX_ORDER; ++k)
    box->offset[k] = offset[k];
  tp_status st = gcp_sparse_box_fill(space, X, loss, box, norm2);
  if (st != TP_SUCCESS)
    tpi_gcp_sparse_box_free(space, box);
  return st;
}

void tpi_gcp_sparse_box_free(tp_space *space, tpi_gcp_sparse_box *box) {
  tp_hashmap_destroy(&box->nonzeros);
  tp_coo_free(space, &box->X);
}

/* ---- the single process's sparse source --------------------------------------------------- */

typedef struct gcp_sparse_ctx {
  tpi_gcp_sparse_box box;
  int64_t nz[2], zeros[2]; /* per kind: nonzero and zero draws */
  tp_space *space;
} gcp_sparse_ctx;

static tp_status gcp_sparse_plan(void *ctx, const tp_gcp_options *o, int64_t capacity[2]) {
  gcp_sparse_ctx *c = (gcp_sparse_ctx *)ctx;
  TP_TRY(tpi_gcp_sparse_counts(c->box.X.nnz, c->box.N, o, c->nz, c->zeros));
  for (int w = 0; w < 2; ++w)
    capacity[w] = c->nz[w] + c->zeros[w];
  return TP_SUCCESS;
}

static tp_status gcp_sparse_draw(void *ctx, tp_space *space, int which, uint64_t key,
                                 tpi_gcp_sample_view smp, int64_t *count) {
  gcp_sparse_ctx *c = (gcp_sparse_ctx *)ctx;
  *count = c->nz[which] + c->zeros[which];
  return tpi_gcp_sparse_box_draw(space, &c->box, c->nz[which], c->zeros[which], key, smp);
}

static void gcp_sparse_release(void *ctx) {
  gcp_sparse_ctx *c = (gcp_sparse_ctx *)ctx;
  tpi_gcp_sparse_box_free(c->space, &c->box);
  free(c);
}

tp_status tpi_gcp_sparse_source(tp_space *space, const tp_coo *X, tp_gcp_loss loss,
                                tpi_gcp_source *src) {
  gcp_sparse_ctx *c = (gcp_sparse_ctx *)calloc(1, sizeof *c);
  if (!c)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the GCP source");
  c->space = space;
  memset(src, 0, sizeof *src);
  tp_status st = tpi_gcp_sparse_box_create(space, X, NULL, loss, &c->box, &src->data_norm2);
  if (st != TP_SUCCESS) {
    free(c);
    memset(src, 0, sizeof *src);
    return st;
  }
  if (c->box.X.nnz == 0) {
    gcp_sparse_release(c);
    memset(src, 0, sizeof *src);
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "X has no nonzeros: GCP-Adam samples them");
  }
  src->dtype = X->dtype, src->order = X->order, src->dims = c->box.X.dims;
  src->observed = c->box.N;
  src->plan = gcp_sparse_plan, src->draw = gcp_sparse_draw;
  src->release = gcp_sparse_release, src->ctx = c;
  return TP_SUCCESS;
}
