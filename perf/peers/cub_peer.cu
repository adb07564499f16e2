// CUB peer for benchmarks: times cub::DeviceReduce::Sum, cub::DeviceScan::ExclusiveSum and
// cub::DeviceRadixSort::SortPairs with CUDA events. Interface and contract: peer.h.
//
// Item counts: CUB (CCCL 2.x/3.x) takes num_items as a template type and picks 32- or
// 64-bit offsets from it. A count that fits in int is passed as int, the type a typical
// caller passes and CUB's fastest path; larger counts as int64_t. Define
// TP_PEER_ALWAYS_INT64 to pass int64_t always.
#include "perf/peers/peer.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <vector>

namespace {

thread_local char g_error[512];

// Records a message for tp_peer_last_error() and returns -1.
int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(g_error, sizeof g_error, fmt, ap);
  va_end(ap);
  (void)cudaGetLastError(); // clear a non-sticky error so later callers start clean
  return -1;
}

#define PEER_CHECK(call)                                                                      \
  do {                                                                                        \
    cudaError_t peer_e_ = (call);                                                             \
    if (peer_e_ != cudaSuccess)                                                               \
      return fail("%s:%d: %s: %s (%s)", __FILE__, __LINE__, #call, cudaGetErrorName(peer_e_), \
                  cudaGetErrorString(peer_e_));                                               \
  } while (0)

// Calls f(count) with n as int when it fits, else as int64_t (see the top of the file).
template <class F> cudaError_t with_count(int64_t n, F f) {
#ifndef TP_PEER_ALWAYS_INT64
  if (n <= INT_MAX)
    return f(static_cast<int>(n));
#endif
  return f(n);
}

// Device allocations and events of one timing call; freed on every return path.
struct Session {
  std::vector<void *> buffers;
  cudaEvent_t start = nullptr, stop = nullptr;

  // At least one byte: CUB reads a null d_temp_storage as a size query.
  cudaError_t alloc(void **p, size_t bytes) {
    *p = nullptr;
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaSuccess)
      buffers.push_back(*p);
    return e;
  }
  cudaError_t create_events() {
    cudaError_t e = cudaEventCreate(&start);
    return e == cudaSuccess ? cudaEventCreate(&stop) : e;
  }
  // Frees everything; returns the first error.
  cudaError_t release() {
    cudaError_t first = cudaSuccess;
    auto keep = [&](cudaError_t e) {
      if (first == cudaSuccess)
        first = e;
    };
    for (void *p : buffers)
      keep(cudaFree(p));
    buffers.clear();
    if (start)
      keep(cudaEventDestroy(start));
    if (stop)
      keep(cudaEventDestroy(stop));
    start = stop = nullptr;
    return first;
  }
  ~Session() { (void)release(); }
};

int check_args(int64_t n, int warmup, int reps, double *median_ms) {
  g_error[0] = '\0';
  if (n < 0)
    return fail("n must be >= 0 (got %lld)", (long long)n);
  if (warmup < 0)
    return fail("warmup must be >= 0 (got %d)", warmup);
  if (reps < 1)
    return fail("reps must be >= 1 (got %d)", reps);
  if (!median_ms)
    return fail("median_ms is NULL");
  return 0;
}

// Runs `warmup` + `reps` calls of run(); prepare() (untimed) goes before each of them.
// Only run() lies between the two events of a timed call.
template <class Prepare, class Run>
int time_calls(Session &s, cudaStream_t stream, int warmup, int reps, Prepare prepare, Run run,
               double *median_ms) {
  std::vector<float> ms(static_cast<size_t>(reps));
  for (int i = 0; i < warmup + reps; ++i) {
    PEER_CHECK(prepare());
    if (i < warmup) {
      PEER_CHECK(run());
      continue;
    }
    PEER_CHECK(cudaEventRecord(s.start, stream));
    PEER_CHECK(run());
    PEER_CHECK(cudaEventRecord(s.stop, stream));
    PEER_CHECK(cudaEventSynchronize(s.stop));
    PEER_CHECK(cudaEventElapsedTime(&ms[i - warmup], s.start, s.stop));
  }
  PEER_CHECK(cudaStreamSynchronize(stream));
  PEER_CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  size_t h = ms.size() / 2;
  *median_ms = ms.size() % 2 ? ms[h] : 0.5 * (static_cast<double>(ms[h - 1]) + ms[h]);
  return 0;
}

cudaError_t no_prepare() { return cudaSuccess; }

} // namespace

extern "C" const char *tp_peer_name(void) {
  static char name[32];
  static const bool once = [] {
    std::snprintf(name, sizeof name, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
                  CUB_SUBMINOR_VERSION);
    return true;
  }();
  (void)once;
  return name;
}

extern "C" const char *tp_peer_last_error(void) { return g_error; }

