/* The R x R solve of CP-ALS: U V = G with V symmetric (the Hadamard product of Grams),
 * on the host in double. V = L L^T by a blocked left-looking Cholesky; when a pivot is
 * not above R eps max_i V_ii, a pivoted Cholesky with complete diagonal pivoting,
 * P^T V P = L L^T with L of numerical rank r, gives the basic solution (the unknowns
 * past the rank set to 0). Each row u of U solves V u = g: L z = P^T g, L^T w = z,
 * u = P w. All storage is row-major and every inner loop runs over a contiguous row
 * prefix; rows of U are solved in parallel, in chunks that share each row of L. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/linalg.h"
#include "portable/tp_space_common.h"
#include "tenport/memory.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"

enum {
  PANEL = 32,             /* columns of L per block of the Cholesky */
  CHUNK_ROWS = 8,         /* rows of U solved together against each row of L */
  PARALLEL_WORK = 1 << 15 /* fewest multiply-adds worth a parallel loop */
};

static double dot(const double *a, const double *b, int64_t n) {
  double s = 0.0;
  TP_HOST_OMP(omp simd reduction(+ : s))
  for (int64_t k = 0; k < n; ++k)
    s += a[k] * b[k];
  return s;
}

/* s[q] = a . b_q for four vectors b_q: a is loaded once for all four. */
static void dot4(const double *a, const double *b0, const double *b1, const double *b2,
                 const double *b3, int64_t n, double *s) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  TP_HOST_OMP(omp simd reduction(+ : s0, s1, s2, s3))
  for (int64_t k = 0; k < n; ++k) {
    s0 += a[k] * b0[k];
    s1 += a[k] * b1[k];
    s2 += a[k] * b2[k];
    s3 += a[k] * b3[k];
  }
  s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
}

/* ---- Cholesky, blocked by panels of columns ---------------------------------------- */

/* Rows [j0, R), panel columns [j0, j0 + jb), on and below the diagonal: subtract the
 * contributions of the finished columns [0, j0). */
static void panel_update(double *W, int64_t R, int64_t j0, int64_t jb) {
  TP_HOST_OMP(omp parallel for schedule(dynamic, 16) if ((R - j0) * j0 * jb > PARALLEL_WORK))
  for (int64_t i = j0; i < R; ++i) {
    double *wi = W + i * R, s[4];
    int64_t end = j0 + jb < i + 1 ? j0 + jb : i + 1, c = j0;
    for (; c + 4 <= end; c += 4) {
      const double *wc = W + c * R;
      dot4(wi, wc, wc + R, wc + 2 * R, wc + 3 * R, j0, s);
      wi[c] -= s[0], wi[c + 1] -= s[1], wi[c + 2] -= s[2], wi[c + 3] -= s[3];
    }
    for (; c < end; ++c)
      wi[c] -= dot(wi, W + c * R, j0);
  }
}

/* Factors the panel's diagonal block; 0 when a pivot is not above tau (or is NaN). */
static int panel_diagonal(double *W, int64_t R, int64_t j0, int64_t jb, double tau) {
  for (int64_t j = j0; j < j0 + jb; ++j) {
    double *wj = W + j * R;
    for (int64_t c = j0; c < j; ++c)
      wj[c] = (wj[c] - dot(wj + j0, W + c * R + j0, c - j0)) / W[c * R + c];
    double d = wj[j] - dot(wj + j0, wj + j0, j - j0);
    if (!(d > tau))
      return 0;
    wj[j] = sqrt(d);
  }
  return 1;
}

/* Rows below the diagonal block: the panel's columns of L. */
static void panel_below(double *W, int64_t R, int64_t j0, int64_t jb) {
  TP_HOST_OMP(omp parallel for schedule(static) if ((R - j0 - jb) * jb * jb > PARALLEL_WORK))
  for (int64_t i = j0 + jb; i < R; ++i) {
    double *wi = W + i * R;
    for (int64_t c = j0; c < j0 + jb; ++c)
      wi[c] = (wi[c] - dot(wi + j0, W + c * R + j0, c - j0)) / W[c * R + c];
  }
}

/* L in the lower triangle of W (which holds V on entry); 0 if a pivot failed. */
static int cholesky(double *W, int64_t R, double tau) {
  for (int64_t j0 = 0; j0 < R; j0 += PANEL) {
    int64_t jb = R - j0 < PANEL ? R - j0 : PANEL;
    panel_update(W, R, j0, jb);
    if (!panel_diagonal(W, R, j0, jb, tau))
      return 0;
    panel_below(W, R, j0, jb);
  }
  return 1;
}

