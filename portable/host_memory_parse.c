/* Parsers of /proc/meminfo, /proc/self/cgroup and the cgroup memory files, and of byte
 * sizes with a suffix: pure functions of the text, so they are tested on fixtures. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_host_memory.h"

/* v1 writes "unlimited" as 2^63 - 1 rounded down to a page; anything this large is. */
#define TP_CGROUP_UNLIMITED_FROM ((uint64_t)1 << 62)

/* The line of text that starts with key (followed by `sep`), or NULL. */
static const char *line_with_key(const char *text, const char *key, char sep) {
  size_t n = strlen(key);
  for (const char *line = text; line && *line;) {
    if (strncmp(line, key, n) == 0 && line[n] == sep)
      return line + n + 1;
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  return NULL;
}

/* An unsigned decimal after optional blanks; 0 when there is none or it overflows. */
static int parse_u64(const char *s, uint64_t *value, const char **end) {
  while (*s == ' ' || *s == '\t')
    ++s;
  if (!isdigit((unsigned char)*s))
    return 0;
  errno = 0;
  char *e = NULL;
  unsigned long long v = strtoull(s, &e, 10);
  if (errno == ERANGE)
    return 0;
  *value = (uint64_t)v;
  if (end)
    *end = e;
  return 1;
}

static size_t to_size(uint64_t v) { return v > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)v; }

/* "MemAvailable:   23124548 kB" -> bytes. */
static int meminfo_field(const char *meminfo, const char *key, uint64_t *bytes) {
  const char *at = line_with_key(meminfo, key, ':');
  uint64_t kb = 0;
  if (!at || !parse_u64(at, &kb, NULL) || kb > UINT64_MAX / 1024)
    return 0;
  *bytes = kb * 1024;
  return 1;
}

int tp_meminfo_parse(const char *meminfo, size_t *available) {
  uint64_t avail = 0, swap = 0;
  if (!meminfo || !meminfo_field(meminfo, "MemAvailable", &avail))
    return 0;
  if (!meminfo_field(meminfo, "SwapFree", &swap))
    swap = 0;
  *available = to_size(avail > UINT64_MAX - swap ? UINT64_MAX : avail + swap);
  return 1;
}

/* Whether the comma-separated list [list, end) holds "memory". */
static int lists_memory(const char *list, const char *end) {
  for (const char *p = list; p < end;) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *stop = comma ? comma : end;
    if ((size_t)(stop - p) == 6 && strncmp(p, "memory", 6) == 0)
      return 1;
    p = stop + 1;
  }
  return 0;
}

/* Copies [from, to) into path. */
static int copy_path(const char *from, const char *to, char *path, size_t cap) {
  size_t n = (size_t)(to - from);
  if (n == 0 || n >= cap)
    return 0;
  memcpy(path, from, n);
  path[n] = '\0';
  return 1;
}

/* One line "ID:CONTROLLERS:PATH" of /proc/self/cgroup. */
static int cgroup_line(const char *line, const char *eol, int v1, char *path, size_t cap) {
  const char *c1 = memchr(line, ':', (size_t)(eol - line));
  const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
  if (!c2)
    return 0;
  int is_v2 = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
  if (v1 ? lists_memory(c1 + 1, c2) : is_v2)
    return copy_path(c2 + 1, eol, path, cap);
  return 0;
}

int tp_cgroup_path_parse(const char *proc_self_cgroup, int v1, char *path, size_t cap) {
  for (const char *line = proc_self_cgroup; line && *line;) {
    const char *eol = strchr(line, '\n');
    const char *end = eol ? eol : line + strlen(line);
    if (cgroup_line(line, end, v1, path, cap))
      return 1;
    line = eol ? eol + 1 : NULL;
  }
  return 0;
}

int tp_cgroup_value_parse(const char *text, size_t *bytes) {
  if (!text)
    return 0;
  while (*text == ' ' || *text == '\t')
    ++text;
  if (strncmp(text, "max", 3) == 0) {
    *bytes = SIZE_MAX;
    return 1;
  }
  uint64_t v = 0;
  if (!parse_u64(text, &v, NULL))
    return 0;
  *bytes = v >= TP_CGROUP_UNLIMITED_FROM ? SIZE_MAX : to_size(v);
  return 1;
}

int tp_cgroup_stat_parse(const char *memory_stat, const char *key, size_t *value) {
  const char *at = memory_stat ? line_with_key(memory_stat, key, ' ') : NULL;
  uint64_t v = 0;
  if (!at || !parse_u64(at, &v, NULL))
    return 0;
  *value = to_size(v);
  return 1;
}

size_t tp_cgroup_room(size_t limit, size_t usage, size_t file_cache) {
  if (limit == SIZE_MAX)
    return SIZE_MAX;
  size_t held = usage > file_cache ? usage - file_cache : 0;
  return limit > held ? limit - held : 0;
}

/* The multiplier of a suffix letter, 0 for an unknown one. */
static uint64_t suffix_scale(char c) {
  switch (toupper((unsigned char)c)) {
  case 'K': return (uint64_t)1 << 10;
  case 'M': return (uint64_t)1 << 20;
  case 'G': return (uint64_t)1 << 30;
  case 'T': return (uint64_t)1 << 40;
  }
  return 0;
}

/* What may follow the suffix letter: nothing, "B" or "iB", then blanks. */
static int suffix_tail_ok(const char *s) {
  if (*s == 'i' && s[1] == 'B')
    s += 2;
  else if (*s == 'B' || *s == 'b')
    s += 1;
  while (isspace((unsigned char)*s))
    ++s;
  return *s == '\0';
}

int tp_byte_size_parse(const char *text, size_t *bytes) {
  uint64_t v = 0, scale = 1;
  const char *end = NULL;
  if (!text || !parse_u64(text, &v, &end))
    return 0;
  if (*end && !isspace((unsigned char)*end) && *end != 'B' && *end != 'b') {
    scale = suffix_scale(*end);
    if (!scale)
      return 0;
    ++end;
  }
  if (!suffix_tail_ok(end) || v > UINT64_MAX / scale)
    return 0;
  *bytes = to_size(v * scale);
  return 1;
}
