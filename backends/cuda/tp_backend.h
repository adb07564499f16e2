/* CUDA backend: maps the GPU layer's tpg_* names onto the CUDA runtime. */
#ifndef TP_BACKEND_H
#define TP_BACKEND_H

#include <cuda_runtime.h>

#define TP_BACKEND_NAME "cuda"
#define TPG_WARP_SIZE 32

/* Runtime API: TPG(Malloc) is cudaMalloc. */
#define TPG(name) cuda##name
typedef cudaError_t tpg_error_t;
typedef cudaStream_t tpg_stream_t;
typedef cudaEvent_t tpg_event_t;
typedef cudaDeviceProp tpg_device_prop;
#define TPG_SUCCESS cudaSuccess
#define TPG_ERROR_MEMORY cudaErrorMemoryAllocation
#define TPG_ERROR_NO_DEVICE cudaErrorNoDevice
#define tpg_prop_shared_per_block_optin(p) ((size_t)(p)->sharedMemPerBlockOptin)
typedef cudaGraph_t tpg_graph_t;
typedef cudaGraphExec_t tpg_graph_exec_t;
#define tpg_graph_instantiate(exec, graph) cudaGraphInstantiate((exec), (graph), 0)
#define TPG_CAPTURE_THREAD_LOCAL cudaStreamCaptureModeThreadLocal
#define tpg_prop_shared_per_sm(p) ((size_t)(p)->sharedMemPerMultiprocessor)

/* Warp intrinsics: masks are 64-bit in the GPU layer, 32-bit here. */
#define tpg_syncwarp(mask) __syncwarp((unsigned)(mask))
#define tpg_ballot(mask, pred) ((uint64_t)__ballot_sync((unsigned)(mask), (pred)))
#define tpg_shfl(mask, v, src, width) __shfl_sync((unsigned)(mask), (v), (src), (width))
#define tpg_shfl_xor(mask, v, off, width) __shfl_xor_sync((unsigned)(mask), (v), (off), (width))
#define tpg_shfl_up(mask, v, off, width) __shfl_up_sync((unsigned)(mask), (v), (off), (width))

/* Lanes of a whole warp whose bit selected by `bit` (a one-bit mask) of v agrees with
 * this lane's: one bit test that is both the ballot's predicate and the choice of the
 * ballot or its complement (three SASS instructions; the compiler made six of the same
 * C, testing the bit twice). The mask is a constant: ptxas fails to allocate this with
 * a mask in a register. */
static __device__ __forceinline__ unsigned tpg_warp_same_bit_lanes(unsigned v, unsigned bit) {
  unsigned lanes;
  asm("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\t"
      "and.b32 t, %1, %2;\n\t"
      "setp.ne.u32 p, t, 0;\n\t"
      "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
      "@!p not.b32 %0, %0;\n\t}"
      : "=r"(lanes)
      : "r"(v), "r"(bit));
  return lanes;
}
#define tpg_warp_same_bit_lanes tpg_warp_same_bit_lanes

/* Team-scope atomics. */
#define tpg_atomic_add_block atomicAdd_block
#define tpg_atomic_cas_block atomicCAS_block

#include "backends/gpu/tp_gpu.h"
#endif
