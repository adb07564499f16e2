/* The sparse PRRLU in a space: set-up (compressed coordinates, the entry store and its
 * hash map), the pivot loop and its rare host interventions (growing or compacting the
 * store), and the pivots back in the matrix's own indices.
 *
 * The loop launches batches of pivot steps without waiting; the host reads the small
 * device state once per batch (batches grow to 64 steps), so a GPU never idles on a
 * per-pivot round trip. Steps launched after a stop return at once. On spaces that
 * record work, full batches are recorded once and replayed. While the store is small, a
 * whole batch is one launch of a single team (prrlu_steps_one_team). */
/* generates: prrlu_argmax prrlu_count_fill prrlu_entry_keys prrlu_live_flags prrlu_separate prrlu_steps_one_team prrlu_update */
#include <stdlib.h>
#include <string.h>

#include "tenport/hashmap.h"
#include "tenport/memory.h"
#include "tenport/primitives.h"
#include "algorithms/sttid/tp_prrlu_internal.h"
#include "algorithms/sttid/tp_prrlu_kernels.h"
#include "algorithms/sttid/tp_sttid_compress.h"

enum { PRRLU_BATCH_FIRST = 4, PRRLU_BATCH_MAX = 64, PRRLU_TEAM = 8, PRRLU_VECTOR = 32 };
enum { PRRLU_CPU_TEAM_ENTRIES = 4096 }; /* entries per team on CPUs (choose_league) */

/* Stores of at most this many entries run a batch of steps as one launch of one team.
 * On CPUs the three parallel regions a step takes otherwise cost more than the step's
 * work on such stores, the more so the more threads each wakes; 32768 was the best limit
 * on 2 cores and on 16 (larger limits no better, since the tensors' stores stay below).
 * On GPUs one multiprocessor doing a step's whole work beats three launches per step up
 * to stores of about 25,000 entries, which this limit covers (docs/performance.md,
 * "Figures behind the defaults"). */
#ifndef PRRLU_ONE_TEAM_CPU_ENTRIES
#define PRRLU_ONE_TEAM_CPU_ENTRIES 32768
#endif
#ifndef PRRLU_ONE_TEAM_GPU_ENTRIES
#define PRRLU_ONE_TEAM_GPU_ENTRIES 24576
#endif

static int64_t one_team_entries_override = -1; /* tpi_prrlu_set_one_team_entries */

void tpi_prrlu_set_one_team_entries(int64_t entries) {
  one_team_entries_override = entries < 0 ? -1 : entries;
}

/* Host handle of the factorisation: device arrays, the map and launch shapes. */
typedef struct prrlu_run {
  tp_space *space;
  prrlu_args a;
  prrlu_state host; /* the last state read back */
  tp_hashmap *map;
  int64_t rows_c, cols_c;
  int compute_units, is_gpu;
  tp_team_policy entries;
  tp_team_policy one_team;  /* league of one team for prrlu_steps_one_team */
  int64_t one_team_entries; /* the largest store it runs */
  /* A recorded batch of PRRLU_BATCH_MAX steps (GPUs), valid while the store's arrays and
   * the league it was recorded with stay the same. */
  tp_recording *batch;
  int64_t batch_league;
  int store_changed, no_recording;
  const tpi_prrlu_observer *observer; /* may be NULL */
} prrlu_run;

static tp_status space_alloc(tp_space *s, void **p, size_t count, size_t size) {
  return tp_alloc(s, (count ? count : 1) * size, p);
}

static void run_release(prrlu_run *r) {
  void *bufs[] = {r->a.st,       r->a.row,      r->a.col,    r->a.val,      r->a.u_row,
                  r->a.v_col,    r->a.u_l,      r->a.v_val,  r->a.piv_rows, r->a.piv_cols,
                  r->a.piv_vals, r->a.partials, r->a.counter};
  for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; ++k)
    if (bufs[k])
      tp_free(r->space, bufs[k]);
  tp_hashmap_destroy(&r->map);
  tp_recording_destroy(&r->batch);
}

/* Launch shape of the entry kernels for about n entries: enough teams to fill the device,
 * and one team (no threading at all on the CPU) for small stores. On CPUs a team per 4096
 * entries, so that stores of tens of thousands of entries use every thread (larger
 * teams were slower on 2 cores; perf/results/2026-11-22-h200-sttid/README.md). */
