/* tenport sshopm's computation, for the single-process and distributed runs alike: a
 * batch's runs of SS-HOPM on the space, and each tensor's distinct eigenpairs as a
 * table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/sshopm_cli.h"

/* Host allocation failures of this tool: no library message goes with them. */
static tp_status host_oom(void) {
  tp_clear_error();
  return TP_ERROR_OUT_OF_MEMORY;
}

void tenport_sshopm_runs_free(runs *r) {
  free(r->lambda), free(r->x), free(r->flag), free(r->iterations);
  memset(r, 0, sizeof *r);
}

static int runs_alloc(runs *r) {
  size_t n = (size_t)r->tensors * (size_t)r->starts;
  r->lambda = (double *)malloc(sizeof(double) * (n ? n : 1));
  r->x = (double *)malloc(sizeof(double) * (n ? n : 1) * (size_t)r->dim);
  r->flag = (int8_t *)malloc(n ? n : 1);
  r->iterations = (int32_t *)malloc(sizeof(int32_t) * (n ? n : 1));
  return r->lambda && r->x && r->flag && r->iterations;
}

/* Copies n doubles into new space memory, as floats if single. */
static tp_status upload(tp_space *s, const double *h, size_t n, int single, void **d) {
  *d = NULL;
  tp_status st = tp_alloc(s, n * (single ? sizeof(float) : sizeof(double)), d);
  if (st != TP_SUCCESS)
    return st;
  if (!single)
    return tp_copy_to_device(s, *d, h, n * sizeof(double));
  float *f = (float *)malloc(sizeof(float) * (n ? n : 1));
  if (!f)
    return host_oom();
  for (size_t i = 0; i < n; ++i)
    f[i] = (float)h[i];
  st = tp_copy_to_device(s, *d, f, n * sizeof(float));
  free(f);
  return st;
}

/* Copies n values of the run's precision back into doubles. */
static tp_status download(tp_space *s, const void *d, size_t n, int single, double *h) {
  if (!single)
    return tp_copy_to_host(s, h, d, n * sizeof(double));
  float *f = (float *)malloc(sizeof(float) * (n ? n : 1));
  if (!f)
    return host_oom();
  tp_status st = tp_copy_to_host(s, f, d, n * sizeof(float));
  for (size_t i = 0; st == TP_SUCCESS && i < n; ++i)
    h[i] = f[i];
  free(f);
  return st;
}

/* The solver call itself, timed on the space. */
static tp_status run_timed(tp_space *s, const sshopm_cli *c, const tp_sshopm_problem *p,
                           void *const d[6], double *seconds) {
  tp_timer *timer = NULL;
  double ms = 0;
  tp_status st = tp_timer_create(s, &timer);
  if (st == TP_SUCCESS)
    st = tp_timer_start(timer);
  if (st == TP_SUCCESS && c->single) {
    tp_sshopm_out_f32 out = {(float *)d[2], (float *)d[3], (int8_t *)d[4], (int32_t *)d[5]};
    st = tp_sshopm_f32(s, p, (const float *)d[0], (const float *)d[1], &c->solver, &out);
  } else if (st == TP_SUCCESS) {
    tp_sshopm_out_f64 out = {(double *)d[2], (double *)d[3], (int8_t *)d[4], (int32_t *)d[5]};
    st = tp_sshopm_f64(s, p, (const double *)d[0], (const double *)d[1], &c->solver, &out);
  }
  if (st == TP_SUCCESS)
    st = tp_timer_stop(timer, &ms);
  if (timer)
    tp_timer_destroy(&timer);
  *seconds = 1e-3 * ms;
  return st;
}

