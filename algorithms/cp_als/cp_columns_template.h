/* Column operations of CP-ALS on I x R row-major factor matrices in the space, written
 * once on the portable layer: per-column 2-norms, max-abs and inner products, column
 * scaling, gathering and extrapolation, and the sum of squares / non-finite count of a
 * whole array.
 *
 * Template: the includer defines TP_REAL and TP_SFX (f32 or f64), and TP_CP_PRIMARY to
 * 1 in exactly one instance (which then also defines the dtype dispatchers).
 *
 * Column reductions are deterministic: rows are cut into blocks whose size depends
 * only on I; one kernel reduces each (block, column) pair in row order into a partial,
 * a second adds the partials of each column in block order. Adjacent threads take
 * adjacent columns, so GPU loads are coalesced. Everything accumulates in double.
 * generates: the kernels named in the generates: lists of cp_columns_f32_kernels.c and
 * cp_columns_f64_kernels.c, which instantiate it (tools/ci/kernel_names.py checks them).*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "portable/tp_portable.h"
#include "algorithms/cp_als/tp_cp_internal.h"

#define FN(name) TP_PASTE3(name, _, TP_SFX)

/* Rows per block of the column reductions: at least this many, and at most this many
 * blocks. */
#define CP_MIN_BLOCK_ROWS 64
#define CP_MAX_BLOCKS 4096

/* ---- per-column reductions ------------------------------------------------------ */

typedef struct FN(cp_col_args) {
  const TP_REAL *A, *B;
  int64_t I, R, block_rows, blocks;
  int op;
  double *partial; /* blocks x R */
  double *out;     /* R */
} FN(cp_col_args);

/* max that lets NaN through: a NaN column reports NaN. */
TP_INLINE double FN(cp_max_nan)(double acc, double v) { return (v > acc || v != v) ? v : acc; }

TP_INLINE double FN(cp_min_nan)(double acc, double v) { return (v < acc || v != v) ? v : acc; }

/* What a reduction starts from, and how two partial results join. */
TP_INLINE double FN(cp_col_identity)(int op) {
  return op == TP_CP_COLUMN_MAX ? -INFINITY : op == TP_CP_COLUMN_MIN ? INFINITY : 0.0;
}

TP_INLINE double FN(cp_col_join)(int op, double acc, double v) {
  if (op == TP_CP_COLUMN_MAXABS || op == TP_CP_COLUMN_MAX)
    return FN(cp_max_nan)(acc, v);
  if (op == TP_CP_COLUMN_MIN)
    return FN(cp_min_nan)(acc, v);
  return acc + v;
}

TP_RANGE2_KERNEL(FN(cp_col_partials), FN(cp_col_args), b, r, a) {
  int64_t first = b * a.block_rows;
  int64_t last = first + a.block_rows < a.I ? first + a.block_rows : a.I;
  const TP_REAL *col = a.A + r;
  double acc = 0.0;
  if (a.op == TP_CP_COLUMN_DOT) {
    const TP_REAL *other = a.B + r;
    for (int64_t i = first; i < last; ++i)
      acc += (double)col[i * a.R] * (double)other[i * a.R];
  } else if (a.op == TP_CP_COLUMN_MAXABS) {
    for (int64_t i = first; i < last; ++i) {
      double v = (double)col[i * a.R];
      acc = FN(cp_max_nan)(acc, v < 0 ? -v : v);
    }
  } else if (a.op == TP_CP_COLUMN_SUM) {
    for (int64_t i = first; i < last; ++i)
      acc += (double)col[i * a.R];
  } else if (a.op == TP_CP_COLUMN_MAX || a.op == TP_CP_COLUMN_MIN) {
    acc = FN(cp_col_identity)(a.op);
    for (int64_t i = first; i < last; ++i)
      acc = FN(cp_col_join)(a.op, acc, (double)col[i * a.R]);
  } else {
    for (int64_t i = first; i < last; ++i) {
      double v = (double)col[i * a.R];
      acc += v * v;
    }
  }
  a.partial[b * a.R + r] = acc;
}

