/* The portable layer on the host: serial and OpenMP backends.
 *
 * A backend header defines TP_OMP(...) (an OpenMP pragma or nothing) and
 * TP_HOST_THREAD_NUM() before including this file. Mapping: league -> loop over
 * league ranks (an `omp for` with OpenMP), team -> one thread, vector -> an
 * `omp simd` loop, team scratch -> a per-thread buffer, team barrier -> nothing. */
#ifndef TP_HOST_H
#define TP_HOST_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_policy.h"
#include "portable/tp_range_check.h"
#include "portable/tp_space_common.h"

/* ---- qualifiers ---------------------------------------------------------- */
#define TP_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define TP_INLINE static inline
#define TP_DEVICE static inline
/* a device helper inlined into every caller, so that constant arguments specialise it */
#define TP_DEVICE_ALWAYS_INLINE static inline __attribute__((always_inline))
#define TP_RESTRICT __restrict__
#define TP_MAYBE_UNUSED __attribute__((unused))
#define TP_UNROLL TP_PRAGMA(GCC unroll 16)
#define TP_SIMD TP_PRAGMA(omp simd)
#define TP_LANES TP_PRAGMA(omp simd)
#define TP_IS_GPU 0

#include "portable/tp_paste.h"
#include "portable/tp_join.h"

/* ---- the team handle ------------------------------------------------------ */
typedef struct tp_team {
  int64_t league_rank, league_size;
  int team_rank, team_size;       /* always 0 and 1 here */
  int vector_lane, vector_length; /* always 0 and 1 here */
  void *scratch;
  size_t scratch_bytes;
} tp_team;

/* ---- nested loops inside a team ------------------------------------------- */
/* Team threads split [begin, end); int64_t index. */
#define TP_TEAM_FOR(team, i, begin, end) for (int64_t i = (begin); i < (int64_t)(end); ++i)
/* Vector lanes split [begin, end); int index; iterations must be independent. */
#define TP_VECTOR_FOR(team, j, begin, end) TP_SIMD for (int j = (begin); j < (int)(end); ++j)
/* A vector loop whose body adds to acc; finish with tp_vector_sum_*(team, acc). */
#define TP_VECTOR_FOR_SUM(team, j, begin, end, acc) \
  TP_PRAGMA(omp simd reduction(+ : acc)) for (int j = (begin); j < (int)(end); ++j)
/* All threads and lanes of the team split [begin, end); int64_t index. */
#define TP_TEAM_VECTOR_FOR(team, i, begin, end) \
  TP_SIMD for (int64_t i = (begin); i < (int64_t)(end); ++i)
#define TP_TEAM_VECTOR_FOR_SUM(team, i, begin, end, acc) \
  TP_PRAGMA(omp simd reduction(+ : acc)) for (int64_t i = (begin); i < (int64_t)(end); ++i)
/* Code run by one thread of the team / one lane of each team thread. */
#define TP_TEAM_SINGLE(team) if (1)
#define TP_VECTOR_SINGLE(team) if (1)

/* ---- collectives (trivial for teams of one thread and one lane) ------------ */
TP_DEVICE void tp_team_barrier(const tp_team *t) { (void)t; }
TP_DEVICE void tp_vector_sync(const tp_team *t) { (void)t; }
TP_DEVICE uint64_t tp_vector_ballot(const tp_team *t, int pred) {
  (void)t;
  return pred ? 1u : 0u;
}
/* Mask of the lanes whose key equals this lane's (bits above nbits are ignored). */
TP_DEVICE uint64_t tp_vector_match(const tp_team *t, uint32_t key, int nbits) {
  (void)t, (void)key, (void)nbits;
  return 1u;
}
TP_INLINE int tp_popc64(uint64_t x) { return __builtin_popcountll(x); }
/* Index of the lowest set bit; x must not be 0. */
TP_INLINE int tp_ctz64(uint64_t x) { return __builtin_ctzll(x); }
/* 1 / sqrt(x), for scaling vectors to unit length (GPUs use their reciprocal square
 * root here). */
