/* HIP backend: maps the GPU layer's tpg_* names onto HIP. The GPU layer itself is the
 * one the CUDA backend runs, so CUDA runs vouch for this path. */
#ifndef TP_BACKEND_H
#define TP_BACKEND_H

#include <hip/hip_runtime.h>

#define TP_BACKEND_NAME "hip"
#define TPG_WARP_SIZE 64 /* wavefront of CDNA GPUs (gfx90a and later) */

#define TPG(name) hip##name
typedef hipError_t tpg_error_t;
typedef hipStream_t tpg_stream_t;
typedef hipEvent_t tpg_event_t;
typedef hipDeviceProp_t tpg_device_prop;
#define TPG_SUCCESS hipSuccess
#define TPG_ERROR_MEMORY hipErrorOutOfMemory
#define TPG_ERROR_NO_DEVICE hipErrorNoDevice
#define tpg_prop_shared_per_block_optin(p) ((size_t)(p)->sharedMemPerBlock)
typedef hipGraph_t tpg_graph_t;
typedef hipGraphExec_t tpg_graph_exec_t;
#define tpg_graph_instantiate(exec, graph) hipGraphInstantiate((exec), (graph), NULL, NULL, 0)
#define TPG_CAPTURE_THREAD_LOCAL hipStreamCaptureModeThreadLocal
#define tpg_prop_shared_per_sm(p) ((size_t)(p)->maxSharedMemoryPerMultiProcessor)

/* Wavefronts run in lockstep: intrinsics take no mask. */
#define tpg_syncwarp(mask) __builtin_amdgcn_wave_barrier()
#define tpg_ballot(mask, pred) ((uint64_t)__ballot(pred))
#define tpg_shfl(mask, v, src, width) __shfl((v), (src), (width))
#define tpg_shfl_xor(mask, v, off, width) __shfl_xor((v), (off), (width))
#define tpg_shfl_up(mask, v, off, width) __shfl_up((v), (off), (width))

/* Device-scope atomics are also correct at team scope. */
#define tpg_atomic_add_block atomicAdd
#define tpg_atomic_cas_block atomicCAS

#include "gpu/tp_gpu.h"
#endif
