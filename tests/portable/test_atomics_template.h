/* The tests of test_atomics.c for one type: the includer defines TPT_T (the C type) and
 * TPT_SFX (its suffix: i32 i64 u32 u64 f32 f64), and includes this file once per type (it
 * undefines both at its end, and has no include guard). The integers (HAS_CAS_T) also get
 * the cas and load/store tests. Each test uses the type's vocabulary from test_atomics.c
 * (FMT_T, PR_T, acc_T, add_value_T, ...) and its helpers (CHECK, SAME, sizes, ...).
 * generates: the tests add_i32_sums_exactly_under_contention add_i64_sums_exactly_under_contention
 * add_u32_sums_exactly_under_contention add_u64_sums_exactly_under_contention
 * add_f32_sums_exactly_under_contention add_f64_sums_exactly_under_contention
 * fetch_add_i32_tickets_are_a_permutation fetch_add_i64_tickets_are_a_permutation
 * fetch_add_u32_tickets_are_a_permutation fetch_add_u64_tickets_are_a_permutation
 * fetch_add_f32_tickets_are_a_permutation fetch_add_f64_tickets_are_a_permutation
 * cas_i32_claims_have_one_winner_per_slot cas_i64_claims_have_one_winner_per_slot
 * cas_u32_claims_have_one_winner_per_slot cas_u64_claims_have_one_winner_per_slot
 * max_i32_matches_reference max_i64_matches_reference max_u32_matches_reference
 * max_u64_matches_reference max_f32_matches_reference max_f64_matches_reference
 * load_store_i32_copies load_store_i64_copies load_store_u32_copies load_store_u64_copies
 * team_scope_i32_in_scratch_matches_reference team_scope_i64_in_scratch_matches_reference
 * team_scope_u32_in_scratch_matches_reference team_scope_u64_in_scratch_matches_reference
 * team_scope_f32_in_scratch_matches_reference team_scope_f64_in_scratch_matches_reference (of the
 * atomics suite), and the max tests' helpers raise_i32 raise_i64 raise_u32 raise_u64 raise_f32
 * raise_f64 raise_cmp_i32 raise_cmp_i64 raise_cmp_u32 raise_cmp_u64 raise_cmp_f32 raise_cmp_f64
 * on_chain_i32 on_chain_i64 on_chain_u32 on_chain_u64 on_chain_f32 on_chain_f64 */

#define AT_PASTE_(a, b) a##b
#define AT_PASTE(a, b) AT_PASTE_(a, b)
/* A word of the type's vocabulary: AT(add_value_) is add_value_i32 for TPT_SFX i32. */
#define AT(name) AT_PASTE(name, TPT_SFX)
/* A test's name: AT_TEST(add_, _sums) is add_i32_sums. */
#define AT_TEST(head, tail) AT_PASTE(AT(head), tail)
#define AT_FMT AT(FMT_) /* printf format */
#define AT_PR AT(PR_)   /* printf argument */
#define AT_ACC AT(acc_) /* the type references accumulate in */
#define AT_RAISE AT(raise_)
#define AT_HAS_CAS AT(HAS_CAS_)
/* TPT_OK on the expanded call: the message names tpt_atomic_add_i32, not the paste. */
#define AT_OK(expr) TPT_OK(expr)

/* ---- add ---------------------------------------------------------------------------- */
Test(atomics, AT_TEST(add_, _sums_exactly_under_contention)) {
  tpt_rng rng = tpt_rng_fresh();
  for (int s = 0; s < size_count; ++s)
    for (int q = 0; q < counter_count_count; ++q) {
      int64_t n = sizes[s];
      int m = counter_counts[q];
      if (skip_big(n, m))
        continue;
      TPT_T init[MAXC + 1], got[MAXC + 1];
      AT_ACC ref[MAXC + 1];
      for (int k = 0; k <= m; ++k) /* counter m is a guard no index reaches */
        init[k] = AT(add_init_)(&rng), ref[k] = (AT_ACC)init[k];
      int32_t *idx = random_indices(&rng, n, m);
      TPT_T *v = tpt_host_alloc(sizeof(TPT_T) * (size_t)n);
      for (int64_t i = 0; i < n; ++i) {
        v[i] = AT(add_value_)(&rng);
        ref[idx[i]] += (AT_ACC)v[i];
      }
      int32_t *didx = upload(idx, sizeof(int32_t) * (size_t)n);
      TPT_T *dv = upload(v, sizeof(TPT_T) * (size_t)n);
      TPT_T *ctr = tpt_to_space(init, sizeof(TPT_T) * (size_t)(m + 1));
      AT_OK(AT(tpt_atomic_add_)(tpt_space, didx, dv, n, m, ctr));
      tpt_to_host(got, ctr, sizeof(TPT_T) * (size_t)(m + 1));
      for (int k = 0; k < m; ++k)
        cr_assert((AT_ACC)got[k] == ref[k],
                  "n=%lld m=%d counter %d: got " AT_FMT " expected " AT_FMT, (long long)n, m, k,
                  AT_PR(got[k]), AT_PR(ref[k]));
      cr_assert(SAME(got[m], init[m]), "n=%lld m=%d: the guard counter changed", (long long)n, m);
      tpt_free(didx), tpt_free(dv), tpt_free(ctr);
      free(idx), free(v);
    }
}

