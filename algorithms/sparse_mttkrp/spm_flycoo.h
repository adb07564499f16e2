/* The FLYCOO kernel for one precision, one per-lane width (FLYCOO_K), one order (FLYCOO_N; 0 =
 * any order, read from the arguments) and one record layout (FLYCOO_C: 1 = compact, 0 =
 * with positions; the generic kernel reads it from the arguments): included by
 * spm_width.h once per order and layout, so there is no include guard. With the order a
 * constant, the loops over modes unroll and every record word of the nonzeros in flight
 * is loaded before their factor rows are gathered, instead of one mode after the other;
 * the layout's constants spare registers (a stride read at run time made the kernel
 * measurably slower).
 * generates: the kernels named in the generates: lists of spm_kernels_f32.c and
 * spm_kernels_f64.c, which instantiate it (tools/ci/kernel_names.py checks them).
 *
 * ---- FLYCOO: one team per partition, windows of pieces in team scratch ------------
 * A partition owns the G rows (or partial rows) of its pieces, so nothing it writes
 * needs an atomic. The team walks its pieces in windows of a.window pieces, a scratch
 * row of F = vector_length x FLYCOO_K columns each; per window:
 *   clear_window      the window's scratch rows are zeroed (barrier);
 *   thread_records    each team thread takes a contiguous run [s, t) of the window's
 *                     records, so a heavy row is summed in registers and reaches the
 *                     scratch once per thread; its lanes split the rank;
 *   lane_start        each lane walks the run from the piece that holds s (cur),
 *                     summing that piece (acc), a group of FLYCOO_INFLIGHT records at
 *                     a time (and, on CPUs, prefetching the records further on):
 *     gather          the group's products: its record values, then the factor rows of
 *                     the other modes, mode by mode, so that all their loads are in
 *                     flight at once;
 *     add_group       the products added to acc in record order; a record that starts
 *                     a new piece first flushes acc into cur's scratch row
 *                     (flycoo_flush, team atomics: pieces cross thread runs) and moves
 *                     cur on; with remap (remap_record) each record is also copied to
 *                     its place in the next mode's order, the lanes sharing its words;
 *                     at the end of the run, acc is flushed for the last piece (barrier);
 *   write_window      the window's rows go to G, or to partial rows for rows cut
 *                     between partitions (barrier: the next window reuses the scratch).
 * Each helper is named as its kernel is (FLYCOO_NKN: flycoo_gather_n3c_f32_k4 for the
 * kernel flycoo_n3c_f32_k4), and the compilers inline it there. The walk over the groups
 * stays in the kernel: as a helper of its own, GCC kept it out of line, without the
 * specialised kernels' constants. */

#define FLYCOO_NN(name) TP_PASTE(name, TP_PASTE3(_n, FLYCOO_N, FLYCOO_CN))
#define FLYCOO_NKN(name) FLYCOO_KN(FLYCOO_NN(name))

/* Where a lane is in its walk over the thread's records: its columns, the window's
 * scratch rows (row i for piece base + i) and the piece being summed. Its sums of that
 * piece (acc) are an array beside it: in the struct, they changed the GPU kernels'
 * registers and spills. */
typedef struct FLYCOO_NKN(flycoo_lane) {
  int lane, vl, F;
  int64_t left; /* this lane's columns: vl * j < left */
  FLYCOO_T *rows;
  int64_t base, end;       /* the window's first piece; the end of the thread's records */
  int64_t cur, next_start; /* the piece being summed; the first record of the next */
} FLYCOO_NKN(flycoo_lane);

/* Zeroes the window's scratch rows: n values. */
TP_DEVICE void FLYCOO_NKN(flycoo_clear_window)(const tp_team *team, FLYCOO_T *sums, int64_t n) {
  (void)team; /* CPUs: a team is one thread */
  TP_TEAM_VECTOR_FOR(team, i, 0, n) sums[i] = 0;
}

/* This team thread's contiguous run [*s, *t) of the records of pieces [base, wend). */
TP_DEVICE void FLYCOO_NKN(flycoo_thread_records)(const tp_team *team,
                                                 const FLYCOO_PN(flycoo_args) * a, int64_t base,
                                                 int64_t wend, int64_t *s, int64_t *t) {
  const int64_t e0 = a->piece_start[base], e1 = a->piece_start[wend];
  const int64_t per = tp_ceil_div_i64(e1 - e0, team->team_size);
  *s = e0 + team->team_rank * per;
  *t = tp_min_i64(*s + per, e1);
}

