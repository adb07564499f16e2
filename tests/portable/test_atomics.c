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

/* ---- the tests of every type --------------------------------------------------------- */
/* add, fetch_add, max and team scope for every type, cas and load/store for the integers:
 * see test_atomics_template.h. */
#define TPT_T int32_t
#define TPT_SFX i32
#include "tests/portable/test_atomics_template.h"
#define TPT_T int64_t
#define TPT_SFX i64
#include "tests/portable/test_atomics_template.h"
#define TPT_T uint32_t
#define TPT_SFX u32
#include "tests/portable/test_atomics_template.h"
#define TPT_T uint64_t
#define TPT_SFX u64
#include "tests/portable/test_atomics_template.h"
#define TPT_T float
#define TPT_SFX f32
#include "tests/portable/test_atomics_template.h"
#define TPT_T double
#define TPT_SFX f64
#include "tests/portable/test_atomics_template.h"

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
