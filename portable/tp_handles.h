/* Live handles (handles.c): an object's handle is listed when it is made and unlisted when
 * it is destroyed, so that destroying it twice (through a copy of the handle) or using it
 * after is an error naming it, not a use after free. */
#ifndef TP_HANDLES_H
#define TP_HANDLES_H

#include "tenport/status.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* what names the kind of object in messages ("space", "FLYCOO tensor"). */
tp_status tpi_handle_list(const void *handle, const char *what);
/* TP_ERROR_INVALID_ARGUMENT when handle is not live (nothing is unlisted then). */
tp_status tpi_handle_unlist(const void *handle, const char *what);
int tpi_handle_is_live(const void *handle);

/* A live handle, or an error naming what it is meant to be. */
#define TP_CHECK_LIVE(handle, what)                                                            \
  TP_CHECK_ARG(tpi_handle_is_live(handle),                                                     \
               "%s %p is not live: it was destroyed (through a copy of its handle?) or never " \
               "made",                                                                         \
               (what), (const void *)(handle))

TP_EXTERN_C_END
#endif
