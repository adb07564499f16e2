/* Files written atomically through a memory buffer: the bytes go to a temporary file
 * beside the target, which is synced and renamed over the target only once complete. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_error.h"
#include "tp_sparse_internal.h"

tp_status tp_coo_sink_open(tp_coo_sink *s, const char *path) {
  memset(s, 0, sizeof *s);
  s->fd = -1;
  TP_CHECK_ARG(path && *path, "path is NULL or empty");
  s->path = path;
  size_t cap = strlen(path) + 32;
  s->tmp_path = (char *)malloc(cap);
  s->buf = (char *)malloc(TP_COO_SINK_BYTES);
  if (!s->tmp_path || !s->buf) {
    tp_coo_sink_abort(s);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the write buffer of %s", path);
  }
  s->cap = TP_COO_SINK_BYTES;
  snprintf(s->tmp_path, cap, "%s.tmp.%ld", path, (long)getpid());
  s->fd = open(s->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (s->fd < 0) {
    int err = errno;
    tp_coo_sink_abort(s);
    return TP_ERROR(TP_ERROR_IO, "cannot write %s: %s", path, strerror(err));
  }
  return TP_SUCCESS;
}

/* Writes the buffer out; a failure is kept in s->err and reported by commit. */
static void flush(tp_coo_sink *s) {
  const char *p = s->buf;
  size_t n = s->len;
  while (n > 0 && !s->err) {
    ssize_t w = write(s->fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      s->err = w < 0 ? errno : EIO;
    else
      p += w, n -= (size_t)w;
  }
  s->len = 0;
}

char *tp_coo_sink_reserve(tp_coo_sink *s, size_t n) {
  if (s->cap - s->len < n)
    flush(s);
  return s->err || n > s->cap ? NULL : s->buf + s->len;
}

void tp_coo_sink_write(tp_coo_sink *s, const void *bytes, size_t n) {
  const char *p = (const char *)bytes;
  while (n > 0 && !s->err) {
    if (s->len == s->cap)
      flush(s);
    size_t take = s->cap - s->len < n ? s->cap - s->len : n;
    memcpy(s->buf + s->len, p, take);
    s->len += take, p += take, n -= take;
  }
}

tp_status tp_coo_sink_commit(tp_coo_sink *s) {
  flush(s);
  if (!s->err && fsync(s->fd) != 0)
    s->err = errno;
  if (close(s->fd) != 0 && !s->err)
    s->err = errno;
  s->fd = -1;
  if (!s->err && rename(s->tmp_path, s->path) != 0)
    s->err = errno;
  int err = s->err;
  tp_coo_sink_abort(s);
  if (err)
    return TP_ERROR(TP_ERROR_IO, "cannot write %s: %s", s->path, strerror(err));
  return TP_SUCCESS;
}

void tp_coo_sink_abort(tp_coo_sink *s) {
  if (s->fd >= 0)
    close(s->fd);
  if (s->tmp_path && (s->fd >= 0 || s->err))
    unlink(s->tmp_path);
  s->fd = -1;
  free(s->tmp_path);
  free(s->buf);
  s->tmp_path = NULL;
  s->buf = NULL;
  s->len = s->cap = 0;
}
