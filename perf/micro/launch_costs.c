/* The cost of one tiny operation in a back-to-back stream, and of one host round trip:
 * the floor of work that is a long chain of small dependent steps (STTID's pivots). */
#include <math.h>
#include <time.h>

#include "perf/micro/micro.h"

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The least of several passes after a warm-up: a floor is what the work cannot go
 * below, so a pass that something else slowed is not the one to quote. It does not
 * remove what differs between processes: on one H200 host a launch cost 1.0 us in some
 * runs of a benchmark and 1.4-1.6 us in others, every pass of a run alike, so a
 * "measured / floor" ratio is to be read with the launch cost printed beside it. */
enum { LAUNCH_COST_PASSES = 5 };

tp_status micro_measure_launch_costs(tp_space *space, micro_launch_costs *costs) {
  void *p;
  int64_t host;
  const int n = 2000;
  tp_status st = tp_alloc(space, 64, &p);
  if (st)
    return st;
  costs->launch_us = costs->round_trip_us = HUGE_VAL;
  for (int pass = 0; pass <= LAUNCH_COST_PASSES && st == TP_SUCCESS; ++pass) {
    double t0 = seconds_now();
    for (int k = 0; k < n && st == TP_SUCCESS; ++k)
      st = tp_memset(space, p, k & 0xff, 64);
    if (st == TP_SUCCESS)
      st = tp_space_fence(space);
    double t1 = seconds_now();
    for (int k = 0; k < n / 4 && st == TP_SUCCESS; ++k)
      st = tp_copy_to_host(space, &host, p, sizeof host);
    double t2 = seconds_now();
    double launch_us = 1e6 * (t1 - t0) / n, round_trip_us = 1e6 * (t2 - t1) / (n / 4);
    if (pass > 0) { /* pass 0 warms up */
      costs->launch_us = fmin(costs->launch_us, launch_us);
      costs->round_trip_us = fmin(costs->round_trip_us, round_trip_us);
    }
  }
  tp_free(space, p);
  return st;
}
