/* The TT-ID sweep shared by the sparse decomposition and its dense reference. */
#ifndef TP_STTID_INTERNAL_H
#define TP_STTID_INTERNAL_H

#include <stdint.h>

#include "tenport/sttid.h"
#include "portable/tp_extern_c.h"
#include "algorithms/sttid/tp_prrlu_internal.h"

TP_EXTERN_C_BEGIN

/* Factors one bond's matrix: the sparse PRRLU in a space, or the dense reference (which
 * has no intermediate state to report and ignores the observer, which may be NULL). */
typedef tp_status (*tpi_ttid_factor_fn)(void *ctx, const tp_spmat *m, const tp_prrlu_options *opt,
                                        const tpi_prrlu_observer *observer, tp_prrlu_result *res);

/* The residual of a bond: a subset of the input's nonzeros (positions in the input) and
 * for each the position `left` of its prefix among the previous bond's pivot rows. */
typedef struct tpi_ttid_residual {
  int64_t n;
  int64_t *entry, *left;
  int64_t rank_left; /* r_{k} (1 for the first bond) */
} tpi_ttid_residual;

/* Algorithm 1 of the paper over a validated f64 tensor without duplicates. */
tp_status tpi_ttid_sweep(const tp_coo *t, const tp_sttid_options *opt, tpi_ttid_factor_fn factor,
                         void *ctx, tp_tci *out, tp_sttid_info *info);

/* Bond k's matrix M_k from the residual (rows left * dims[k] + u_k, C-order columns). */
tp_status tpi_ttid_bond_matrix(const tp_coo *t, int k, const tpi_ttid_residual *res, tp_spmat *m);
/* Core k: the residual entries whose column is a pivot column, as (left, u_k, position
 * of the column), sorted. */
tp_status tpi_ttid_core(const tp_coo *t, int k, const tpi_ttid_residual *res, const tp_spmat *m,
                        const tp_prrlu_result *piv, tp_coo *core);
/* The last core (r_{d-1}, n_{d-1}, 1) from the last residual. */
tp_status tpi_ttid_last_core(const tp_coo *t, const tpi_ttid_residual *res, tp_coo *core);
/* The next residual: the entries whose row is a pivot row, left = that row's position. */
tp_status tpi_ttid_next_residual(const tpi_ttid_residual *res, const tp_spmat *m,
                                 const tp_prrlu_result *piv, tpi_ttid_residual *next);
void tpi_ttid_residual_free(tpi_ttid_residual *r);

TP_EXTERN_C_END
#endif
