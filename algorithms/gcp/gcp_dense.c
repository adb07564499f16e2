/* A dense tensor (and its mask) as a GCP objective source: the data checked against the
 * loss once, then per evaluation one pass over X in the space (the objective and the
 * derivative tensor Y) and one MTTKRP of Y per mode for the gradient. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "tenport/mttkrp.h"
#include "algorithms/gcp/tp_gcp_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_space_common.h"

typedef struct gcp_dense_ctx {
  const tp_dense *X, *W;
  tp_dense Y;      /* with_gradient only */
  double *partial; /* per chunk, in the space */
  int64_t chunks, capacity[2];
  tp_gcp_loss loss;
  double param;
  tp_space *space;
  int64_t offset[TP_DENSE_MAX_ORDER]; /* X's first index in a larger tensor (a block) */
  int block;                          /* X is a block of a larger tensor */
} gcp_dense_ctx;

static tp_status gcp_dense_f(void *ctx, tp_space *space, const tp_kruskal *M, double *f) {
  gcp_dense_ctx *c = (gcp_dense_ctx *)ctx;
  tpi_gcp_pass p = {c->X, c->W, M, NULL, c->loss, c->param, 0};
  TP_TRY(tpi_gcp_pass_fg(space, &p, c->partial));
  return tpi_gcp_sum_partials(space, c->partial, c->chunks, f);
}

static tp_status gcp_dense_plan(void *ctx, const tp_gcp_options *o, int64_t capacity[2]) {
  gcp_dense_ctx *c = (gcp_dense_ctx *)ctx;
  TP_TRY(tpi_gcp_dense_plan(c->X, o, c->capacity));
  capacity[0] = c->capacity[0], capacity[1] = c->capacity[1];
  return TP_SUCCESS;
}

static tp_status gcp_dense_draw(void *ctx, tp_space *space, int which, uint64_t key,
                                tpi_gcp_sample_view smp, int64_t *count) {
  gcp_dense_ctx *c = (gcp_dense_ctx *)ctx;
  return tpi_gcp_dense_draw(space, c->X, c->W, c->offset, c->capacity, which, key, smp, count);
}

static tp_status gcp_dense_fg(void *ctx, tp_space *space, const tp_kruskal *M, double *f,
                              tp_kruskal *G) {
  gcp_dense_ctx *c = (gcp_dense_ctx *)ctx;
  tpi_gcp_pass p = {c->X, c->W, M, c->Y.data, c->loss, c->param, 0};
  TP_TRY(tpi_gcp_pass_fg(space, &p, c->partial));
  TP_TRY(tpi_gcp_sum_partials(space, c->partial, c->chunks, f));
  for (int k = 0; k < c->X->order; ++k)
    TP_TRY(tp_mttkrp(space, &c->Y, M, k, G->factors[k], NULL));
  return TP_SUCCESS;
}

static void gcp_dense_release(void *ctx) {
  gcp_dense_ctx *c = (gcp_dense_ctx *)ctx;
  tp_dense_free(c->space, &c->Y);
  tp_free(c->space, c->partial);
  free(c);
}

/* "X[i0, i1, ...] = v" of element e (indices of the whole tensor, offset added), for
 * messages. */
static void gcp_name_element(tp_space *space, const tp_dense *X, const int64_t *offset, int64_t e,
                             char *buf, size_t size) {
  int64_t idx[TP_DENSE_MAX_ORDER], rest = e;
  for (int t = 0; t < X->order; ++t) {
    const int k = X->layout == TP_LAYOUT_RIGHT ? X->order - 1 - t : t;
    idx[k] = rest % X->dims[k];
    rest /= X->dims[k];
  }
  int n = snprintf(buf, size, "X[");
  for (int k = 0; k < X->order && n > 0 && (size_t)n < size; ++k)
    n +=
        snprintf(buf + n, size - (size_t)n, k ? ", %lld" : "%lld", (long long)(idx[k] + offset[k]));
  double v = NAN;
  const size_t eb = tp_dtype_size(X->dtype);
  unsigned char raw[8];
  if (tp_copy_to_host(space, raw, (const char *)X->data + (size_t)e * eb, eb) == TP_SUCCESS) {
    float f32;
    if (X->dtype == TP_DTYPE_F32)
      memcpy(&f32, raw, sizeof f32), v = f32;
    else
      memcpy(&v, raw, sizeof v);
  }
  if (n > 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n, "] = %.17g", v);
}

