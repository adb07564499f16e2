/* Dense tensors and Kruskal (CP) tensors: descriptors, allocation, .npy files and
 * random / planted low-rank generators. */
#ifndef TENPORT_DENSE_H
#define TENPORT_DENSE_H

#include <stdint.h>

#include "tenport/export.h"
#include "tenport/files.h"
#include "tenport/npy.h"
#include "tenport/space.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_DENSE_MAX_ORDER 16

/* Memory order of a dense tensor's elements. */
typedef enum tp_layout {
  TP_LAYOUT_LEFT = 0, /* first index fastest (Fortran order, tenport's default) */
  TP_LAYOUT_RIGHT = 1 /* last index fastest (C order, NumPy's default) */
} tp_layout;

/* A dense tensor of order d = order (2 <= d <= TP_DENSE_MAX_ORDER) and element type
 * dtype (TP_DTYPE_F32 or TP_DTYPE_F64). The descriptor does not own data: data points
 * to prod(dims) elements in whatever memory the caller says (a space, or the host). */
typedef struct tp_dense {
  tp_dtype dtype;
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  tp_layout layout;
  void *data;
} tp_dense;

/* A Kruskal tensor sum_r lambda_r a_r^(0) o ... o a_r^(d-1): lambda has rank entries,
 * factors[k] is dims[k] x rank, row-major (a row's rank values are contiguous). */
typedef struct tp_kruskal {
  tp_dtype dtype;
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t rank;
  void *lambda;
  void *factors[TP_DENSE_MAX_ORDER];
} tp_kruskal;

/* Number of elements prod(dims); -1 when the descriptor is invalid or the count
 * overflows int64. */
TP_API int64_t tp_dense_count(const tp_dense *t);

/* Checks order, dims (>= 1 each), dtype, layout and that the element count fits; the
 * error names the field. data may be NULL. A descriptor that tp_dense_free cleared (or
 * that was never filled: order 0, no data) is rejected as "freed or never allocated", and
 * so is one whose data (lambda, a factor) tenport knows to be freed: a copy of the
 * descriptor made before tp_dense_free, or data passed to tp_free. Every function that
 * takes a descriptor checks it this way. */
TP_API tp_status tp_dense_check(const tp_dense *t);
TP_API tp_status tp_kruskal_check(const tp_kruskal *k);

/* Fills *t with the given shape and allocates its data in the space (tp_alloc), or on
 * the host (malloc) when space is NULL. A tensor larger than the memory available (the
 * device's free memory, or host memory: see TENPORT_HOST_MEMORY_LIMIT in memory.h) fails
 * with TP_ERROR_OUT_OF_MEMORY and a message with both sizes, before anything is
 * allocated.
 * tp_dense_free frees the data the same way and clears the whole descriptor (order 0, data
 * NULL), so later uses of it fail. It refuses, freeing nothing and leaving *t as it was
 * (TP_ERROR_INVALID_ARGUMENT): with a NULL space, data a space owns; with a space, data it
 * does not own (host data, another space's, the caller's own memory); with either, data
 * already freed (while tenport still holds the block back: see tp_free in memory.h).
 * Memory the caller allocated is never tenport's to free; with a NULL space it cannot
 * always be told from host memory tenport's file readers return, and is passed to free().
 * t == NULL or data == NULL is fine. */
TP_API tp_status tp_dense_alloc(tp_space *space, tp_dtype dtype, int order, const int64_t *dims,
                                tp_layout layout, tp_dense *t);
TP_API tp_status tp_dense_free(tp_space *space, tp_dense *t);

/* Same for a Kruskal tensor: lambda and every factor (all are freed, or none). */
TP_API tp_status tp_kruskal_alloc(tp_space *space, tp_dtype dtype, int order, const int64_t *dims,
                                  int64_t rank, tp_kruskal *k);
TP_API tp_status tp_kruskal_free(tp_space *space, tp_kruskal *k);

/* Copies between a host descriptor and a space descriptor of the same shape. */
TP_API tp_status tp_dense_copy_to_device(tp_space *space, tp_dense *dst, const tp_dense *host);
TP_API tp_status tp_kruskal_copy_to_device(tp_space *space, tp_kruskal *dst,
                                           const tp_kruskal *host);
TP_API tp_status tp_kruskal_copy_to_host(tp_space *space, tp_kruskal *host, const tp_kruskal *src);

/* Reads a float32/float64 .npy array of ndim >= 2 into host memory (malloc'ed; free
 * with tp_dense_free(NULL, t)). C-order files give TP_LAYOUT_RIGHT, Fortran-order files
 * TP_LAYOUT_LEFT; no data is moved. want_dtype converts the values (TP_DTYPE_F32 or
 * TP_DTYPE_F64). Non-finite values are rejected with TP_ERROR_NUMERICAL naming the
 * first offending element. */
TP_API tp_status tp_dense_read_npy(const char *path, tp_dtype want_dtype, tp_dense *t);
/* The same from an opened input (a pipe or standard input too). */
TP_API tp_status tp_dense_read_npy_input(tp_input *in, tp_dtype want_dtype, tp_dense *t);

/* Writes a host tensor as .npy in its own layout (LEFT as fortran_order True). */
TP_API tp_status tp_dense_write_npy(const char *path, const tp_dense *host);