/* ---- fetch_add: tickets --------------------------------------------------------------- */
Test(atomics, AT_TEST(fetch_add_, _tickets_are_a_permutation)) {
  tpt_rng rng = tpt_rng_fresh();
  for (int s = 0; s < size_count; ++s)
    for (int q = 0; q < counter_count_count; ++q)
      for (int st = 0; st < 2; ++st) {
        int64_t n = sizes[s];
        int m = counter_counts[q];
        TPT_T step = AT(steps_)[st];
        if (skip_big(n, m) || (st == 1 && n > 100000 && m > 1))
          continue; /* the second step only needs the big size once */
        TPT_T base[MAXC + 1], got[MAXC + 1];
        int64_t count[MAXC + 1] = {0}, offset[MAXC + 1];
        for (int k = 0; k <= m; ++k)
          base[k] = AT(ticket_base_)(&rng);
        int32_t *idx = random_indices(&rng, n, m);
        for (int64_t i = 0; i < n; ++i)
          count[idx[i]]++;
        offset[0] = 0;
        for (int k = 0; k < m; ++k)
          offset[k + 1] = offset[k] + count[k];
        int32_t *didx = upload(idx, sizeof(int32_t) * (size_t)n);
        TPT_T *ctr = tpt_to_space(base, sizeof(TPT_T) * (size_t)(m + 1));
        TPT_T *dt = poisoned(sizeof(TPT_T) * (size_t)n);
        AT_OK(AT(tpt_atomic_fetch_add_)(tpt_space, didx, n, m, step, ctr, dt));
        TPT_T *t = tpt_host_alloc(sizeof(TPT_T) * (size_t)n);
        tpt_to_host(t, dt, sizeof(TPT_T) * (size_t)n);
        tpt_to_host(got, ctr, sizeof(TPT_T) * (size_t)(m + 1));
        char *seen = calloc((size_t)n + 1, 1);
        cr_assert_not_null(seen);
        for (int64_t i = 0; i < n; ++i) {
          int c = idx[i];
          int64_t k = -1;
          int ok = AT(rank_)(t[i], base[c], step, &k);
          CHECK(ok && k >= 0 && k < count[c],
                "n=%lld m=%d step " AT_FMT ": iteration %lld got ticket " AT_FMT
                ", not base " AT_FMT " + k step with k < %lld",
                (long long)n, m, AT_PR(step), (long long)i, AT_PR(t[i]), AT_PR(base[c]),
                (long long)count[c]);
          CHECK(!seen[offset[c] + k],
                "n=%lld m=%d: ticket " AT_FMT " of counter %d handed out twice", (long long)n, m,
                AT_PR(t[i]), c);
          seen[offset[c] + k] = 1;
        }
        for (int k = 0; k < m; ++k) {
          TPT_T want = (TPT_T)(base[k] + (TPT_T)count[k] * step);
          cr_assert(got[k] == want, "n=%lld m=%d counter %d ends at " AT_FMT ", expected " AT_FMT,
                    (long long)n, m, k, AT_PR(got[k]), AT_PR(want));
        }
        cr_assert(SAME(got[m], base[m]), "the guard counter changed");
        tpt_free(didx), tpt_free(ctr), tpt_free(dt);
        free(idx), free(t), free(seen);
      }
}