static void choose_league(prrlu_run *r, int64_t n) {
  int64_t per_team =
      r->is_gpu ? (int64_t)PRRLU_TEAM * PRRLU_VECTOR * 8 : (int64_t)PRRLU_CPU_TEAM_ENTRIES;
  int64_t max_teams = r->is_gpu ? 2 * (int64_t)r->compute_units : r->compute_units;
  int64_t teams = tp_max_i64(1, tp_min_i64(tp_ceil_div_i64(n > 0 ? n : 1, per_team), max_teams));
  /* keep the league while it is within a factor of two: a recorded batch stays valid */
  int64_t now = r->entries.league_size;
  if (now < 1 || teams > 2 * now || 2 * teams < now)
    r->entries.league_size = teams;
}

/* Copies the state to the device after the host changed it. */
static tp_status push_state(prrlu_run *r) {
  return tp_copy_to_device(r->space, r->a.st, &r->host, sizeof r->host);
}

static tp_status pull_state(prrlu_run *r) {
  return tp_copy_to_host(r->space, &r->host, r->a.st, sizeof r->host);
}

/* Fills the map with every live entry of [0, n) (positions as values). */
static tp_status index_entries(prrlu_run *r, int64_t n) {
  uint64_t *keys = NULL, *pos = NULL;
  tp_status st = space_alloc(r->space, (void **)&keys, (size_t)n, sizeof *keys);
  if (st == TP_SUCCESS)
    st = space_alloc(r->space, (void **)&pos, (size_t)n, sizeof *pos);
  prrlu_keys_args k;
  memset(&k, 0, sizeof k);
  k.row = r->a.row, k.col = r->a.col, k.keys = keys, k.pos = pos, k.cols = r->a.cols;
  if (st == TP_SUCCESS)
    st = prrlu_entry_keys_launch(r->space, n, k);
  if (st == TP_SUCCESS)
    st = tp_hashmap_clear(r->map);
  if (st == TP_SUCCESS)
    st = tp_hashmap_insert(r->map, keys, pos, n, NULL);
  if (keys)
    tp_free(r->space, keys);
  if (pos)
    tp_free(r->space, pos);
  return st;
}

/* Moves the live entries into arrays of `capacity` entries (the dead are dropped) and
 * rebuilds the map to match. The device state must be current in r->host. */
static tp_status rebuild_store(prrlu_run *r, int64_t capacity) {
  /* the last update's appends count too (the next arg-max would have folded them in) */
  r->host.end += r->host.fresh;
  r->host.fill += r->host.fresh;
  r->host.fresh = 0;
  const int64_t n = r->host.end;
  uint8_t *live = NULL;
  uint32_t *row = NULL, *col = NULL;
  double *val = NULL;
  int64_t *count = NULL, kept = 0;
  tp_status st = space_alloc(r->space, (void **)&live, (size_t)n, 1);
  if (st == TP_SUCCESS)
    st = space_alloc(r->space, (void **)&row, (size_t)capacity, sizeof *row);
  if (st == TP_SUCCESS)
    st = space_alloc(r->space, (void **)&col, (size_t)capacity, sizeof *col);
  if (st == TP_SUCCESS)
    st = space_alloc(r->space, (void **)&val, (size_t)capacity, sizeof *val);
  if (st == TP_SUCCESS)
    st = space_alloc(r->space, (void **)&count, 1, sizeof *count);
  prrlu_keys_args k;
  memset(&k, 0, sizeof k);
  k.row = r->a.row, k.live = live;
  if (st == TP_SUCCESS)
    st = prrlu_live_flags_launch(r->space, n, k);
  if (st == TP_SUCCESS)
    st = tp_compact_u32(r->space, r->a.row, live, n, row, count);
  if (st == TP_SUCCESS)
    st = tp_compact_u32(r->space, r->a.col, live, n, col, count);
  if (st == TP_SUCCESS)
    st = tp_compact_f64(r->space, r->a.val, live, n, val, count);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(r->space, &kept, count, sizeof kept);
  if (live)
    tp_free(r->space, live);
  if (count)
    tp_free(r->space, count);
  if (st != TP_SUCCESS) {
    if (row)
      tp_free(r->space, row);
    if (col)
      tp_free(r->space, col);
    if (val)
      tp_free(r->space, val);
    return st;
  }
  tp_free(r->space, r->a.row), tp_free(r->space, r->a.col), tp_free(r->space, r->a.val);
  r->a.row = row, r->a.col = col, r->a.val = val;
  r->store_changed = 1;
  if (capacity != r->host.capacity) {
    tp_hashmap_destroy(&r->map);
    TP_TRY(tp_hashmap_create(r->space, 2 * capacity, &r->map));
    r->a.map = tp_hashmap_get_view(r->map);
  }
  TP_TRY(index_entries(r, kept));
  r->host.end = kept, r->host.dead = 0, r->host.capacity = capacity;
  return push_state(r);
}

