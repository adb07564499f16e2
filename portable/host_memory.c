/* The host memory the process may still take (meminfo, cgroup limits, the
 * TENPORT_HOST_MEMORY_LIMIT cap) and the check made before large host allocations. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_memory.h"

enum { TEXT_BYTES = 16384, PATH_BYTES = 4096, CGROUP_MAX_DEPTH = 64 };

/* The first cap - 1 bytes of a file, NUL-terminated; 0 when it cannot be read. */
static int read_text(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(buf, 1, cap - 1, f);
  int ok = !ferror(f);
  fclose(f);
  buf[n] = '\0';
  return ok && n > 0;
}

static int read_file_in(const char *dir, const char *name, char *buf, size_t cap) {
  char path[PATH_BYTES];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
    return 0;
  return read_text(path, buf, cap);
}

/* Keeps the smaller of the sources; bound says which one it is. */
static void consider(tp_host_memory *m, size_t available, const char *bound) {
  if (available < m->available) {
    m->available = available;
    snprintf(m->bound, sizeof m->bound, "%s", bound);
  }
}

/* root + path, for reading a fixture tree instead of the system's files. */
static int rooted(const char *root, const char *path, char *out, size_t cap) {
  return (size_t)snprintf(out, cap, "%s%s", root, path) < cap;
}

static void consider_meminfo(tp_host_memory *m, const char *root, char *text) {
  char path[PATH_BYTES];
  size_t avail = 0;
  if (rooted(root, "/proc/meminfo", path, sizeof path) && read_text(path, text, TEXT_BYTES) &&
      tp_meminfo_parse(text, &avail))
    consider(m, avail, "MemAvailable plus free swap");
}

/* File cache in a memory.stat text: the kernel reclaims it before it kills. */
static size_t file_cache(const char *stat, const char *prefix) {
  char key[32];
  size_t active = 0, inactive = 0;
  snprintf(key, sizeof key, "%sactive_file", prefix);
  (void)tp_cgroup_stat_parse(stat, key, &active);
  snprintf(key, sizeof key, "%sinactive_file", prefix);
  (void)tp_cgroup_stat_parse(stat, key, &inactive);
  return active + inactive;
}

/* One cgroup's room: limit minus what its members hold, file cache not counted. */
static void consider_cgroup(tp_host_memory *m, size_t limit, size_t usage, size_t cache,
                            char *text) {
  if (limit == SIZE_MAX)
    return;
  char lim[32], held[32];
  size_t room = tp_cgroup_room(limit, usage, cache);
  tp_bytes_format(limit, lim, sizeof lim);
  tp_bytes_format(limit - (room < limit ? room : limit), held, sizeof held);
  snprintf(text, TEXT_BYTES, "cgroup limit %s, %s in use", lim, held);
  consider(m, room, text);
}

/* v2: memory.max - memory.current at dir (0 when dir has no memory.max). */
static int cgroup_v2_level(tp_host_memory *m, const char *dir, char *text) {
  size_t limit = 0, usage = 0;
  if (!read_file_in(dir, "memory.max", text, TEXT_BYTES) || !tp_cgroup_value_parse(text, &limit))
    return 0;
  if (!read_file_in(dir, "memory.current", text, TEXT_BYTES) ||
      !tp_cgroup_value_parse(text, &usage))
    return 0;
  size_t cache = read_file_in(dir, "memory.stat", text, TEXT_BYTES) ? file_cache(text, "") : 0;
  consider_cgroup(m, limit, usage, cache, text);
  return 1;
}

/* Every level from the process's cgroup up to the root of the mount. */
static void cgroup_v2_walk(tp_host_memory *m, const char *mount, const char *path, char *text) {
  char dir[PATH_BYTES];
  if ((size_t)snprintf(dir, sizeof dir, "%s%s", mount, path) >= sizeof dir)
    return;
  size_t root = strlen(mount);
  if (strlen(dir) > root && dir[strlen(dir) - 1] == '/') /* the path "/" */
    dir[strlen(dir) - 1] = '\0';
  for (int depth = 0; depth < CGROUP_MAX_DEPTH; ++depth) {
    (void)cgroup_v2_level(m, dir, text);
    char *slash = strrchr(dir, '/');
    if (!slash || (size_t)(slash - dir) < root)
      break;
    *slash = '\0';
  }
}

