/* Output sets: each file is written to a temporary beside its target (created exclusively,
 * never through a link) and renamed over the target only at commit, once every file of
 * the set is complete, synced and has its permissions. Until then the targets keep their
 * old contents; a set that is not committed removes its temporaries. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"
#include "algorithms/io/tp_output_names.h"

struct tpi_output {
  char *path, *folder, *tmp_path;
  int fd, err;  /* err: the first errno of a failed write, kept until finish */
  int finished; /* written completely and synced: may be committed */
  int shared;   /* prepared by tp_output_set_share: parts written by others */
  mode_t mode;  /* given to the file before it replaces its target */
  char *buf;
  size_t len;
  int gzip;                    /* written gzip-compressed (tp_output_set_gzip) */
  tpi_output_deflate *deflate; /* the compressor of the current write, when gzip */
};

typedef struct file_id {
  dev_t dev;
  ino_t ino;
} file_id;

struct tp_output_set {
  tpi_output **files;
  size_t count, cap;
  file_id *inputs;
  size_t input_count, input_cap;
  int committed;
  char *keep_existing; /* NULL: existing files may be replaced; else the advice of the
                          error that refuses to replace one */
};

int tp_output_set_count(const tp_output_set *set) { return set ? (int)set->count : 0; }

const char *tp_output_set_path(const tp_output_set *set, int i) {
  return set && i >= 0 && (size_t)i < set->count ? set->files[i]->path : NULL;
}

tp_status tp_output_set_create(tp_output_set **set) {
  TP_CHECK_ARG(set, "set is NULL");
  *set = (tp_output_set *)calloc(1, sizeof **set);
  if (!*set)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for an output set");
  return TP_SUCCESS;
}

/* Closes f's temporary, removes it unless it replaced its target, and frees f. */
static void output_free(tpi_output *f, int committed) {
  if (f->fd >= 0)
    close(f->fd);
  if (!committed && f->tmp_path)
    unlink(f->tmp_path);
  tpi_output_temporary_unlist(f->tmp_path);
  tpi_output_deflate_end(&f->deflate);
  free(f->path), free(f->folder), free(f->tmp_path), free(f->buf);
  free(f);
}

void tp_output_set_destroy(tp_output_set **set) {
  if (!set || !*set)
    return;
  tpi_output_run_release(*set);
  for (size_t i = 0; i < (*set)->count; ++i)
    output_free((*set)->files[i], (*set)->committed);
  free((*set)->files);
  free((*set)->inputs);
  free((*set)->keep_existing);
  free(*set);
  *set = NULL;
}

/* ---- protected inputs ------------------------------------------------------------- */

static tp_status protect_id(tp_output_set *set, dev_t dev, ino_t ino) {
  if (set->input_count == set->input_cap) {
    size_t cap = set->input_cap ? 2 * set->input_cap : 8;
    file_id *p = (file_id *)realloc(set->inputs, cap * sizeof *p);
    if (!p)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to list the inputs");
    set->inputs = p, set->input_cap = cap;
  }
  set->inputs[set->input_count].dev = dev;
  set->inputs[set->input_count++].ino = ino;
  return TP_SUCCESS;
}

tp_status tp_output_set_protect(tp_output_set *set, const char *path) {
  TP_CHECK_ARG(set && path, "set and path must not be NULL");
  struct stat st;
  if (stat(path, &st) != 0)
    return TP_SUCCESS; /* a missing input cannot be replaced */
  return protect_id(set, st.st_dev, st.st_ino);
}

tp_status tp_output_set_protect_input(tp_output_set *set, const tp_input *in) {
  TP_CHECK_ARG(set && in, "set and in must not be NULL");
  return in->has_identity ? protect_id(set, in->dev, in->ino) : TP_SUCCESS;
}

static int is_protected(const tp_output_set *set, const struct stat *st) {
  for (size_t i = 0; i < set->input_count; ++i)
    if (set->inputs[i].dev == st->st_dev && set->inputs[i].ino == st->st_ino)
      return 1;
  return 0;
}

