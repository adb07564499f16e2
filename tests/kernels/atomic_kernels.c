#include "portable/tp_portable.h"
#include "tests/kernels/tpt_atomic_kernels.h"

/* All bits set: the EMPTY slot of the claim kernels (and what tpt_alloc_poisoned writes). */
#define TPT_EMPTY(T) ((T) ~(T)0)

static tp_status check_counters(int m) {
  TP_CHECK_ARG(m >= 1 && m <= TPT_ATOMIC_MAX_COUNTERS, "counter count %d is not in [1, %d]", m,
               TPT_ATOMIC_MAX_COUNTERS);
  return TP_SUCCESS;
}

/* ---- global scope: add, fetch_add, max for every type ------------------------------ */
#define TPT_ATOMIC_ANY(sfx, T)                                                                \
  typedef struct add_##sfx##_args {                                                           \
    const int32_t *idx;                                                                       \
    const T *v;                                                                               \
    T *ctr;                                                                                   \
  } add_##sfx##_args;                                                                         \
                                                                                              \
  TP_RANGE_KERNEL(add_##sfx, add_##sfx##_args, i, a) {                                        \
    tp_atomic_add_##sfx(&a.ctr[a.idx[i]], a.v[i]);                                            \
  }                                                                                           \
                                                                                              \
  tp_status tpt_atomic_add_##sfx(tp_space *space, const int32_t *idx, const T *v, int64_t n,  \
                                 int m, T *counters) {                                        \
    TP_TRY(check_counters(m));                                                                \
    TP_CHECK_ARG(counters, "counters must not be NULL");                                      \
    TP_CHECK_ARG(n <= 0 || (idx && v), "idx and v must not be NULL");                         \
    add_##sfx##_args a;                                                                       \
    a.idx = idx;                                                                              \
    a.v = v;                                                                                  \
    a.ctr = counters;                                                                         \
    return add_##sfx##_launch(space, n, a);                                                   \
  }                                                                                           \
                                                                                              \
  typedef struct fetch_##sfx##_args {                                                         \
    const int32_t *idx;                                                                       \
    T step;                                                                                   \
    T *ctr;                                                                                   \
    T *tickets;                                                                               \
  } fetch_##sfx##_args;                                                                       \
                                                                                              \
  TP_RANGE_KERNEL(fetch_##sfx, fetch_##sfx##_args, i, a) {                                    \
    a.tickets[i] = tp_atomic_fetch_add_##sfx(&a.ctr[a.idx[i]], a.step);                       \
  }                                                                                           \
                                                                                              \
  tp_status tpt_atomic_fetch_add_##sfx(tp_space *space, const int32_t *idx, int64_t n, int m, \
                                       T step, T *counters, T *tickets) {                     \
    TP_TRY(check_counters(m));                                                                \
    TP_CHECK_ARG(counters, "counters must not be NULL");                                      \
    TP_CHECK_ARG(n <= 0 || (idx && tickets), "idx and tickets must not be NULL");             \
    fetch_##sfx##_args a;                                                                     \
    a.idx = idx;                                                                              \
    a.step = step;                                                                            \
    a.ctr = counters;                                                                         \
    a.tickets = tickets;                                                                      \
    return fetch_##sfx##_launch(space, n, a);                                                 \
  }                                                                                           \
                                                                                              \
  typedef struct max_##sfx##_args {                                                           \
    const int32_t *idx;                                                                       \
    const T *v;                                                                               \
    T *ctr;                                                                                   \
    T *old;                                                                                   \
  } max_##sfx##_args;                                                                         \
                                                                                              \
  TP_RANGE_KERNEL(max_##sfx, max_##sfx##_args, i, a) {                                        \
    a.old[i] = tp_atomic_max_##sfx(&a.ctr[a.idx[i]], a.v[i]);                                 \
  }                                                                                           \
                                                                                              \
  tp_status tpt_atomic_max_##sfx(tp_space *space, const int32_t *idx, const T *v, int64_t n,  \
                                 int m, T *counters, T *old) {                                \
    TP_TRY(check_counters(m));                                                                \
    TP_CHECK_ARG(counters, "counters must not be NULL");                                      \
    TP_CHECK_ARG(n <= 0 || (idx && v && old), "idx, v and old must not be NULL");             \
    max_##sfx##_args a;                                                                       \
    a.idx = idx;                                                                              \
    a.v = v;                                                                                  \
    a.ctr = counters;                                                                         \
    a.old = old;                                                                              \
    return max_##sfx##_launch(space, n, a);                                                   \
  }

