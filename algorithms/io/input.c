/* Inputs: a file, pipe, FIFO, standard input or memory buffer, opened once and read front
 * to back. Bytes a reader looks at before deciding what to do (the format's magic, a
 * header) are kept in a look-ahead buffer that later reads return first, so nothing is
 * read twice and nothing is lost on a source that cannot seek. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"
#include "algorithms/io/tp_output_names.h"

static const char STDIN_NAME[] = "standard input";

static tp_status take_identity(tp_input *in) {
  struct stat st;
  if (fstat(in->fd, &st) != 0)
    return TP_ERROR(TP_ERROR_IO, "cannot examine %s: %s", in->name, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return TP_ERROR(TP_ERROR_IO, "%s is a folder, not a file", in->name);
  in->known_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
  off_t at = S_ISREG(st.st_mode) ? lseek(in->fd, 0, SEEK_CUR) : 0; /* "-" may be part read */
  if (at > 0 && (uint64_t)at <= in->known_size)
    in->known_size -= (uint64_t)at;
  in->file_size = in->known_size;
  in->dev = st.st_dev, in->ino = st.st_ino, in->has_identity = 1;
  return S_ISREG(st.st_mode) ? tpi_output_run_input(in->name, st.st_dev, st.st_ino) : TP_SUCCESS;
}