/* ---- adding a file ------------------------------------------------------------------ */

static tpi_output *find(const tp_output_set *set, const char *path) {
  for (size_t i = 0; i < set->count; ++i)
    if (strcmp(set->files[i]->path, path) == 0)
      return set->files[i];
  return NULL;
}

/* What is at path now: nothing (mode for a new file), or a regular file that is no input
 * (its mode is kept); anything else is refused. */
static tp_status check_target(const tp_output_set *set, const char *path, mode_t *mode) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno != ENOENT)
      return TP_ERROR(TP_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
    *mode = 0666 & ~tpi_output_umask();
    return TP_SUCCESS;
  }
  if (S_ISLNK(st.st_mode))
    return TP_ERROR(TP_ERROR_IO,
                    "cannot write %s: it is a symbolic link, and tenport never "
                    "writes through links; remove it or choose another name",
                    path);
  if (S_ISDIR(st.st_mode))
    return TP_ERROR(TP_ERROR_IO, "cannot write %s: it is a folder", path);
  if (!S_ISREG(st.st_mode))
    return TP_ERROR(TP_ERROR_IO,
                    "cannot write %s: it is not a regular file (a device, FIFO "
                    "or socket)",
                    path);
  if (is_protected(set, &st) || tpi_output_run_is_input(&st))
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "cannot write %s: it is one of this run's "
                    "inputs, which would be lost; choose another output name",
                    path);
  if (set->keep_existing)
    return TP_ERROR(TP_ERROR_IO, "'%s' exists; %s", path, set->keep_existing);
  *mode = st.st_mode & 07777;
  return TP_SUCCESS;
}

