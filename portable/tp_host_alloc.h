/* Host memory tenport allocates on the caller's behalf (tp_dense_alloc, tp_kruskal_alloc
 * and tp_coo_alloc with a NULL space, the readers): checked against the memory available
 * first, and recorded in the block index as the host's, so that freeing it with a space,
 * freeing a space's block as host memory, or freeing it twice is refused with a message
 * instead of a crash or a silent leak.
 *
 * A freed block of up to TP_HOST_QUARANTINE_BLOCK bytes is held back (up to
 * TP_HOST_QUARANTINE_BYTES in all, oldest released first) so that its address is not
 * reused while a stale pointer to it may still be around; larger ones are freed at once
 * and forgotten. */
#ifndef TP_HOST_ALLOC_H
#define TP_HOST_ALLOC_H

#include <stddef.h>

#include "tenport/status.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

#define TP_HOST_QUARANTINE_BLOCK ((size_t)8 << 20)
#define TP_HOST_QUARANTINE_BYTES ((size_t)32 << 20)
#define TP_HOST_QUARANTINE_COUNT 64

/* malloc(bytes) (one byte for 0, so the pointer is never NULL) recorded as the host's.
 * what (for example "dense tensor 40x30x20 (float64)") asks for the memory check of
 * tp_host_memory_check; NULL skips it (the caller checked a total already). */
tp_status tp_host_alloc(size_t bytes, const char *what, void **ptr);

/* Records memory from malloc (or realloc) of bytes as tenport's host allocation, so
 * tp_host_free treats it as one. */
tp_status tp_host_adopt(void *ptr, size_t bytes);

/* Frees host memory: a block recorded as the host's, or memory tenport does not know
 * (malloc'ed by code that does not record it). Refused, with nothing freed: a block a
 * space owns, and a block already freed (while it is held back). what names the pointer
 * in messages ("the dense tensor's data"). NULL is fine. */
tp_status tp_host_free(void *ptr, const char *what);

/* The error tp_host_free(ptr, what) would return, without freeing anything. */
tp_status tp_host_free_check(const void *ptr, const char *what);

TP_EXTERN_C_END
#endif
