/* The portable layer on GPUs, written once for CUDA and HIP.
 *
 * A backend header (cuda/ or hip/) maps the tpg_* names used here onto its runtime and
 * intrinsics, then includes this file. Mapping: league -> blocks (grid-stride over the
 * league), team -> threadIdx.y, vector -> threadIdx.x, team scratch -> dynamic shared
 * memory, team barrier -> __syncthreads. */
#ifndef TP_GPU_H
#define TP_GPU_H

#include <math.h>
#include <stdint.h>

#include "portable/tp_error.h"
#include "portable/tp_policy.h"
#include "portable/tp_range_check.h"
#include "portable/tp_space_common.h"

/* ---- qualifiers ---------------------------------------------------------- */
#define TP_PRAGMA(...) _Pragma(#__VA_ARGS__)
#define TP_INLINE static inline __host__ __device__
#define TP_DEVICE static inline __device__
#define TP_RESTRICT __restrict__
#define TP_MAYBE_UNUSED __attribute__((unused))
#define TP_UNROLL TP_PRAGMA(unroll)
#define TP_SIMD
#define TP_LANES TP_PRAGMA(unroll)
#define TP_IS_GPU 1

#include "portable/tp_paste.h"
#include "portable/tp_join.h"

/* ---- the team handle ------------------------------------------------------ */
typedef struct tp_team {
  int64_t league_rank, league_size;
  int team_rank, team_size;       /* threadIdx.y, blockDim.y */
  int vector_lane, vector_length; /* threadIdx.x, blockDim.x */
  void *scratch;
  size_t scratch_bytes;
  void *reduce_buffer; /* (team_size + 1) x 16 bytes for team collectives */
  uint64_t group_mask; /* this thread's vector group within its warp */
  int group_shift;     /* bit of the group's lane 0 within the warp mask */
} tp_team;

/* Bytes of shared memory reserved ahead of the scratch for team collectives. */
#define TPG_TEAM_RESERVE(team_size) ((size_t)16 * ((size_t)(team_size) + 1))

TP_DEVICE int tpg_linear_thread(void) { return (int)(threadIdx.y * blockDim.x + threadIdx.x); }

TP_DEVICE void tpg_team_init(tp_team *t, unsigned char *smem, int64_t league_size,
                             size_t scratch_bytes) {
  t->league_size = league_size;
  t->team_rank = (int)threadIdx.y;
  t->team_size = (int)blockDim.y;
  t->vector_lane = (int)threadIdx.x;
  t->vector_length = (int)blockDim.x;
  t->reduce_buffer = smem;
  t->scratch = smem + TPG_TEAM_RESERVE(blockDim.y);
  t->scratch_bytes = scratch_bytes;
  int lane_in_warp = tpg_linear_thread() % TPG_WARP_SIZE;
  t->group_shift = lane_in_warp & ~(t->vector_length - 1);
  uint64_t ones = t->vector_length >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << t->vector_length) - 1);
  t->group_mask = ones << t->group_shift;
  t->league_rank = blockIdx.x; /* the block's first rank */
}

/* ---- nested loops inside a team ------------------------------------------- */
#define TP_TEAM_FOR(team, i, begin, end) \
  for (int64_t i = (begin) + (team)->team_rank; i < (int64_t)(end); i += (team)->team_size)
#define TP_VECTOR_FOR(team, j, begin, end) \
  for (int j = (begin) + (team)->vector_lane; j < (int)(end); j += (team)->vector_length)
#define TP_VECTOR_FOR_SUM(team, j, begin, end, acc) TP_VECTOR_FOR(team, j, begin, end)
#define TP_TEAM_VECTOR_FOR(team, i, begin, end)                                                \
  for (int64_t i =                                                                             \
           (begin) + (int64_t)(team)->team_rank * (team)->vector_length + (team)->vector_lane; \
       i < (int64_t)(end); i += (int64_t)(team)->team_size * (team)->vector_length)
#define TP_TEAM_VECTOR_FOR_SUM(team, i, begin, end, acc) TP_TEAM_VECTOR_FOR(team, i, begin, end)
#define TP_TEAM_SINGLE(team) if ((team)->team_rank == 0 && (team)->vector_lane == 0)
#define TP_VECTOR_SINGLE(team) if ((team)->vector_lane == 0)

