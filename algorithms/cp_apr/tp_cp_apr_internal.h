/* CP-APR internals: a sparse tensor laid out for Phi (per mode, its nonzeros in the space
 * in their order by that mode's index), and the kernels over it (cp_apr_template.h, one
 * instance per precision). */
#ifndef TP_CP_APR_INTERNAL_H
#define TP_CP_APR_INTERNAL_H

#include <stdint.h>

#include "tenport/cp_apr.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* For each mode n, in the space: X[n], the tensor with its nonzeros in order of their
 * mode-n index (stably), and rowptr[n] (dims[n] + 1 offsets): row i's nonzeros are X[n]'s
 * rowptr[n][i] .. rowptr[n][i + 1]. Reading a mode's nonzeros in sequence, not through a
 * permutation, is what keeps Pi and Phi at the memory's bandwidth; the price is one copy
 * of the nonzeros per mode. */
typedef struct tpi_apr_tensor {
  tp_coo X[TP_COO_MAX_ORDER];
  int64_t *rowptr[TP_COO_MAX_ORDER];
} tpi_apr_tensor;

/* From host X (validated): each mode's sorted copy in the space, and its row offsets. */
tp_status tpi_apr_tensor_create(tp_space *space, const tp_coo *host, tpi_apr_tensor *t);
void tpi_apr_tensor_free(tp_space *space, tpi_apr_tensor *t);

/* Pi of mode n (nnz x R of M's dtype, row p for X[n]'s nonzero p): the product of the
 * other factors' rows at each nonzero. It holds while mode n's inner iterations change
 * only factor n. */
tp_status tpi_apr_pi_f32(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M, int n,
                         void *Pi);
tp_status tpi_apr_pi_f64(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M, int n,
                         void *Pi);
tp_status tpi_apr_pi(tp_space *space, const tpi_apr_tensor *t, const tp_kruskal *M, int n,
                     void *Pi);

/* Phi sums a row's nonzeros in segments, which end where the row ends or at a multiple of
 * TPI_APR_PIECE; a segment that is not its whole row keeps its sum in one of two slots of
 * its piece (head: starting at the piece's first nonzero; tail: starting inside it). */
#define TPI_APR_PIECE 64
#define TPI_APR_PIECE_SLOT(first) (2 * ((first) / TPI_APR_PIECE) + ((first) % TPI_APR_PIECE != 0))
/* Doubles of the pieces' slots for nnz nonzeros and rank R. */
static inline int64_t tpi_apr_pieces_count(int64_t nnz, int64_t R) {
  return 2 * ((nnz + TPI_APR_PIECE - 1) / TPI_APR_PIECE + 1) * R;
}

/* One Phi: mode n's B (dims[n] x R) with mode n's Pi; v holds nnz doubles of scratch
 * (x / max(m, eps) per nonzero of X[n]), pieces tpi_apr_pieces_count(nnz, R). */
typedef struct tpi_apr_phi {
  const tpi_apr_tensor *t;
  const tp_kruskal *M;
  const void *B, *Pi;
  void *Phi;
  double *v, *pieces;
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
/* terms[j] = x_j log(m_j) for the model (lambda on the host, R values) at X[0]'s nonzero j (0
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
