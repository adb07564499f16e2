/* The R x R solve of CP-ALS in the space, for large R on GPUs: U V = G with V = L L^T.
 * The host solve (spd_solve.c) costs 2R^3/3 + 2IR^2 flops on the host's cores, replicated
 * on every rank of a node: at R = 2000 that is most of a CP-ALS iteration. Here the
 * Cholesky is blocked right-looking by panels of SPD_PANEL columns: one team factors each
 * diagonal block in scratch and inverts it, and GEMMs do the rest (L21 = A21 L11^-T,
 * A22 -= L21 L21^T). The rows of U then solve Y L^T = G and U L = Y panel by panel, each
 * panel a GEMM against the finished panels and one against the diagonal block's inverse.
 * Everything is in double, whatever the factors' dtype.
 *
 * A pivot not above tau = R eps max_i V_ii (the host solve's threshold) is reported, not
 * handled: the caller then runs the host solve, whose pivoted Cholesky gives the basic
 * solution. Row-major throughout; the GEMMs are tenport's (cuBLAS, rocBLAS, BLIS, or the
 * portable one). */
/* generates: spd_diag_factor spd_diagonal spd_narrow spd_widen */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/linalg.h"
#include "tenport/memory.h"
#include "tenport/space.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "portable/tp_portable.h"

enum {
  SPD_PANEL = 64,            /* columns per panel; a diagonal block fills 32 KiB of scratch */
  SPD_TEAM_THREADS = 256,    /* threads of the team factoring a diagonal block */
  SPD_CHUNK_VALUES = 1 << 24 /* rows of U solved together: at most this many values */
};

/* ---- the diagonal block of a panel ------------------------------------------------- */

typedef struct spd_diag_args {
  const double *W; /* R x R: V with the finished panels' updates subtracted */
  double *L;       /* R x R: the factor; the block is written with zeros above */
  double *inverse; /* jb x jb: L11^-1, row-major */
  int *failed;     /* set to 1 when a pivot is not above tau */
  int64_t R, j0, jb;
  double tau;
} spd_diag_args;

/* Unblocked right-looking Cholesky of the jb x jb block at (j0, j0), staged in scratch;
 * then its inverse, one column per thread by forward substitution. */
TP_TEAM_KERNEL(spd_diag_factor, spd_diag_args, team, a) {
  double *S = (double *)team->scratch;
  const int64_t n = a.jb;
  TP_TEAM_VECTOR_FOR(team, e, 0, n * n) {
    int64_t i = e / n, k = e % n;
    S[e] = k <= i ? a.W[(a.j0 + i) * a.R + a.j0 + k] : 0.0;
  }
  tp_team_barrier(team);
  for (int64_t j = 0; j < n; ++j) {
    double d = S[j * n + j];
    int bad = !(d > a.tau);
    double pivot = bad ? 1.0 : sqrt(d);
    tp_team_barrier(team); /* every thread has read the pivot before it is replaced */
    TP_TEAM_SINGLE(team) {
      S[j * n + j] = pivot;
      if (bad)
        *a.failed = 1;
    }
    TP_TEAM_VECTOR_FOR(team, i, j + 1, n) { S[i * n + j] /= pivot; }
    tp_team_barrier(team);
    const int64_t m = n - j - 1;
    TP_TEAM_VECTOR_FOR(team, e, 0, m * m) {
      int64_t i = j + 1 + e / m, k = j + 1 + e % m;
      if (k <= i)
        S[i * n + k] -= S[i * n + j] * S[k * n + j];
    }
    tp_team_barrier(team);
  }
  TP_TEAM_VECTOR_FOR(team, c, 0, n) {
    double *inv = a.inverse;
    for (int64_t i = 0; i < c; ++i)
      inv[i * n + c] = 0.0;
    inv[c * n + c] = 1.0 / S[c * n + c];
    for (int64_t i = c + 1; i < n; ++i) {
      double s = 0.0;
      for (int64_t k = c; k < i; ++k)
        s += S[i * n + k] * inv[k * n + c];
      inv[i * n + c] = -s / S[i * n + i];
    }
  }
  TP_TEAM_VECTOR_FOR(team, e, 0, n * n) { a.L[(a.j0 + e / n) * a.R + a.j0 + e % n] = S[e]; }
}

