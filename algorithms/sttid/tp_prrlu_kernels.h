/* The sparse PRRLU's kernels, written once on the portable layer.
 *
 * The active submatrix is a list of entries (row, col, value) in compressed coordinates
 * (rows and columns renumbered densely, order kept) plus a hash map from the linearised
 * key row * cols + col to the entry's position. One pivot step is three launches, all
 * reading their sizes from the device-side state, so the host never waits between steps:
 *   argmax           each team reduces its share of the entries to (|value|, key); the
 *                    last team to finish joins the partials and decides: a pivot, or a
 *                    stop;
 *   separate         entries in the pivot row go to v, in the pivot column (as
 *                    multipliers l = a / p) to u, and both are marked dead
 *                    (selective data separation: later steps never see them);
 *   update           every (i, j) of u x v: an existing entry gets fma(-l_i, v_j, a_ij)
 *                    through the hash map, a new one is appended (fill). Each key occurs
 *                    once per step, so no two threads touch one entry and no value
 *                    atomics are needed; only the append counter is atomic.
 * When the update might not fit, it stalls: every later launch returns at once until
 * the host has grown the store and cleared the flag. Small stores run whole batches of
 * steps in one launch of one team instead (prrlu_steps_one_team). */
#ifndef TP_PRRLU_KERNELS_H
#define TP_PRRLU_KERNELS_H

#include "portable/tp_hashmap_device.h"
#include "portable/tp_portable.h"
#include "algorithms/sttid/tp_prrlu_stop_rule.h"

#define PRRLU_DEAD UINT32_MAX
/* Entries per thread and round of the scans over the store where a team has several
 * threads (GPUs): a thread's loop would otherwise wait for one load before it issues the
 * next. A CPU team's one thread walks consecutive entries, which the prefetcher already
 * overlaps; rounds there only add work, and made STTID slower on CPUs. */
#ifndef PRRLU_IN_FLIGHT
#define PRRLU_IN_FLIGHT 4
#endif
#ifndef PRRLU_ONE_TEAM_THREADS
#define PRRLU_ONE_TEAM_THREADS 512 /* threads of the one-team kernel's team (GPUs) */
#endif

/* Device-side state of one factorisation. Counters are int64 so that the portable
 * atomics apply to them. */
typedef struct prrlu_state {
  int64_t end;      /* entries occupy [0, end) */
  int64_t fresh;    /* entries the running update appended; folded into end later */
  int64_t n_u, n_v; /* lengths of the pivot column and row */
  int64_t rank;     /* pivots chosen */
  int64_t limit;    /* min(rmax, rows, cols) */
  int64_t stop;     /* -1 while running, else a tp_prrlu_stop */
  int64_t stalled;  /* 1: the current update waits for room */
  int64_t need;     /* entries the stalled update may append */
  int64_t allow;    /* >= 0: the host counted the update's new entries exactly */
  int64_t capacity; /* entries the store holds */
  int64_t dead;     /* entries marked dead since the last compaction */
  int64_t fill;     /* entries created so far */
  int64_t arrivals; /* teams of the running arg-max that are done */
  int64_t peak;     /* largest end seen */
  int64_t eps_relative;
  double eps, threshold, first;
  int64_t piv_row, piv_col;
  double piv_val;
} prrlu_state;

/* The entry store and the pivot outputs, as kernels see them. */
typedef struct prrlu_args {
  prrlu_state *st;
  uint32_t *row, *col;
  double *val;
  uint32_t *u_row, *v_col;
  double *u_l, *v_val;
  int64_t *piv_rows, *piv_cols;
  double *piv_vals;
  tp_argmax_f64 *partials;
  uint64_t cols; /* compressed column count: key = row * cols + col */
  tp_hashmap_view map;
  int64_t *counter; /* scratch counter of the exact fill count */
  int64_t steps;    /* pivot steps one launch of prrlu_steps_one_team runs */
} prrlu_args;

