/* SS-HOPM host side: options, validation, starting vectors and the generic kernels'
 * term lists. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/symtensor.h"
#include "portable/tp_error.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"

void tp_sshopm_options_init(tp_sshopm_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->shift = TP_SHIFT_ADAPTIVE;
  o->alpha = 0.0;
  o->concave = 0;
  o->tau = 1e-6;
  o->tol = 1e-10;
  o->xtol = 0.0;
  o->max_iterations = 1000;
  o->kernel = TP_SSHOPM_KERNEL_AUTO;
}

tp_status tpi_sshopm_validate(const tp_sshopm_problem *p, const tp_sshopm_options *o) {
  TP_CHECK_ARG(p && o, "problem or options is NULL");
  TP_CHECK_ARG(p->order >= 2, "order m = %d: SS-HOPM needs m >= 2", p->order);
  int64_t unique;
  TP_TRY(tp_sym_unique_count(p->order, p->dim, &unique));
  if (p->dim > TP_SSHOPM_MAX_DIM)
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                    "dimension n = %d exceeds the batched solver's limit of %d", p->dim,
                    TP_SSHOPM_MAX_DIM);
  if (unique > (1 << 24))
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                    "order %d, dimension %d: %lld unique values per tensor is beyond the "
                    "batched solver (at most 2^24)",
                    p->order, p->dim, (long long)unique);
  TP_CHECK_ARG(p->num_tensors >= 0, "num_tensors = %lld is negative", (long long)p->num_tensors);
  TP_CHECK_ARG(p->num_starts >= 0, "num_starts = %d is negative", p->num_starts);
  TP_CHECK_ARG(o->shift == TP_SHIFT_FIXED || o->shift == TP_SHIFT_ADAPTIVE, "unknown shift mode %d",
               (int)o->shift);
  TP_CHECK_ARG(o->kernel >= TP_SSHOPM_KERNEL_AUTO && o->kernel <= TP_SSHOPM_KERNEL_UNROLLED,
               "unknown kernel choice %d", (int)o->kernel);
  if (!isfinite(o->alpha) || !isfinite(o->tau) || !isfinite(o->tol) || !isfinite(o->xtol))
    return TP_ERROR(TP_ERROR_NUMERICAL,
                    "options: alpha = %g, tau = %g, tol = %g, xtol = %g must be finite", o->alpha,
                    o->tau, o->tol, o->xtol);
  TP_CHECK_ARG(o->tau >= 0, "tau = %g: the adaptive margin must be >= 0", o->tau);
  TP_CHECK_ARG(o->tol >= 0, "tol = %g must be >= 0 (0 runs exactly max_iterations)", o->tol);
  TP_CHECK_ARG(o->xtol >= 0, "xtol = %g must be >= 0 (0: no test on the step)", o->xtol);
  TP_CHECK_ARG(o->max_iterations >= 0, "max_iterations = %d is negative", o->max_iterations);
  if (o->kernel == TP_SSHOPM_KERNEL_UNROLLED && !tp_sshopm_has_unrolled(p->order, p->dim))
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                    "no unrolled kernel was generated for order %d, dimension %d "
                    "(tools/build/gen_sshopm_unrolled.py lists the shapes)",
                    p->order, p->dim);
  return TP_SUCCESS;
}

/* splitmix64: a small, well-mixed generator with identical output everywhere. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

tp_status tp_sshopm_random_starts_f64(uint64_t seed, int dim, int num_starts, double *starts) {
  TP_CHECK_ARG(dim >= 1, "dimension n = %d must be >= 1", dim);
  TP_CHECK_ARG(num_starts >= 0, "num_starts = %d is negative", num_starts);
  TP_CHECK_ARG(starts || num_starts == 0, "starts is NULL");
  uint64_t state = seed;
  for (int v = 0; v < num_starts; ++v) {
    double *x = starts + (int64_t)v * dim, norm2;
    do { /* redraw the (vanishingly rare) vectors too short to normalise well */
      norm2 = 0;
      for (int i = 0; i < dim; ++i) {
        x[i] = 2.0 * ((double)(splitmix64(&state) >> 11) * 0x1.0p-53) - 1.0;
        norm2 += x[i] * x[i];
      }
    } while (norm2 < 1e-8);
    double inv = 1.0 / sqrt(norm2);
    for (int i = 0; i < dim; ++i)
      x[i] *= inv;
  }
  return TP_SUCCESS;
}

