/* tenport's host allocations: malloc after the memory check, recorded in the block
 * index, and a small quarantine of freed blocks behind a mutex of its own (taken before
 * the index's, never after). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_block_index.h"
#include "portable/tp_error.h"
#include "portable/tp_host_alloc.h"
#include "portable/tp_host_memory.h"

typedef struct tp_held_block {
  void *ptr;
  size_t bytes;
} tp_held_block;

/* Oldest first. */
static tp_held_block tp_host_held[TP_HOST_QUARANTINE_COUNT];
static size_t tp_host_held_count, tp_host_held_bytes;
static pthread_mutex_t tp_host_held_lock = PTHREAD_MUTEX_INITIALIZER;

tp_status tp_host_alloc(size_t bytes, const char *what, void **ptr) {
  *ptr = NULL;
  if (what)
    TP_TRY(tp_host_memory_check(bytes, what));
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory%s%s", bytes,
                    what ? " for a " : "", what ? what : "");
  tp_status st = tp_block_index_add(p, bytes, TP_BLOCK_HOST);
  if (st != TP_SUCCESS) {
    free(p);
    return st;
  }
  *ptr = p;
  return TP_SUCCESS;
}

tp_status tp_host_adopt(void *ptr, size_t bytes) {
  return tp_block_index_add(ptr, bytes, TP_BLOCK_HOST);
}

/* Releases the oldest held block; with the quarantine's lock held. */
static void release_oldest(void) {
  tp_held_block b = tp_host_held[0];
  memmove(tp_host_held, tp_host_held + 1, --tp_host_held_count * sizeof *tp_host_held);
  tp_host_held_bytes -= b.bytes;
  tp_block_index_remove(b.ptr);
  free(b.ptr);
}

/* Holds a block the index marked freed; releases older ones to stay within the caps. */
static void hold(void *ptr, size_t bytes) {
  pthread_mutex_lock(&tp_host_held_lock);
  while (tp_host_held_count > 0 && (tp_host_held_count == TP_HOST_QUARANTINE_COUNT ||
                                    tp_host_held_bytes + bytes > TP_HOST_QUARANTINE_BYTES))
    release_oldest();
  tp_held_block b = {ptr, bytes};
  tp_host_held[tp_host_held_count++] = b;
  tp_host_held_bytes += bytes;
  pthread_mutex_unlock(&tp_host_held_lock);
}

enum { TP_REASON_BYTES = 256 };

/* Why a host free of ptr (entry e) is refused. */
static void refusal(const void *ptr, const tp_block_entry *e, const char *what, char *why) {
  const char *name = what ? what : "pointer";
  if (e->state == TP_BLOCK_FREED)
    snprintf(why, TP_REASON_BYTES, "%s (%p, %zu bytes) was already freed%s", name, ptr, e->bytes,
             e->owner == TP_BLOCK_HOST ? "" : " by its space");
  else
    snprintf(why, TP_REASON_BYTES,
             "%s (%p, %zu bytes) belongs to a space (it was allocated with "
             "one): free it with that space, not with a NULL space",
             name, ptr, e->bytes);
}

static int host_may_free(const tp_block_entry *e) {
  return e->state == TP_BLOCK_UNKNOWN || (e->state == TP_BLOCK_LIVE && e->owner == TP_BLOCK_HOST);
}

tp_status tp_host_free_check(const void *ptr, const char *what) {
  if (!ptr)
    return TP_SUCCESS;
  tp_block_entry e = tp_block_index_find(ptr);
  if (host_may_free(&e))
    return TP_SUCCESS;
  char why[TP_REASON_BYTES];
  refusal(ptr, &e, what, why);
  return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "%s", why);
}

tp_status tp_host_free(void *ptr, const char *what) {
  if (!ptr)
    return TP_SUCCESS;
  int small = 0;
  tp_block_entry e = tp_block_index_find(ptr);
  if (e.state == TP_BLOCK_LIVE && e.owner == TP_BLOCK_HOST)
    small = e.bytes <= TP_HOST_QUARANTINE_BLOCK;
  e = tp_block_index_release(ptr, TP_BLOCK_HOST, !small);
  if (!host_may_free(&e)) {
    char why[TP_REASON_BYTES];
    refusal(ptr, &e, what, why);
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "%s", why);
  }
  if (e.state == TP_BLOCK_LIVE && small)
    hold(ptr, e.bytes);
  else
    free(ptr); /* a large block, or memory tenport did not record */
  return TP_SUCCESS;
}
