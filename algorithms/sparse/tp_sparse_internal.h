/* Host-side internals of the sparse COO module: host allocation, sorting, byte sources
 * and sinks, the .tns parser and the buffer entry points of the readers (used by the
 * fuzzer and the tests). */
#ifndef TP_SPARSE_INTERNAL_H
#define TP_SPARSE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/sparse.h"
#include "algorithms/io/tp_io_internal.h"

/* ---- values --------------------------------------------------------------------- */

static inline int tpi_coo_dtype_ok(tp_dtype d) { return d == TP_DTYPE_F32 || d == TP_DTYPE_F64; }

static inline double tpi_coo_value(const tp_coo *t, int64_t k) {
  return t->dtype == TP_DTYPE_F32 ? (double)((const float *)t->values)[k]
                                  : ((const double *)t->values)[k];
}

static inline void tpi_coo_set_value(tp_coo *t, int64_t k, double v) {
  if (t->dtype == TP_DTYPE_F32)
    ((float *)t->values)[k] = (float)v;
  else
    ((double *)t->values)[k] = v;
}

/* ---- host memory and checks (coo.c) ---------------------------------------------- */

/* tp_coo_alloc / tp_coo_free on the host (malloc), without a space. */
/* Fills *t's descriptor (no arrays) and checks it; the error names the field. */
tp_status tpi_coo_describe(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz, tp_coo *t);

tp_status tpi_coo_host_alloc(tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                             tp_coo *t);
void tpi_coo_host_free(tp_coo *t);

/* tp_coo_check, and every array pointer non-NULL when nnz > 0. */
tp_status tpi_coo_check_arrays(const tp_coo *t);

/* The largest |value| of a host tensor, and its sum of squares of value * scale (a power
 * of two from tp_scale_for_max_abs keeps it in range: portable/tp_norm_scale.h). */
double tpi_coo_max_abs(const tp_coo *host);
double tpi_coo_norm2_times(const tp_coo *host, double scale);

/* Every index of a host tensor within its dims (the first half of tp_coo_validate). */
tp_status tpi_coo_check_indices(const tp_coo *host);

/* "(i0, i1, ...)" of nonzero k, zero-based. */
void tpi_coo_format_coordinate(const tp_coo *t, int64_t k, char *buf, size_t cap);
/* "X[i0, i1, ...]" of nonzero k, each index plus offset[m] (offset NULL: none): the
 * entry named as a message about a tensor's value shows it. */
void tpi_coo_format_entry(const tp_coo *t, int64_t k, const int64_t *offset, char *buf, size_t cap);
enum { TP_COO_COORD_TEXT = TP_COO_MAX_ORDER * 22 + 4 };

/* ---- sorting (radix_sort.c, coo_sort.c) --------------------------------------------- */

/* Stable LSD radix sort of n (key, value) pairs on the low key_bits bits of the keys;
 * the tmp arrays hold n entries each. The result is in keys and values. */
tp_status tpi_radix_sort_u64(uint64_t *keys, int64_t *values, uint64_t *keys_tmp,
                             int64_t *values_tmp, int64_t n, int key_bits);

/* Sorts a host tensor's nonzeros by coordinate (mode 0 slowest), stably and in place.
 * Indices must be within dims. */
tp_status tpi_coo_sort(tp_coo *host);

/* tp_coo_sum_duplicates for a tensor whose arrays and indices are known to be valid. */
tp_status tpi_coo_merge_duplicates(tp_coo *host, int64_t *merged);
/* A host copy of host with duplicates summed (tp_coo_sum_duplicates), left as it is. */
tp_status tpi_coo_merged_copy(const tp_coo *host, tp_coo *copy);

/* ---- a tensor filled one nonzero at a time (coo_builder.c) ------------------------------ */

