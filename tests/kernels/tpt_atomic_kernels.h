/* Atomic test kernels (atomic_kernels.c): many iterations of a range kernel, or every
 * thread and lane of a team, hit a few counters with the portable atomics
 * tp_atomic_{add,fetch_add,cas,max,load,store}_T and their _team variants.
 * T is one of i32 (int32_t), i64 (int64_t), u32 (uint32_t), u64 (uint64_t), f32 (float)
 * and f64 (double); cas, load and store exist for the integer types only. Pointers are
 * space memory; idx[i] must lie in [0, m) for the m counters a call is given. Every
 * entry point checks n >= 0, m in [1, TPT_ATOMIC_MAX_COUNTERS] and its pointers (NULL
 * only when nothing is read or written), failing with TP_ERROR_INVALID_ARGUMENT. */
#ifndef TPT_ATOMIC_KERNELS_H
#define TPT_ATOMIC_KERNELS_H

#include <stdint.h>

#include "tenport/tenport.h"
#include "portable/tp_extern_c.h"
#include "portable/tp_policy.h"
#include "tests/kernels/tpt_kernels.h"

TP_EXTERN_C_BEGIN

/* The most counters (slots) a call accepts. */
#define TPT_ATOMIC_MAX_COUNTERS 64

/* ---- global scope (range kernels over i < n) ---------------------------------- */
/* add:       tp_atomic_add_T(&counters[idx[i]], v[i]).
 * fetch_add: tickets[i] = tp_atomic_fetch_add_T(&counters[idx[i]], step).
 * max:       old[i] = tp_atomic_max_T(&counters[idx[i]], v[i]). */
#define TPT_DECLARE_ATOMIC_ANY(sfx, T)                                                        \
  tp_status tpt_atomic_add_##sfx(tp_space *space, const int32_t *idx, const T *v, int64_t n,  \
                                 int m, T *counters);                                         \
  tp_status tpt_atomic_fetch_add_##sfx(tp_space *space, const int32_t *idx, int64_t n, int m, \
                                       T step, T *counters, T *tickets);                      \
  tp_status tpt_atomic_max_##sfx(tp_space *space, const int32_t *idx, const T *v, int64_t n,  \
                                 int m, T *counters, T *old);

/* claim:      contender i (id = id_base + i id_stride, never the all-ones EMPTY) walks
 *             slots 0..m-1 with tp_atomic_cas_T(&slots[k], EMPTY, id) and stops at the first
 *             it wins: won[i] = that k, or m when it won none; first_seen[i] = what the
 *             cas on slot 0 returned (EMPTY for the slot-0 winner, its id for everyone
 *             else). Slots must start EMPTY (all bits set, as tpt_alloc_poisoned leaves them).
 * load_store: tp_atomic_store_T(&out[i], tp_atomic_load_T(&in[i])). */
#define TPT_DECLARE_ATOMIC_INT(sfx, T)                                                            \
  TPT_DECLARE_ATOMIC_ANY(sfx, T)                                                                  \
  tp_status tpt_atomic_cas_claim_##sfx(tp_space *space, int64_t n, int m, T id_base, T id_stride, \
                                       T *slots, int32_t *won, T *first_seen);                    \
  tp_status tpt_atomic_load_store_##sfx(tp_space *space, const T *in, int64_t n, T *out);

TPT_DECLARE_ATOMIC_INT(i32, int32_t)
TPT_DECLARE_ATOMIC_INT(i64, int64_t)
TPT_DECLARE_ATOMIC_INT(u32, uint32_t)
TPT_DECLARE_ATOMIC_INT(u64, uint64_t)
TPT_DECLARE_ATOMIC_ANY(f32, float)
TPT_DECLARE_ATOMIC_ANY(f64, double)

/* ---- team scope (a team kernel; counters in team scratch) ------------------------ */
/* Team l owns elements e = l len + i, i < len, which all its threads and lanes split
 * (TP_TEAM_VECTOR_FOR). In its scratch it keeps m counters of each kind, set to 0, 0,
 * max_init and EMPTY, then, with the _team atomics, for every element:
 *   add:     tp_atomic_add_T_team(&sum[idx[e]], v[e])
 *   max:     tp_atomic_max_T_team(&mx[idx[e]], v[e])
 *   tickets: tickets[e] = tp_atomic_fetch_add_T_team(&ctr[idx[e]], 1)
 *   claim:   (integers only) as tpt_atomic_cas_claim_T over the team's m slots with
 *            id = i and won[e] = the slot won or m (floats: won is not touched)
 * and finally writes sums[l m + k], maxes[l m + k], counts[l m + k] = ctr[k] and
 * slots[l m + k] (integers only) for k < m. *shape receives the team shape that ran. */
#define TPT_DECLARE_TEAM_ATOMIC(sfx, T)                                                    \
  tp_status tpt_team_atomics_##sfx(tp_space *space, int team_size, int vector_length,      \
                                   int64_t league, int64_t len, int m, const int32_t *idx, \
                                   const T *v, T max_init, T *sums, T *maxes, T *counts,   \
                                   T *tickets, T *slots, int32_t *won, tpt_shape *shape);

TPT_DECLARE_TEAM_ATOMIC(i32, int32_t)
TPT_DECLARE_TEAM_ATOMIC(i64, int64_t)
TPT_DECLARE_TEAM_ATOMIC(u32, uint32_t)
TPT_DECLARE_TEAM_ATOMIC(u64, uint64_t)
TPT_DECLARE_TEAM_ATOMIC(f32, float)
TPT_DECLARE_TEAM_ATOMIC(f64, double)

TP_EXTERN_C_END
#endif
