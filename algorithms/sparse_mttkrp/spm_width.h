/* The sparse MTTKRP kernels for one precision (FLYCOO_T) and one per-lane width (FLYCOO_K):
 * included by spm_kernels.h once per width, so there is no include guard. Lane l of a
 * pass starting at column r0 handles columns r0 + l + vector_length * j (j < FLYCOO_K); the
 * scratch keeps a window row's F = vector_length * FLYCOO_K columns in that order. */

#define FLYCOO_KN(name) TP_PASTE(FLYCOO_PN(name), TP_PASTE(_k, FLYCOO_K))

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

/* Nonzeros a team thread gathers before it sums them: memory-level parallelism for the
 * factor-row loads, which miss the caches on large modes. Per kernel order (FLYCOO_N, set
 * where spm_flycoo.h is included). GPUs gather 3 for 3 modes, where 3 beat 4 on every
 * mode on both GPUs measured, and 4 for more modes (3 was slower on 4 modes;
 * perf/results/2026-11-28-flycoo-inflight/README.md). */
#ifndef FLYCOO_INFLIGHT
#define FLYCOO_INFLIGHT (TP_IS_GPU && FLYCOO_N == 3 ? 3 : 4)
#endif
/* Teams of 1024 threads each multiprocessor should hold (registers are budgeted for it). */
#ifndef FLYCOO_MIN_TEAMS
#define FLYCOO_MIN_TEAMS 1
#endif

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

/* ---- FLYCOO: one team per partition, windows of pieces in team scratch ------------
 * (spm_flycoo.h), specialised for 3, 4 and 5 modes in both record layouts (FLYCOO_C = 1:
 * compact, without positions), and the launcher that picks one. */
#define FLYCOO_C 0
#define FLYCOO_CN  /* the kernels' name suffix: none, or c for compact */
#define FLYCOO_N 0 /* any order and either layout, read from the arguments */
#include "algorithms/sparse_mttkrp/spm_flycoo.h"
#undef FLYCOO_N
#include "algorithms/sparse_mttkrp/spm_orders.h"
#undef FLYCOO_C
#undef FLYCOO_CN
#define FLYCOO_C 1
#define FLYCOO_CN c
#include "algorithms/sparse_mttkrp/spm_orders.h"
#undef FLYCOO_C
#undef FLYCOO_CN

static tp_status TP_PASTE(FLYCOO_KN(flycoo), _launch)(tp_space *space, tp_team_policy policy,
                                                      FLYCOO_PN(flycoo_args) a) {
  switch (a.positions ? a.order : -a.order) {
  case 3: return TP_PASTE(FLYCOO_KN(flycoo_n3), _launch)(space, policy, a);
  case 4: return TP_PASTE(FLYCOO_KN(flycoo_n4), _launch)(space, policy, a);
  case 5: return TP_PASTE(FLYCOO_KN(flycoo_n5), _launch)(space, policy, a);
  case -3: return TP_PASTE(FLYCOO_KN(flycoo_n3c), _launch)(space, policy, a);
  case -4: return TP_PASTE(FLYCOO_KN(flycoo_n4c), _launch)(space, policy, a);
  case -5: return TP_PASTE(FLYCOO_KN(flycoo_n5c), _launch)(space, policy, a);
  default: return TP_PASTE(FLYCOO_KN(flycoo_n0), _launch)(space, policy, a);
  }
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
#undef FLYCOO_KN
