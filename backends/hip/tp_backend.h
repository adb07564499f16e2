/* HIP backend: maps the GPU layer's tpg_* names onto HIP. The GPU layer itself is the
 * one the CUDA backend runs. Two platforms compile it (meson -Dhip_platform): amd, hipcc
 * for an AMD GPU, and cpu, the HIP CPU runtime (TP_HIP_CPU), which executes this same
 * code on a CPU in CI; tp_hip_cpu.h holds what that runtime needs beyond the AMD build. */
#ifndef TP_BACKEND_H
#define TP_BACKEND_H

#ifdef TP_HIP_CPU
#include "backends/hip/tp_hip_cpu.h"
#else
#include <hip/hip_runtime.h>
#endif

#define TP_BACKEND_NAME "hip"
#define TPG_WARP_SIZE 64 /* wavefront of CDNA GPUs (gfx90a and later) and of the CPU runtime */

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

#ifdef TP_HIP_CPU
/* Wavefronts of fibers: the lanes of the mask exchange through the block's thread. */
#define tpg_get_device_properties(p, device) tp_hip_cpu::device_properties((p), (device))
#define tpg_syncwarp(mask) tp_hip_cpu::wave_sync(mask)
#define tpg_ballot(mask, pred) tp_hip_cpu::ballot((mask), (pred))
#define tpg_shfl(mask, v, src, width) tp_hip_cpu::shfl((mask), (v), (src), (width))
#define tpg_shfl_xor(mask, v, off, width) tp_hip_cpu::shfl_xor((mask), (v), (off), (width))
#define tpg_shfl_up(mask, v, off, width) tp_hip_cpu::shfl_up((mask), (v), (off), (width))
/* Kernels are launched by the runtime's macro, dynamic shared memory is its vector. */
#define TPG_LAUNCH(entry, cfg, ...)                                               \
  hipLaunchKernelGGL(entry, dim3((cfg).grid), dim3((cfg).block_x, (cfg).block_y), \
                     (cfg).shared_bytes, (cfg).stream, __VA_ARGS__)
#define TPG_SMEM(name) HIP_DYNAMIC_SHARED(unsigned char, name)
#else
/* Wavefronts run in lockstep: intrinsics take no mask. */
#define tpg_syncwarp(mask) __builtin_amdgcn_wave_barrier()
#define tpg_ballot(mask, pred) ((uint64_t)__ballot(pred))
#define tpg_shfl(mask, v, src, width) __shfl((v), (src), (width))
#define tpg_shfl_xor(mask, v, off, width) __shfl_xor((v), (off), (width))
#define tpg_shfl_up(mask, v, off, width) __shfl_up((v), (off), (width))
#endif

/* Device-scope atomics are also correct at team scope. */
#define tpg_atomic_add_block atomicAdd
#define tpg_atomic_cas_block atomicCAS

#include "backends/gpu/tp_gpu.h"
#endif
