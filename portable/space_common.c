/* Allocation registry, memory limit and temporary-buffer cache shared by all backends. */
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "portable/tp_block_index.h"
#include "portable/tp_error.h"
#include "portable/tp_handles.h"
#include "portable/tp_space_common.h"

enum { TP_ALIGN_BYTES = 256 };

static tp_status tp_block_list_push(tp_block_list *list, tp_block block) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 16;
    tp_block *items = (tp_block *)realloc(list->items, capacity * sizeof *items);
    if (!items)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot grow the allocation registry to %zu entries",
                      capacity);
    list->items = items;
    list->capacity = capacity;
  }
  list->items[list->count++] = block;
  return TP_SUCCESS;
}

static void tp_block_list_remove(tp_block_list *list, size_t index) {
  list->items[index] = list->items[--list->count];
}

static long tp_block_list_find(const tp_block_list *list, const void *ptr) {
  for (size_t i = 0; i < list->count; ++i)
    if (list->items[i].ptr == ptr)
      return (long)i;
  return -1;
}

static size_t tp_round_up(size_t bytes) {
  return (bytes + TP_ALIGN_BYTES - 1) / TP_ALIGN_BYTES * TP_ALIGN_BYTES;
}

/* Frees cached temporaries nobody holds and the freed blocks held back, to make room. */
static void tp_release_idle_temps(tp_space *space) {
  tp_space_common *c = tp_space_common_of(space);
  tp_quarantine_release_all(space);
  for (size_t i = c->temp.count; i-- > 0;) {
    tp_block b = c->temp.items[i];
    if (b.in_use)
      continue;
    tp_backend_raw_free(space, b.ptr);
    c->bytes_in_use -= b.bytes;
    tp_block_list_remove(&c->temp, i);
  }
}

static tp_status tp_raw_alloc_within_limit(tp_space *space, size_t bytes, void **ptr) {
  tp_space_common *c = tp_space_common_of(space);
  if (c->memory_limit && c->bytes_in_use + bytes > c->memory_limit)
    tp_release_idle_temps(space);
  if (c->memory_limit && c->bytes_in_use + bytes > c->memory_limit)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                    "allocating %zu bytes would exceed the space's memory limit of %zu bytes "
                    "(%zu in use)",
                    bytes, c->memory_limit, c->bytes_in_use);
  TP_TRY(tp_space_memory_check(space, bytes, NULL));
  tp_status st = tp_backend_raw_alloc(space, bytes, ptr);
  if (st == TP_ERROR_OUT_OF_MEMORY) { /* retry once without the cache */
    tp_release_idle_temps(space);
    st = tp_backend_raw_alloc(space, bytes, ptr);
  }
  if (st == TP_SUCCESS) {
    c->bytes_in_use += bytes;
    if (c->bytes_in_use > c->bytes_peak)
      c->bytes_peak = c->bytes_in_use;
  }
  return st;
}

/* Records a new user block in the space's registry and in the block index. */
static tp_status tp_register_user_block(tp_space *space, tp_block block) {
  tp_space_common *c = tp_space_common_of(space);
  TP_TRY(tp_registry_insert(&c->user, block));
  tp_status st = tp_block_index_add(block.ptr, block.requested, space);
  if (st != TP_SUCCESS)
    tp_registry_erase(&c->user, (size_t)tp_registry_find(&c->user, block.ptr));
  return st;
}

tp_status tp_alloc(tp_space *space, size_t bytes, void **ptr) {
  TP_CHECK_ARG(space && ptr, "space and ptr must not be NULL");
  TP_CHECK_LIVE(space, "space");
  *ptr = NULL;
  if (bytes == 0)
    return TP_SUCCESS;
  size_t rounded = tp_round_up(bytes);
  TP_CHECK_ARG(rounded >= bytes, "allocation of %zu bytes overflows", bytes);
  TP_TRY(tp_raw_alloc_within_limit(space, rounded, ptr));
  tp_block block = {*ptr, rounded, 1, bytes, NULL};
  tp_status st = tp_register_user_block(space, block);
  if (st != TP_SUCCESS) {
    tp_backend_raw_free(space, *ptr);
    tp_space_common_of(space)->bytes_in_use -= rounded;
    *ptr = NULL;
  }
  return st;
}

/* A freed block is held back when small enough, else returned to the backend. */
static void tp_retire_user_block(tp_space *space, tp_block b) {
  int hold = b.bytes <= TP_SPACE_QUARANTINE_BLOCK;
  (void)tp_block_index_release(b.ptr, space, !hold);
  if (hold && tp_quarantine_hold(space, b) == TP_SUCCESS)
    return;
  tp_block_index_remove(b.ptr);
  tp_backend_raw_free(space, b.ptr);
}

