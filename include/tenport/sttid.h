/* STTID: the sparse tensor-train interpolative decomposition.
 *
 * Layers, bottom up:
 *   tp_spmat     a sparse matrix in COO form, made from a sparse tensor by reshaping
 *                (index arithmetic in 64 bits, overflow-checked);
 *   tp_prrlu     partial rank-revealing LU with complete pivoting on such a matrix, run in
 *                a space (the elimination loop stays in the space: no per-pivot host
 *                round trip), and tp_prrlu_dense, the dense reference;
 *   tp_sttid     the TT-ID sweep (one PRRLU per bond), giving a tensor train in TCI form,
 *                and tp_ttid_dense, the dense reference for small tensors;
 *   tp_tci_*     what one does with the result: evaluate entries, rebuild small tensors,
 *                the relative error without densifying, core densities, files.
 *
 * Conventions. Reshapes are C order (the last index fastest), as numpy's. Bond k (0-based,
 * k = 0..order-2) factors the matrix M_k whose rows are (left, u_k) -> left * dims[k] + u_k,
 * left being the position in the previous bond's pivot rows (0 for k = 0), and whose
 * columns are the C-order linear index of (u_{k+1}, ..., u_{order-1}).
 *
 * Pivots: the entry of largest magnitude in the active submatrix; ties go to the smallest
 * linear index row * cols + col of M_k, so every backend picks the same pivots. The
 * elimination update is a_ij <- fma(-l_i, a_pj, a_ij) with l_i = a_iq / p on every
 * backend. A PRRLU stops when the rank reaches min(rmax, rows, cols) (STOP_RANK), when the
 * active submatrix holds no nonzero (STOP_EXHAUSTED), or when |pivot| <= threshold
 * (STOP_TOLERANCE), where threshold is eps (absolute) or eps * |first pivot| of that
 * bond's matrix (relative). Above that threshold, a pivot at or below the round-off
 * floor 4 (s + 1) 2^-52 |first pivot| (s pivots already taken) stops it too
 * (STOP_ROUNDOFF): after s elimination steps the active submatrix's rounding errors can
 * reach that size, so eps = 0 asks for the rank to working precision and never adds a
 * rank made of round-off. (The floor stays below the usual numerical-rank tolerance
 * max(rows, cols) 2^-52 |largest singular value| by a factor of about 4 at most.) */
#ifndef TENPORT_STTID_H
#define TENPORT_STTID_H

#include <stdint.h>

#include "tenport/dense.h"
#include "tenport/export.h"
#include "tenport/space.h"
#include "tenport/sparse.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sparse matrices ------------------------------------------------------------ */

/* A host matrix in COO form: nnz entries (row[e], col[e], values[e]), f64. */
typedef struct tp_spmat {
  int64_t rows, cols;
  int64_t nnz;
  int64_t *row, *col;
  double *values;
} tp_spmat;

/* Reshapes a host tensor to a matrix: modes 0..row_modes-1 make the row index, the others
 * the column index, both in C order (1 <= row_modes < order). Values are converted to
 * f64. A tensor whose dims multiply to more than 2^63 - 1 is rejected
 * (TP_ERROR_INVALID_ARGUMENT naming the shape) rather than wrapped. */
TP_API tp_status tp_spmat_from_coo(const tp_coo *host, int row_modes, tp_spmat *out);
/* Allocates a matrix of nnz entries on the host (arrays uninitialised). */
TP_API tp_status tp_spmat_alloc(int64_t rows, int64_t cols, int64_t nnz, tp_spmat *out);
TP_API void tp_spmat_free(tp_spmat *m);

/* prod(dims[0..n-1]) in *product, or TP_ERROR_INVALID_ARGUMENT if it exceeds 2^63 - 1;
 * what names the shape in the message. */
TP_API tp_status tp_checked_product(const int64_t *dims, int n, const char *what, int64_t *product);

/* ---- partial rank-revealing LU ---------------------------------------------------- */

typedef enum tp_prrlu_stop {
  TP_PRRLU_STOP_RANK = 0,      /* rank reached min(rmax, rows, cols) */
  TP_PRRLU_STOP_TOLERANCE = 1, /* next pivot's magnitude <= threshold */
  TP_PRRLU_STOP_EXHAUSTED = 2, /* the active submatrix holds no nonzero */
  TP_PRRLU_STOP_ROUNDOFF = 3   /* next pivot's magnitude <= the round-off floor */
} tp_prrlu_stop;

TP_API const char *tp_prrlu_stop_name(tp_prrlu_stop stop);

typedef struct tp_prrlu_options {
  int64_t rmax;     /* >= 1 */
  double eps;       /* >= 0, finite */
  int eps_relative; /* 0: absolute threshold eps; 1: eps * |first pivot| */
} tp_prrlu_options;

