/* Files in and out. An input is opened once and read front to back, so pipes, FIFOs and
 * standard input work like regular files, and its format is recognised from its first
 * bytes without consuming them. Outputs are written as a set: every file goes to a
 * temporary beside its target, and only when all of them are complete are they renamed
 * over their targets, in the order they were added (a manifest last), so a failed run
 * leaves the previous set untouched. */
#ifndef TENPORT_FILES_H
#define TENPORT_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/export.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the first bytes of an input say it holds. */
typedef enum tp_file_format {
  TP_FILE_UNKNOWN = 0,   /* binary data of no format tenport reads */
  TP_FILE_EMPTY = 1,     /* no bytes at all */
  TP_FILE_NPY = 2,       /* a NumPy .npy array ("\x93NUMPY") */
  TP_FILE_TPB = 3,       /* tenport's binary sparse tensor ("TPCOO") */
  TP_FILE_TCI = 4,       /* a tensor-train manifest ("tenport-tci") */
  TP_FILE_GZIP = 5,      /* gzip-compressed data */
  TP_FILE_TEXT = 6,      /* text, read as sparse text (FROSTT .tns, sptensor text) */
  TP_FILE_DENSE_TEXT = 7 /* text whose first word outside comments is "tensor": the dense
                            text of GenTen and the Tensor Toolbox */
} tp_file_format;

/* "npy", "tpb", "tci", "gzip", "text", "tensor", "empty" or "unknown". */
TP_API const char *tp_file_format_name(tp_file_format format);

/* ---- inputs ---------------------------------------------------------------------- */

typedef struct tp_input tp_input;

/* Opens path for reading; "-" reads standard input (left open by tp_input_close). The
 * source is opened exactly once: regular files, pipes, FIFOs, /dev/stdin and character
 * devices all work. Errors: TP_ERROR_IO naming the path and the system's reason. */
TP_API tp_status tp_input_open(tp_input **in, const char *path);

/* 1 when this build decompresses gzip inputs as it reads them and can write gzip outputs
 * (tp_output_set_gzip): it has zlib; else 0, and gzip data is reported as such
 * (TP_ERROR_FORMAT). */
TP_API int tp_input_has_gzip(void);

/* 1 when the input is gzip data that is decompressed as it is read, else 0. */
TP_API int tp_input_compressed(const tp_input *in);

/* Closes the input and sets *in to NULL; safe on NULL. */
TP_API void tp_input_close(tp_input **in);

/* The path as given, or "standard input" for "-". */
TP_API const char *tp_input_name(const tp_input *in);

/* The format recognised from the next bytes (64 are looked at; a source that shows fewer,
 * such as a terminal, waits for them or its end). Text is dense text when its first word
 * outside comments ('#' to the end of a line, and lines that start with "//") is
 * "tensor": as many more bytes as that word needs are looked at, up to 64 KiB. The bytes
 * stay unread: the readers that take a tp_input see the whole source; gzip data is seen
 * decompressed (tp_input_compressed says it was compressed). */
TP_API tp_status tp_input_format(tp_input *in, tp_file_format *format);

/* Raises TP_ERROR_FORMAT for an input of the wrong kind, saying what its first bytes show
 * it is (found, from tp_input_format) and what was wanted ("a sparse tensor (.tns or
 * .tpb)"); returns TP_ERROR_FORMAT. */
TP_API tp_status tp_input_wrong_format(tp_input *in, tp_file_format found, const char *wanted);

/* 1 when the input and the file at path are the same file (same device and inode);
 * 0 otherwise, also when path does not exist. */
TP_API int tp_input_is_file(const tp_input *in, const char *path);

/* ---- output sets ------------------------------------------------------------------ */

typedef struct tp_output_set tp_output_set;

TP_API tp_status tp_output_set_create(tp_output_set **set);

/* No file of the set may replace this input: path names an existing file (missing paths
 * are ignored), in the opened input. Checked by tp_output_set_add. */
TP_API tp_status tp_output_set_protect(tp_output_set *set, const char *path);
TP_API tp_status tp_output_set_protect_input(tp_output_set *set, const tp_input *in);

/* With advice not NULL, tp_output_set_add refuses a path that exists (TP_ERROR_IO:
 * "'PATH' exists; ADVICE"); with NULL (the default), existing files are replaced when
 * the set is committed. */
TP_API tp_status tp_output_set_keep_existing(tp_output_set *set, const char *advice);

/* Adds path to the set before anything is written, so that a run finds out at once
 * whether it can write its results. It fails (TP_ERROR_IO, naming the path and the
 * reason) when the folder is missing or not writable, when path is a folder, a symbolic
 * link (tenport never writes through a link) or not a regular file, when it is one of the
 * protected inputs, when it exists and the set keeps existing files, or when the set
 * already holds it. A temporary file is created beside
 * path with a name no other run uses (".NAME.PID.RANDOM.tenport-tmp", never following a
 * link); temporaries of the same NAME left by runs that no longer exist are removed. */
