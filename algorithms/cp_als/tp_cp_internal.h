/* CP-ALS internals shared by the driver (cp_als.c), the symmetric solve (spd_solve.c),
 * the per-precision column kernels (cp_columns_f32_kernels.c, cp_columns_f64_kernels.c) and the tests. */
#ifndef TP_CP_INTERNAL_H
#define TP_CP_INTERNAL_H

#include <stdint.h>

#include "tenport/npy.h"
#include "tenport/space.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* ---- the tensor CP-ALS decomposes (cp_dense.c, cp_sparse.c) ------------------------ */

struct tp_cp_als_options;
struct tp_kruskal;
struct tp_cp_als_result;
struct tpi_cp_layout;

/* What the iteration needs of a tensor: its shape, ||X||^2 (norm2 >= 0 when the source
 * knows it, else the sum of squares of `count` stored values in the space, checked
 * finite; a source without values gives ||X s||^2 and s = norm2_scale, a power of two,
 * 0 meaning 1: tp_norm_scale.h), and the MTTKRP of each mode. prepare (may be NULL) runs once before the
 * first MTTKRP, release (may be NULL) at the end; passes is reported in the result.
 * The MTTKRPs of a sweep come in mode order (modes may be skipped); restart (may be
 * NULL) comes before each sweep, so that nothing cached from earlier factors is used.
 * mttkrp_trial is an MTTKRP outside a sweep (the line search's trial): the source
 * picks the mode it reaches at least cost, says which, and leaves the next sweep to
 * start afresh. nvecs (NULL: not offered) fills a host Kruskal tensor with the nvecs
 * start (tp_cp_nvecs_dense, _coo). */
typedef struct tpi_cp_tensor {
  tp_dtype dtype;
  int order;
  const int64_t *dims;
  const void *values;
  int64_t count;
  double norm2, norm2_scale;
  tp_status (*prepare)(void *ctx, tp_space *space, int64_t rank,
                       const struct tp_cp_als_options *opts);
  tp_status (*mttkrp)(void *ctx, tp_space *space, const struct tp_kruskal *M, int n, void *G);
  int (*passes)(void *ctx);
  void (*release)(void *ctx);
  tp_status (*restart)(void *ctx);
  tp_status (*mttkrp_trial)(void *ctx, tp_space *space, const struct tp_kruskal *M, int *mode,
                            void *G);
  tp_status (*nvecs)(void *ctx, tp_space *space, uint64_t seed, struct tp_kruskal *host_init);
  void *ctx;
  /* Distributed (tp_dist_internal.h): dims are this rank's slab rows (at least 1), norm2
   * the whole tensor's, and the layout says which rows the rank owns and with whom it
   * shares them. NULL: one process. */
  const struct tpi_cp_layout *layout;
} tpi_cp_tensor;

/* A dense tensor as a source (cp_dense.c): tp_mttkrp, or a sweep that reuses partial
 * contractions across the modes when the options ask for it; c holds its state. */
struct tp_dense;
struct tp_mttkrp_options;
struct tp_mttkrp_sweep;
typedef struct tpi_cp_dense_source {
  const struct tp_dense *X;
  const struct tp_mttkrp_options *mttkrp;
  struct tp_mttkrp_sweep *sweep;
} tpi_cp_dense_source;
tpi_cp_tensor tpi_cp_dense_tensor(tpi_cp_dense_source *c, const struct tp_dense *X,
                                  const struct tp_mttkrp_options *mttkrp);

/* CP-ALS of any tensor source (cp_als.c). */
tp_status tpi_cp_als_run(tp_space *space, const tpi_cp_tensor *X,
                         const struct tp_cp_als_options *opts, struct tp_kruskal *model,
                         struct tp_cp_als_result *result);

/* ---- the R x R solve (spd_solve.c, host) ------------------------------------------ */

/* Solves U V = G for U, with V symmetric R x R (row-major, host, not modified) and G,
 * U I x R row-major on the host: on entry U holds G, on return the solution. Cholesky
 * first; when a pivot is not positive relative to the scale of V (R eps max_i V_ii),
 * a pivoted Cholesky with complete diagonal pivoting and the same threshold gives the
 * basic solution on the numerical rank (the other unknowns are 0). *fallback (may be
 * NULL) is set to 1 when that path ran, else 0; *rank (may be NULL) receives the
 * numerical rank (R when Cholesky succeeded). Rows are solved in parallel. */
tp_status tpi_cp_spd_solve(const double *V, int64_t R, double *U, int64_t I, int *fallback,
                           int64_t *rank);

/* The same for G and U in the space, of dtype f32 or f64 (they may be the same array):
 * G is copied to the host buffer host (I x R doubles, at least R x R), solved, and U
 * copied back. Factors of at least TP_CP_SOLVE_PRODUCT_MIN_ROWS rows (and 4 R) with G
 * and U apart are solved in the space instead, as U = G W with W the host solve applied
 * to the identity: a host solve of a million-row factor takes seconds, the product
 * microseconds on a GPU. */