/* ---- global scope: compare-and-swap claims, load and store for the integers -------- */
#define TPT_ATOMIC_INT(sfx, T)                                                                    \
  TPT_ATOMIC_ANY(sfx, T)                                                                          \
                                                                                                  \
  typedef struct claim_##sfx##_args {                                                             \
    int m;                                                                                        \
    T id_base, id_stride;                                                                         \
    T *slots;                                                                                     \
    int32_t *won;                                                                                 \
    T *first_seen;                                                                                \
  } claim_##sfx##_args;                                                                           \
                                                                                                  \
  TP_RANGE_KERNEL(claim_##sfx, claim_##sfx##_args, i, a) {                                        \
    T id = (T)(a.id_base + (T)i * a.id_stride);                                                   \
    int32_t won = a.m;                                                                            \
    T first = TPT_EMPTY(T);                                                                       \
    for (int k = 0; k < a.m; ++k) {                                                               \
      T prev = tp_atomic_cas_##sfx(&a.slots[k], TPT_EMPTY(T), id);                                \
      if (k == 0)                                                                                 \
        first = prev;                                                                             \
      if (prev == TPT_EMPTY(T)) {                                                                 \
        won = k;                                                                                  \
        break;                                                                                    \
      }                                                                                           \
    }                                                                                             \
    a.won[i] = won;                                                                               \
    a.first_seen[i] = first;                                                                      \
  }                                                                                               \
                                                                                                  \
  tp_status tpt_atomic_cas_claim_##sfx(tp_space *space, int64_t n, int m, T id_base, T id_stride, \
                                       T *slots, int32_t *won, T *first_seen) {                   \
    TP_TRY(check_counters(m));                                                                    \
    TP_CHECK_ARG(slots, "slots must not be NULL");                                                \
    TP_CHECK_ARG(n <= 0 || (won && first_seen), "won and first_seen must not be NULL");           \
    claim_##sfx##_args a;                                                                         \
    a.m = m;                                                                                      \
    a.id_base = id_base;                                                                          \
    a.id_stride = id_stride;                                                                      \
    a.slots = slots;                                                                              \
    a.won = won;                                                                                  \
    a.first_seen = first_seen;                                                                    \
    return claim_##sfx##_launch(space, n, a);                                                     \
  }                                                                                               \
                                                                                                  \
  typedef struct ldst_##sfx##_args {                                                              \
    const T *in;                                                                                  \
    T *out;                                                                                       \
  } ldst_##sfx##_args;                                                                            \
                                                                                                  \
  TP_RANGE_KERNEL(ldst_##sfx, ldst_##sfx##_args, i, a) {                                          \
    tp_atomic_store_##sfx(&a.out[i], tp_atomic_load_##sfx(&a.in[i]));                             \
  }                                                                                               \
                                                                                                  \
  tp_status tpt_atomic_load_store_##sfx(tp_space *space, const T *in, int64_t n, T *out) {        \
    TP_CHECK_ARG(n <= 0 || (in && out), "in and out must not be NULL");                           \
    ldst_##sfx##_args a;                                                                          \
    a.in = in;                                                                                    \
    a.out = out;                                                                                  \
    return ldst_##sfx##_launch(space, n, a);                                                      \
  }

TPT_ATOMIC_INT(i32, int32_t)
TPT_ATOMIC_INT(i64, int64_t)
TPT_ATOMIC_INT(u32, uint32_t)
TPT_ATOMIC_INT(u64, uint64_t)
TPT_ATOMIC_ANY(f32, float)
TPT_ATOMIC_ANY(f64, double)

/* ---- team scope ------------------------------------------------------------------ */
/* The claim part of the team kernel: integers walk their team's slots with
 * tp_atomic_cas_T_team; floats (no cas) claim nothing. */
#define TPT_TEAM_CLAIM_INT(sfx, T)                                                 \
  TP_DEVICE T team_slot_empty_##sfx(void) { return TPT_EMPTY(T); }                 \
  TP_DEVICE int32_t team_claim_##sfx(T *slots, int m, T id) {                      \
    for (int k = 0; k < m; ++k)                                                    \
      if (tp_atomic_cas_##sfx##_team(&slots[k], TPT_EMPTY(T), id) == TPT_EMPTY(T)) \
        return k;                                                                  \
    return m;                                                                      \
  }
#define TPT_TEAM_CLAIM_NONE(sfx, T)                           \
  TP_DEVICE T team_slot_empty_##sfx(void) { return (T)0; }    \
  TP_DEVICE int32_t team_claim_##sfx(T *slots, int m, T id) { \
    (void)slots, (void)id;                                    \
    return m;                                                 \
  }