/* The contiguous share [*begin, *end) of n items that belongs to this team. */
TP_DEVICE void prrlu_team_share(const tp_team *team, int64_t n, int64_t *begin, int64_t *end) {
  int64_t chunk = tp_ceil_div_i64(n, team->league_size);
  *begin = tp_min_i64(n, team->league_rank * chunk);
  *end = tp_min_i64(n, *begin + chunk);
}

/* This thread's first item in PRRLU_TEAM_ITEMS order, and the stride between its items. */
TP_DEVICE int64_t prrlu_thread_index(const tp_team *team) {
  return (int64_t)team->team_rank * team->vector_length + team->vector_lane;
}

TP_DEVICE int64_t prrlu_thread_stride(const tp_team *team) {
  return (int64_t)team->team_size * team->vector_length;
}

/* Every thread and lane of the team over [begin, end), one item each in turn. Unlike
 * TP_TEAM_VECTOR_FOR this is no SIMD loop on the CPU: bodies here carry a running
 * arg-max or take atomic tickets. */
#define PRRLU_TEAM_ITEMS(team, e, begin, end)                              \
  for (int64_t e = (begin) + prrlu_thread_index(team); e < (int64_t)(end); \
       e += prrlu_thread_stride(team))

TP_DEVICE int prrlu_idle(const prrlu_state *st) { return st->stop >= 0 || st->stalled; }

/* The arg-max candidate of one stored entry; dead and zero entries never are. */
TP_DEVICE tp_argmax_f64 prrlu_candidate(prrlu_args a, uint32_t r, uint32_t c, double v) {
  if (r == PRRLU_DEAD || v == 0)
    return tp_argmax_f64_identity();
  return tp_argmax_f64_make(v, (int64_t)(r * a.cols + c));
}

/* |value| of a running arg-max, -1 while it holds none (NaN when its value is NaN). */
TP_DEVICE double prrlu_best_magnitude(tp_argmax_f64 best) {
  return best.index < 0 ? -1.0 : fabs(best.value);
}

/* 0 only when |v| is smaller than best_abs, so that the join would never pick v (any
 * comparison with a NaN is false: NaNs always may win). */
TP_DEVICE int prrlu_may_win(double v, double best_abs) { return !(fabs(v) < best_abs); }

/* Joins entry (r, c, v), which prrlu_may_win let through, into a thread's running
 * arg-max `best`, whose magnitude is *best_abs: a tie (never a NaN, never a zero) goes
 * to the smaller key, as in the join; the others take the full join, so the result is
 * always the join's. */
TP_DEVICE void prrlu_consider(prrlu_args a, tp_argmax_f64 *best, double *best_abs, uint32_t r,
                              uint32_t c, double v) {
  if (fabs(v) == *best_abs) {
    int64_t key = (int64_t)(r * a.cols + c);
    if (r != PRRLU_DEAD && key < best->index)
      best->value = v, best->index = key;
    return;
  }
  *best = tp_join_argmax_abs_f64(*best, prrlu_candidate(a, r, c, v));
  *best_abs = prrlu_best_magnitude(*best);
}

/* Whether thread items e, e + stride, ... up to PRRLU_IN_FLIGHT of them all lie before
 * end, so that a round of the scans below loads them all before using any. Only where
 * the team has several threads: a CPU team's one thread keeps the plain loop. */
TP_DEVICE int prrlu_full_round(int64_t e, int64_t stride, int64_t end) {
  return stride > 1 && e + (PRRLU_IN_FLIGHT - 1) * stride < end;
}

/* This team's arg-max over its share of the live entries, in rounds of PRRLU_IN_FLIGHT
 * entries per thread (their loads are issued before any is used) where the team has
 * several threads. The rounds take every entry's full join: with the early exit their
 * branches diverge within a warp, which made them slower on a GPU. The plain loop, all a
 * CPU team's one thread runs, takes the early exit, which has no warp to diverge and
 * saves work there. */
