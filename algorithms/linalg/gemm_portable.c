/* tenport's own GEMM on the portable layer, in both precisions and batched: each team
 * computes a TILE x TILE block of one C, staging TILE x DEPTH blocks of op(A) and
 * DEPTH x TILE blocks of op(B) in team scratch and accumulating the block of C in
 * scratch. The fallback where no vendor BLAS is available (HIP, CPUs without BLIS).
 *
 * A product with few blocks of C and a long inner dimension (a Gram U^T U of a tall
 * factor: one block, a million-long sum) would run on one team; its sum is split into
 * pieces, one team per piece writing its partial block, and the pieces are then added in
 * a fixed order (the same result on every run). */
/* generates: gemm_sum_pieces_f32 gemm_sum_pieces_f64 gemm_tile_f32 gemm_tile_f64 */
#include "algorithms/linalg/tp_linalg_internal.h"
#include "portable/tp_portable.h"

enum { TILE = 32, DEPTH = 16 };
enum { SPLIT_TEAMS = 256, SPLIT_MIN_DEPTH = 1024 }; /* teams wanted; the shortest piece */

/* Pieces of the inner dimension k for a product of `teams` blocks of C: 1 unless the
 * blocks alone leave most teams idle and k is long. */
static int64_t gemm_splits(int64_t teams, int64_t k) {
  if (teams >= SPLIT_TEAMS || k < 2 * SPLIT_MIN_DEPTH)
    return 1;
  int64_t by_teams = SPLIT_TEAMS / teams, by_depth = k / SPLIT_MIN_DEPTH;
  return by_teams < by_depth ? by_teams : by_depth;
}

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
    int64_t splits, piece; /* the inner dimension in splits pieces of piece values */   \
    T alpha, beta;                                                                      \
    const T *A, *B;                                                                     \
    T *C;                                                                               \
    T *partial; /* splits > 1: [batch][tiles][splits][TILE * TILE] */                   \
  } gemm_args_##sfx;                                                                    \
                                                                                        \
  TP_TEAM_KERNEL(gemm_tile_##sfx, gemm_args_##sfx, team, g) {                           \
    T *As = (T *)team->scratch; /* [TILE][DEPTH] */                                     \
    T *Bs = As + TILE * DEPTH;  /* [DEPTH][TILE] */                                     \
    T *Cs = Bs + DEPTH * TILE;  /* [TILE][TILE] */                                      \
    const int64_t s = team->league_rank % g.splits, bt = team->league_rank / g.splits;  \
    const int64_t b = bt / g.tiles, t = bt % g.tiles;                                   \
    const T *A = g.A + b * g.sa, *B = g.B + b * g.sb;                                   \
    T *C = g.C + b * g.sc;                                                              \
    const int64_t i0 = (t / g.tiles_n) * TILE, j0 = (t % g.tiles_n) * TILE;             \
    const int64_t p_begin = s * g.piece;                                                \
    const int64_t p_end = p_begin + g.piece < g.k ? p_begin + g.piece : g.k;            \
    TP_TEAM_VECTOR_FOR(team, e, 0, TILE * TILE) { Cs[e] = 0; }                          \
    for (int64_t p0 = p_begin; p0 < p_end; p0 += DEPTH) {                               \
      tp_team_barrier(team);                                                            \
      TP_TEAM_VECTOR_FOR(team, e, 0, TILE * DEPTH) {                                    \
        int64_t r = e / DEPTH, p = e % DEPTH, i = i0 + r, pa = p0 + p;                  \
        As[e] = (i < g.m && pa < p_end) ? (g.trans_a ? A[pa * g.lda + i] : A[i * g.lda + pa]) \
                                        : (T)0;                                         \
        int64_t q = e / TILE, c = e % TILE, pb = p0 + q, j = j0 + c;                    \
        Bs[e] = (pb < p_end && j < g.n) ? (g.trans_b ? B[j * g.ldb + pb] : B[pb * g.ldb + j]) \
                                        : (T)0;                                         \
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
    if (g.splits > 1) { /* the piece's block, as it is, for gemm_sum_pieces */          \
      T *mine = g.partial + (bt * g.splits + s) * (TILE * TILE);                        \
      TP_TEAM_VECTOR_FOR(team, e, 0, TILE * TILE) { mine[e] = Cs[e]; }                  \
    } else {                                                                            \
      TP_TEAM_FOR(team, r, 0, TILE) {                                                   \
        TP_VECTOR_FOR(team, c, 0, TILE) {                                               \
          int64_t i = i0 + r, j = j0 + c;                                               \
          if (i < g.m && j < g.n) {                                                     \
            T *out = &C[i * g.ldc + j];                                                 \
            *out = g.alpha * Cs[r * TILE + c] + (g.beta == 0 ? (T)0 : g.beta * *out);   \
          }                                                                             \
        }                                                                               \
      }                                                                                 \
    }                                                                                   \
  }                                                                                     \
                                                                                        \
  /* C = alpha (the pieces' blocks added in piece order) + beta C, one element each. */ \
  TP_RANGE_KERNEL(gemm_sum_pieces_##sfx, gemm_args_##sfx, e, g) {                       \
    const int64_t mn = g.m * g.n, b = e / mn, i = (e % mn) / g.n, j = e % g.n;          \
    const int64_t t = (i / TILE) * g.tiles_n + j / TILE;                                \
    const T *piece = g.partial + (b * g.tiles + t) * g.splits * (TILE * TILE) +         \
                     (i % TILE) * TILE + j % TILE;                                      \
    T sum = 0;                                                                          \
    for (int64_t s = 0; s < g.splits; ++s)                                              \
      sum += piece[s * (TILE * TILE)];                                                  \
    T *out = &g.C[b * g.sc + i * g.ldc + j];                                            \
    *out = g.alpha * sum + (g.beta == 0 ? (T)0 : g.beta * *out);                        \
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
    g.splits = gemm_splits(g.tiles * batch, k), g.partial = NULL;                       \
    g.piece = tp_ceil_div_i64(tp_ceil_div_i64(k, g.splits), DEPTH) * DEPTH;             \
    if (g.splits > 1) {                                                                 \
      g.splits = tp_ceil_div_i64(k, g.piece);                                           \
      size_t bytes = sizeof(T) * (size_t)(batch * g.tiles * g.splits) * (TILE * TILE);  \
      TP_TRY(tp_temp_alloc(space, bytes, (void **)&g.partial));                         \
    } else {                                                                            \
      g.piece = k;                                                                      \
    }                                                                                   \
    tp_team_policy p = tp_team_policy_make(g.tiles * batch * g.splits, 8, 32,           \
                                           sizeof(T) * (2 * TILE * DEPTH + TILE * TILE)); \
    tp_status st = gemm_tile_##sfx##_launch(space, p, g);                               \
    if (g.splits > 1) {                                                                 \
      if (st == TP_SUCCESS)                                                             \
        st = TP_LAUNCHER(gemm_sum_pieces_##sfx)(space, batch * m * n, g);               \
      tp_temp_release(space, g.partial);                                                \
    }                                                                                   \
    return st;                                                                          \
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