TP_RANGE_KERNEL(FN(cp_col_finish), FN(cp_col_args), r, a) {
  double acc = FN(cp_col_identity)(a.op);
  for (int64_t b = 0; b < a.blocks; ++b)
    acc = FN(cp_col_join)(a.op, acc, a.partial[b * a.R + r]);
  a.out[r] = acc;
}

static tp_status FN(cp_check_matrix)(tp_space *space, const void *A, int64_t I, int64_t R) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(I >= 0 && R >= 0, "matrix shape %lld x %lld is negative", (long long)I,
               (long long)R);
  TP_CHECK_ARG(I == 0 || R == 0 || A, "the matrix must not be NULL");
  return TP_SUCCESS;
}

/* Launches both kernels with partials and outputs in one temporary block. */
static tp_status FN(cp_col_launch)(tp_space *space, FN(cp_col_args) a, double *host_out) {
  size_t values = (size_t)(a.blocks + 1) * (size_t)a.R;
  double *block = NULL;
  TP_TRY(tp_temp_alloc(space, values * sizeof(double), (void **)&block));
  a.partial = block;
  a.out = block + (size_t)a.blocks * (size_t)a.R;
  tp_status st = TP_LAUNCHER(FN(cp_col_partials))(space, a.blocks, a.R, a);
  if (st == TP_SUCCESS)
    st = TP_LAUNCHER(FN(cp_col_finish))(space, a.R, a);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(space, host_out, a.out, (size_t)a.R * sizeof(double));
  tp_temp_release(space, block);
  return st;
}

tp_status FN(tpi_cp_columns_reduce)(tp_space *space, tpi_cp_column_op op, const TP_REAL *A,
                                    const TP_REAL *B, int64_t I, int64_t R, double *host_out) {
  TP_TRY(FN(cp_check_matrix)(space, A, I, R));
  TP_CHECK_ARG(op >= TP_CP_COLUMN_NORM2 && op <= TP_CP_COLUMN_SUM, "unknown column operation %d",
               (int)op);
  TP_CHECK_ARG(op != TP_CP_COLUMN_DOT || I == 0 || R == 0 || B,
               "the second matrix of a column inner product must not be NULL");
  TP_CHECK_ARG(R == 0 || host_out, "host_out must not be NULL");
  if (R == 0)
    return TP_SUCCESS;
  if (I == 0) {
    for (int64_t r = 0; r < R; ++r)
      host_out[r] = FN(cp_col_identity)((int)op);
    return TP_SUCCESS;
  }
  FN(cp_col_args) a;
  memset(&a, 0, sizeof a);
  a.A = A, a.B = B, a.I = I, a.R = R, a.op = (int)op;
  a.block_rows = tp_max_i64(CP_MIN_BLOCK_ROWS, tp_ceil_div_i64(I, CP_MAX_BLOCKS));
  a.blocks = tp_ceil_div_i64(I, a.block_rows);
  TP_TRY(FN(cp_col_launch)(space, a, host_out));
  if (op == TP_CP_COLUMN_NORM2)
    for (int64_t r = 0; r < R; ++r)
      host_out[r] = sqrt(host_out[r]);
  return TP_SUCCESS;
}

/* ---- scaling and gathering columns ---------------------------------------------- */

typedef struct FN(cp_scale_args) {
  const TP_REAL *src;
  TP_REAL *dst;
  int64_t R;
  const double *scale;
  const int64_t *perm; /* NULL: identity */
} FN(cp_scale_args);

TP_RANGE2_KERNEL(FN(cp_col_scale), FN(cp_scale_args), i, r, a) {
  a.dst[i * a.R + r] = (TP_REAL)((double)a.dst[i * a.R + r] * a.scale[r]);
}

TP_RANGE2_KERNEL(FN(cp_col_gather), FN(cp_scale_args), i, r, a) {
  int64_t c = a.perm[r];
  a.dst[i * a.R + r] = (TP_REAL)((double)a.src[i * a.R + c] * a.scale[c]);
}

