#include "portable/tp_portable.h"
#include "tests/kernels/tpt_atomic_kernels.h"

/* All bits set: the EMPTY slot of the claim kernels (and what tpt_alloc_poisoned writes). */
#define TPT_EMPTY(T) ((T) ~(T)0)

static tp_status check_counters(int m) {
  TP_CHECK_ARG(m >= 1 && m <= TPT_ATOMIC_MAX_COUNTERS, "counter count %d is not in [1, %d]", m,
               TPT_ATOMIC_MAX_COUNTERS);
  return TP_SUCCESS;
}

/* Every kernel and entry point, once per type (the integers with cas, load and store).
 * generates: the kernels and functions named in the generates: list of
 * atomic_kernels_template.h (add_i32, team_f64, tpt_atomic_add_i32, ...). */
#define TPT_T int32_t
#define TPT_SFX i32
#define TPT_INT 1
#include "tests/kernels/atomic_kernels_template.h"
#define TPT_T int64_t
#define TPT_SFX i64
#define TPT_INT 1
#include "tests/kernels/atomic_kernels_template.h"
#define TPT_T uint32_t
#define TPT_SFX u32
#define TPT_INT 1
#include "tests/kernels/atomic_kernels_template.h"
#define TPT_T uint64_t
#define TPT_SFX u64
#define TPT_INT 1
#include "tests/kernels/atomic_kernels_template.h"
#define TPT_T float
#define TPT_SFX f32
#define TPT_INT 0
#include "tests/kernels/atomic_kernels_template.h"
#define TPT_T double
#define TPT_SFX f64
#define TPT_INT 0
#include "tests/kernels/atomic_kernels_template.h"
