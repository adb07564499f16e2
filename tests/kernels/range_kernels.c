#include "portable/tp_portable.h"
#include "tests/kernels/tpt_kernels.h"

typedef struct affine_args {
  int64_t *out;
} affine_args;

TP_RANGE_KERNEL(affine, affine_args, i, a) { a.out[i] = 3 * i + 1; }

tp_status tpt_range_affine(tp_space *space, int64_t *out, int64_t n) {
  affine_args a;
  a.out = out;
  return affine_launch(space, n, a);
}

typedef struct index2_args {
  int64_t *out;
  int64_t n1;
} index2_args;

TP_RANGE2_KERNEL(index2, index2_args, i, j, a) { a.out[i * a.n1 + j] = 100003 * i + j; }

tp_status tpt_range2_index(tp_space *space, int64_t *out, int64_t n0, int64_t n1) {
  index2_args a;
  a.out = out;
  a.n1 = n1;
  return index2_launch(space, n0, n1, a);
}

typedef struct sumsq_args {
  const double *x;
} sumsq_args;

TP_RANGE_REDUCE_KERNEL(sumsq, sumsq_args, double, tp_join_sum_f64, 0.0, i, a, acc) {
  *acc += a.x[i] * a.x[i];
}

tp_status tpt_range_sum_squares(tp_space *space, const double *x, int64_t n, double *result) {
  sumsq_args a;
  a.x = x;
  return sumsq_launch(space, n, a, result);
}

typedef struct rsqrt_args {
  const float *x32;
  const double *x64;
  float *r32;
  double *r64;
} rsqrt_args;

TP_RANGE_KERNEL(rsqrt_both, rsqrt_args, i, a) {
  a.r32[i] = tp_rsqrt_f32(a.x32[i]);
  a.r64[i] = tp_rsqrt_f64(a.x64[i]);
}

tp_status tpt_range_rsqrt(tp_space *space, const float *x32, const double *x64, float *r32,
                          double *r64, int64_t n) {
  rsqrt_args a;
  a.x32 = x32, a.x64 = x64, a.r32 = r32, a.r64 = r64;
  return rsqrt_both_launch(space, n, a);
}