TP_INLINE float tp_rsqrt_f32(float x) { return 1.0f / sqrtf(x); }
TP_INLINE double tp_rsqrt_f64(double x) { return 1.0 / sqrt(x); }

/* Lane shuffles, reductions and exclusive scans over team threads, per numeric type. */
#define TP_TEAM_TEMPLATE "backends/host/team_template.h"
#include "portable/team_types_template.h"

/* Team reductions of arg-max pairs. */
TP_DEVICE tp_argmax_f32 tp_team_argmax_abs_f32(const tp_team *t, tp_argmax_f32 v) {
  (void)t;
  return v;
}
TP_DEVICE tp_argmax_f64 tp_team_argmax_abs_f64(const tp_team *t, tp_argmax_f64 v) {
  (void)t;
  return v;
}

/* ---- atomics ------------------------------------------------------------- */
#define ATOMIC_T int32_t
#define ATOMIC_SFX i32
#include "backends/host/atomic_template.h"
#define ATOMIC_T uint32_t
#define ATOMIC_SFX u32
#include "backends/host/atomic_template.h"
#define ATOMIC_T int64_t
#define ATOMIC_SFX i64
#include "backends/host/atomic_template.h"
#define ATOMIC_T uint64_t
#define ATOMIC_SFX u64
#include "backends/host/atomic_template.h"
#define ATOMIC_T float
#define ATOMIC_SFX f32
#define ATOMIC_FLOAT
#include "backends/host/atomic_template.h"
#define ATOMIC_T double
#define ATOMIC_SFX f64
#define ATOMIC_FLOAT
#include "backends/host/atomic_template.h"

/* Orders this thread's earlier memory accesses before its later ones, as seen by every
 * other thread (a full fence). */
TP_DEVICE void tp_memory_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* ---- software prefetch --------------------------------------------------------
 * How many records ahead gather loops prefetch: an out-of-order core's window holds only
 * a few nonzeros' loads, too few to cover memory latency. */
#ifndef TP_PREFETCH_AHEAD
#define TP_PREFETCH_AHEAD 16
#endif
TP_DEVICE void tp_prefetch_range(const void *p, size_t bytes, int for_write) {
  for (size_t o = 0; o < bytes; o += 64) {
    if (for_write)
      __builtin_prefetch((const char *)p + o, 1, 3);
    else
      __builtin_prefetch((const char *)p + o, 0, 3);
  }
}

/* ---- the host space ------------------------------------------------------- */
TP_EXTERN_C_BEGIN
/* Threads a kernel of this space runs on (1 for the serial backend). */
int tp_host_threads(const tp_space *space);
/* Makes every thread's team scratch at least bytes long. */
tp_status tp_host_reserve_scratch(tp_space *space, size_t bytes);
void *tp_host_thread_scratch(const tp_space *space, int thread);
TP_EXTERN_C_END

TP_INLINE tp_team tp_host_team_make(const tp_space *space, const tp_team_policy *p) {
  tp_team t;
  t.league_rank = 0;
  t.league_size = p->league_size;
  t.team_rank = 0;
  t.team_size = 1;
  t.vector_lane = 0;
  t.vector_length = 1;
  t.scratch = tp_host_thread_scratch(space, TP_HOST_THREAD_NUM());
  t.scratch_bytes = p->scratch_bytes;
  return t;
}

/* The team handle a team kernel's body gets: t's league rank and scratch, and one thread
 * of one lane as constants, which the compiler folds into the body's team and vector
 * loops. */
TP_INLINE tp_team tp_host_team_one(const tp_team *t) {
  tp_team one;
  one.league_rank = t->league_rank;
  one.league_size = t->league_size;
  one.team_rank = 0;
  one.team_size = 1;
  one.vector_lane = 0;
  one.vector_length = 1;
  one.scratch = t->scratch;
  one.scratch_bytes = t->scratch_bytes;
  return one;
}

