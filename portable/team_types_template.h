/* A backend's team collectives (lane shuffles, reductions, exclusive scans) for each
 * numeric type: the backend defines TP_TEAM_TEMPLATE as the quoted path of its
 * team_template.h (which takes TEAM_T and TEAM_SFX) and includes this file once. */
#define TEAM_T int32_t
#define TEAM_SFX i32
#include TP_TEAM_TEMPLATE
#define TEAM_T uint32_t
#define TEAM_SFX u32
#include TP_TEAM_TEMPLATE
#define TEAM_T int64_t
#define TEAM_SFX i64
#include TP_TEAM_TEMPLATE
#define TEAM_T uint64_t
#define TEAM_SFX u64
#include TP_TEAM_TEMPLATE
#define TEAM_T float
#define TEAM_SFX f32
#include TP_TEAM_TEMPLATE
#define TEAM_T double
#define TEAM_SFX f64
#include TP_TEAM_TEMPLATE
#undef TP_TEAM_TEMPLATE
