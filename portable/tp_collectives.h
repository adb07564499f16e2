/* Team and vector collectives for the built-in types.
 *
 *   tp_team_{sum,min,max}_T(team, v)      over team threads (lane 0's value counts)
 *   tp_team_argmax_abs_T(team, v)         same, for tp_argmax_T pairs
 *   tp_team_exclusive_scan_T(team, v, &total)
 *   tp_vector_{sum,min,max}_T(team, v)    over the lanes of the calling team thread
 *   tp_vector_argmax_abs_T(team, v)
 *   tp_vector_inclusive_scan_T(team, v)
 *   tp_team_vector_exclusive_scan_T(team, v, &total)  over every thread and lane
 *
 * The tp_team_ ones over team threads are the backend's (backends/gpu/team_template.h,
 * backends/host/team_template.h); the others are written here once, on the backend's
 * lane shuffles (collectives_template.h).
 *
 * All are collective: every thread of the team (or every lane of the thread) must
 * call them, outside divergent branches. */
#ifndef TP_COLLECTIVES_H
#define TP_COLLECTIVES_H

#include "portable/tp_paste.h"

#define COLL_T int32_t
#define COLL_SFX i32
#include "portable/collectives_template.h"

#define COLL_T uint32_t
#define COLL_SFX u32
#include "portable/collectives_template.h"

#define COLL_T int64_t
#define COLL_SFX i64
#include "portable/collectives_template.h"

#define COLL_T uint64_t
#define COLL_SFX u64
#include "portable/collectives_template.h"

#define COLL_T float
#define COLL_SFX f32
#define COLL_ARGMAX
#include "portable/collectives_template.h"

#define COLL_T double
#define COLL_SFX f64
#define COLL_ARGMAX
#include "portable/collectives_template.h"

#endif