/* The exact number of entries the stalled update appends. */
static tp_status count_fill(prrlu_run *r, int64_t *fill) {
  TP_TRY(tp_memset(r->space, r->a.counter, 0, sizeof(int64_t)));
  tp_team_policy p = r->entries;
  p.league_size = r->is_gpu ? 2 * (int64_t)r->compute_units : r->compute_units;
  TP_TRY(prrlu_count_fill_launch(r->space, p, r->a));
  return tp_copy_to_host(r->space, fill, r->a.counter, sizeof *fill);
}

/* Makes room for a stalled update: counts its fill exactly when the bound is loose, then
 * grows (and compacts) the store so that it fits with room to spare. */
static tp_status resolve_stall(prrlu_run *r) {
  int64_t need = r->host.need, live = r->host.end + r->host.fresh - r->host.dead;
  if (live + need > 2 * r->host.capacity) {
    TP_TRY(count_fill(r, &need));
    r->host.allow = need;
  }
  int64_t capacity = tp_max_i64(2 * r->host.capacity, (live + need) + (live + need) / 2);
  r->host.stalled = 0, r->host.need = 0;
  return rebuild_store(r, capacity);
}

static tp_status launch_step(prrlu_run *r) {
  TP_TRY(prrlu_argmax_launch(r->space, r->entries, r->a));
  TP_TRY(prrlu_separate_launch(r->space, r->entries, r->a));
  return prrlu_update_launch(r->space, r->entries, r->a);
}

/* Issues `steps` pivot steps: directly, or (full batches on a space that records) by
 * replaying a recording of them, made again when the store or the league changed. */
static tp_status launch_directly(prrlu_run *r, int64_t steps) {
  for (int64_t s = 0; s < steps; ++s)
    TP_TRY(launch_step(r));
  return TP_SUCCESS;
}

/* Records a batch of steps; 0 if the space could not (nothing recorded then ran). */
static int record_batch(prrlu_run *r, int64_t steps) {
  tp_recording_destroy(&r->batch);
  if (tp_space_record_begin(r->space) != TP_SUCCESS)
    return 0;
  tp_status st = launch_directly(r, steps);
  tp_status end = tp_space_record_end(r->space, &r->batch);
  if (st != TP_SUCCESS || end != TP_SUCCESS) {
    tp_recording_destroy(&r->batch);
    return 0;
  }
  r->batch_league = r->entries.league_size, r->store_changed = 0;
  return 1;
}

static tp_status launch_batch(prrlu_run *r, int64_t steps) {
  if (r->one_team_entries > 0 && r->host.end + r->host.fresh <= r->one_team_entries) {
    r->a.steps = steps;
    return prrlu_steps_one_team_launch(r->space, r->one_team, r->a);
  }
  if (steps < PRRLU_BATCH_MAX || r->no_recording)
    return launch_directly(r, steps);
  int stale = !r->batch || r->store_changed || r->batch_league != r->entries.league_size;
  if (stale && !record_batch(r, steps)) {
    r->no_recording = 1; /* a runtime without graphs: issue every launch from now on */
    return launch_directly(r, steps);
  }
  return tp_space_replay(r->space, r->batch);
}

/* Passes the pivot count of the state just read back to the observer, if any. */
static void report_pivots(const prrlu_run *r) {
  if (r->observer && r->observer->pivots)
    r->observer->pivots(r->observer->ctx, r->host.rank);
}

