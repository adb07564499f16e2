/* The hip backend on the HIP CPU runtime (meson -Dhip_platform=cpu): the GPU layer of
 * backends/gpu runs on a CPU, every work-item of a block a fiber, __syncthreads a switch
 * of fibers, wavefronts of warpSize = 64 lanes. This header is what the runtime needs
 * beyond the AMD build; backends/hip/tp_backend.h includes it in place of
 * <hip/hip_runtime.h> and maps the GPU layer's tpg_* names onto it.
 *
 *   fiber stacks   the runtime gives each fiber 7 KiB; kernels get TP_HIP_CPU_STACK.
 *   wavefronts     ballots, shuffles and wave syncs among the lanes of a mask only (the
 *                  runtime's own synchronise the whole block, so a vector group that
 *                  calls them while other groups of its block do not would stall the
 *                  schedule, and its shuffles narrower than 64 lanes read wrong lanes).
 *                  Lanes are numbered as on a GPU, threadIdx.x fastest.
 *   properties     warpSize 64 (the runtime reports the host's SIMD width), 64 KiB of
 *                  LDS per block as on gfx90a (it reports the host's L1 size).
 *   corrections    hipMalloc reports a failed allocation; a stream waits for an event
 *                  on the host (the runtime's wait can deadlock its stream workers);
 *                  the idle stream processor yields its core rather than spin.
 *   not there      graphs (tp_space_can_record says no: work is issued launch by
 *                  launch), a dynamic shared memory limit (any size is a vector).
 */
#ifndef TP_HIP_CPU_H
#define TP_HIP_CPU_H

#include <stdint.h>
#include <string.h>

/* ---- fiber stacks ---------------------------------------------------------------- */
/* libco as the runtime includes it (fiber.hpp), then every co_create asks for at least
 * TP_HIP_CPU_STACK bytes; the runtime's later #include of libco.h is then a no-op. */
#ifndef TP_HIP_CPU_STACK
#define TP_HIP_CPU_STACK (256u * 1024u)
#endif
#define LIBCO_MP
#define LIBCO_MPROTECT
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
#include <libco/libco.h>
#pragma GCC diagnostic pop
#if defined(thread_local) /* as the runtime does after libco */
#undef thread_local
#endif
#define co_create(bytes, entry) \
  co_create((bytes) < TP_HIP_CPU_STACK ? TP_HIP_CPU_STACK : (bytes), (entry))

/* The runtime's stream processor spins on a pause instruction while it waits for work;
 * it yields the core instead, which the work-items need (more so in MPI runs, a
 * runtime per rank). */
#include <thread>
#define YieldProcessor() std::this_thread::yield()

#include <hip/hip_runtime.h>

/* The runtime marks device functions and kernels for SIMD clones (and kernels for
 * flattening): code the fibers never use, at several times the compile time. */
#undef __device__
#define __device__
#undef __global__
#define __global__

namespace tp_hip_cpu {
using hip::detail::Fiber;
using hip::detail::Tile;

/* The calling work-item's index in its block, threadIdx.x fastest as on a GPU (the
 * runtime numbers its fibers threadIdx.y fastest), and the fiber of index l. */
inline unsigned linear() noexcept {
  const hip::detail::Dim3 &d = Tile::this_tile().dimensions();
  unsigned f = id(Fiber::this_fiber());
  return f % d.y * d.x + f / d.y;
}
inline const Fiber &fiber_of(unsigned l) noexcept {
  const hip::detail::Dim3 &d = Tile::this_tile().dimensions();
  return Tile::fibers()[l % d.x * d.y + l / d.x];
}

/* The lanes of mask (in the caller's wavefront, the caller among them) wait for each
 * other: each yields to the next lane of the mask and the last to the first, the
 * runtime's round-robin barrier restricted to the lanes that take part. (The runtime
 * runs a block's work-items one after the other, without fibers, only when work-item 0
 * meets no barrier; team kernels synchronise their block after each league rank, so
 * lanes that exchange always run as fibers.) */
inline void wave_sync(uint64_t mask) noexcept {
  unsigned me = linear(), lane = me % 64u, base = me - lane;
  uint64_t later = lane == 63u ? 0 : mask & (~(uint64_t)0 << (lane + 1u));
  unsigned next = base + (unsigned)__builtin_ctzll(later ? later : mask);
  if (next == me)
    return;
  hip::detail::this_tile::has_barrier = true;
  Fiber::yield(fiber_of(next));
}

/* Each lane's published word, by linear index (a block runs on one thread). */
inline uint64_t *slots() noexcept {
  static thread_local uint64_t s[1024];
  return s;
}

template <typename T> inline uint64_t to_word(T v) noexcept {
  uint64_t w = 0;
  memcpy(&w, &v, sizeof v);
  return w;
}
template <typename T> inline T from_word(uint64_t w) noexcept {
  T v;
  memcpy(&v, &w, sizeof v);
  return v;
}

/* The value lane src (an index within the wavefront) published: all lanes of mask
 * publish, wait, read and wait again before the slots are reused. */
template <typename T> inline T exchange(uint64_t mask, T v, unsigned src) noexcept {
  unsigned me = linear(), base = me - me % 64u;
  slots()[me] = to_word(v);
  wave_sync(mask);
  T r = from_word<T>(slots()[base + src]);
  wave_sync(mask);
  return r;
}

inline uint64_t ballot(uint64_t mask, int pred) noexcept {
  unsigned me = linear(), base = me - me % 64u;
  slots()[me] = pred != 0;
  wave_sync(mask);
  uint64_t r = 0;
  for (uint64_t m = mask; m; m &= m - 1) {
    unsigned b = (unsigned)__builtin_ctzll(m);
    r |= (slots()[base + b] & 1u) << b;
  }
  wave_sync(mask);
  return r;
}

/* Source lanes as AMD's __shfl, __shfl_xor and __shfl_up compute them within segments
 * of width lanes: a source past the segment's end (xor) or before its start (up) gives
 * the caller's own value. */
template <typename T> inline T shfl(uint64_t mask, T v, int src, int width) noexcept {
  unsigned lane = linear() % 64u;
  return exchange(mask, v, (lane & ~(unsigned)(width - 1)) + ((unsigned)src & (width - 1)));
}
template <typename T> inline T shfl_xor(uint64_t mask, T v, int lane_mask, int width) noexcept {
  unsigned lane = linear() % 64u, seg = lane & ~(unsigned)(width - 1);
  unsigned src = lane ^ (unsigned)lane_mask;
  return exchange(mask, v, src >= seg + (unsigned)width ? lane : src);
}
template <typename T> inline T shfl_up(uint64_t mask, T v, int delta, int width) noexcept {
  unsigned lane = linear() % 64u, seg = lane & ~(unsigned)(width - 1);
  return exchange(mask, v, lane - seg < (unsigned)delta ? lane : lane - (unsigned)delta);
}

/* Device properties as a kernel sees them. */
inline hipError_t device_properties(hipDeviceProp_t *p, int device) noexcept {
  hipError_t e = hipGetDeviceProperties(p, device);
  if (e == hipSuccess) {
    p->warpSize = warpSize;
    p->sharedMemPerBlock = 64 * 1024;
    p->maxSharedMemoryPerMultiProcessor = 64 * 1024;
  }
  return e;
}
} // namespace tp_hip_cpu

