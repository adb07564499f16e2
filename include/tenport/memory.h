/* Memory of a space: allocation, copies and fills. */
#ifndef TENPORT_MEMORY_H
#define TENPORT_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include "tenport/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates bytes in the space (device memory on GPUs, 64-byte aligned host memory
 * on the CPU). bytes == 0 gives *ptr == NULL. */
tp_status tp_alloc(tp_space *space, size_t bytes, void **ptr);

/* Frees memory from tp_alloc; NULL is ignored. Waits for outstanding work first. */
tp_status tp_free(tp_space *space, void *ptr);

/* Host <-> space copies are complete when the call returns. */
tp_status tp_copy_to_device(tp_space *space, void *dst, const void *src, size_t bytes);
tp_status tp_copy_to_host(tp_space *space, void *dst, const void *src, size_t bytes);

/* Copies and fills inside the space are ordered on the space's stream and may still be
 * running when the call returns (tp_space_fence waits). */
tp_status tp_copy_on_device(tp_space *space, void *dst, const void *src, size_t bytes);
tp_status tp_memset(tp_space *space, void *dst, int byte_value, size_t bytes);
tp_status tp_fill_f32(tp_space *space, float *dst, int64_t n, float value);
tp_status tp_fill_f64(tp_space *space, double *dst, int64_t n, double value);
tp_status tp_fill_i32(tp_space *space, int32_t *dst, int64_t n, int32_t value);
tp_status tp_fill_i64(tp_space *space, int64_t *dst, int64_t n, int64_t value);

#ifdef __cplusplus
}
#endif
#endif