/* Uploads n bytes of host data into a temporary block. */
static tp_status FN(cp_upload_temp)(tp_space *space, const void *host, size_t bytes, void **dev) {
  TP_TRY(tp_temp_alloc(space, bytes, dev));
  tp_status st = tp_copy_to_device(space, *dev, host, bytes);
  if (st != TP_SUCCESS) {
    tp_temp_release(space, *dev);
    *dev = NULL;
  }
  return st;
}

tp_status FN(tpi_cp_columns_scale)(tp_space *space, TP_REAL *A, int64_t I, int64_t R,
                                   const double *host_scale) {
  TP_TRY(FN(cp_check_matrix)(space, A, I, R));
  TP_CHECK_ARG(R == 0 || host_scale, "host_scale must not be NULL");
  if (I == 0 || R == 0)
    return TP_SUCCESS;
  void *scale = NULL;
  TP_TRY(FN(cp_upload_temp)(space, host_scale, (size_t)R * sizeof(double), &scale));
  FN(cp_scale_args) a;
  memset(&a, 0, sizeof a);
  a.dst = A, a.R = R, a.scale = (const double *)scale;
  tp_status st = TP_LAUNCHER(FN(cp_col_scale))(space, I, R, a);
  tp_temp_release(space, scale);
  return st;
}

tp_status FN(tpi_cp_columns_gather)(tp_space *space, const TP_REAL *src, TP_REAL *dst, int64_t I,
                                    int64_t R, const int64_t *host_perm, const double *host_scale) {
  TP_TRY(FN(cp_check_matrix)(space, src, I, R));
  TP_CHECK_ARG(I == 0 || R == 0 || dst, "dst must not be NULL");
  TP_CHECK_ARG(R == 0 || (host_perm && host_scale), "host_perm and host_scale must not be NULL");
  for (int64_t r = 0; r < R; ++r)
    TP_CHECK_ARG(host_perm[r] >= 0 && host_perm[r] < R, "perm[%lld] = %lld is outside [0, %lld)",
                 (long long)r, (long long)host_perm[r], (long long)R);
  if (I == 0 || R == 0)
    return TP_SUCCESS;
  size_t perm_bytes = (size_t)R * sizeof(int64_t), scale_bytes = (size_t)R * sizeof(double);
  unsigned char *both = NULL;
  TP_TRY(tp_temp_alloc(space, perm_bytes + scale_bytes, (void **)&both));
  tp_status st = tp_copy_to_device(space, both, host_perm, perm_bytes);
  if (st == TP_SUCCESS)
    st = tp_copy_to_device(space, both + perm_bytes, host_scale, scale_bytes);
  FN(cp_scale_args) a;
  memset(&a, 0, sizeof a);
  a.src = src, a.dst = dst, a.R = R;
  a.perm = (const int64_t *)both;
  a.scale = (const double *)(both + perm_bytes);
  if (st == TP_SUCCESS)
    st = TP_LAUNCHER(FN(cp_col_gather))(space, I, R, a);
  tp_temp_release(space, both);
  return st;
}

/* ---- extrapolation (the line search) --------------------------------------------- */

typedef struct FN(cp_extrapolate_args) {
  const TP_REAL *cur, *prev;
  TP_REAL *dst;
  int64_t R;
  double step;
  const double *scales; /* 2R: cur's, then prev's */
  int nonneg;           /* negative results become 0 */
} FN(cp_extrapolate_args);

TP_RANGE2_KERNEL(FN(cp_col_extrapolate), FN(cp_extrapolate_args), i, r, a) {
  double c = (double)a.cur[i * a.R + r] * a.scales[r];
  double p = (double)a.prev[i * a.R + r] * a.scales[a.R + r];
  const double e = c + a.step * (c - p);
  a.dst[i * a.R + r] = (TP_REAL)(a.nonneg && e < 0 ? 0.0 : e);
}