/* Runs pivot steps until the device reports a stop. */
static tp_status pivot_loop(prrlu_run *r, int64_t *syncs) {
  int64_t batch = PRRLU_BATCH_FIRST;
  int resume_update = 0;
  for (;;) {
    if (resume_update)
      TP_TRY(prrlu_update_launch(r->space, r->entries, r->a));
    /* never more steps than can still pick a pivot, plus the one that sees the stop */
    int64_t steps = tp_min_i64(batch, r->host.limit - r->host.rank + 1);
    TP_TRY(launch_batch(r, steps));
    TP_TRY(pull_state(r));
    *syncs += 1;
    report_pivots(r);
    if (r->host.stop >= 0)
      return TP_SUCCESS;
    resume_update = r->host.stalled != 0;
    if (resume_update)
      TP_TRY(resolve_stall(r));
    else if (r->host.dead > 1024 && 2 * r->host.dead > r->host.end)
      TP_TRY(rebuild_store(r, r->host.capacity));
    choose_league(r, r->host.end);
    batch = tp_min_i64(2 * batch, PRRLU_BATCH_MAX);
  }
}

/* Device arrays and the initial state for the compressed matrix. */
static tp_status setup_run(prrlu_run *r, const tpi_sttid_compressed *cm, int64_t limit,
                           int64_t room, const tp_prrlu_options *opt) {
  tp_space *s = r->space;
  const int64_t nnz = cm->nnz, cap = tp_max_i64(2 * nnz, 1024);
  int64_t max_league = r->is_gpu ? 2 * (int64_t)r->compute_units : r->compute_units;
  TP_TRY(space_alloc(s, (void **)&r->a.st, 1, sizeof(prrlu_state)));
  TP_TRY(space_alloc(s, (void **)&r->a.row, (size_t)cap, sizeof(uint32_t)));
  TP_TRY(space_alloc(s, (void **)&r->a.col, (size_t)cap, sizeof(uint32_t)));
  TP_TRY(space_alloc(s, (void **)&r->a.val, (size_t)cap, sizeof(double)));
  TP_TRY(space_alloc(s, (void **)&r->a.u_row, (size_t)r->rows_c, sizeof(uint32_t)));
  TP_TRY(space_alloc(s, (void **)&r->a.u_l, (size_t)r->rows_c, sizeof(double)));
  TP_TRY(space_alloc(s, (void **)&r->a.v_col, (size_t)r->cols_c, sizeof(uint32_t)));
  TP_TRY(space_alloc(s, (void **)&r->a.v_val, (size_t)r->cols_c, sizeof(double)));
  TP_TRY(space_alloc(s, (void **)&r->a.piv_rows, (size_t)room, sizeof(int64_t)));
  TP_TRY(space_alloc(s, (void **)&r->a.piv_cols, (size_t)room, sizeof(int64_t)));
  TP_TRY(space_alloc(s, (void **)&r->a.piv_vals, (size_t)room, sizeof(double)));
  TP_TRY(space_alloc(s, (void **)&r->a.partials, (size_t)max_league, sizeof(tp_argmax_f64)));
  TP_TRY(space_alloc(s, (void **)&r->a.counter, 1, sizeof(int64_t)));
  TP_TRY(tp_copy_to_device(s, r->a.row, cm->row, (size_t)nnz * sizeof(uint32_t)));
  TP_TRY(tp_copy_to_device(s, r->a.col, cm->col, (size_t)nnz * sizeof(uint32_t)));
  TP_TRY(tp_copy_to_device(s, r->a.val, cm->values, (size_t)nnz * sizeof(double)));
  TP_TRY(tp_hashmap_create(s, 2 * cap, &r->map));
  r->a.map = tp_hashmap_get_view(r->map);
  r->a.cols = (uint64_t)r->cols_c;
  TP_TRY(index_entries(r, nnz));
  memset(&r->host, 0, sizeof r->host);
  r->host.end = nnz, r->host.peak = nnz, r->host.limit = limit, r->host.stop = -1;
  r->host.allow = -1, r->host.capacity = cap;
  r->host.eps = opt->eps, r->host.eps_relative = opt->eps_relative != 0;
  r->host.threshold = opt->eps_relative ? 0 : opt->eps;
  TP_TRY(push_state(r));
  r->entries = tp_team_policy_make(0, PRRLU_TEAM, PRRLU_VECTOR, 0);
  tp_team_policy_fit(s, &r->entries);
  r->one_team = tp_team_policy_make(1, PRRLU_ONE_TEAM_THREADS / PRRLU_VECTOR, PRRLU_VECTOR, 0);
  tp_team_policy_fit(s, &r->one_team);
  r->one_team_entries = one_team_entries_override >= 0 ? one_team_entries_override
                        : r->is_gpu                    ? PRRLU_ONE_TEAM_GPU_ENTRIES
                                                       : PRRLU_ONE_TEAM_CPU_ENTRIES;
  choose_league(r, nnz);
  return TP_SUCCESS;
}

