/* The sparse MTTKRP kernels for one precision (TPF_T) and one per-lane width (TPF_K):
 * included by spm_kernels.h once per width, so there is no include guard. Lane l of a
 * pass starting at column r0 handles columns r0 + l + vector_length * j (j < TPF_K); the
 * scratch keeps a window row's F = vector_length * TPF_K columns in that order. */

#define TPF_KN(name) TP_PASTE(TPF_PN(name), TP_PASTE(_k, TPF_K))

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
 * Each team thread takes a contiguous run of the window's records (so a heavy row is
 * summed in registers and reaches the scratch once per thread), its lanes split the
 * rank, and with remap its lanes also copy each record to its place in the next mode's
 * order. The window's rows are then written to G (or to partial rows) without atomics:
 * the partition owns them. */
TP_TEAM_KERNEL_BOUNDED(TPF_KN(tpf_flycoo), TPF_PN(tpf_args), 1024, TPF_MIN_TEAMS, team, a) {
  const int vl = team->vector_length, F = vl * TPF_K;
  TPF_T *sums = (TPF_T *)team->scratch;
  const int64_t pb = a.part_piece[team->league_rank], pe = a.part_piece[team->league_rank + 1];
  for (int64_t base = pb; base < pe; base += a.window) {
    const int64_t wend = tp_min_i64(base + a.window, pe), rows = wend - base;
    TP_TEAM_VECTOR_FOR(team, i, 0, rows * F) sums[i] = 0;
    tp_team_barrier(team);
    const int64_t e0 = a.piece_start[base], e1 = a.piece_start[wend];
    const int64_t per = tp_ceil_div_i64(e1 - e0, team->team_size);
    const int64_t s = e0 + team->team_rank * per, t = tp_min_i64(s + per, e1);
    if (s < t) {
      TP_VECTOR_FOR(team, lane, 0, vl) {
        int64_t cur = TP_PASTE(TPF_PN(tpf_piece_of), TPF_K)(a.piece_start, base, wend - 1, s);
        int64_t next_start = a.piece_start[cur + 1];
        const int64_t left = a.R - a.r0 - lane; /* this lane's columns: vl * j < left */
        TPF_T acc[TPF_K];
        TP_LANES for (int j = 0; j < TPF_K; ++j) acc[j] = 0;
        for (int64_t e = s; e < t; e += TPF_INFLIGHT) {
          /* gather first: the factor loads of TPF_INFLIGHT nonzeros are in flight at once */
          uint32_t x[TPF_INFLIGHT]; /* record numbers: 32-bit, to spare registers */
          TPF_T prod[TPF_INFLIGHT][TPF_K];
          TP_UNROLL for (int u = 0; u < TPF_INFLIGHT; ++u) {
            x[u] = (uint32_t)tp_min_i64(e + u, t - 1);
            const TPF_T v = TPF_PN(tpf_value)(a.in + (int64_t)x[u] * a.stride, a.value_word);
            TP_LANES for (int j = 0; j < TPF_K; ++j) prod[u][j] = v;
          }
          for (int m = 0; m < a.order; ++m) {
            if (m == a.mode)
              continue;
            const TPF_T *Um = a.U[m] + a.r0 + lane;
            TP_UNROLL for (int u = 0; u < TPF_INFLIGHT; ++u) {
              const TPF_T *row = Um + (int64_t)a.in[(int64_t)x[u] * a.stride + m] * a.R;
              TP_LANES for (int j = 0; j < TPF_K; ++j) {
                if ((int64_t)vl * j < left)
                  prod[u][j] *= row[vl * j];
              }
            }
          }
          /* then sum in order, flushing at piece boundaries */
          TP_UNROLL for (int u = 0; u < TPF_INFLIGHT; ++u) {
            if (e + u < t) {
              if (e + u >= next_start) {
                TP_PASTE(TPF_PN(tpf_flush), TPF_K)(sums + (cur - base) * F, acc, lane, vl, a.r0,
                                                   a.R);
                while (e + u >= (int64_t)a.piece_start[cur + 1])
                  ++cur;
                next_start = a.piece_start[cur + 1];
              }
              TP_LANES for (int j = 0; j < TPF_K; ++j) acc[j] += prod[u][j];
              if (a.remap) {
                const uint32_t *rec = a.in + (int64_t)x[u] * a.stride;
                uint32_t *dst = a.out + (int64_t)rec[a.order + a.next] * a.stride;
                for (int w = lane; w < a.stride; w += vl)
                  dst[w] = rec[w];
              }
            }
          }
        }
        TP_PASTE(TPF_PN(tpf_flush), TPF_K)(sums + (cur - base) * F, acc, lane, vl, a.r0, a.R);
      }
    }
    tp_team_barrier(team);
    TP_TEAM_VECTOR_FOR(team, i, 0, rows * F) {
      const int64_t r = a.r0 + i % F;
      if (r < a.R) {
        const int64_t slot = a.piece_slot[base + i / F];
        TPF_T *dst = slot < a.dim ? a.G + slot * a.R : a.partial + (slot - a.dim) * a.R;
        dst[r] = sums[i];
      }
    }
    tp_team_barrier(team);
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

#undef TPF_KN
