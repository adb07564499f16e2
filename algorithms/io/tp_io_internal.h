/* Internals of the file layer: the input's byte source with its look-ahead, and the
 * buffered writing of one file of an output set. */
#ifndef TP_IO_INTERNAL_H
#define TP_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tenport/files.h"
#include "tenport/npy.h"

/* ---- inputs (input.c) ------------------------------------------------------------ */

/* A piece of a pieced input: bytes in memory, or length bytes of the file at offset. */
typedef struct tpi_input_piece {
  const void *bytes;
  uint64_t offset, length;
} tpi_input_piece;

struct tp_input {
  char *name;                 /* for messages (owned) */
  int fd, owns_fd;            /* -1 for a memory buffer */
  const unsigned char *bytes; /* the memory buffer */
  size_t size, pos;
  uint64_t known_size;  /* bytes in a regular file or buffer, UINT64_MAX if unknown */
  uint64_t consumed;    /* bytes handed to readers so far */
  uint64_t file_size;   /* a regular file's size when opened, UINT64_MAX for other sources */
  uint64_t stored_read; /* bytes read from the file descriptor so far */
  unsigned char *ahead; /* bytes read from the source but not yet consumed */
  size_t ahead_len, ahead_pos, ahead_cap;
  dev_t dev; /* identity of the source, when it has one */
  ino_t ino;
  int has_identity;
  tpi_input_piece *pieces; /* a pieced input: read in turn by positioned reads */
  int piece_count, piece;
  uint64_t piece_pos;
  int64_t first_line;                   /* line number before the first line (text readers) */
  unsigned char head[2];                /* the source's first bytes, read to tell gzip data from */
  int head_len, head_pos, head_checked; /* plain bytes; returned first when plain */
  struct tpi_input_gzip *gzip;          /* the decompressor, when the source is gzip data */
};

/* An input over memory (the fuzzers' and tests' entry point); name stands for the file in
 * messages and must outlive the input. Release with tpi_input_release. */
void tpi_input_init_buffer(tp_input *in, const char *name, const void *bytes, size_t size);
void tpi_input_release(tp_input *in);

/* An input made of pieces of one regular file and of memory, read in order: part of a
 * file as if it were a whole one (a rank's share of a .tpb behind a header of its own,
 * a range of a .tns's lines). The pieces are copied; their memory must outlive the
 * input. Close with tp_input_close. */
tp_status tpi_input_open_pieces(tp_input **in, const char *path, const tpi_input_piece *pieces,
                                int count);

/* Up to n bytes of the source as stored (compressed, for gzip data), fewer only at its
 * end. */
tp_status tpi_input_read_stored(tp_input *in, unsigned char *dst, size_t n, size_t *got);

/* gzip sources (input_gzip.c with zlib, input_gzip_none.c without): start decompressing
 * after the stored bytes head[0, len) were read (*started 0 without zlib: the bytes are
 * then returned as they are), read decompressed bytes, and end. */
tp_status tpi_input_gzip_start(tp_input *in, const unsigned char *head, size_t len, int *started);
tp_status tpi_input_gzip_read(tp_input *in, unsigned char *dst, size_t n, size_t *got);
void tpi_input_gzip_end(tp_input *in);

/* Reads up to n bytes; fewer only at the end of the source. */
tp_status tpi_input_read(tp_input *in, void *dst, size_t n, size_t *got);

/* Makes the next n bytes (fewer at the end: *got) visible at *bytes without consuming
 * them; n is at most TP_INPUT_PEEK_MAX. */
tp_status tpi_input_peek(tp_input *in, size_t n, const unsigned char **bytes, size_t *got);
enum { TP_INPUT_PEEK_MAX = 1 << 24 };

/* Bytes left to read when the source's size is known, else UINT64_MAX. */
uint64_t tpi_input_remaining(const tp_input *in);

/* ---- numbers of text files (text_number.c) ------------------------------------------ */

/* The number spelled at p, as strtod (dtype float64) or strtof (float32) reads it, into
 * *v; returns the end of what was read (p when nothing was). strtod and strtof stop at the
 * first byte that cannot continue a number, so the text must hold one at or before end
 * (a blank, '\n', '#' or a NUL); a number is read by hand, faster, when it is a short
 * decimal that ends at end or at such a byte. Out-of-range values give what strtod gives
 * (infinities, zeros). */