/* ---- dtype conversions (tp_cp_internal.h) ------------------------------------------ */

typedef struct spd_convert_args {
  const float *from32;
  const double *from64;
  float *to32;
  double *to64;
} spd_convert_args;

TP_RANGE_KERNEL(spd_widen, spd_convert_args, i, a) { a.to64[i] = (double)a.from32[i]; }
TP_RANGE_KERNEL(spd_narrow, spd_convert_args, i, a) { a.to32[i] = (float)a.from64[i]; }

/* n values from one dtype to the other (f32 or f64): a copy when they are the same. */
static tp_status spd_convert(tp_space *space, tp_dtype from, tp_dtype to, const void *src,
                             void *dst, int64_t n) {
  if (from == to)
    return tp_copy_on_device(space, dst, src, tp_dtype_size(from) * (size_t)n);
  spd_convert_args a;
  memset(&a, 0, sizeof a);
  if (from == TP_DTYPE_F32) {
    a.from32 = (const float *)src, a.to64 = (double *)dst;
    return TP_LAUNCHER(spd_widen)(space, n, a);
  }
  a.from64 = (const double *)src, a.to32 = (float *)dst;
  return TP_LAUNCHER(spd_narrow)(space, n, a);
}

tp_status tpi_cp_to_double(tp_space *space, tp_dtype dtype, const void *src, double *dst,
                           int64_t n) {
  return spd_convert(space, dtype, TP_DTYPE_F64, src, dst, n);
}

tp_status tpi_cp_from_double(tp_space *space, tp_dtype dtype, const double *src, void *dst,
                             int64_t n) {
  return spd_convert(space, TP_DTYPE_F64, dtype, src, dst, n);
}

/* ---- the factorisation and the row solves ------------------------------------------ */

typedef struct spd_work {
  tp_space *space;
  int64_t R, panels;
  double *W, *L;    /* R x R each */
  double *inverses; /* panels x SPD_PANEL^2: the diagonal blocks' inverses */
  int *failed;
} spd_work;

static double *spd_inverse(const spd_work *w, int64_t p) {
  return w->inverses + (size_t)p * SPD_PANEL * SPD_PANEL;
}

static int64_t spd_panel_width(const spd_work *w, int64_t p) {
  return tp_min_i64(SPD_PANEL, w->R - p * SPD_PANEL);
}

static tp_status spd_factor(spd_work *w, double tau) {
  const int64_t R = w->R;
  tp_space_info info;
  TP_TRY(tp_space_get_info(w->space, &info));
  int threads = info.max_team_threads < SPD_TEAM_THREADS ? info.max_team_threads : SPD_TEAM_THREADS;
  for (int64_t p = 0; p < w->panels; ++p) {
    const int64_t j0 = p * SPD_PANEL, jb = spd_panel_width(w, p), m = R - j0 - jb;
    spd_diag_args a;
    a.W = w->W, a.L = w->L, a.inverse = spd_inverse(w, p), a.failed = w->failed;
    a.R = R, a.j0 = j0, a.jb = jb, a.tau = tau;
    tp_team_policy policy =
        tp_team_policy_make(1, threads > 1 ? threads : 1, 1, sizeof(double) * (size_t)(jb * jb));
    TP_TRY(TP_LAUNCHER(spd_diag_factor)(w->space, policy, a));
    if (m == 0)
      break;
    double *L21 = w->L + (j0 + jb) * R + j0;
    TP_TRY(tp_gemm_f64(w->space, TP_NO_TRANS, TP_TRANS, m, jb, jb, 1.0, w->W + (j0 + jb) * R + j0,
                       R, spd_inverse(w, p), jb, 0.0, L21, R));
    TP_TRY(tp_gemm_f64(w->space, TP_NO_TRANS, TP_TRANS, m, m, jb, -1.0, L21, R, L21, R, 1.0,
                       w->W + (j0 + jb) * (R + 1), R));
  }
  return TP_SUCCESS;
}

