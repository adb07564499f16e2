/* Typed fills of space memory, one range kernel per element type (fill_template.h). */
/* generates: fill_f32 fill_f64 fill_i32 fill_i64 */
#include "portable/tp_portable.h"

#define FILL_T float
#define FILL_SFX f32
#include "portable/fill_template.h"

#define FILL_T double
#define FILL_SFX f64
#include "portable/fill_template.h"

#define FILL_T int32_t
#define FILL_SFX i32
#include "portable/fill_template.h"

#define FILL_T int64_t
#define FILL_SFX i64
#include "portable/fill_template.h"