TP_DEVICE tp_argmax_f64 prrlu_share_argmax(const tp_team *team, prrlu_args a) {
  const prrlu_state *st = a.st;
  tp_argmax_f64 best = tp_argmax_f64_identity();
  if (st->rank < st->limit) {
    int64_t begin, end;
    prrlu_team_share(team, st->end + st->fresh, &begin, &end);
    const int64_t stride = prrlu_thread_stride(team);
    int64_t e = begin + prrlu_thread_index(team);
    for (; prrlu_full_round(e, stride, end); e += PRRLU_IN_FLIGHT * stride) {
      uint32_t r[PRRLU_IN_FLIGHT], c[PRRLU_IN_FLIGHT];
      double v[PRRLU_IN_FLIGHT];
      for (int u = 0; u < PRRLU_IN_FLIGHT; ++u)
        r[u] = a.row[e + u * stride], c[u] = a.col[e + u * stride], v[u] = a.val[e + u * stride];
      for (int u = 0; u < PRRLU_IN_FLIGHT; ++u)
        best = tp_join_argmax_abs_f64(best, prrlu_candidate(a, r[u], c[u], v[u]));
    }
    double best_abs = prrlu_best_magnitude(best);
    for (; e < end; e += stride) { /* the column is read only for entries that may win */
      double v = a.val[e];
      if (prrlu_may_win(v, best_abs))
        prrlu_consider(a, &best, &best_abs, a.row[e], a.col[e], v);
    }
  }
  best = tp_vector_argmax_abs_f64(team, best);
  return tp_team_argmax_abs_f64(team, best);
}

/* A partial another team wrote during this launch (volatile: never a stale cached copy). */
TP_DEVICE tp_argmax_f64 prrlu_load_partial(const tp_argmax_f64 *p) {
  return tp_argmax_f64_make(*(const volatile double *)&p->value,
                            *(const volatile int64_t *)&p->index);
}

/* Publishes this team's partial; returns 1 in every thread of the team that came last. */
TP_DEVICE int64_t prrlu_arrive(const tp_team *team, prrlu_args a, tp_argmax_f64 best) {
  int64_t last = 0;
  TP_TEAM_SINGLE(team) {
    a.partials[team->league_rank] = best;
    tp_memory_fence(); /* the partial is visible before the arrival is counted */
    last = tp_atomic_fetch_add_i64(&a.st->arrivals, 1) == team->league_size - 1;
  }
  return tp_team_max_i64(team, last);
}

/* Records the pivot (or the stop) chosen from the joined partials. */
TP_DEVICE void prrlu_decide(prrlu_args a, tp_argmax_f64 best) {
  prrlu_state *st = a.st;
  st->end += st->fresh;
  st->fill += st->fresh;
  st->fresh = 0;
  st->peak = tp_max_i64(st->peak, st->end);
  if (st->rank >= st->limit) {
    st->stop = TP_PRRLU_STOP_RANK;
    return;
  }
  if (best.index < 0) {
    st->stop = TP_PRRLU_STOP_EXHAUSTED;
    return;
  }
  double mag = best.value < 0 ? -best.value : best.value;
  if (st->rank == 0) {
    st->first = mag;
    st->threshold = st->eps_relative ? st->eps * mag : st->eps;
  }
  int stop = tp_prrlu_magnitude_stop(mag, st->threshold, st->rank, st->first);
  if (stop >= 0) {
    st->stop = stop;
    return;
  }
  st->piv_row = (int64_t)((uint64_t)best.index / a.cols);
  st->piv_col = (int64_t)((uint64_t)best.index % a.cols);
  st->piv_val = best.value;
  a.piv_rows[st->rank] = st->piv_row;
  a.piv_cols[st->rank] = st->piv_col;
  a.piv_vals[st->rank] = best.value;
  st->rank += 1;
  st->n_u = st->n_v = 0;
  st->allow = -1;
}

