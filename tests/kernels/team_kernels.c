#include "portable/tp_portable.h"
#include "tests/kernels/tpt_kernels.h"

typedef struct cover_args {
  int64_t rows;
  int cols;
  int32_t *counts;
} cover_args;

TP_TEAM_KERNEL(cover, cover_args, team, a) {
  int32_t *block = a.counts + team->league_rank * a.rows * a.cols;
  TP_TEAM_FOR(team, i, 0, a.rows) {
    TP_VECTOR_FOR(team, j, 0, a.cols) { tp_atomic_add_i32(&block[i * a.cols + j], 1); }
  }
}

tp_status tpt_team_cover(tp_space *space, tp_team_policy policy, int64_t rows, int cols,
                         int32_t *counts) {
  cover_args a;
  a.rows = rows;
  a.cols = cols;
  a.counts = counts;
  return cover_launch(space, policy, a);
}

typedef struct reverse_args {
  const double *in;
  double *out;
  int64_t len;
} reverse_args;

TP_TEAM_KERNEL(reverse, reverse_args, team, a) {
  double *stage = (double *)team->scratch;
  const double *src = a.in + team->league_rank * a.len;
  double *dst = a.out + team->league_rank * a.len;
  TP_TEAM_VECTOR_FOR(team, i, 0, a.len) { stage[i] = src[i]; }
  tp_team_barrier(team);
  TP_TEAM_VECTOR_FOR(team, i, 0, a.len) { dst[i] = stage[a.len - 1 - i]; }
}

tp_status tpt_team_scratch_reverse(tp_space *space, tp_team_policy policy, const double *in,
                                   double *out, int64_t len) {
  reverse_args a;
  a.in = in;
  a.out = out;
  a.len = len;
  return reverse_launch(space, policy, a);
}

typedef struct noop_args {
  int unused;
} noop_args;

TP_TEAM_KERNEL(noop, noop_args, team, a) {
  (void)team;
  (void)a;
}

tp_status tpt_team_noop(tp_space *space, tp_team_policy policy) {
  noop_args a;
  a.unused = 0;
  return noop_launch(space, policy, a);
}

/* A kernel bounded to teams of 64 threads: larger teams are refused on every backend. */
TP_TEAM_KERNEL_BOUNDED(bounded_noop, noop_args, 64, 2, team, a) {
  (void)team;
  (void)a;
}

tp_status tpt_team_bounded_noop(tp_space *space, tp_team_policy policy) {
  noop_args a;
  a.unused = 0;
  return bounded_noop_launch(space, policy, a);
}
