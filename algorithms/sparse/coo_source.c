/* The bytes a reader parses, from a file or a memory buffer: reads that return fewer
 * bytes than asked only at the end, a short look-ahead for format sniffing, and the
 * size when it is known, so that sizes claimed by a header are checked before anything
 * is allocated. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tp_error.h"
#include "tp_sparse_internal.h"

tp_status tp_coo_source_open(tp_coo_source *s, const char *path) {
  memset(s, 0, sizeof *s);
  s->fd = -1;
  TP_CHECK_ARG(path, "path is NULL");
  s->name = path;
  s->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (s->fd < 0)
    return TP_ERROR(TP_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  s->total = fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
  return TP_SUCCESS;
}

void tp_coo_source_buffer(tp_coo_source *s, const char *name, const void *bytes, size_t size) {
  memset(s, 0, sizeof *s);
  s->fd = -1;
  s->name = name ? name : "buffer";
  s->bytes = (const unsigned char *)bytes;
  s->size = bytes ? size : 0;
  s->total = s->size;
}

/* Reads from the file, stopping early only at its end. */
static tp_status read_file(tp_coo_source *s, unsigned char *dst, size_t n, size_t *got) {
  while (*got < n) {
    ssize_t r = read(s->fd, dst + *got, n - *got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return TP_ERROR(TP_ERROR_IO, "cannot read %s: %s", s->name, strerror(errno));
    if (r == 0)
      break;
    *got += (size_t)r;
  }
  return TP_SUCCESS;
}

static tp_status read_raw(tp_coo_source *s, unsigned char *dst, size_t n, size_t *got) {
  if (s->fd >= 0)
    return read_file(s, dst, n, got);
  size_t take = s->size - s->pos < n - *got ? s->size - s->pos : n - *got;
  if (take)
    memcpy(dst + *got, s->bytes + s->pos, take);
  s->pos += take;
  *got += take;
  return TP_SUCCESS;
}

tp_status tp_coo_source_read(tp_coo_source *s, void *dst, size_t n, size_t *got) {
  unsigned char *out = (unsigned char *)dst;
  size_t ahead = s->peeked_len - s->peeked_pos;
  size_t take = ahead < n ? ahead : n;
  if (take)
    memcpy(out, s->peeked + s->peeked_pos, take);
  s->peeked_pos += take;
  *got = take;
  return read_raw(s, out, n, got);
}

tp_status tp_coo_source_peek(tp_coo_source *s, void *dst, size_t n, size_t *got) {
  TP_CHECK_ARG(n <= sizeof s->peeked && s->peeked_pos == 0, "cannot peek %zu bytes here", n);
  if (s->peeked_len < n) {
    size_t more = s->peeked_len;
    TP_TRY(read_raw(s, s->peeked, n, &more));
    s->peeked_len = more;
  }
  *got = s->peeked_len < n ? s->peeked_len : n;
  memcpy(dst, s->peeked, *got);
  return TP_SUCCESS;
}

void tp_coo_source_close(tp_coo_source *s) {
  if (s->fd >= 0)
    close(s->fd);
  s->fd = -1;
}
