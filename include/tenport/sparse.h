/* Sparse tensors in coordinate (COO) form: descriptors, allocation, duplicate merging,
 * FROSTT .tns and tenport binary (.tpb) files, and random generators. */
#ifndef TENPORT_SPARSE_H
#define TENPORT_SPARSE_H

#include <stdint.h>

#include "tenport/dense.h"
#include "tenport/export.h"
#include "tenport/files.h"
#include "tenport/npy.h"
#include "tenport/space.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_COO_MAX_ORDER 16

/* A sparse tensor of `order` modes (1 <= order <= TP_COO_MAX_ORDER) with nnz stored
 * nonzeros. indices[m] holds nnz zero-based indices of mode m (structure of arrays),
 * values holds nnz elements of dtype (TP_DTYPE_F32 or TP_DTYPE_F64). Like tp_dense, the
 * descriptor does not say where the arrays live: a space, or the host. */
typedef struct tp_coo {
  tp_dtype dtype;
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
  int64_t nnz;
  int64_t *indices[TP_COO_MAX_ORDER];
  void *values;
} tp_coo;

/* Checks order, dims (>= 1 each), dtype and nnz >= 0; the error names the field. Array
 * contents are not read. */
TP_API tp_status tp_coo_check(const tp_coo *t);

/* Checks the contents of a host tensor: every index in range (else
 * TP_ERROR_INVALID_ARGUMENT) and every value finite (else TP_ERROR_NUMERICAL). The error
 * names the first offending nonzero (position, mode, index or value). */
TP_API tp_status tp_coo_validate(const tp_coo *host);

/* Fills *t with the given shape and allocates arrays for nnz nonzeros in the space, or
 * on the host (malloc) when space is NULL; arrays larger than the memory available fail
 * with TP_ERROR_OUT_OF_MEMORY before anything is allocated (as tp_dense_alloc).
 * tp_coo_free frees them the same way and clears the whole descriptor (order 0, no
 * arrays), so later uses of it fail. Like tp_dense_free it refuses, freeing nothing and
 * leaving *t as it was, arrays of the wrong owner: a space's arrays freed with a NULL
 * space, arrays the space does not own freed with a space, arrays already freed. */
TP_API tp_status tp_coo_alloc(tp_space *space, tp_dtype dtype, int order, const int64_t *dims,
                              int64_t nnz, tp_coo *t);
TP_API tp_status tp_coo_free(tp_space *space, tp_coo *t);

/* Copies between a host tensor and a space tensor; *dst is allocated to match (a NULL
 * space copies host to host). On failure *dst is zeroed and owns nothing. */
TP_API tp_status tp_coo_copy_to_device(tp_space *space, tp_coo *dst, const tp_coo *host);
TP_API tp_status tp_coo_copy_to_host(tp_space *space, tp_coo *host, const tp_coo *src);

/* Sorts a host tensor's nonzeros by index (mode 0 slowest, lexicographic) and sums the
 * values of equal coordinates into one nonzero; *merged (if not NULL) receives how many
 * nonzeros were removed. Stable and deterministic: sums are taken in double precision in
 * the original order. Indices out of range give TP_ERROR_INVALID_ARGUMENT. The arrays
 * keep their size; nnz shrinks. */
TP_API tp_status tp_coo_sum_duplicates(tp_coo *host, int64_t *merged);

/* Squared Frobenius norm of the stored values, in double precision (NaN for an invalid
 * descriptor). */
TP_API double tp_coo_norm2(const tp_coo *host);

/* What a reader found besides the tensor. */
typedef struct tp_coo_read_info {
  int64_t lines;           /* lines read (text files) */
  int64_t duplicates;      /* nonzeros merged into another with the same coordinates */
  int index_base;          /* text: 1 or 0, the base its indices were read in */
  int64_t header_lines;    /* text: lines of a recognised header (0: none) */
  const char *header_kind; /* text: "sptensor", "order and dims lines", "order and dims
                              line", or NULL */
} tp_coo_read_info;

/* How sparse text is read beyond what the file says. Headers recognised at the top (after
 * comments): the Tensor Toolbox's and GenTen's "sptensor" text (the word sptensor, then
 * lines of the order, the dims and the number of nonzeros, which must match the
 * nonzero lines), an order line followed by a dims line, and one line of the order then
 * the dims when the next line has as many fields. The header's dims are the tensor's
 * (dims given to the reader must agree). */
#define TP_TNS_INDEX_AUTO (-1)
typedef struct tp_tns_options {
  int index_base; /* TP_TNS_INDEX_AUTO (default): 1-based unless an index 0 appears, then
                     every index is 0-based; 1: an index 0 is an error; 0: 0-based */
  int no_header;  /* 1: no header is looked for, every line is a nonzero */
} tp_tns_options;

