/* Temporary files beside an output's target: ".NAME.PID.RANDOM.tenport-tmp", created with
 * O_EXCL | O_NOFOLLOW so that a name planted in advance (a link to another file) is never
 * written through, and found again by a later run when the process that made it died. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "portable/tp_error.h"
#include "algorithms/io/tp_output_names.h"

#define TMP_SUFFIX ".tenport-tmp"
enum {
  NAME_KEPT = 128, /* bytes of NAME in a temporary's name: NAME_MAX is 255 */
  TRIES = 64
};

char *tpi_output_folder_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return strdup(".");
  if (slash == path)
    return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

static const char *base_of(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Linux reports the umask in /proc/self/status; elsewhere it is read by setting it,
 * which is not thread-safe, so that is only the fallback. */
mode_t tpi_output_umask(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned mask;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Umask: %o", &mask) == 1) {
      fclose(f);
      return (mode_t)mask;
    }
  if (f)
    fclose(f);
  mode_t old = umask(022);
  umask(old);
  return old;
}

static uint64_t random_u64(void) {
  uint64_t r;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
    return r;
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  static unsigned counter;
  return (uint64_t)t.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)t.tv_sec ^ ++counter;
}

tp_status tpi_output_create_temporary(const char *folder, const char *path, char **tmp_path,
                                      int *fd) {
  const char *base = base_of(path);
  size_t cap = strlen(folder) + NAME_KEPT + 64;
  *tmp_path = (char *)malloc(cap);
  if (!*tmp_path)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for a temporary name for %s", path);
  for (int i = 0; i < TRIES; ++i) {
    snprintf(*tmp_path, cap, "%s/.%.*s.%ld.%016llx" TMP_SUFFIX, folder, NAME_KEPT, base,
             (long)getpid(), (unsigned long long)random_u64());
    tpi_output_temporary_list(*tmp_path);
    *fd = open(*tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (*fd >= 0)
      return TP_SUCCESS;
    int err = errno;
    tpi_output_temporary_unlist(*tmp_path);
    if (err != EEXIST)
      break;
  }
  int err = errno;
  free(*tmp_path);
  *tmp_path = NULL;
  return TP_ERROR(TP_ERROR_IO, "cannot write %s: cannot create a file in the folder %s: %s", path,
                  folder, strerror(err));
}

/* The process id in "PID.RANDOM.tenport-tmp", or -1 when name is not of that form. */
static long temporary_pid(const char *rest) {
  char *end;
  errno = 0;
  long pid = strtol(rest, &end, 10);
  if (errno || end == rest || pid <= 0 || *end != '.')
    return -1;
  size_t hex = strspn(end + 1, "0123456789abcdef");
  return hex == 16 && strcmp(end + 1 + hex, TMP_SUFFIX) == 0 ? pid : -1;
}

static int process_gone(long pid) { return kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

static void remove_if_stale(int dir_fd, const char *name, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(name, prefix, n) != 0)
    return;
  long pid = temporary_pid(name + n);
  struct stat st;
  if (pid < 0 || pid == (long)getpid() || !process_gone(pid))
    return;
  if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
      st.st_uid == geteuid())
    unlinkat(dir_fd, name, 0);
}

void tpi_output_remove_stale(const char *folder, const char *path) {
  char prefix[NAME_KEPT + 3];
  snprintf(prefix, sizeof prefix, ".%.*s.", NAME_KEPT, base_of(path));
  DIR *d = opendir(folder);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    remove_if_stale(dirfd(d), e->d_name, prefix);
  closedir(d);
}

void tpi_output_sync_folder(const char *folder) {
  int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}