/* ---- collectives ---------------------------------------------------------- */
TP_DEVICE void tp_team_barrier(const tp_team *t) {
  (void)t;
  __syncthreads();
}
TP_DEVICE void tp_vector_sync(const tp_team *t) { tpg_syncwarp(t->group_mask); }
TP_DEVICE uint64_t tp_vector_ballot(const tp_team *t, int pred) {
  return (tpg_ballot(t->group_mask, pred) & t->group_mask) >> t->group_shift;
}
/* A warp's lanes as bits: 32 on 32-lane warps, so that sums and scans of lane masks
 * (tp_vector_match's, whose high half is then known to be zero) stay 32-bit there. */
#if TPG_WARP_SIZE == 32
typedef uint32_t tpg_lane_bits;
#else
typedef uint64_t tpg_lane_bits;
#endif

/* Lanes whose key agrees in its low nbits, narrowed by one ballot per bit. HIP has no
 * match instruction; on CUDA this beat __match_any_sync in the radix sort. A backend may
 * give whole-warp groups a shorter sequence (tpg_warp_same_bit_lanes; CUDA's sort takes
 * it, so the generic loop is vouched for by HIP on CPU and by CUDA's collectives tests
 * with groups narrower than a warp). */
TP_DEVICE uint64_t tp_vector_match(const tp_team *t, uint32_t key, int nbits) {
  tpg_lane_bits peers = (tpg_lane_bits)t->group_mask;
#ifdef tpg_warp_same_bit_lanes
  if (t->vector_length == TPG_WARP_SIZE) {
    for (int b = 0; b < nbits; ++b)
      peers &= tpg_warp_same_bit_lanes(key, 1u << b);
    return peers;
  }
#endif
  for (int b = 0; b < nbits; ++b) {
    const int set = (key & (1u << b)) != 0;
    const tpg_lane_bits ones = (tpg_lane_bits)tpg_ballot(t->group_mask, set);
    peers &= set ? ones : ~ones;
  }
  return (uint64_t)(peers >> t->group_shift);
}
/* Bit counts and scans by 32-bit halves: where a half is known to be zero (lane masks
 * of 32-lane warps) the compiler drops it. */
TP_INLINE int tp_popc64(uint64_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __popc((unsigned)x) + __popc((unsigned)(x >> 32));
#else
  return __builtin_popcountll(x);
#endif
}
/* Index of the lowest set bit; x must not be 0. */
TP_INLINE int tp_ctz64(uint64_t x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  __builtin_assume(x != 0); /* with a high half known to be zero: one 32-bit scan */
  return (unsigned)x ? __ffs((int)(unsigned)x) - 1 : 31 + __ffs((int)(unsigned)(x >> 32));
#else
  return __builtin_ctzll(x);
#endif
}

/* 1 / sqrt(x), for scaling vectors to unit length: the device's reciprocal square root
 * (CUDA: within 2 ulp in single precision and 1 ulp in double), where a square root and
 * a division cost a dozen instructions and a slow path each. */
TP_INLINE float tp_rsqrt_f32(float x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return rsqrtf(x);
#else
  return 1.0f / sqrtf(x);
#endif
}
TP_INLINE double tp_rsqrt_f64(double x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return rsqrt(x);
#else
  return 1.0 / sqrt(x);
#endif
}

TP_DEVICE int tpg_pow2_ceil(int x) {
  int p = 1;
  while (p < x)
    p <<= 1;
  return p;
}

/* Lane shuffles, reductions and exclusive scans over team threads, per numeric type. */
#define TP_TEAM_TEMPLATE "backends/gpu/team_template.h"
#include "portable/team_types_template.h"

/* Team reductions of arg-max pairs. */
#define TEAM_REDUCE_NAME tp_team_argmax_abs_f32
#define TEAM_REDUCE_T tp_argmax_f32
#define TEAM_REDUCE_JOIN tp_join_argmax_abs_f32
#include "backends/gpu/team_reduce_template.h"
#define TEAM_REDUCE_NAME tp_team_argmax_abs_f64
#define TEAM_REDUCE_T tp_argmax_f64
#define TEAM_REDUCE_JOIN tp_join_argmax_abs_f64
#include "backends/gpu/team_reduce_template.h"

