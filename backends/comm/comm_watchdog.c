/* The collectives' watchdog: with a time limit (tp_comm_set_timeout, or
 * TENPORT_COMM_TIMEOUT seconds in the environment when the first communicator is made),
 * a thread of this process looks at the collective the process waits in; one that has
 * waited longer than the limit (a rank was stopped, or hangs) ends every rank with a
 * message naming the collective, through MPI_Abort, instead of waiting forever. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "portable/tp_clock.h"
#include "portable/tp_error.h"
#include "backends/comm/tp_comm_internal.h"

static double limit;                    /* seconds; 0: no watchdog */
static volatile double waiting_since;   /* 0: not in a collective */
static const char *volatile waiting_in; /* the collective's name */
static tp_comm *volatile waiting_comm;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static int watching, env_read;

static void *watch(void *unused) {
  (void)unused;
  const struct timespec tick = {0, 100 * 1000 * 1000};
  for (;;) {
    nanosleep(&tick, NULL);
    double since = waiting_since;
    tp_comm *c = waiting_comm;
    if (since <= 0 || !c || limit <= 0 || tp_wall_seconds() - since <= limit)
      continue;
    fprintf(stderr,
            "tenport: rank %d of %d: %s has waited more than %g s (the collectives' time "
            "limit): another rank has stopped or hangs; aborting every rank\n",
            c->rank, c->size, waiting_in ? waiting_in : "a collective", limit);
    fflush(stderr);
    MPI_Abort(c->mpi, 1);
  }
  return NULL;
}

static tp_status start_watching(void) {
  if (watching || limit <= 0)
    return TP_SUCCESS;
  pthread_t t;
  int rc = pthread_create(&t, NULL, watch, NULL);
  if (rc != 0)
    return TP_ERROR(TP_ERROR_DEVICE, "cannot start the collectives' watchdog: error %d", rc);
  pthread_detach(t);
  watching = 1;
  return TP_SUCCESS;
}

tp_status tp_comm_set_timeout(double seconds) {
  TP_CHECK_ARG(seconds >= 0 && seconds <= 1e9,
               "the collectives' time limit %g s is not from 0 "
               "(none) to 1e9",
               seconds);
  pthread_mutex_lock(&watch_lock);
  limit = seconds, env_read = 1;
  tp_status st = start_watching();
  pthread_mutex_unlock(&watch_lock);
  return st;
}

tp_status tp_comm_watchdog_from_env(void) {
  pthread_mutex_lock(&watch_lock);
  tp_status st = TP_SUCCESS;
  const char *text = env_read ? NULL : getenv("TENPORT_COMM_TIMEOUT");
  env_read = 1;
  if (text && *text) {
    char *end;
    errno = 0;
    double s = strtod(text, &end);
    if (*end || errno || !(s >= 0 && s <= 1e9))
      st = TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "TENPORT_COMM_TIMEOUT='%s' is not a number of seconds from 0 to 1e9", text);
    else
      limit = s, st = start_watching();
  }
  pthread_mutex_unlock(&watch_lock);
  return st;
}

void tp_comm_watch_begin(tp_comm *c, const char *what) {
  waiting_in = what, waiting_comm = c;
  waiting_since = tp_wall_seconds();
}

void tp_comm_watch_end(void) { waiting_since = 0; }
