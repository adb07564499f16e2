/* What a space's registry guards: its user blocks kept sorted by address (found by start
 * or by containment in O(log n)), the quarantine of freed blocks, and the checks built on
 * them: copies and fills that leave their block or touch a freed one, and frees of
 * pointers the space does not own. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_block_index.h"
#include "portable/tp_error.h"
#include "portable/tp_space_common.h"

static tp_status reserve_one(tp_block_list *list) {
  if (list->count < list->capacity)
    return TP_SUCCESS;
  size_t capacity = list->capacity ? 2 * list->capacity : 16;
  tp_block *items = (tp_block *)realloc(list->items, capacity * sizeof *items);
  if (!items)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot grow the allocation registry to %zu entries",
                    capacity);
  list->items = items;
  list->capacity = capacity;
  return TP_SUCCESS;
}

/* Index of the first block whose start is above ptr. Branch-free halving (a conditional
 * move per step): copies and fills look blocks up at random, where a branchy search
 * mispredicts about every other step. */
static size_t upper_bound(const tp_block_list *list, const void *ptr) {
  if (list->count == 0)
    return 0;
  const tp_block *base = list->items;
  size_t n = list->count;
  while (n > 1) {
    size_t half = n / 2;
    base = (uintptr_t)base[half].ptr <= (uintptr_t)ptr ? base + half : base;
    n -= half;
  }
  return (size_t)(base - list->items) + ((uintptr_t)base->ptr <= (uintptr_t)ptr);
}

tp_status tp_registry_insert(tp_block_list *list, tp_block block) {
  TP_TRY(reserve_one(list));
  size_t at = upper_bound(list, block.ptr);
  memmove(list->items + at + 1, list->items + at, (list->count - at) * sizeof *list->items);
  list->items[at] = block;
  list->count++;
  return TP_SUCCESS;
}

void tp_registry_erase(tp_block_list *list, size_t index) {
  memmove(list->items + index, list->items + index + 1,
          (list->count - index - 1) * sizeof *list->items);
  list->count--;
}

long tp_registry_containing(const tp_block_list *list, const void *ptr) {
  size_t at = upper_bound(list, ptr);
  if (at == 0)
    return -1;
  const tp_block *b = &list->items[at - 1];
  uintptr_t start = (uintptr_t)b->ptr, p = (uintptr_t)ptr;
  return p - start < (b->requested ? b->requested : 1) ? (long)(at - 1) : -1;
}

long tp_registry_find(const tp_block_list *list, const void *ptr) {
  long i = tp_registry_containing(list, ptr);
  return i >= 0 && list->items[i].ptr == ptr ? i : -1;
}

/* ---- quarantine ---------------------------------------------------------------------- */

static void release_oldest(tp_space *space) {
  tp_space_common *c = tp_space_common_of(space);
  tp_block b = c->freed.items[0];
  memmove(c->freed.items, c->freed.items + 1, --c->freed.count * sizeof *c->freed.items);
  c->freed_bytes -= b.bytes;
  tp_block_index_remove(b.ptr);
  tp_backend_raw_free(space, b.ptr);
}

tp_status tp_quarantine_hold(tp_space *space, tp_block block) {
  tp_space_common *c = tp_space_common_of(space);
  while (c->freed.count > 0 && (c->freed.count == TP_SPACE_QUARANTINE_COUNT ||
                                c->freed_bytes + block.bytes > TP_SPACE_QUARANTINE_BYTES))
    release_oldest(space);
  TP_TRY(reserve_one(&c->freed));
  c->freed.items[c->freed.count++] = block;
  c->freed_bytes += block.bytes;
  return TP_SUCCESS;
}

void tp_quarantine_release_all(tp_space *space) {
  while (tp_space_common_of(space)->freed.count > 0)
    release_oldest(space);
}

/* The held block containing ptr, or NULL. */
static const tp_block *held_block(tp_space *space, const void *ptr) {
  const tp_block_list *f = &tp_space_common_of(space)->freed;
  for (size_t i = 0; i < f->count; ++i)
    if ((uintptr_t)ptr - (uintptr_t)f->items[i].ptr < f->items[i].requested)
      return &f->items[i];
  return NULL;
}

/* ---- checks ---------------------------------------------------------------------------- */