/* Lane `lane` of vl at the start of the thread's records [s, t) of the window of pieces
 * [base, wend), whose scratch rows are `sums`: in the piece that holds s. */
TP_DEVICE void FLYCOO_NKN(flycoo_lane_start)(FLYCOO_NKN(flycoo_lane) * ln,
                                             const FLYCOO_PN(flycoo_args) * a, FLYCOO_T *sums,
                                             int64_t base, int64_t wend, int64_t s, int64_t t,
                                             int lane, int vl) {
  ln->lane = lane, ln->vl = vl, ln->F = vl * FLYCOO_K;
  ln->rows = sums, ln->base = base, ln->end = t;
  ln->cur = TP_PASTE(FLYCOO_PN(flycoo_piece_of), FLYCOO_K)(a->piece_start, base, wend - 1, s);
  ln->next_start = a->piece_start[ln->cur + 1];
  ln->left = a->R - a->r0 - lane;
}

/* The products of records e .. e + FLYCOO_INFLIGHT - 1 (past the run's end, its last
 * record again): gather first, so that the factor loads of FLYCOO_INFLIGHT nonzeros are
 * in flight at once. Every record's value, then the factor rows mode by mode. */
TP_DEVICE void FLYCOO_NKN(flycoo_gather)(const FLYCOO_PN(flycoo_args) * a, flycoo_words w,
                                         const FLYCOO_NKN(flycoo_lane) * ln, int64_t e, uint32_t *x,
                                         FLYCOO_T (*prod)[FLYCOO_K]) {
  TP_UNROLL for (int u = 0; u < FLYCOO_INFLIGHT; ++u) {
    x[u] = (uint32_t)tp_min_i64(e + u, ln->end - 1);
    const FLYCOO_T v = FLYCOO_PN(flycoo_value)(a->in + (int64_t)x[u] * w.stride, w.value_word);
    TP_LANES for (int j = 0; j < FLYCOO_K; ++j) prod[u][j] = v;
  }
  TP_UNROLL for (int m = 0; m < w.order; ++m) {
    if (m == a->mode)
      continue;
    const FLYCOO_T *Um = a->U[m] + a->r0 + ln->lane;
    TP_UNROLL for (int u = 0; u < FLYCOO_INFLIGHT; ++u) {
      const FLYCOO_T *row = Um + (int64_t)a->in[(int64_t)x[u] * w.stride + m] * a->R;
      TP_PASTE(FLYCOO_PN(flycoo_mul_row), FLYCOO_K)
      (prod[u], row, ln->vl, ln->left, a->whole_rows);
    }
  }
}

/* Copies record x to its place in the next mode's order, the lanes sharing its words. */
TP_DEVICE void FLYCOO_NKN(flycoo_remap_record)(const FLYCOO_PN(flycoo_args) * a, flycoo_words w,
                                               const FLYCOO_NKN(flycoo_lane) * ln, uint32_t x) {
  const uint32_t *rec = a->in + (int64_t)x * w.stride;
  uint32_t *dst = a->out + (int64_t)rec[w.order + a->next] * w.stride;
  if (!TP_IS_GPU && ln->vl == 1) { /* CPUs: whole blocks, a vector store each */
    for (int b = 0; b < w.stride / 8; ++b)
      ((flycoo_rec_block *)dst)[b] = ((const flycoo_rec_block *)rec)[b];
  } else {
    for (int k = ln->lane; k < w.stride; k += ln->vl)
      dst[k] = rec[k];
  }
}

/* Then adds the group's products to acc in record order (records past the run's end
 * count nothing): where a record starts a new piece, acc goes to the current piece's
 * scratch row first. With remap, each record is also copied to the next mode's order. */
TP_DEVICE void FLYCOO_NKN(flycoo_add_group)(const FLYCOO_PN(flycoo_args) * a, flycoo_words w,
                                            FLYCOO_NKN(flycoo_lane) * ln, FLYCOO_T *acc, int64_t e,
                                            const uint32_t *x, FLYCOO_T (*prod)[FLYCOO_K]) {
  TP_UNROLL for (int u = 0; u < FLYCOO_INFLIGHT; ++u) {
    if (e + u < ln->end) {
      if (e + u >= ln->next_start) {
        TP_PASTE(FLYCOO_PN(flycoo_flush), FLYCOO_K)
        (ln->rows + (ln->cur - ln->base) * ln->F, acc, ln->lane, ln->vl, a->r0, a->R);
        while (e + u >= (int64_t)a->piece_start[ln->cur + 1])
          ++ln->cur;
        ln->next_start = a->piece_start[ln->cur + 1];
      }
      TP_LANES for (int j = 0; j < FLYCOO_K; ++j) acc[j] += prod[u][j];
      if (!FLYCOO_C && a->remap) /* only the layout with positions remaps */
        FLYCOO_NKN(flycoo_remap_record)(a, w, ln, x[u]);
    }
  }
}