#if AT_HAS_CAS
/* ---- compare-and-swap: claiming slots ------------------------------------------------ */
Test(atomics, AT_TEST(cas_, _claims_have_one_winner_per_slot)) {
  tpt_rng rng = tpt_rng_fresh();
  const TPT_T empty = (TPT_T) ~(TPT_T)0;
  for (int s = 0; s < size_count; ++s)
    for (int q = 0; q < counter_count_count; ++q) {
      int64_t n = sizes[s];
      int m = counter_counts[q];
      if (skip_big(n, m))
        continue;
      TPT_T base, stride, hs[MAXC + 1];
      AT(claim_ids_)(&rng, &base, &stride);
      TPT_T *slots = tpt_alloc_poisoned(sizeof(TPT_T) * (size_t)(m + 1)); /* all EMPTY */
      int32_t *dwon = poisoned(sizeof(int32_t) * (size_t)n);
      TPT_T *dfirst = poisoned(sizeof(TPT_T) * (size_t)n);
      AT_OK(AT(tpt_atomic_cas_claim_)(tpt_space, n, m, base, stride, slots, dwon, dfirst));
      int32_t *won = tpt_host_alloc(sizeof(int32_t) * (size_t)n);
      TPT_T *first = tpt_host_alloc(sizeof(TPT_T) * (size_t)n);
      tpt_to_host(won, dwon, sizeof(int32_t) * (size_t)n);
      tpt_to_host(first, dfirst, sizeof(TPT_T) * (size_t)n);
      tpt_to_host(hs, slots, sizeof(TPT_T) * (size_t)(m + 1));
      int64_t winners = n < m ? n : m, losers = 0, owner[MAXC];
      for (int k = 0; k < m; ++k)
        owner[k] = -1;
      for (int64_t i = 0; i < n; ++i) {
        CHECK(won[i] >= 0 && won[i] <= m, "n=%lld m=%d: contender %lld reports slot %d",
              (long long)n, m, (long long)i, won[i]);
        if (won[i] == m) {
          losers++;
        } else {
          int k = won[i];
          CHECK(owner[k] < 0, "n=%lld m=%d: slot %d won by contenders %lld and %lld", (long long)n,
                m, k, (long long)owner[k], (long long)i);
          owner[k] = i;
          TPT_T id = (TPT_T)(base + (TPT_T)i * stride);
          CHECK(hs[k] == id,
                "n=%lld m=%d: slot %d holds " AT_FMT ", its winner %lld has id " AT_FMT,
                (long long)n, m, k, AT_PR(hs[k]), (long long)i, AT_PR(id));
        }
        /* the cas on slot 0 returns EMPTY to its winner, the winner's id to the rest */
        TPT_T want = won[i] == 0 ? empty : hs[0];
        CHECK(first[i] == want,
              "n=%lld m=%d: contender %lld saw " AT_FMT " on slot 0, expected " AT_FMT,
              (long long)n, m, (long long)i, AT_PR(first[i]), AT_PR(want));
      }
      for (int k = 0; k < m; ++k) {
        if (k < winners) {
          int64_t c = contender_of((uint64_t)hs[k], (uint64_t)base, (uint64_t)stride, n);
          cr_assert(c >= 0 && owner[k] == c,
                    "n=%lld m=%d: slot %d holds " AT_FMT ", the id of no contender that won it",
                    (long long)n, m, k, AT_PR(hs[k]));
        } else {
          cr_assert(owner[k] < 0 && hs[k] == empty,
                    "n=%lld m=%d: slot %d taken with only %lld contenders", (long long)n, m, k,
                    (long long)n);
        }
      }
      cr_assert_eq(losers, n - winners, "n=%lld m=%d: %lld contenders won nothing", (long long)n, m,
                   (long long)losers);
      cr_assert(hs[m] == empty, "n=%lld m=%d: the guard slot changed", (long long)n, m);
      tpt_free(slots), tpt_free(dwon), tpt_free(dfirst);
      free(won), free(first);
    }
}
#endif

/* ---- max ------------------------------------------------------------------------------ */
/* Besides the final value, the values tp_atomic_max_T returned must tell a consistent
 * story: the calls that raised the counter (old < v) form one chain init = old_1 < v_1 =
 * old_2 < ... < v_last = final, and every other call returned a value on that chain. */
typedef struct AT_RAISE {
  int c;
  TPT_T old, v;
} AT_RAISE;

static int AT(raise_cmp_)(const void *pa, const void *pb) {
  const AT_RAISE *a = (const AT_RAISE *)pa, *b = (const AT_RAISE *)pb;
  if (a->c != b->c)
    return a->c < b->c ? -1 : 1;
  return (a->old > b->old) - (a->old < b->old);
}

