/* The process-wide index of the blocks tenport allocated: for each block start, its size,
 * its owner (a space, or the host for allocations made with a NULL space) and whether it
 * is live or freed and still held back (quarantined, so its address is not reused yet).
 * Frees consult it to refuse a pointer of another owner, and descriptor checks to reject
 * a pointer that was freed. Thread-safe (one mutex); keyed by the exact block start. */
#ifndef TP_BLOCK_INDEX_H
#define TP_BLOCK_INDEX_H

#include <stddef.h>

#include "tenport/status.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* The owner of host allocations made on the caller's behalf with a NULL space. */
#define TP_BLOCK_HOST ((const void *)0)

typedef enum tp_block_state {
  TP_BLOCK_UNKNOWN = 0, /* not tenport's (the caller's), or forgotten */
  TP_BLOCK_LIVE = 1,
  TP_BLOCK_FREED = 2 /* freed, and its address held back from reuse */
} tp_block_state;

typedef struct tp_block_entry {
  const void *ptr;
  size_t bytes;      /* as requested */
  const void *owner; /* the tp_space, or TP_BLOCK_HOST */
  tp_block_state state;
} tp_block_entry;

/* Records a live block. */
tp_status tp_block_index_add(const void *ptr, size_t bytes, const void *owner);

/* The entry of ptr; state TP_BLOCK_UNKNOWN when there is none. */
tp_block_entry tp_block_index_find(const void *ptr);

/* If ptr is a live block of owner, marks it freed (forget == 0) or forgets it; returns
 * the entry as it was before, so the caller sees whether the release happened. */
tp_block_entry tp_block_index_release(const void *ptr, const void *owner, int forget);

/* Forgets ptr whatever its state. */
void tp_block_index_remove(const void *ptr);

/* Whether an entry says ptr was freed; for descriptor checks. */
int tp_block_index_was_freed(const void *ptr);

TP_EXTERN_C_END
#endif