/* ---- generic term lists --------------------------------------------------------- */

/* Walks all classes and emits the terms; with NULL arrays it only counts them. */
static void walk_terms(int order, int dim, tpi_sym_terms *t) {
  int idx[TP_SYM_MAX_ORDER];
  int64_t n1 = 0, n2 = 0;
  double f0 = tpi_sym_factorial(order), f1 = tpi_sym_factorial(order - 1),
         f2 = tpi_sym_factorial(order - 2);
  tp_sym_index_first(order, idx);
  for (int64_t j = 0; j < t->unique; ++j, tp_sym_index_next(order, dim, idx)) {
    if (t->index) {
      for (int q = 0; q < order; ++q)
        t->index[j * order + q] = (uint8_t)idx[q];
      t->t0_coef[j] = f0 / tpi_sym_multiplicity_factorials(order, idx, -1, -1);
    }
    for (int p = 0; p < order; ++p) {
      if (p > 0 && idx[p] == idx[p - 1])
        continue; /* one term per distinct index value: drop its first occurrence */
      if (t->t1_class) {
        t->t1_class[n1] = (int32_t)j;
        t->t1_meta[n1] = idx[p] | p << 8;
        t->t1_coef[n1] = f1 / tpi_sym_multiplicity_factorials(order, idx, p, -1);
      }
      ++n1;
      for (int q = p + 1; q < order; ++q) {
        if (q > p + 1 && idx[q] == idx[q - 1])
          continue; /* a second occurrence of idx[p], or the first of a larger value */
        if (t->t2_class) {
          t->t2_class[n2] = (int32_t)j;
          t->t2_meta[n2] = idx[p] | idx[q] << 8 | p << 16 | q << 24;
          t->t2_coef[n2] = f2 / tpi_sym_multiplicity_factorials(order, idx, p, q);
        }
        ++n2;
      }
    }
  }
  t->n1 = n1, t->n2 = n2;
}

void tpi_sym_terms_free(tpi_sym_terms *t) {
  if (!t)
    return;
  free(t->index), free(t->t1_class), free(t->t1_meta), free(t->t2_class), free(t->t2_meta);
  free(t->t0_coef), free(t->t1_coef), free(t->t2_coef);
  memset(t, 0, sizeof *t);
}

tp_status tpi_sym_terms_build(int order, int dim, tpi_sym_terms *t) {
  TP_CHECK_ARG(t, "terms is NULL");
  memset(t, 0, sizeof *t);
  TP_CHECK_ARG(order >= 2 && dim >= 1 && dim <= 255,
               "order %d, dimension %d: generic "
               "kernels need m >= 2 and n <= 255",
               order, dim);
  TP_TRY(tp_sym_unique_count(order, dim, &t->unique));
  t->order = order, t->dim = dim;
  walk_terms(order, dim, t); /* count */
  size_t u = (size_t)t->unique, n1 = (size_t)t->n1, n2 = (size_t)t->n2 + 1;
  t->index = (uint8_t *)malloc(u * (size_t)order);
  t->t0_coef = (double *)malloc(u * sizeof(double));
  t->t1_class = (int32_t *)malloc(n1 * sizeof(int32_t));
  t->t1_meta = (int32_t *)malloc(n1 * sizeof(int32_t));
  t->t1_coef = (double *)malloc(n1 * sizeof(double));
  t->t2_class = (int32_t *)malloc(n2 * sizeof(int32_t));
  t->t2_meta = (int32_t *)malloc(n2 * sizeof(int32_t));
  t->t2_coef = (double *)malloc(n2 * sizeof(double));
  if (!t->index || !t->t0_coef || !t->t1_class || !t->t1_meta || !t->t1_coef || !t->t2_class ||
      !t->t2_meta || !t->t2_coef) {
    tpi_sym_terms_free(t);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "no room for the term lists of order %d, "
                    "dimension %d",
                    order, dim);
  }
  walk_terms(order, dim, t); /* fill */
  return TP_SUCCESS;
}