/* ---- pivoted Cholesky (the rank-revealing fallback) -------------------------------- */

/* Symmetric exchange of indices k < p in the rows k.. of W, with the bookkeeping. */
static void swap_index(double *W, int64_t R, int64_t k, int64_t p, int64_t *perm, double *dres) {
  double *wk = W + k * R, *wp = W + p * R;
  for (int64_t c = 0; c < R; ++c) {
    double t = wk[c];
    wk[c] = wp[c], wp[c] = t;
  }
  for (int64_t i = k; i < R; ++i) {
    double *wi = W + i * R, t = wi[k];
    wi[k] = wi[p], wi[p] = t;
  }
  int64_t tp = perm[k];
  perm[k] = perm[p], perm[p] = tp;
  double td = dres[k];
  dres[k] = dres[p], dres[p] = td;
}

/* Column k of L below the pivot lkk, four rows at a time; the remaining diagonal of the
 * Schur complement is updated alongside. */
static void pivot_column(double *W, int64_t R, int64_t k, double lkk, double *dres) {
  const double *wk = W + k * R;
  int64_t first = k + 1, groups = (R - first) / 4;
  TP_HOST_OMP(omp parallel for schedule(static) if ((R - k) * k > PARALLEL_WORK))
  for (int64_t g = 0; g < groups; ++g) {
    double *w0 = W + (first + 4 * g) * R, s[4];
    dot4(wk, w0, w0 + R, w0 + 2 * R, w0 + 3 * R, k, s);
    for (int u = 0; u < 4; ++u) {
      double l = (w0[u * R + k] - s[u]) / lkk;
      w0[u * R + k] = l;
      dres[first + 4 * g + u] -= l * l;
    }
  }
  for (int64_t i = first + 4 * groups; i < R; ++i) {
    double *wi = W + i * R;
    wi[k] = (wi[k] - dot(wi, wk, k)) / lkk;
    dres[i] -= wi[k] * wi[k];
  }
}

/* Left-looking with the largest remaining diagonal as pivot (ties: the smallest
 * index); stops at the first pivot not above tau. Returns the rank. */
static int64_t pivoted_cholesky(double *W, int64_t R, double tau, int64_t *perm, double *dres) {
  for (int64_t i = 0; i < R; ++i)
    perm[i] = i, dres[i] = W[i * R + i];
  for (int64_t k = 0; k < R; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < R; ++i)
      if (dres[i] > dres[p])
        p = i;
    if (!(dres[p] > tau))
      return k;
    if (p != k)
      swap_index(W, R, k, p, perm, dres);
    double lkk = sqrt(dres[k]);
    W[k * R + k] = lkk;
    pivot_column(W, R, k, lkk, dres);
  }
  return R;
}

/* ---- triangular solves of many rows ------------------------------------------------- */

/* rows x R block Y: y <- [L^-T L^-1 y_(0:r) ; 0] for each row y. */
static void solve_chunk(const double *L, int64_t R, int64_t r, double *Y, int64_t rows) {
  for (int64_t j = 0; j < r; ++j) {
    const double *lj = L + j * R;
    int64_t q = 0;
    for (; q + 4 <= rows; q += 4) {
      double *y = Y + q * R, s[4];
      dot4(lj, y, y + R, y + 2 * R, y + 3 * R, j, s);
      for (int u = 0; u < 4; ++u)
        y[u * R + j] = (y[u * R + j] - s[u]) / lj[j];
    }
    for (; q < rows; ++q) {
      double *y = Y + q * R;
      y[j] = (y[j] - dot(lj, y, j)) / lj[j];
    }
  }
  for (int64_t j = r - 1; j >= 0; --j) {
    const double *lj = L + j * R;
    int64_t q = 0;
    for (; q + 4 <= rows; q += 4) {
      double *y0 = Y + q * R, *y1 = y0 + R, *y2 = y1 + R, *y3 = y2 + R;
      double w0 = y0[j] / lj[j], w1 = y1[j] / lj[j], w2 = y2[j] / lj[j], w3 = y3[j] / lj[j];
      y0[j] = w0, y1[j] = w1, y2[j] = w2, y3[j] = w3;
      TP_HOST_OMP(omp simd)
      for (int64_t c = 0; c < j; ++c) {
        double l = lj[c];
        y0[c] -= l * w0, y1[c] -= l * w1, y2[c] -= l * w2, y3[c] -= l * w3;
      }
    }
    for (; q < rows; ++q) {
      double *y = Y + q * R, w = y[j] / lj[j];
      y[j] = w;
      TP_HOST_OMP(omp simd)
      for (int64_t c = 0; c < j; ++c)
        y[c] -= lj[c] * w;
    }
  }
  for (int64_t q = 0; q < rows; ++q)
    for (int64_t c = r; c < R; ++c)
      Y[q * R + c] = 0.0;
}