typedef struct tpi_coo_builder {
  tp_coo t; /* t.nnz nonzeros so far; arrays hold capacity entries */
  int64_t capacity, first_capacity;
  int64_t max_index[TP_COO_MAX_ORDER]; /* largest zero-based index of each mode, or -1 */
} tpi_coo_builder;

/* Starts an empty builder; expected_nnz sizes the first arrays. */
void tpi_coo_builder_init(tpi_coo_builder *b, tp_dtype dtype, int order, int64_t expected_nnz);
/* Room for `more` nonzeros, growing the arrays geometrically. */
tp_status tpi_coo_builder_reserve(tpi_coo_builder *b, int64_t more, const char *name);
void tpi_coo_builder_free(tpi_coo_builder *b);

/* ---- .tns text (tns_parse.c, tns_pieces.c, tns_read.c) ------------------------------ */

typedef struct tpi_tns_parser {
  const char *name;
  tp_dtype dtype;
  int order;            /* 0 until the first nonzero line when not given */
  const int64_t *dims;  /* the given shape, or NULL */
  int64_t line;         /* lines parsed so far */
  int64_t expected_nnz; /* sizes the builder's first arrays */
  int index_base;       /* 1, 0 or TP_TNS_INDEX_AUTO (1-based unless a 0 appears) */
  int saw_zero;         /* an index 0 was read (TP_TNS_INDEX_AUTO) */
  tpi_coo_builder b;    /* set up once the order is known */
} tpi_tns_parser;

/* A header at the top of the text (tns_header.c): the lines it took, comments before it
 * included (0: none), and what it says. */
typedef struct tpi_tns_header {
  int64_t lines;
  size_t bytes;
  const char *kind; /* "sptensor", "order and dims lines", ... */
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
  int64_t nnz;    /* the nonzeros an sptensor header announces, or -1 */
  int index_base; /* 0 or 1 as the header says, else TP_TNS_INDEX_AUTO */
} tpi_tns_header;

/* Recognises and consumes a header at the input's start (its first 64 KiB, peeked). */
tp_status tpi_tns_take_header(tp_input *in, tpi_tns_header *h);
/* The order and dims a header gives against those asked for (order 0, dims NULL: none). */
tp_status tpi_tns_agree_with_header(const char *name, const tpi_tns_header *h, int order,
                                    const int64_t *dims);
/* The nonzeros an sptensor header announces against those read. */
tp_status tpi_tns_check_count(const char *name, const tpi_tns_header *h, int64_t nnz);
/* Every index one up: a text read as 1-based in which an index 0 appeared (TP_TNS_INDEX_AUTO);
 * max_index[m], the largest stored index of mode m, follows, and must stay within dims. */
tp_status tpi_tns_shift_up(const char *name, int order, int64_t *const *indices, int64_t nnz,
                           int64_t *max_index, const int64_t *dims);
/* A range of a file's lines read by one rank of several (coo_read_share.c): no header,
 * indices of index_base; with TP_TNS_INDEX_AUTO they stay 1-based (an index 0 stored as
 * -1) and *saw_zero says whether an index 0 appeared, for the ranks to decide together;
 * duplicates are not merged (tpi_coo_finish_read, once the indices are settled). */
tp_status tpi_coo_read_tns_share(tp_input *in, tp_dtype dtype, int order, const int64_t *dims,
                                 int index_base, tp_coo *host, tp_coo_read_info *info,
                                 int *saw_zero);

/* Parses the lines in [text, end), counting them in p->line: the text ends with '\n', or
 * *end is '\0' (so that strtod stops there). */
tp_status tpi_tns_parse_lines(tpi_tns_parser *p, const char *text, const char *end);
/* The error of a line longer than TP_TNS_MAX_LINE_BYTES. */
tp_status tpi_tns_line_too_long(const char *name, int64_t line);

/* Text is read TP_TNS_CHUNK_BYTES at a time and each chunk parsed in TP_TNS_PIECES pieces
 * (1 MiB each) that threads take one at a time: enough pieces for 16 threads to stay busy
 * while one of them reads the next chunk. */