TP_TEAM_KERNEL(prrlu_argmax, prrlu_args, team, a) {
  if (prrlu_idle(a.st))
    return;
  tp_argmax_f64 best = prrlu_share_argmax(team, a);
  if (!prrlu_arrive(team, a, best))
    return;
  tp_memory_fence(); /* every other team's partial is visible from here on */
  best = tp_argmax_f64_identity();
  PRRLU_TEAM_ITEMS(team, k, 0, team->league_size) {
    best = tp_join_argmax_abs_f64(best, prrlu_load_partial(&a.partials[k]));
  }
  best = tp_vector_argmax_abs_f64(team, best);
  best = tp_team_argmax_abs_f64(team, best);
  TP_TEAM_SINGLE(team) {
    a.st->arrivals = 0;
    prrlu_decide(a, best);
  }
}

/* The pivot as the separation reads it (once per thread: the stores the separation makes
 * could alias the state as far as a compiler knows). */
typedef struct prrlu_pivot {
  uint32_t row, col;
  double value;
} prrlu_pivot;

/* Separates entry e (row r, column c) if it lies in the pivot's row or column; returns
 * 1 when it was marked dead. */
TP_DEVICE int64_t prrlu_separate_item(prrlu_args a, prrlu_pivot piv, int64_t e, uint32_t r,
                                      uint32_t c) {
  prrlu_state *st = a.st;
  if (r == PRRLU_DEAD || (r != piv.row && c != piv.col))
    return 0;
  a.row[e] = PRRLU_DEAD;
  double v = a.val[e];
  if (v == 0 || (r == piv.row && c == piv.col))
    return 1;
  if (r == piv.row) {
    int64_t k = tp_atomic_fetch_add_i64(&st->n_v, 1);
    a.v_col[k] = c, a.v_val[k] = v;
  } else {
    int64_t k = tp_atomic_fetch_add_i64(&st->n_u, 1);
    a.u_row[k] = r, a.u_l[k] = v / piv.value;
  }
  return 1;
}

/* Separation over this team's share of the entries, PRRLU_IN_FLIGHT per thread and
 * round as in the arg-max. */
TP_DEVICE void prrlu_separate_share(const tp_team *team, prrlu_args a) {
  prrlu_state *st = a.st;
  prrlu_pivot piv;
  piv.row = (uint32_t)st->piv_row, piv.col = (uint32_t)st->piv_col, piv.value = st->piv_val;
  int64_t begin, end, killed = 0;
  prrlu_team_share(team, st->end, &begin, &end);
  const int64_t stride = prrlu_thread_stride(team);
  int64_t e = begin + prrlu_thread_index(team);
  for (; prrlu_full_round(e, stride, end); e += PRRLU_IN_FLIGHT * stride) {
    uint32_t r[PRRLU_IN_FLIGHT], c[PRRLU_IN_FLIGHT];
    for (int u = 0; u < PRRLU_IN_FLIGHT; ++u)
      r[u] = a.row[e + u * stride], c[u] = a.col[e + u * stride];
    for (int u = 0; u < PRRLU_IN_FLIGHT; ++u)
      killed += prrlu_separate_item(a, piv, e + u * stride, r[u], c[u]);
  }
  for (; e < end; e += stride)
    killed += prrlu_separate_item(a, piv, e, a.row[e], a.col[e]);
  if (killed)
    tp_atomic_add_i64(&st->dead, killed);
}

TP_TEAM_KERNEL(prrlu_separate, prrlu_args, team, a) {
  if (!prrlu_idle(a.st))
    prrlu_separate_share(team, a);
}

/* Entries the update may append: the exact count when the host measured it, else the
 * bound |u| |v| (saturated: a product past the capacity only needs to be "too many"). */
TP_DEVICE int64_t prrlu_update_bound(const prrlu_state *st) {
  if (st->allow >= 0)
    return st->allow;
  if (st->n_v > 0 && st->n_u > (INT64_MAX >> 2) / st->n_v)
    return INT64_MAX >> 2;
  return st->n_u * st->n_v;
}

