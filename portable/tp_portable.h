/* The portable layer: what every algorithm and primitive source includes.
 *
 * The backend is chosen by the include path (backends/<name>/tp_backend.h), so sources
 * written against this header carry no backend conditionals. What it provides:
 *   qualifiers    TP_INLINE (host+device), TP_DEVICE (kernel-side), TP_DEVICE_ALWAYS_INLINE, TP_RESTRICT, TP_UNROLL
 *   kernels       TP_RANGE_KERNEL, TP_RANGE2_KERNEL, TP_RANGE_REDUCE_KERNEL, TP_TEAM_KERNEL
 *   team loops    TP_TEAM_FOR, TP_VECTOR_FOR, TP_VECTOR_FOR_SUM, TP_TEAM_VECTOR_FOR,
 *                 TP_TEAM_SINGLE, TP_VECTOR_SINGLE, tp_team_barrier, team->scratch
 *   collectives   tp_collectives.h; lane shuffles, tp_vector_ballot, tp_vector_match
 *   atomics       tp_atomic_{add,fetch_add,max}_T[_team] for T in i32 u32 i64 u64 f32 f64,
 *                 tp_atomic_cas_T[_team], tp_atomic_{load,store}[_relaxed]_T for the
 *                 integers. Relaxed, except load (acquire) and store (release); _team: only the
 *                 calling team touches the location. Float max stores v when v > *p:
 *                 NaN is never stored and a stored NaN stays.
 *   fences        tp_memory_fence(): earlier accesses before later ones, device-wide
 *   prefetch      tp_prefetch_range(p, bytes, for_write), TP_PREFETCH_AHEAD (0: none)
 *   SIMD arrays   tp_simd.h
 *   alignment     TP_ALIGNAS(n) on a member, in either language
 * See backends/host/tp_host.h and backends/gpu/tp_gpu.h for the two implementations. */
#ifndef TP_PORTABLE_H
#define TP_PORTABLE_H

#include <stddef.h>
#include <stdint.h>

/* the layer names no method: only these public headers */
#include "tenport/memory.h"
#include "tenport/primitives.h"
#include "tenport/space.h"
#include "tenport/status.h"
#include "portable/tp_error.h"
#include "portable/tp_paste.h"
#include "portable/tp_policy.h"
#include "portable/tp_space_common.h"
#include "tp_backend.h"
#include "portable/tp_collectives.h"
#include "portable/tp_simd.h"

/* Alignment of a struct member: algorithm sources are compiled as C11 and as C++. */
#ifdef __cplusplus
#define TP_ALIGNAS(n) alignas(n)
#else
#define TP_ALIGNAS(n) _Alignas(n)
#endif

/* The launcher a kernel macro defined for name. */
#define TP_LAUNCHER(name) TP_PASTE(name, _launch)

TP_INLINE int64_t tp_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
TP_INLINE int64_t tp_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
TP_INLINE int64_t tp_ceil_div_i64(int64_t a, int64_t b) { return (a + b - 1) / b; }

#endif