/* U L L^T = G for `rows` rows: Y L^T = G forwards (Y in Y), then U L = Y backwards (U
 * over G's storage). G and Y: rows x R doubles in the space. */
static tp_status spd_solve_rows(const spd_work *w, double *G, double *Y, int64_t rows) {
  const int64_t R = w->R;
  for (int64_t p = 0; p < w->panels; ++p) {
    const int64_t j0 = p * SPD_PANEL, jb = spd_panel_width(w, p);
    if (j0 > 0) /* G_p -= Y[:, :j0] L[p, :j0]^T */
      TP_TRY(tp_gemm_f64(w->space, TP_NO_TRANS, TP_TRANS, rows, jb, j0, -1.0, Y, R, w->L + j0 * R,
                         R, 1.0, G + j0, R));
    TP_TRY(tp_gemm_f64(w->space, TP_NO_TRANS, TP_TRANS, rows, jb, jb, 1.0, G + j0, R,
                       spd_inverse(w, p), jb, 0.0, Y + j0, R));
  }
  for (int64_t p = w->panels - 1; p >= 0; --p) {
    const int64_t j0 = p * SPD_PANEL, jb = spd_panel_width(w, p), after = j0 + jb;
    if (after < R) /* Y_p -= U[:, after:] L[after:, p] */
      TP_TRY(tp_gemm_f64(w->space, TP_NO_TRANS, TP_NO_TRANS, rows, jb, R - after, -1.0, G + after,
                         R, w->L + after * R + j0, R, 1.0, Y + j0, R));
    TP_TRY(tp_gemm_f64(w->space, TP_NO_TRANS, TP_NO_TRANS, rows, jb, jb, 1.0, Y + j0, R,
                       spd_inverse(w, p), jb, 0.0, G + j0, R));
  }
  return TP_SUCCESS;
}

/* The rows of G in chunks of chunk_rows, each widened, solved and narrowed into U. */
static tp_status spd_solve_chunks(const spd_work *w, tp_dtype dtype, const void *G, void *U,
                                  int64_t I, int64_t chunk_rows) {
  const int64_t R = w->R;
  const size_t elem = dtype == TP_DTYPE_F64 ? sizeof(double) : sizeof(float);
  double *buf = NULL;
  TP_TRY(tp_temp_alloc(w->space, 2 * sizeof(double) * (size_t)(chunk_rows * R), (void **)&buf));
  tp_status st = TP_SUCCESS;
  for (int64_t first = 0; first < I && st == TP_SUCCESS; first += chunk_rows) {
    const int64_t rows = tp_min_i64(chunk_rows, I - first);
    const size_t offset = elem * (size_t)(first * R);
    st = tpi_cp_to_double(w->space, dtype, (const char *)G + offset, buf, rows * R);
    if (st == TP_SUCCESS)
      st = spd_solve_rows(w, buf, buf + chunk_rows * R, rows);
    if (st == TP_SUCCESS)
      st = tpi_cp_from_double(w->space, dtype, buf, (char *)U + offset, rows * R);
  }
  tp_temp_release(w->space, buf);
  return st;
}

/* ---- the diagonal's scale ------------------------------------------------------------- */

typedef struct spd_diagonal_args {
  const double *V;
  int64_t R;
  double *out;
} spd_diagonal_args;

TP_RANGE_KERNEL(spd_diagonal, spd_diagonal_args, i, a) { a.out[i] = a.V[i * (a.R + 1)]; }

/* max_i V_ii of V in the space, or 0 when a diagonal entry is not finite and positive (the
 * host solve then reports or handles it). */