tp_status FN(tpi_cp_columns_extrapolate)(tp_space *space, const TP_REAL *cur, const TP_REAL *prev,
                                         TP_REAL *dst, int64_t I, int64_t R, double step,
                                         const double *host_scales, int nonneg) {
  TP_TRY(FN(cp_check_matrix)(space, cur, I, R));
  TP_CHECK_ARG(I == 0 || R == 0 || (prev && dst), "prev and dst must not be NULL");
  TP_CHECK_ARG(R == 0 || host_scales, "host_scales must not be NULL");
  if (I == 0 || R == 0)
    return TP_SUCCESS;
  void *scales = NULL;
  TP_TRY(FN(cp_upload_temp)(space, host_scales, 2 * (size_t)R * sizeof(double), &scales));
  FN(cp_extrapolate_args) a;
  a.cur = cur, a.prev = prev, a.dst = dst, a.R = R, a.step = step;
  a.scales = (const double *)scales, a.nonneg = nonneg;
  tp_status st = TP_LAUNCHER(FN(cp_col_extrapolate))(space, I, R, a);
  tp_temp_release(space, scales);
  return st;
}

/* ---- nonnegative factors (HALS) ----------------------------------------------------- */

typedef struct FN(cp_hals_args) {
  const TP_REAL *G;
  TP_REAL *U;
  const double *V; /* R x R */
  int64_t R;
  int64_t sweeps; /* HALS sweeps of each row at most */
} FN(cp_hals_args);

/* sum_q u[q] v[q] in four running sums added at the end: a fixed order, four times the
 * throughput of one chain of additions. */
TP_INLINE double FN(cp_dot4)(const TP_REAL *u, const double *v, int64_t R) {
  double p0 = 0.0, p1 = 0.0, p2 = 0.0, p3 = 0.0;
  int64_t q = 0;
  for (; q + 4 <= R; q += 4) {
    p0 += (double)u[q] * v[q], p1 += (double)u[q + 1] * v[q + 1];
    p2 += (double)u[q + 2] * v[q + 2], p3 += (double)u[q + 3] * v[q + 3];
  }
  for (; q < R; ++q)
    p0 += (double)u[q] * v[q];
  return (p0 + p1) + (p2 + p3);
}

/* Row i of U, column after column, each update seeing the ones before it: u_ir becomes
 * the minimiser over u_ir >= 0 of the least-squares objective whose normal equations
 * are U V = G, the row's other entries fixed: max(0, u_ir + (g_ir - (u_i V)_r) / V_rr).
 * A column with V_rr = 0 (a zero column elsewhere) is left as it is. */
TP_RANGE_KERNEL(FN(cp_hals_rows), FN(cp_hals_args), i, a) {
  TP_REAL *u = a.U + i * a.R;
  const TP_REAL *g = a.G + i * a.R;
  double first = 0.0;
  for (int64_t sweep = 0; sweep < a.sweeps; ++sweep) {
    double moved = 0.0; /* the squared change of the row in this sweep */
    for (int64_t r = 0; r < a.R; ++r) {
      const double vrr = a.V[r * a.R + r];
      if (!(vrr > 0))
        continue;
      /* (u V)_r from V's row r (V is symmetric: read in order) */
      const double residual = (double)g[r] - FN(cp_dot4)(u, a.V + r * a.R, a.R);
      const double next = (double)u[r] + residual / vrr;
      const TP_REAL stored = (TP_REAL)(next > 0 ? next : 0.0);
      const double step = (double)stored - (double)u[r];
      moved += step * step;
      u[r] = stored;
    }
    if (sweep == 0)
      first = moved;
    else if (moved <= TPI_CP_HALS_SETTLED * TPI_CP_HALS_SETTLED * first)
      break;
  }
}

TP_RANGE2_KERNEL(FN(cp_col_abs), FN(cp_hals_args), i, r, a) {
  const TP_REAL v = a.U[i * a.R + r];
  a.U[i * a.R + r] = v < 0 ? -v : v;
}

tp_status FN(tpi_cp_columns_abs)(tp_space *space, TP_REAL *A, int64_t I, int64_t R) {
  TP_TRY(FN(cp_check_matrix)(space, A, I, R));
  if (I == 0 || R == 0)
    return TP_SUCCESS;
  FN(cp_hals_args) a;
  memset(&a, 0, sizeof a);
  a.U = A, a.R = R;
  return TP_LAUNCHER(FN(cp_col_abs))(space, I, R, a);
}