/* Runs V starts on T tensors a (host, T x U doubles) and fills r. */
tp_status tenport_sshopm_solve(tp_space *s, const sshopm_cli *c, int order, int dim,
                               int64_t tensors, const double *a, runs *r) {
  int64_t unique;
  tp_status st = tp_sym_unique_count(order, dim, &unique);
  if (st != TP_SUCCESS)
    return st;
  memset(r, 0, sizeof *r);
  r->tensors = tensors, r->starts = c->starts, r->order = order, r->dim = dim;
  size_t n = (size_t)tensors * (size_t)c->starts, es = c->single ? 4 : 8;
  double *x0 = (double *)malloc(sizeof(double) * (size_t)c->starts * (size_t)dim);
  void *d[6] = {NULL, NULL, NULL, NULL, NULL, NULL}; /* tensors, starts, lambda, x, flag, its */
  if (!runs_alloc(r) || !x0) {
    free(x0);
    return host_oom();
  }
  st = tp_sshopm_random_starts_f64(c->seed, dim, c->starts, x0);
  if (st == TP_SUCCESS)
    st = upload(s, a, (size_t)(tensors * unique), c->single, &d[0]);
  if (st == TP_SUCCESS)
    st = upload(s, x0, (size_t)c->starts * (size_t)dim, c->single, &d[1]);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, es * n, &d[2]);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, es * n * (size_t)dim, &d[3]);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, n, &d[4]);
  if (st == TP_SUCCESS)
    st = tp_alloc(s, sizeof(int32_t) * n, &d[5]);
  tp_sshopm_problem p = {order, dim, tensors, c->starts};
  if (st == TP_SUCCESS)
    st = run_timed(s, c, &p, d, &r->seconds);
  if (st == TP_SUCCESS)
    st = download(s, d[2], n, c->single, r->lambda);
  if (st == TP_SUCCESS)
    st = download(s, d[3], n * (size_t)dim, c->single, r->x);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(s, r->flag, d[4], n);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(s, r->iterations, d[5], sizeof(int32_t) * n);
  for (int i = 0; i < 6; ++i)
    tp_free(s, d[i]);
  free(x0);
  return st;
}

void tenport_sshopm_table_free(pair_table *t) {
  for (int64_t i = 0; t->rows && i < t->tensors; ++i)
    free(t->rows[i]);
  free(t->rows), free(t->count);
  memset(t, 0, sizeof *t);
}

/* Tensor t's pairs of the batch as rows of the table (lambda, kind, starts, x). */
static tp_status table_rows(const tp_eigenpairs_batch *b, int64_t t, int dim, pair_table *tab) {
  const int64_t first = b->first[t];
  const int count = (int)(b->first[t + 1] - first);
  double *rows =
      (double *)malloc(sizeof(double) * (size_t)(count ? count : 1) * (size_t)tab->width);
  if (!rows)
    return host_oom();
  for (int k = 0; k < count; ++k) {
    double *row = rows + (size_t)k * (size_t)tab->width;
    row[0] = b->lambda[first + k], row[1] = (double)b->kind[first + k];
    row[2] = (double)b->starts[first + k];
    memcpy(row + PAIR_FIXED_COLS, b->x + (size_t)(first + k) * (size_t)dim,
           sizeof(double) * (size_t)dim);
  }
  tab->rows[t] = rows;
  tab->count[t] = count;
  tab->max_count = count > tab->max_count ? count : tab->max_count;
  return TP_SUCCESS;
}

/* The distinct eigenpairs of every tensor (a: T x U), merged by the library
 * (tp_sshopm_eigenpairs_batch_f64), as the table's rows. On failure, message holds the
 * error's text. */
tp_status tenport_sshopm_pairs(const runs *r, const double *a, int64_t unique, pair_table *tab,
                               char *message, size_t message_size) {
  (void)unique; /* the library knows it from the order and dimension */
  memset(tab, 0, sizeof *tab);
  tab->tensors = r->tensors, tab->width = r->dim + PAIR_FIXED_COLS;
  size_t t_count = (size_t)(r->tensors ? r->tensors : 1);
  tab->count = (int *)calloc(t_count, sizeof(int));
  tab->rows = (double **)calloc(t_count, sizeof(double *));
  if (!tab->count || !tab->rows)
    return host_oom();
  tp_eigenpairs_batch b;
  tp_status st = tp_sshopm_eigenpairs_batch_f64(r->order, r->dim, r->tensors, a, r->starts,
                                                r->lambda, r->x, r->flag, NULL, &b);
  for (int64_t t = 0; st == TP_SUCCESS && t < r->tensors; ++t)
    st = table_rows(&b, t, r->dim, tab);
  if (st != TP_SUCCESS)
    snprintf(message, message_size, "%s",
             *tp_last_error() ? tp_last_error() : "out of host memory");
  tp_eigenpairs_batch_free(&b);
  return st;
}

double *tenport_sshopm_padded(const pair_table *tab, int max_count) {
  size_t per = (size_t)max_count * (size_t)tab->width, t = (size_t)tab->tensors;
  double *out = (double *)malloc(sizeof(double) * (per * t > 0 ? per * t : 1));
  if (!out)
    return NULL;
  for (size_t i = 0; i < per * t; ++i)
    out[i] = NAN;
  for (size_t i = 0; i < t; ++i)
    memcpy(out + i * per, tab->rows[i],
           sizeof(double) * (size_t)tab->count[i] * (size_t)tab->width);
  return out;
}
