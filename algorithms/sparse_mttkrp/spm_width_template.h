/* The lane helpers of the sparse MTTKRP kernels and the atomic baseline, for one precision
 * (FLYCOO_T) and one per-lane width (FLYCOO_K; FLYCOO_KN pastes _k<width> to a name):
 * included by spm_kernels_template.h once per width, so there is no include guard. Lane l
 * of a pass starting at column r0 handles columns r0 + l + vector_length * j
 * (j < FLYCOO_K); the scratch keeps a window row's F = vector_length * FLYCOO_K columns in
 * that order. */

/* A lane's FLYCOO_K columns as one aligned block (16 bytes at most: wider is not promised). */
#define FLYCOO_VEC_ALIGN (FLYCOO_K * sizeof(FLYCOO_T) < 16 ? FLYCOO_K * sizeof(FLYCOO_T) : 16)
typedef struct FLYCOO_KN(flycoo_vec) {
  TP_ALIGNAS(FLYCOO_VEC_ALIGN) FLYCOO_T v[FLYCOO_K];
} FLYCOO_KN(flycoo_vec);

/* prod[j] *= row[vl * j] for the lane's columns vl * j < left. With whole_rows (one lane,
 * all FLYCOO_K columns in the row, aligned: flycoo_whole_rows) as one block that compilers load
 * with whole vector instructions; the guarded loop defeats that on CPUs. GPU builds leave
 * the block path out (TP_IS_GPU is a constant): its registers would cost the GPU kernel. */
TP_DEVICE void TP_PASTE(FLYCOO_PN(flycoo_mul_row), FLYCOO_K)(FLYCOO_T *prod, const FLYCOO_T *row,
                                                             int vl, int64_t left, int whole_rows) {
  if (!TP_IS_GPU && whole_rows) {
    const FLYCOO_KN(flycoo_vec) q = *(const FLYCOO_KN(flycoo_vec) *)row;
    TP_LANES for (int j = 0; j < FLYCOO_K; ++j) prod[j] *= q.v[j];
    return;
  }
  TP_LANES for (int j = 0; j < FLYCOO_K; ++j) {
    if ((int64_t)vl * j < left)
      prod[j] *= row[vl * j];
  }
}

/* Adds a lane's sums for the current piece into its scratch row, and clears them. */
TP_DEVICE void TP_PASTE(FLYCOO_PN(flycoo_flush), FLYCOO_K)(FLYCOO_T *row, FLYCOO_T *acc, int lane,
                                                           int vl, int64_t r0, int64_t R) {
  TP_LANES for (int j = 0; j < FLYCOO_K; ++j) {
    const int c = lane + vl * j;
    if (r0 + c < R)
      FLYCOO_TEAM_ADD(&row[c], acc[j]);
    acc[j] = 0;
  }
}

/* The last piece of [lo, hi] whose first record is at or before e. */
TP_INLINE int64_t TP_PASTE(FLYCOO_PN(flycoo_piece_of), FLYCOO_K)(const uint32_t *start, int64_t lo,
                                                                 int64_t hi, int64_t e) {
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if ((int64_t)start[mid] <= e)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* ---- the baseline: one thread per nonzero, global atomics ------------------------ */
TP_TEAM_KERNEL(FLYCOO_KN(flycoo_atomic), FLYCOO_PN(flycoo_atomic_args), team, a) {
  const int vl = team->vector_length;
  TP_TEAM_FOR(team, t, 0, a.per_team) {
    const int64_t x = team->league_rank * a.per_team + t;
    if (x >= a.nnz)
      continue;
    const FLYCOO_T v = a.values[x];
    FLYCOO_T *g = a.G + a.idx[a.mode][x] * a.R;
    for (int64_t r0 = 0; r0 < a.R; r0 += (int64_t)vl * FLYCOO_K) {
      TP_VECTOR_FOR(team, lane, 0, vl) {
        TP_LANES for (int j = 0; j < FLYCOO_K; ++j) {
          const int64_t r = r0 + lane + (int64_t)vl * j;
          if (r < a.R) {
            FLYCOO_T y = v;
            for (int m = 0; m < a.order; ++m)
              if (m != a.mode)
                y *= a.U[m][a.idx[m][x] * a.R + r];
            FLYCOO_GLOBAL_ADD(&g[r], y);
          }
        }
      }
    }
  }
}

#undef FLYCOO_VEC_ALIGN
