/* Atomics under heavy contention: many iterations of a range kernel (or every thread and
 * lane of a team, in team scratch) hit 1, 2, 3 or 7 counters, against host references.
 * Sums use values that add exactly in any order (small multiples of 1/4 or 1/1024 for
 * floats), so every result is compared for equality. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tests/kernels/tpt_atomic_kernels.h"

TestSuite(atomics, .init = tpt_setup, .fini = tpt_teardown);

/* Asserts only when cond fails: cheap inside loops over a million elements. */
#define CHECK(cond, ...)            \
  do {                              \
    if (!(cond))                    \
      cr_assert(cond, __VA_ARGS__); \
  } while (0)

/* Equal, or both NaN. */
#define SAME(a, b) ((a) == (b) || ((a) != (a) && (b) != (b)))

static const int64_t sizes[] = {0, 1, 2, 3, 31, 97, 4099, 65537, 1000003};
static const int size_count = (int)(sizeof sizes / sizeof sizes[0]);
static const int counter_counts[] = {1, 2, 3, 7};
static const int counter_count_count = (int)(sizeof counter_counts / sizeof counter_counts[0]);
#define MAXC TPT_ATOMIC_MAX_COUNTERS

/* The million-call size runs on the most contended (1) and the widest (7) counter sets
 * only, to keep the suite fast. */
static int skip_big(int64_t n, int m) { return n > 100000 && m != 1 && m != 7; }

/* ---- per-type vocabulary ------------------------------------------------------------ */
/* Printing, and the type references accumulate in: wide enough that the signed sums
 * never overflow, modular for the unsigned types, exact doubles for the float sums. */
#define FMT_i32 "%lld"
#define FMT_i64 "%lld"
#define FMT_u32 "%llu"
#define FMT_u64 "%llu"
#define FMT_f32 "%.9g"
#define FMT_f64 "%.17g"
#define PR_i32(x) ((long long)(x))
#define PR_i64(x) ((long long)(x))
#define PR_u32(x) ((unsigned long long)(x))
#define PR_u64(x) ((unsigned long long)(x))
#define PR_f32(x) ((double)(x))
#define PR_f64(x) ((double)(x))
typedef int64_t acc_i32;
typedef int64_t acc_i64;
typedef uint32_t acc_u32;
typedef uint64_t acc_u64;
typedef double acc_f32;
typedef double acc_f64;

static int64_t pow2(int e) { return (int64_t)1 << e; }

/* Addends and initial counter values whose sums over a million terms stay exact. */
static int32_t add_value_i32(tpt_rng *r) { return (int32_t)tpt_int(r, -1000, 1000); }
static int64_t add_value_i64(tpt_rng *r) { return tpt_int(r, -pow2(40), pow2(40)); }
static uint32_t add_value_u32(tpt_rng *r) { return (uint32_t)tpt_next_u64(r); } /* wraps */
static uint64_t add_value_u64(tpt_rng *r) { return tpt_next_u64(r); }           /* wraps */
static float add_value_f32(tpt_rng *r) { return (float)tpt_int(r, -8, 8) * 0.25f; }
static double add_value_f64(tpt_rng *r) { return (double)tpt_int(r, -pow2(20), pow2(20)) / 1024; }
static int32_t add_init_i32(tpt_rng *r) { return (int32_t)tpt_int(r, -1000000, 1000000); }
static int64_t add_init_i64(tpt_rng *r) { return tpt_int(r, -pow2(50), pow2(50)); }
static uint32_t add_init_u32(tpt_rng *r) { return (uint32_t)tpt_next_u64(r); }
static uint64_t add_init_u64(tpt_rng *r) { return tpt_next_u64(r); }
static float add_init_f32(tpt_rng *r) { return (float)tpt_int(r, -64, 64) * 0.25f; }
static double add_init_f64(tpt_rng *r) { return (double)tpt_int(r, -pow2(30), pow2(30)) / 1024; }

static void *upload(const void *host, size_t bytes) {
  return bytes ? tpt_to_space(host, bytes) : NULL;
}
static void *poisoned(size_t bytes) { return bytes ? tpt_alloc_poisoned(bytes) : NULL; }