static tp_status check_folder(const char *folder, const char *path) {
  struct stat st;
  if (stat(folder, &st) != 0)
    return TP_ERROR(TP_ERROR_IO, "cannot write %s: the folder %s %s", path, folder,
                    errno == ENOENT ? "does not exist" : strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return TP_ERROR(TP_ERROR_IO, "cannot write %s: %s is not a folder", path, folder);
  return TP_SUCCESS;
}

tp_status tp_output_check_folder(const char *path) {
  TP_CHECK_ARG(path && *path, "the path is NULL or empty");
  char *folder = tpi_output_folder_of(path);
  if (!folder)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for a folder name");
  tp_status st = check_folder(folder, path);
  if (st == TP_SUCCESS && access(folder, W_OK | X_OK) != 0)
    st = TP_ERROR(TP_ERROR_IO, "cannot write %s: the folder %s is not writable: %s", path, folder,
                  strerror(errno));
  free(folder);
  return st;
}

static tp_status push(tp_output_set *set, tpi_output *f) {
  if (set->count == set->cap) {
    size_t cap = set->cap ? 2 * set->cap : 8;
    tpi_output **p = (tpi_output **)realloc(set->files, cap * sizeof *p);
    if (!p)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to add %s to the output set", f->path);
    set->files = p, set->cap = cap;
  }
  set->files[set->count++] = f;
  return TP_SUCCESS;
}

static tp_status prepare(tp_output_set *set, tpi_output *f) {
  f->folder = f->path ? tpi_output_folder_of(f->path) : NULL;
  if (!f->folder)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for an output name");
  TP_TRY(check_target(set, f->path, &f->mode));
  TP_TRY(check_folder(f->folder, f->path));
  tpi_output_remove_stale(f->folder, f->path);
  return tpi_output_create_temporary(f->folder, f->path, &f->tmp_path, &f->fd);
}

tp_status tp_output_set_keep_existing(tp_output_set *set, const char *advice) {
  TP_CHECK_ARG(set, "set must not be NULL");
  char *copy = advice ? strdup(advice) : NULL;
  if (advice && !copy)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the output set's advice");
  free(set->keep_existing);
  set->keep_existing = copy;
  return TP_SUCCESS;
}

tp_status tp_output_set_add(tp_output_set *set, const char *path) {
  TP_CHECK_ARG(set && path && *path, "set and path must not be NULL or empty");
  TP_CHECK_ARG(!set->committed, "the output set was committed already");
  TP_CHECK_ARG(!find(set, path), "%s is in the output set twice", path);
  TP_TRY(tpi_output_run_claim(set, path));
  tpi_output *f = (tpi_output *)calloc(1, sizeof *f);
  if (!f)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to add %s to the output set", path);
  f->path = strdup(path);
  f->fd = -1;
  tp_status st = prepare(set, f);
  if (st == TP_SUCCESS)
    st = push(set, f);
  if (st != TP_SUCCESS)
    output_free(f, 0);
  return st;
}

tp_status tp_output_set_gzip(tp_output_set *set, const char *path) {
  TP_CHECK_ARG(set && path && *path, "set and path must not be NULL or empty");
  tpi_output_deflate *probe; /* refused at once in a build without zlib */
  TP_TRY(tpi_output_deflate_start(&probe, path));
  tpi_output_deflate_end(&probe);
  if (!find(set, path))
    TP_TRY(tp_output_set_add(set, path));
  find(set, path)->gzip = 1;
  return TP_SUCCESS;
}

/* ---- writing a file ------------------------------------------------------------------ */

static tp_status restart(tpi_output *f) {
  if (f->fd < 0)
    f->fd = open(f->tmp_path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (f->fd < 0 || ftruncate(f->fd, 0) != 0 || lseek(f->fd, 0, SEEK_SET) != 0)
    return TP_ERROR(TP_ERROR_IO, "cannot write %s (temporary %s): %s", f->path, f->tmp_path,
                    strerror(errno));
  if (!f->buf && !(f->buf = (char *)malloc(TP_OUTPUT_BUFFER_BYTES)))
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the write buffer of %s", f->path);
  f->err = 0, f->len = 0, f->finished = 0, f->shared = 0;
  tpi_output_deflate_end(&f->deflate);
  return f->gzip ? tpi_output_deflate_start(&f->deflate, f->path) : TP_SUCCESS;
}

tp_status tpi_output_open(tp_output_set *set, const char *path, tpi_output **file) {
  TP_CHECK_ARG(set && path && file, "set, path and file must not be NULL");
  tpi_output *f = find(set, path);
  if (!f) {
    TP_TRY(tp_output_set_add(set, path));
    f = set->files[set->count - 1];
  }
  TP_TRY(restart(f));
  *file = f;
  return TP_SUCCESS;
}

/* Writes n bytes to the file; 0 or the errno value of the failure. */
static int write_all(void *file, const void *bytes, size_t n) {
  tpi_output *f = (tpi_output *)file;
  const char *p = (const char *)bytes;
  while (n > 0) {
    ssize_t w = write(f->fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return w < 0 ? errno : EIO;
    p += w, n -= (size_t)w;
  }
  return 0;
}

/* Writes the buffer out (compressed for a gzip file; finish: the end of the file); a
 * failure is kept in f->err. */
static void flush_as(tpi_output *f, int finish) {
  if (!f->err && f->deflate)
    f->err = tpi_output_deflate_push(f->deflate, f->buf, f->len, finish, write_all, f);
  else if (!f->err)
    f->err = write_all(f, f->buf, f->len);
  f->len = 0;
}

static void flush(tpi_output *f) { flush_as(f, 0); }

char *tpi_output_reserve(tpi_output *f, size_t n) {
  if (TP_OUTPUT_BUFFER_BYTES - f->len < n)
    flush(f);
  return f->err || n > TP_OUTPUT_BUFFER_BYTES ? NULL : f->buf + f->len;
}

void tpi_output_advance(tpi_output *f, size_t n) { f->len += n; }

void tpi_output_write(tpi_output *f, const void *bytes, size_t n) {
  const char *p = (const char *)bytes;
  while (n > 0 && !f->err) {
    if (f->len == TP_OUTPUT_BUFFER_BYTES)
      flush(f);
    size_t room = TP_OUTPUT_BUFFER_BYTES - f->len, take = room < n ? room : n;
    memcpy(f->buf + f->len, p, take);
    f->len += take, p += take, n -= take;
  }
}

void tpi_output_text(tpi_output *f, const char *text) { tpi_output_write(f, text, strlen(text)); }

int tpi_output_failed(const tpi_output *f) { return f->err != 0; }

const char *tpi_output_path(const tpi_output *f) { return f->path; }

tp_status tpi_output_finish(tpi_output *f) {
  flush_as(f, 1);
  tpi_output_deflate_end(&f->deflate);
  if (!f->err && fchmod(f->fd, f->mode) != 0)
    f->err = errno;
  if (!f->err && fsync(f->fd) != 0)
    f->err = errno;
  if (close(f->fd) != 0 && !f->err)
    f->err = errno;
  f->fd = -1;
  free(f->buf);
  f->buf = NULL;
  if (f->err)
    return TP_ERROR(TP_ERROR_IO, "cannot write %s: %s", f->path, strerror(f->err));
  f->finished = 1;
  return TP_SUCCESS;
}

/* ---- one file written by several processes ------------------------------------------ */

tp_status tp_output_set_share(tp_output_set *set, const char *path, const void *head,
                              size_t head_bytes, uint64_t total_bytes, const char **tmp_path) {
  TP_CHECK_ARG(set && path && tmp_path && (head || head_bytes == 0),
               "set, path, head and tmp_path must not be NULL");
  TP_CHECK_ARG(total_bytes >= head_bytes && total_bytes <= (uint64_t)INT64_MAX,
               "%s: total_bytes %llu is below the head's %zu bytes or too large", path,
               (unsigned long long)total_bytes, head_bytes);
  tpi_output *f = find(set, path);
  TP_CHECK_ARG(!f || !f->gzip, "%s is written gzip-compressed and cannot be shared", path);
  TP_TRY(tpi_output_open(set, path, &f)); /* emptied, with its write buffer */
  free(f->buf);
  f->buf = NULL;
  const char *p = (const char *)head;
  for (size_t n = head_bytes; n > 0 && !f->err;) {
    ssize_t w = write(f->fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      f->err = w < 0 ? errno : EIO;
    else
      p += w, n -= (size_t)w;
  }
  if (!f->err && ftruncate(f->fd, (off_t)total_bytes) != 0)
    f->err = errno;
  if (!f->err && fsync(f->fd) != 0)
    f->err = errno;
  if (f->err)
    return TP_ERROR(TP_ERROR_IO, "cannot write %s (temporary %s): %s", f->path, f->tmp_path,
                    strerror(f->err));
  f->shared = 1;
  *tmp_path = f->tmp_path;
  return TP_SUCCESS;
}

tp_status tp_output_write_at(const char *tmp_path, uint64_t offset, const void *bytes, size_t n) {
  TP_CHECK_ARG(tmp_path && (bytes || n == 0), "tmp_path and bytes must not be NULL");
  TP_CHECK_ARG(offset <= (uint64_t)INT64_MAX - n, "%s: offset %llu + %zu bytes is too large",
               tmp_path, (unsigned long long)offset, n);
  if (n == 0)
    return TP_SUCCESS;
  int fd = open(tmp_path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return TP_ERROR(TP_ERROR_IO, "cannot open %s for writing: %s", tmp_path, strerror(errno));
  int err = 0;
  const char *p = (const char *)bytes;
  while (n > 0 && !err) {
    ssize_t w = pwrite(fd, p, n, (off_t)offset);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      err = w < 0 ? errno : EIO;
    else
      p += w, n -= (size_t)w, offset += (uint64_t)w;
  }
  if (!err && fsync(fd) != 0)
    err = errno;
  if (close(fd) != 0 && !err)
    err = errno;
  if (err)
    return TP_ERROR(TP_ERROR_IO, "cannot write %s at byte %llu: %s", tmp_path,
                    (unsigned long long)offset, strerror(err));
  return TP_SUCCESS;
}

tp_status tp_output_set_shared_done(tp_output_set *set, const char *path) {
  TP_CHECK_ARG(set && path, "set and path must not be NULL");
  tpi_output *f = find(set, path);
  TP_CHECK_ARG(f && f->shared && f->fd >= 0,
               "%s is not a shared file of the output set "
               "(tp_output_set_share), or it is done already",
               path);
  if (!f->err && fchmod(f->fd, f->mode) != 0)
    f->err = errno;
  if (!f->err && fsync(f->fd) != 0)
    f->err = errno;
  if (close(f->fd) != 0 && !f->err)
    f->err = errno;
  f->fd = -1;
  if (f->err)
    return TP_ERROR(TP_ERROR_IO, "cannot write %s: %s", f->path, strerror(f->err));
  f->finished = 1;
  return TP_SUCCESS;
}

/* ---- committing ----------------------------------------------------------------------- */

static tp_status rename_all(tp_output_set *set) {
  for (size_t i = 0; i < set->count; ++i) {
    tpi_output *f = set->files[i];
    if (rename(f->tmp_path, f->path) == 0) {
      tpi_output_temporary_unlist(f->tmp_path); /* its name is the target's now */
      continue;
    }
    int err = errno;
    for (size_t j = 0; j < i; ++j) { /* replaced already: their temporaries are gone */
      tpi_output_temporary_unlist(set->files[j]->tmp_path);
      free(set->files[j]->tmp_path), set->files[j]->tmp_path = NULL;
    }
    return TP_ERROR(TP_ERROR_IO,
                    "cannot replace %s: %s (%zu of the set's %zu files were "
                    "replaced before it)",
                    f->path, strerror(err), i, set->count);
  }
  set->committed = 1;
  return TP_SUCCESS;
}

tp_status tp_output_set_commit(tp_output_set *set) {
  TP_CHECK_ARG(set, "set is NULL");
  TP_CHECK_ARG(!set->committed, "the output set was committed already");
  struct stat st;
  for (size_t i = 0; i < set->count; ++i) /* an input opened since the file was added */
    if (lstat(set->files[i]->path, &st) == 0 && tpi_output_run_is_input(&st))
      return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                      "cannot write %s: it is one of this run's inputs, which would be "
                      "lost; no file of the set was replaced",
                      set->files[i]->path);
  for (size_t i = 0; i < set->count; ++i)
    if (!set->files[i]->finished)
      return TP_ERROR(TP_ERROR_IO,
                      "%s was not written completely; no file of the set was "
                      "replaced",
                      set->files[i]->path);
  TP_TRY(rename_all(set));
  tpi_output_run_release(set);
  for (size_t i = 0; i < set->count; ++i)
    tpi_output_sync_folder(set->files[i]->folder);
  return TP_SUCCESS;
}

/* ---- one-file writes ------------------------------------------------------------------- */

tp_status tpi_output_write_in(tp_output_set *set, const char *path, tpi_output_writer write,
                              const void *what) {
  tpi_output *f;
  TP_TRY(tpi_output_open(set, path, &f));
  tp_status st = write(f, what);
  tp_status done = tpi_output_finish(f); /* closes the file in every case */
  return st != TP_SUCCESS ? st : done;
}

typedef struct bytes_out {
  const void *bytes;
  size_t n;
} bytes_out;

static tp_status write_bytes(tpi_output *f, const void *what) {
  const bytes_out *b = (const bytes_out *)what;
  tpi_output_write(f, b->bytes, b->n);
  return TP_SUCCESS;
}

tp_status tp_output_set_write(tp_output_set *set, const char *path, const void *bytes, size_t n) {
  TP_CHECK_ARG(set && path && (bytes || n == 0), "set, path and bytes must not be NULL");
  bytes_out b = {bytes, n};
  return tpi_output_write_in(set, path, write_bytes, &b);
}

tp_status tpi_output_write_one(const char *path, tpi_output_writer write, const void *what) {
  TP_CHECK_ARG(path && *path, "the path is NULL or empty");
  tp_output_set *set;
  TP_TRY(tp_output_set_create(&set));
  tp_status st = tpi_output_write_in(set, path, write, what);
  if (st == TP_SUCCESS)
    st = tp_output_set_commit(set);
  tp_output_set_destroy(&set);
  return st;
}