static tp_status open_source(tp_input *in, const char *path) {
  int is_stdin = strcmp(path, "-") == 0;
  in->name = strdup(is_stdin ? STDIN_NAME : path);
  if (!in->name)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the name %s", path);
  in->fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
  in->owns_fd = !is_stdin;
  if (in->fd < 0)
    return TP_ERROR(TP_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
  return take_identity(in);
}

static tp_status check_head(tp_input *in);

tp_status tp_input_open(tp_input **in, const char *path) {
  TP_CHECK_ARG(in, "in is NULL");
  *in = NULL;
  TP_CHECK_ARG(path && *path, "the path is NULL or empty");
  tp_input *p = (tp_input *)calloc(1, sizeof *p);
  if (!p)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to open %s", path);
  p->fd = -1, p->file_size = UINT64_MAX;
  tp_status st = open_source(p, path);
  if (st == TP_SUCCESS) /* at once, so that the size is known to be unknown for gzip data */
    st = check_head(p);
  if (st != TP_SUCCESS) {
    tp_input_close(&p);
    return st;
  }
  *in = p;
  return TP_SUCCESS;
}

void tpi_input_init_buffer(tp_input *in, const char *name, const void *bytes, size_t size) {
  memset(in, 0, sizeof *in);
  in->fd = -1;
  in->name = (char *)(name ? name : "buffer");
  in->bytes = (const unsigned char *)bytes;
  in->size = bytes ? size : 0;
  in->known_size = in->size;
  in->file_size = UINT64_MAX;
}

void tpi_input_release(tp_input *in) {
  if (in->fd >= 0 && in->owns_fd)
    close(in->fd);
  free(in->ahead);
  free(in->pieces);
  tpi_input_gzip_end(in);
  in->fd = -1, in->ahead = NULL, in->pieces = NULL;
}

tp_status tpi_input_open_pieces(tp_input **in, const char *path, const tpi_input_piece *pieces,
                                int count) {
  TP_CHECK_ARG(pieces && count >= 1, "no pieces");
  TP_TRY(tp_input_open(in, path));
  tp_input *p = *in;
  p->pieces = (tpi_input_piece *)malloc(sizeof *pieces * (size_t)count);
  if (!p->pieces) {
    tp_input_close(in);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the pieces of %s", path);
  }
  memcpy(p->pieces, pieces, sizeof *pieces * (size_t)count);
  p->piece_count = count;
  p->known_size = 0;
  for (int i = 0; i < count; ++i)
    p->known_size += pieces[i].length;
  return TP_SUCCESS;
}

void tp_input_close(tp_input **in) {
  if (!in || !*in)
    return;
  tpi_input_release(*in);
  free((*in)->name);
  free(*in);
  *in = NULL;
}

const char *tp_input_name(const tp_input *in) { return in ? in->name : "(no input)"; }

int tp_input_compressed(const tp_input *in) { return in && in->gzip != NULL; }

int tp_input_is_file(const tp_input *in, const char *path) {
  struct stat st;
  return in && in->has_identity && path && stat(path, &st) == 0 && st.st_dev == in->dev &&
         st.st_ino == in->ino;
}

uint64_t tpi_input_remaining(const tp_input *in) {
  if (in->known_size == UINT64_MAX)
    return UINT64_MAX;
  return in->known_size > in->consumed ? in->known_size - in->consumed : 0;
}

/* ---- reading ------------------------------------------------------------------------ */

/* Up to n bytes from the current piece on, by positioned reads. */
static tp_status read_pieces(tp_input *in, unsigned char *dst, size_t n, size_t *got) {
  while (*got < n && in->piece < in->piece_count) {
    const tpi_input_piece *p = &in->pieces[in->piece];
    uint64_t left = p->length - in->piece_pos;
    size_t take = left < n - *got ? (size_t)left : n - *got;
    ssize_t r = (ssize_t)take;
    if (p->bytes)
      memcpy(dst + *got, (const unsigned char *)p->bytes + in->piece_pos, take);
    else if (take)
      r = pread(in->fd, dst + *got, take, (off_t)(p->offset + in->piece_pos));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return TP_ERROR(TP_ERROR_IO, "cannot read %s: %s", in->name, strerror(errno));
    if (r == 0 && take > 0)
      return TP_ERROR(TP_ERROR_IO, "cannot read %s: it ends before byte %llu", in->name,
                      (unsigned long long)(p->offset + in->piece_pos));
    *got += (size_t)r, in->piece_pos += (uint64_t)r;
    if (in->piece_pos == p->length)
      ++in->piece, in->piece_pos = 0;
  }
  return TP_SUCCESS;
}

/* At the end of a file descriptor's data: a regular file that ends before the size it
 * had when opened was cut while it was read (its last line may be cut too), an error. */
static tp_status file_ended(const tp_input *in) {
  if (in->file_size != UINT64_MAX && in->stored_read < in->file_size)
    return TP_ERROR(TP_ERROR_IO,
                    "%s shrank while it was read: it had %llu bytes when opened and ends "
                    "after %llu",
                    in->name, (unsigned long long)in->file_size,
                    (unsigned long long)in->stored_read);
  return TP_SUCCESS;
}

/* Up to n bytes from the source itself as stored (not the look-ahead), stopping early
 * only at its end. */
tp_status tpi_input_read_stored(tp_input *in, unsigned char *dst, size_t n, size_t *got) {
  *got = 0;
  if (in->pieces)
    return read_pieces(in, dst, n, got);
  if (in->fd < 0) {
    size_t take = in->size - in->pos < n ? in->size - in->pos : n;
    if (take)
      memcpy(dst, in->bytes + in->pos, take);
    in->pos += take, *got = take;
    return TP_SUCCESS;
  }
  while (*got < n) {
    ssize_t r = read(in->fd, dst + *got, n - *got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return TP_ERROR(TP_ERROR_IO, "cannot read %s: %s", in->name, strerror(errno));
    if (r == 0)
      return file_ended(in);
    *got += (size_t)r, in->stored_read += (uint64_t)r;
  }
  return TP_SUCCESS;
}

/* Reads the source's first two bytes: gzip data (1f 8b) is decompressed from then on,
 * and its size becomes unknown; other bytes are returned first by read_source. */
static tp_status check_head(tp_input *in) {
  size_t got = 0;
  in->head_checked = 1;
  TP_TRY(tpi_input_read_stored(in, in->head, sizeof in->head, &got));
  in->head_len = (int)got;
  if (got != 2 || in->head[0] != 0x1f || in->head[1] != 0x8b)
    return TP_SUCCESS;
  int started = 0;
  TP_TRY(tpi_input_gzip_start(in, in->head, got, &started));
  if (started)
    in->head_pos = in->head_len, in->known_size = UINT64_MAX;
  return TP_SUCCESS;
}

/* Up to n bytes of the source's content (decompressed for gzip data), stopping early only
 * at its end. Pieced inputs (parts of a file) are read as stored. */
static tp_status read_source(tp_input *in, unsigned char *dst, size_t n, size_t *got) {
  *got = 0;
  if (in->pieces)
    return tpi_input_read_stored(in, dst, n, got);
  if (!in->head_checked)
    TP_TRY(check_head(in));
  if (in->gzip)
    return tpi_input_gzip_read(in, dst, n, got);
  size_t take =
      (size_t)(in->head_len - in->head_pos) < n ? (size_t)(in->head_len - in->head_pos) : n;
  if (take)
    memcpy(dst, in->head + in->head_pos, take);
  in->head_pos += (int)take;
  size_t more = 0;
  tp_status st = take < n ? tpi_input_read_stored(in, dst + take, n - take, &more) : TP_SUCCESS;
  *got = take + more;
  return st;
}

tp_status tpi_input_read(tp_input *in, void *dst, size_t n, size_t *got) {
  unsigned char *out = (unsigned char *)dst;
  size_t ahead = in->ahead_len - in->ahead_pos, take = ahead < n ? ahead : n, more = 0;
  if (take)
    memcpy(out, in->ahead + in->ahead_pos, take);
  in->ahead_pos += take;
  tp_status st = take < n ? read_source(in, out + take, n - take, &more) : TP_SUCCESS;
  *got = take + more;
  in->consumed += *got;
  return st;
}

/* Moves the unread look-ahead to the front and makes room for n bytes in all. */
static tp_status make_room(tp_input *in, size_t n) {
  size_t unread = in->ahead_len - in->ahead_pos;
  if (unread && in->ahead_pos) /* ahead is NULL before the first look: NULL + 0 is UB */
    memmove(in->ahead, in->ahead + in->ahead_pos, unread);
  in->ahead_len = unread, in->ahead_pos = 0;
  if (in->ahead_cap >= n)
    return TP_SUCCESS;
  size_t cap = in->ahead_cap ? in->ahead_cap : 256;
  while (cap < n)
    cap *= 2;
  unsigned char *p = (unsigned char *)realloc(in->ahead, cap);
  if (!p)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory to look %zu bytes ahead", in->name, n);
  in->ahead = p, in->ahead_cap = cap;
  return TP_SUCCESS;
}

tp_status tpi_input_peek(tp_input *in, size_t n, const unsigned char **bytes, size_t *got) {
  TP_CHECK_ARG(n <= TP_INPUT_PEEK_MAX, "%s: cannot look %zu bytes ahead (at most %d)", in->name, n,
               TP_INPUT_PEEK_MAX);
  if (in->ahead_len - in->ahead_pos < n) {
    TP_TRY(make_room(in, n));
    size_t more = 0;
    tp_status st = read_source(in, in->ahead + in->ahead_len, n - in->ahead_len, &more);
    in->ahead_len += more;
    TP_TRY(st);
  }
  size_t unread = in->ahead_len - in->ahead_pos;
  *got = unread < n ? unread : n;
  *bytes = in->ahead ? in->ahead + in->ahead_pos : (const unsigned char *)"";
  return TP_SUCCESS;
}
