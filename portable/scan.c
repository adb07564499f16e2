/* Exclusive scans, one instantiation of scan_template.h per element type. */
#include "tp_portable.h"
#include "tp_tiling.h"
#include "tp_look_back.h"

/* GPU tuning: rounds of 256 x 64 bytes per tile, and teams per multiprocessor that
 * the tile kernel's register budget aims for. */
#ifndef SCAN_GPU_ROUNDS
#define SCAN_GPU_ROUNDS 4
#endif
#ifndef SCAN_MIN_TEAMS
#define SCAN_MIN_TEAMS 4
#endif
/* Bytes of input per thread of a single-pass tile (held in team scratch). */
#ifndef SCAN_LB_THREAD_BYTES
#define SCAN_LB_THREAD_BYTES 64
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
#include "scan_look_back_template.h"
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T int64_t
#define SCAN_SFX i64
#define SCAN_LOOK_BACK 1
#include "scan_look_back_template.h"
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T uint32_t
#define SCAN_SFX u32
#define SCAN_LOOK_BACK 1
#include "scan_look_back_template.h"
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T uint64_t
#define SCAN_SFX u64
#define SCAN_LOOK_BACK 1
#include "scan_look_back_template.h"
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T float
#define SCAN_SFX f32
#define SCAN_LOOK_BACK 0
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK

#define SCAN_T double
#define SCAN_SFX f64
#define SCAN_LOOK_BACK 0
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
#undef SCAN_LOOK_BACK
