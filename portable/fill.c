/* Typed fills of space memory, one range kernel per element type. */
/* generates: fill_f32 fill_f64 fill_i32 fill_i64 */
#include "portable/tp_portable.h"

#define TP_DEFINE_FILL(sfx, T)                                                          \
  typedef struct fill_##sfx##_args {                                                    \
    T *dst;                                                                             \
    T value;                                                                            \
  } fill_##sfx##_args;                                                                  \
  TP_RANGE_KERNEL(fill_##sfx, fill_##sfx##_args, i, a) { a.dst[i] = a.value; }          \
  tp_status tp_fill_##sfx(tp_space *space, T *dst, int64_t n, T value) {                \
    TP_CHECK_ARG(space, "space must not be NULL");                                      \
    TP_CHECK_ARG(n >= 0, "element count %lld is negative", (long long)n);               \
    TP_CHECK_ARG(n == 0 || dst, "dst must not be NULL");                                \
    TP_TRY(tp_space_check_span(space, dst, sizeof(T) * (size_t)n, "fill destination")); \
    fill_##sfx##_args args;                                                             \
    args.dst = dst;                                                                     \
    args.value = value;                                                                 \
    return fill_##sfx##_launch(space, n, args);                                         \
  }

TP_DEFINE_FILL(f32, float)
TP_DEFINE_FILL(f64, double)
TP_DEFINE_FILL(i32, int32_t)
TP_DEFINE_FILL(i64, int64_t)