// Times a CUB device-wide call(temp, bytes), which reports the temporary storage it
// needs when temp is null: the storage is allocated once, outside the timing.
template <class Call>
int time_cub_call(cudaStream_t st, int warmup, int reps, double *median_ms, Call call) {
  Session s;
  size_t bytes = 0;
  PEER_CHECK(call(nullptr, bytes));
  void *temp = nullptr;
  PEER_CHECK(s.alloc(&temp, bytes));
  PEER_CHECK(s.create_events());
  auto run = [&] {
    size_t b = bytes;
    return call(temp, b);
  };
  if (int rc = time_calls(s, st, warmup, reps, no_prepare, run, median_ms))
    return rc;
  PEER_CHECK(s.release());
  return 0;
}

extern "C" int tp_peer_reduce_sum_f64(void *stream, const double *d_in, int64_t n, double *d_out,
                                      int warmup, int reps, double *median_ms) {
  if (int rc = check_args(n, warmup, reps, median_ms))
    return rc;
  if ((n > 0 && !d_in) || !d_out)
    return fail("reduce: NULL device pointer");
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  return time_cub_call(st, warmup, reps, median_ms, [&](void *temp, size_t &bytes) {
    return with_count(
        n, [&](auto cnt) { return cub::DeviceReduce::Sum(temp, bytes, d_in, d_out, cnt, st); });
  });
}

extern "C" int tp_peer_exclusive_scan_i32(void *stream, const int32_t *d_in, int32_t *d_out,
                                          int64_t n, int warmup, int reps, double *median_ms) {
  if (int rc = check_args(n, warmup, reps, median_ms))
    return rc;
  if (n > 0 && (!d_in || !d_out))
    return fail("scan: NULL device pointer");
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  return time_cub_call(st, warmup, reps, median_ms, [&](void *temp, size_t &bytes) {
    return with_count(n, [&](auto cnt) {
      return cub::DeviceScan::ExclusiveSum(temp, bytes, d_in, d_out, cnt, st);
    });
  });
}

// The DoubleBuffer overload (CUB's fastest, it may overwrite both buffers of each pair):
// the caller's arrays are the current buffers, the alternates are allocated here, and a
// saved copy of the input restores the caller's arrays before every call.
extern "C" int tp_peer_sort_pairs_u64_u32(void *stream, uint64_t *d_keys, uint32_t *d_values,
                                          int64_t n, int warmup, int reps, double *median_ms) {
  if (int rc = check_args(n, warmup, reps, median_ms))
    return rc;
  if (n > 0 && (!d_keys || !d_values))
    return fail("sort: NULL device pointer");
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  const size_t key_bytes = static_cast<size_t>(n) * sizeof(uint64_t);
  const size_t val_bytes = static_cast<size_t>(n) * sizeof(uint32_t);
  Session s;
  void *keys_alt, *vals_alt, *keys_saved, *vals_saved;
  PEER_CHECK(s.alloc(&keys_alt, key_bytes));
  PEER_CHECK(s.alloc(&vals_alt, val_bytes));
  PEER_CHECK(s.alloc(&keys_saved, key_bytes));
  PEER_CHECK(s.alloc(&vals_saved, val_bytes));
  PEER_CHECK(cudaMemcpyAsync(keys_saved, d_keys, key_bytes, cudaMemcpyDeviceToDevice, st));
  PEER_CHECK(cudaMemcpyAsync(vals_saved, d_values, val_bytes, cudaMemcpyDeviceToDevice, st));

  cub::DoubleBuffer<uint64_t> keys(d_keys, static_cast<uint64_t *>(keys_alt));
  cub::DoubleBuffer<uint32_t> vals(d_values, static_cast<uint32_t *>(vals_alt));
  const int end_bit = 64;
  size_t bytes = 0;
  PEER_CHECK(with_count(n, [&](auto cnt) {
    return cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, cnt, 0, end_bit, st);
  }));
  void *temp = nullptr;
  PEER_CHECK(s.alloc(&temp, bytes));
  PEER_CHECK(s.create_events());

  auto prepare = [&] {
    keys = cub::DoubleBuffer<uint64_t>(d_keys, static_cast<uint64_t *>(keys_alt));
    vals = cub::DoubleBuffer<uint32_t>(d_values, static_cast<uint32_t *>(vals_alt));
    cudaError_t e = cudaMemcpyAsync(d_keys, keys_saved, key_bytes, cudaMemcpyDeviceToDevice, st);
    if (e != cudaSuccess)
      return e;
    return cudaMemcpyAsync(d_values, vals_saved, val_bytes, cudaMemcpyDeviceToDevice, st);
  };
  auto run = [&] {
    return with_count(n, [&](auto cnt) {
      size_t b = bytes;
      return cub::DeviceRadixSort::SortPairs(temp, b, keys, vals, cnt, 0, end_bit, st);
    });
  };
  if (int rc = time_calls(s, st, warmup, reps, prepare, run, median_ms))
    return rc;

  // The result of the last call may sit in the alternate buffers.
  if (keys.Current() != d_keys)
    PEER_CHECK(cudaMemcpyAsync(d_keys, keys.Current(), key_bytes, cudaMemcpyDeviceToDevice, st));
  if (vals.Current() != d_values)
    PEER_CHECK(cudaMemcpyAsync(d_values, vals.Current(), val_bytes, cudaMemcpyDeviceToDevice, st));
  PEER_CHECK(cudaStreamSynchronize(st));
  PEER_CHECK(s.release());
  return 0;
}