/* Whether x is on the chain init, r[0].v, r[1].v, ... (increasing). */
static int AT(on_chain_)(TPT_T x, TPT_T init, const AT_RAISE *r, int64_t len) {
  if (SAME(x, init))
    return 1;
  int64_t lo = 0, hi = len;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (r[mid].v < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < len && r[lo].v == x;
}

Test(atomics, AT_TEST(max_, _matches_reference)) {
  tpt_rng rng = tpt_rng_fresh();
  for (int cs = 0; cs < AT(MAX_CASES_); ++cs)
    for (int s = 0; s < size_count; ++s)
      for (int q = 0; q < counter_count_count; ++q) {
        int64_t n = sizes[s];
        int m = counter_counts[q];
        if (skip_big(n, m) || (n > 100000 && cs != 0 && cs != 2))
          continue; /* the semantic cases need no million calls */
        TPT_T init[MAXC + 1], ref[MAXC + 1], got[MAXC + 1];
        for (int k = 0; k <= m; ++k)
          init[k] = ref[k] = AT(max_init_)(&rng, cs);
        int32_t *idx = random_indices(&rng, n, m);
        TPT_T *v = tpt_host_alloc(sizeof(TPT_T) * (size_t)n);
        for (int64_t i = 0; i < n; ++i) {
          v[i] = AT(max_value_)(&rng, cs);
          if (v[i] > ref[idx[i]])
            ref[idx[i]] = v[i];
        }
        int32_t *didx = upload(idx, sizeof(int32_t) * (size_t)n);
        TPT_T *dv = upload(v, sizeof(TPT_T) * (size_t)n);
        TPT_T *ctr = tpt_to_space(init, sizeof(TPT_T) * (size_t)(m + 1));
        TPT_T *dold = poisoned(sizeof(TPT_T) * (size_t)n);
        AT_OK(AT(tpt_atomic_max_)(tpt_space, didx, dv, n, m, ctr, dold));
        TPT_T *old = tpt_host_alloc(sizeof(TPT_T) * (size_t)n);
        tpt_to_host(old, dold, sizeof(TPT_T) * (size_t)n);
        tpt_to_host(got, ctr, sizeof(TPT_T) * (size_t)(m + 1));
        for (int k = 0; k < m; ++k)
          cr_assert(SAME(got[k], ref[k]),
                    "case %d n=%lld m=%d counter %d: max " AT_FMT ", expected " AT_FMT, cs,
                    (long long)n, m, k, AT_PR(got[k]), AT_PR(ref[k]));
        cr_assert(SAME(got[m], init[m]), "the guard counter changed");
        AT_RAISE *r = tpt_host_alloc(sizeof(AT_RAISE) * (size_t)n);
        int64_t nr = 0;
        for (int64_t i = 0; i < n; ++i)
          if (old[i] < v[i]) {
            r[nr].c = idx[i], r[nr].old = old[i], r[nr].v = v[i];
            nr++;
          }
        qsort(r, (size_t)nr, sizeof *r, AT(raise_cmp_));
        int64_t start[MAXC + 1];
        for (int k = 0, j = 0; k <= m; ++k) {
          while (j < nr && r[j].c < k)
            ++j;
          start[k] = j;
        }
        for (int k = 0; k < m; ++k) {
          TPT_T cur = init[k];
          for (int64_t j = start[k]; j < start[k + 1]; ++j) {
            cr_assert(SAME(r[j].old, cur),
                      "case %d n=%lld m=%d counter %d: a call "
                      "raised it from " AT_FMT ", which it never held (chain at " AT_FMT ")",
                      cs, (long long)n, m, k, AT_PR(r[j].old), AT_PR(cur));
            cur = r[j].v;
          }
          cr_assert(SAME(cur, got[k]),
                    "case %d n=%lld m=%d counter %d: the raises end "
                    "at " AT_FMT ", the counter at " AT_FMT,
                    cs, (long long)n, m, k, AT_PR(cur), AT_PR(got[k]));
        }
        for (int64_t i = 0; i < n; ++i) {
          int c = idx[i];
          CHECK(AT(on_chain_)(old[i], init[c], r + start[c], start[c + 1] - start[c]),
                "case %d n=%lld m=%d: call %lld returned " AT_FMT ", a value counter %d never held",
                cs, (long long)n, m, (long long)i, AT_PR(old[i]), c);
        }
        tpt_free(didx), tpt_free(dv), tpt_free(ctr), tpt_free(dold);
        free(idx), free(v), free(old), free(r);
      }
}

#if AT_HAS_CAS
/* ---- load and store --------------------------------------------------------------------- */
Test(atomics, AT_TEST(load_store_, _copies)) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t ns[] = {0, 1, 97, 4099, 65537};
  for (int s = 0; s < 5; ++s) {
    int64_t n = ns[s];
    TPT_T *x = tpt_host_alloc(sizeof(TPT_T) * (size_t)(n + 1));
    TPT_T *y = tpt_host_alloc(sizeof(TPT_T) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; ++i)
      x[i] = (TPT_T)tpt_next_u64(&rng);
    TPT_T *dx = upload(x, sizeof(TPT_T) * (size_t)n);
    TPT_T *dy = tpt_alloc_poisoned(sizeof(TPT_T) * (size_t)(n + 1));
    AT_OK(AT(tpt_atomic_load_store_)(tpt_space, dx, n, dy));
    tpt_to_host(y, dy, sizeof(TPT_T) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; ++i)
      CHECK(y[i] == x[i], "n=%lld i=%lld: " AT_FMT " vs " AT_FMT, (long long)n, (long long)i,
            AT_PR(y[i]), AT_PR(x[i]));
    cr_assert(y[n] == (TPT_T) ~(TPT_T)0, "n=%lld: wrote past the end", (long long)n);
    tpt_free(dx), tpt_free(dy);
    free(x), free(y);
  }
}
#endif