TP_API tp_status tp_output_set_add(tp_output_set *set, const char *path);

/* Marks path (added to the set if it is not yet in it) to be written gzip-compressed:
 * what the writers put into it is compressed by zlib's deflate as it goes (one gzip
 * member), so that gzip -d, Python's gzip module and tenport's inputs read back what was
 * written. Errors: TP_ERROR_NOT_SUPPORTED in a build without zlib (tp_input_has_gzip()
 * is 0), naming path; those of tp_output_set_add. A gzip file cannot be shared
 * (tp_output_set_share). */
TP_API tp_status tp_output_set_gzip(tp_output_set *set, const char *path);

/* Writes a whole file of n bytes into the set (added to it if it is not yet in it); it
 * replaces path when the set is committed. */
TP_API tp_status tp_output_set_write(tp_output_set *set, const char *path, const void *bytes,
                                     size_t n);

/* Whether a file could be made at path: its folder exists and this process may write
 * there (TP_ERROR_IO naming the folder otherwise). For outputs whose full names are known
 * only later (PREFIX_factor<k>.npy once the order is read), checked before the work. */
TP_API tp_status tp_output_check_folder(const char *path);

/* Renames every temporary over its target, in the order the files were added, once each
 * is written, synced and given its permissions: those of the file it replaces, or the
 * usual mode (0666 less the umask) for a new file. Fails without renaming anything when a
 * file of the set was not written or a write failed. */
TP_API tp_status tp_output_set_commit(tp_output_set *set);

/* ---- one file written by several processes ---------------------------------------
 * A file whose parts several processes write (the ranks of a distributed run, each its
 * slab): the process that owns the set makes the temporary with tp_output_set_share, the
 * others learn its name from it, every writer puts its part in place with
 * tp_output_write_at, and once all of them succeeded the owner calls
 * tp_output_set_shared_done; the set commits (or, not committed, removes) it as any
 * other file. */

/* Adds path to the set (if it is not yet in it) and prepares its temporary for shared
 * writing: head_bytes bytes of head at its start, and its size total_bytes (>= head_bytes;
 * zeros after the head until the parts are written). *tmp_path is the temporary's name
 * (owned by the set, valid until it is destroyed), for the other writers. Errors:
 * TP_ERROR_IO naming path, and those of tp_output_set_add. */
TP_API tp_status tp_output_set_share(tp_output_set *set, const char *path, const void *head,
                                     size_t head_bytes, uint64_t total_bytes,
                                     const char **tmp_path);

/* Writes n bytes at offset of the existing file tmp_path (a shared temporary: opened
 * without creating it, never through a link), syncs and closes it. Any process may call
 * it. Errors: TP_ERROR_IO naming tmp_path and the system's reason. */
TP_API tp_status tp_output_write_at(const char *tmp_path, uint64_t offset, const void *bytes,
                                    size_t n);

/* Every part of the shared file path was written: gives it its permissions, syncs it and
 * marks it complete, so that tp_output_set_commit renames it. Errors: TP_ERROR_IO naming
 * path; TP_ERROR_INVALID_ARGUMENT when path was not shared in this set. */
TP_API tp_status tp_output_set_shared_done(tp_output_set *set, const char *path);

/* The files of the set, in the order they were added: their count, and the path of
 * file i (owned by the set; NULL for an i out of range). */
TP_API int tp_output_set_count(const tp_output_set *set);
TP_API const char *tp_output_set_path(const tp_output_set *set, int i);

/* Removes the temporaries of a set that was not committed (the targets keep their old
 * contents), frees the set and sets *set to NULL; safe on NULL. */
TP_API void tp_output_set_destroy(tp_output_set **set);

/* Removes the temporaries of every output set of this process that is not committed,
 * leaving the sets' targets as they were: for a handler of SIGINT, SIGTERM or SIGHUP
 * (async-signal-safe: it only calls unlink) before the process ends. A process killed
 * by SIGKILL cannot do this; its temporaries (".NAME.PID.RANDOM.tenport-tmp") are
 * removed by the next set that writes NAME once the process no longer exists. */
TP_API void tp_output_remove_temporaries(void);

/* A run's files (a command of tenport's is one run): between tp_output_run_begin and
 * tp_output_run_end, every input this process opens by path and every path added to any
 * output set belong to the run. No set may then write one of the run's inputs (opening
 * an input that an output set of the run writes fails too), and no two sets may write
 * one path (TP_ERROR_INVALID_ARGUMENT, naming both). Files are compared by device and
 * inode where they exist, else by their folder's real path and name. Outside a run,
 * each set protects only the inputs it is given. */
TP_API void tp_output_run_begin(void);
TP_API void tp_output_run_end(void);

#ifdef __cplusplus
}
#endif
#endif
