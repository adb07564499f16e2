/* CP-APR internals: a sparse tensor laid out for Phi (its nonzeros in the space and, per
 * mode, their order by that mode's index), and the kernels over it (cp_apr_template.h,
 * one instance per precision). */
#ifndef TP_CP_APR_INTERNAL_H
#define TP_CP_APR_INTERNAL_H

#include <stdint.h>

#include "tenport/cp_apr.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* X in the space, and for each mode n: rowptr[n] (dims[n] + 1 offsets) and perm[n] (the
 * nonzeros in order of their mode-n index, stably): row i's nonzeros are
 * perm[n][rowptr[n][i] .. rowptr[n][i + 1]). */
typedef struct tpi_apr_tensor {
  tp_coo X;
  int64_t *rowptr[TP_COO_MAX_ORDER], *perm[TP_COO_MAX_ORDER];
} tpi_apr_tensor;

/* From host X (validated): the copy and the orders. */
tp_status tpi_apr_tensor_create(tp_space *space, const tp_coo *host, tpi_apr_tensor *t);
void tpi_apr_tensor_free(tp_space *space, tpi_apr_tensor *t);

/* One Phi: mode n's B (dims[n] x R) with the other factors of M (mode n's not read); v
 * holds nnz doubles of scratch (x / max(m, eps) per nonzero). */
typedef struct tpi_apr_phi {
  const tpi_apr_tensor *t;
  const tp_kruskal *M;
  const void *B;
  void *Phi;
  double *v;
  int n;
  double eps;
} tpi_apr_phi;

tp_status tpi_apr_phi_f32(tp_space *space, const tpi_apr_phi *q);
tp_status tpi_apr_phi_f64(tp_space *space, const tpi_apr_phi *q);
tp_status tpi_apr_phi_run(tp_space *space, const tpi_apr_phi *q);

/* Over I x R entries of dtype: kkt[e] = |min(B, 1 - Phi)| (doubles); B *= Phi; A += kappa
 * where Phi > inadmissible_phi and A < kappa_tol (the options'). */
tp_status tpi_apr_kkt(tp_space *space, tp_dtype dtype, const void *B, const void *Phi,
                      int64_t count, double *kkt);
tp_status tpi_apr_multiply(tp_space *space, tp_dtype dtype, void *B, const void *Phi,
                           int64_t count);
tp_status tpi_apr_scooch(tp_space *space, tp_dtype dtype, void *A, const void *Phi, int64_t count,
                         const tp_cp_apr_options *o);
/* terms[j] = x_j log(m_j) for the model (lambda on the host, R values) at nonzero j (0
 * where x_j = 0). */
tp_status tpi_apr_log_terms(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M,
                            const double *lambda, double *terms);

#define TPI_APR_BY_DTYPE(dtype, fn, ...) \
  ((dtype) == TP_DTYPE_F32 ? fn##_f32(__VA_ARGS__) : fn##_f64(__VA_ARGS__))

tp_status tpi_apr_kkt_f32(tp_space *space, const void *B, const void *Phi, int64_t count,
                          double *kkt);
tp_status tpi_apr_kkt_f64(tp_space *space, const void *B, const void *Phi, int64_t count,
                          double *kkt);
tp_status tpi_apr_multiply_f32(tp_space *space, void *B, const void *Phi, int64_t count);
tp_status tpi_apr_multiply_f64(tp_space *space, void *B, const void *Phi, int64_t count);
tp_status tpi_apr_scooch_f32(tp_space *space, void *A, const void *Phi, int64_t count,
                             const tp_cp_apr_options *o);
tp_status tpi_apr_scooch_f64(tp_space *space, void *A, const void *Phi, int64_t count,
                             const tp_cp_apr_options *o);
tp_status tpi_apr_log_terms_f32(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M,
                                const double *lambda, double *terms);
tp_status tpi_apr_log_terms_f64(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M,
                                const double *lambda, double *terms);

TP_EXTERN_C_END

#endif
