/* Memory of a space: allocation, copies and fills. */
#ifndef TENPORT_MEMORY_H
#define TENPORT_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include "tenport/export.h"
#include "tenport/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates bytes in the space (device memory on GPUs, 64-byte aligned host memory
 * on the CPU). bytes == 0 gives *ptr == NULL. A request of 64 MiB or more is compared
 * with the memory available first (the device's free memory on GPUs; host memory on the
 * CPU, see below) and fails with TP_ERROR_OUT_OF_MEMORY and a message that gives both
 * sizes, instead of an allocation the system would end with an OOM kill.
 *
 * Host memory on shared nodes: tenport checks the host allocations it makes of 64 MiB or
 * more (spaces of the CPU backends, and tensors allocated with a NULL space) against the
 * smallest of MemAvailable plus free swap, the room under the memory limit of the
 * process's cgroup (v1 or v2; file cache counts as room), and the environment variable
 *   TENPORT_HOST_MEMORY_LIMIT   bytes, or with a suffix K, M, G or T (powers of 1024),
 * which caps what the check considers available (for example the share of a node a job
 * was given, where the kernel does not enforce it). Each request is checked on its own:
 * the cap is not a budget that allocations use up. A malformed value makes the checked
 * allocations fail with TP_ERROR_INVALID_ARGUMENT. */
TP_API tp_status tp_alloc(tp_space *space, size_t bytes, void **ptr);

/* Frees memory from tp_alloc; NULL is ignored. Waits for outstanding work first. A
 * pointer the space does not own is refused (TP_ERROR_INVALID_ARGUMENT, nothing freed)
 * with a message that says whose it is: host memory tenport allocated with a NULL space,
 * another space's block, a block already freed, or memory tenport did not allocate. */
TP_API tp_status tp_free(tp_space *space, void *ptr);

/* The space's allocation registry guards the copies and fills below: a pointer inside a
 * block from tp_alloc must have the whole range [ptr, ptr + bytes) inside that block
 * (the bytes asked for), and a pointer into a block freed a short while ago (blocks of up
 * to 8 MiB, 32 MiB of them at most, are held back from reuse for that) is reported as a
 * use after free; both are TP_ERROR_INVALID_ARGUMENT, with the sizes in the message.
 * Memory tenport did not allocate (the caller's own) is not checked.
 *
 * Host <-> space copies are complete when the call returns. */
TP_API tp_status tp_copy_to_device(tp_space *space, void *dst, const void *src, size_t bytes);
TP_API tp_status tp_copy_to_host(tp_space *space, void *dst, const void *src, size_t bytes);

/* Copies and fills inside the space are ordered on the space's stream and may still be
 * running when the call returns (tp_space_fence waits). */
TP_API tp_status tp_copy_on_device(tp_space *space, void *dst, const void *src, size_t bytes);
TP_API tp_status tp_memset(tp_space *space, void *dst, int byte_value, size_t bytes);
TP_API tp_status tp_fill_f32(tp_space *space, float *dst, int64_t n, float value);
TP_API tp_status tp_fill_f64(tp_space *space, double *dst, int64_t n, double value);
TP_API tp_status tp_fill_i32(tp_space *space, int32_t *dst, int64_t n, int32_t value);
TP_API tp_status tp_fill_i64(tp_space *space, int64_t *dst, int64_t n, int64_t value);

#ifdef __cplusplus
}
#endif
#endif