enum { TP_REASON_BYTES = 256 };

static void past_the_end(char *why, const char *role, const void *ptr, size_t bytes,
                         const void *start, size_t block_bytes) {
  size_t offset = (size_t)((uintptr_t)ptr - (uintptr_t)start);
  snprintf(why, TP_REASON_BYTES,
           "%s: %zu bytes at %p run past the end of its block (%zu bytes at %p): %zu bytes "
           "remain from that point",
           role, bytes, ptr, block_bytes, start, block_bytes - offset);
}

static void in_freed_block(char *why, const char *role, const void *ptr, const void *start,
                           size_t block_bytes) {
  snprintf(why, TP_REASON_BYTES,
           "%s %p lies in a block (%zu bytes at %p) that was freed: a use "
           "after free",
           role, ptr, block_bytes, start);
}

/* Why [ptr, ptr + bytes) may not be accessed (why[0] == 0: it may). */
static void span_problem(tp_space *space, const void *ptr, size_t bytes, const char *role,
                         char *why) {
  tp_space_common *c = tp_space_common_of(space);
  why[0] = '\0';
  long i = tp_registry_containing(&c->user, ptr);
  if (i >= 0) {
    const tp_block *b = &c->user.items[i];
    if (bytes > b->requested - (size_t)((uintptr_t)ptr - (uintptr_t)b->ptr))
      past_the_end(why, role, ptr, bytes, b->ptr, b->requested);
    return;
  }
  const tp_block *held = held_block(space, ptr);
  if (held) {
    in_freed_block(why, role, ptr, held->ptr, held->requested);
    return;
  }
  /* another owner's block (found by its start only), or the caller's memory */
  tp_block_entry e = tp_block_index_find(ptr);
  if (e.state == TP_BLOCK_FREED)
    in_freed_block(why, role, ptr, ptr, e.bytes);
  else if (e.state == TP_BLOCK_LIVE && bytes > e.bytes)
    past_the_end(why, role, ptr, bytes, ptr, e.bytes);
}

tp_status tp_space_check_span(tp_space *space, const void *ptr, size_t bytes, const char *role) {
  if (!ptr || bytes == 0)
    return TP_SUCCESS;
  char why[TP_REASON_BYTES];
  span_problem(space, ptr, bytes, role, why);
  return why[0] ? TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "%s", why) : TP_SUCCESS;
}

/* Why ptr, not a live block start of this space, cannot be freed by it. */
static void free_problem(tp_space *space, const void *ptr, const char *what, char *why) {
  tp_space_common *c = tp_space_common_of(space);
  tp_block_entry e = tp_block_index_find(ptr);
  long inside = tp_registry_containing(&c->user, ptr);
  if (e.state == TP_BLOCK_FREED)
    snprintf(why, TP_REASON_BYTES, "%s %p (%zu bytes) was already freed%s", what, ptr, e.bytes,
             e.owner == (const void *)space ? " by this space" : "");
  else if (e.state == TP_BLOCK_LIVE && e.owner == TP_BLOCK_HOST)
    snprintf(why, TP_REASON_BYTES,
             "%s %p (%zu bytes) is host memory tenport allocated with a "
             "NULL space: free it with a NULL space",
             what, ptr, e.bytes);
  else if (e.state == TP_BLOCK_LIVE)
    snprintf(why, TP_REASON_BYTES,
             "%s %p (%zu bytes) belongs to another space: free it with "
             "that space",
             what, ptr, e.bytes);
  else if (inside >= 0)
    snprintf(why, TP_REASON_BYTES,
             "%s %p lies inside a block of this space (%zu bytes at %p) "
             "but is not its start",
             what, ptr, c->user.items[inside].requested, c->user.items[inside].ptr);
  else
    snprintf(why, TP_REASON_BYTES, "%s %p was not allocated by this space", what, ptr);
}

tp_status tp_space_check_free(tp_space *space, const void *ptr, const char *what) {
  TP_CHECK_ARG(space, "space must not be NULL");
  if (!ptr || tp_registry_find(&tp_space_common_of(space)->user, ptr) >= 0)
    return TP_SUCCESS;
  char why[TP_REASON_BYTES];
  free_problem(space, ptr, what ? what : "pointer", why);
  return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "%s", why);
}
