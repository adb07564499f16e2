/* A space created on a thread of its own while the command reads its input. Creating a
 * GPU space (the driver's context, the device's properties, the stream) takes about
 * 0.4 s, as long as reading a 20 M-nonzero file; one after the other they add up. */
#ifndef TENPORT_SPACE_AHEAD_H
#define TENPORT_SPACE_AHEAD_H

#include <pthread.h>

#include "tenport/tenport.h"

typedef struct tenport_space_ahead {
  pthread_t thread;
  int running;        /* started and not yet joined */
  tp_space *space;    /* after the wait: the space, or NULL */
  tp_status status;   /* of tp_space_create */
  char message[1024]; /* its error message, taken on its thread */
} tenport_space_ahead;

/* Starts creating the space (device 0, the defaults); at once on this thread when no
 * thread can be started. */
void tenport_space_ahead_start(tenport_space_ahead *a);

/* Waits for the space; NULL when it could not be created, after printing
 * "tenport CMD: <why>". */
tp_space *tenport_space_ahead_wait(tenport_space_ahead *a, const char *cmd);

/* Waits and destroys the space; returns code, or 1 after a message when the space did not
 * shut down cleanly. */
int tenport_space_ahead_finish(tenport_space_ahead *a, const char *cmd, int code);

#endif