/* ---- atomics ------------------------------------------------------------- */
#define ATOMIC_T int32_t
#define ATOMIC_SFX i32
#define ATOMIC_U int
#include "backends/gpu/atomic_template.h"
#define ATOMIC_T uint32_t
#define ATOMIC_SFX u32
#define ATOMIC_U unsigned int
#include "backends/gpu/atomic_template.h"
#define ATOMIC_T int64_t
#define ATOMIC_SFX i64
#define ATOMIC_U unsigned long long
#include "backends/gpu/atomic_template.h"
#define ATOMIC_T uint64_t
#define ATOMIC_SFX u64
#define ATOMIC_U unsigned long long
#include "backends/gpu/atomic_template.h"
#define ATOMIC_T float
#define ATOMIC_SFX f32
#define ATOMIC_U float
#define ATOMIC_BITS unsigned int
#define ATOMIC_TO_BITS __float_as_uint
#define ATOMIC_FROM_BITS __uint_as_float
#include "backends/gpu/atomic_template.h"
#define ATOMIC_T double
#define ATOMIC_SFX f64
#define ATOMIC_U double
#define ATOMIC_BITS unsigned long long
#define ATOMIC_TO_BITS (unsigned long long)__double_as_longlong
#define ATOMIC_FROM_BITS __longlong_as_double
#include "backends/gpu/atomic_template.h"

/* Orders this thread's earlier memory accesses before its later ones, as seen by every
 * other thread of the device (a full fence). */
TP_DEVICE void tp_memory_fence(void) { __threadfence(); }

/* ---- software prefetch: none, GPUs hide latency with other warps' loads ---- */
#define TP_PREFETCH_AHEAD 0
TP_DEVICE void tp_prefetch_range(const void *p, size_t bytes, int for_write) {
  (void)p, (void)bytes, (void)for_write;
}

/* ---- launching ------------------------------------------------------------ */
TP_EXTERN_C_BEGIN
typedef struct tpg_launch {
  unsigned grid;
  unsigned block_x, block_y;
  size_t shared_bytes;
  tpg_stream_t stream;
} tpg_launch;

/* Threads per block of range kernels. */
#define TPG_RANGE_BLOCK 256

tp_status tpg_range_setup(tp_space *space, int64_t n, const char *kernel, tpg_launch *cfg);
tp_status tpg_team_setup(tp_space *space, const tp_team_policy *policy, const void *entry,
                         const char *kernel, tpg_launch *cfg);
/* Checks the launch just made; with TP_DEBUG_SYNC it also waits and checks the run. */
tp_status tpg_launch_check(tp_space *space, const char *kernel, const char *file, int line);
TP_EXTERN_C_END

/* The launch of a range2 kernel over n0 x n1 iterations. */
static inline tp_status tpg_range2_setup(tp_space *space, int64_t n0, int64_t n1,
                                         const char *kernel, tpg_launch *cfg) {
  TP_TRY(tp_check_range2(n0, n1, kernel));
  return tpg_range_setup(space, n0 * n1, kernel, cfg);
}

/* The launch of a team kernel with policy p, whose teams may not exceed max_threads
 * (team_size x vector_length) where max_threads > 0. */
static inline tp_status tpg_team_prepare(tp_space *space, tp_team_policy *p, const void *entry,
                                         int max_threads, const char *kernel, tpg_launch *cfg) {
  TP_TRY(tpg_team_setup(space, p, entry, kernel, cfg));
  if (max_threads > 0 && p->team_size * p->vector_length > max_threads)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "kernel %s: team of %d x %d threads exceeds its bound of %d", kernel,
                    p->team_size, p->vector_length, max_threads);
  return TP_SUCCESS;
}

/* The two launches of a range-reduce kernel: name_entry, on a range kernel's grid, joins
 * each block's bodies into one partial (none for an empty range), then name_final, one
 * block, joins the partials into the result. */
typedef struct tpg_reduce {
  tpg_launch cfg;   /* name_entry's launch, then name_final's */
  void *partials;   /* a temporary of the space, one T per block */
  int64_t count;    /* partials name_entry writes */
  tp_status status; /* of the launches so far */
} tpg_reduce;

