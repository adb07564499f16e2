/* tenport's version: the release this header belongs to (the same numbers as meson.build's
 * project version, which the build checks), and tp_version() for the library that is
 * actually loaded. */
#ifndef TENPORT_VERSION_H
#define TENPORT_VERSION_H

#define TP_VERSION_MAJOR 0
#define TP_VERSION_MINOR 2
#define TP_VERSION_PATCH 0

/* Earlier spellings, kept for code written against 0.1. */
#define TENPORT_VERSION_MAJOR TP_VERSION_MAJOR
#define TENPORT_VERSION_MINOR TP_VERSION_MINOR
#define TENPORT_VERSION_PATCH TP_VERSION_PATCH

#include "tenport/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "MAJOR.MINOR.PATCH" of the loaded library: compare with the TP_VERSION_* macros of the
 * headers a program was built with. */
TP_API const char *tp_version(void);

#ifdef __cplusplus
}
#endif

#endif
