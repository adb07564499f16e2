/* tp_fill_<T> and its range kernel for one element type: fill_kernels.c includes this file once
 * per type with FILL_T (the type) and FILL_SFX (its suffix); it undefines both at its end.
 * generates: fill_f32 fill_f64 fill_i32 fill_i64 (the kernels), their argument types
 * fill_f32_args ... fill_i64_args, and tp_fill_f32 tp_fill_f64 tp_fill_i32 tp_fill_i64 */

#define FILL_KERNEL TP_PASTE(fill_, FILL_SFX)
#define FILL_ARGS TP_PASTE(FILL_KERNEL, _args)

typedef struct FILL_ARGS {
  FILL_T *dst;
  FILL_T value;
} FILL_ARGS;

TP_RANGE_KERNEL(FILL_KERNEL, FILL_ARGS, i, a) { a.dst[i] = a.value; }

tp_status TP_PASTE(tp_fill_, FILL_SFX)(tp_space *space, FILL_T *dst, int64_t n, FILL_T value) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(n >= 0, "element count %lld is negative", (long long)n);
  TP_CHECK_ARG(n == 0 || dst, "dst must not be NULL");
  TP_TRY(tp_space_check_span(space, dst, sizeof(FILL_T) * (size_t)n, "fill destination"));
  FILL_ARGS args;
  args.dst = dst;
  args.value = value;
  return TP_LAUNCHER(FILL_KERNEL)(space, n, args);
}

#undef FILL_KERNEL
#undef FILL_ARGS
#undef FILL_T
#undef FILL_SFX