/* Dense text, the "tensor" format of GenTen and the Tensor Toolbox:
 *   tensor             a line with the word tensor (GenTen's indices-start-at-zero or
 *   N                  indices-start-at-one may follow it and has no effect: a dense
 *   I1 I2 ... IN       tensor has no indices), a line with the order N, a line with the
 *   v1                 N dims, then the prod(dims) values, one per line, first index
 *   v2                 fastest (column-major).
 *   ...
 * '#' starts a comment, a line whose first characters after blanks are "//" is a comment
 * (GenTen's), and blank lines are skipped anywhere. The reader gives a host tensor
 * (malloc'ed; free with tp_dense_free(NULL, t)) in TP_LAYOUT_LEFT of 2 to
 * TP_DENSE_MAX_ORDER modes, each value read as strtod (float64) or strtof (float32) reads
 * it. Errors name the file, the line and the problem (TP_ERROR_FORMAT): a header line
 * missing or malformed (no "tensor", an order that is not one integer from 1 to
 * TP_DENSE_MAX_ORDER (1 is refused: a dense tensor has 2 modes or more), dims that are not
 * that many positive integers), a field that is not a number, two fields on a line, a
 * value that is not finite or beyond want_dtype's range, fewer or more values than the
 * dims hold, a line longer than 1 MiB; dims whose product overflows are
 * TP_ERROR_OVERFLOW, a tensor larger than the memory available TP_ERROR_OUT_OF_MEMORY
 * before any value is stored. The array grows as the values come, so a header promising
 * more than the file holds allocates no more than the file's values. On failure *t is
 * zeroed and owns nothing. */
TP_API tp_status tp_dense_read_text(const char *path, tp_dtype want_dtype, tp_dense *t);
TP_API tp_status tp_dense_read_text_input(tp_input *in, tp_dtype want_dtype, tp_dense *t);

/* Writes a host tensor as dense text: the header, then the values first index fastest
 * whatever its layout, each with 15 significant digits when they read back exactly, else
 * 17 (float32: 6, else 9). Every value must be finite (TP_ERROR_NUMERICAL naming the
 * first that is not). Written atomically like tp_dense_write_npy; the _to form into an
 * output set. */
TP_API tp_status tp_dense_write_text(const char *path, const tp_dense *host);
TP_API tp_status tp_dense_write_text_to(tp_output_set *set, const char *path, const tp_dense *host);

/* A dense tensor from an input in either format, told apart by its content
 * (tp_input_format): .npy (tp_dense_read_npy_input) or dense text
 * (tp_dense_read_text_input). Anything else is TP_ERROR_FORMAT saying what the input is. */
TP_API tp_status tp_dense_read_input(tp_input *in, tp_dtype want_dtype, tp_dense *t);

/* What a dense input's header says, read without consuming anything: the format
 * (TP_FILE_NPY or TP_FILE_DENSE_TEXT), the file's element type (any dtype for .npy,
 * float64 for text), the order (0 to TP_DENSE_MAX_ORDER for .npy; the readers refuse
 * fewer than 2) and the dims. Errors: those of tp_npy_peek_header and of the text
 * header's lines; TP_ERROR_FORMAT for an input of another format. */
typedef struct tp_dense_header {
  tp_file_format format;
  tp_dtype dtype;
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
} tp_dense_header;
TP_API tp_status tp_dense_peek_header(tp_input *in, tp_dense_header *h);

/* Writes a host Kruskal tensor as prefix_lambda.npy and prefix_factor<k>.npy, one output
 * set (tenport/files.h): all the files replace an earlier model, or none does. The _to
 * forms write into a caller's set, which the caller commits; tp_kruskal_reserve_npy adds
 * the file names of a model of `order` modes to a set before the work. */
TP_API tp_status tp_kruskal_write_npy(const char *prefix, const tp_kruskal *host);
TP_API tp_status tp_dense_write_npy_to(tp_output_set *set, const char *path, const tp_dense *host);
TP_API tp_status tp_kruskal_write_npy_to(tp_output_set *set, const char *prefix,
                                         const tp_kruskal *host);
TP_API tp_status tp_kruskal_reserve_npy(tp_output_set *set, const char *prefix, int order);

/* Reads factor matrices prefix_factor<k>.npy (and prefix_lambda.npy when present, else
 * lambda = 1) into a host Kruskal tensor of the given shape and rank; each file's shape
 * must be dims[k] x rank. */
TP_API tp_status tp_kruskal_read_npy(const char *prefix, tp_dtype dtype, int order,
                                     const int64_t *dims, int64_t rank, tp_kruskal *host);

/* Random tensors on the host, reproducible from seed (same values on every platform).
 * uniform: every element uniform in [0, 1).
 * planted: the full tensor of a random Kruskal tensor of the given rank (factor entries
 *   uniform in [0, 1), lambda = 1; not tp_kruskal_random(seed), which the methods' random
 *   starts of the same seed are) plus noise * ||M||_F / sqrt(N) * standard normal,
 *   so noise is the relative size of the perturbation. The Kruskal tensor is returned in
 *   *truth when truth is not NULL (host memory). */
TP_API tp_status tp_dense_random_uniform(tp_dense *host, uint64_t seed);
TP_API tp_status tp_dense_random_planted(tp_dense *host, int64_t rank, double noise, uint64_t seed,
                                         tp_kruskal *truth);

/* Random Kruskal tensor on the host: factor entries uniform in [0, 1), lambda = 1. */
TP_API tp_status tp_kruskal_random(tp_kruskal *host, uint64_t seed);

/* Reference MTTKRP in double precision on host data, for tests and checks:
 * G[i, r] = sum over all elements with index i in mode `mode` of
 * x * prod_{k != mode} factors[k][i_k, r]; G is dims[mode] x rank, row-major. */
TP_API tp_status tp_mttkrp_reference(const tp_dense *host, const tp_kruskal *host_factors, int mode,
                                     double *G);

#ifdef __cplusplus
}
#endif
#endif