static int32_t *random_indices(tpt_rng *rng, int64_t n, int m) {
  int32_t *idx = tpt_host_alloc(sizeof(int32_t) * (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    idx[i] = (int32_t)tpt_int(rng, 0, m - 1);
  return idx;
}

/* ---- add ---------------------------------------------------------------------------- */
#define ADD_TEST(sfx, T)                                                                           \
  Test(atomics, add_##sfx##_sums_exactly_under_contention) {                                       \
    tpt_rng rng = tpt_rng_fresh();                                                                 \
    for (int s = 0; s < size_count; ++s)                                                           \
      for (int q = 0; q < counter_count_count; ++q) {                                              \
        int64_t n = sizes[s];                                                                      \
        int m = counter_counts[q];                                                                 \
        if (skip_big(n, m))                                                                        \
          continue;                                                                                \
        T init[MAXC + 1], got[MAXC + 1];                                                           \
        acc_##sfx ref[MAXC + 1];                                                                   \
        for (int k = 0; k <= m; ++k) /* counter m is a guard no index reaches */                   \
          init[k] = add_init_##sfx(&rng), ref[k] = (acc_##sfx)init[k];                             \
        int32_t *idx = random_indices(&rng, n, m);                                                 \
        T *v = tpt_host_alloc(sizeof(T) * (size_t)n);                                              \
        for (int64_t i = 0; i < n; ++i) {                                                          \
          v[i] = add_value_##sfx(&rng);                                                            \
          ref[idx[i]] += (acc_##sfx)v[i];                                                          \
        }                                                                                          \
        int32_t *didx = upload(idx, sizeof(int32_t) * (size_t)n);                                  \
        T *dv = upload(v, sizeof(T) * (size_t)n);                                                  \
        T *ctr = tpt_to_space(init, sizeof(T) * (size_t)(m + 1));                                  \
        TPT_OK(tpt_atomic_add_##sfx(tpt_space, didx, dv, n, m, ctr));                              \
        tpt_to_host(got, ctr, sizeof(T) * (size_t)(m + 1));                                        \
        for (int k = 0; k < m; ++k)                                                                \
          cr_assert((acc_##sfx)got[k] == ref[k],                                                   \
                    "n=%lld m=%d counter %d: got " FMT_##sfx " expected " FMT_##sfx, (long long)n, \
                    m, k, PR_##sfx(got[k]), PR_##sfx(ref[k]));                                     \
        cr_assert(SAME(got[m], init[m]), "n=%lld m=%d: the guard counter changed", (long long)n,   \
                  m);                                                                              \
        tpt_free(didx), tpt_free(dv), tpt_free(ctr);                                               \
        free(idx), free(v);                                                                        \
      }                                                                                            \
  }

ADD_TEST(i32, int32_t)
ADD_TEST(i64, int64_t)
ADD_TEST(u32, uint32_t)
ADD_TEST(u64, uint64_t)
ADD_TEST(f32, float)
ADD_TEST(f64, double)

/* ---- fetch_add: tickets --------------------------------------------------------------- */
/* Rank of ticket t among base, base + step, base + 2 step, ...: *k, or 0 if t is none of
 * them. Unsigned tickets wrap, so their rank is (t - base) times the inverse of the odd
 * step modulo 2^bits. */
static int rank_i32(int32_t t, int32_t base, int32_t step, int64_t *k) {
  int64_t d = (int64_t)t - base;
  *k = d / step;
  return d % step == 0;
}
static int rank_i64(int64_t t, int64_t base, int64_t step, int64_t *k) {
  int64_t d = t - base; /* no overflow: the tests keep base + n step in range */
  *k = d / step;
  return d % step == 0;
}
static uint64_t inverse_u64(uint64_t odd) {
  uint64_t x = odd; /* Newton: each step doubles the correct low bits */
  for (int i = 0; i < 6; ++i)
    x *= 2 - odd * x;
  return x;
}
static int rank_u32(uint32_t t, uint32_t base, uint32_t step, int64_t *k) {
  *k = (int64_t)(uint32_t)((uint32_t)(t - base) * (uint32_t)inverse_u64(step));
  return 1;
}
static int rank_u64(uint64_t t, uint64_t base, uint64_t step, int64_t *k) {
  uint64_t r = (t - base) * inverse_u64(step);
  *k = r > (uint64_t)INT64_MAX ? -1 : (int64_t)r;
  return 1;
}
static int rank_f64(double t, double base, double step, int64_t *k) {
  double r = (t - base) / step; /* exact: tickets, bases and steps are small dyadics */
  *k = fabs(r) < 1e15 ? (int64_t)r : -1;
  return r == floor(r);
}
static int rank_f32(float t, float base, float step, int64_t *k) {
  return rank_f64(t, base, step, k);
}

/* Bases and steps: large and negative bases, steps reaching the high bits, odd unsigned
 * steps (tickets wrap around), float steps whose tickets stay exact. */
static int32_t ticket_base_i32(tpt_rng *r) { return (int32_t)tpt_int(r, -1000000, 1000000); }
static int64_t ticket_base_i64(tpt_rng *r) { return tpt_int(r, -pow2(60), pow2(60)); }
static uint32_t ticket_base_u32(tpt_rng *r) { return (uint32_t)tpt_next_u64(r); }
static uint64_t ticket_base_u64(tpt_rng *r) { return tpt_next_u64(r); }
static float ticket_base_f32(tpt_rng *r) { return (float)tpt_int(r, -1000, 1000); }
static double ticket_base_f64(tpt_rng *r) { return (double)tpt_int(r, -pow2(40), pow2(40)) * 0.25; }
static const int32_t steps_i32[] = {1, 3};
static const int64_t steps_i64[] = {1, ((int64_t)1 << 33) + 1};
static const uint32_t steps_u32[] = {1, 0x10001u};
static const uint64_t steps_u64[] = {1, 0x9e3779b97f4a7c15ull};
static const float steps_f32[] = {1.0f, 0.5f};
static const double steps_f64[] = {1.0, 0.25};

#define FETCH_ADD_TEST(sfx, T)                                                             \
  Test(atomics, fetch_add_##sfx##_tickets_are_a_permutation) {                             \
    tpt_rng rng = tpt_rng_fresh();                                                         \
    for (int s = 0; s < size_count; ++s)                                                   \
      for (int q = 0; q < counter_count_count; ++q)                                        \
        for (int st = 0; st < 2; ++st) {                                                   \
          int64_t n = sizes[s];                                                            \
          int m = counter_counts[q];                                                       \
          T step = steps_##sfx[st];                                                        \
          if (skip_big(n, m) || (st == 1 && n > 100000 && m > 1))                          \
            continue; /* the second step only needs the big size once */                   \
          T base[MAXC + 1], got[MAXC + 1];                                                 \
          int64_t count[MAXC + 1] = {0}, offset[MAXC + 1];                                 \
          for (int k = 0; k <= m; ++k)                                                     \
            base[k] = ticket_base_##sfx(&rng);                                             \
          int32_t *idx = random_indices(&rng, n, m);                                       \
          for (int64_t i = 0; i < n; ++i)                                                  \
            count[idx[i]]++;                                                               \
          offset[0] = 0;                                                                   \
          for (int k = 0; k < m; ++k)                                                      \
            offset[k + 1] = offset[k] + count[k];                                          \
          int32_t *didx = upload(idx, sizeof(int32_t) * (size_t)n);                        \
          T *ctr = tpt_to_space(base, sizeof(T) * (size_t)(m + 1));                        \
          T *dt = poisoned(sizeof(T) * (size_t)n);                                         \
          TPT_OK(tpt_atomic_fetch_add_##sfx(tpt_space, didx, n, m, step, ctr, dt));        \
          T *t = tpt_host_alloc(sizeof(T) * (size_t)n);                                    \
          tpt_to_host(t, dt, sizeof(T) * (size_t)n);                                       \
          tpt_to_host(got, ctr, sizeof(T) * (size_t)(m + 1));                              \
          char *seen = calloc((size_t)n + 1, 1);                                           \
          cr_assert_not_null(seen);                                                        \
          for (int64_t i = 0; i < n; ++i) {                                                \
            int c = idx[i];                                                                \
            int64_t k = -1;                                                                \
            int ok = rank_##sfx(t[i], base[c], step, &k);                                  \
            CHECK(ok &&k >= 0 && k < count[c],                                             \
                  "n=%lld m=%d step " FMT_##sfx ": iteration %lld got ticket " FMT_##sfx   \
                  ", not base " FMT_##sfx " + k step with k < %lld",                       \
                  (long long)n, m, PR_##sfx(step), (long long)i, PR_##sfx(t[i]),           \
                  PR_##sfx(base[c]), (long long)count[c]);                                 \
            CHECK(!seen[offset[c] + k],                                                    \
                  "n=%lld m=%d: ticket " FMT_##sfx " of counter %d handed out twice",      \
                  (long long)n, m, PR_##sfx(t[i]), c);                                     \
            seen[offset[c] + k] = 1;                                                       \
          }                                                                                \
          for (int k = 0; k < m; ++k) {                                                    \
            T want = (T)(base[k] + (T)count[k] * step);                                    \
            cr_assert(got[k] == want,                                                      \
                      "n=%lld m=%d counter %d ends at " FMT_##sfx ", expected " FMT_##sfx, \
                      (long long)n, m, k, PR_##sfx(got[k]), PR_##sfx(want));               \
          }                                                                                \
          cr_assert(SAME(got[m], base[m]), "the guard counter changed");                   \
          tpt_free(didx), tpt_free(ctr), tpt_free(dt);                                     \
          free(idx), free(t), free(seen);                                                  \
        }                                                                                  \
  }

FETCH_ADD_TEST(i32, int32_t)
FETCH_ADD_TEST(i64, int64_t)
FETCH_ADD_TEST(u32, uint32_t)
FETCH_ADD_TEST(u64, uint64_t)
FETCH_ADD_TEST(f32, float)
FETCH_ADD_TEST(f64, double)

/* ---- compare-and-swap: claiming slots ------------------------------------------------ */
/* Contender ids base + i stride: distinct, never all bits set (EMPTY), reaching the high
 * bits and the negative range. */
static void claim_ids_i32(tpt_rng *r, int32_t *base, int32_t *stride) {
  int neg = (int)tpt_int(r, 0, 1);
  *base = neg ? (int32_t)(-8000000 - tpt_int(r, 0, 1000)) : (int32_t)tpt_int(r, 0, 1000);
  *stride = neg ? 3 : 7;
}
static void claim_ids_i64(tpt_rng *r, int64_t *base, int64_t *stride) {
  int neg = (int)tpt_int(r, 0, 1);
  *base = neg ? -pow2(62) : pow2(40) + tpt_int(r, 0, pow2(30));
  *stride = neg ? pow2(33) : pow2(32) + 3; /* negative ids are even: never -1 */
}
static void claim_ids_u32(tpt_rng *r, uint32_t *base, uint32_t *stride) {
  int high = (int)tpt_int(r, 0, 1);
  *base = high ? 0x80000000u + (uint32_t)tpt_int(r, 0, 1000) : 0;
  *stride = high ? 1 : 3;
}
static void claim_ids_u64(tpt_rng *r, uint64_t *base, uint64_t *stride) {
  *base = tpt_next_u64(r) >> 2;
  *stride = (tpt_next_u64(r) >> 24) | 1; /* base + n stride < 2^63 + 2^60 */
}

/* The contender whose id is id, or -1. */
static int64_t contender_of(uint64_t id, uint64_t base, uint64_t stride, int64_t n) {
  uint64_t d = id - base;
  if (d % stride != 0 || d / stride >= (uint64_t)n)
    return -1;
  return (int64_t)(d / stride);
}

#define CLAIM_TEST(sfx, T)                                                                        \
  Test(atomics, cas_##sfx##_claims_have_one_winner_per_slot) {                                    \
    tpt_rng rng = tpt_rng_fresh();                                                                \
    const T empty = (T) ~(T)0;                                                                    \
    for (int s = 0; s < size_count; ++s)                                                          \
      for (int q = 0; q < counter_count_count; ++q) {                                             \
        int64_t n = sizes[s];                                                                     \
        int m = counter_counts[q];                                                                \
        if (skip_big(n, m))                                                                       \
          continue;                                                                               \
        T base, stride, hs[MAXC + 1];                                                             \
        claim_ids_##sfx(&rng, &base, &stride);                                                    \
        T *slots = tpt_alloc_poisoned(sizeof(T) * (size_t)(m + 1)); /* all EMPTY */               \
        int32_t *dwon = poisoned(sizeof(int32_t) * (size_t)n);                                    \
        T *dfirst = poisoned(sizeof(T) * (size_t)n);                                              \
        TPT_OK(tpt_atomic_cas_claim_##sfx(tpt_space, n, m, base, stride, slots, dwon, dfirst));   \
        int32_t *won = tpt_host_alloc(sizeof(int32_t) * (size_t)n);                               \
        T *first = tpt_host_alloc(sizeof(T) * (size_t)n);                                         \
        tpt_to_host(won, dwon, sizeof(int32_t) * (size_t)n);                                      \
        tpt_to_host(first, dfirst, sizeof(T) * (size_t)n);                                        \
        tpt_to_host(hs, slots, sizeof(T) * (size_t)(m + 1));                                      \
        int64_t winners = n < m ? n : m, losers = 0, owner[MAXC];                                 \
        for (int k = 0; k < m; ++k)                                                               \
          owner[k] = -1;                                                                          \
        for (int64_t i = 0; i < n; ++i) {                                                         \
          CHECK(won[i] >= 0 && won[i] <= m, "n=%lld m=%d: contender %lld reports slot %d",        \
                (long long)n, m, (long long)i, won[i]);                                           \
          if (won[i] == m) {                                                                      \
            losers++;                                                                             \
          } else {                                                                                \
            int k = won[i];                                                                       \
            CHECK(owner[k] < 0, "n=%lld m=%d: slot %d won by contenders %lld and %lld",           \
                  (long long)n, m, k, (long long)owner[k], (long long)i);                         \
            owner[k] = i;                                                                         \
            T id = (T)(base + (T)i * stride);                                                     \
            CHECK(hs[k] == id,                                                                    \
                  "n=%lld m=%d: slot %d holds " FMT_##sfx ", its winner %lld has id " FMT_##sfx,  \
                  (long long)n, m, k, PR_##sfx(hs[k]), (long long)i, PR_##sfx(id));               \
          }                                                                                       \
          /* the cas on slot 0 returns EMPTY to its winner, the winner's id to the rest */        \
          T want = won[i] == 0 ? empty : hs[0];                                                   \
          CHECK(first[i] == want,                                                                 \
                "n=%lld m=%d: contender %lld saw " FMT_##sfx " on slot 0, expected " FMT_##sfx,   \
                (long long)n, m, (long long)i, PR_##sfx(first[i]), PR_##sfx(want));               \
        }                                                                                         \
        for (int k = 0; k < m; ++k) {                                                             \
          if (k < winners) {                                                                      \
            int64_t c = contender_of((uint64_t)hs[k], (uint64_t)base, (uint64_t)stride, n);       \
            cr_assert(c >= 0 && owner[k] == c,                                                    \
                      "n=%lld m=%d: slot %d holds " FMT_##sfx                                     \
                      ", the id of no contender that won it",                                     \
                      (long long)n, m, k, PR_##sfx(hs[k]));                                       \
          } else {                                                                                \
            cr_assert(owner[k] < 0 && hs[k] == empty,                                             \
                      "n=%lld m=%d: slot %d taken with only %lld contenders", (long long)n, m, k, \
                      (long long)n);                                                              \
          }                                                                                       \
        }                                                                                         \
        cr_assert_eq(losers, n - winners, "n=%lld m=%d: %lld contenders won nothing",             \
                     (long long)n, m, (long long)losers);                                         \
        cr_assert(hs[m] == empty, "n=%lld m=%d: the guard slot changed", (long long)n, m);        \
        tpt_free(slots), tpt_free(dwon), tpt_free(dfirst);                                        \
        free(won), free(first);                                                                   \
      }                                                                                           \
  }

CLAIM_TEST(i32, int32_t)
CLAIM_TEST(i64, int64_t)
CLAIM_TEST(u32, uint32_t)
CLAIM_TEST(u64, uint64_t)

/* ---- max ------------------------------------------------------------------------------ */
/* Cases: 0 mixed values from the lowest value; 1 mixed values from a random start (many
 * calls never raise); 2 negative values only (integers: the top bit set, which breaks a
 * max that compares unsigned as signed or floats as integers); floats also 3 with one
 * value in ten NaN (never stored) and 4 from a NaN counter (stays NaN: v > NaN is false,
 * the semantics tp_gpu.h documents and tp_host.h implements alike). */
static int32_t max_value_i32(tpt_rng *r, int c) {
  return (int32_t)(c == 2 ? tpt_int(r, INT32_MIN, -1) : tpt_int(r, INT32_MIN, INT32_MAX));
}
static int64_t max_value_i64(tpt_rng *r, int c) {
  uint64_t x = tpt_next_u64(r);
  return (int64_t)(c == 2 ? x | ((uint64_t)1 << 63) : x);
}
static uint32_t max_value_u32(tpt_rng *r, int c) {
  uint32_t x = (uint32_t)tpt_next_u64(r);
  return c == 2 ? x | 0x80000000u : x;
}
static uint64_t max_value_u64(tpt_rng *r, int c) {
  uint64_t x = tpt_next_u64(r);
  return c == 2 ? x | ((uint64_t)1 << 63) : x;
}
static double max_value_float(tpt_rng *r, int c) {
  if (c == 2)
    return -tpt_uniform(r, 1e-3, 1e6);
  if (c == 3 && tpt_int(r, 0, 9) == 0)
    return NAN;
  return tpt_uniform(r, -1000, 1000);
}
static float max_value_f32(tpt_rng *r, int c) { return (float)max_value_float(r, c); }
static double max_value_f64(tpt_rng *r, int c) { return max_value_float(r, c); }
static int32_t max_init_i32(tpt_rng *r, int c) { return c == 1 ? max_value_i32(r, 0) : INT32_MIN; }
static int64_t max_init_i64(tpt_rng *r, int c) { return c == 1 ? max_value_i64(r, 0) : INT64_MIN; }
static uint32_t max_init_u32(tpt_rng *r, int c) { return c == 1 ? max_value_u32(r, 0) : 0; }
static uint64_t max_init_u64(tpt_rng *r, int c) { return c == 1 ? max_value_u64(r, 0) : 0; }
static float max_init_f32(tpt_rng *r, int c) {
  return c == 1 ? max_value_f32(r, 0) : c == 4 ? NAN : -INFINITY;
}
static double max_init_f64(tpt_rng *r, int c) {
  return c == 1 ? max_value_f64(r, 0) : c == 4 ? NAN : -INFINITY;
}
#define MAX_CASES_i32 3
#define MAX_CASES_i64 3
#define MAX_CASES_u32 3
#define MAX_CASES_u64 3
#define MAX_CASES_f32 5
#define MAX_CASES_f64 5

/* Besides the final value, the values tp_atomic_max_T returned must tell a consistent
 * story: the calls that raised the counter (old < v) form one chain init = old_1 < v_1 =
 * old_2 < ... < v_last = final, and every other call returned a value on that chain. */
#define MAX_TEST(sfx, T)                                                                         \
  typedef struct raise_##sfx {                                                                   \
    int c;                                                                                       \
    T old, v;                                                                                    \
  } raise_##sfx;                                                                                 \
  static int raise_cmp_##sfx(const void *pa, const void *pb) {                                   \
    const raise_##sfx *a = (const raise_##sfx *)pa, *b = (const raise_##sfx *)pb;                \
    if (a->c != b->c)                                                                            \
      return a->c < b->c ? -1 : 1;                                                               \
    return (a->old > b->old) - (a->old < b->old);                                                \
  }                                                                                              \
  /* Whether x is on the chain init, r[0].v, r[1].v, ... (increasing). */                        \
  static int on_chain_##sfx(T x, T init, const raise_##sfx *r, int64_t len) {                    \
    if (SAME(x, init))                                                                           \
      return 1;                                                                                  \
    int64_t lo = 0, hi = len;                                                                    \
    while (lo < hi) {                                                                            \
      int64_t mid = (lo + hi) / 2;                                                               \
      if (r[mid].v < x)                                                                          \
        lo = mid + 1;                                                                            \
      else                                                                                       \
        hi = mid;                                                                                \
    }                                                                                            \
    return lo < len && r[lo].v == x;                                                             \
  }                                                                                              \
  Test(atomics, max_##sfx##_matches_reference) {                                                 \
    tpt_rng rng = tpt_rng_fresh();                                                               \
    for (int cs = 0; cs < MAX_CASES_##sfx; ++cs)                                                 \
      for (int s = 0; s < size_count; ++s)                                                       \
        for (int q = 0; q < counter_count_count; ++q) {                                          \
          int64_t n = sizes[s];                                                                  \
          int m = counter_counts[q];                                                             \
          if (skip_big(n, m) || (n > 100000 && cs != 0 && cs != 2))                              \
            continue; /* the semantic cases need no million calls */                             \
          T init[MAXC + 1], ref[MAXC + 1], got[MAXC + 1];                                        \
          for (int k = 0; k <= m; ++k)                                                           \
            init[k] = ref[k] = max_init_##sfx(&rng, cs);                                         \
          int32_t *idx = random_indices(&rng, n, m);                                             \
          T *v = tpt_host_alloc(sizeof(T) * (size_t)n);                                          \
          for (int64_t i = 0; i < n; ++i) {                                                      \
            v[i] = max_value_##sfx(&rng, cs);                                                    \
            if (v[i] > ref[idx[i]])                                                              \
              ref[idx[i]] = v[i];                                                                \
          }                                                                                      \
          int32_t *didx = upload(idx, sizeof(int32_t) * (size_t)n);                              \
          T *dv = upload(v, sizeof(T) * (size_t)n);                                              \
          T *ctr = tpt_to_space(init, sizeof(T) * (size_t)(m + 1));                              \
          T *dold = poisoned(sizeof(T) * (size_t)n);                                             \
          TPT_OK(tpt_atomic_max_##sfx(tpt_space, didx, dv, n, m, ctr, dold));                    \
          T *old = tpt_host_alloc(sizeof(T) * (size_t)n);                                        \
          tpt_to_host(old, dold, sizeof(T) * (size_t)n);                                         \
          tpt_to_host(got, ctr, sizeof(T) * (size_t)(m + 1));                                    \
          for (int k = 0; k < m; ++k)                                                            \
            cr_assert(SAME(got[k], ref[k]),                                                      \
                      "case %d n=%lld m=%d counter %d: max " FMT_##sfx ", expected " FMT_##sfx,  \
                      cs, (long long)n, m, k, PR_##sfx(got[k]), PR_##sfx(ref[k]));               \
          cr_assert(SAME(got[m], init[m]), "the guard counter changed");                         \
          raise_##sfx *r = tpt_host_alloc(sizeof(raise_##sfx) * (size_t)n);                      \
          int64_t nr = 0;                                                                        \
          for (int64_t i = 0; i < n; ++i)                                                        \
            if (old[i] < v[i]) {                                                                 \
              r[nr].c = idx[i], r[nr].old = old[i], r[nr].v = v[i];                              \
              nr++;                                                                              \
            }                                                                                    \
          qsort(r, (size_t)nr, sizeof *r, raise_cmp_##sfx);                                      \
          int64_t start[MAXC + 1];                                                               \
          for (int k = 0, j = 0; k <= m; ++k) {                                                  \
            while (j < nr && r[j].c < k)                                                         \
              ++j;                                                                               \
            start[k] = j;                                                                        \
          }                                                                                      \
          for (int k = 0; k < m; ++k) {                                                          \
            T cur = init[k];                                                                     \
            for (int64_t j = start[k]; j < start[k + 1]; ++j) {                                  \
              cr_assert(SAME(r[j].old, cur),                                                     \
                        "case %d n=%lld m=%d counter %d: a call "                                \
                        "raised it from " FMT_##sfx ", which it never held (chain at " FMT_##sfx \
                        ")",                                                                     \
                        cs, (long long)n, m, k, PR_##sfx(r[j].old), PR_##sfx(cur));              \
              cur = r[j].v;                                                                      \
            }                                                                                    \
            cr_assert(SAME(cur, got[k]),                                                         \
                      "case %d n=%lld m=%d counter %d: the raises end "                          \
                      "at " FMT_##sfx ", the counter at " FMT_##sfx,                             \
                      cs, (long long)n, m, k, PR_##sfx(cur), PR_##sfx(got[k]));                  \
          }                                                                                      \
          for (int64_t i = 0; i < n; ++i) {                                                      \
            int c = idx[i];                                                                      \
            CHECK(on_chain_##sfx(old[i], init[c], r + start[c], start[c + 1] - start[c]),        \
                  "case %d n=%lld m=%d: call %lld returned " FMT_##sfx                           \
                  ", a value counter %d never held",                                             \
                  cs, (long long)n, m, (long long)i, PR_##sfx(old[i]), c);                       \
          }                                                                                      \
          tpt_free(didx), tpt_free(dv), tpt_free(ctr), tpt_free(dold);                           \
          free(idx), free(v), free(old), free(r);                                                \
        }                                                                                        \
  }

MAX_TEST(i32, int32_t)
MAX_TEST(i64, int64_t)
MAX_TEST(u32, uint32_t)
MAX_TEST(u64, uint64_t)
MAX_TEST(f32, float)
MAX_TEST(f64, double)

Test(atomics, float_max_never_stores_nan_and_keeps_a_stored_nan) {
  /* The documented semantics, in isolation: v > *p decides, so NaN never goes in, a NaN
   * already there never comes out, and -0.0 does not replace +0.0 (nor the reverse). */
  const double vals[] = {NAN, 1.5, NAN, -2.0, INFINITY, NAN};
  const int nv = (int)(sizeof vals / sizeof vals[0]);
  int32_t idx[6] = {0, 0, 0, 0, 0, 0};
  double init[3] = {-INFINITY, NAN, -1.0}, want[3] = {INFINITY, NAN, INFINITY};
  float initf[3] = {-INFINITY, NAN, -1.0f}, valsf[6];
  for (int i = 0; i < nv; ++i)
    valsf[i] = (float)vals[i];
  int32_t *didx = tpt_to_space(idx, sizeof idx);
  for (int c = 0; c < 3; ++c) {
    double got, *ctr = tpt_to_space(&init[c], sizeof(double));
    double *dv = tpt_to_space(vals, sizeof vals), *dold = tpt_alloc_poisoned(sizeof vals);
    float gotf, *ctrf = tpt_to_space(&initf[c], sizeof(float));
    float *dvf = tpt_to_space(valsf, sizeof valsf), *doldf = tpt_alloc_poisoned(sizeof valsf);
    for (int i = 0; i < nv; ++i) { /* one call at a time: a known order */
      TPT_OK(tpt_atomic_max_f64(tpt_space, didx, dv + i, 1, 1, ctr, dold + i));
      TPT_OK(tpt_atomic_max_f32(tpt_space, didx, dvf + i, 1, 1, ctrf, doldf + i));
    }
    double old[6];
    float oldf[6];
    tpt_to_host(&got, ctr, sizeof got);
    tpt_to_host(&gotf, ctrf, sizeof gotf);
    tpt_to_host(old, dold, sizeof old);
    tpt_to_host(oldf, doldf, sizeof oldf);
    cr_assert(SAME(got, want[c]), "f64 from %g: %g, expected %g", init[c], got, want[c]);
    cr_assert(SAME(gotf, (float)want[c]), "f32 from %g: %g, expected %g", init[c], gotf, want[c]);
    double cur = init[c]; /* each call returns the value it found */
    for (int i = 0; i < nv; ++i) {
      cr_assert(SAME(old[i], cur) && SAME(oldf[i], (float)cur),
                "from %g, call %d (v=%g) returned %g / %g, expected %g", init[c], i, vals[i],
                old[i], (double)oldf[i], cur);
      if (vals[i] > cur)
        cur = vals[i];
    }
    tpt_free(ctr), tpt_free(dv), tpt_free(dold), tpt_free(ctrf), tpt_free(dvf), tpt_free(doldf);
  }
  /* signed zeros: whichever zero is stored first stays */
  const double zinit[2] = {0.0, -0.0}, zval[2] = {-0.0, 0.0};
  for (int c = 0; c < 2; ++c) {
    double got, *ctr = tpt_to_space(&zinit[c], sizeof(double));
    double *dv = tpt_to_space(&zval[c], sizeof(double));
    double *dold = tpt_alloc_poisoned(sizeof(double));
    TPT_OK(tpt_atomic_max_f64(tpt_space, didx, dv, 1, 1, ctr, dold));
    tpt_to_host(&got, ctr, sizeof got);
    cr_assert(got == 0.0 && signbit(got) == signbit(zinit[c]), "max(%g, %g) stored %g", zinit[c],
              zval[c], got);
    tpt_free(ctr), tpt_free(dv), tpt_free(dold);
  }
  tpt_free(didx);
}

/* ---- load and store --------------------------------------------------------------------- */
#define LOAD_STORE_TEST(sfx, T)                                                         \
  Test(atomics, load_store_##sfx##_copies) {                                            \
    tpt_rng rng = tpt_rng_fresh();                                                      \
    const int64_t ns[] = {0, 1, 97, 4099, 65537};                                       \
    for (int s = 0; s < 5; ++s) {                                                       \
      int64_t n = ns[s];                                                                \
      T *x = tpt_host_alloc(sizeof(T) * (size_t)(n + 1));                               \
      T *y = tpt_host_alloc(sizeof(T) * (size_t)(n + 1));                               \
      for (int64_t i = 0; i < n; ++i)                                                   \
        x[i] = (T)tpt_next_u64(&rng);                                                   \
      T *dx = upload(x, sizeof(T) * (size_t)n);                                         \
      T *dy = tpt_alloc_poisoned(sizeof(T) * (size_t)(n + 1));                          \
      TPT_OK(tpt_atomic_load_store_##sfx(tpt_space, dx, n, dy));                        \
      tpt_to_host(y, dy, sizeof(T) * (size_t)(n + 1));                                  \
      for (int64_t i = 0; i < n; ++i)                                                   \
        CHECK(y[i] == x[i], "n=%lld i=%lld: " FMT_##sfx " vs " FMT_##sfx, (long long)n, \
              (long long)i, PR_##sfx(y[i]), PR_##sfx(x[i]));                            \
      cr_assert(y[n] == (T) ~(T)0, "n=%lld: wrote past the end", (long long)n);         \
      tpt_free(dx), tpt_free(dy);                                                       \
      free(x), free(y);                                                                 \
    }                                                                                   \
  }

LOAD_STORE_TEST(i32, int32_t)
LOAD_STORE_TEST(i64, int64_t)
LOAD_STORE_TEST(u32, uint32_t)
LOAD_STORE_TEST(u64, uint64_t)

/* ---- team scope ------------------------------------------------------------------------ */
static const int team_shapes[][2] = {{1, 1}, {4, 8}, {8, 32}, {32, 1}, {3, 4}, {2, 64}, {1, 32}};
static const int team_shape_count = (int)(sizeof team_shapes / sizeof team_shapes[0]);

static int team_shape_allowed(int team, int vector) {
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  return !info.is_gpu ||
         (vector <= info.max_vector_length && team * vector <= info.max_team_threads);
}

/* Team values: the addends of the global tests, or (neg) negative ones only (unsigned:
 * the top bit set), so that the max starts from the lowest value and must find them. */
static int32_t team_value_i32(tpt_rng *r, int neg) {
  return neg ? (int32_t)tpt_int(r, -1000, -1) : add_value_i32(r);
}
static int64_t team_value_i64(tpt_rng *r, int neg) {
  return neg ? tpt_int(r, -pow2(40), -1) : add_value_i64(r);
}
static uint32_t team_value_u32(tpt_rng *r, int neg) {
  return add_value_u32(r) | (neg ? 0x80000000u : 0);
}
static uint64_t team_value_u64(tpt_rng *r, int neg) {
  return add_value_u64(r) | (neg ? (uint64_t)1 << 63 : 0);
}
static float team_value_f32(tpt_rng *r, int neg) {
  return neg ? (float)tpt_int(r, -8, -1) * 0.25f : add_value_f32(r);
}
static double team_value_f64(tpt_rng *r, int neg) {
  return neg ? (double)tpt_int(r, -pow2(20), -1) / 1024 : add_value_f64(r);
}
static const int32_t team_lowest_i32 = INT32_MIN;
static const int64_t team_lowest_i64 = INT64_MIN;
static const uint32_t team_lowest_u32 = 0;
static const uint64_t team_lowest_u64 = 0;
static const float team_lowest_f32 = -INFINITY;
static const double team_lowest_f64 = -INFINITY;
#define HAS_CAS_i32 1
#define HAS_CAS_i64 1
#define HAS_CAS_u32 1
#define HAS_CAS_u64 1
#define HAS_CAS_f32 0
#define HAS_CAS_f64 0
#define EMPTY_i32 ((int32_t)-1)
#define EMPTY_i64 ((int64_t)-1)
#define EMPTY_u32 UINT32_MAX
#define EMPTY_u64 UINT64_MAX
#define EMPTY_f32 0.0f /* no cas on floats */
#define EMPTY_f64 0.0

#define TEAM_TEST(sfx, T)                                                                          \
  Test(atomics, team_scope_##sfx##_in_scratch_matches_reference) {                                 \
    tpt_rng rng = tpt_rng_fresh();                                                                 \
    const int64_t leagues[] = {1, 7, 61};                                                          \
    const int64_t lens[] = {1, 31, 1000, 4099};                                                    \
    const int ms[] = {1, 2, 3, 7, MAXC};                                                           \
    const int has_cas = HAS_CAS_##sfx;                                                             \
    const T empty = EMPTY_##sfx;                                                                   \
    tp_space_info info;                                                                            \
    TPT_OK(tp_space_get_info(tpt_space, &info));                                                   \
    for (int sh = 0; sh < team_shape_count; ++sh) {                                                \
      if (!team_shape_allowed(team_shapes[sh][0], team_shapes[sh][1]))                             \
        continue;                                                                                  \
      for (int lg = 0; lg < 3; ++lg)                                                               \
        for (int ln = 0; ln < 4; ++ln)                                                             \
          for (int q = 0; q < 5; ++q) {                                                            \
            int64_t league = leagues[lg], len = lens[ln], total = league * len;                    \
            int m = ms[q], neg = (lg + ln + q) % 2;                                                \
            if (total > 100000 && m != 1 && m != MAXC)                                             \
              continue; /* the largest teams: most and least contended only */                     \
            int32_t *idx = random_indices(&rng, total, m);                                         \
            T *v = tpt_host_alloc(sizeof(T) * (size_t)total);                                      \
            for (int64_t e = 0; e < total; ++e)                                                    \
              v[e] = team_value_##sfx(&rng, neg);                                                  \
            int32_t *didx = upload(idx, sizeof(int32_t) * (size_t)total);                          \
            T *dv = upload(v, sizeof(T) * (size_t)total);                                          \
            size_t per_m = sizeof(T) * (size_t)(league * m);                                       \
            T *dsum = tpt_alloc_poisoned(per_m), *dmax = tpt_alloc_poisoned(per_m);                \
            T *dcnt = tpt_alloc_poisoned(per_m);                                                   \
            T *dslot = has_cas ? tpt_alloc_poisoned(per_m) : NULL;                                 \
            T *dtk = tpt_alloc_poisoned(sizeof(T) * (size_t)total);                                \
            int32_t *dwon = has_cas ? tpt_alloc_poisoned(sizeof(int32_t) * (size_t)total) : NULL;  \
            tpt_shape shape;                                                                       \
            TPT_OK(tpt_team_atomics_##sfx(tpt_space, team_shapes[sh][0], team_shapes[sh][1],       \
                                          league, len, m, didx, dv, team_lowest_##sfx, dsum, dmax, \
                                          dcnt, dtk, dslot, dwon, &shape));                        \
            T *sum = tpt_host_alloc(per_m), *mx = tpt_host_alloc(per_m);                           \
            T *cnt = tpt_host_alloc(per_m), *slot = tpt_host_alloc(per_m);                         \
            T *tk = tpt_host_alloc(sizeof(T) * (size_t)total);                                     \
            int32_t *won = tpt_host_alloc(sizeof(int32_t) * (size_t)total);                        \
            tpt_to_host(sum, dsum, per_m);                                                         \
            tpt_to_host(mx, dmax, per_m);                                                          \
            tpt_to_host(cnt, dcnt, per_m);                                                         \
            tpt_to_host(tk, dtk, sizeof(T) * (size_t)total);                                       \
            if (has_cas) {                                                                         \
              tpt_to_host(slot, dslot, per_m);                                                     \
              tpt_to_host(won, dwon, sizeof(int32_t) * (size_t)total);                             \
            }                                                                                      \
            char *seen = tpt_host_alloc((size_t)len + 1);                                          \
            for (int64_t l = 0; l < league; ++l) {                                                 \
              const int32_t *il = idx + l * len;                                                   \
              const T *vl = v + l * len;                                                           \
              acc_##sfx rs[MAXC];                                                                  \
              T rm[MAXC];                                                                          \
              int64_t rc[MAXC], off[MAXC + 1], owner[MAXC];                                        \
              for (int k = 0; k < m; ++k)                                                          \
                rs[k] = 0, rm[k] = team_lowest_##sfx, rc[k] = 0, owner[k] = -1;                    \
              for (int64_t i = 0; i < len; ++i) {                                                  \
                rs[il[i]] += (acc_##sfx)vl[i];                                                     \
                if (vl[i] > rm[il[i]])                                                             \
                  rm[il[i]] = vl[i];                                                               \
                rc[il[i]]++;                                                                       \
              }                                                                                    \
              off[0] = 0;                                                                          \
              for (int k = 0; k < m; ++k) {                                                        \
                off[k + 1] = off[k] + rc[k];                                                       \
                T s_ = sum[l * m + k], x_ = mx[l * m + k], c_ = cnt[l * m + k];                    \
                cr_assert((acc_##sfx)s_ == rs[k] && x_ == rm[k] && c_ == (T)rc[k],                 \
                          "shape %dx%d (ran %dx%d) league %lld len %lld m %d team %lld "           \
                          "counter %d: sum " FMT_##sfx " (expected " FMT_##sfx ") max " FMT_##sfx  \
                          " (" FMT_##sfx ") count " FMT_##sfx " (%lld)",                           \
                          team_shapes[sh][0], team_shapes[sh][1], shape.team_size,                 \
                          shape.vector_length, (long long)league, (long long)len, m, (long long)l, \
                          k, PR_##sfx(s_), PR_##sfx(rs[k]), PR_##sfx(x_), PR_##sfx(rm[k]),         \
                          PR_##sfx(c_), (long long)rc[k]);                                         \
              }                                                                                    \
              memset(seen, 0, (size_t)len + 1);                                                    \
              for (int64_t i = 0; i < len; ++i) {                                                  \
                int c = il[i];                                                                     \
                T t = tk[l * len + i];                                                             \
                double td = (double)t; /* NaN or the all-ones poison: r = -1 */                    \
                int64_t r = td >= 0 && td < (double)len ? (int64_t)t : -1;                         \
                CHECK(t == (T)r && r >= 0 && r < rc[c] && !seen[off[c] + r],                       \
                      "league %lld len %lld m %d team %lld element %lld: ticket " FMT_##sfx        \
                      " of counter %d (count %lld) bad or repeated",                               \
                      (long long)league, (long long)len, m, (long long)l, (long long)i,            \
                      PR_##sfx(t), c, (long long)rc[c]);                                           \
                seen[off[c] + r] = 1;                                                              \
              }                                                                                    \
              if (!has_cas)                                                                        \
                continue;                                                                          \
              int64_t winners = len < m ? len : m, losers = 0;                                     \
              for (int64_t i = 0; i < len; ++i) {                                                  \
                int w = won[l * len + i];                                                          \
                CHECK(w >= 0 && w <= m, "team %lld element %lld claims slot %d", (long long)l,     \
                      (long long)i, w);                                                            \
                if (w == m) {                                                                      \
                  losers++;                                                                        \
                  continue;                                                                        \
                }                                                                                  \
                CHECK(owner[w] < 0, "team %lld: slot %d won twice", (long long)l, w);              \
                owner[w] = i;                                                                      \
                CHECK(slot[l * m + w] == (T)i,                                                     \
                      "team %lld slot %d holds " FMT_##sfx ", its winner is %lld", (long long)l,   \
                      w, PR_##sfx(slot[l * m + w]), (long long)i);                                 \
              }                                                                                    \
              cr_assert_eq(losers, len - winners, "team %lld: %lld lost, expected %lld",           \
                           (long long)l, (long long)losers, (long long)(len - winners));           \
              for (int k = (int)winners; k < m; ++k)                                               \
                cr_assert(slot[l * m + k] == empty, "team %lld: slot %d claimed", (long long)l,    \
                          k);                                                                      \
            }                                                                                      \
            tpt_free(didx), tpt_free(dv), tpt_free(dsum), tpt_free(dmax), tpt_free(dcnt);          \
            tpt_free(dslot), tpt_free(dtk), tpt_free(dwon);                                        \
            free(idx), free(v), free(sum), free(mx), free(cnt), free(slot), free(tk);              \
            free(won), free(seen);                                                                 \
          }                                                                                        \
      if (!info.is_gpu)                                                                            \
        break; /* the CPU runs every shape as 1 x 1: one pass is enough */                         \
    }                                                                                              \
  }

TEAM_TEST(i32, int32_t)
TEAM_TEST(i64, int64_t)
TEAM_TEST(u32, uint32_t)
TEAM_TEST(u64, uint64_t)
TEAM_TEST(f32, float)
TEAM_TEST(f64, double)

/* ---- bad inputs ------------------------------------------------------------------------ */
Test(atomics, entry_points_reject_bad_arguments) {
  int32_t *ctr = tpt_alloc_poisoned(sizeof(int32_t) * (MAXC + 1));
  int32_t *buf = tpt_alloc_poisoned(sizeof(int32_t) * 16);
  TPT_FAILS_WITH(tpt_atomic_add_i32(tpt_space, buf, buf, 4, 0, ctr), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tpt_atomic_add_i32(tpt_space, buf, buf, 4, MAXC + 1, ctr),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tpt_atomic_add_i32(tpt_space, buf, buf, 4, 1, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tpt_atomic_add_i32(tpt_space, NULL, buf, 4, 1, ctr), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tpt_atomic_add_i32(tpt_space, buf, buf, -1, 1, ctr), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "add_i32") != NULL, "message names the kernel: %s",
            tp_last_error());
  TPT_OK(tpt_atomic_add_i32(tpt_space, NULL, NULL, 0, 1, ctr)); /* nothing to read */
  TPT_FAILS_WITH(tpt_atomic_fetch_add_u64(tpt_space, buf, 4, 1, 1, NULL, NULL),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tpt_atomic_max_f32(tpt_space, buf, NULL, 4, 1, NULL, NULL),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(
      tpt_atomic_cas_claim_i64(tpt_space, -5, 1, 0, 1, (int64_t *)ctr, buf, (int64_t *)ctr),
      TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tpt_atomic_load_store_u32(tpt_space, NULL, 3, (uint32_t *)buf),
                 TP_ERROR_INVALID_ARGUMENT);
  tpt_shape shape;
  double *d = (double *)ctr;
  TPT_FAILS_WITH(
      tpt_team_atomics_f64(tpt_space, 1, 1, 1, -1, 1, buf, d, 0, d, d, d, d, NULL, NULL, &shape),
      TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(
      tpt_team_atomics_f64(tpt_space, 1, 3, 1, 1, 1, buf, d, 0, d, d, d, d, NULL, NULL, &shape),
      TP_ERROR_INVALID_ARGUMENT); /* vector length not a power of two */
  TPT_FAILS_WITH(
      tpt_team_atomics_f64(tpt_space, 1, 1, -2, 1, 1, buf, d, 0, d, d, d, d, NULL, NULL, &shape),
      TP_ERROR_INVALID_ARGUMENT); /* negative league */
  TPT_FAILS_WITH(tpt_team_atomics_i32(tpt_space, 1, 1, 1, 1, 0, buf, buf, 0, buf, buf, buf, buf,
                                      buf, buf, &shape),
                 TP_ERROR_INVALID_ARGUMENT);
  tpt_free(ctr), tpt_free(buf);
}
