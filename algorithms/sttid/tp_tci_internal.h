/* What evaluation, reconstruction and the error share about a tensor train in TCI form:
 * a checked, indexed view of the cores and the LU factors of every cross matrix, so
 * X_k^{-1} is applied by triangular solves and never formed. */
#ifndef TP_TCI_INTERNAL_H
#define TP_TCI_INTERNAL_H

#include <stdint.h>

#include "tenport/sttid.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* ---- files (tci_io.c) ---------------------------------------------------------------- */

/* Parses a manifest held in memory into t's order, dims, ranks and pivots (no cores), for
 * the fuzzer and the tests; on failure t owns nothing. */
tp_status tpi_tci_read_manifest_buffer(const char *name, const void *bytes, size_t size, tp_tci *t);

/* ---- checks (tci.c) ------------------------------------------------------------------ */

/* The descriptor: order, dims, ranks (ranks[0] = ranks[d] = 1, M_k's row count
 * ranks[k] * dims[k] within 64 bits), every core an f64 order-3 tensor of shape
 * (ranks[k], dims[k], ranks[k+1]) with its arrays, every pivot array present. */
tp_status tpi_tci_check(const tp_tci *t);
/* The contents too: core indices in range and strictly increasing (sorted, no repeated
 * coordinate), values finite, pivot rows and columns in range. */
tp_status tpi_tci_check_contents(const tp_tci *t);

/* ---- the rows of a core (tci.c) ------------------------------------------------------ */

/* A core's stored entries grouped by row (left, u), key left * dims[k] + u, two ways:
 * by key, to find a row, and by slice u (rows ordered by (u, left)), to walk the rows of
 * one slice. */
typedef struct tpi_tci_core_rows {
  int64_t n;          /* occupied rows */
  int64_t *key;       /* n keys, increasing */
  int64_t *left;      /* n left indices */
  int64_t *ptr;       /* n + 1: row q's entries are [ptr[q], ptr[q+1]) in the core */
  int64_t *pivot;     /* n: the row's position among bond k's pivot rows, or -1 (set by
                         tpi_tci_prepare; -1 throughout for the last core) */
  int64_t slices;     /* distinct u with entries */
  int64_t *slice_u;   /* slices values of u, increasing */
  int64_t *slice_ptr; /* slices + 1: slice s's rows are by_slice[slice_ptr[s]..[s+1]) */
  int64_t *by_slice;  /* n row positions q, in (u, left) order */
} tpi_tci_core_rows;

/* The row index of a core sorted by index (tpi_tci_check_contents). */
tp_status tpi_tci_core_rows_build(const tp_coo *core, tpi_tci_core_rows *rows);
/* The position q of row key, or -1 when the row holds no entry. */
int64_t tpi_tci_core_rows_find(const tpi_tci_core_rows *rows, int64_t key);
/* The slice s holding u, or -1 when slice u holds no entry. */
int64_t tpi_tci_core_rows_slice(const tpi_tci_core_rows *rows, int64_t u);
void tpi_tci_core_rows_free(tpi_tci_core_rows *rows);

/* ---- LU factors of a cross matrix (tci_lu.c) ----------------------------------------- */

/* X = L U in the given (pivot) order: L unit lower triangular (the unit diagonal is not
 * stored), U upper triangular with its diagonal kept apart. Both row-wise: row i of L
 * holds (l_col[p], l_val[p]) for p in [l_ptr[i], l_ptr[i+1]), all columns < i; row i of
 * U likewise, all columns > i. */
typedef struct tpi_tci_lu {
  int64_t r;
  int64_t *l_ptr, *l_col;
  double *l_val;
  int64_t *u_ptr, *u_col;
  double *u_val;
  double *u_diag;
} tpi_tci_lu;

/* Factors bond k's cross matrix X_k = M_k(I_k, J_k), read from core k's rows at the
 * pivot rows (rows is core k's row index). A zero or non-finite diagonal of U gives
 * TP_ERROR_NUMERICAL. */
tp_status tpi_tci_lu_factor(const tp_tci *t, int bond, const tpi_tci_core_rows *rows,
                            tpi_tci_lu *lu);
void tpi_tci_lu_free(tpi_tci_lu *lu);

/* y X = w for a row vector, in place: w (lu->r values) becomes y = w U^{-1} L^{-1}. */
void tpi_tci_lu_solve_row(const tpi_tci_lu *lu, double *w);

/* ---- a prepared tensor train (tci_eval.c) -------------------------------------------- */

/* A checked tensor train with its core row indices (pivots marked) and cross LU
 * factors. */
typedef struct tpi_tci_prepared {
  const tp_tci *t;
  tpi_tci_core_rows rows[TP_COO_MAX_ORDER];
  tpi_tci_lu lu[TP_COO_MAX_ORDER - 1];
} tpi_tci_prepared;

/* Checks t (descriptor and contents: a pivot row without core entries or given twice
 * makes its cross singular) and factors its crosses. */
tp_status tpi_tci_prepare(const tp_tci *t, tpi_tci_prepared *p);
void tpi_tci_prepared_free(tpi_tci_prepared *p);

/* The interpolation matrix Z_k = G_k X_k^{-1} (Z_{d-1} = G_{d-1}) is applied, never
 * stored, one row (left, u) at a time. Rows at pivot rows are exactly unit vectors
 * (X_k X_k^{-1} = I): solving them instead would add rounding amplified by X_k's
 * conditioning, which for the last, tiny pivots of an exact decomposition is large.
 *
 * row[0..ranks[k+1]) = Z_k's row at core k's occupied row q. */
void tpi_tci_interpolation_row(const tpi_tci_prepared *p, int k, int64_t q, double *row);
/* out[0..ranks[k+1]) = w Z_k(:, u, :) for w of ranks[k] values: the non-pivot rows of
 * slice u are combined and solved once, the pivot rows added as unit vectors (gathered
 * in scratch, ranks[k+1] values). */
void tpi_tci_interpolate(const tpi_tci_prepared *p, int k, const double *w, int64_t u, double *out,
                         double *scratch);

TP_EXTERN_C_END
#endif
