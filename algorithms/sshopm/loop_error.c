/* The first failure of a host loop that runs in parallel over items (voxels, tensors):
 * each failing item records its status and message, the one of the smallest index is
 * kept, so the error reported does not depend on how the threads were scheduled. */
#include <pthread.h>
#include <stdio.h>

#include "portable/tp_error.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"

/* A mutex rather than a named OpenMP critical section: GCC gives a named section's lock
 * a global symbol, which the shared library would export. */
static pthread_mutex_t loop_error_lock = PTHREAD_MUTEX_INITIALIZER;

void tpi_loop_error_record(tpi_loop_error *e, tp_status st, int64_t item) {
  pthread_mutex_lock(&loop_error_lock);
  if (e->status == TP_SUCCESS || item < e->item) {
    e->status = st;
    e->item = item;
    snprintf(e->message, sizeof e->message, "%s", tp_last_error());
  }
  pthread_mutex_unlock(&loop_error_lock);
}

tp_status tpi_loop_error_raise(const tpi_loop_error *e, const char *what) {
  if (e->status == TP_SUCCESS)
    return TP_SUCCESS;
  return TP_ERROR(e->status, "%s %lld: %s", what, (long long)e->item, e->message);
}