#define TP_CP_SOLVE_PRODUCT_MIN_ROWS 4096
/* On a GPU, CP-ALS (cp_als.c) keeps the Grams in the space and solves there
 * (tpi_cp_spd_solve_device) from this rank on, and calls the above only when a pivot is
 * too small. */
#define TP_CP_DEVICE_SOLVE_MIN_RANK 256
tp_status tpi_cp_solve_in_space(tp_space *space, tp_dtype dtype, const void *G, void *U, int64_t I,
                                int64_t R, const double *V, double *host, int *fallback);

/* U V = G with G, U and V (R x R doubles) in the space, by a blocked Cholesky and blocked
 * triangular solves on the space's GEMM, in double whatever the dtype (spd_device_kernels.c). G
 * and U may be the same array; rows are solved chunk_rows at a time (0: as many as 2^24
 * values allow). *solved is 0, with U untouched, when V is not numerically positive
 * definite (a pivot at most R eps max_i V_ii, or a diagonal entry not finite and
 * positive): the host solve's pivoted Cholesky is then the answer. */
tp_status tpi_cp_spd_solve_device(tp_space *space, tp_dtype dtype, const void *G, void *U,
                                  int64_t I, int64_t R, const double *V, int64_t chunk_rows,
                                  int *solved);

/* n values between the dtype (f32 or f64) and double, both arrays in the space. */
tp_status tpi_cp_to_double(tp_space *space, tp_dtype dtype, const void *src, double *dst,
                           int64_t n);
tp_status tpi_cp_from_double(tp_space *space, tp_dtype dtype, const double *src, void *dst,
                             int64_t n);

/* V = the elementwise product of the d R x R Grams at grams (d x R x R doubles in the
 * space) but skip's (skip = -1: all of them), multiplied in mode order as the host's
 * product is, plus shift on the diagonal (gram_products_kernels.c). */
tp_status tpi_cp_hadamard_in_space(tp_space *space, const double *grams, int d, int64_t R, int skip,
                                   double shift, double *V);

/* ---- the nvecs start (cp_nvecs.c, nvecs_eigen.c) ----------------------------------- */

/* A symmetric positive semidefinite I x I operator Y by its products: Z = Y Q for Q and
 * Z row-major I x b on the host. */
typedef struct tpi_cp_gram_operator {
  tp_status (*apply)(void *ctx, const double *Q, int64_t b, double *Z);
  void *ctx;
} tpi_cp_gram_operator;

/* The widest block of vectors tpi_cp_top_eigenvectors applies the operator to. */
int64_t tpi_cp_eigen_block(int64_t I, int64_t want);

/* The eigenvectors of Y's `want` largest eigenvalues into out (I x want, row-major,
 * host), largest first, each with its entry of largest magnitude positive. */
tp_status tpi_cp_top_eigenvectors(const tpi_cp_gram_operator *op, int64_t I, int64_t want,
                                  uint64_t seed, double *out);

/* ---- column kernels (cp_columns_template.h, one instance per precision) -------------------- */

/* Per-column reductions of an I x R row-major matrix A in the space, accumulated in
 * double and returned on the host (R values). The order of summation depends only on
 * I and R, so results are reproducible run to run on every backend. */
typedef enum tpi_cp_column_op {
  TP_CP_COLUMN_NORM2 = 0, /* sqrt(sum_i A[i,r]^2) */
  TP_CP_COLUMN_MAXABS,    /* max_i |A[i,r]| (NaN wins) */
  TP_CP_COLUMN_DOT,       /* sum_i A[i,r] B[i,r] */
  TP_CP_COLUMN_MAX,       /* max_i A[i,r] (NaN wins; -inf without rows) */
  TP_CP_COLUMN_MIN,       /* min_i A[i,r] (NaN wins; +inf without rows) */
  TP_CP_COLUMN_SUM        /* sum_i A[i,r] */
} tpi_cp_column_op;

/* Sum of squares (of the values times a scale), largest |value| and number of
 * non-finite values of an array in the space (the sum and the largest leave the
 * non-finite values out). */
typedef struct tpi_cp_array_stats {
  double sumsq, max_abs;
  int64_t nonfinite;
} tpi_cp_array_stats;

tp_status tpi_cp_columns_reduce_f32(tp_space *space, tpi_cp_column_op op, const float *A,
                                    const float *B, int64_t I, int64_t R, double *host_out);
tp_status tpi_cp_columns_reduce_f64(tp_space *space, tpi_cp_column_op op, const double *A,
                                    const double *B, int64_t I, int64_t R, double *host_out);

/* A[i, r] *= scale[r] (scale: R doubles on the host). */
tp_status tpi_cp_columns_scale_f32(tp_space *space, float *A, int64_t I, int64_t R,
                                   const double *host_scale);
tp_status tpi_cp_columns_scale_f64(tp_space *space, double *A, int64_t I, int64_t R,
                                   const double *host_scale);

