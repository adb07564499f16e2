/* Backend-neutral bookkeeping of a space: allocations, memory limit, temporary cache.
 * Each backend embeds a tp_space_common in its tp_space and supplies the raw hooks. */
#ifndef TP_SPACE_COMMON_H
#define TP_SPACE_COMMON_H

#include <stddef.h>
#include "tenport/space.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

typedef struct tp_block {
  void *ptr;
  size_t bytes;       /* as allocated (rounded up) */
  int in_use;         /* temporaries only: handed out and not yet released */
  size_t requested;   /* as asked for: copies and fills must stay within it */
  const void *stream; /* temporaries: the stream (lane) whose work used the block last */
} tp_block;

typedef struct tp_block_list {
  tp_block *items;
  size_t count, capacity;
} tp_block_list;

typedef struct tp_space_common {
  size_t memory_limit;
  size_t bytes_in_use;
  size_t bytes_peak;   /* high-water mark of bytes_in_use since creation or reset */
  tp_block_list user;  /* tp_alloc'd blocks, sorted by address */
  tp_block_list temp;  /* cached temporaries of primitives */
  tp_block_list freed; /* freed user blocks held back from reuse, oldest first */
  size_t freed_bytes;
  void *blas;   /* a vendor BLAS handle bound to the space's stream, made lazily */
  int64_t work; /* tp_space_set_work: the size of the work at hand (0: unknown) */
  void (*blas_release)(void *blas);
} tp_space_common;

/* The size of the work an algorithm is about to launch, in elementary operations of its
 * largest kernel (0: unknown, the default): host backends give a launch at most one
 * thread per TP_HOST_WORK_PER_THREAD of it, so that a small problem is not spread over
 * threads that cost more to wake (on a loaded machine, a scheduler's time slice each)
 * than its work. GPU spaces ignore it. Returns the previous value, to put back. */
#define TP_HOST_WORK_PER_THREAD ((int64_t)1 << 16)
int64_t tp_space_set_work(tp_space *space, int64_t work);
/* The threads a host launch takes now (after the work cap); 0 on GPU spaces. */
int tp_space_launch_threads(const tp_space *space);

/* Hooks every backend implements. */
tp_space_common *tp_space_common_of(tp_space *space);
tp_status tp_backend_raw_alloc(tp_space *space, size_t bytes, void **ptr);
void tp_backend_raw_free(tp_space *space, void *ptr);
/* Fails with TP_ERROR_OUT_OF_MEMORY when bytes (from TP_HOST_MEMORY_CHECK_FROM on) exceed
 * the memory the space can still get: host memory (tp_host_memory_check) on the CPU, the
 * device's free memory on GPUs. what describes the request; NULL: "block". */
tp_status tp_backend_memory_check(tp_space *space, size_t bytes, const char *what);

/* tp_backend_memory_check for callers that describe what they allocate, before the
 * tp_alloc calls that make it up ("a 8.0 GB dense tensor 1000x1000x1000 (float64) does not
 * fit: ..."). */
tp_status tp_space_memory_check(tp_space *space, size_t bytes, const char *what);

/* ---- the registry's guards (space_registry.c) ------------------------------------------
 * A freed user block of up to TP_SPACE_QUARANTINE_BLOCK bytes is held back (up to
 * TP_SPACE_QUARANTINE_BYTES and _COUNT in all, oldest released first), so that pointers
 * into it are reported as freed for a while; the space's memory pressure releases it. */
#define TP_SPACE_QUARANTINE_BLOCK ((size_t)8 << 20)
#define TP_SPACE_QUARANTINE_BYTES ((size_t)32 << 20)
#define TP_SPACE_QUARANTINE_COUNT 64

/* [ptr, ptr + bytes) must stay inside the user block of the space that holds ptr, and ptr
 * must not lie in a block that was freed; role names the pointer in messages
 * ("destination"). Pointers tenport does not know (the caller's) pass. */
tp_status tp_space_check_span(tp_space *space, const void *ptr, size_t bytes, const char *role);

/* The error tp_free(space, ptr) would return, without freeing; what names the pointer. */
tp_status tp_space_check_free(tp_space *space, const void *ptr, const char *what);

/* Sorted user blocks: insertion, removal and lookups by start and by containment. */
tp_status tp_registry_insert(tp_block_list *list, tp_block block);
void tp_registry_erase(tp_block_list *list, size_t index);
long tp_registry_find(const tp_block_list *list, const void *ptr);
long tp_registry_containing(const tp_block_list *list, const void *ptr);

/* Holds a freed user block back (its bytes no longer count as in use); releases the
 * oldest ones beyond the caps. Releases every held block. */
tp_status tp_quarantine_hold(tp_space *space, tp_block block);
void tp_quarantine_release_all(tp_space *space);

/* Temporary memory for primitives. A released block is handed out again only to work
 * issued later on the stream it was released on (between tp_space_lanes_begin and _end,
 * lanes are concurrent streams), which is why no fence is needed. */
tp_status tp_temp_alloc(tp_space *space, size_t bytes, void **ptr);
void tp_temp_release(tp_space *space, void *ptr);
/* Every lane's work is now ordered before stream's (the lanes joined it): the released
 * temporaries may go to stream's work. */
void tp_temp_joined(tp_space *space, const void *stream);

/* Frees every block; returns how many user blocks were still allocated. */
size_t tp_space_common_release_all(tp_space *space);

TP_EXTERN_C_END
#endif
