/* The FLYCOO kernel for one precision, one per-lane width (FLYCOO_K), one order (FLYCOO_N; 0 =
 * any order, read from the arguments) and one record layout (FLYCOO_C: 1 = compact, 0 =
 * with positions; the generic kernel reads it from the arguments): included by
 * spm_width.h once per order and layout, so there is no include guard. With the order a
 * constant, the loops over modes unroll and every record word of the nonzeros in flight
 * is loaded before their factor rows are gathered, instead of one mode after the other;
 * the layout's constants spare registers (a runtime stride cost 15% on an H200).
 * generates: the kernels named in the generates: lists of spm_kernels_f32.c and
 * spm_kernels_f64.c, which instantiate it (tools/ci/kernel_names.py checks them).*/

#define FLYCOO_NN(name) TP_PASTE(name, TP_PASTE3(_n, FLYCOO_N, FLYCOO_CN))

/* ---- FLYCOO: one team per partition, windows of pieces in team scratch ------------
 * Each team thread takes a contiguous run of the window's records (so a heavy row is
 * summed in registers and reaches the scratch once per thread), its lanes split the
 * rank, and with remap its lanes also copy each record to its place in the next mode's
 * order. The window's rows are then written to G (or to partial rows) without atomics:
 * the partition owns them. */
TP_TEAM_KERNEL_BOUNDED(FLYCOO_KN(FLYCOO_NN(flycoo)), FLYCOO_PN(flycoo_args), 1024, FLYCOO_MIN_TEAMS,
                       team, a) {
  const int vl = team->vector_length, F = vl * FLYCOO_K;
  const int order = FLYCOO_N > 0 ? FLYCOO_N : a.order; /* a constant in the specialised kernels */
  const int vw = (int)(sizeof(FLYCOO_T) / 4);
  const int stride =
      FLYCOO_N > 0 ? FLYCOO_STRIDE(FLYCOO_N, vw, !FLYCOO_C) : a.stride; /* the layout */
  const int value_word = FLYCOO_N > 0 ? FLYCOO_VALUE_WORD(FLYCOO_N, vw, !FLYCOO_C) : a.value_word;
  FLYCOO_T *sums = (FLYCOO_T *)team->scratch;
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
        int64_t cur =
            TP_PASTE(FLYCOO_PN(flycoo_piece_of), FLYCOO_K)(a.piece_start, base, wend - 1, s);
        int64_t next_start = a.piece_start[cur + 1];
        const int64_t left = a.R - a.r0 - lane; /* this lane's columns: vl * j < left */
        FLYCOO_T acc[FLYCOO_K];
        TP_LANES for (int j = 0; j < FLYCOO_K; ++j) acc[j] = 0;
        for (int64_t e = s; e < t; e += FLYCOO_INFLIGHT) {
          if (TP_PREFETCH_AHEAD > 0) /* CPUs: start the loads of records further on */
            FLYCOO_PN(flycoo_prefetch_group)
          (&a, order, stride, e + TP_PREFETCH_AHEAD,
           tp_min_i64(e + TP_PREFETCH_AHEAD + FLYCOO_INFLIGHT, t), (size_t)F * sizeof(FLYCOO_T));
          /* gather first: the factor loads of FLYCOO_INFLIGHT nonzeros are in flight at once */
          uint32_t x[FLYCOO_INFLIGHT]; /* record numbers: 32-bit, to spare registers */
          FLYCOO_T prod[FLYCOO_INFLIGHT][FLYCOO_K];
          TP_UNROLL for (int u = 0; u < FLYCOO_INFLIGHT; ++u) {
            x[u] = (uint32_t)tp_min_i64(e + u, t - 1);
            const FLYCOO_T v = FLYCOO_PN(flycoo_value)(a.in + (int64_t)x[u] * stride, value_word);
            TP_LANES for (int j = 0; j < FLYCOO_K; ++j) prod[u][j] = v;
          }
          TP_UNROLL for (int m = 0; m < order; ++m) {
            if (m == a.mode)
              continue;
            const FLYCOO_T *Um = a.U[m] + a.r0 + lane;
            TP_UNROLL for (int u = 0; u < FLYCOO_INFLIGHT; ++u) {
              const FLYCOO_T *row = Um + (int64_t)a.in[(int64_t)x[u] * stride + m] * a.R;
              TP_PASTE(FLYCOO_PN(flycoo_mul_row), FLYCOO_K)(prod[u], row, vl, left, a.whole_rows);
            }
          }
          /* then sum in order, flushing at piece boundaries */
          TP_UNROLL for (int u = 0; u < FLYCOO_INFLIGHT; ++u) {
            if (e + u < t) {
              if (e + u >= next_start) {
                TP_PASTE(FLYCOO_PN(flycoo_flush), FLYCOO_K)
                (sums + (cur - base) * F, acc, lane, vl, a.r0, a.R);
                while (e + u >= (int64_t)a.piece_start[cur + 1])
                  ++cur;
                next_start = a.piece_start[cur + 1];
              }
              TP_LANES for (int j = 0; j < FLYCOO_K; ++j) acc[j] += prod[u][j];
              if (!FLYCOO_C && a.remap) { /* only the layout with positions remaps */
                const uint32_t *rec = a.in + (int64_t)x[u] * stride;
                uint32_t *dst = a.out + (int64_t)rec[order + a.next] * stride;
                if (!TP_IS_GPU && vl == 1) { /* CPUs: whole blocks, a vector store each */
                  for (int b = 0; b < stride / 8; ++b)
                    ((flycoo_rec_block *)dst)[b] = ((const flycoo_rec_block *)rec)[b];
                } else {
                  for (int w = lane; w < stride; w += vl)
                    dst[w] = rec[w];
                }
              }
            }
          }
        }
        TP_PASTE(FLYCOO_PN(flycoo_flush), FLYCOO_K)
        (sums + (cur - base) * F, acc, lane, vl, a.r0, a.R);
      }
    }
    tp_team_barrier(team);
    TP_TEAM_VECTOR_FOR(team, i, 0, rows * F) {
      const int64_t r = a.r0 + i % F;
      if (r < a.R) {
        const int64_t slot = a.piece_slot[base + i / F];
        FLYCOO_T *dst = slot < a.dim ? a.G + slot * a.R : a.partial + (slot - a.dim) * a.R;
        dst[r] = sums[i];
      }
    }
    tp_team_barrier(team);
  }
}

#undef FLYCOO_NN