/* ---- team scope ------------------------------------------------------------------------ */
Test(atomics, AT_TEST(team_scope_, _in_scratch_matches_reference)) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t leagues[] = {1, 7, 61};
  const int64_t lens[] = {1, 31, 1000, 4099};
  const int ms[] = {1, 2, 3, 7, MAXC};
  const int has_cas = AT_HAS_CAS;
  const TPT_T empty = AT(EMPTY_);
  tp_space_info info;
  AT_OK(tp_space_get_info(tpt_space, &info));
  for (int sh = 0; sh < team_shape_count; ++sh) {
    if (!team_shape_allowed(team_shapes[sh][0], team_shapes[sh][1]))
      continue;
    for (int lg = 0; lg < 3; ++lg)
      for (int ln = 0; ln < 4; ++ln)
        for (int q = 0; q < 5; ++q) {
          int64_t league = leagues[lg], len = lens[ln], total = league * len;
          int m = ms[q], neg = (lg + ln + q) % 2;
          if (total > 100000 && m != 1 && m != MAXC)
            continue; /* the largest teams: most and least contended only */
          int32_t *idx = random_indices(&rng, total, m);
          TPT_T *v = tpt_host_alloc(sizeof(TPT_T) * (size_t)total);
          for (int64_t e = 0; e < total; ++e)
            v[e] = AT(team_value_)(&rng, neg);
          int32_t *didx = upload(idx, sizeof(int32_t) * (size_t)total);
          TPT_T *dv = upload(v, sizeof(TPT_T) * (size_t)total);
          size_t per_m = sizeof(TPT_T) * (size_t)(league * m);
          TPT_T *dsum = tpt_alloc_poisoned(per_m), *dmax = tpt_alloc_poisoned(per_m);
          TPT_T *dcnt = tpt_alloc_poisoned(per_m);
          TPT_T *dslot = has_cas ? tpt_alloc_poisoned(per_m) : NULL;
          TPT_T *dtk = tpt_alloc_poisoned(sizeof(TPT_T) * (size_t)total);
          int32_t *dwon = has_cas ? tpt_alloc_poisoned(sizeof(int32_t) * (size_t)total) : NULL;
          tpt_shape shape;
          AT_OK(AT(tpt_team_atomics_)(tpt_space, team_shapes[sh][0], team_shapes[sh][1], league,
                                      len, m, didx, dv, AT(team_lowest_), dsum, dmax, dcnt, dtk,
                                      dslot, dwon, &shape));
          TPT_T *sum = tpt_host_alloc(per_m), *mx = tpt_host_alloc(per_m);
          TPT_T *cnt = tpt_host_alloc(per_m), *slot = tpt_host_alloc(per_m);
          TPT_T *tk = tpt_host_alloc(sizeof(TPT_T) * (size_t)total);
          int32_t *won = tpt_host_alloc(sizeof(int32_t) * (size_t)total);
          tpt_to_host(sum, dsum, per_m);
          tpt_to_host(mx, dmax, per_m);
          tpt_to_host(cnt, dcnt, per_m);
          tpt_to_host(tk, dtk, sizeof(TPT_T) * (size_t)total);
          if (has_cas) {
            tpt_to_host(slot, dslot, per_m);
            tpt_to_host(won, dwon, sizeof(int32_t) * (size_t)total);
          }
          char *seen = tpt_host_alloc((size_t)len + 1);
          for (int64_t l = 0; l < league; ++l) {
            const int32_t *il = idx + l * len;
            const TPT_T *vl = v + l * len;
            AT_ACC rs[MAXC];
            TPT_T rm[MAXC];
            int64_t rc[MAXC], off[MAXC + 1], owner[MAXC];
            for (int k = 0; k < m; ++k)
              rs[k] = 0, rm[k] = AT(team_lowest_), rc[k] = 0, owner[k] = -1;
            for (int64_t i = 0; i < len; ++i) {
              rs[il[i]] += (AT_ACC)vl[i];
              if (vl[i] > rm[il[i]])
                rm[il[i]] = vl[i];
              rc[il[i]]++;
            }
            off[0] = 0;
            for (int k = 0; k < m; ++k) {
              off[k + 1] = off[k] + rc[k];
              TPT_T s_ = sum[l * m + k], x_ = mx[l * m + k], c_ = cnt[l * m + k];
              cr_assert((AT_ACC)s_ == rs[k] && x_ == rm[k] && c_ == (TPT_T)rc[k],
                        "shape %dx%d (ran %dx%d) league %lld len %lld m %d team %lld "
                        "counter %d: sum " AT_FMT " (expected " AT_FMT ") max " AT_FMT " (" AT_FMT
                        ") count " AT_FMT " (%lld)",
                        team_shapes[sh][0], team_shapes[sh][1], shape.team_size,
                        shape.vector_length, (long long)league, (long long)len, m, (long long)l, k,
                        AT_PR(s_), AT_PR(rs[k]), AT_PR(x_), AT_PR(rm[k]), AT_PR(c_),
                        (long long)rc[k]);
            }
            memset(seen, 0, (size_t)len + 1);
            for (int64_t i = 0; i < len; ++i) {
              int c = il[i];
              TPT_T t = tk[l * len + i];
              double td = (double)t; /* NaN or the all-ones poison: r = -1 */
              int64_t r = td >= 0 && td < (double)len ? (int64_t)t : -1;
              CHECK(t == (TPT_T)r && r >= 0 && r < rc[c] && !seen[off[c] + r],
                    "league %lld len %lld m %d team %lld element %lld: ticket " AT_FMT
                    " of counter %d (count %lld) bad or repeated",
                    (long long)league, (long long)len, m, (long long)l, (long long)i, AT_PR(t), c,
                    (long long)rc[c]);
              seen[off[c] + r] = 1;
            }
            if (!has_cas)
              continue;
            int64_t winners = len < m ? len : m, losers = 0;
            for (int64_t i = 0; i < len; ++i) {
              int w = won[l * len + i];
              CHECK(w >= 0 && w <= m, "team %lld element %lld claims slot %d", (long long)l,
                    (long long)i, w);
              if (w == m) {
                losers++;
                continue;
              }
              CHECK(owner[w] < 0, "team %lld: slot %d won twice", (long long)l, w);
              owner[w] = i;
              CHECK(slot[l * m + w] == (TPT_T)i,
                    "team %lld slot %d holds " AT_FMT ", its winner is %lld", (long long)l, w,
                    AT_PR(slot[l * m + w]), (long long)i);
            }
            cr_assert_eq(losers, len - winners, "team %lld: %lld lost, expected %lld", (long long)l,
                         (long long)losers, (long long)(len - winners));
            for (int k = (int)winners; k < m; ++k)
              cr_assert(slot[l * m + k] == empty, "team %lld: slot %d claimed", (long long)l, k);
          }
          tpt_free(didx), tpt_free(dv), tpt_free(dsum), tpt_free(dmax), tpt_free(dcnt);
          tpt_free(dslot), tpt_free(dtk), tpt_free(dwon);
          free(idx), free(v), free(sum), free(mx), free(cnt), free(slot), free(tk);
          free(won), free(seen);
        }
    if (!info.is_gpu)
      break; /* the CPU runs every shape as 1 x 1: one pass is enough */
  }
}

#undef AT_PASTE_
#undef AT_PASTE
#undef AT
#undef AT_TEST
#undef AT_FMT
#undef AT_PR
#undef AT_ACC
#undef AT_RAISE
#undef AT_HAS_CAS
#undef AT_OK
#undef TPT_T
#undef TPT_SFX