static inline tp_status tpg_reduce_setup(tp_space *space, int64_t n, size_t bytes,
                                         const char *kernel, tpg_reduce *r) {
  TP_TRY(tpg_range_setup(space, n, kernel, &r->cfg));
  r->partials = NULL;
  TP_TRY(tp_temp_alloc(space, bytes * r->cfg.grid, &r->partials));
  r->cfg.shared_bytes = bytes * TPG_RANGE_BLOCK;
  r->count = n > 0 ? (int64_t)r->cfg.grid : 0;
  r->status = TP_SUCCESS;
  return TP_SUCCESS;
}

/* After name_entry's launch (made when count > 0): checks it, and makes the launch
 * name_final's; says whether to launch name_final. */
static inline int tpg_reduce_to_final(tp_space *space, tpg_reduce *r, const char *kernel,
                                      const char *file, int line) {
  if (r->count > 0)
    r->status = tpg_launch_check(space, kernel, file, line);
  r->cfg.grid = 1;
  return r->status == TP_SUCCESS;
}

/* After name_final's launch (made when the entry's succeeded): checks it, releases the
 * partials and returns the status of the launches. */
static inline tp_status tpg_reduce_finish(tp_space *space, tpg_reduce *r, const char *kernel,
                                          const char *file, int line) {
  if (r->status == TP_SUCCESS)
    r->status = tpg_launch_check(space, kernel, file, line);
  tp_temp_release(space, r->partials);
  return r->status;
}

/* A backend may define these three itself (the HIP CPU runtime launches through a macro
 * and corrects the device properties its runtime reports). */
#ifndef TPG_SMEM
#define TPG_SMEM(name) extern __shared__ __attribute__((aligned(16))) unsigned char name[]
#endif

#ifndef TPG_LAUNCH
#define TPG_LAUNCH(entry, cfg, ...)                                                 \
  entry<<<dim3((cfg).grid), dim3((cfg).block_x, (cfg).block_y), (cfg).shared_bytes, \
          (cfg).stream>>>(__VA_ARGS__)
#endif

#ifndef tpg_get_device_properties
#define tpg_get_device_properties(p, device) TPG(GetDeviceProperties)((p), (device))
#endif

/* ---- kernels (same contract as backends/host/tp_host.h) -------------------- */
/* The loop of a range kernel's threads: i runs over [0, n) from the thread's index in the
 * grid, in steps of the grid's thread count. */
