#include "perf/micro/bench_data.h"
#include "portable/tp_portable.h"

TP_INLINE uint64_t micro_mix(uint64_t seed, int64_t i) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef struct rand_f64_args {
  double *x;
  uint64_t seed;
} rand_f64_args;

TP_RANGE_KERNEL(rand_f64, rand_f64_args, i, a) {
  a.x[i] = (double)(micro_mix(a.seed, i) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

tp_status micro_random_f64(tp_space *space, double *x, int64_t n, uint64_t seed) {
  rand_f64_args a;
  a.x = x;
  a.seed = seed;
  return rand_f64_launch(space, n, a);
}

typedef struct rand_i32_args {
  int32_t *x;
  uint64_t seed;
  int64_t lo, span;
} rand_i32_args;

TP_RANGE_KERNEL(rand_i32, rand_i32_args, i, a) {
  a.x[i] = (int32_t)(a.lo + (int64_t)(micro_mix(a.seed, i) % (uint64_t)a.span));
}

tp_status micro_random_i32(tp_space *space, int32_t *x, int64_t n, uint64_t seed, int32_t lo,
                           int32_t hi) {
  rand_i32_args a;
  a.x = x;
  a.seed = seed;
  a.lo = lo;
  a.span = (int64_t)hi - lo + 1;
  return rand_i32_launch(space, n, a);
}

typedef struct rand_u64_args {
  uint64_t *x;
  uint64_t seed;
} rand_u64_args;

TP_RANGE_KERNEL(rand_u64, rand_u64_args, i, a) { a.x[i] = micro_mix(a.seed, i) >> 1; }

tp_status micro_random_u64(tp_space *space, uint64_t *x, int64_t n, uint64_t seed) {
  rand_u64_args a;
  a.x = x;
  a.seed = seed;
  return rand_u64_launch(space, n, a);
}

typedef struct iota_args {
  uint32_t *x;
} iota_args;

TP_RANGE_KERNEL(iota_u32, iota_args, i, a) { a.x[i] = (uint32_t)i; }

tp_status micro_iota_u32(tp_space *space, uint32_t *x, int64_t n) {
  iota_args a;
  a.x = x;
  return iota_u32_launch(space, n, a);
}

typedef struct descents_args {
  const uint64_t *keys;
} descents_args;

TP_RANGE_REDUCE_KERNEL(descents, descents_args, int64_t, tp_join_sum_i64, 0, i, a, acc) {
  *acc += a.keys[i] > a.keys[i + 1];
}

/* Runs a counting kernel into a temporary of the space and brings the count home. */
#define MICRO_COUNT_TO_HOST(launch, space, n, args, count)      \
  do {                                                          \
    int64_t *dev_ = NULL;                                       \
    TP_TRY(tp_temp_alloc(space, sizeof *dev_, (void **)&dev_)); \
    tp_status st_ = launch(space, n, args, dev_);               \
    if (st_ == TP_SUCCESS)                                      \
      st_ = tp_copy_to_host(space, count, dev_, sizeof *dev_);  \
    tp_temp_release(space, dev_);                               \
    return st_;                                                 \
  } while (0)

tp_status micro_count_descents_u64(tp_space *space, const uint64_t *keys, int64_t n,
                                   int64_t *count) {
  descents_args a;
  a.keys = keys;
  MICRO_COUNT_TO_HOST(descents_launch, space, n > 1 ? n - 1 : 0, a, count);
}

typedef struct mismatch_args {
  const uint64_t *a, *b;
} mismatch_args;

TP_RANGE_REDUCE_KERNEL(mismatches, mismatch_args, int64_t, tp_join_sum_i64, 0, i, a, acc) {
  *acc += a.a[i] != a.b[i];
}

tp_status micro_count_mismatches_u64(tp_space *space, const uint64_t *a, const uint64_t *b,
                                     int64_t n, int64_t *count) {
  mismatch_args m;
  m.a = a;
  m.b = b;
  MICRO_COUNT_TO_HOST(mismatches_launch, space, n, m, count);
}
