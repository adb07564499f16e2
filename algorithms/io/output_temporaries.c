/* The temporaries of this process's output sets that are not committed yet, listed
 * process-wide so that a signal handler can remove them (tp_output_remove_temporaries):
 * an interrupted run leaves no partial file behind. A name is listed before its file is
 * created and unlisted before it is freed; the handler only reads the list and calls
 * unlink, which is async-signal-safe. */
#include <pthread.h>
#include <stddef.h>
#include <unistd.h>

#include "tenport/files.h"
#include "algorithms/io/tp_output_names.h"

/* More temporaries than this at once (a set of a hundred factor files is large) are not
 * listed: they are still removed by the set, just not by a signal handler. */
#define LIVE_TEMPORARIES 1024

static char *volatile live[LIVE_TEMPORARIES];
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

void tpi_output_temporary_list(char *path) {
  pthread_mutex_lock(&live_lock);
  for (int i = 0; i < LIVE_TEMPORARIES; ++i)
    if (!live[i]) {
      live[i] = path;
      break;
    }
  pthread_mutex_unlock(&live_lock);
}

void tpi_output_temporary_unlist(const char *path) {
  if (!path)
    return;
  pthread_mutex_lock(&live_lock);
  for (int i = 0; i < LIVE_TEMPORARIES; ++i)
    if (live[i] == path)
      live[i] = NULL;
  pthread_mutex_unlock(&live_lock);
}

void tp_output_remove_temporaries(void) {
  for (int i = 0; i < LIVE_TEMPORARIES; ++i) {
    char *path = live[i];
    if (path)
      unlink(path);
  }
}
