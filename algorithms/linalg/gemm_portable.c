/* tenport's own GEMM on the portable layer, in both precisions and batched: each team
 * computes a TILE x TILE block of one C, staging TILE x DEPTH blocks of op(A) and
 * DEPTH x TILE blocks of op(B) in team scratch and accumulating the block of C in
 * scratch. The fallback where no vendor BLAS is available (HIP, CPUs without BLIS). */
#include "tp_linalg_internal.h"
#include "tp_portable.h"

enum { TILE = 32, DEPTH = 16 };

tp_status tp_gemm_check_args(const tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                             int64_t m, int64_t n, int64_t k, const void *A, int64_t lda,
                             const void *B, int64_t ldb, const void *C, int64_t ldc) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(m >= 0 && n >= 0 && k >= 0, "negative GEMM shape m=%lld n=%lld k=%lld",
               (long long)m, (long long)n, (long long)k);
  int64_t a_cols = trans_a ? m : k, b_cols = trans_b ? k : n;
  TP_CHECK_ARG(lda >= (a_cols > 1 ? a_cols : 1), "lda=%lld is smaller than op(A)'s %lld columns",
               (long long)lda, (long long)a_cols);
  TP_CHECK_ARG(ldb >= (b_cols > 1 ? b_cols : 1), "ldb=%lld is smaller than op(B)'s %lld columns",
               (long long)ldb, (long long)b_cols);
  TP_CHECK_ARG(ldc >= (n > 1 ? n : 1), "ldc=%lld is smaller than C's %lld columns",
               (long long)ldc, (long long)n);
  TP_CHECK_ARG(m == 0 || n == 0 || (C && (k == 0 || (A && B))), "NULL matrix");
  return TP_SUCCESS;
}

tp_status tp_gemm_check_batch(int64_t stride_a, int64_t stride_b, int64_t stride_c,
                              int64_t batch) {
  TP_CHECK_ARG(batch >= 0, "negative batch count %lld", (long long)batch);
  TP_CHECK_ARG(stride_a >= 0 && stride_b >= 0 && stride_c >= 0,
               "negative batch stride (A %lld, B %lld, C %lld)", (long long)stride_a,
               (long long)stride_b, (long long)stride_c);
  return TP_SUCCESS;
}

