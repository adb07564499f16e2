/* Exclusive scans, one instantiation of scan_template.h per element type. */
/* generates: scan_reduce_f32 scan_reduce_f64 scan_reduce_i32 scan_reduce_i64 scan_reduce_u32
 * scan_reduce_u64 scan_tiles_f32 scan_tiles_f64 scan_tiles_i32 scan_tiles_i64 scan_tiles_u32
 * scan_tiles_u64 scan_look_back_i32 scan_look_back_i64 scan_look_back_u32
 * scan_look_back_u64 */
#include "portable/tp_portable.h"
#include "portable/tp_tiling.h"
#include "portable/tp_look_back.h"

/* GPU tuning: rounds of 256 x 64 bytes per tile, and teams per multiprocessor that
 * the tile kernel's register budget aims for. */
#ifndef SCAN_GPU_ROUNDS
#define SCAN_GPU_ROUNDS 4
#endif
#ifndef SCAN_MIN_TEAMS
#define SCAN_MIN_TEAMS 4
#endif
/* Rounds of 256 x 64 bytes in a tile of the single pass: its input is read twice, the
 * second time from the device's cache, which must hold every tile in flight. */
#ifndef SCAN_LB_ROUNDS
#define SCAN_LB_ROUNDS 2
#endif
/* Teams per multiprocessor that the single pass's register budget aims for. */
#ifndef SCAN_LB_MIN_TEAMS
#define SCAN_LB_MIN_TEAMS 4
#endif

/* The single-pass scan's flags, and the bytes of team scratch ahead of its stage. */
enum { SCAN_LB_AGGREGATE = 1, SCAN_LB_INCLUSIVE = 2, SCAN_LB_STATE_BYTES = 32 };

/* The mask of the lanes below lane k (k up to 64), for the look-back's ballots. */
TP_INLINE uint64_t tp_scan_lanes_below(int k) {
  return k >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1u);
}

/* Integer types: a single pass with look-back on GPU spaces (scan_look_back_template.h),
 * reduce-then-scan on host spaces; floating types: reduce-then-scan everywhere. */
#define SCAN_T int32_t
#define SCAN_SFX i32
#define SCAN_LOOK_BACK 1
#include "portable/scan_tile_template.h"
#include "portable/scan_look_back_template.h"
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T int64_t
#define SCAN_SFX i64
#define SCAN_LOOK_BACK 1
#include "portable/scan_tile_template.h"
#include "portable/scan_look_back_template.h"
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T uint32_t
#define SCAN_SFX u32
#define SCAN_LOOK_BACK 1
#include "portable/scan_tile_template.h"
#include "portable/scan_look_back_template.h"
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T uint64_t
#define SCAN_SFX u64
#define SCAN_LOOK_BACK 1
#include "portable/scan_tile_template.h"
#include "portable/scan_look_back_template.h"
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T float
#define SCAN_SFX f32
#define SCAN_LOOK_BACK 0
#include "portable/scan_tile_template.h"
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T double
#define SCAN_SFX f64
#define SCAN_LOOK_BACK 0
#include "portable/scan_tile_template.h"
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK
