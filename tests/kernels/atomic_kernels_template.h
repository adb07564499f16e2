/* The atomic test kernels of atomic_kernels.c for one type: the includer defines TPT_T
 * (the C type), TPT_SFX (its suffix: i32 i64 u32 u64 f32 f64) and TPT_INT (1 for the
 * integers, which have cas, load and store; 0 for the floats), and includes this file
 * once per type (it undefines all three at its end, and has no include guard).
 * generates: add_i32 add_i64 add_u32 add_u64 add_f32 add_f64 fetch_i32 fetch_i64 fetch_u32
 * fetch_u64 fetch_f32 fetch_f64 max_i32 max_i64 max_u32 max_u64 max_f32 max_f64 claim_i32
 * claim_i64 claim_u32 claim_u64 ldst_i32 ldst_i64 ldst_u32 ldst_u64 team_i32 team_i64
 * team_u32 team_u64 team_f32 team_f64 (the kernels, each with its args type NAME_args),
 * tpt_atomic_add_T, tpt_atomic_fetch_add_T and tpt_atomic_max_T for every T,
 * tpt_atomic_cas_claim_T and tpt_atomic_load_store_T for the integers, tpt_team_atomics_T,
 * team_slot_empty_T and team_claim_T for every T (T one of the suffixes above). */

#define ATOMIC_NAME(name) TP_PASTE(name, TPT_SFX) /* add_ -> add_i32 */
#define ATOMIC_ARGS(name) TP_PASTE3(name, TPT_SFX, _args)
#define ATOMIC_STR_(x) #x
#define ATOMIC_STR(x) ATOMIC_STR_(x)

/* ---- global scope: add, fetch_add, max ----------------------------------------------- */
typedef struct ATOMIC_ARGS(add_) {
  const int32_t *idx;
  const TPT_T *v;
  TPT_T *ctr;
} ATOMIC_ARGS(add_);

TP_RANGE_KERNEL(ATOMIC_NAME(add_), ATOMIC_ARGS(add_), i, a) {
  ATOMIC_NAME(tp_atomic_add_)(&a.ctr[a.idx[i]], a.v[i]);
}

tp_status ATOMIC_NAME(tpt_atomic_add_)(tp_space *space, const int32_t *idx, const TPT_T *v,
                                       int64_t n, int m, TPT_T *counters) {
  TP_TRY(check_counters(m));
  TP_CHECK_ARG(counters, "counters must not be NULL");
  TP_CHECK_ARG(n <= 0 || (idx && v), "idx and v must not be NULL");
  ATOMIC_ARGS(add_) a;
  a.idx = idx;
  a.v = v;
  a.ctr = counters;
  return TP_LAUNCHER(ATOMIC_NAME(add_))(space, n, a);
}

typedef struct ATOMIC_ARGS(fetch_) {
  const int32_t *idx;
  TPT_T step;
  TPT_T *ctr;
  TPT_T *tickets;
} ATOMIC_ARGS(fetch_);

TP_RANGE_KERNEL(ATOMIC_NAME(fetch_), ATOMIC_ARGS(fetch_), i, a) {
  a.tickets[i] = ATOMIC_NAME(tp_atomic_fetch_add_)(&a.ctr[a.idx[i]], a.step);
}

tp_status ATOMIC_NAME(tpt_atomic_fetch_add_)(tp_space *space, const int32_t *idx, int64_t n, int m,
                                             TPT_T step, TPT_T *counters, TPT_T *tickets) {
  TP_TRY(check_counters(m));
  TP_CHECK_ARG(counters, "counters must not be NULL");
  TP_CHECK_ARG(n <= 0 || (idx && tickets), "idx and tickets must not be NULL");
  ATOMIC_ARGS(fetch_) a;
  a.idx = idx;
  a.step = step;
  a.ctr = counters;
  a.tickets = tickets;
  return TP_LAUNCHER(ATOMIC_NAME(fetch_))(space, n, a);
}

typedef struct ATOMIC_ARGS(max_) {
  const int32_t *idx;
  const TPT_T *v;
  TPT_T *ctr;
  TPT_T *old;
} ATOMIC_ARGS(max_);

TP_RANGE_KERNEL(ATOMIC_NAME(max_), ATOMIC_ARGS(max_), i, a) {
  a.old[i] = ATOMIC_NAME(tp_atomic_max_)(&a.ctr[a.idx[i]], a.v[i]);
}