tp_status FN(tpi_cp_columns_hals)(tp_space *space, const TP_REAL *G, TP_REAL *U, int64_t I,
                                  int64_t R, const double *host_V, const double *space_V,
                                  int64_t sweeps) {
  TP_TRY(FN(cp_check_matrix)(space, U, I, R));
  TP_CHECK_ARG(I == 0 || R == 0 || (G && (host_V || space_V)), "G and V must not be NULL");
  TP_CHECK_ARG(sweeps >= 1, "HALS sweeps %lld: at least 1", (long long)sweeps);
  if (I == 0 || R == 0)
    return TP_SUCCESS;
  void *uploaded = NULL;
  if (!space_V)
    TP_TRY(FN(cp_upload_temp)(space, host_V, (size_t)(R * R) * sizeof(double), &uploaded));
  FN(cp_hals_args) a;
  a.G = G, a.U = U, a.R = R, a.V = space_V ? space_V : (const double *)uploaded;
  a.sweeps = sweeps;
  tp_status st = TP_LAUNCHER(FN(cp_hals_rows))(space, I, a);
  if (uploaded)
    tp_temp_release(space, uploaded);
  return st;
}

/* ---- whole arrays: sum of squares and non-finite count ---------------------------- */

#ifndef TP_CP_STATS_JOIN
#define TP_CP_STATS_JOIN
TP_INLINE tpi_cp_array_stats tpi_cp_stats_zero(void) {
  tpi_cp_array_stats s;
  s.sumsq = 0.0, s.max_abs = 0.0;
  s.nonfinite = 0;
  return s;
}
TP_INLINE tpi_cp_array_stats tpi_cp_stats_join(tpi_cp_array_stats a, tpi_cp_array_stats b) {
  a.sumsq += b.sumsq;
  a.max_abs = b.max_abs > a.max_abs ? b.max_abs : a.max_abs;
  a.nonfinite += b.nonfinite;
  return a;
}
#endif

typedef struct FN(cp_values) {
  const TP_REAL *x;
  double scale;
} FN(cp_values);

/* x - x is 0 exactly for finite x and NaN otherwise. */
TP_RANGE_REDUCE_KERNEL(FN(cp_array_stats), FN(cp_values), tpi_cp_array_stats, tpi_cp_stats_join,
                       tpi_cp_stats_zero(), i, a, acc) {
  double v = (double)a.x[i];
  if (v - v == 0) {
    double scaled = v * a.scale, mag = v < 0 ? -v : v;
    acc->sumsq += scaled * scaled;
    acc->max_abs = mag > acc->max_abs ? mag : acc->max_abs;
  } else {
    acc->nonfinite += 1;
  }
}

tp_status FN(tpi_cp_array_stats)(tp_space *space, const TP_REAL *x, int64_t n, double scale,
                                 tpi_cp_array_stats *host_stats) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(n >= 0, "element count %lld is negative", (long long)n);
  TP_CHECK_ARG(n == 0 || x, "the array must not be NULL");
  TP_CHECK_ARG(host_stats, "host_stats must not be NULL");
  *host_stats = tpi_cp_stats_zero();
  if (n == 0)
    return TP_SUCCESS;
  tpi_cp_array_stats *dev = NULL;
  TP_TRY(tp_temp_alloc(space, sizeof *dev, (void **)&dev));
  FN(cp_values) a;
  a.x = x, a.scale = scale;
  tp_status st = TP_LAUNCHER(FN(cp_array_stats))(space, n, a, dev);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(space, host_stats, dev, sizeof *dev);
  tp_temp_release(space, dev);
  return st;
}

/* ---- dtype dispatch (once) ---------------------------------------------------------- */

#if TP_CP_PRIMARY
static tp_status cp_check_dtype(tp_dtype dtype) {
  TP_CHECK_ARG(dtype == TP_DTYPE_F32 || dtype == TP_DTYPE_F64,
               "dtype %d: CP-ALS works on float32 or float64 data", (int)dtype);
  return TP_SUCCESS;
}