#define TPG_GRID_STRIDE_FOR(i, n)                                  \
  for (int64_t i##stride_ = (int64_t)gridDim.x * blockDim.x,       \
               i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; \
       i < (n); i += i##stride_)

/* The league loop of a team kernel's block: team (a tp_team) starts at the block's first
 * league rank and strides over the league by the grid's blocks; the block's threads wait
 * for each other before each next rank. */
TP_DEVICE tp_team tpg_team_first(unsigned char *smem, int64_t league_size, size_t scratch_bytes) {
  tp_team t;
  tpg_team_init(&t, smem, league_size, scratch_bytes);
  return t;
}
TP_DEVICE void tpg_team_next(tp_team *t) {
  __syncthreads();
  t->league_rank += gridDim.x;
}
#define TPG_LEAGUE_FOR(team, smem, league_size, scratch_bytes)          \
  for (tp_team team = tpg_team_first(smem, league_size, scratch_bytes); \
       team.league_rank < (league_size); tpg_team_next(&team))

#define TP_RANGE_KERNEL(...) TP_RANGE_KERNEL_IMPL(__VA_ARGS__)
#define TP_RANGE_KERNEL_IMPL(name, args_t, i, a)                                                 \
  TP_DEVICE void name##_body(int64_t i, args_t a);                                               \
  static __global__ void name##_entry(int64_t tp_n_, args_t tp_a_) {                             \
    TPG_GRID_STRIDE_FOR(tp_i_, tp_n_) name##_body(tp_i_, tp_a_);                                 \
  }                                                                                              \
  TP_MAYBE_UNUSED static tp_status name##_launch(tp_space *tp_s_, int64_t tp_n_, args_t tp_a_) { \
    tpg_launch tp_c_;                                                                            \
    TP_TRY(tpg_range_setup(tp_s_, tp_n_, #name, &tp_c_));                                        \
    if (tp_n_ == 0)                                                                              \
      return TP_SUCCESS;                                                                         \
    TPG_LAUNCH(name##_entry, tp_c_, tp_n_, tp_a_);                                               \
    return tpg_launch_check(tp_s_, #name, __FILE__, __LINE__);                                   \
  }                                                                                              \
  TP_DEVICE void name##_body(int64_t i, args_t a)

#define TP_RANGE2_KERNEL(...) TP_RANGE2_KERNEL_IMPL(__VA_ARGS__)
#define TP_RANGE2_KERNEL_IMPL(name, args_t, i, j, a)                                              \
  TP_DEVICE void name##_body(int64_t i, int64_t j, args_t a);                                     \
  static __global__ void name##_entry(int64_t tp_n0_, int64_t tp_n1_, args_t tp_a_) {             \
    int64_t tp_n_ = tp_n0_ * tp_n1_;                                                              \
    TPG_GRID_STRIDE_FOR(tp_k_, tp_n_) name##_body(tp_k_ / tp_n1_, tp_k_ % tp_n1_, tp_a_);         \
  }                                                                                               \
  TP_MAYBE_UNUSED static tp_status name##_launch(tp_space *tp_s_, int64_t tp_n0_, int64_t tp_n1_, \
                                                 args_t tp_a_) {                                  \
    tpg_launch tp_c_;                                                                             \
    TP_TRY(tpg_range2_setup(tp_s_, tp_n0_, tp_n1_, #name, &tp_c_));                               \
    if (tp_n0_ == 0 || tp_n1_ == 0)                                                               \
      return TP_SUCCESS;                                                                          \
    TPG_LAUNCH(name##_entry, tp_c_, tp_n0_, tp_n1_, tp_a_);                                       \
    return tpg_launch_check(tp_s_, #name, __FILE__, __LINE__);                                    \
  }                                                                                               \
  TP_DEVICE void name##_body(int64_t i, int64_t j, args_t a)

/* Block-level tree reduction of one T per thread held in shared memory buf. */
#define TPG_BLOCK_REDUCE(T, join, buf, acc)                                        \
  do {                                                                             \
    (buf)[threadIdx.x] = (acc);                                                    \
    __syncthreads();                                                               \
    for (unsigned tp_s_ = blockDim.x >> 1; tp_s_ > 0; tp_s_ >>= 1) {               \
      if (threadIdx.x < tp_s_)                                                     \
        (buf)[threadIdx.x] = join((buf)[threadIdx.x], (buf)[threadIdx.x + tp_s_]); \
      __syncthreads();                                                             \
    }                                                                              \
  } while (0)

/* A range-reduce kernel: name_entry joins each block's bodies (four per step, so that
 * their loads overlap) into the block's partial, name_final joins the partials. */
#define TP_RANGE_REDUCE_KERNEL(...) TP_RANGE_REDUCE_KERNEL_IMPL(__VA_ARGS__)
#define TP_RANGE_REDUCE_KERNEL_IMPL(name, args_t, T, join, identity, i, a, acc)                  \
  TP_DEVICE void name##_body(int64_t i, args_t a, T *acc);                                       \
  static __global__ void name##_entry(int64_t tp_n_, args_t tp_a_, T *tp_partials_) {            \
    TPG_SMEM(tp_smem_);                                                                          \
    T tp_acc_ = (identity);                                                                      \
    int64_t tp_stride_ = (int64_t)gridDim.x * blockDim.x;                                        \
    int64_t tp_i_ = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;                              \
    for (; tp_i_ + 3 * tp_stride_ < tp_n_; tp_i_ += 4 * tp_stride_) {                            \
      name##_body(tp_i_, tp_a_, &tp_acc_);                                                       \
      name##_body(tp_i_ + tp_stride_, tp_a_, &tp_acc_);                                          \
      name##_body(tp_i_ + 2 * tp_stride_, tp_a_, &tp_acc_);                                      \
      name##_body(tp_i_ + 3 * tp_stride_, tp_a_, &tp_acc_);                                      \
    }                                                                                            \
    for (; tp_i_ < tp_n_; tp_i_ += tp_stride_)                                                   \
      name##_body(tp_i_, tp_a_, &tp_acc_);                                                       \
    TPG_BLOCK_REDUCE(T, join, (T *)tp_smem_, tp_acc_);                                           \
    if (threadIdx.x == 0)                                                                        \
      tp_partials_[blockIdx.x] = ((T *)tp_smem_)[0];                                             \
  }                                                                                              \
  static __global__ void name##_final(int64_t tp_count_, const T *tp_partials_, T *tp_result_) { \
    TPG_SMEM(tp_smem_);                                                                          \
    T tp_acc_ = (identity);                                                                      \
    for (int64_t tp_k_ = threadIdx.x; tp_k_ < tp_count_; tp_k_ += blockDim.x)                    \
      tp_acc_ = join(tp_acc_, tp_partials_[tp_k_]);                                              \
    TPG_BLOCK_REDUCE(T, join, (T *)tp_smem_, tp_acc_);                                           \
    if (threadIdx.x == 0)                                                                        \
      *tp_result_ = ((T *)tp_smem_)[0];                                                          \
  }                                                                                              \
  TP_MAYBE_UNUSED static tp_status name##_launch(tp_space *tp_s_, int64_t tp_n_, args_t tp_a_,   \
                                                 T *tp_result_) {                                \
    tpg_reduce tp_r_;                                                                            \
    TP_TRY(tpg_reduce_setup(tp_s_, tp_n_, sizeof(T), #name, &tp_r_));                            \
    if (tp_r_.count > 0) { /* braces: a backend's TPG_LAUNCH may be an if-else */                \
      TPG_LAUNCH(name##_entry, tp_r_.cfg, tp_n_, tp_a_, (T *)tp_r_.partials);                    \
    }                                                                                            \
    if (tpg_reduce_to_final(tp_s_, &tp_r_, #name, __FILE__, __LINE__)) {                         \
      TPG_LAUNCH(name##_final, tp_r_.cfg, tp_r_.count, (const T *)tp_r_.partials, tp_result_);   \
    }                                                                                            \
    return tpg_reduce_finish(tp_s_, &tp_r_, #name "_final", __FILE__, __LINE__);                 \
  }                                                                                              \
  TP_DEVICE void name##_body(int64_t i, args_t a, T *acc)

#define TP_TEAM_KERNEL(name, args_t, team, a) TP_TEAM_KERNEL_IMPL(name, args_t, 0, , team, a)
/* A team kernel whose teams never exceed max_threads (team_size x vector_length) and
 * of which at least min_teams should fit on one multiprocessor: the compiler budgets
 * registers for that. Ignored on the CPU backends. */
#define TP_TEAM_KERNEL_BOUNDED(name, args_t, max_threads, min_teams, team, a) \
  TP_TEAM_KERNEL_IMPL(name, args_t, max_threads, __launch_bounds__(max_threads, min_teams), team, a)
#define TP_TEAM_KERNEL_IMPL(...) TP_TEAM_KERNEL_IMPL_(__VA_ARGS__)
#define TP_TEAM_KERNEL_IMPL_(name, args_t, max_threads, bounds, team, a)                          \
  TP_DEVICE void name##_body(const tp_team *team, args_t a);                                      \
  static __global__ void bounds name##_entry(args_t tp_a_, int64_t tp_n_, size_t tp_bytes_) {     \
    TPG_SMEM(tp_smem_);                                                                           \
    TPG_LEAGUE_FOR(tp_t_, tp_smem_, tp_n_, tp_bytes_) name##_body(&tp_t_, tp_a_);                 \
  }                                                                                               \
  TP_MAYBE_UNUSED static tp_status name##_launch(tp_space *tp_s_, tp_team_policy tp_p_,           \
                                                 args_t tp_a_) {                                  \
    tpg_launch tp_c_;                                                                             \
    TP_TRY(                                                                                       \
        tpg_team_prepare(tp_s_, &tp_p_, (const void *)name##_entry, max_threads, #name, &tp_c_)); \
    if (tp_p_.league_size == 0)                                                                   \
      return TP_SUCCESS;                                                                          \
    TPG_LAUNCH(name##_entry, tp_c_, tp_a_, tp_p_.league_size, tp_p_.scratch_bytes);               \
    return tpg_launch_check(tp_s_, #name, __FILE__, __LINE__);                                    \
  }                                                                                               \
  TP_DEVICE void name##_body(const tp_team *team, args_t a)

#endif
