/* The sparse MTTKRP kernels for one precision (TPF_T) and one per-lane width (TPF_K):
 * included by spm_kernels.h once per width, so there is no include guard. Lane l of a
 * pass starting at column r0 handles columns r0 + l + vector_length * j (j < TPF_K); the
 * scratch keeps a window row's F = vector_length * TPF_K columns in that order. */

#define TPF_KN(name) TP_PASTE(TPF_PN(name), TP_PASTE(_k, TPF_K))

/* A lane's TPF_K columns as one aligned block (16 bytes at most: wider is not promised). */
#define TPF_VEC_ALIGN (TPF_K * sizeof(TPF_T) < 16 ? TPF_K * sizeof(TPF_T) : 16)
typedef struct TPF_KN(tpf_vec) {
  TP_ALIGNAS(TPF_VEC_ALIGN) TPF_T v[TPF_K];
} TPF_KN(tpf_vec);

/* prod[j] *= row[vl * j] for the lane's columns vl * j < left. With whole_rows (one lane,
 * all TPF_K columns in the row, aligned: tpf_whole_rows) as one block that compilers load
 * with whole vector instructions; the guarded loop defeats that on CPUs. GPU builds leave
 * the block path out (TP_IS_GPU is a constant): its registers would cost the GPU kernel. */
TP_DEVICE void TP_PASTE(TPF_PN(tpf_mul_row), TPF_K)(TPF_T *prod, const TPF_T *row, int vl,
                                                     int64_t left, int whole_rows) {
  if (!TP_IS_GPU && whole_rows) {
    const TPF_KN(tpf_vec) q = *(const TPF_KN(tpf_vec) *)row;
    TP_LANES for (int j = 0; j < TPF_K; ++j) prod[j] *= q.v[j];
    return;
  }
  TP_LANES for (int j = 0; j < TPF_K; ++j) {
    if ((int64_t)vl * j < left)
      prod[j] *= row[vl * j];
  }
}

/* Nonzeros a team thread gathers before it sums them: memory-level parallelism for the
 * factor-row loads, which miss the caches on large modes. */
#ifndef TPF_INFLIGHT
#define TPF_INFLIGHT 4
#endif
/* Teams of 1024 threads each multiprocessor should hold (registers are budgeted for it). */
#ifndef TPF_MIN_TEAMS
#define TPF_MIN_TEAMS 1
#endif

/* Adds a lane's sums for the current piece into its scratch row, and clears them. */
TP_DEVICE void TP_PASTE(TPF_PN(tpf_flush), TPF_K)(TPF_T *row, TPF_T *acc, int lane, int vl,
                                                   int64_t r0, int64_t R) {
  TP_LANES for (int j = 0; j < TPF_K; ++j) {
    const int c = lane + vl * j;
    if (r0 + c < R)
      TPF_TEAM_ADD(&row[c], acc[j]);
    acc[j] = 0;
  }
}

/* The last piece of [lo, hi] whose first record is at or before e. */
TP_INLINE int64_t TP_PASTE(TPF_PN(tpf_piece_of), TPF_K)(const uint32_t *start, int64_t lo,
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
 * (spm_flycoo.h), specialised for 3, 4 and 5 modes in both record layouts (TPF_C = 1:
 * compact, without positions), and the launcher that picks one. */
#define TPF_C 0
#define TPF_CN /* the kernels' name suffix: none, or c for compact */
#define TPF_N 0 /* any order and either layout, read from the arguments */
#include "algorithms/sparse_mttkrp/spm_flycoo.h"
#undef TPF_N
#include "algorithms/sparse_mttkrp/spm_orders.h"
#undef TPF_C
#undef TPF_CN
#define TPF_C 1
#define TPF_CN c
#include "algorithms/sparse_mttkrp/spm_orders.h"
#undef TPF_C
#undef TPF_CN

static tp_status TP_PASTE(TPF_KN(tpf_flycoo), _launch)(tp_space *space, tp_team_policy policy,
                                                       TPF_PN(tpf_args) a) {
  switch (a.positions ? a.order : -a.order) {
  case 3: return TP_PASTE(TPF_KN(tpf_flycoo_n3), _launch)(space, policy, a);
  case 4: return TP_PASTE(TPF_KN(tpf_flycoo_n4), _launch)(space, policy, a);
  case 5: return TP_PASTE(TPF_KN(tpf_flycoo_n5), _launch)(space, policy, a);
  case -3: return TP_PASTE(TPF_KN(tpf_flycoo_n3c), _launch)(space, policy, a);
  case -4: return TP_PASTE(TPF_KN(tpf_flycoo_n4c), _launch)(space, policy, a);
  case -5: return TP_PASTE(TPF_KN(tpf_flycoo_n5c), _launch)(space, policy, a);
  default: return TP_PASTE(TPF_KN(tpf_flycoo_n0), _launch)(space, policy, a);
  }
}

/* ---- the baseline: one thread per nonzero, global atomics ------------------------ */
TP_TEAM_KERNEL(TPF_KN(tpf_atomic), TPF_PN(tpf_atomic_args), team, a) {
  const int vl = team->vector_length;
  TP_TEAM_FOR(team, t, 0, a.per_team) {
    const int64_t x = team->league_rank * a.per_team + t;
    if (x >= a.nnz)
      continue;
    const TPF_T v = a.values[x];
    TPF_T *g = a.G + a.idx[a.mode][x] * a.R;
    for (int64_t r0 = 0; r0 < a.R; r0 += (int64_t)vl * TPF_K) {
      TP_VECTOR_FOR(team, lane, 0, vl) {
        TP_LANES for (int j = 0; j < TPF_K; ++j) {
          const int64_t r = r0 + lane + (int64_t)vl * j;
          if (r < a.R) {
            TPF_T y = v;
            for (int m = 0; m < a.order; ++m)
              if (m != a.mode)
                y *= a.U[m][a.idx[m][x] * a.R + r];
            TPF_GLOBAL_ADD(&g[r], y);
          }
        }
      }
    }
  }
}

#undef TPF_VEC_ALIGN
#undef TPF_KN
