#include "portable/tp_portable.h"
#include "tests/kernels/tpt_wave_kernels.h"

typedef struct wave_lanes_args {
  const double *y;
  const uint32_t *key;
  const int64_t *k;
  int xor_mask, delta, idle_mod, idle_rem;
  tpt_wave_lanes_out out;
} wave_lanes_args;

/* Idle team threads skip every collective: on a GPU their vector groups sit out while
 * the other groups of the same wavefront exchange. */
TP_TEAM_KERNEL(wave_lanes, wave_lanes_args, team, a) {
  if (team->team_rank % a.idle_mod == a.idle_rem)
    return;
  int lanes = team->vector_length, lane = team->vector_lane;
  int64_t e = (team->league_rank * team->team_size + team->team_rank) * lanes + lane;
  double y = a.y[e];
  a.out.ballot[e] = tp_vector_ballot(team, y > 0);
  a.out.match[e] = tp_vector_match(team, a.key[e], 6);
  a.out.from[e] = tp_vector_shfl_f64(team, y, (7 * lane + 3) % lanes);
  a.out.xored[e] = tp_vector_shfl_xor_f64(team, y, a.xor_mask);
  a.out.up[e] = tp_vector_shfl_up_f64(team, y, a.delta);
  a.out.sum[e] = tp_vector_sum_f64(team, y);
  a.out.scan[e] = tp_vector_inclusive_scan_i64(team, a.k[e]);
}

static tpt_shape fitted(tp_space *space, tp_team_policy *p) {
  tp_team_policy_fit(space, p);
  tpt_shape s;
  s.team_size = p->team_size;
  s.vector_length = p->vector_length;
  return s;
}

tp_status tpt_wave_lanes(tp_space *space, int team_size, int vector_length, int64_t league,
                         const double *y, const uint32_t *key, const int64_t *k, int xor_mask,
                         int delta, int idle_mod, int idle_rem, tpt_wave_lanes_out out,
                         tpt_shape *shape) {
  tp_team_policy p = tp_team_policy_make(league, team_size, vector_length, 0);
  TP_TRY(tp_team_policy_check(space, &p, "wave_lanes"));
  *shape = fitted(space, &p);
  wave_lanes_args a;
  a.y = y;
  a.key = key;
  a.k = k;
  a.xor_mask = xor_mask;
  a.delta = delta;
  a.idle_mod = idle_mod;
  a.idle_rem = idle_rem;
  a.out = out;
  return wave_lanes_launch(space, p, a);
}

typedef struct wave_scan_args {
  const int64_t *k;
  const double *x;
  int64_t *prefix, *total;
  double *fprefix, *ftotal;
} wave_scan_args;

TP_TEAM_KERNEL(wave_team_scan, wave_scan_args, team, a) {
  int64_t e = (team->league_rank * team->team_size + team->team_rank) * team->vector_length +
              team->vector_lane;
  int64_t total;
  a.prefix[e] = tp_team_vector_exclusive_scan_i64(team, a.k[e], &total);
  a.total[e] = total;
  double ftotal;
  a.fprefix[e] = tp_team_vector_exclusive_scan_f64(team, a.x[e], &ftotal);
  a.ftotal[e] = ftotal;
}

tp_status tpt_wave_team_scan(tp_space *space, int team_size, int vector_length, int64_t league,
                             const int64_t *k, const double *x, int64_t *prefix, int64_t *total,
                             double *fprefix, double *ftotal, tpt_shape *shape) {
  tp_team_policy p = tp_team_policy_make(league, team_size, vector_length, 0);
  TP_TRY(tp_team_policy_check(space, &p, "wave_team_scan"));
  *shape = fitted(space, &p);
  wave_scan_args a;
  a.k = k;
  a.x = x;
  a.prefix = prefix;
  a.total = total;
  a.fprefix = fprefix;
  a.ftotal = ftotal;
  return wave_team_scan_launch(space, p, a);
}
