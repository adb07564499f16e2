#include "portable/tp_portable.h"
#include "tests/kernels/tpt_kernels.h"

static tpt_shape fitted_shape(tp_space *space, tp_team_policy *policy) {
  tp_team_policy_fit(space, policy);
  tpt_shape s;
  s.team_size = policy->team_size;
  s.vector_length = policy->vector_length;
  return s;
}

typedef struct team_coll_args {
  const double *x;
  const int64_t *k;
  double *sum, *min, *max;
  tp_argmax_f64 *argmax;
  int64_t *scan, *scan_total;
} team_coll_args;

TP_TEAM_KERNEL(team_coll, team_coll_args, team, a) {
  int64_t l = team->league_rank;
  int64_t g = l * team->team_size + team->team_rank;
  double x = a.x[g];
  double s = tp_team_sum_f64(team, x);
  double lo = tp_team_min_f64(team, x);
  double hi = tp_team_max_f64(team, x);
  tp_argmax_f64 am = tp_team_argmax_abs_f64(team, tp_argmax_f64_make(x, team->team_rank));
  int64_t total;
  int64_t excl = tp_team_exclusive_scan_i64(team, a.k[g], &total);
  TP_VECTOR_SINGLE(team) {
    a.scan[g] = excl;
    a.scan_total[g] = total;
  }
  TP_TEAM_SINGLE(team) {
    a.sum[l] = s;
    a.min[l] = lo;
    a.max[l] = hi;
    a.argmax[l] = am;
  }
}

tp_status tpt_team_collectives(tp_space *space, int team_size, int vector_length, int64_t league,
                               const double *x, const int64_t *k, double *sum, double *min,
                               double *max, tp_argmax_f64 *argmax, int64_t *scan,
                               int64_t *scan_total, tpt_shape *shape) {
  tp_team_policy p = tp_team_policy_make(league, team_size, vector_length, 0);
  TP_TRY(tp_team_policy_check(space, &p, "team_coll"));
  *shape = fitted_shape(space, &p);
  team_coll_args a;
  a.x = x;
  a.k = k;
  a.sum = sum;
  a.min = min;
  a.max = max;
  a.argmax = argmax;
  a.scan = scan;
  a.scan_total = scan_total;
  return team_coll_launch(space, p, a);
}

typedef struct vector_coll_args {
  const double *y;
  const uint32_t *key;
  double *sum;
  tp_argmax_f64 *argmax;
  uint64_t *ballot;
  double *scan;
  uint64_t *match;
  double *rotated;
} vector_coll_args;

TP_TEAM_KERNEL(vector_coll, vector_coll_args, team, a) {
  int64_t g = team->league_rank * team->team_size + team->team_rank;
  int lanes = team->vector_length;
  int64_t e = g * lanes + team->vector_lane;
  double y = a.y[e];
  double s = tp_vector_sum_f64(team, y);
  tp_argmax_f64 am = tp_vector_argmax_abs_f64(team, tp_argmax_f64_make(y, team->vector_lane));
  uint64_t b = tp_vector_ballot(team, y > 0);
  a.scan[e] = tp_vector_inclusive_scan_f64(team, y);
  a.match[e] = tp_vector_match(team, a.key[e] & 0xffu, 8);
  a.rotated[e] = tp_vector_shfl_f64(team, y, (team->vector_lane + 1) % lanes);
  TP_VECTOR_SINGLE(team) {
    a.sum[g] = s;
    a.argmax[g] = am;
    a.ballot[g] = b;
  }
}

tp_status tpt_vector_collectives(tp_space *space, int team_size, int vector_length, int64_t league,
                                 const double *y, const uint32_t *key, double *sum,
                                 tp_argmax_f64 *argmax, uint64_t *ballot, double *scan,
                                 uint64_t *match, double *rotated, tpt_shape *shape) {
  tp_team_policy p = tp_team_policy_make(league, team_size, vector_length, 0);
  TP_TRY(tp_team_policy_check(space, &p, "vector_coll"));
  *shape = fitted_shape(space, &p);
  vector_coll_args a;
  a.y = y;
  a.key = key;
  a.sum = sum;
  a.argmax = argmax;
  a.ballot = ballot;
  a.scan = scan;
  a.match = match;
  a.rotated = rotated;
  return vector_coll_launch(space, p, a);
}
