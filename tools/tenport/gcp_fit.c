/* The fit of a Gaussian GCP (and of cp-als --mask, which is one): 1 - ||W (X - M)|| /
 * ||W X|| over the observed entries, from the final loss, which is ||W (X - M)||^2, and the
 * observed entries' sum of squares, summed here on the host from the tensor as read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/gcp_cli.h"

static double value_at(const void *values, tp_dtype dtype, int64_t k) {
  return dtype == TP_DTYPE_F32 ? (double)((const float *)values)[k] : ((const double *)values)[k];
}

/* A dense tensor's observed entries (the mask, in X's layout, nonzero where observed). */
static double dense_norm2(const tenport_gcp_job *j) {
  const int64_t count = tp_dense_count(&j->host_x);
  double sum = 0;
  for (int64_t k = 0; k < count; ++k) {
    if (j->mask_in && value_at(j->host_w.data, j->host_w.dtype, k) == 0)
      continue;
    const double x = value_at(j->host_x.data, j->host_x.dtype, k);
    sum += x * x;
  }
  return sum;
}

/* Coordinates as one index, first mode fastest (the tensor's entry count fits: observed
 * > 0 says so). */
static int64_t linear_index(const tp_coo *t, int64_t k) {
  int64_t at = 0;
  for (int m = t->order - 1; m >= 0; --m)
    at = at * t->dims[m] + t->indices[m][k];
  return at;
}

typedef struct entry {
  int64_t at;
  double value;
} entry;

static int by_index(const void *a, const void *b) {
  const int64_t x = ((const entry *)a)->at, y = ((const entry *)b)->at;
  return (x > y) - (x < y);
}

/* A sparse tensor's nonzeros, duplicates summed, less those the mask lists as missing;
 * NAN without the memory. */
static double sparse_norm2(const tenport_gcp_job *j) {
  const tp_coo *x = &j->coo, *gone = &j->missing;
  const int64_t n = x->nnz, g = j->mask_in ? gone->nnz : 0;
  entry *e = (entry *)malloc(sizeof(entry) * (size_t)(n + g + 1));
  if (!e)
    return NAN;
  for (int64_t k = 0; k < n; ++k)
    e[k].at = linear_index(x, k), e[k].value = value_at(x->values, x->dtype, k);
  for (int64_t k = 0; k < g; ++k) /* missing: a NaN marks the whole coordinate out */
    e[n + k].at = linear_index(gone, k), e[n + k].value = NAN;
  qsort(e, (size_t)(n + g), sizeof(entry), by_index);
  double sum = 0;
  for (int64_t k = 0; k < n + g;) {
    int64_t end = k;
    double v = 0;
    for (; end < n + g && e[end].at == e[k].at; ++end)
      v += e[end].value;
    if (!isnan(v))
      sum += v * v;
    k = end;
  }
  free(e);
  return sum;
}

double tenport_gcp_observed_norm2(const tenport_gcp_job *j) {
  if (j->sparse && j->observed <= 0)
    return NAN;
  return j->sparse ? sparse_norm2(j) : dense_norm2(j);
}

double tenport_gcp_fit(const tenport_gcp_job *j) {
  const double norm2 = tenport_gcp_observed_norm2(j);
  if (j->c->solver.loss != TP_GCP_GAUSSIAN || j->result.loss_is_estimate || !(norm2 > 0))
    return NAN;
  return 1.0 - sqrt(fmax(j->result.loss, 0.0)) / sqrt(norm2);
}