/* v1: memory.limit_in_bytes (and the hierarchical limit) minus memory.usage_in_bytes. */
static int cgroup_v1_dir(tp_host_memory *m, const char *dir, char *text) {
  size_t limit = 0, usage = 0, hier = SIZE_MAX;
  if (!read_file_in(dir, "memory.limit_in_bytes", text, TEXT_BYTES) ||
      !tp_cgroup_value_parse(text, &limit))
    return 0;
  if (!read_file_in(dir, "memory.usage_in_bytes", text, TEXT_BYTES) ||
      !tp_cgroup_value_parse(text, &usage))
    return 0;
  size_t cache = 0;
  if (read_file_in(dir, "memory.stat", text, TEXT_BYTES)) {
    cache = file_cache(text, "total_");
    if (tp_cgroup_stat_parse(text, "hierarchical_memory_limit", &hier) && hier < limit)
      limit = hier >= ((size_t)1 << 62) ? SIZE_MAX : hier;
  }
  consider_cgroup(m, limit, usage, cache, text);
  return 1;
}

static void consider_cgroups(tp_host_memory *m, const char *root, char *text) {
  char path[PATH_BYTES], dir[PATH_BYTES], mount[PATH_BYTES];
  if (!rooted(root, "/proc/self/cgroup", path, sizeof path) || !read_text(path, text, TEXT_BYTES))
    return;
  char *own = (char *)malloc(strlen(text) + 1);
  if (!own)
    return;
  strcpy(own, text);
  if (tp_cgroup_path_parse(own, 0, path, sizeof path)) {
    if (rooted(root, "/sys/fs/cgroup", mount, sizeof mount))
      cgroup_v2_walk(m, mount, path, text);
    if (rooted(root, "/sys/fs/cgroup/unified", mount, sizeof mount))
      cgroup_v2_walk(m, mount, path, text);
  }
  if (tp_cgroup_path_parse(own, 1, path, sizeof path) &&
      rooted(root, "/sys/fs/cgroup/memory", mount, sizeof mount)) {
    int found = (size_t)snprintf(dir, sizeof dir, "%s%s", mount, path) < sizeof dir &&
                cgroup_v1_dir(m, dir, text);
    if (!found) /* a container sees its own cgroup at the root of the mount */
      (void)cgroup_v1_dir(m, mount, text);
  }
  free(own);
}

static tp_status consider_env(tp_host_memory *m) {
  const char *cap = getenv(TP_HOST_MEMORY_LIMIT_ENV);
  size_t bytes = 0;
  if (!cap || !*cap)
    return TP_SUCCESS;
  if (!tp_byte_size_parse(cap, &bytes))
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%s=%s is not a byte size (for example 3G, "
                    "512M or 1000000)",
                    TP_HOST_MEMORY_LIMIT_ENV, cap);
  char bound[sizeof m->bound];
  snprintf(bound, sizeof bound, "%s=%.64s", TP_HOST_MEMORY_LIMIT_ENV, cap);
  consider(m, bytes, bound);
  return TP_SUCCESS;
}

tp_status tp_host_memory_query_in(const char *root, tp_host_memory *m) {
  m->available = SIZE_MAX;
  snprintf(m->bound, sizeof m->bound, "nothing could be read");
  char *text = (char *)malloc(TEXT_BYTES);
  if (text) {
    consider_meminfo(m, root, text);
    consider_cgroups(m, root, text);
    free(text);
  }
  return consider_env(m);
}

tp_status tp_host_memory_query(tp_host_memory *m) { return tp_host_memory_query_in("", m); }

tp_status tp_host_memory_check(size_t bytes, const char *what) {
  if (bytes < TP_HOST_MEMORY_CHECK_FROM)
    return TP_SUCCESS;
  tp_host_memory m;
  TP_TRY(tp_host_memory_query(&m));
  if (bytes <= m.available)
    return TP_SUCCESS;
  return tp_memory_does_not_fit(bytes, what, m.available, m.bound);
}

tp_status tp_memory_does_not_fit(size_t bytes, const char *what, size_t available,
                                 const char *bound) {
  char want[32], have[32];
  tp_bytes_format(bytes, want, sizeof want);
  tp_bytes_format(available, have, sizeof have);
  return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "a %s %s does not fit: %s of memory is available (%s)",
                  want, what ? what : "block", have, bound);
}

void tp_bytes_format(size_t bytes, char *buf, size_t cap) {
  static const char *const units[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1000) {
    snprintf(buf, cap, "%zu B", bytes);
    return;
  }
  double v = (double)bytes / 1000.0;
  int u = 0;
  while (v >= 999.95 && u < 5)
    v /= 1000.0, ++u;
  snprintf(buf, cap, "%.1f %s", v, units[u]);
}
