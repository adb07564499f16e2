/* Exclusive scans, one instantiation of scan_template.h per element type. */
/* generates: scan_reduce_f32 scan_reduce_f64 scan_reduce_i32 scan_reduce_i64 scan_reduce_u32
 * scan_reduce_u64 scan_tiles_f32 scan_tiles_f64 scan_tiles_i32 scan_tiles_i64 scan_tiles_u32
 * scan_tiles_u64 */
#include "portable/tp_portable.h"
#include "portable/tp_tiling.h"

/* GPU tuning: rounds of 256 x 64 bytes per tile, and teams per multiprocessor that
 * the tile kernel's register budget aims for. */
#ifndef SCAN_GPU_ROUNDS
#define SCAN_GPU_ROUNDS 4
#endif
#ifndef SCAN_MIN_TEAMS
#define SCAN_MIN_TEAMS 4
#endif

#define SCAN_T int32_t
#define SCAN_SFX i32
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T int64_t
#define SCAN_SFX i64
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T uint32_t
#define SCAN_SFX u32
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T uint64_t
#define SCAN_SFX u64
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T float
#define SCAN_SFX f32
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T double
#define SCAN_SFX f64
#include "portable/scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