enum { TP_TNS_CHUNK_BYTES = 64 << 20, TP_TNS_PIECES = 64 };
/* The longest .tns line read (a line holds at most 16 indices and a value; comments are
 * the only long lines), so that a source without line ends cannot take all memory. */
enum { TP_TNS_MAX_LINE_BYTES = TP_TNS_MAX_LINE };

/* Parsers of the pieces of a block (tns_pieces.c); zero-initialise, free when done. */
typedef struct tpi_tns_pieces {
  tpi_tns_parser part[TP_TNS_PIECES];
  int ready;
} tpi_tns_pieces;

/* Work done beside a block's parsing (reading the next chunk), by one thread while the
 * others parse; it returns its own status. */
typedef tp_status (*tpi_tns_side_job)(void *ctx);

/* tpi_tns_parse_lines on [text, end), which ends with '\n' or at the text's NUL; large
 * blocks are parsed in parallel pieces once the order is known. side (may be NULL) runs
 * once, beside the pieces; its status goes to *side_st. */
tp_status tpi_tns_parse_block(tpi_tns_parser *ps, tpi_tns_pieces *pc, const char *text,
                              const char *end, tpi_tns_side_job side, void *ctx,
                              tp_status *side_st);
void tpi_tns_pieces_free(tpi_tns_pieces *pc);

/* Appends the nonzeros of count parsers' builders to b, in order, copying on every core,
 * and takes their maximum indices. */
tp_status tpi_coo_builder_append_all(tpi_coo_builder *b, const tpi_tns_parser *parts, int count,
                                     const char *name);

/* Readers of an input; on failure *host is zeroed and owns nothing. chunk: bytes read at
 * a time (.tns; 0 = TP_TNS_CHUNK_BYTES). */
tp_status tpi_coo_read_tns_input(tp_input *in, size_t chunk, tp_dtype dtype, int order,
                                 const int64_t *dims, tp_coo *host, tp_coo_read_info *info);
/* The same with text options (NULL: tp_tns_options_default()). */
tp_status tpi_coo_read_tns_input_with(tp_input *in, size_t chunk, tp_dtype dtype, int order,
                                      const int64_t *dims, const tp_tns_options *opts, tp_coo *host,
                                      tp_coo_read_info *info);
tp_status tpi_coo_read_binary_input(tp_input *in, tp_dtype dtype, tp_coo *host,
                                    tp_coo_read_info *info);

/* The same on a memory buffer, name standing for the file in messages. */
tp_status tpi_coo_read_tns_buffer(const char *name, const void *bytes, size_t size, size_t chunk,
                                  tp_dtype dtype, int order, const int64_t *dims, tp_coo *host,
                                  tp_coo_read_info *info);
tp_status tpi_coo_read_binary_buffer(const char *name, const void *bytes, size_t size,
                                     tp_dtype dtype, tp_coo *host, tp_coo_read_info *info);
/* Either format, binary when the buffer starts with the magic. */
tp_status tpi_coo_read_buffer(const char *name, const void *bytes, size_t size, tp_dtype dtype,
                              tp_coo *host, tp_coo_read_info *info);

/* Ends a read whose status so far is st: on success sums duplicates and checks that
 * float32 sums stayed finite; on any failure frees host and clears it. */
tp_status tpi_coo_finish_read(tp_status st, const char *name, tp_coo *host, tp_coo_read_info *info);

/* ---- the binary format (tpb.c) ---------------------------------------------------------
 * Little-endian: magic (8 bytes), then u32 version, u32 index width, u32 value width,
 * u32 order, u64 nnz, u64 dims[order]; then each mode's nnz indices (zero-based) and the
 * nnz values. */
#define TP_TPB_MAGIC "TPCOO\0\0\1"
enum { TP_TPB_MAGIC_BYTES = 8, TP_TPB_VERSION = 1, TP_TPB_FIXED_HEADER = 32 };

#endif
