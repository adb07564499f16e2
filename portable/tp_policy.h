/* Execution policies: how a kernel's work is laid out on a backend. */
#ifndef TP_POLICY_H
#define TP_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include "tenport/space.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Portable limits: every backend accepts vector lengths up to 32 (a CUDA warp) and teams
 * of up to 1024 threads (team_size x vector_length); the CPU backends check the same
 * limits, so a policy that passes CPU tests also launches on GPUs. HIP accepts vector
 * lengths up to its wavefront (64). */
#define TP_MAX_VECTOR_LENGTH 32
#define TP_MAX_TEAM_THREADS 1024

typedef enum tp_schedule {
  TP_SCHEDULE_STATIC = 0, /* CPU: contiguous blocks of league ranks per thread */
  TP_SCHEDULE_DYNAMIC = 1 /* CPU: league ranks handed out one at a time */
} tp_schedule;

/* A league of teams; each team has team_size threads of vector_length lanes and
 * scratch_bytes of team scratch. GPUs honour all of it; the CPU backends run teams of
 * one thread with one lane (the vector loops become SIMD loops). */
typedef struct tp_team_policy {
  int64_t league_size;
  int team_size;
  int vector_length;
  size_t scratch_bytes;
  tp_schedule schedule;
} tp_team_policy;

static inline tp_team_policy tp_team_policy_make(int64_t league_size, int team_size,
                                                 int vector_length, size_t scratch_bytes) {
  tp_team_policy p;
  p.league_size = league_size;
  p.team_size = team_size;
  p.vector_length = vector_length;
  p.scratch_bytes = scratch_bytes;
  p.schedule = TP_SCHEDULE_STATIC;
  return p;
}

/* Clamps team_size and vector_length to what the space's backend actually runs (1 and 1
 * on the CPU), so that scratch sized from them matches what kernels see. */
void tp_team_policy_fit(const tp_space *space, tp_team_policy *policy);

/* Bytes of team scratch a team of team_size threads may request on this space (GPUs set
 * a little shared memory aside per team thread for the team collectives). */
size_t tp_team_scratch_limit(const tp_space *space, int team_size);

/* Checks a policy against the space's limits; the error names the offending field. */
tp_status tp_team_policy_check(const tp_space *space, const tp_team_policy *policy,
                               const char *kernel_name);

TP_EXTERN_C_END
#endif