/* Writes the window's `rows` scratch rows (pieces base ..) to their G rows or partial
 * rows. */
TP_DEVICE void FLYCOO_NKN(flycoo_write_window)(const tp_team *team,
                                               const FLYCOO_PN(flycoo_args) * a,
                                               const FLYCOO_T *sums, int64_t base, int64_t rows,
                                               int F) {
  (void)team; /* CPUs: a team is one thread */
  TP_TEAM_VECTOR_FOR(team, i, 0, rows * F) {
    const int64_t r = a->r0 + i % F;
    if (r < a->R) {
      const int64_t slot = a->piece_slot[base + i / F];
      FLYCOO_T *dst = slot < a->dim ? a->G + slot * a->R : a->partial + (slot - a->dim) * a->R;
      dst[r] = sums[i];
    }
  }
}

TP_TEAM_KERNEL_BOUNDED(FLYCOO_NKN(flycoo), FLYCOO_PN(flycoo_args), 1024, FLYCOO_MIN_TEAMS, team,
                       a) {
  const int vl = team->vector_length, F = vl * FLYCOO_K;
  /* The order and the layout: constants in the specialised kernels (set here: returned
   * by a helper, they changed the GPU kernels' registers and spills), the arguments' in
   * the generic one. */
  const int vw = (int)(sizeof(FLYCOO_T) / 4);
  flycoo_words w;
  w.order = FLYCOO_N > 0 ? FLYCOO_N : a.order;
  w.stride = FLYCOO_N > 0 ? FLYCOO_STRIDE(FLYCOO_N, vw, !FLYCOO_C) : a.stride;
  w.value_word = FLYCOO_N > 0 ? FLYCOO_VALUE_WORD(FLYCOO_N, vw, !FLYCOO_C) : a.value_word;
  FLYCOO_T *sums = (FLYCOO_T *)team->scratch;
  const int64_t pb = a.part_piece[team->league_rank], pe = a.part_piece[team->league_rank + 1];
  for (int64_t base = pb; base < pe; base += a.window) {
    const int64_t wend = tp_min_i64(base + a.window, pe), rows = wend - base;
    FLYCOO_NKN(flycoo_clear_window)(team, sums, rows * F);
    tp_team_barrier(team);
    int64_t s, t;
    FLYCOO_NKN(flycoo_thread_records)(team, &a, base, wend, &s, &t);
    if (s < t) {
      TP_VECTOR_FOR(team, lane, 0, vl) {
        FLYCOO_NKN(flycoo_lane) ln;
        FLYCOO_NKN(flycoo_lane_start)(&ln, &a, sums, base, wend, s, t, lane, vl);
        FLYCOO_T acc[FLYCOO_K];
        TP_LANES for (int j = 0; j < FLYCOO_K; ++j) acc[j] = 0;
        for (int64_t e = s; e < t; e += FLYCOO_INFLIGHT) {
          if (TP_PREFETCH_AHEAD > 0) /* CPUs: start the loads of records further on */
            FLYCOO_PN(flycoo_prefetch_group)
          (&a, w.order, w.stride, e + TP_PREFETCH_AHEAD,
           tp_min_i64(e + TP_PREFETCH_AHEAD + FLYCOO_INFLIGHT, t), (size_t)F * sizeof(FLYCOO_T));
          uint32_t x[FLYCOO_INFLIGHT]; /* record numbers: 32-bit, to spare registers */
          FLYCOO_T prod[FLYCOO_INFLIGHT][FLYCOO_K];
          FLYCOO_NKN(flycoo_gather)(&a, w, &ln, e, x, prod);
          FLYCOO_NKN(flycoo_add_group)(&a, w, &ln, acc, e, x, prod);
        }
        TP_PASTE(FLYCOO_PN(flycoo_flush), FLYCOO_K)
        (sums + (ln.cur - base) * F, acc, lane, vl, a.r0, a.R);
      }
    }
    tp_team_barrier(team);
    FLYCOO_NKN(flycoo_write_window)(team, &a, sums, base, rows, F);
    tp_team_barrier(team);
  }
}

#undef FLYCOO_NKN
#undef FLYCOO_NN