TP_API tp_tns_options tp_tns_options_default(void);

/* Reads a FROSTT .tns file into host memory: one nonzero per line, `order` indices
 * (1-based, or 0-based when an index 0 appears: tp_tns_options) then the value, separated by blanks; `#` starts a comment; blank lines are
 * skipped; a line holds at most TP_TNS_MAX_LINE bytes. order 0: taken from the first
 * nonzero line; > 0: required of every line. dims: when not NULL (order must then be
 * given), the shape, every index within it; else each mode's maximum index. A file
 * without nonzeros needs dims ("no nonzeros and no dims" otherwise). Duplicates are
 * summed; the nonzeros come out sorted as by tp_coo_sum_duplicates. Malformed lines
 * (missing, extra or garbage fields), negative, out-of-range or
 * 64-bit-overflowing indices, non-finite values or values beyond dtype give
 * TP_ERROR_FORMAT naming the file, line and problem. Free the tensor with
 * tp_coo_free(NULL, host); on failure *host is zeroed and owns nothing. info may be
 * NULL. */
TP_API tp_status tp_coo_read_tns(const char *path, tp_dtype dtype, int order, const int64_t *dims,
                                 tp_coo *host, tp_coo_read_info *info);
#define TP_TNS_MAX_LINE (1 << 20)

/* Writes a host tensor as .tns (1-based indices, values with enough digits to read back
 * exactly). The tensor is validated first (tp_coo_validate); the file is written beside
 * path and renamed over it (tenport/files.h), so a failure (TP_ERROR_IO) leaves any
 * existing file as it was. */
TP_API tp_status tp_coo_write_tns(const char *path, const tp_coo *host);

/* How sparse text is written: FROSTT's .tns (no header, 1-based indices: the default),
 * 0-based indices, and the sptensor header of the Tensor Toolbox and GenTen (a line
 * "sptensor", or "sptensor indices-start-at-zero" with 0-based indices, then lines of the
 * order, the dims and the number of nonzeros). Every form is read back by
 * tp_coo_read_input_with (0-based text without a header needs index_base 0 when no index
 * 0 appears in it). */
typedef struct tp_tns_write_options {
  int index_base; /* 1 (the default) or 0 */
  int sptensor;   /* 1: the sptensor header first */
} tp_tns_write_options;

TP_API tp_tns_write_options tp_tns_write_options_default(void);

/* Writes a host tensor as sparse text into an output set (opts NULL: FROSTT .tns, as
 * tp_coo_write_tns_to). The tensor is validated first (tp_coo_validate). */
TP_API tp_status tp_coo_write_text_to(tp_output_set *set, const char *path, const tp_coo *host,
                                      const tp_tns_write_options *opts);

/* Sparse to dense: the dense form of a host tensor (2 to TP_DENSE_MAX_ORDER modes) in
 * host memory, TP_LAYOUT_LEFT, of its dtype: zeros where it has no nonzero, duplicates
 * summed. Free it with tp_dense_free(NULL, dense). The tensor is validated first; dims
 * whose product overflows are TP_ERROR_OVERFLOW, a dense form larger than the memory
 * available TP_ERROR_OUT_OF_MEMORY naming its size (tp_dense_alloc), before anything is
 * allocated. */
TP_API tp_status tp_coo_to_dense(const tp_coo *host, tp_dense *dense);

/* Dense to sparse: the nonzeros of a host dense tensor (any layout) as a host COO tensor
 * of its dtype and dims, sorted (mode 0 slowest), leaving out the values whose magnitude
 * is below drop_below (finite, >= 0; 0 keeps every nonzero); *dropped (may be NULL)
 * receives how many nonzeros were left out so. Free it with tp_coo_free(NULL, coo). */
TP_API tp_status tp_coo_from_dense(const tp_dense *host, double drop_below, tp_coo *coo,
                                   int64_t *dropped);

/* tenport's binary format (.tpb, little-endian): a header (magic "TPCOO\0\0\1", then
 * u32 version (1), u32 index width in bytes (4 when every dim fits in uint32, else 8),
 * u32 value width (4 or 8), u32 order, u64 nnz, u64 dims[order]) then each mode's
 * zero-based index array and the values. The writer validates and writes atomically like
 * tp_coo_write_tns. The reader checks the header against the file size before allocating,
 * then every index and every value (TP_ERROR_FORMAT), converts the values to dtype,
 * and sums duplicates; on failure *host is zeroed and owns nothing. */