/* ---- kernels -------------------------------------------------------------- */
/* Threads of a range kernel of n iterations (n0 x n1 for range2): the space's, or the
 * calling thread alone below 4096 iterations, where forking a team costs more than the
 * kernel does. */
TP_INLINE tp_status tp_host_range_threads(tp_space *space, int64_t n, const char *kernel,
                                          int *threads) {
  TP_TRY(tp_check_range(n, kernel));
  /* a thread for each 4096 iterations at most: small ranges run inline */
  int64_t useful = n / 4096;
  *threads =
      useful < tp_host_threads(space) ? (int)(useful > 1 ? useful : 1) : tp_host_threads(space);
  return TP_SUCCESS;
}
TP_INLINE tp_status tp_host_range2_threads(tp_space *space, int64_t n0, int64_t n1,
                                           const char *kernel, int *threads) {
  TP_TRY(tp_check_range2(n0, n1, kernel));
  *threads = n0 * n1 >= 4096 ? tp_host_threads(space) : 1;
  return TP_SUCCESS;
}

/* The c-th of parts blocks of [0, n), as OpenMP's schedule(static) splits [0, n) among
 * parts threads: the first n % parts blocks are one longer. */
TP_INLINE void tp_host_block(int64_t n, int c, int parts, int64_t *begin, int64_t *end) {
  int64_t q = n / parts, r = n % parts;
  *begin = q * c + (c < r ? c : r);
  *end = *begin + q + (c < r);
}

/* A range-reduce kernel's part: joins, from the identity, the bodies of iterations
 * [begin, end) into *out (a T); its join: *into = join(*into, *from). */
typedef void (*tp_host_part_fn)(int64_t begin, int64_t end, const void *args, void *out);
typedef void (*tp_host_join_fn)(void *into, const void *from);

/* Runs a range-reduce kernel of n iterations, whose arguments args points to, and stores
 * its T (of bytes bytes) in *result: one part per thread (one below 4096 iterations),
 * then the parts joined in thread order, so the join order is fixed for a given thread
 * count. */
TP_INLINE tp_status tp_host_range_reduce(tp_space *space, int64_t n, tp_host_part_fn part,
                                         tp_host_join_fn join, const void *args, size_t bytes,
                                         void *result, const char *kernel) {
  int parts;
  TP_TRY(tp_host_range_threads(space, n, kernel, &parts));
  unsigned char *partials = (unsigned char *)malloc(bytes * (size_t)(parts + 1));
  if (!partials)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "kernel %s: no room for partials", kernel);
  TP_OMP(omp parallel for schedule(static) num_threads(parts))
  for (int c = 0; c < parts; ++c) {
    int64_t begin, end;
    tp_host_block(n, c, parts, &begin, &end);
    part(begin, end, args, partials + bytes * (size_t)c);
  }
  unsigned char *total = partials + bytes * (size_t)parts;
  part(0, 0, args, total); /* the identity */
  for (int c = 0; c < parts; ++c)
    join(total, partials + bytes * (size_t)c);
  memcpy(result, total, bytes);
  free(partials);
  return TP_SUCCESS;
}

/* A team kernel's league ranks team->league_rank .. end - 1, run by one thread. */
typedef void (*tp_host_leagues_fn)(const tp_team *team, int64_t end, const void *args);

/* Runs a team kernel, whose arguments args points to, with policy p: checks p (and the
 * kernel's bound on team_size x vector_length, if max_threads > 0), then spreads the
 * league over the space's threads, one rank at a time (TP_SCHEDULE_DYNAMIC) or in one
 * block per thread as schedule(static) makes them. */
