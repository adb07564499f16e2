/* The file-system side of output sets: folders, temporary names, the umask and the
 * temporaries that killed runs left behind. */
#ifndef TP_OUTPUT_NAMES_H
#define TP_OUTPUT_NAMES_H

#include <sys/types.h>

#include "tenport/status.h"

/* The folder holding path ("." for a bare name), malloc'ed; NULL when out of memory. */
char *tpi_output_folder_of(const char *path);

/* The process's file-creation mask. */
mode_t tpi_output_umask(void);

/* Creates ".NAME.PID.RANDOM.tenport-tmp" in folder for the target path, exclusively and
 * without following a link, mode 0600; *tmp_path is malloc'ed. */
/* The process-wide list of temporaries that tp_output_remove_temporaries removes
 * (output_temporaries.c): a name is listed before its file exists and unlisted before
 * it is freed. */
void tpi_output_temporary_list(char *path);
void tpi_output_temporary_unlist(const char *path);

tp_status tpi_output_create_temporary(const char *folder, const char *path, char **tmp_path,
                                      int *fd);

/* Removes the temporaries for path's NAME in folder whose process no longer runs (regular
 * files of this user only). Failures are ignored: they are only clutter. */
void tpi_output_remove_stale(const char *folder, const char *path);

/* Makes the renames in folder durable (fsync of the folder); failures are ignored, as
 * some file systems cannot sync a folder. */
void tpi_output_sync_folder(const char *folder);

#endif
