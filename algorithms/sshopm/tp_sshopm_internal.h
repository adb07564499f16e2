/* SS-HOPM internals shared by the host code, the per-precision solvers and the tests. */
#ifndef TP_SSHOPM_INTERNAL_H
#define TP_SSHOPM_INTERNAL_H

#include <stdint.h>

#include "tenport/sshopm.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* k! in double (exact for k <= 18). */
double tpi_sym_factorial(int k);
/* Product of the factorials of the multiplicities in a nondecreasing index, skipping
 * positions skip_a and skip_b (-1: none): the multinomial's denominator. */
double tpi_sym_multiplicity_factorials(int order, const int *index, int skip_a, int skip_b);

/* Frobenius norm of the full tensor (unique values a, lexicographic classes) as
 * big * root: big = max_j |a_j| and root = sqrt(sum_j multinomial_j (a_j / big)^2), so
 * nothing overflows. Returns 0; 1 for a tensor of zeros (big = root = 1); -1 (outputs
 * untouched) if a value is not finite. */
int tpi_sym_norm_parts_f64(int order, int dim, int64_t unique, const double *a, double *big,
                           double *root);

/* The first failure of a parallel host loop over items (loop_error.c): record keeps the
 * status and message of the smallest item that failed; raise re-raises it as
 * "WHAT ITEM: message" (TP_SUCCESS when nothing failed). Zero-initialise it. */
typedef struct tpi_loop_error {
  tp_status status;
  int64_t item;
  char message[512];
} tpi_loop_error;
void tpi_loop_error_record(tpi_loop_error *e, tp_status st, int64_t item);
tp_status tpi_loop_error_raise(const tpi_loop_error *e, const char *what);

/* Checks a problem and options (shapes, limits, finite and sensible options). */
tp_status tpi_sshopm_validate(const tp_sshopm_problem *problem, const tp_sshopm_options *options);

/* Shape-only term lists of the generic kernels (host arrays). A term adds
 * coef * a[class] * prod_{q != skips} x[index[class][q]] to one output entry.
 *   index  unique x order class index representations
 *   t1     A x^(m-1): meta = out_i | skip_p << 8
 *   t2     A x^(m-2): meta = out_i | out_k << 8 | skip_p << 16 | skip_q << 24, i <= k
 *   t0     A x^m: coefficient per class (the multinomial) */
typedef struct tpi_sym_terms {
  int order, dim;
  int64_t unique, n1, n2;
  uint8_t *index;
  int32_t *t1_class, *t1_meta, *t2_class, *t2_meta;
  double *t0_coef, *t1_coef, *t2_coef;
} tpi_sym_terms;

tp_status tpi_sym_terms_build(int order, int dim, tpi_sym_terms *terms);
void tpi_sym_terms_free(tpi_sym_terms *terms);

/* Test entry points: the products A x^m, A x^(m-1) and A x^(m-2) of T tensors at T
 * points (x: T x n) by the chosen kernel, all arrays in the space; out0 (T), out1
 * (T x n), out2 (T x n x n). */
tp_status tp_sym_products_f32(tp_space *space, int order, int dim, int64_t num_tensors,
                              const float *tensors, const float *x, tp_sshopm_kernel kernel,
                              float *out0, float *out1, float *out2);
tp_status tp_sym_products_f64(tp_space *space, int order, int dim, int64_t num_tensors,
                              const double *tensors, const double *x, tp_sshopm_kernel kernel,
                              double *out0, double *out1, double *out2);

TP_EXTERN_C_END
#endif