tp_status tpi_cp_columns_reduce(tp_space *space, tp_dtype dtype, tpi_cp_column_op op, const void *A,
                                const void *B, int64_t I, int64_t R, double *host_out) {
  TP_TRY(cp_check_dtype(dtype));
  if (dtype == TP_DTYPE_F32)
    return tpi_cp_columns_reduce_f32(space, op, (const float *)A, (const float *)B, I, R, host_out);
  return tpi_cp_columns_reduce_f64(space, op, (const double *)A, (const double *)B, I, R, host_out);
}

tp_status tpi_cp_columns_scale(tp_space *space, tp_dtype dtype, void *A, int64_t I, int64_t R,
                               const double *host_scale) {
  TP_TRY(cp_check_dtype(dtype));
  if (dtype == TP_DTYPE_F32)
    return tpi_cp_columns_scale_f32(space, (float *)A, I, R, host_scale);
  return tpi_cp_columns_scale_f64(space, (double *)A, I, R, host_scale);
}

tp_status tpi_cp_columns_gather(tp_space *space, tp_dtype dtype, const void *src, void *dst,
                                int64_t I, int64_t R, const int64_t *host_perm,
                                const double *host_scale) {
  TP_TRY(cp_check_dtype(dtype));
  if (dtype == TP_DTYPE_F32)
    return tpi_cp_columns_gather_f32(space, (const float *)src, (float *)dst, I, R, host_perm,
                                     host_scale);
  return tpi_cp_columns_gather_f64(space, (const double *)src, (double *)dst, I, R, host_perm,
                                   host_scale);
}

tp_status tpi_cp_columns_extrapolate(tp_space *space, tp_dtype dtype, const void *cur,
                                     const void *prev, void *dst, int64_t I, int64_t R, double step,
                                     const double *host_scales, int nonneg) {
  TP_TRY(cp_check_dtype(dtype));
  if (dtype == TP_DTYPE_F32)
    return tpi_cp_columns_extrapolate_f32(space, (const float *)cur, (const float *)prev,
                                          (float *)dst, I, R, step, host_scales, nonneg);
  return tpi_cp_columns_extrapolate_f64(space, (const double *)cur, (const double *)prev,
                                        (double *)dst, I, R, step, host_scales, nonneg);
}

tp_status tpi_cp_columns_abs(tp_space *space, tp_dtype dtype, void *A, int64_t I, int64_t R) {
  TP_TRY(cp_check_dtype(dtype));
  if (dtype == TP_DTYPE_F32)
    return tpi_cp_columns_abs_f32(space, (float *)A, I, R);
  return tpi_cp_columns_abs_f64(space, (double *)A, I, R);
}

tp_status tpi_cp_columns_hals(tp_space *space, tp_dtype dtype, const void *G, void *U, int64_t I,
                              int64_t R, const double *host_V, const double *space_V,
                              int64_t sweeps) {
  TP_TRY(cp_check_dtype(dtype));
  if (dtype == TP_DTYPE_F32)
    return tpi_cp_columns_hals_f32(space, (const float *)G, (float *)U, I, R, host_V, space_V,
                                   sweeps);
  return tpi_cp_columns_hals_f64(space, (const double *)G, (double *)U, I, R, host_V, space_V,
                                 sweeps);
}

tp_status tpi_cp_array_stats_scaled_of(tp_space *space, tp_dtype dtype, const void *x, int64_t n,
                                       double scale, tpi_cp_array_stats *host_stats) {
  TP_TRY(cp_check_dtype(dtype));
  if (dtype == TP_DTYPE_F32)
    return tpi_cp_array_stats_f32(space, (const float *)x, n, scale, host_stats);
  return tpi_cp_array_stats_f64(space, (const double *)x, n, scale, host_stats);
}

tp_status tpi_cp_array_stats_of(tp_space *space, tp_dtype dtype, const void *x, int64_t n,
                                tpi_cp_array_stats *host_stats) {
  return tpi_cp_array_stats_scaled_of(space, dtype, x, n, 1.0, host_stats);
}
#endif

#undef FN
