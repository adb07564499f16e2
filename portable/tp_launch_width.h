/* Width dispatch, for kernel families instantiated once per per-lane width w (a header
 * included once per w that pastes _k<w> to its kernels' names: name_k1, name_k2, ...).
 * The family lists its widths, widest first, as an X-macro
 *
 *   #define MY_WIDTHS(X, c) X(8, c) X(4, c) X(2, c) X(1, c)
 *
 * and TP_LAUNCH_WIDTH(MY_WIDTHS, name, width, space, policy, args) returns, from the
 * function it stands in, what name_k<width>'s launcher (TP_LAUNCHER) returns; a width the
 * list lacks runs the widest (the first case, which the default label shares). */
#ifndef TP_LAUNCH_WIDTH_H
#define TP_LAUNCH_WIDTH_H

#include "portable/tp_portable.h"

#define TP_LAUNCH_WIDTH(widths, name, width, space, policy, args)       \
  do {                                                                  \
    switch (width) {                                                    \
    default: widths(TP_LAUNCH_WIDTH_CASE_, (name, space, policy, args)) \
    }                                                                   \
  } while (0)
/* c carries (name, space, policy, args) through the list to each case. */
#define TP_LAUNCH_WIDTH_CASE_(w, c) \
  case w:                           \
    return TP_LAUNCH_WIDTH_APPLY_(TP_LAUNCH_WIDTH_CALL_, w, TP_LAUNCH_WIDTH_UNPACK_ c);
#define TP_LAUNCH_WIDTH_APPLY_(m, ...) m(__VA_ARGS__)
#define TP_LAUNCH_WIDTH_UNPACK_(...) __VA_ARGS__
#define TP_LAUNCH_WIDTH_CALL_(w, name, space, policy, args) \
  TP_LAUNCHER(TP_PASTE3(name, _k, w))(space, policy, args)

#endif
