/* tenport's own GEMM on the portable layer: each team computes a TILE x TILE block of C,
 * staging TILE x DEPTH blocks of op(A) and DEPTH x TILE blocks of op(B) in team scratch
 * and accumulating the block of C in scratch. The fallback where no vendor BLAS is
 * available (HIP, CPUs without BLIS). */
#include "tp_linalg_internal.h"
#include "tp_portable.h"

enum { TILE = 32, DEPTH = 16 };

typedef struct gemm_args {
  int trans_a, trans_b;
  int64_t m, n, k, lda, ldb, ldc;
  double alpha, beta;
  const double *A, *B;
  double *C;
  int64_t tiles_n;
} gemm_args;

TP_INLINE double gemm_a(const gemm_args *g, int64_t i, int64_t p) {
  return g->trans_a ? g->A[p * g->lda + i] : g->A[i * g->lda + p];
}

TP_INLINE double gemm_b(const gemm_args *g, int64_t p, int64_t j) {
  return g->trans_b ? g->B[j * g->ldb + p] : g->B[p * g->ldb + j];
}

TP_TEAM_KERNEL(gemm_tile, gemm_args, team, g) {
  double *As = (double *)team->scratch;     /* [TILE][DEPTH] */
  double *Bs = As + TILE * DEPTH;           /* [DEPTH][TILE] */
  double *Cs = Bs + DEPTH * TILE;           /* [TILE][TILE] */
  const int64_t i0 = (team->league_rank / g.tiles_n) * TILE;
  const int64_t j0 = (team->league_rank % g.tiles_n) * TILE;
  TP_TEAM_VECTOR_FOR(team, e, 0, TILE * TILE) { Cs[e] = 0.0; }
  for (int64_t p0 = 0; p0 < g.k; p0 += DEPTH) {
    tp_team_barrier(team);
    TP_TEAM_VECTOR_FOR(team, e, 0, TILE * DEPTH) {
      int64_t r = e / DEPTH, p = e % DEPTH;
      As[e] = (i0 + r < g.m && p0 + p < g.k) ? gemm_a(&g, i0 + r, p0 + p) : 0.0;
      int64_t q = e / TILE, c = e % TILE;
      Bs[e] = (p0 + q < g.k && j0 + c < g.n) ? gemm_b(&g, p0 + q, j0 + c) : 0.0;
    }
    tp_team_barrier(team);
    TP_TEAM_FOR(team, r, 0, TILE) {
      TP_VECTOR_FOR(team, c, 0, TILE) {
        double acc = Cs[r * TILE + c];
        for (int p = 0; p < DEPTH; ++p)
          acc += As[r * DEPTH + p] * Bs[p * TILE + c];
        Cs[r * TILE + c] = acc;
      }
    }
  }
  tp_team_barrier(team);
  TP_TEAM_FOR(team, r, 0, TILE) {
    TP_VECTOR_FOR(team, c, 0, TILE) {
      int64_t i = i0 + r, j = j0 + c;
      if (i < g.m && j < g.n) {
        double *out = &g.C[i * g.ldc + j];
        *out = g.alpha * Cs[r * TILE + c] + (g.beta == 0.0 ? 0.0 : g.beta * *out);
      }
    }
  }
}

tp_status tp_gemm_check_args(const tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                             int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                             const double *B, int64_t ldb, const double *C, int64_t ldc) {
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

tp_status tp_gemm_portable_f64(tp_space *space, tp_transpose trans_a, tp_transpose trans_b,
                               int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                               int64_t lda, const double *B, int64_t ldb, double beta,
                               double *C, int64_t ldc) {
  TP_TRY(tp_gemm_check_args(space, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc));
  if (m == 0 || n == 0)
    return TP_SUCCESS;
  gemm_args g;
  g.trans_a = trans_a == TP_TRANS;
  g.trans_b = trans_b == TP_TRANS;
  g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.alpha = alpha, g.beta = beta, g.A = A, g.B = B, g.C = C;
  g.tiles_n = tp_ceil_div_i64(n, TILE);
  tp_team_policy p = tp_team_policy_make(tp_ceil_div_i64(m, TILE) * g.tiles_n, 8, 32,
                                         sizeof(double) * (2 * TILE * DEPTH + TILE * TILE));
  return gemm_tile_launch(space, p, g);
}