tp_status tp_free(tp_space *space, void *ptr) {
  TP_CHECK_ARG(space, "space must not be NULL");
  if (!ptr)
    return TP_SUCCESS;
  tp_space_common *c = tp_space_common_of(space);
  TP_TRY(tp_space_check_free(space, ptr, "pointer"));
  TP_TRY(tp_space_fence(space));
  size_t i = (size_t)tp_registry_find(&c->user, ptr);
  tp_block b = c->user.items[i];
  tp_registry_erase(&c->user, i);
  c->bytes_in_use -= b.bytes;
  tp_retire_user_block(space, b);
  return TP_SUCCESS;
}

tp_status tp_space_memory_check(tp_space *space, size_t bytes, const char *what) {
  TP_CHECK_ARG(space, "space must not be NULL");
  if (tp_backend_memory_check(space, bytes, what) == TP_SUCCESS)
    return TP_SUCCESS;
  tp_release_idle_temps(space); /* cached memory may be what is missing */
  return tp_backend_memory_check(space, bytes, what);
}

tp_status tp_temp_alloc(tp_space *space, size_t bytes, void **ptr) {
  tp_space_common *c = tp_space_common_of(space);
  size_t want = tp_round_up(bytes ? bytes : 1);
  long best = -1;
  const void *stream = tp_space_stream(space);
  for (size_t i = 0; i < c->temp.count; ++i) {
    const tp_block *b = &c->temp.items[i];
    if (!b->in_use && b->stream == stream && b->bytes >= want &&
        (best < 0 || b->bytes < c->temp.items[best].bytes))
      best = (long)i;
  }
  /* Reuse only blocks of a similar size, so small requests do not pin huge blocks. */
  if (best >= 0 && c->temp.items[best].bytes <= 2 * want + (1u << 20)) {
    c->temp.items[best].in_use = 1;
    *ptr = c->temp.items[best].ptr;
    return TP_SUCCESS;
  }
  TP_TRY(tp_raw_alloc_within_limit(space, want, ptr));
  tp_block block = {*ptr, want, 1, want, stream};
  tp_status st = tp_block_list_push(&c->temp, block);
  if (st != TP_SUCCESS) {
    tp_backend_raw_free(space, *ptr);
    c->bytes_in_use -= want;
    *ptr = NULL;
  }
  return st;
}

void tp_temp_release(tp_space *space, void *ptr) {
  if (!ptr)
    return;
  tp_space_common *c = tp_space_common_of(space);
  long i = tp_block_list_find(&c->temp, ptr);
  if (i >= 0) {
    c->temp.items[i].in_use = 0;
    c->temp.items[i].stream = tp_space_stream(space);
  }
}

void tp_temp_joined(tp_space *space, const void *stream) {
  tp_space_common *c = tp_space_common_of(space);
  for (size_t i = 0; i < c->temp.count; ++i)
    if (!c->temp.items[i].in_use)
      c->temp.items[i].stream = stream;
}

tp_status tp_space_trim(tp_space *space) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_TRY(tp_space_fence(space));
  tp_release_idle_temps(space);
  return TP_SUCCESS;
}

size_t tp_space_bytes_in_use(const tp_space *space) {
  return space ? tp_space_common_of((tp_space *)space)->bytes_in_use : 0;
}

tp_status tp_space_set_memory_limit(tp_space *space, size_t bytes) {
  TP_CHECK_ARG(space, "space must not be NULL");
  tp_space_common_of(space)->memory_limit = bytes;
  return TP_SUCCESS;
}

size_t tp_space_common_release_all(tp_space *space) {
  tp_space_common *c = tp_space_common_of(space);
  size_t leaked = c->user.count;
  tp_quarantine_release_all(space);
  for (size_t i = 0; i < c->user.count; ++i) {
    tp_block_index_remove(c->user.items[i].ptr);
    tp_backend_raw_free(space, c->user.items[i].ptr);
  }
  for (size_t i = 0; i < c->temp.count; ++i)
    tp_backend_raw_free(space, c->temp.items[i].ptr);
  if (c->blas && c->blas_release)
    c->blas_release(c->blas);
  free(c->user.items);
  free(c->temp.items);
  free(c->freed.items);
  memset(c, 0, sizeof *c);
  return leaked;
}

tp_space_options tp_space_options_default(void) {
  tp_space_options o;
  memset(&o, 0, sizeof o);
  return o;
}

size_t tp_space_bytes_peak(const tp_space *space) {
  return space ? tp_space_common_of((tp_space *)space)->bytes_peak : 0;
}

void tp_space_reset_peak(tp_space *space) {
  if (space) {
    tp_space_common *c = tp_space_common_of(space);
    c->bytes_peak = c->bytes_in_use;
  }
}

int64_t tp_space_set_work(tp_space *space, int64_t work) {
  tp_space_common *c = tp_space_common_of(space);
  int64_t previous = c->work;
  c->work = work > 0 ? work : 0;
  return previous;
}
