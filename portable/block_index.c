/* The process-wide block index: an open-addressing hash table of block starts (linear
 * probing, deletion by backward shift), grown at half load, behind one mutex. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_block_index.h"
#include "portable/tp_error.h"

typedef struct tp_block_table {
  tp_block_entry *slots; /* ptr == NULL: empty */
  size_t capacity;       /* a power of two, or 0 */
  size_t count;
} tp_block_table;

static tp_block_table tp_blocks;
static pthread_mutex_t tp_blocks_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(const void *ptr, size_t capacity) {
  uint64_t h = (uint64_t)(uintptr_t)ptr;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (size_t)h & (capacity - 1);
}

/* The slot holding ptr, or the empty slot where it would go. */
static size_t probe(const tp_block_table *t, const void *ptr) {
  size_t i = slot_of(ptr, t->capacity);
  while (t->slots[i].ptr && t->slots[i].ptr != ptr)
    i = (i + 1) & (t->capacity - 1);
  return i;
}

static int grow(tp_block_table *t) {
  size_t capacity = t->capacity ? 2 * t->capacity : 1024;
  tp_block_entry *slots = (tp_block_entry *)calloc(capacity, sizeof *slots);
  if (!slots)
    return 0;
  tp_block_table bigger = {slots, capacity, 0};
  for (size_t i = 0; i < t->capacity; ++i)
    if (t->slots[i].ptr) {
      bigger.slots[probe(&bigger, t->slots[i].ptr)] = t->slots[i];
      bigger.count++;
    }
  free(t->slots);
  *t = bigger;
  return 1;
}

/* Empties slot i and moves later entries of its run back, so probes stay unbroken. */
static void erase_slot(tp_block_table *t, size_t i) {
  size_t mask = t->capacity - 1;
  for (size_t j = (i + 1) & mask; t->slots[j].ptr; j = (j + 1) & mask) {
    size_t home = slot_of(t->slots[j].ptr, t->capacity);
    /* j's entry may move to i when its home is not in (i, j] (cyclically) */
    if (((j - home) & mask) >= ((j - i) & mask)) {
      t->slots[i] = t->slots[j];
      i = j;
    }
  }
  memset(&t->slots[i], 0, sizeof t->slots[i]);
  t->count--;
}

tp_status tp_block_index_add(const void *ptr, size_t bytes, const void *owner) {
  if (!ptr)
    return TP_SUCCESS;
  pthread_mutex_lock(&tp_blocks_lock);
  int ok = 2 * (tp_blocks.count + 1) <= tp_blocks.capacity || grow(&tp_blocks);
  if (ok) {
    size_t i = probe(&tp_blocks, ptr);
    tp_blocks.count += tp_blocks.slots[i].ptr == NULL;
    tp_block_entry e = {ptr, bytes, owner, TP_BLOCK_LIVE};
    tp_blocks.slots[i] = e;
  }
  pthread_mutex_unlock(&tp_blocks_lock);
  if (!ok)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot grow the block index past %zu entries",
                    tp_blocks.count);
  return TP_SUCCESS;
}

/* The entry of ptr, with the lock held. */
static tp_block_entry find_locked(const void *ptr) {
  tp_block_entry none = {ptr, 0, NULL, TP_BLOCK_UNKNOWN};
  if (!ptr || tp_blocks.count == 0)
    return none;
  size_t i = probe(&tp_blocks, ptr);
  return tp_blocks.slots[i].ptr ? tp_blocks.slots[i] : none;
}

tp_block_entry tp_block_index_find(const void *ptr) {
  pthread_mutex_lock(&tp_blocks_lock);
  tp_block_entry e = find_locked(ptr);
  pthread_mutex_unlock(&tp_blocks_lock);
  return e;
}

tp_block_entry tp_block_index_release(const void *ptr, const void *owner, int forget) {
  pthread_mutex_lock(&tp_blocks_lock);
  tp_block_entry e = find_locked(ptr);
  if (e.state == TP_BLOCK_LIVE && e.owner == owner) {
    size_t i = probe(&tp_blocks, ptr);
    if (forget)
      erase_slot(&tp_blocks, i);
    else
      tp_blocks.slots[i].state = TP_BLOCK_FREED;
  }
  pthread_mutex_unlock(&tp_blocks_lock);
  return e;
}

void tp_block_index_remove(const void *ptr) {
  pthread_mutex_lock(&tp_blocks_lock);
  if (ptr && tp_blocks.count) {
    size_t i = probe(&tp_blocks, ptr);
    if (tp_blocks.slots[i].ptr)
      erase_slot(&tp_blocks, i);
  }
  pthread_mutex_unlock(&tp_blocks_lock);
}

int tp_block_index_was_freed(const void *ptr) {
  return ptr && tp_block_index_find(ptr).state == TP_BLOCK_FREED;
}