static tp_status spd_max_diagonal(tp_space *space, const double *V, int64_t R, double *max_diag) {
  double *diag = NULL, *host = (double *)malloc(sizeof(double) * (size_t)R);
  if (!host)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for %lld values", (long long)R);
  tp_status st = tp_temp_alloc(space, sizeof(double) * (size_t)R, (void **)&diag);
  if (st == TP_SUCCESS) {
    spd_diagonal_args a;
    a.V = V, a.R = R, a.out = diag;
    st = TP_LAUNCHER(spd_diagonal)(space, R, a);
    if (st == TP_SUCCESS)
      st = tp_copy_to_host(space, host, diag, sizeof(double) * (size_t)R);
    tp_temp_release(space, diag);
  }
  *max_diag = 0.0;
  for (int64_t i = 0; i < R && st == TP_SUCCESS; ++i) {
    if (!(host[i] > 0) || !isfinite(host[i])) {
      *max_diag = 0.0;
      break;
    }
    *max_diag = host[i] > *max_diag ? host[i] : *max_diag;
  }
  free(host);
  return st;
}

static tp_status spd_factor_and_solve(spd_work *w, tp_dtype dtype, const void *G, void *U,
                                      int64_t I, const double *V, int64_t chunk_rows, double tau,
                                      int *solved) {
  const int64_t R = w->R;
  int failed = 0;
  TP_TRY(tp_copy_on_device(w->space, w->W, V, sizeof(double) * (size_t)(R * R)));
  TP_TRY(tp_memset(w->space, w->failed, 0, sizeof(int)));
  TP_TRY(spd_factor(w, tau));
  TP_TRY(tp_copy_to_host(w->space, &failed, w->failed, sizeof(int)));
  if (failed)
    return TP_SUCCESS;
  if (I > 0)
    TP_TRY(spd_solve_chunks(w, dtype, G, U, I, chunk_rows));
  *solved = 1;
  return TP_SUCCESS;
}

tp_status tpi_cp_spd_solve_device(tp_space *space, tp_dtype dtype, const void *G, void *U,
                                  int64_t I, int64_t R, const double *V, int64_t chunk_rows,
                                  int *solved) {
  TP_CHECK_ARG(space && V && solved, "space, V and solved must not be NULL");
  TP_CHECK_ARG(dtype == TP_DTYPE_F32 || dtype == TP_DTYPE_F64,
               "dtype %d: the solve takes float32 or float64 factors", (int)dtype);
  TP_CHECK_ARG(I >= 0 && R >= 1 && R <= INT32_MAX, "factor shape %lld x %lld is invalid",
               (long long)I, (long long)R);
  TP_CHECK_ARG(I == 0 || (G && U), "G and U must not be NULL");
  *solved = 0;
  double max_diag = 0.0;
  TP_TRY(spd_max_diagonal(space, V, R, &max_diag));
  if (max_diag == 0.0)
    return TP_SUCCESS;
  if (chunk_rows <= 0)
    chunk_rows = tp_max_i64(1, SPD_CHUNK_VALUES / R);
  chunk_rows = tp_max_i64(1, tp_min_i64(chunk_rows, I));
  spd_work w;
  memset(&w, 0, sizeof w);
  w.space = space, w.R = R, w.panels = tp_ceil_div_i64(R, SPD_PANEL);
  const size_t RR = (size_t)(R * R), blocks = (size_t)w.panels * SPD_PANEL * SPD_PANEL;
  double *block = NULL;
  TP_TRY(
      tp_temp_alloc(space, sizeof(double) * (2 * RR + blocks) + sizeof(double), (void **)&block));
  w.W = block, w.L = block + RR, w.inverses = block + 2 * RR;
  w.failed = (int *)(void *)(block + 2 * RR + blocks);
  tp_status st = spd_factor_and_solve(&w, dtype, G, U, I, V, chunk_rows,
                                      (double)R * DBL_EPSILON * max_diag, solved);
  tp_temp_release(space, block);
  return st;
}