#define TPT_TEAM_ATOMIC(sfx, T, claim)                                                     \
  claim(sfx, T)                                                                            \
                                                                                           \
      typedef struct team_##sfx##_args {                                                   \
    int64_t len;                                                                           \
    int m;                                                                                 \
    const int32_t *idx;                                                                    \
    const T *v;                                                                            \
    T max_init;                                                                            \
    T *sums, *maxes, *counts, *tickets, *slots;                                            \
    int32_t *won;                                                                          \
  } team_##sfx##_args;                                                                     \
                                                                                           \
  TP_TEAM_KERNEL(team_##sfx, team_##sfx##_args, team, a) {                                 \
    T *sum = (T *)team->scratch;                                                           \
    T *mx = sum + a.m;                                                                     \
    T *ctr = mx + a.m;                                                                     \
    T *slot = ctr + a.m;                                                                   \
    int64_t l = team->league_rank;                                                         \
    TP_TEAM_VECTOR_FOR(team, k, 0, a.m) {                                                  \
      sum[k] = (T)0;                                                                       \
      mx[k] = a.max_init;                                                                  \
      ctr[k] = (T)0;                                                                       \
      slot[k] = team_slot_empty_##sfx();                                                   \
    }                                                                                      \
    tp_team_barrier(team);                                                                 \
    TP_TEAM_VECTOR_FOR(team, i, 0, a.len) {                                                \
      int64_t e = l * a.len + i;                                                           \
      int c = a.idx[e];                                                                    \
      T v = a.v[e];                                                                        \
      tp_atomic_add_##sfx##_team(&sum[c], v);                                              \
      (void)tp_atomic_max_##sfx##_team(&mx[c], v);                                         \
      a.tickets[e] = tp_atomic_fetch_add_##sfx##_team(&ctr[c], (T)1);                      \
      int32_t w = team_claim_##sfx(slot, a.m, (T)i);                                       \
      if (a.won)                                                                           \
        a.won[e] = w;                                                                      \
    }                                                                                      \
    tp_team_barrier(team);                                                                 \
    TP_TEAM_VECTOR_FOR(team, k, 0, a.m) {                                                  \
      int64_t o = l * a.m + k;                                                             \
      a.sums[o] = sum[k];                                                                  \
      a.maxes[o] = mx[k];                                                                  \
      a.counts[o] = ctr[k];                                                                \
      if (a.slots)                                                                         \
        a.slots[o] = slot[k];                                                              \
    }                                                                                      \
  }                                                                                        \
                                                                                           \
  tp_status tpt_team_atomics_##sfx(tp_space *space, int team_size, int vector_length,      \
                                   int64_t league, int64_t len, int m, const int32_t *idx, \
                                   const T *v, T max_init, T *sums, T *maxes, T *counts,   \
                                   T *tickets, T *slots, int32_t *won, tpt_shape *shape) { \
    TP_TRY(check_counters(m));                                                             \
    TP_CHECK_ARG(len >= 0, "team length %lld is negative", (long long)len);                \
    TP_CHECK_ARG(shape, "shape must not be NULL");                                         \
    TP_CHECK_ARG(league <= 0 || (sums && maxes && counts),                                 \
                 "sums, maxes and counts must not be NULL");                               \
    TP_CHECK_ARG(league <= 0 || len == 0 || (idx && v && tickets),                         \
                 "idx, v and tickets must not be NULL");                                   \
    tp_team_policy p =                                                                     \
        tp_team_policy_make(league, team_size, vector_length, (size_t)4 * m * sizeof(T));  \
    TP_TRY(tp_team_policy_check(space, &p, "team_" #sfx));                                 \
    tp_team_policy_fit(space, &p);                                                         \
    shape->team_size = p.team_size;                                                        \
    shape->vector_length = p.vector_length;                                                \
    team_##sfx##_args a;                                                                   \
    a.len = len;                                                                           \
    a.m = m;                                                                               \
    a.idx = idx;                                                                           \
    a.v = v;                                                                               \
    a.max_init = max_init;                                                                 \
    a.sums = sums;                                                                         \
    a.maxes = maxes;                                                                       \
    a.counts = counts;                                                                     \
    a.tickets = tickets;                                                                   \
    a.slots = slots;                                                                       \
    a.won = won;                                                                           \
    return team_##sfx##_launch(space, p, a);                                               \
  }

TPT_TEAM_ATOMIC(i32, int32_t, TPT_TEAM_CLAIM_INT)
TPT_TEAM_ATOMIC(i64, int64_t, TPT_TEAM_CLAIM_INT)
TPT_TEAM_ATOMIC(u32, uint32_t, TPT_TEAM_CLAIM_INT)
TPT_TEAM_ATOMIC(u64, uint64_t, TPT_TEAM_CLAIM_INT)
TPT_TEAM_ATOMIC(f32, float, TPT_TEAM_CLAIM_NONE)
TPT_TEAM_ATOMIC(f64, double, TPT_TEAM_CLAIM_NONE)