/* Pivots back in the matrix's indices, and the statistics. */
static tp_status collect(prrlu_run *r, const tpi_sttid_compressed *cm, tp_prrlu_result *out) {
  const int64_t rank = r->host.rank;
  TP_TRY(tp_copy_to_host(r->space, out->rows, r->a.piv_rows, (size_t)rank * sizeof(int64_t)));
  TP_TRY(tp_copy_to_host(r->space, out->cols, r->a.piv_cols, (size_t)rank * sizeof(int64_t)));
  TP_TRY(tp_copy_to_host(r->space, out->pivots, r->a.piv_vals, (size_t)rank * sizeof(double)));
  for (int64_t s = 0; s < rank; ++s) {
    out->rows[s] = cm->row_ids[out->rows[s]];
    out->cols[s] = cm->col_ids[out->cols[s]];
  }
  out->rank = rank;
  out->stop = (tp_prrlu_stop)r->host.stop;
  out->first_pivot = r->host.first;
  out->threshold = r->host.threshold;
  out->fill = r->host.fill;
  out->peak_entries = r->host.peak;
  return TP_SUCCESS;
}

tp_status tp_prrlu(tp_space *space, const tp_spmat *host, const tp_prrlu_options *opt,
                   tp_prrlu_result *result) {
  return tpi_prrlu_observed(space, host, opt, NULL, result);
}

tp_status tpi_prrlu_observed(tp_space *space, const tp_spmat *host, const tp_prrlu_options *opt,
                             const tpi_prrlu_observer *observer, tp_prrlu_result *result) {
  TP_CHECK_ARG(space && host && result, "tp_prrlu: space, matrix and result must not be NULL");
  memset(result, 0, sizeof *result);
  int64_t limit;
  TP_TRY(tpi_prrlu_check_options(opt, host->rows, host->cols, &limit));
  double start = tp_wall_seconds();
  tpi_sttid_compressed cm;
  TP_TRY(tpi_sttid_compress(host, &cm));
  /* no more pivots than occupied rows or columns: the arrays need no more room, but the
   * stop stays the dense one's (an exhausted matrix, unless the limit itself is hit) */
  int64_t room = tp_min_i64(limit, tp_min_i64(cm.rows, cm.cols));
  tp_status st = tpi_prrlu_result_init(result, room);
  prrlu_run r;
  memset(&r, 0, sizeof r);
  r.space = space, r.rows_c = cm.rows, r.cols_c = cm.cols, r.observer = observer;
  tp_space_info info;
  if (st == TP_SUCCESS)
    st = tp_space_get_info(space, &info);
  if (st == TP_SUCCESS) {
    r.compute_units = info.compute_units > 0 ? info.compute_units : 1;
    r.is_gpu = info.is_gpu;
    r.no_recording = !tp_space_can_record(space);
    st = setup_run(&r, &cm, limit, room, opt);
  }
  int64_t syncs = 0;
  if (st == TP_SUCCESS)
    st = pivot_loop(&r, &syncs);
  if (st == TP_SUCCESS)
    st = collect(&r, &cm, result);
  run_release(&r);
  tpi_sttid_compressed_free(&cm);
  if (st != TP_SUCCESS) {
    tp_prrlu_result_free(result);
    return st;
  }
  result->host_syncs = syncs;
  result->seconds = tp_wall_seconds() - start;
  return TP_SUCCESS;
}