/* ---- corrections ------------------------------------------------------------------- */
/* hipMalloc reports success when malloc fails (it tests the pointer's address). */
inline hipError_t tp_hip_cpu_malloc(void **p, size_t bytes) {
  hipError_t e = hipMalloc(p, bytes);
  return e == hipSuccess && bytes > 0 && !*p ? hipErrorOutOfMemory : e;
}
#define hipMalloc tp_hip_cpu_malloc
/* hipStreamWaitEvent queues a task that blocks the waiting stream's worker until the
 * event's stream gets there, which deadlocks when one worker drains both streams, and
 * it waits on whatever the event was recorded on last. The host waits instead: the
 * waiting stream's later work is issued after the event's work has run. */
inline hipError_t tp_hip_cpu_stream_wait_event(hipStream_t, hipEvent_t event, unsigned) {
  return hipEventSynchronize(event);
}
#define hipStreamWaitEvent tp_hip_cpu_stream_wait_event

/* ---- what the runtime lacks --------------------------------------------------------- */
/* Bit casts of the HIP device library. */
inline unsigned int __float_as_uint(float x) {
  return tp_hip_cpu::from_word<unsigned int>(tp_hip_cpu::to_word(x));
}
inline float __uint_as_float(unsigned int x) { return tp_hip_cpu::from_word<float>(x); }
inline long long __double_as_longlong(double x) {
  return tp_hip_cpu::from_word<long long>(tp_hip_cpu::to_word(x));
}

/* Dynamic shared memory is a vector sized at each launch: no limit to raise. */
enum hipFuncAttribute { hipFuncAttributeMaxDynamicSharedMemorySize = 8 };
inline hipError_t hipFuncSetAttribute(const void *, hipFuncAttribute, int) { return hipSuccess; }

/* No graphs: TPG_NO_GRAPHS makes tp_space_can_record say no, so these never run. */
#define TPG_NO_GRAPHS 1
typedef struct tp_hip_cpu_graph *hipGraph_t;
typedef struct tp_hip_cpu_graph_exec *hipGraphExec_t;
enum hipStreamCaptureMode { hipStreamCaptureModeThreadLocal = 1 };
inline hipError_t hipStreamBeginCapture(hipStream_t, hipStreamCaptureMode) {
  return hipErrorNotSupported;
}
inline hipError_t hipStreamEndCapture(hipStream_t, hipGraph_t *) { return hipErrorNotSupported; }
inline hipError_t hipGraphInstantiate(hipGraphExec_t *, hipGraph_t, void *, char *, size_t) {
  return hipErrorNotSupported;
}
inline hipError_t hipGraphDestroy(hipGraph_t) { return hipErrorNotSupported; }
inline hipError_t hipGraphLaunch(hipGraphExec_t, hipStream_t) { return hipErrorNotSupported; }
inline hipError_t hipGraphExecDestroy(hipGraphExec_t) { return hipErrorNotSupported; }

#endif
