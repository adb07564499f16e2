/* The MTTKRP kernels for one precision (MTTKRP_T) and one per-lane width (MTTKRP_K): included
 * by mttkrp_precision_template.h once per width, so there is no include guard.
 *
 * Rank columns are processed in passes of F = vector_length * MTTKRP_K columns; lane l
 * handles columns r0 + l + vector_length * j (j < MTTKRP_K), so neighbouring lanes touch
 * neighbouring columns (coalesced on GPUs, one SIMD vector on CPUs). */

#define MTTKRP_KN(name) TP_PASTE(MTTKRP_PN(name), TP_PASTE(_k, MTTKRP_K))

/* Column of lane `lane`, slot j of the pass starting at r0. */
#define MTTKRP_COL(r0, lane, vl, j) ((r0) + (lane) + (int64_t)(vl) * (j))

/* ---- ELEM: one thread per tensor element, atomic updates ------------------------ */
TP_TEAM_KERNEL(MTTKRP_KN(mttkrp_elem), MTTKRP_PN(mttkrp_elem_args), team, a) {
  const int vl = team->vector_length;
  TP_TEAM_FOR(team, t, 0, a.per_team) {
    const int64_t e = team->league_rank * a.per_team + t;
    if (e >= a.count)
      continue;
    int64_t idx[MTTKRP_MAX_ORDER];
    mttkrp_decode(a.d, a.dims, e, idx);
    const MTTKRP_T x = a.X[e];
    MTTKRP_T *g = a.G + idx[a.mode] * a.R;
    for (int64_t r0 = 0; r0 < a.R; r0 += (int64_t)vl * MTTKRP_K) {
      TP_VECTOR_FOR(team, lane, 0, vl) {
        TP_LANES for (int j = 0; j < MTTKRP_K; ++j) {
          const int64_t r = MTTKRP_COL(r0, lane, vl, j);
          if (r < a.R) {
            MTTKRP_T v = x;
            for (int m = 0; m < a.d; ++m)
              if (m != a.mode)
                v *= a.U[m][idx[m] * a.R + r];
            MTTKRP_ATOMIC_ADD(&g[r], v);
          }
        }
      }
    }
  }
}

/* ---- SLICE: one thread per mode-k slice, no atomics ------------------------------ */
TP_TEAM_KERNEL(MTTKRP_KN(mttkrp_slice), MTTKRP_PN(mttkrp_walk_args), team, a) {
  const int vl = team->vector_length;
  TP_TEAM_FOR(team, t, 0, a.per_team) {
    const int64_t n = team->league_rank * a.per_team + t;
    if (n >= a.slices)
      continue;
    for (int64_t r0 = 0; r0 < a.R; r0 += (int64_t)vl * MTTKRP_K) {
      TP_VECTOR_FOR(team, lane, 0, vl) {
        MTTKRP_T acc[MTTKRP_K];
        TP_LANES for (int j = 0; j < MTTKRP_K; ++j) acc[j] = 0;
        int64_t idx[MTTKRP_MAX_ORDER] = {0};
        int64_t off = n * a.mode_stride;
        for (int64_t e = 0; e < a.slice_count; ++e) {
          const MTTKRP_T x = a.X[off];
          TP_LANES for (int j = 0; j < MTTKRP_K; ++j) {
            const int64_t r = MTTKRP_COL(r0, lane, vl, j);
            if (r < a.R) {
              MTTKRP_T v = x;
              for (int m = 0; m < a.q; ++m)
                v *= a.U[m][idx[m] * a.R + r];
              acc[j] += v;
            }
          }
          mttkrp_advance(a.q, a.odims, a.ostrides, idx, &off);
        }
        TP_LANES for (int j = 0; j < MTTKRP_K; ++j) {
          const int64_t r = MTTKRP_COL(r0, lane, vl, j);
          if (r < a.R)
            a.G[n * a.R + r] = acc[j];
        }
      }
    }
  }
}

/* ---- TILE: one thread per (slice, hypercube tile), one atomic update per tile ----
 * Neighbouring threads take neighbouring slices of the same tile: they share the tile's
 * factor rows, and along mode 0 they read neighbouring elements. Within a tile, each run
 * along the fastest other mode reuses the product of the slower modes' factor entries,
 * so an element costs one tensor load and one factor load per column. */
