/* What the primitives that look back (the onesweep sort, the single-pass scan) share:
 * how long a look-back waits for a tile's word before it computes the tile's share
 * itself. Tiles are numbered by league rank, and no GPU promises that a block starts
 * before those after it: an endless wait could wait on a block that cannot start while
 * the waiting ones hold the device. A ticket taken at the start would order them, but
 * costs 13% of the sort on an H100 (perf/results). */
#ifndef TP_LOOK_BACK_H
#define TP_LOOK_BACK_H

#include <stdlib.h>

/* Polls of an unpublished word before the look-back computes that tile's share. */
#define TP_LOOK_BACK_PATIENCE 4096

/* The patience, or the environment's `variable` when set to a positive number (tests
 * set 1 to take the computing path at every wait). */
static inline int tp_look_back_patience(const char *variable) {
  const char *v = getenv(variable);
  int patience = v ? atoi(v) : 0;
  return patience > 0 ? patience : TP_LOOK_BACK_PATIENCE;
}

#endif