/* dst[i, r] = src[i, perm[r]] * scale[perm[r]] (perm, scale: R values on the host);
 * dst and src must not overlap. */
tp_status tpi_cp_columns_gather_f32(tp_space *space, const float *src, float *dst, int64_t I,
                                    int64_t R, const int64_t *host_perm, const double *host_scale);
tp_status tpi_cp_columns_gather_f64(tp_space *space, const double *src, double *dst, int64_t I,
                                    int64_t R, const int64_t *host_perm, const double *host_scale);

/* dst[i, r] = c + step (c - p) with c = cur[i, r] scales[r] and p = prev[i, r]
 * scales[R + r] (scales: 2R doubles on the host), or 0 where that is negative and nonneg
 * is set; dst may be cur or prev. */
tp_status tpi_cp_columns_extrapolate_f32(tp_space *space, const float *cur, const float *prev,
                                         float *dst, int64_t I, int64_t R, double step,
                                         const double *host_scales, int nonneg);
tp_status tpi_cp_columns_extrapolate_f64(tp_space *space, const double *cur, const double *prev,
                                         double *dst, int64_t I, int64_t R, double step,
                                         const double *host_scales, int nonneg);

/* A[i, r] = |A[i, r]|. */
tp_status tpi_cp_columns_abs_f32(tp_space *space, float *A, int64_t I, int64_t R);
tp_status tpi_cp_columns_abs_f64(tp_space *space, double *A, int64_t I, int64_t R);
/* Nonnegative CP-ALS's update of an I x R factor U from its MTTKRP G and V (the R x R
 * Hadamard product of the other modes' Grams, on the host or already in the space):
 * HALS sweeps, each row's columns in order, each entry the nonnegative minimiser with the
 * others fixed (Cichocki and Phan's hierarchical ALS). A row takes up to `sweeps` of them,
 * stopping once a sweep moves it by at most TPI_CP_HALS_SETTLED times its first sweep's
 * move (2-norms; Gillis and Glineur's inner stop, per row): G and V cost the MTTKRP and
 * the Grams, a sweep only R^2 per row, so the update goes as far as they carry it. Rows
 * are independent, so the result does not depend on scheduling. */
#define TPI_CP_HALS_SETTLED 0.01
/* The sweeps nonnegative CP-ALS gives each row at most. On a 200x150x100 rank-16 tensor
 * (2 CPU cores) 10 reach a fit 3.9x sooner than one sweep (42 iterations instead of 184
 * to 0.9899), each iteration 1.3x the time; 20 are no sooner. */
#define TPI_CP_HALS_SWEEPS 10
tp_status tpi_cp_columns_hals_f32(tp_space *space, const float *G, float *U, int64_t I, int64_t R,
                                  const double *host_V, const double *space_V, int64_t sweeps);
tp_status tpi_cp_columns_hals_f64(tp_space *space, const double *G, double *U, int64_t I, int64_t R,
                                  const double *host_V, const double *space_V, int64_t sweeps);

tp_status tpi_cp_array_stats_f32(tp_space *space, const float *x, int64_t n, double scale,
                                 tpi_cp_array_stats *host_stats);
tp_status tpi_cp_array_stats_f64(tp_space *space, const double *x, int64_t n, double scale,
                                 tpi_cp_array_stats *host_stats);

/* The same on untyped data of dtype TP_DTYPE_F32 or TP_DTYPE_F64. */
tp_status tpi_cp_columns_reduce(tp_space *space, tp_dtype dtype, tpi_cp_column_op op, const void *A,
                                const void *B, int64_t I, int64_t R, double *host_out);
tp_status tpi_cp_columns_scale(tp_space *space, tp_dtype dtype, void *A, int64_t I, int64_t R,
                               const double *host_scale);
tp_status tpi_cp_columns_gather(tp_space *space, tp_dtype dtype, const void *src, void *dst,
                                int64_t I, int64_t R, const int64_t *host_perm,
                                const double *host_scale);
tp_status tpi_cp_columns_extrapolate(tp_space *space, tp_dtype dtype, const void *cur,
                                     const void *prev, void *dst, int64_t I, int64_t R, double step,
                                     const double *host_scales, int nonneg);
tp_status tpi_cp_columns_hals(tp_space *space, tp_dtype dtype, const void *G, void *U, int64_t I,
                              int64_t R, const double *host_V, const double *space_V,
                              int64_t sweeps);
tp_status tpi_cp_columns_abs(tp_space *space, tp_dtype dtype, void *A, int64_t I, int64_t R);
tp_status tpi_cp_array_stats_of(tp_space *space, tp_dtype dtype, const void *x, int64_t n,
                                tpi_cp_array_stats *host_stats);
/* The same with the squares of x times scale summed (a power of two keeps them exact). */
tp_status tpi_cp_array_stats_scaled_of(tp_space *space, tp_dtype dtype, const void *x, int64_t n,
                                       double scale, tpi_cp_array_stats *host_stats);

TP_EXTERN_C_END
#endif
