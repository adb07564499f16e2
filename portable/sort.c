/* Stable radix sorts, one instantiation of sort_template.h per key/value pair. */
/* generates: sort_all_digits_keys_u32 sort_all_digits_keys_u64 sort_all_digits_pairs_u32_u32
 * sort_all_digits_pairs_u32_u64 sort_all_digits_pairs_u64_u32 sort_all_digits_pairs_u64_u64
 * sort_digit_starts sort_hist_keys_u32 sort_hist_keys_u64 sort_hist_pairs_u32_u32
 * sort_hist_pairs_u32_u64 sort_hist_pairs_u64_u32 sort_hist_pairs_u64_u64 sort_onesweep_keys_u32
 * sort_onesweep_keys_u64 sort_onesweep_pairs_u32_u32 sort_onesweep_pairs_u32_u64
 * sort_onesweep_pairs_u64_u32 sort_onesweep_pairs_u64_u64 sort_scatter_keys_u32
 * sort_scatter_keys_u64 sort_scatter_pairs_u32_u32 sort_scatter_pairs_u32_u64
 * sort_scatter_pairs_u64_u32 sort_scatter_pairs_u64_u64 */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_portable.h"
#include "portable/tp_tiling.h"
#include "portable/tp_sort_internal.h"

#define SORT_RADIX_BITS 8
#define SORT_RADIX 256
/* Keys a thread ranks per round: registers on GPUs; on CPUs (one thread per team) a
 * long round amortises the per-round digit scan and lengthens the runs each digit
 * writes (4096 beat 1024). */
#ifndef SORT_GPU_ITEMS
#define SORT_GPU_ITEMS 16
#endif
#define SORT_ITEMS (TP_IS_GPU ? SORT_GPU_ITEMS : 4096)
/* Keys a thread loads at once before ranking them, so that their loads overlap: a key
 * loaded just before its ballots makes the warp wait out the memory latency once per
 * key. 8 beat 4 (less overlap) and 16 (more registers). */
#ifndef SORT_GPU_RANK_BATCH
#define SORT_GPU_RANK_BATCH 8
#endif
#define SORT_RANK_BATCH (TP_IS_GPU ? SORT_GPU_RANK_BATCH : SORT_ITEMS)
typedef char tp_sort_batches_fill_a_round[SORT_GPU_ITEMS % SORT_GPU_RANK_BATCH == 0 ? 1 : -1];
/* Team threads (of 32 lanes) on GPUs. With onesweep, 8 threads of 16 keys (tiles of
 * 4096 keys): 256 threads, one per digit in the look-back; this beat 16 threads of 8 keys
 * (the same tile) and 8 of 12. (A team is halved where its scratch does not fit, e.g.
 * 64 KiB on AMD GPUs for 64-bit values.) */
#ifndef SORT_GPU_TEAM
#define SORT_GPU_TEAM 8
#endif
#ifndef SORT_HIST_ROWS
#define SORT_HIST_ROWS 4
#endif
#ifndef TP_SORT_MIN_TEAMS
#define TP_SORT_MIN_TEAMS 3
#endif

#include "portable/sort_onesweep.h"

/* Digit counts are 32-bit up to this many keys, 64-bit beyond (tests lower it). */
int64_t tp_sort_narrow_limit = UINT32_MAX;

#define SORT_KEY_T uint32_t
#define SORT_VAL_T uint32_t
#define SORT_HAS_VALUES 0
#define SORT_SFX keys_u32
#include "portable/sort_template.h"
#undef SORT_KEY_T
#undef SORT_VAL_T
#undef SORT_HAS_VALUES
#undef SORT_SFX

#define SORT_KEY_T uint64_t
#define SORT_VAL_T uint32_t
#define SORT_HAS_VALUES 0
#define SORT_SFX keys_u64
#include "portable/sort_template.h"
#undef SORT_KEY_T
#undef SORT_VAL_T
#undef SORT_HAS_VALUES
#undef SORT_SFX

#define SORT_KEY_T uint32_t
#define SORT_VAL_T uint32_t
#define SORT_HAS_VALUES 1
#define SORT_SFX pairs_u32_u32
#include "portable/sort_template.h"
#undef SORT_KEY_T
#undef SORT_VAL_T
#undef SORT_HAS_VALUES
#undef SORT_SFX

#define SORT_KEY_T uint32_t
#define SORT_VAL_T uint64_t
#define SORT_HAS_VALUES 1
#define SORT_SFX pairs_u32_u64
#include "portable/sort_template.h"
#undef SORT_KEY_T
#undef SORT_VAL_T
#undef SORT_HAS_VALUES
#undef SORT_SFX

#define SORT_KEY_T uint64_t
#define SORT_VAL_T uint32_t
#define SORT_HAS_VALUES 1
#define SORT_SFX pairs_u64_u32
#include "portable/sort_template.h"
#undef SORT_KEY_T
#undef SORT_VAL_T
#undef SORT_HAS_VALUES
#undef SORT_SFX

#define SORT_KEY_T uint64_t
#define SORT_VAL_T uint64_t
#define SORT_HAS_VALUES 1
#define SORT_SFX pairs_u64_u64
#include "portable/sort_template.h"
#undef SORT_KEY_T
#undef SORT_VAL_T
#undef SORT_HAS_VALUES
#undef SORT_SFX

tp_status tp_sort_keys_u32(tp_space *space, uint32_t *keys, int64_t n, int begin_bit, int end_bit) {
  return sort_run_keys_u32(space, keys, NULL, n, begin_bit, end_bit);
}

tp_status tp_sort_keys_u64(tp_space *space, uint64_t *keys, int64_t n, int begin_bit, int end_bit) {
  return sort_run_keys_u64(space, keys, NULL, n, begin_bit, end_bit);
}

#define TP_DEFINE_SORT_PAIRS(ksfx, K, vsfx, V)                                            \
  tp_status tp_sort_pairs_##ksfx##_##vsfx(tp_space *space, K *keys, V *values, int64_t n, \
                                          int begin_bit, int end_bit) {                   \
    return sort_run_pairs_##ksfx##_##vsfx(space, keys, values, n, begin_bit, end_bit);    \
  }

TP_DEFINE_SORT_PAIRS(u32, uint32_t, u32, uint32_t)
TP_DEFINE_SORT_PAIRS(u32, uint32_t, u64, uint64_t)
TP_DEFINE_SORT_PAIRS(u64, uint64_t, u32, uint32_t)
TP_DEFINE_SORT_PAIRS(u64, uint64_t, u64, uint64_t)