tp_status ATOMIC_NAME(tpt_atomic_max_)(tp_space *space, const int32_t *idx, const TPT_T *v,
                                       int64_t n, int m, TPT_T *counters, TPT_T *old) {
  TP_TRY(check_counters(m));
  TP_CHECK_ARG(counters, "counters must not be NULL");
  TP_CHECK_ARG(n <= 0 || (idx && v && old), "idx, v and old must not be NULL");
  ATOMIC_ARGS(max_) a;
  a.idx = idx;
  a.v = v;
  a.ctr = counters;
  a.old = old;
  return TP_LAUNCHER(ATOMIC_NAME(max_))(space, n, a);
}

#if TPT_INT
/* ---- global scope: compare-and-swap claims, load and store (integers) ------------------ */
typedef struct ATOMIC_ARGS(claim_) {
  int m;
  TPT_T id_base, id_stride;
  TPT_T *slots;
  int32_t *won;
  TPT_T *first_seen;
} ATOMIC_ARGS(claim_);

TP_RANGE_KERNEL(ATOMIC_NAME(claim_), ATOMIC_ARGS(claim_), i, a) {
  TPT_T id = (TPT_T)(a.id_base + (TPT_T)i * a.id_stride);
  int32_t won = a.m;
  TPT_T first = TPT_EMPTY(TPT_T);
  for (int k = 0; k < a.m; ++k) {
    TPT_T prev = ATOMIC_NAME(tp_atomic_cas_)(&a.slots[k], TPT_EMPTY(TPT_T), id);
    if (k == 0)
      first = prev;
    if (prev == TPT_EMPTY(TPT_T)) {
      won = k;
      break;
    }
  }
  a.won[i] = won;
  a.first_seen[i] = first;
}

tp_status ATOMIC_NAME(tpt_atomic_cas_claim_)(tp_space *space, int64_t n, int m, TPT_T id_base,
                                             TPT_T id_stride, TPT_T *slots, int32_t *won,
                                             TPT_T *first_seen) {
  TP_TRY(check_counters(m));
  TP_CHECK_ARG(slots, "slots must not be NULL");
  TP_CHECK_ARG(n <= 0 || (won && first_seen), "won and first_seen must not be NULL");
  ATOMIC_ARGS(claim_) a;
  a.m = m;
  a.id_base = id_base;
  a.id_stride = id_stride;
  a.slots = slots;
  a.won = won;
  a.first_seen = first_seen;
  return TP_LAUNCHER(ATOMIC_NAME(claim_))(space, n, a);
}

typedef struct ATOMIC_ARGS(ldst_) {
  const TPT_T *in;
  TPT_T *out;
} ATOMIC_ARGS(ldst_);

TP_RANGE_KERNEL(ATOMIC_NAME(ldst_), ATOMIC_ARGS(ldst_), i, a) {
  ATOMIC_NAME(tp_atomic_store_)(&a.out[i], ATOMIC_NAME(tp_atomic_load_)(&a.in[i]));
}

tp_status ATOMIC_NAME(tpt_atomic_load_store_)(tp_space *space, const TPT_T *in, int64_t n,
                                              TPT_T *out) {
  TP_CHECK_ARG(n <= 0 || (in && out), "in and out must not be NULL");
  ATOMIC_ARGS(ldst_) a;
  a.in = in;
  a.out = out;
  return TP_LAUNCHER(ATOMIC_NAME(ldst_))(space, n, a);
}
#endif

/* ---- team scope ------------------------------------------------------------------ */
/* The claim part of the team kernel: integers walk their team's slots with
 * tp_atomic_cas_T_team; floats (no cas) claim nothing. */
#if TPT_INT
TP_DEVICE TPT_T ATOMIC_NAME(team_slot_empty_)(void) { return TPT_EMPTY(TPT_T); }
TP_DEVICE int32_t ATOMIC_NAME(team_claim_)(TPT_T *slots, int m, TPT_T id) {
  for (int k = 0; k < m; ++k)
    if (TP_PASTE3(tp_atomic_cas_, TPT_SFX, _team)(&slots[k], TPT_EMPTY(TPT_T), id) ==
        TPT_EMPTY(TPT_T))
      return k;
  return m;
}
#else
TP_DEVICE TPT_T ATOMIC_NAME(team_slot_empty_)(void) { return (TPT_T)0; }
TP_DEVICE int32_t ATOMIC_NAME(team_claim_)(TPT_T *slots, int m, TPT_T id) {
  (void)slots, (void)id;
  return m;
}
#endif