typedef struct tp_prrlu_result {
  int64_t rank;
  int64_t *rows;  /* rank pivot rows of the matrix, in pivot order (host) */
  int64_t *cols;  /* rank pivot columns */
  double *pivots; /* rank pivot values (the Schur complement entries) */
  tp_prrlu_stop stop;
  double first_pivot;   /* |first pivot| (0 for a matrix without nonzeros) */
  double threshold;     /* the absolute threshold that applied */
  int64_t fill;         /* entries created by elimination */
  int64_t peak_entries; /* most entries held at once (live and not yet compacted) */
  int64_t host_syncs;   /* times the loop waited for the space */
  double seconds;       /* wall time of the factorisation (set-up included) */
} tp_prrlu_result;

/* Factors a host matrix in the space. The matrix must not hold two entries with the same
 * (row, col) (TP_ERROR_INVALID_ARGUMENT) nor non-finite values (TP_ERROR_NUMERICAL);
 * explicit zeros are allowed and never chosen as pivots. */
TP_API tp_status tp_prrlu(tp_space *space, const tp_spmat *host, const tp_prrlu_options *opt,
                          tp_prrlu_result *result);
/* The dense reference: a is rows x cols, row-major, and is overwritten by the Schur
 * complements. Same pivots, tie rule, update and stops as tp_prrlu. */
TP_API tp_status tp_prrlu_dense(double *a, int64_t rows, int64_t cols, const tp_prrlu_options *opt,
                                tp_prrlu_result *result);
TP_API void tp_prrlu_result_free(tp_prrlu_result *result);

/* ---- tensor trains in TCI form ------------------------------------------------------ */

/* T(u_0..u_{d-1}) ~ G_0 X_0^{-1} G_1 X_1^{-1} ... G_{d-1}, with sparse cores
 * G_k = T(I_{k-1}, u_k, J_k) (dims ranks[k] x dims[k] x ranks[k+1]) and cross matrices
 * X_k = M_k(I_k, J_k) (ranks[k+1] x ranks[k+1], rows and columns in pivot order). Every
 * stored core entry is an entry of the input tensor. Everything lives on the host. */
typedef struct tp_tci {
  int order; /* d >= 2 */
  int64_t dims[TP_COO_MAX_ORDER];
  int64_t ranks[TP_COO_MAX_ORDER + 1];       /* ranks[0] = ranks[d] = 1 */
  tp_coo cores[TP_COO_MAX_ORDER];            /* order-3 f64 tensors, sorted by index */
  int64_t *pivot_rows[TP_COO_MAX_ORDER - 1]; /* bond k: ranks[k+1] rows of M_k */
  int64_t *pivot_cols[TP_COO_MAX_ORDER - 1]; /* bond k: ranks[k+1] columns of M_k */
} tp_tci;

TP_API void tp_tci_free(tp_tci *t);

/* The global multi-index of bond k's a-th pivot row, (u_0..u_k): k + 1 values, and of
 * its a-th pivot column, (u_{k+1}..u_{d-1}): d - k - 1 values. */
TP_API tp_status tp_tci_pivot_row_index(const tp_tci *t, int bond, int64_t a, int64_t *index);
TP_API tp_status tp_tci_pivot_col_index(const tp_tci *t, int bond, int64_t a, int64_t *index);

/* ---- the decomposition ------------------------------------------------------------ */

/* What the progress callback sees: once when each bond is done (bond_done = 1, bonds in
 * increasing order) and, on the way, whenever the sparse PRRLU reads its state back from
 * the space, which it does anyway once per batch of pivot steps (bond_done = 0; the dense
 * reference makes no such reports). No report costs a synchronisation of its own. */
typedef struct tp_sttid_progress {
  int bond;           /* 0-based, 0..bonds-1 */
  int bonds;          /* order - 1 */
  int bond_done;      /* 1: rank is the bond's final rank */
  int64_t rank;       /* pivots chosen at this bond so far */
  int64_t rank_limit; /* min(rmax, rows, cols) of the bond's matrix */
  int64_t pivots;     /* pivots chosen so far over all bonds, this one included */
  double seconds;     /* since the sweep over the bonds started */
} tp_sttid_progress;

typedef void (*tp_sttid_progress_fn)(const tp_sttid_progress *p, void *user);

/* Zero-initialise and set what you need: a NULL progress makes no reports. */
typedef struct tp_sttid_options {
  int64_t rmax;                  /* largest rank of any bond, >= 1 */
  double eps;                    /* PRRLU threshold, >= 0 */
  int eps_relative;              /* as in tp_prrlu_options */
  tp_sttid_progress_fn progress; /* may be NULL; runs on the calling thread while the
                                    space waits, so keep it short */
  void *progress_user;           /* passed to progress as user */
} tp_sttid_options;

