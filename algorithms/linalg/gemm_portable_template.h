/* The portable GEMM of gemm_portable_kernels.c for one precision: the includer defines GEMM_T
 * (float or double) and GEMM_SFX (f32 or f64), and includes this file once per precision
 * (it undefines both at its end, and has no include guard).
 * generates: gemm_tile_f32 gemm_tile_f64 gemm_sum_pieces_f32 gemm_sum_pieces_f64 (the
 * kernels), tp_gemm_portable_f32, tp_gemm_portable_f64, tp_gemm_portable_batched_f32 and
 * tp_gemm_portable_batched_f64. */

#define GEMM_ARGS TP_PASTE(gemm_args_, GEMM_SFX)

typedef struct GEMM_ARGS {
  int trans_a, trans_b;
  int64_t m, n, k, lda, ldb, ldc, sa, sb, sc, tiles_n, tiles;
  int64_t splits, piece; /* the inner dimension in splits pieces of piece values */
  GEMM_T alpha, beta;
  const GEMM_T *A, *B;
  GEMM_T *C;
  GEMM_T *partial; /* splits > 1: [batch][tiles][splits][TILE * TILE] */
} GEMM_ARGS;

TP_TEAM_KERNEL(TP_PASTE(gemm_tile_, GEMM_SFX), GEMM_ARGS, team, g) {
  GEMM_T *As = (GEMM_T *)team->scratch; /* [TILE][DEPTH] */
  GEMM_T *Bs = As + TILE * DEPTH;       /* [DEPTH][TILE] */
  GEMM_T *Cs = Bs + DEPTH * TILE;       /* [TILE][TILE] */
  const int64_t s = team->league_rank % g.splits, bt = team->league_rank / g.splits;
  const int64_t b = bt / g.tiles, t = bt % g.tiles;
  const GEMM_T *A = g.A + b * g.sa, *B = g.B + b * g.sb;
  GEMM_T *C = g.C + b * g.sc;
  const int64_t i0 = (t / g.tiles_n) * TILE, j0 = (t % g.tiles_n) * TILE;
  const int64_t p_begin = s * g.piece;
  const int64_t p_end = p_begin + g.piece < g.k ? p_begin + g.piece : g.k;
  TP_TEAM_VECTOR_FOR(team, e, 0, TILE * TILE) { Cs[e] = 0; }
  for (int64_t p0 = p_begin; p0 < p_end; p0 += DEPTH) {
    tp_team_barrier(team);
    TP_TEAM_VECTOR_FOR(team, e, 0, TILE * DEPTH) {
      int64_t r = e / DEPTH, p = e % DEPTH, i = i0 + r, pa = p0 + p;
      As[e] =
          (i < g.m && pa < p_end) ? (g.trans_a ? A[pa * g.lda + i] : A[i * g.lda + pa]) : (GEMM_T)0;
      int64_t q = e / TILE, c = e % TILE, pb = p0 + q, j = j0 + c;
      Bs[e] =
          (pb < p_end && j < g.n) ? (g.trans_b ? B[j * g.ldb + pb] : B[pb * g.ldb + j]) : (GEMM_T)0;
    }
    tp_team_barrier(team);
    TP_TEAM_FOR(team, r, 0, TILE) {
      TP_VECTOR_FOR(team, c, 0, TILE) {
        GEMM_T acc = Cs[r * TILE + c];
        for (int p = 0; p < DEPTH; ++p)
          acc += As[r * DEPTH + p] * Bs[p * TILE + c];
        Cs[r * TILE + c] = acc;
      }
    }
  }
  tp_team_barrier(team);
  if (g.splits > 1) { /* the piece's block, as it is, for gemm_sum_pieces */
    GEMM_T *mine = g.partial + (bt * g.splits + s) * (TILE * TILE);
    TP_TEAM_VECTOR_FOR(team, e, 0, TILE * TILE) { mine[e] = Cs[e]; }
  } else {
    TP_TEAM_FOR(team, r, 0, TILE) {
      TP_VECTOR_FOR(team, c, 0, TILE) {
        int64_t i = i0 + r, j = j0 + c;
        if (i < g.m && j < g.n) {
          GEMM_T *out = &C[i * g.ldc + j];
          *out = g.alpha * Cs[r * TILE + c] + (g.beta == 0 ? (GEMM_T)0 : g.beta * *out);
        }
      }
    }
  }
}

