/* See space_ahead.h. tenport's last error is per thread: the creating thread copies its
 * message into the handle for the waiting one. */
#include "tools/tenport/space_ahead.h"
#include "tools/tenport/cli_conventions.h"

#include <stdio.h>
#include <string.h>

static void create(tenport_space_ahead *a) {
  a->space = NULL;
  tp_space_options options = tenport_space_options();
  a->status = tp_space_create(&a->space, &options);
  if (a->status != TP_SUCCESS)
    snprintf(a->message, sizeof a->message, "%s",
             *tp_last_error() ? tp_last_error() : "cannot create a space");
}

static void *create_on_thread(void *arg) {
  create((tenport_space_ahead *)arg);
  return NULL;
}

void tenport_space_ahead_start(tenport_space_ahead *a) {
  memset(a, 0, sizeof *a);
  a->running = pthread_create(&a->thread, NULL, create_on_thread, a) == 0;
  if (!a->running)
    create(a);
}

static void join(tenport_space_ahead *a) {
  if (a->running)
    pthread_join(a->thread, NULL);
  a->running = 0;
}

tp_space *tenport_space_ahead_wait(tenport_space_ahead *a, const char *cmd) {
  join(a);
  if (a->status != TP_SUCCESS)
    fprintf(stderr, "tenport %s: %s\n", cmd, a->message);
  return a->status == TP_SUCCESS ? a->space : NULL;
}

int tenport_space_ahead_finish(tenport_space_ahead *a, const char *cmd, int code) {
  join(a);
  if (a->space && tp_space_destroy(&a->space) != TP_SUCCESS) {
    fprintf(stderr, "tenport %s: the space did not shut down cleanly: %s\n", cmd, tp_last_error());
    code = 1;
  }
  return code;
}