/* The observed entries' statistics; an entry the loss refuses is an error naming it. */
static tp_status gcp_dense_stats(tp_space *space, gcp_dense_ctx *c, tpi_gcp_source *src) {
  const int64_t n = c->chunks;
  double *sq = NULL, *seen = NULL;
  int64_t *bad = NULL, *first = NULL;
  double *hsq = (double *)malloc(sizeof(double) * 2 * (size_t)n);
  int64_t *hbad = (int64_t *)malloc(sizeof(int64_t) * 2 * (size_t)n);
  tp_status st =
      hsq && hbad ? TP_SUCCESS
                  : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld partials", (long long)n);
  if (st == TP_SUCCESS)
    st = tp_temp_alloc(space, sizeof(double) * 2 * (size_t)n + sizeof(int64_t) * 2 * (size_t)n,
                       (void **)&sq);
  if (st == TP_SUCCESS) {
    seen = sq + n, bad = (int64_t *)(seen + n), first = bad + n;
    tpi_gcp_pass p = {c->X, c->W, NULL, NULL, c->loss, c->param, 0};
    st = tpi_gcp_pass_stats(space, &p, sq, seen, bad, first);
    if (st == TP_SUCCESS)
      st = tp_copy_to_host(space, hsq, sq, sizeof(double) * 2 * (size_t)n);
    if (st == TP_SUCCESS)
      st = tp_copy_to_host(space, hbad, bad, sizeof(int64_t) * 2 * (size_t)n);
    tp_temp_release(space, sq);
  }
  int64_t refused = 0, first_bad = -1;
  src->data_norm2 = 0, src->observed = 0;
  for (int64_t j = 0; st == TP_SUCCESS && j < n; ++j) {
    src->data_norm2 += hsq[j], src->observed += hsq[n + j];
    if (hbad[j] > 0 && first_bad < 0)
      first_bad = hbad[n + j];
    refused += hbad[j];
  }
  free(hsq), free(hbad);
  TP_TRY(st);
  if (refused > 0) {
    char where[256];
    gcp_name_element(space, c->X, c->offset, first_bad, where, sizeof where);
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%s: the %s loss needs %s (%lld observed entr%s refused)", where,
                    tp_gcp_loss_name(c->loss), tpi_gcp_data_rule_text(c->loss), (long long)refused,
                    refused == 1 ? "y is" : "ies are");
  }
  if (src->observed == 0 && !c->block) /* a block may have none; the whole must not */
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "the mask leaves no observed entry");
  return TP_SUCCESS;
}

static tp_status gcp_dense_check(const tp_dense *X, const tp_dense *W) {
  TP_TRY(tp_dense_check(X));
  TP_CHECK_ARG(X->dtype == TP_DTYPE_F32 || X->dtype == TP_DTYPE_F64,
               "X is %s: GCP takes float32 or float64 tensors", tp_dtype_name(X->dtype));
  if (!W)
    return TP_SUCCESS;
  TP_TRY(tp_dense_check(W));
  TP_CHECK_ARG(W->dtype == X->dtype, "the mask is %s, X %s: give the mask X's dtype",
               tp_dtype_name(W->dtype), tp_dtype_name(X->dtype));
  TP_CHECK_ARG(W->order == X->order && W->layout == X->layout,
               "the mask's order or layout differs from X's");
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(W->dims[k] == X->dims[k], "the mask's dim %d is %lld, X's %lld", k,
                 (long long)W->dims[k], (long long)X->dims[k]);
  TP_CHECK_ARG(W->data != X->data, "the mask is X itself");
  return TP_SUCCESS;
}

tp_status tpi_gcp_dense_source(tp_space *space, const tp_dense *X, const tp_dense *W,
                               tp_gcp_loss loss, double param, int with_gradient,
                               tpi_gcp_source *src) {
  return tpi_gcp_dense_block_source(space, X, W, NULL, loss, param, with_gradient, src);
}

tp_status tpi_gcp_dense_block_source(tp_space *space, const tp_dense *X, const tp_dense *W,
                                     const int64_t *offset, tp_gcp_loss loss, double param,
                                     int with_gradient, tpi_gcp_source *src) {
  TP_TRY(gcp_dense_check(X, W));
  gcp_dense_ctx *c = (gcp_dense_ctx *)calloc(1, sizeof *c);
  if (!c)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the GCP source");
  c->X = X, c->W = W, c->loss = loss, c->param = param, c->space = space;
  c->block = offset != NULL;
  for (int k = 0; offset && k < X->order; ++k)
    c->offset[k] = offset[k];
  c->chunks = tpi_gcp_chunks(tp_dense_count(X));
  memset(src, 0, sizeof *src);
  src->dtype = X->dtype, src->order = X->order, src->dims = X->dims;
  src->fg = with_gradient ? gcp_dense_fg : NULL, src->f = gcp_dense_f;
  src->plan = gcp_dense_plan, src->draw = gcp_dense_draw;
  src->release = gcp_dense_release, src->ctx = c;
  tp_status st = tp_alloc(space, sizeof(double) * (size_t)c->chunks, (void **)&c->partial);
  if (st == TP_SUCCESS)
    st = gcp_dense_stats(space, c, src);
  if (st == TP_SUCCESS && with_gradient) /* Y last: the checks fail before it */
    st = tp_dense_alloc(space, X->dtype, X->order, X->dims, X->layout, &c->Y);
  if (st != TP_SUCCESS) {
    gcp_dense_release(c);
    memset(src, 0, sizeof *src);
  }
  return st;
}
