/* CP-ALS's final normalisation, as the Tensor Toolbox leaves a model: unit 2-norm
 * columns with the norms in lambda, lambda >= 0, components sorted by lambda (largest
 * first), and signs fixed as its fixsigns does: in each component, each factor whose
 * entry of largest magnitude is negative is a candidate for a flip, and the candidates
 * are flipped in pairs in mode order, so the model is unchanged and at most one factor
 * of a component keeps a negative leading entry. Fixed modes keep their factors as
 * they are: only the free ones are scaled and flipped, and the components keep their
 * order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "algorithms/cp_als/tp_cp_run.h"
#include "portable/tp_error.h"

typedef struct cp_component {
  double lambda;
  int64_t index;
} cp_component;

/* Largest lambda first; equal values keep their index order. */
static int cp_component_cmp(const void *pa, const void *pb) {
  const cp_component *a = (const cp_component *)pa, *b = (const cp_component *)pb;
  if (a->lambda != b->lambda)
    return a->lambda > b->lambda ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

typedef struct cp_final {
  double *scale; /* d x R: what each column of each factor is multiplied by */
  double *high;  /* R: a column's largest entry */
  double *low;   /* R: a column's smallest entry */
  cp_component *order;
  int64_t *perm; /* R */
} cp_final;

static void *cp_factor_rows(tp_cp_run *run, int k) {
  return tpi_cp_run_row(run, run->M, k, tpi_cp_run_own_offset(run, k));
}

/* Free factors to unit 2-norm columns, their norms into lambda. */
static tp_status cp_unit_columns(tp_cp_run *run, cp_final *f) {
  const int64_t R = run->R;
  for (int k = 0; k < run->d; ++k) {
    double *sk = f->scale + (size_t)k * (size_t)R;
    if (tpi_cp_run_fixed(run, k)) {
      for (int64_t r = 0; r < R; ++r)
        sk[r] = 1.0;
      continue;
    }
    TP_TRY(tpi_cp_run_owned_columns(run, TP_CP_COLUMN_NORM2, cp_factor_rows(run, k), NULL, k, sk));
    for (int64_t r = 0; r < R; ++r) {
      run->lambda[r] *= sk[r];
      sk[r] = sk[r] > 0 ? 1.0 / sk[r] : 1.0;
    }
  }
  return TP_SUCCESS;
}

/* lambda >= 0, its sign moved into the first free factor. */
static void cp_positive_lambda(tp_cp_run *run, cp_final *f) {
  int first_free = 0;
  while (tpi_cp_run_fixed(run, first_free))
    ++first_free;
  double *s = f->scale + (size_t)first_free * (size_t)run->R;
  for (int64_t r = 0; r < run->R; ++r)
    if (run->lambda[r] < 0)
      run->lambda[r] = -run->lambda[r], s[r] = -s[r];
}

/* The sign of each free factor's entry of largest magnitude (after its scale) into
 * negative[k * R + r]; a tie between a largest and a smallest entry counts positive. */
static tp_status cp_leading_signs(tp_cp_run *run, cp_final *f, unsigned char *negative) {
  const int64_t R = run->R;
  for (int k = 0; k < run->d; ++k) {
    if (tpi_cp_run_fixed(run, k))
      continue;
    void *U = cp_factor_rows(run, k);
    TP_TRY(tpi_cp_run_owned_columns(run, TP_CP_COLUMN_MAX, U, NULL, k, f->high));
    TP_TRY(tpi_cp_run_owned_columns(run, TP_CP_COLUMN_MIN, U, NULL, k, f->low));
    const double *s = f->scale + (size_t)k * (size_t)R;
    for (int64_t r = 0; r < R; ++r) {
      int leading_negative = f->high[r] < -f->low[r];
      negative[(size_t)k * (size_t)R + r] = (unsigned char)(leading_negative != (s[r] < 0));
    }
  }
  return TP_SUCCESS;
}

/* fixsigns: the candidates of each component flipped in pairs, in mode order. */
static tp_status cp_fix_signs(tp_cp_run *run, cp_final *f) {
  const int64_t R = run->R;
  unsigned char *negative = (unsigned char *)calloc((size_t)run->d * (size_t)R, 1);
  if (!negative)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory to fix the signs");
  tp_status st = cp_leading_signs(run, f, negative);
  for (int64_t r = 0; st == TP_SUCCESS && r < R; ++r) {
    int count = 0, flipped = 0;
    for (int k = 0; k < run->d; ++k)
      count += negative[(size_t)k * (size_t)R + r];
    for (int k = 0; k < run->d && flipped < count / 2 * 2; ++k)
      if (negative[(size_t)k * (size_t)R + r])
        f->scale[(size_t)k * (size_t)R + r] *= -1.0, ++flipped;
  }
  free(negative);
  return st;
}

/* perm: components by lambda, largest first (the identity with fixed modes). */
static void cp_order(tp_cp_run *run, cp_final *f) {
  const int64_t R = run->R;
  for (int64_t r = 0; r < R; ++r)
    f->order[r].lambda = run->lambda[r], f->order[r].index = r;
  if (!run->opts->fixed_modes)
    qsort(f->order, (size_t)R, sizeof *f->order, cp_component_cmp);
  for (int64_t r = 0; r < R; ++r)
    f->perm[r] = f->order[r].index, run->lambda[r] = f->order[r].lambda;
}

/* Each free factor's columns permuted and scaled (through run->G, max_dim x R). */
static tp_status cp_apply(tp_cp_run *run, cp_final *f) {
  const int64_t R = run->R;
  for (int k = 0; k < run->d; ++k) {
    if (tpi_cp_run_fixed(run, k))
      continue;
    const int64_t rows = tpi_cp_run_slab_rows(run, k);
    TP_TRY(tpi_cp_columns_gather(run->space, run->dtype, run->M->factors[k], run->G, rows, R,
                                 f->perm, f->scale + (size_t)k * (size_t)R));
    TP_TRY(tp_copy_on_device(run->space, run->M->factors[k], run->G,
                             tpi_cp_run_elem(run) * (size_t)(rows * R)));
  }
  return TP_SUCCESS;
}

tp_status tpi_cp_final_normalise(tp_cp_run *run) {
  const size_t R = (size_t)run->R;
  cp_final f;
  f.scale = (double *)malloc(sizeof(double) * (size_t)run->d * R);
  f.high = (double *)malloc(sizeof(double) * R);
  f.low = (double *)malloc(sizeof(double) * R);
  f.order = (cp_component *)malloc(sizeof(cp_component) * R);
  f.perm = (int64_t *)malloc(sizeof(int64_t) * R);
  tp_status st = TP_SUCCESS;
  if (!f.scale || !f.high || !f.low || !f.order || !f.perm)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory to normalise rank %zu factors", R);
  if (st == TP_SUCCESS)
    st = cp_unit_columns(run, &f);
  if (st == TP_SUCCESS) {
    cp_positive_lambda(run, &f);
    st = cp_fix_signs(run, &f);
  }
  if (st == TP_SUCCESS) {
    cp_order(run, &f);
    st = cp_apply(run, &f);
  }
  free(f.scale), free(f.high), free(f.low), free(f.order), free(f.perm);
  return st;
}