TP_INLINE tp_status tp_host_team_run(tp_space *space, tp_team_policy p, int max_threads,
                                     tp_host_leagues_fn leagues, const void *args,
                                     const char *kernel) {
  TP_TRY(tp_team_policy_check(space, &p, kernel));
  if (max_threads > 0 && p.team_size * p.vector_length > max_threads)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "kernel %s: team of %d x %d threads exceeds its bound of %d", kernel,
                    p.team_size, p.vector_length, max_threads);
  tp_team_policy_fit(space, &p);
  TP_TRY(tp_host_reserve_scratch(space, p.scratch_bytes));
  /* never more threads than teams: the others would only be woken to wait */
  int threads = tp_host_threads(space);
  threads = p.league_size < threads ? (int)(p.league_size > 1 ? p.league_size : 1) : threads;
  TP_OMP(omp parallel num_threads(threads)) {
    tp_team t = tp_host_team_make(space, &p);
    if (p.schedule == TP_SCHEDULE_DYNAMIC) {
      TP_OMP(omp for schedule(dynamic, 1))
      for (int64_t l = 0; l < p.league_size; ++l) {
        t.league_rank = l;
        leagues(&t, l + 1, args);
      }
    } else {
      TP_OMP(omp for schedule(static))
      for (int c = 0; c < threads; ++c) {
        int64_t end;
        tp_host_block(p.league_size, c, threads, &t.league_rank, &end);
        leagues(&t, end, args);
      }
    }
  }
  return TP_SUCCESS;
}

/* TP_RANGE_KERNEL(name, args_t, i, a) { body } defines
 *   tp_status name_launch(tp_space *, int64_t n, args_t)
 * running body for i in [0, n). */
