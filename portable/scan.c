/* Exclusive scans, one instantiation of scan_template.h per element type. */
#include "tp_portable.h"
#include "tp_tiling.h"

#define SCAN_T int32_t
#define SCAN_SFX i32
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T int64_t
#define SCAN_SFX i64
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T uint32_t
#define SCAN_SFX u32
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T uint64_t
#define SCAN_SFX u64
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T float
#define SCAN_SFX f32
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX

#define SCAN_T double
#define SCAN_SFX f64
#include "scan_template.h"
#undef SCAN_T
#undef SCAN_SFX
