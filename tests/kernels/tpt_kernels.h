/* Test kernels: small kernels on the portable layer, compiled per backend like the
 * library, with host entry points the Criterion suites call. Each returns the team
 * shape the backend actually ran where that shapes the expected result. */
#ifndef TPT_KERNELS_H
#define TPT_KERNELS_H

#include <stdint.h>

#include "tenport/tenport.h"
#include "portable/tp_extern_c.h"
#include "portable/tp_policy.h"

TP_EXTERN_C_BEGIN

typedef struct tpt_shape {
  int team_size, vector_length;
} tpt_shape;

/* ---- range kernels (range_kernels.c) ---------------------------------------- */
/* out[i] = 3 i + 1. */
tp_status tpt_range_affine(tp_space *space, int64_t *out, int64_t n);
/* out[i n1 + j] = 100003 i + j. */
tp_status tpt_range2_index(tp_space *space, int64_t *out, int64_t n0, int64_t n1);
/* *result = sum of x[i]^2, by a user-defined range reduction. */
tp_status tpt_range_sum_squares(tp_space *space, const double *x, int64_t n, double *result);
/* r32[i] = tp_rsqrt_f32(x32[i]) and r64[i] = tp_rsqrt_f64(x64[i]), in the space. */
tp_status tpt_range_rsqrt(tp_space *space, const float *x32, const double *x64, float *r32,
                          double *r64, int64_t n);

/* ---- team kernels (team_kernels.c) ------------------------------------------ */
/* counts[(l rows + i) cols + j] += 1 for every league rank l, team-loop index i < rows and
 * vector-loop index j < cols: every entry must end at exactly 1. */
tp_status tpt_team_cover(tp_space *space, tp_team_policy policy, int64_t rows, int cols,
                         int32_t *counts);
/* Team l copies in[l len, (l+1) len) into scratch, synchronises, writes it reversed. */
tp_status tpt_team_scratch_reverse(tp_space *space, tp_team_policy policy, const double *in,
                                   double *out, int64_t len);
/* Launches a team kernel whose body does nothing: for the policy checks. */
tp_status tpt_team_noop(tp_space *space, tp_team_policy policy);
/* The same, declared with TP_TEAM_KERNEL_BOUNDED to at most 64 threads per team. */
tp_status tpt_team_bounded_noop(tp_space *space, tp_team_policy policy);

/* ---- collectives (collective_kernels.c) ------------------------------------- */
/* Team collectives over league teams of `team_size` threads; team thread t of team l
 * contributes x[l T + t] and k[l T + t] (T: the effective team size, in *shape).
 * Per team: sum, min, max, arg-max |x| (index = t); per thread: exclusive scan of k and
 * the team's total of k. */
tp_status tpt_team_collectives(tp_space *space, int team_size, int vector_length, int64_t league,
                               const double *x, const int64_t *k, double *sum, double *min,
                               double *max, tp_argmax_f64 *argmax, int64_t *scan,
                               int64_t *scan_total, tpt_shape *shape);
/* Vector collectives: lane v of thread t of team l holds y[g V + v] and key[g V + v] with
 * g = l T + t. Per thread g: sum of y, arg-max |y| (index = lane), ballot(y > 0);
 * per lane: inclusive scan of y, match(key) over 8 bits, y of lane (v + 1) mod V. */
tp_status tpt_vector_collectives(tp_space *space, int team_size, int vector_length, int64_t league,
                                 const double *y, const uint32_t *key, double *sum,
                                 tp_argmax_f64 *argmax, uint64_t *ballot, double *scan,
                                 uint64_t *match, double *rotated, tpt_shape *shape);

TP_EXTERN_C_END
#endif