#define TP_RANGE_KERNEL(...) TP_RANGE_KERNEL_IMPL(__VA_ARGS__)
#define TP_RANGE_KERNEL_IMPL(name, args_t, i, a)                                                 \
  TP_DEVICE void name##_body(int64_t i, args_t a);                                               \
  TP_MAYBE_UNUSED static tp_status name##_launch(tp_space *tp_s_, int64_t tp_n_, args_t tp_a_) { \
    int tp_threads_;                                                                             \
    TP_TRY(tp_host_range_threads(tp_s_, tp_n_, #name, &tp_threads_));                            \
    TP_OMP(omp parallel for schedule(static) num_threads(tp_threads_))                           \
    for (int64_t tp_i_ = 0; tp_i_ < tp_n_; ++tp_i_)                                              \
      name##_body(tp_i_, tp_a_);                                                                 \
    return TP_SUCCESS;                                                                           \
  }                                                                                              \
  TP_DEVICE void name##_body(int64_t i, args_t a)

/* TP_RANGE2_KERNEL(name, args_t, i, j, a): body for (i, j) in [0, n0) x [0, n1),
 * launched by name_launch(space, n0, n1, args); j is the fast index. */
#define TP_RANGE2_KERNEL(...) TP_RANGE2_KERNEL_IMPL(__VA_ARGS__)
#define TP_RANGE2_KERNEL_IMPL(name, args_t, i, j, a)                                              \
  TP_DEVICE void name##_body(int64_t i, int64_t j, args_t a);                                     \
  TP_MAYBE_UNUSED static tp_status name##_launch(tp_space *tp_s_, int64_t tp_n0_, int64_t tp_n1_, \
                                                 args_t tp_a_) {                                  \
    int tp_threads_;                                                                              \
    TP_TRY(tp_host_range2_threads(tp_s_, tp_n0_, tp_n1_, #name, &tp_threads_));                   \
    TP_OMP(omp parallel for collapse(2) schedule(static) num_threads(tp_threads_))                \
    for (int64_t tp_i_ = 0; tp_i_ < tp_n0_; ++tp_i_)                                              \
      for (int64_t tp_j_ = 0; tp_j_ < tp_n1_; ++tp_j_)                                            \
        name##_body(tp_i_, tp_j_, tp_a_);                                                         \
    return TP_SUCCESS;                                                                            \
  }                                                                                               \
  TP_DEVICE void name##_body(int64_t i, int64_t j, args_t a)

/* TP_RANGE_REDUCE_KERNEL(name, args_t, T, join, identity, i, a, acc) { *acc = ... }
 * defines name_launch(space, n, args, T *result): result (in the space) receives the
 * join of every body's contributions, starting from identity. The join order is fixed
 * for a given thread count (tp_host_range_reduce). */
#define TP_RANGE_REDUCE_KERNEL(...) TP_RANGE_REDUCE_KERNEL_IMPL(__VA_ARGS__)
#define TP_RANGE_REDUCE_KERNEL_IMPL(name, args_t, T, join, identity, i, a, acc)                \
  TP_DEVICE void name##_body(int64_t i, args_t a, T *acc);                                     \
  static void name##_part(int64_t tp_i_, int64_t tp_end_, const void *tp_a_, void *tp_out_) {  \
    args_t tp_args_ = *(const args_t *)tp_a_;                                                  \
    T tp_acc_ = (identity);                                                                    \
    for (; tp_i_ < tp_end_; ++tp_i_)                                                           \
      name##_body(tp_i_, tp_args_, &tp_acc_);                                                  \
    *(T *)tp_out_ = tp_acc_;                                                                   \
  }                                                                                            \
  static void name##_join(void *tp_x_, const void *tp_y_) {                                    \
    *(T *)tp_x_ = join(*(T *)tp_x_, *(const T *)tp_y_);                                        \
  }                                                                                            \
  TP_MAYBE_UNUSED static tp_status name##_launch(tp_space *tp_s_, int64_t tp_n_, args_t tp_a_, \
                                                 T *tp_result_) {                              \
    return tp_host_range_reduce(tp_s_, tp_n_, name##_part, name##_join, &tp_a_, sizeof(T),     \
                                tp_result_, #name);                                            \
  }                                                                                            \
  TP_DEVICE void name##_body(int64_t i, args_t a, T *acc)

/* TP_TEAM_KERNEL(name, args_t, team, a) { body } defines
 *   tp_status name_launch(tp_space *, tp_team_policy, args_t)
 * running body once per league rank with `const tp_team *team`. */
#define TP_TEAM_KERNEL(name, args_t, team, a) TP_TEAM_KERNEL_IMPL(name, args_t, 0, team, a)
/* The thread bound is checked as on GPUs; the register budget means nothing here. */
#define TP_TEAM_KERNEL_BOUNDED(name, args_t, max_threads, min_teams, team, a) \
  TP_TEAM_KERNEL_IMPL(name, args_t, max_threads, team, a)
#define TP_TEAM_KERNEL_IMPL(...) TP_TEAM_KERNEL_IMPL_(__VA_ARGS__)
#define TP_TEAM_KERNEL_IMPL_(name, args_t, max_threads, team, a)                         \
  TP_DEVICE void name##_body(const tp_team *team, args_t a);                             \
  static void name##_leagues(const tp_team *tp_t_, int64_t tp_end_, const void *tp_a_) { \
    args_t tp_args_ = *(const args_t *)tp_a_;                                            \
    for (tp_team tp_u_ = tp_host_team_one(tp_t_); tp_u_.league_rank < tp_end_;           \
         ++tp_u_.league_rank)                                                            \
      name##_body(&tp_u_, tp_args_);                                                     \
  }                                                                                      \
  TP_MAYBE_UNUSED static tp_status name##_launch(tp_space *tp_s_, tp_team_policy tp_p_,  \
                                                 args_t tp_a_) {                         \
    return tp_host_team_run(tp_s_, tp_p_, (max_threads), name##_leagues, &tp_a_, #name); \
  }                                                                                      \
  TP_DEVICE void name##_body(const tp_team *team, args_t a)

#endif