/* U (I x R) <- the solution, through Y = U P, solved, then U = Y P^T. */
static void solve_rows(const double *L, int64_t R, int64_t r, const int64_t *perm, double *U,
                       int64_t I, double *Y) {
  int64_t chunks = (I + CHUNK_ROWS - 1) / CHUNK_ROWS;
  TP_HOST_OMP(omp parallel for schedule(static) if (I * R * r > PARALLEL_WORK))
  for (int64_t ch = 0; ch < chunks; ++ch) {
    int64_t first = ch * CHUNK_ROWS;
    int64_t rows = I - first < CHUNK_ROWS ? I - first : CHUNK_ROWS;
    double *Yc = Y + first * R, *Uc = U + first * R;
    for (int64_t q = 0; q < rows; ++q)
      for (int64_t j = 0; j < R; ++j)
        Yc[q * R + j] = Uc[q * R + perm[j]];
    solve_chunk(L, R, r, Yc, rows);
    for (int64_t q = 0; q < rows; ++q)
      for (int64_t j = 0; j < R; ++j)
        Uc[q * R + perm[j]] = Yc[q * R + j];
  }
}

/* ---- the solve ------------------------------------------------------------------------ */

/* Largest diagonal entry of V; an error if V has a non-finite entry. */
static tp_status diagonal_scale(const double *V, int64_t R, double *max_diag) {
  *max_diag = 0.0;
  for (int64_t i = 0; i < R * R; ++i)
    if (!isfinite(V[i]))
      return TP_ERROR(TP_ERROR_NUMERICAL,
                      "the %lld x %lld system matrix has a non-finite entry at (%lld, %lld)",
                      (long long)R, (long long)R, (long long)(i / R), (long long)(i % R));
  for (int64_t i = 0; i < R; ++i)
    *max_diag = V[i * R + i] > *max_diag ? V[i * R + i] : *max_diag;
  return TP_SUCCESS;
}

/* Factors V into W (with perm and rank); *fallback says whether pivoting was needed. */
static void factor(const double *V, int64_t R, double tau, double *W, int64_t *perm, double *dres,
                   int64_t *rank, int *fallback) {
  memcpy(W, V, sizeof(double) * (size_t)(R * R));
  *fallback = !cholesky(W, R, tau);
  if (*fallback) {
    memcpy(W, V, sizeof(double) * (size_t)(R * R));
    *rank = pivoted_cholesky(W, R, tau, perm, dres);
  } else {
    *rank = R;
    for (int64_t i = 0; i < R; ++i)
      perm[i] = i;
  }
}

tp_status tpi_cp_spd_solve(const double *V, int64_t R, double *U, int64_t I, int *fallback,
                           int64_t *rank) {
  TP_CHECK_ARG(R >= 1 && I >= 0,
               "system of %lld rows and rank %lld: need rank >= 1 and "
               "rows >= 0",
               (long long)I, (long long)R);
  TP_CHECK_ARG(R <= INT64_MAX / R / (int64_t)sizeof(double) &&
                   (I == 0 || I <= INT64_MAX / R / (int64_t)sizeof(double)),
               "a %lld x %lld system does not fit in memory", (long long)I, (long long)R);
  TP_CHECK_ARG(V && (I == 0 || U), "V and U must not be NULL");
  double max_diag;
  TP_TRY(diagonal_scale(V, R, &max_diag));
  double tau = (double)R * DBL_EPSILON * max_diag;
  double *W = (double *)malloc(sizeof(double) * (size_t)(R * R));
  double *dres = (double *)malloc(sizeof(double) * (size_t)R);
  int64_t *perm = (int64_t *)malloc(sizeof(int64_t) * (size_t)R);
  double *Y = (double *)malloc(sizeof(double) * (size_t)((I ? I : 1) * R));
  tp_status st = TP_SUCCESS;
  if (!W || !dres || !perm || !Y) {
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for a %lld x %lld solve", (long long)I,
                  (long long)R);
  } else {
    int used_fallback;
    int64_t r;
    factor(V, R, tau, W, perm, dres, &r, &used_fallback);
    solve_rows(W, R, r, perm, U, I, Y);
    if (fallback)
      *fallback = used_fallback;
    if (rank)
      *rank = r;
  }
  free(W), free(dres), free(perm), free(Y);
  return st;
}

