/* What the commands that run an iterative solver (cp-als, gcp) share in their reports:
 * the iterations their watch keeps for --history, and the line saying where the run's
 * time went. */
#ifndef TENPORT_CLI_SOLVER_H
#define TENPORT_CLI_SOLVER_H

#include <stddef.h>

/* The iterations kept for --history: records of one size, appended as they come; a
 * record that cannot be kept (out of host memory) is remembered, and the history is then
 * refused rather than written short. */
typedef struct tenport_history {
  void *records;
  size_t size; /* bytes of a record: the first push sets it */
  int count, capacity;
  int out_of_memory; /* a record could not be kept */
} tenport_history;

/* A new record of size bytes at the end (zeroed), or NULL when out of memory. */
void *tenport_history_push(tenport_history *h, size_t size);
/* Record i (0 <= i < count). */
const void *tenport_history_at(const tenport_history *h, int i);
void tenport_history_free(tenport_history *h);

/* Where a run's time went. */
typedef struct tenport_phases {
  double read, build, init, write; /* the iterations: the watch's */
} tenport_phases;

/* Prints "phases: read R s, build B s, initialisation I s, iterations T s, write W s" and
 * records each for --json. init is the run's own set-up before the solver; the solver's
 * time outside its iterations (solver_seconds - iteration_seconds: its set-up, start and
 * final model) is added to it. */
void tenport_print_phases(tenport_phases ph, double solver_seconds, double iteration_seconds);

#endif