/* C = alpha (the pieces' blocks added in piece order) + beta C, one element each. */
TP_RANGE_KERNEL(TP_PASTE(gemm_sum_pieces_, GEMM_SFX), GEMM_ARGS, e, g) {
  const int64_t mn = g.m * g.n, b = e / mn, i = (e % mn) / g.n, j = e % g.n;
  const int64_t t = (i / TILE) * g.tiles_n + j / TILE;
  const GEMM_T *piece =
      g.partial + (b * g.tiles + t) * g.splits * (TILE * TILE) + (i % TILE) * TILE + j % TILE;
  GEMM_T sum = 0;
  for (int64_t s = 0; s < g.splits; ++s)
    sum += piece[s * (TILE * TILE)];
  GEMM_T *out = &g.C[b * g.sc + i * g.ldc + j];
  *out = g.alpha * sum + (g.beta == 0 ? (GEMM_T)0 : g.beta * *out);
}

tp_status TP_PASTE(tp_gemm_portable_batched_,
                   GEMM_SFX)(tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m,
                             int64_t n, int64_t k, GEMM_T alpha, const GEMM_T *A, int64_t lda,
                             int64_t sa, const GEMM_T *B, int64_t ldb, int64_t sb, GEMM_T beta,
                             GEMM_T *C, int64_t ldc, int64_t sc, int64_t batch) {
  TP_TRY(tpi_gemm_check_args(space, trans_a, trans_b, m, n, k, A, lda, B, ldb, C, ldc));
  TP_TRY(tpi_gemm_check_batch(sa, sb, sc, batch));
  if (m == 0 || n == 0 || batch == 0)
    return TP_SUCCESS;
  GEMM_ARGS g;
  g.trans_a = trans_a == TP_TRANS;
  g.trans_b = trans_b == TP_TRANS;
  g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  g.sa = sa, g.sb = sb, g.sc = sc;
  g.alpha = alpha, g.beta = beta, g.A = A, g.B = B, g.C = C;
  g.tiles_n = tp_ceil_div_i64(n, TILE);
  g.tiles = tp_ceil_div_i64(m, TILE) * g.tiles_n;
  g.splits = gemm_splits(g.tiles * batch, k), g.partial = NULL;
  g.piece = tp_ceil_div_i64(tp_ceil_div_i64(k, g.splits), DEPTH) * DEPTH;
  if (g.splits > 1) {
    g.splits = tp_ceil_div_i64(k, g.piece);
    size_t bytes = sizeof(GEMM_T) * (size_t)(batch * g.tiles * g.splits) * (TILE * TILE);
    TP_TRY(tp_temp_alloc(space, bytes, (void **)&g.partial));
  } else {
    g.piece = k;
  }
  tp_team_policy p = tp_team_policy_make(g.tiles * batch * g.splits, 8, 32,
                                         sizeof(GEMM_T) * (2 * TILE * DEPTH + TILE * TILE));
  tp_status st = TP_PASTE3(gemm_tile_, GEMM_SFX, _launch)(space, p, g);
  if (g.splits > 1) {
    if (st == TP_SUCCESS)
      st = TP_LAUNCHER(TP_PASTE(gemm_sum_pieces_, GEMM_SFX))(space, batch * m * n, g);
    tp_temp_release(space, g.partial);
  }
  return st;
}

tp_status TP_PASTE(tp_gemm_portable_,
                   GEMM_SFX)(tp_space *space, tp_transpose trans_a, tp_transpose trans_b, int64_t m,
                             int64_t n, int64_t k, GEMM_T alpha, const GEMM_T *A, int64_t lda,
                             const GEMM_T *B, int64_t ldb, GEMM_T beta, GEMM_T *C, int64_t ldc) {
  return TP_PASTE(tp_gemm_portable_batched_, GEMM_SFX)(space, trans_a, trans_b, m, n, k, alpha, A,
                                                       lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

#undef GEMM_ARGS
#undef GEMM_T
#undef GEMM_SFX