TP_DEVICE void prrlu_update_pair(prrlu_args a, int64_t q, int64_t nv, int64_t base) {
  int64_t i = q / nv, j = q - (q / nv) * nv;
  uint64_t key = (uint64_t)a.u_row[i] * a.cols + a.v_col[j];
  int64_t slot = tp_hashmap_lookup(a.map, key);
  if (slot >= 0) {
    int64_t e = (int64_t)a.map.slots[slot].value;
    a.val[e] = fma(-a.u_l[i], a.v_val[j], a.val[e]);
    return;
  }
  int64_t e = base + tp_atomic_fetch_add_i64(&a.st->fresh, 1);
  a.row[e] = a.u_row[i], a.col[e] = a.v_col[j];
  a.val[e] = fma(-a.u_l[i], a.v_val[j], 0.0);
  int inserted;
  tp_hashmap_put(a.map, key, (uint64_t)e, &inserted);
}

/* The update over this team's share of u x v, or a stall when it might not fit. */
TP_DEVICE void prrlu_update_share(const tp_team *team, prrlu_args a) {
  prrlu_state *st = a.st;
  const int64_t nu = st->n_u, nv = st->n_v, base = st->end;
  if (base + prrlu_update_bound(st) > st->capacity) {
    TP_TEAM_SINGLE(team) {
      st->need = prrlu_update_bound(st);
      st->stalled = 1;
    }
    return;
  }
  int64_t begin, end;
  prrlu_team_share(team, nu * nv, &begin, &end);
  PRRLU_TEAM_ITEMS(team, q, begin, end) { prrlu_update_pair(a, q, nv, base); }
}

TP_TEAM_KERNEL(prrlu_update, prrlu_args, team, a) {
  if (!prrlu_idle(a.st))
    prrlu_update_share(team, a);
}

/* a.steps whole pivot steps in one launch of a league of one team, for stores small
 * enough that three launches per step cost more than the step's work. The team's own
 * arg-max is the whole matrix's, so no partials are joined; the barriers between the
 * phases stand for the launch boundaries, and a stop or a stall ends the launch (the
 * host then acts as it does after a batch of three-launch steps). */
TP_TEAM_KERNEL_BOUNDED(prrlu_steps_one_team, prrlu_args, PRRLU_ONE_TEAM_THREADS, 1, team, a) {
  for (int64_t s = 0; s < a.steps && !prrlu_idle(a.st); ++s) {
    tp_argmax_f64 best = prrlu_share_argmax(team, a);
    TP_TEAM_SINGLE(team) { prrlu_decide(a, best); }
    tp_team_barrier(team);
    if (prrlu_idle(a.st))
      return;
    prrlu_separate_share(team, a);
    tp_team_barrier(team);
    prrlu_update_share(team, a);
    tp_team_barrier(team);
  }
}

/* Counts the pairs of the pending update whose key is absent (its exact fill). */
TP_TEAM_KERNEL(prrlu_count_fill, prrlu_args, team, a) {
  const prrlu_state *st = a.st;
  const int64_t nu = st->n_u, nv = st->n_v;
  int64_t begin, end, missing = 0;
  prrlu_team_share(team, nu * nv, &begin, &end);
  PRRLU_TEAM_ITEMS(team, q, begin, end) {
    int64_t i = q / nv, j = q - (q / nv) * nv;
    if (tp_hashmap_lookup(a.map, (uint64_t)a.u_row[i] * a.cols + a.v_col[j]) < 0)
      missing += 1;
  }
  if (missing)
    tp_atomic_add_i64(a.counter, missing);
}

/* Live flags (for compaction), and hash keys with positions (for rebuilding the map). */
typedef struct prrlu_keys_args {
  const uint32_t *row, *col;
  uint8_t *live;
  uint64_t *keys, *pos;
  uint64_t cols;
} prrlu_keys_args;

TP_RANGE_KERNEL(prrlu_live_flags, prrlu_keys_args, e, k) { k.live[e] = k.row[e] != PRRLU_DEAD; }

TP_RANGE_KERNEL(prrlu_entry_keys, prrlu_keys_args, e, k) {
  k.keys[e] = (uint64_t)k.row[e] * k.cols + k.col[e];
  k.pos[e] = (uint64_t)e;
}

#endif
