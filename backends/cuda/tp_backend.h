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

/* Team-scope atomics. */
#define tpg_atomic_add_block atomicAdd_block
#define tpg_atomic_cas_block atomicCAS_block

#include "backends/gpu/tp_gpu.h"
#endif