const char *tpi_text_number(const char *p, const char *end, tp_dtype dtype, double *v);

/* Writes v (finite) at p with 15 significant digits (6 for float32) when they read back
 * as v in dtype, else 17 (9), which always do: data written by people ("0.858") stays
 * short, and only one more formatting is paid for the rest. Returns the length written
 * (the NUL after it not counted), 0 when cap is too small; 24 bytes always suffice. */
size_t tpi_text_format_number(char *p, size_t cap, double v, tp_dtype dtype);
enum { TP_TEXT_NUMBER_BYTES = 32 };

/* n elements of a .npy's dtype in its byte order (swap: not the host's) as float32 or
 * float64 (to) at out (npy.c). */
void tpi_npy_decode(const void *raw, tp_dtype dtype, int swap, int64_t n, tp_dtype to, void *out);

/* a's elements as float32 (to_f32) or float64 in C order at dst, Fortran-order data
 * transposed (npy.c). */
void tpi_npy_c_order(const tp_npy_array *a, void *dst, int to_f32);

/* The preamble tp_npy_write puts before the data (magic, version, header length, the
 * header dict padded to a multiple of 64 bytes) in buf; returns its length (npy.c). */
enum { TP_NPY_PREAMBLE_MAX = 1024 };
size_t tpi_npy_preamble(tp_dtype dtype, int ndim, const int64_t *shape, int fortran,
                        char buf[TP_NPY_PREAMBLE_MAX]);

/* count elements of size bytes in the host's order into little-endian, in place (nothing
 * to do on a little-endian host) (npy.c). */
void tpi_npy_to_little(void *bytes, int64_t count, size_t size);

/* ---- one file of an output set (output_set.c) --------------------------------------
 * Writes go through a memory buffer; the first failure is kept and reported by
 * tpi_output_finish with the target's name. */
typedef struct tpi_output tpi_output;

/* The file of the set that will replace path, added to the set if it is not yet in it;
 * its temporary is emptied, so a writer starts from nothing. */
tp_status tpi_output_open(tp_output_set *set, const char *path, tpi_output **file);
/* Room for n <= TP_OUTPUT_BUFFER_BYTES bytes (NULL after a write error); the caller
 * writes there and then calls tpi_output_advance with what it wrote. */
char *tpi_output_reserve(tpi_output *f, size_t n);
void tpi_output_advance(tpi_output *f, size_t n);
void tpi_output_write(tpi_output *f, const void *bytes, size_t n);
void tpi_output_text(tpi_output *f, const char *text);
/* 1 once a write failed (later writes do nothing). */
int tpi_output_failed(const tpi_output *f);
/* Flushes and syncs the file; its error, if any, names the target. The file is complete:
 * the set may commit it. */
tp_status tpi_output_finish(tpi_output *f);
/* The target's path. */
const char *tpi_output_path(const tpi_output *f);
enum { TP_OUTPUT_BUFFER_BYTES = 1 << 20 };

/* ---- gzip outputs (output_gzip.c with zlib, output_gzip_none.c without) -------------
 * A deflate stream whose compressed bytes go to a sink (the file of an output set). */
typedef struct tpi_output_deflate tpi_output_deflate;
/* Writes n bytes; returns 0 or an errno value. */
typedef int (*tpi_output_sink)(void *ctx, const void *bytes, size_t n);
/* A new stream (one gzip member); without zlib TP_ERROR_NOT_SUPPORTED naming path. */
tp_status tpi_output_deflate_start(tpi_output_deflate **d, const char *path);
/* Compresses n bytes into the sink, the last ones of the member when finish; returns 0 or
 * the sink's errno value (EIO when zlib fails). */
int tpi_output_deflate_push(tpi_output_deflate *d, const void *bytes, size_t n, int finish,
                            tpi_output_sink sink, void *ctx);
/* Frees the stream and sets *d to NULL; safe on NULL. */
void tpi_output_deflate_end(tpi_output_deflate **d);

/* Writes one complete file to path through a set of its own: add, write (a callback that
 * fills the file), finish and commit. The path writers' shared shape. */
typedef tp_status (*tpi_output_writer)(tpi_output *file, const void *what);
tp_status tpi_output_write_one(const char *path, tpi_output_writer write, const void *what);
/* The same into an existing set (the file is finished but not committed). */
tp_status tpi_output_write_in(tp_output_set *set, const char *path, tpi_output_writer write,
                              const void *what);

#endif
