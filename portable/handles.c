/* The live handles of tenport's objects (spaces, FLYCOO tensors). A handle is a pointer:
 * a copy of it names the same object, so destroying through a second copy, or after the
 * object was destroyed through another, would free freed memory. Each object's handle is
 * listed when it is made and unlisted when it is destroyed: a destroy of a handle not
 * listed is an error that names it, and nothing is freed twice. (An address the system
 * hands out again for a new object makes an old copy look live again: copies are best
 * not kept past a destroy.) */
#include <pthread.h>
#include <stdlib.h>

#include "portable/tp_error.h"
#include "portable/tp_handles.h"

static const void **live;
static size_t live_n, live_cap;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

tp_status tpi_handle_list(const void *handle, const char *what) {
  pthread_mutex_lock(&live_lock);
  tp_status st = TP_SUCCESS;
  if (live_n == live_cap) {
    size_t cap = live_cap ? 2 * live_cap : 16;
    const void **p = (const void **)realloc((void *)live, cap * sizeof *p);
    if (p)
      live = p, live_cap = cap;
    else
      st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to list a new %s", what);
  }
  if (st == TP_SUCCESS)
    live[live_n++] = handle;
  pthread_mutex_unlock(&live_lock);
  return st;
}

/* The index of handle in the list, or live_n (with the lock held). */
static size_t find(const void *handle) {
  size_t i = 0;
  while (i < live_n && live[i] != handle)
    ++i;
  return i;
}

int tpi_handle_is_live(const void *handle) {
  pthread_mutex_lock(&live_lock);
  int found = find(handle) < live_n;
  pthread_mutex_unlock(&live_lock);
  return found;
}

tp_status tpi_handle_unlist(const void *handle, const char *what) {
  pthread_mutex_lock(&live_lock);
  size_t i = find(handle);
  int found = i < live_n;
  if (found)
    live[i] = live[--live_n];
  pthread_mutex_unlock(&live_lock);
  return found ? TP_SUCCESS
               : TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                          "%s %p is not live: it was destroyed already (through a copy of "
                          "its handle?) or never made",
                          what, handle);
}
