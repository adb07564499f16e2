/* The eigenpairs of a batch of tensors (tp_sshopm_eigenpairs_batch_f64): each tensor's
 * runs merged by tp_sshopm_eigenpairs_f64 in parallel over the tensors, each thread with
 * a workspace of its own; the pairs of each tensor are kept in a block of their own
 * until all are known, then packed into the batch's compact arrays in tensor order. */
#include <stdlib.h>
#include <string.h>

#include "tenport/sshopm.h"
#include "tenport/symtensor.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"

/* One tensor's pairs until they are packed. */
typedef struct tensor_pairs {
  int count;
  tp_eigenpairs pairs; /* arrays of count pairs */
} tensor_pairs;

static void pairs_free(tp_eigenpairs *p) {
  free(p->lambda), free(p->x), free(p->kind), free(p->starts);
  memset(p, 0, sizeof *p);
}

static int pairs_alloc(tp_eigenpairs *p, int capacity, int dim) {
  size_t v = (size_t)(capacity > 0 ? capacity : 1);
  p->count = 0;
  p->lambda = (double *)malloc(sizeof(double) * v);
  p->x = (double *)malloc(sizeof(double) * v * (size_t)dim);
  p->kind = (tp_eig_kind *)malloc(sizeof(tp_eig_kind) * v);
  p->starts = (int *)malloc(sizeof(int) * v);
  return p->lambda && p->x && p->kind && p->starts;
}

/* The pairs in w, moved to a block of their exact size. */
static tp_status keep(const tp_eigenpairs *w, int dim, tensor_pairs *kept) {
  if (!pairs_alloc(&kept->pairs, w->count, dim))
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for %d eigenpairs", w->count);
  size_t c = (size_t)w->count;
  memcpy(kept->pairs.lambda, w->lambda, sizeof(double) * c);
  memcpy(kept->pairs.x, w->x, sizeof(double) * c * (size_t)dim);
  memcpy(kept->pairs.kind, w->kind, sizeof(tp_eig_kind) * c);
  memcpy(kept->pairs.starts, w->starts, sizeof(int) * c);
  kept->count = w->count;
  return TP_SUCCESS;
}

typedef struct batch_job {
  int order, dim, starts;
  int64_t unique;
  const double *values, *lambda, *x;
  const int8_t *flag;
  const tp_eig_merge_options *options;
} batch_job;

static tp_status one_tensor(const batch_job *b, int64_t t, tp_eigenpairs *w, tensor_pairs *kept) {
  const size_t runs = (size_t)t * (size_t)b->starts;
  TP_TRY(tp_sshopm_eigenpairs_f64(b->order, b->dim, b->values + t * b->unique, b->starts,
                                  b->lambda + runs, b->x + runs * (size_t)b->dim, b->flag + runs,
                                  b->options, w));
  return keep(w, b->dim, kept);
}

/* Every tensor's pairs into kept[t]; the first failure by tensor index is reported. */
static tp_status merge_all(const batch_job *b, int64_t tensors, tensor_pairs *kept) {
  tpi_loop_error err;
  memset(&err, 0, sizeof err);
  TP_HOST_OMP(omp parallel) {
    tp_eigenpairs w;
    int ok = pairs_alloc(&w, b->starts, b->dim);
    if (!ok)
      tpi_loop_error_record(&err,
                            TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                                     "no room for the "
                                     "eigenpairs of %d starts",
                                     b->starts),
                            0);
TP_HOST_OMP(omp for schedule(dynamic, 16))
for (int64_t t = 0; t < tensors; ++t) {
  tp_status st = ok ? one_tensor(b, t, &w, &kept[t]) : TP_SUCCESS;
  if (st != TP_SUCCESS)
    tpi_loop_error_record(&err, st, t);
}
pairs_free(&w);
  }
  return tpi_loop_error_raise(&err, "tensor");
}

/* The kept pairs packed into out, tensor by tensor. */
static tp_status pack(const tensor_pairs *kept, int64_t tensors, int dim,
                      tp_eigenpairs_batch *out) {
  out->first = (int64_t *)malloc(sizeof(int64_t) * (size_t)(tensors + 1));
  if (!out->first)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for %lld offsets", (long long)tensors);
  out->first[0] = 0;
  for (int64_t t = 0; t < tensors; ++t)
    out->first[t + 1] = out->first[t] + kept[t].count;
  const size_t total = (size_t)out->first[tensors];
  out->lambda = (double *)malloc(sizeof(double) * (total ? total : 1));
  out->x = (double *)malloc(sizeof(double) * (total ? total : 1) * (size_t)dim);
  out->kind = (tp_eig_kind *)malloc(sizeof(tp_eig_kind) * (total ? total : 1));
  out->starts = (int *)malloc(sizeof(int) * (total ? total : 1));
  if (!out->lambda || !out->x || !out->kind || !out->starts)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for %zu eigenpairs of dimension %d", total,
                    dim);
  for (int64_t t = 0; t < tensors; ++t) {
    const size_t at = (size_t)out->first[t], c = (size_t)kept[t].count;
    memcpy(out->lambda + at, kept[t].pairs.lambda, sizeof(double) * c);
    memcpy(out->x + at * (size_t)dim, kept[t].pairs.x, sizeof(double) * c * (size_t)dim);
    memcpy(out->kind + at, kept[t].pairs.kind, sizeof(tp_eig_kind) * c);
    memcpy(out->starts + at, kept[t].pairs.starts, sizeof(int) * c);
  }
  return TP_SUCCESS;
}

void tp_eigenpairs_batch_free(tp_eigenpairs_batch *batch) {
  if (!batch)
    return;
  free(batch->first), free(batch->lambda), free(batch->x), free(batch->kind);
  free(batch->starts);
  memset(batch, 0, sizeof *batch);
}

tp_status tp_sshopm_eigenpairs_batch_f64(int order, int dim, int64_t tensors,
                                         const double *tensor_values, int num_starts,
                                         const double *lambda, const double *x, const int8_t *flag,
                                         const tp_eig_merge_options *options,
                                         tp_eigenpairs_batch *out) {
  TP_CHECK_ARG(out, "out must not be NULL");
  memset(out, 0, sizeof *out);
  TP_CHECK_ARG(tensors >= 0, "tensors = %lld must be >= 0", (long long)tensors);
  TP_CHECK_ARG(tensors == 0 || (tensor_values && (num_starts == 0 || (lambda && x && flag))),
               "the tensors and their runs must not be NULL");
  int64_t unique;
  TP_TRY(tp_sym_unique_count(order, dim, &unique));
  batch_job b = {order, dim, num_starts, unique, tensor_values, lambda, x, flag, options};
  tensor_pairs *kept = (tensor_pairs *)calloc((size_t)(tensors ? tensors : 1), sizeof *kept);
  if (!kept)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for %lld tensors' eigenpairs",
                    (long long)tensors);
  out->tensors = tensors;
  tp_status st = merge_all(&b, tensors, kept);
  if (st == TP_SUCCESS)
    st = pack(kept, tensors, dim, out);
  for (int64_t t = 0; t < tensors; ++t)
    pairs_free(&kept[t].pairs);
  free(kept);
  if (st != TP_SUCCESS)
    tp_eigenpairs_batch_free(out);
  return st;
}
