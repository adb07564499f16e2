/* How much host memory the process may still take, and the check that large host
 * allocations make first, so that a request the kernel would answer with an OOM kill
 * fails with TP_ERROR_OUT_OF_MEMORY and a message instead.
 *
 * Available memory is the smallest of: MemAvailable plus SwapFree (/proc/meminfo); the
 * room left under the memory limit of the process's cgroup (v2: memory.max minus
 * memory.current at every level up to the root; v1: memory.limit_in_bytes minus
 * memory.usage_in_bytes), where file cache counts as room since the kernel reclaims it
 * first; and TENPORT_HOST_MEMORY_LIMIT (bytes, or with a K/M/G/T suffix). What cannot be
 * read is left out; with nothing readable the check passes. */
#ifndef TP_HOST_MEMORY_H
#define TP_HOST_MEMORY_H

#include <stddef.h>

#include "tenport/status.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Requests from this size on are checked; smaller ones stay cheap. */
#define TP_HOST_MEMORY_CHECK_FROM ((size_t)64 << 20)

/* The environment variable that caps what the check considers available. */
#define TP_HOST_MEMORY_LIMIT_ENV "TENPORT_HOST_MEMORY_LIMIT"

typedef struct tp_host_memory {
  size_t available; /* SIZE_MAX when nothing could be read */
  char bound[128];  /* what sets it, for messages: "cgroup limit 3.2 GB, 0.3 GB in use" */
} tp_host_memory;

/* Fails with TP_ERROR_OUT_OF_MEMORY when bytes (>= TP_HOST_MEMORY_CHECK_FROM) exceed the
 * memory available: "a 8.0 GB <what> does not fit: 2.9 GB of memory is available
 * (<bound>)". what describes the request ("dense tensor 1000x1000x1000 (float64)"). A
 * malformed TENPORT_HOST_MEMORY_LIMIT is TP_ERROR_INVALID_ARGUMENT. */
tp_status tp_host_memory_check(size_t bytes, const char *what);

/* Reads the sources above into *m. The _in form reads /proc and /sys/fs/cgroup below
 * root (a fixture tree in tests; "" is the system). */
tp_status tp_host_memory_query(tp_host_memory *m);
tp_status tp_host_memory_query_in(const char *root, tp_host_memory *m);

/* The error of a request of bytes that does not fit into available (host or device);
 * bound says where the figure comes from. Shared so that every message reads alike. */
tp_status tp_memory_does_not_fit(size_t bytes, const char *what, size_t available,
                                 const char *bound);

/* "8.0 GB", "536.9 MB", "512 B": decimal units, one decimal. */
void tp_bytes_format(size_t bytes, char *buf, size_t cap);

/* ---- parsers of the kernel's texts (host_memory_parse.c); 1 when found, else 0 ---- */

/* MemAvailable + SwapFree of /proc/meminfo, in bytes (SwapFree 0 when absent). */
int tp_meminfo_parse(const char *meminfo, size_t *available);

/* The cgroup path of the memory controller in /proc/self/cgroup: the v2 line "0::PATH"
 * (v1 == 0), or the v1 line whose controllers include "memory" (v1 == 1). */
int tp_cgroup_path_parse(const char *proc_self_cgroup, int v1, char *path, size_t cap);

/* memory.max / memory.limit_in_bytes / memory.current: a byte count; "max" and v1's
 * "unlimited" (a page-rounded 2^63 - 1) give SIZE_MAX. */
int tp_cgroup_value_parse(const char *text, size_t *bytes);

/* The value of `key` in a memory.stat text ("inactive_file 123"). */
int tp_cgroup_stat_parse(const char *memory_stat, const char *key, size_t *value);

/* Room under a cgroup limit: limit - (usage - file cache), SIZE_MAX without a limit. */
size_t tp_cgroup_room(size_t limit, size_t usage, size_t file_cache);

/* "3G", "512M", "64k", "1000" (K = 1024); a trailing "B" or "iB" is accepted. */
int tp_byte_size_parse(const char *text, size_t *bytes);

TP_EXTERN_C_END
#endif