typedef struct ATOMIC_ARGS(team_) {
  int64_t len;
  int m;
  const int32_t *idx;
  const TPT_T *v;
  TPT_T max_init;
  TPT_T *sums, *maxes, *counts, *tickets, *slots;
  int32_t *won;
} ATOMIC_ARGS(team_);

TP_TEAM_KERNEL(ATOMIC_NAME(team_), ATOMIC_ARGS(team_), team, a) {
  TPT_T *sum = (TPT_T *)team->scratch;
  TPT_T *mx = sum + a.m;
  TPT_T *ctr = mx + a.m;
  TPT_T *slot = ctr + a.m;
  int64_t l = team->league_rank;
  TP_TEAM_VECTOR_FOR(team, k, 0, a.m) {
    sum[k] = (TPT_T)0;
    mx[k] = a.max_init;
    ctr[k] = (TPT_T)0;
    slot[k] = ATOMIC_NAME(team_slot_empty_)();
  }
  tp_team_barrier(team);
  TP_TEAM_VECTOR_FOR(team, i, 0, a.len) {
    int64_t e = l * a.len + i;
    int c = a.idx[e];
    TPT_T v = a.v[e];
    TP_PASTE3(tp_atomic_add_, TPT_SFX, _team)(&sum[c], v);
    (void)TP_PASTE3(tp_atomic_max_, TPT_SFX, _team)(&mx[c], v);
    a.tickets[e] = TP_PASTE3(tp_atomic_fetch_add_, TPT_SFX, _team)(&ctr[c], (TPT_T)1);
    int32_t w = ATOMIC_NAME(team_claim_)(slot, a.m, (TPT_T)i);
    if (a.won)
      a.won[e] = w;
  }
  tp_team_barrier(team);
  TP_TEAM_VECTOR_FOR(team, k, 0, a.m) {
    int64_t o = l * a.m + k;
    a.sums[o] = sum[k];
    a.maxes[o] = mx[k];
    a.counts[o] = ctr[k];
    if (a.slots)
      a.slots[o] = slot[k];
  }
}

tp_status ATOMIC_NAME(tpt_team_atomics_)(tp_space *space, int team_size, int vector_length,
                                         int64_t league, int64_t len, int m, const int32_t *idx,
                                         const TPT_T *v, TPT_T max_init, TPT_T *sums, TPT_T *maxes,
                                         TPT_T *counts, TPT_T *tickets, TPT_T *slots, int32_t *won,
                                         tpt_shape *shape) {
  TP_TRY(check_counters(m));
  TP_CHECK_ARG(len >= 0, "team length %lld is negative", (long long)len);
  TP_CHECK_ARG(shape, "shape must not be NULL");
  TP_CHECK_ARG(league <= 0 || (sums && maxes && counts), "sums, maxes and counts must not be NULL");
  TP_CHECK_ARG(league <= 0 || len == 0 || (idx && v && tickets),
               "idx, v and tickets must not be NULL");
  tp_team_policy p =
      tp_team_policy_make(league, team_size, vector_length, (size_t)4 * m * sizeof(TPT_T));
  TP_TRY(tp_team_policy_check(space, &p, "team_" ATOMIC_STR(TPT_SFX)));
  tp_team_policy_fit(space, &p);
  shape->team_size = p.team_size;
  shape->vector_length = p.vector_length;
  ATOMIC_ARGS(team_) a;
  a.len = len;
  a.m = m;
  a.idx = idx;
  a.v = v;
  a.max_init = max_init;
  a.sums = sums;
  a.maxes = maxes;
  a.counts = counts;
  a.tickets = tickets;
  a.slots = slots;
  a.won = won;
  return TP_LAUNCHER(ATOMIC_NAME(team_))(space, p, a);
}

#undef ATOMIC_NAME
#undef ATOMIC_ARGS
#undef ATOMIC_STR_
#undef ATOMIC_STR
#undef TPT_T
#undef TPT_SFX
#undef TPT_INT
