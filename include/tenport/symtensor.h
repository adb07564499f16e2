/* Symmetric tensors of order m and dimension n, stored by unique values.
 *
 * A symmetric tensor keeps one value per index class. Classes are listed in
 * lexicographic order of their index representation (the nondecreasing tensor
 * index, 0-based here): for m = 3, n = 2 the order is 000, 001, 011, 111. There
 * are U = C(m + n - 1, m) classes; the class with monomial representation
 * [k_0 .. k_{n-1}] (k_i = occurrences of index i) holds m! / (k_0! ... k_{n-1}!)
 * tensor entries (its multinomial coefficient).
 *
 * Multinomials are exact integers; every size is checked for overflow, and orders
 * whose m! exceeds 2^53 (no longer exact in double) are refused. All functions
 * here work on host memory. */
#ifndef TENPORT_SYMTENSOR_H
#define TENPORT_SYMTENSOR_H

#include <stdint.h>

#include "tenport/export.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest order whose m! is exact in double (18! < 2^53 < 19!). */
#define TP_SYM_MAX_ORDER 18

/* Number of unique values U = C(m + n - 1, m); fails on m or n < 1, m above
 * TP_SYM_MAX_ORDER, or a count above 2^53. */
TP_API tp_status tp_sym_unique_count(int order, int dim, int64_t *count);

/* The first index representation [0, 0, ..., 0]. */
TP_API void tp_sym_index_first(int order, int *index);

/* Advances index (nondecreasing, entries in [0, dim)) to its lexicographic successor
 * (the paper's UPDATEINDEX); returns 0, leaving index unchanged, after the last class. */
TP_API int tp_sym_index_next(int order, int dim, int *index);

/* Multinomial coefficient m! / prod k_i! of the class with this index representation. */
TP_API int64_t tp_sym_class_multinomial(int order, const int *index);

/* Position of a class (given by any tensor index, sorted or not) in the unique
 * values; -1 if an entry is outside [0, dim). */
TP_API int64_t tp_sym_class_position(int order, int dim, const int *index);

/* All index representations, row j = class j (count x order entries), and all
 * multinomial coefficients (count entries); either pointer may be NULL. */
TP_API tp_status tp_sym_index_table(int order, int dim, int32_t *index, int64_t *multinomial);

/* Expands unique values into the full n^m tensor (last index fastest). */
TP_API tp_status tp_sym_to_full_f64(int order, int dim, const double *unique, double *full);

/* Unique values of a full n^m tensor: the mean over each class (exact when the
 * tensor is exactly symmetric). Fails with TP_ERROR_NUMERICAL if two entries of a
 * class differ by more than rel_tol times the largest magnitude, or if the tensor
 * holds non-finite values. */
TP_API tp_status tp_sym_from_full_f64(int order, int dim, const double *full, double rel_tol,
                                      double *unique);

/* Reference products in double by enumeration of the classes (Eqs. 3.2, 3.4):
 * A x^m, A x^(m-1) (n values) and A x^(m-2) (n x n, symmetric; needs m >= 2). */
TP_API tp_status tp_sym_axm_f64(int order, int dim, const double *unique, const double *x,
                                double *result);
TP_API tp_status tp_sym_axm1_f64(int order, int dim, const double *unique, const double *x,
                                 double *y);
TP_API tp_status tp_sym_axm2_f64(int order, int dim, const double *unique, const double *x,
                                 double *h);

/* Checks that count values are finite; names the first bad one (what names the array). */
TP_API tp_status tp_check_finite_f64(const double *values, int64_t count, const char *what);
TP_API tp_status tp_check_finite_f32(const float *values, int64_t count, const char *what);

#ifdef __cplusplus
}
#endif
#endif
