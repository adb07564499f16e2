/* Backend-neutral bookkeeping of a space: allocations, memory limit, temporary cache.
 * Each backend embeds a tp_space_common in its tp_space and supplies the raw hooks. */
#ifndef TP_SPACE_COMMON_H
#define TP_SPACE_COMMON_H

#include <stddef.h>
#include "tenport/space.h"
#include "tp_extern_c.h"

TP_EXTERN_C_BEGIN

typedef struct tp_block {
  void *ptr;
  size_t bytes;
  int in_use; /* temporaries only: handed out and not yet released */
} tp_block;

typedef struct tp_block_list {
  tp_block *items;
  size_t count, capacity;
} tp_block_list;

typedef struct tp_space_common {
  size_t memory_limit;
  size_t bytes_in_use;
  size_t bytes_peak;   /* high-water mark of bytes_in_use since creation or reset */
  tp_block_list user;  /* tp_alloc'd blocks */
  tp_block_list temp;  /* cached temporaries of primitives */
  void *blas;          /* a vendor BLAS handle bound to the space's stream, made lazily */
  void (*blas_release)(void *blas);
} tp_space_common;

/* Hooks every backend implements. */
tp_space_common *tp_space_common_of(tp_space *space);
tp_status tp_backend_raw_alloc(tp_space *space, size_t bytes, void **ptr);
void tp_backend_raw_free(tp_space *space, void *ptr);

/* Temporary memory for primitives. A released block may be handed out again to work
 * issued later on the same stream, which is why no fence is needed. */
tp_status tp_temp_alloc(tp_space *space, size_t bytes, void **ptr);
void tp_temp_release(tp_space *space, void *ptr);

/* Frees every block; returns how many user blocks were still allocated. */
size_t tp_space_common_release_all(tp_space *space);

TP_EXTERN_C_END
#endif