TP_API tp_status tp_coo_write_binary(const char *path, const tp_coo *host);
TP_API tp_status tp_coo_read_binary(const char *path, tp_dtype dtype, tp_coo *host);

/* The writers as part of an output set: path is replaced when the set is committed. */
TP_API tp_status tp_coo_write_tns_to(tp_output_set *set, const char *path, const tp_coo *host);
TP_API tp_status tp_coo_write_binary_to(tp_output_set *set, const char *path, const tp_coo *host);

/* Reads either format: binary when the file starts with the magic, else .tns (order
 * and dims from the file). info->lines is 0 for binary files. */
TP_API tp_status tp_coo_read(const char *path, tp_dtype dtype, tp_coo *host,
                             tp_coo_read_info *info);

/* Reads either format from an opened input (a pipe or standard input too), recognised
 * from its first bytes; anything else (a .npy array, gzip data, unknown binary data) is
 * TP_ERROR_FORMAT saying what the input is. order and dims as for tp_coo_read_tns (0 and
 * NULL: from the file); a .tpb input must have them when given. */
TP_API tp_status tp_coo_read_input(tp_input *in, tp_dtype dtype, int order, const int64_t *dims,
                                   tp_coo *host, tp_coo_read_info *info);

/* tp_coo_read_input with text options (NULL: the defaults; ignored for .tpb). */
TP_API tp_status tp_coo_read_input_with(tp_input *in, tp_dtype dtype, int order,
                                        const int64_t *dims, const tp_tns_options *opts,
                                        tp_coo *host, tp_coo_read_info *info);

/* The value type a sparse input holds: float32 for a .tpb of 4-byte values, float64
 * otherwise (text is read as float64 unless asked). Nothing is consumed. */
TP_API tp_status tp_coo_input_dtype(tp_input *in, tp_dtype *dtype);

/* Value distributions of the generator. */
typedef enum tp_coo_values {
  TP_COO_VALUES_UNIFORM = 0, /* uniform in [0, 1) */
  TP_COO_VALUES_PARETO = 1,  /* Pareto with scale 1 and shape alpha: (1 - u)^(-1/alpha),
                                clamped to dtype's largest finite value */
  TP_COO_VALUES_ONES = 2     /* every value 1 (binary tensors) */
} tp_coo_values;

/* A random sparse tensor: for each of nnz draws, mode m's index is floor(u^skew[m] *
 * dims[m]) (at most dims[m] - 1) with u uniform in [0, 1) (skew 1 = uniform, larger = a
 * few slices hold most nonzeros), values from `values`; duplicates are then summed
 * (binary: kept at 1), so the result may hold fewer than nnz nonzeros (*merged, if not
 * NULL, says how many fewer). Same output on every platform for a seed, whatever the
 * thread count (skewed indices and Pareto values go through the C library's pow). */
typedef struct tp_coo_random_options {
  tp_dtype dtype;
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
  int64_t nnz;
  double skew[TP_COO_MAX_ORDER]; /* 0 is read as 1 */
  tp_coo_values values;
  double alpha; /* Pareto shape (> 0) */
  uint64_t seed;
} tp_coo_random_options;

TP_API tp_status tp_coo_random(const tp_coo_random_options *opt, tp_coo *host, int64_t *merged);

/* Draws first .. first + count - 1 of the same tensor's nnz draws (duplicates summed
 * among them): the share one of several ranks makes in place, so that the shares of
 * all ranks add up to the tensor tp_coo_random makes (binary values aside, whose
 * duplicates in different shares add up to more than 1). */
TP_API tp_status tp_coo_random_part(const tp_coo_random_options *opt, int64_t first, int64_t count,
                                    tp_coo *host, int64_t *merged);

/* A planted sparse low-rank tensor (order >= 2): a random Kruskal tensor of the given
 * rank whose factor columns each have `support` nonzero rows (all dims[m] rows when the
 * mode is shorter; entries uniform in [0.5, 1.5), lambda = 1), stored exactly on its
 * nonzero pattern (at most rank * support^order nonzeros, sorted), each value times
 * (1 + noise * standard normal). CP-ALS of that rank can fit it exactly when noise is 0.
 * truth (host memory, may be NULL; free with tp_kruskal_free(NULL, truth)) receives the
 * Kruskal tensor. */
TP_API tp_status tp_coo_random_planted(tp_dtype dtype, int order, const int64_t *dims, int64_t rank,
                                       int64_t support, double noise, uint64_t seed, tp_coo *host,
                                       tp_kruskal *truth);

#ifdef __cplusplus
}
#endif
#endif