TP_TEAM_KERNEL(MTTKRP_KN(mttkrp_tile), MTTKRP_PN(mttkrp_walk_args), team, a) {
  const int vl = team->vector_length;
  TP_TEAM_FOR(team, t, 0, a.per_team) {
    const int64_t unit = team->league_rank * a.per_team + t;
    if (unit >= a.slices * a.tiles_per_slice)
      continue;
    const int64_t n = unit % a.slices;
    int64_t corner[MTTKRP_MAX_ORDER], extent[MTTKRP_MAX_ORDER];
    mttkrp_decode(a.q, a.tile_counts, unit / a.slices, corner);
    int64_t base = n * a.mode_stride, runs = 1;
    for (int m = 0; m < a.q; ++m) {
      corner[m] *= a.edge;
      extent[m] = tp_min_i64(a.edge, a.odims[m] - corner[m]); /* ragged last tiles */
      base += corner[m] * a.ostrides[m];
      if (m > 0)
        runs *= extent[m];
    }
    const MTTKRP_T *U0 = a.U[0] + corner[0] * a.R;
    for (int64_t r0 = 0; r0 < a.R; r0 += (int64_t)vl * MTTKRP_K) {
      TP_VECTOR_FOR(team, lane, 0, vl) {
        MTTKRP_T acc[MTTKRP_K];
        TP_LANES for (int j = 0; j < MTTKRP_K; ++j) acc[j] = 0;
        int64_t idx[MTTKRP_MAX_ORDER] = {0};
        int64_t off = base;
        for (int64_t run = 0; run < runs; ++run) {
          MTTKRP_T w[MTTKRP_K];
          TP_LANES for (int j = 0; j < MTTKRP_K; ++j) {
            const int64_t r = MTTKRP_COL(r0, lane, vl, j);
            w[j] = 0;
            if (r < a.R) {
              w[j] = 1;
              for (int m = 1; m < a.q; ++m)
                w[j] *= a.U[m][(corner[m] + idx[m]) * a.R + r];
            }
          }
          for (int64_t i = 0; i < extent[0]; ++i) {
            const MTTKRP_T x = a.X[off + i * a.ostrides[0]];
            TP_LANES for (int j = 0; j < MTTKRP_K; ++j) {
              const int64_t r = MTTKRP_COL(r0, lane, vl, j);
              if (r < a.R)
                acc[j] += x * U0[i * a.R + r] * w[j];
            }
          }
          mttkrp_advance(a.q - 1, extent + 1, a.ostrides + 1, idx + 1, &off);
        }
        TP_LANES for (int j = 0; j < MTTKRP_K; ++j) {
          const int64_t r = MTTKRP_COL(r0, lane, vl, j);
          if (r < a.R)
            MTTKRP_ATOMIC_ADD(&a.G[n * a.R + r], acc[j]);
        }
      }
    }
  }
}

/* ---- partial-tensor contraction (see mttkrp_partial in tp_mttkrp_internal.h) -------
 * Team = (output row p, chunk of other indices, group of column passes); its threads
 * split the chunk, lanes split the columns, and the threads' sums meet in team scratch. */
TP_TEAM_KERNEL(MTTKRP_KN(mttkrp_partial), MTTKRP_PN(mttkrp_partial_args), team, a) {
  const int vl = team->vector_length, F = vl * MTTKRP_K;
  const int64_t group = team->league_rank % a.r_groups, unit = team->league_rank / a.r_groups;
  const int64_t p = a.p0 + unit / a.chunks;
  const int64_t c_begin = a.o_begin + (unit % a.chunks) * a.o_chunk;
  const int64_t c_end = tp_min_i64(c_begin + a.o_chunk, a.o_begin + a.o_count);
  const int64_t per_thread = tp_ceil_div_i64(tp_max_i64(c_end - c_begin, 0), team->team_size);
  const int64_t t_begin = c_begin + team->team_rank * per_thread;
  const int64_t t_end = tp_min_i64(t_begin + per_thread, c_end);
  const int64_t p_row = a.row_base + (p - a.p0) * a.p_stride;
  MTTKRP_T *sums = (MTTKRP_T *)team->scratch; /* team_size x F, used when team_size > 1 */
  MTTKRP_T *g = a.G + p * a.ld;
  for (int64_t r0 = group * F; r0 < a.R; r0 += F * a.r_groups) {
    TP_VECTOR_FOR(team, lane, 0, vl) {
      MTTKRP_T acc[MTTKRP_K];
      TP_LANES for (int j = 0; j < MTTKRP_K; ++j) acc[j] = 0;
      if (t_begin < t_end) {
        int64_t idx[MTTKRP_MAX_ORDER];
        mttkrp_decode(a.q, a.odims, t_begin, idx);
        int64_t row = p_row + mttkrp_dot_index(a.q, idx, a.row_stride);
        for (int64_t o = t_begin; o < t_end; ++o) {
          TP_LANES for (int j = 0; j < MTTKRP_K; ++j) {
            const int64_t r = MTTKRP_COL(r0, lane, vl, j);
            if (r < a.R) {
              MTTKRP_T v = 0;
              for (int64_t s = 0; s < a.slots; ++s)
                v += a.T[s * a.slot_stride + row * a.R + r];
              for (int m = 0; m < a.q; ++m)
                v *= a.U[m][idx[m] * a.ld + r];
              acc[j] += v;
            }
          }
          mttkrp_advance(a.q, a.odims, a.row_stride, idx, &row);
        }
      }
      if (team->team_size == 1) {
        TP_LANES for (int j = 0; j < MTTKRP_K; ++j) {
          const int64_t r = MTTKRP_COL(r0, lane, vl, j);
          if (r < a.R) {
            g[r] += acc[j];
          }
        }
      } else {
        TP_LANES for (int j = 0; j < MTTKRP_K; ++j)
            sums[team->team_rank * F + lane * MTTKRP_K + j] = acc[j];
      }
    }
    if (team->team_size > 1) {
      tp_team_barrier(team);
      TP_TEAM_VECTOR_FOR(team, c, 0, F) {
        const int64_t r = MTTKRP_COL(r0, c / MTTKRP_K, vl, c % MTTKRP_K);
        if (r < a.R) {
          MTTKRP_T v = 0;
          for (int t = 0; t < team->team_size; ++t)
            v += sums[t * F + c];
          g[r] += v;
        }
      }
      tp_team_barrier(team);
    }
  }
}

#undef MTTKRP_KN
