/* Test kernels of the wavefront suite (wave_kernels.c): lane collectives of vector
 * groups that share a 64-lane wavefront, some of them idle, and team-wide scans. */
#ifndef TPT_WAVE_KERNELS_H
#define TPT_WAVE_KERNELS_H

#include <stdint.h>

#include "tests/kernels/tpt_kernels.h"

TP_EXTERN_C_BEGIN

/* Per lane e = (league rank x team_size + team rank) x vector_length + lane, for the
 * team threads whose rank r has r % idle_mod != idle_rem (the others call nothing):
 *   ballot[e]  tp_vector_ballot(y > 0)            match[e]  tp_vector_match(key, 6)
 *   from[e]    tp_vector_shfl(y, (7 lane + 3) % vector_length)
 *   xored[e]   tp_vector_shfl_xor(y, xor_mask)    up[e]     tp_vector_shfl_up(y, delta)
 *   sum[e]     tp_vector_sum(y)                   scan[e]   tp_vector_inclusive_scan(k)
 * The idle threads leave their entries alone. */
typedef struct tpt_wave_lanes_out {
  uint64_t *ballot, *match;
  double *from, *xored, *up, *sum;
  int64_t *scan;
} tpt_wave_lanes_out;
tp_status tpt_wave_lanes(tp_space *space, int team_size, int vector_length, int64_t league,
                         const double *y, const uint32_t *key, const int64_t *k, int xor_mask,
                         int delta, int idle_mod, int idle_rem, tpt_wave_lanes_out out,
                         tpt_shape *shape);

/* Per lane e as above: prefix[e] = tp_team_vector_exclusive_scan_i64(k) over the team in
 * (team rank, lane) order, total[e] its team total; fprefix and ftotal the same for
 * the doubles x (f64). */
tp_status tpt_wave_team_scan(tp_space *space, int team_size, int vector_length, int64_t league,
                             const int64_t *k, const double *x, int64_t *prefix, int64_t *total,
                             double *fprefix, double *ftotal, tpt_shape *shape);

TP_EXTERN_C_END
#endif
