/* The file-system side of output sets: folders, temporary names, the umask and the
 * temporaries that killed runs left behind. */
#ifndef TP_OUTPUT_NAMES_H
#define TP_OUTPUT_NAMES_H

#include <sys/stat.h>
#include <sys/types.h>

#include "tenport/status.h"

/* The folder holding path ("." for a bare name), malloc'ed; NULL when out of memory. */
char *tpi_output_folder_of(const char *path);

/* The process's file-creation mask. */
mode_t tpi_output_umask(void);

/* Creates ".NAME.PID.RANDOM.tenport-tmp" in folder for the target path, exclusively and
 * without following a link, mode 0600; *tmp_path is malloc'ed. */
/* The run's files (output_run.c): an input opened (refused when it is an output of the
 * run), whether a file is one of the run's inputs, and a path a set adds (refused when
 * another set of the run writes it). Nothing is kept outside tp_output_run_begin/end. */
tp_status tpi_output_run_input(const char *name, dev_t dev, ino_t ino);
int tpi_output_run_is_input(const struct stat *st);
tp_status tpi_output_run_claim(const void *set, const char *path);
/* The set's paths leave the run's outputs: it was committed (its files are written and
 * may be read by a later step of the run) or destroyed. */
void tpi_output_run_release(const void *set);

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