/* What happened at one bond. */
typedef struct tp_sttid_bond {
  int64_t rows, cols, nnz; /* M_k's shape and stored entries */
  int64_t rank;
  tp_prrlu_stop stop;
  double first_pivot, last_pivot, threshold;
  int64_t fill, peak_entries, host_syncs;
  double seconds_reshape; /* M_k from the residual (index arithmetic, compression) */
  double seconds_prrlu;   /* the factorisation in the space */
  double seconds_extract; /* core, cross and next residual from the pivots */
} tp_sttid_bond;

typedef struct tp_sttid_info {
  int bonds; /* order - 1 */
  tp_sttid_bond bond[TP_COO_MAX_ORDER - 1];
  double seconds_total;
} tp_sttid_info;

/* Decomposes a host tensor (f32 or f64, duplicates merged, values finite) with one
 * sparse PRRLU per bond run in the space. *out is filled on success and zeroed on
 * failure; info may be NULL. opt->progress, when set, is told of each bond's progress
 * (tp_sttid_progress). */
TP_API tp_status tp_sttid(tp_space *space, const tp_coo *host, const tp_sttid_options *opt,
                          tp_tci *out, tp_sttid_info *info);
/* The dense reference, for tensors of at most max_elements entries (densified, then
 * tp_prrlu_dense per bond): the same pivots, ranks and cores as tp_sttid, and the same
 * reports to opt->progress when each bond is done. */
TP_API tp_status tp_ttid_dense(const tp_coo *host, const tp_sttid_options *opt,
                               int64_t max_elements, tp_tci *out, tp_sttid_info *info);

/* ---- using the result -------------------------------------------------------------- */

/* One entry T~(index[0..d-1]); indices out of range give TP_ERROR_INVALID_ARGUMENT. */
TP_API tp_status tp_tci_evaluate(const tp_tci *t, const int64_t *index, double *value);

/* The whole tensor, when it has at most max_elements entries: *out is a host f64 tensor
 * in first-index-fastest layout (free with tp_dense_free(NULL, out)). */
TP_API tp_status tp_tci_to_dense(const tp_tci *t, int64_t max_elements, tp_dense *out);

/* ||T - T~|| / ||T|| without densifying: ||T||^2 - 2 sum_nnz T T~ + ||T~||^2, where
 * ||T~||^2 comes from TT contractions applying X_k^{-1} through triangular solves with
 * X_k's LU factors. The difference of squares loses about half the digits: relative
 * errors below floor (about sqrt of f64 epsilon times the terms' size) are reported as
 * the floor, with *at_floor set. */
typedef struct tp_tci_error_info {
  double relative_error;
  double norm2_tensor; /* ||T||^2 */
  double inner;        /* sum over nnz of T * T~ */
  double norm2_tci;    /* ||T~||^2 */
  double floor;        /* the smallest relative error the formula resolves */
  int at_floor;
  double seconds;
} tp_tci_error_info;

TP_API tp_status tp_tci_error(const tp_tci *t, const tp_coo *host, tp_tci_error_info *info);

/* Core densities as the paper defines them: core k's stored entries over
 * ranks[k] * dims[k] * ranks[k+1]; the average is all stored entries over the sum of
 * core sizes. per_core (may be NULL) receives order values. */
TP_API tp_status tp_tci_density(const tp_tci *t, double *per_core, double *average);

/* Files: PREFIX.tci (text: order, dims, ranks, then each bond's pivot rows and columns)
 * and PREFIX.core<k>.tns for k = 0..d-1 (values printed to read back exactly). Reading
 * checks every count, rank and index against the others. The files are written as one
 * output set (tenport/files.h): all or none of them replace an earlier tensor train, the
 * manifest last. tp_tci_write_to writes them into a caller's set (committed by the
 * caller); tp_tci_reserve adds their names to a set before the work, so that a run finds
 * out at once whether it can write them. */
TP_API tp_status tp_tci_write(const char *prefix, const tp_tci *t);
TP_API tp_status tp_tci_write_to(tp_output_set *set, const char *prefix, const tp_tci *t);
TP_API tp_status tp_tci_reserve(tp_output_set *set, const char *prefix, int order);
TP_API tp_status tp_tci_read(const char *prefix, tp_tci *t);

/* ---- generator ----------------------------------------------------------------------- */

typedef enum tp_sttid_random_kind {
  TP_STTID_RANDOM_POWER_LAW = 0, /* indices uniform per mode, Pareto(alpha) values */
  TP_STTID_RANDOM_KNOWLEDGE = 1  /* binary; mode 0 a relation index drawn uniformly,
                                    the others entity indices with skewed frequencies */
} tp_sttid_random_kind;

/* A random tensor of exactly nnz distinct nonzeros (draws repeat until that many distinct
 * coordinates exist; nnz must not exceed the number of entries), sorted, host memory,
 * f64. Same output for a seed on every platform. */
TP_API tp_status tp_sttid_random(tp_sttid_random_kind kind, int order, const int64_t *dims,
                                 int64_t nnz, double alpha, uint64_t seed, tp_coo *host);

#ifdef __cplusplus
}
#endif
#endif