/* ---- with G and U in the space -------------------------------------------------------- */

/* n values of G from the space into host doubles; f32 values land in the front half of
 * the buffer and are widened in place from the back. */
static tp_status download(tp_space *space, tp_dtype dtype, const void *G, size_t n, double *host) {
  if (dtype == TP_DTYPE_F64)
    return tp_copy_to_host(space, host, G, n * sizeof(double));
  TP_TRY(tp_copy_to_host(space, host, G, n * sizeof(float)));
  const unsigned char *bytes = (const unsigned char *)host;
  for (size_t k = n; k-- > 0;) {
    float f;
    memcpy(&f, bytes + k * sizeof(float), sizeof f);
    host[k] = (double)f;
  }
  return TP_SUCCESS;
}

/* The reverse: narrowed in place from the front, then copied. */
static tp_status upload(tp_space *space, tp_dtype dtype, double *host, size_t n, void *U) {
  if (dtype == TP_DTYPE_F64)
    return tp_copy_to_device(space, U, host, n * sizeof(double));
  unsigned char *bytes = (unsigned char *)host;
  for (size_t k = 0; k < n; ++k) {
    float f = (float)host[k];
    memcpy(bytes + k * sizeof(float), &f, sizeof f);
  }
  return tp_copy_to_device(space, U, host, n * sizeof(float));
}

/* U = G W in the space, W = V^-1 as the host solve sees it: the rows of the identity
 * solved with the same factorisation and fallback (the solve is linear in its right-hand
 * side), so both paths apply one operator. host holds at least R x R doubles. In f32 the
 * product adds an error of about eps_f32 |G| |W|: the order of what the f32 rounding of G
 * itself already costs any solve (eps_f32 |G| amplified by |V^-1|). */
static tp_status solve_by_product(tp_space *space, tp_dtype dtype, const void *G, void *U,
                                  int64_t I, int64_t R, const double *V, double *host,
                                  int *fallback) {
  const size_t rr = (size_t)(R * R);
  for (size_t k = 0; k < rr; ++k)
    host[k] = k % (size_t)(R + 1) == 0 ? 1.0 : 0.0;
  TP_TRY(tpi_cp_spd_solve(V, R, host, R, fallback, NULL));
  const size_t elem = dtype == TP_DTYPE_F64 ? sizeof(double) : sizeof(float);
  void *W;
  TP_TRY(tp_temp_alloc(space, elem * rr, &W));
  tp_status st = upload(space, dtype, host, rr, W);
  if (st == TP_SUCCESS && dtype == TP_DTYPE_F64)
    st = tp_gemm_f64(space, TP_NO_TRANS, TP_NO_TRANS, I, R, R, 1.0, (const double *)G, R,
                     (const double *)W, R, 0.0, (double *)U, R);
  else if (st == TP_SUCCESS)
    st = tp_gemm_f32(space, TP_NO_TRANS, TP_NO_TRANS, I, R, R, 1.0f, (const float *)G, R,
                     (const float *)W, R, 0.0f, (float *)U, R);
  tp_temp_release(space, W);
  return st;
}

tp_status tpi_cp_solve_in_space(tp_space *space, tp_dtype dtype, const void *G, void *U, int64_t I,
                                int64_t R, const double *V, double *host, int *fallback) {
  TP_CHECK_ARG(space && V && host, "space, V and the host buffer must not be NULL");
  TP_CHECK_ARG(dtype == TP_DTYPE_F32 || dtype == TP_DTYPE_F64,
               "dtype %d: the solve takes float32 or float64 factors", (int)dtype);
  TP_CHECK_ARG(I >= 0 && R >= 1, "factor shape %lld x %lld is invalid", (long long)I, (long long)R);
  if (I >= TP_CP_SOLVE_PRODUCT_MIN_ROWS && I >= 4 * R && G != U)
    return solve_by_product(space, dtype, G, U, I, R, V, host, fallback);
  size_t n = (size_t)I * (size_t)R;
  TP_TRY(download(space, dtype, G, n, host));
  TP_TRY(tpi_cp_spd_solve(V, R, host, I, fallback, NULL));
  return upload(space, dtype, host, n, U);
}