#define TP_DEFINE_PORTABLE_GEMM(sfx, T)                                                  \
  typedef struct gemm_args_##sfx {                                                      \
    int trans_a, trans_b;                                                               \
    int64_t m, n, k, lda, ldb, ldc, sa, sb, sc, tiles_n, tiles;                         \
    T alpha, beta;                                                                      \
    const T *A, *B;                                                                     \
    T *C;                                                                               \
  } gemm_args_##sfx;                                                                    \
                                                                                        \
  TP_TEAM_KERNEL(gemm_tile_##sfx, gemm_args_##sfx, team, g) {                           \
    T *As = (T *)team->scratch; /* [TILE][DEPTH] */                                     \
    T *Bs = As + TILE * DEPTH;  /* [DEPTH][TILE] */                                     \
    T *Cs = Bs + DEPTH * TILE;  /* [TILE][TILE] */                                      \
    const int64_t b = team->league_rank / g.tiles, t = team->league_rank % g.tiles;     \
    const T *A = g.A + b * g.sa, *B = g.B + b * g.sb;                                   \
    T *C = g.C + b * g.sc;                                                              \
    const int64_t i0 = (t / g.tiles_n) * TILE, j0 = (t % g.tiles_n) * TILE;             \
    TP_TEAM_VECTOR_FOR(team, e, 0, TILE * TILE) { Cs[e] = 0; }                          \
    for (int64_t p0 = 0; p0 < g.k; p0 += DEPTH) {                                       \
      tp_team_barrier(team);                                                            \
      TP_TEAM_VECTOR_FOR(team, e, 0, TILE * DEPTH) {                                    \
        int64_t r = e / DEPTH, p = e % DEPTH, i = i0 + r, pa = p0 + p;                  \
        As[e] = (i < g.m && pa < g.k) ? (g.trans_a ? A[pa * g.lda + i] : A[i * g.lda + pa]) \
                                      : (T)0;                                           \
        int64_t q = e / TILE, c = e % TILE, pb = p0 + q, j = j0 + c;                    \
        Bs[e] = (pb < g.k && j < g.n) ? (g.trans_b ? B[j * g.ldb + pb] : B[pb * g.ldb + j]) \
                                      : (T)0;                                           \
      }                                                                                 \
      tp_team_barrier(team);                                                            \
      TP_TEAM_FOR(team, r, 0, TILE) {                                                   \
        TP_VECTOR_FOR(team, c, 0, TILE) {                                               \
          T acc = Cs[r * TILE + c];                                                     \
          for (int p = 0; p < DEPTH; ++p)                                               \
            acc += As[r * DEPTH + p] * Bs[p * TILE + c];                                \
          Cs[r * TILE + c] = acc;                                                       \
        }                                                                               \
      }                                                                                 \
    }                                                                                   \
    tp_team_barrier(team);                                                              \
    TP_TEAM_FOR(team, r, 0, TILE) {                                                     \
      TP_VECTOR_FOR(team, c, 0, TILE) {                                                 \
        int64_t i = i0 + r, j = j0 + c;                                                 \
        if (i < g.m && j < g.n) {                                                       \
          T *out = &C[i * g.ldc + j];                                                   \
          *out = g.alpha * Cs[r * TILE + c] + (g.beta == 0 ? (T)0 : g.beta * *out);     \
        }                                                                               \
      }                                                                                 \
    }                                                                                   \
  }                                                                                     \
                                                                                        \
  tp_status tp_gemm_portable_batched_##sfx(                                             \
      tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m, int64_t n, \
      int64_t k, T alpha, const T *A, int64_t lda, int64_t sa, const T *B, int64_t ldb,  \
      int64_t sb, T beta, T *C, int64_t ldc, int64_t sc, int64_t batch) {                \
    TP_TRY(tp_gemm_check_args(space, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc)); \
    TP_TRY(tp_gemm_check_batch(sa, sb, sc, batch));                                     \
    if (m == 0 || n == 0 || batch == 0)                                                 \
      return TP_SUCCESS;                                                                \
    gemm_args_##sfx g;                                                                  \
    g.trans_a = trans_a == TP_TRANS;                                                    \
    g.trans_b = trans_b == TP_TRANS;                                                    \
    g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = ldb, g.ldc = ldc;                   \
    g.sa = sa, g.sb = sb, g.sc = sc;                                                    \
    g.alpha = alpha, g.beta = beta, g.A = A, g.B = B, g.C = C;                          \
    g.tiles_n = tp_ceil_div_i64(n, TILE);                                               \
    g.tiles = tp_ceil_div_i64(m, TILE) * g.tiles_n;                                     \
    tp_team_policy p = tp_team_policy_make(g.tiles * batch, 8, 32,                      \
                                           sizeof(T) * (2 * TILE * DEPTH + TILE * TILE)); \
    return gemm_tile_##sfx##_launch(space, p, g);                                       \
  }                                                                                     \
                                                                                        \
  tp_status tp_gemm_portable_##sfx(tp_space *space, tp_transpose trans_a,               \
                                   tp_transpose trans_b, int64_t m, int64_t n, int64_t k, \
                                   T alpha, const T *A, int64_t lda, const T *B,        \
                                   int64_t ldb, T beta, T *C, int64_t ldc) {            \
    return tp_gemm_portable_batched_##sfx(space, trans_a, trans_b, m, n, k, alpha, A, lda, \
                                          0, B, ldb, 0, beta, C, ldc, 0, 1);            \
  }

TP_DEFINE_PORTABLE_GEMM(f64, double)
TP_DEFINE_PORTABLE_GEMM(f32, float)
