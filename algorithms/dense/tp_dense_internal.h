/* Host-side helpers shared by the dense descriptors, files, generators and references:
 * element loads in double, multi-indices and fibers, and Kruskal partial products.
 *
 * A fiber is a run of dims[f] consecutive elements in memory along the fast mode f (0 in
 * TP_LAYOUT_LEFT, order - 1 in TP_LAYOUT_RIGHT); fiber j starts at offset j * dims[f].
 * Walking fibers lets the loops hoist everything that does not depend on the fast index. */
#ifndef TP_DENSE_INTERNAL_H
#define TP_DENSE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "tenport/dense.h"
#include "tenport/files.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

static inline double tpi_dense_load(const void *data, tp_dtype dtype, int64_t i) {
  return dtype == TP_DTYPE_F32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

static inline void tpi_dense_store(void *data, tp_dtype dtype, int64_t i, double v) {
  if (dtype == TP_DTYPE_F32)
    ((float *)data)[i] = (float)v;
  else
    ((double *)data)[i] = v;
}

static inline int tpi_dense_fast_mode(const tp_dense *t) {
  return t->layout == TP_LAYOUT_LEFT ? 0 : t->order - 1;
}

/* Mode number p in memory order, p = 0 being the fastest. */
static inline int tpi_dense_mode_at(const tp_dense *t, int p) {
  return t->layout == TP_LAYOUT_LEFT ? p : t->order - 1 - p;
}

/* Multi-index of the element at memory offset `offset`. */
static inline void tpi_dense_unravel(const tp_dense *t, int64_t offset, int64_t *idx) {
  for (int p = 0; p < t->order; ++p) {
    int k = tpi_dense_mode_at(t, p);
    idx[k] = offset % t->dims[k];
    offset /= t->dims[k];
  }
}

/* Moves idx (whose fast index is 0) to the first element of the next fiber. */
static inline void tpi_dense_next_fiber(const tp_dense *t, int64_t *idx) {
  for (int p = 1; p < t->order; ++p) {
    int k = tpi_dense_mode_at(t, p);
    if (++idx[k] < t->dims[k])
      return;
    idx[k] = 0;
  }
}

/* Offset of idx in TP_LAYOUT_LEFT order: the layout-independent number of an element
 * that seeds the generators, so both layouts give the same logical tensor. */
static inline int64_t tpi_dense_left_offset(const tp_dense *t, const int64_t *idx) {
  int64_t off = 0;
  for (int k = t->order - 1; k >= 0; --k)
    off = off * t->dims[k] + idx[k];
  return off;
}

/* "(i0, i1, ...)" into buf. */
static inline void tpi_dense_format_index(int order, const int64_t *idx, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "(");
  for (int k = 0; k < order && n < cap; ++k)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", k ? ", " : "", (long long)idx[k]);
  if (n < cap)
    snprintf(buf + n, cap - n, ")");
}

/* p[r] = (lambda_r if with_lambda) * prod_{k != skip_a, skip_b} U_k[idx[k], r]. */
static inline void tpi_kruskal_partial(const tp_kruskal *u, const int64_t *idx, int skip_a,
                                       int skip_b, int with_lambda, double *p) {
  for (int64_t r = 0; r < u->rank; ++r)
    p[r] = with_lambda ? tpi_dense_load(u->lambda, u->dtype, r) : 1.0;
  for (int k = 0; k < u->order; ++k) {
    if (k == skip_a || k == skip_b)
      continue;
    int64_t row = idx[k] * u->rank;
    for (int64_t r = 0; r < u->rank; ++r)
      p[r] *= tpi_dense_load(u->factors[k], u->dtype, row + r);
  }
}

/* sum_r p[r] U_f[i, r]: element i of a fiber along mode f, where p holds lambda times
 * the product of the other modes' rows (tpi_kruskal_partial). */
static inline double tpi_kruskal_fiber_value(const tp_kruskal *u, int f, const double *p,
                                             int64_t i) {
  double s = 0.0;
  for (int64_t r = 0; r < u->rank; ++r)
    s += p[r] * tpi_dense_load(u->factors[f], u->dtype, i * u->rank + r);
  return s;
}

/* Rows [first_row, first_row + rows) of factor `mode` of tp_kruskal_random(seed) (rank
 * columns, row-major, in dtype) at out: any part of a factor, without the rest. */
void tpi_kruskal_random_rows(tp_dtype dtype, uint64_t seed, int mode, int64_t first_row,
                             int64_t rows, int64_t rank, void *out);
/* The same rows drawn in the space into out there (kruskal_random_space_kernels.c), bit for bit:
 * a million-row factor costs the host a third of a second and the copy. */
tp_status tpi_kruskal_random_rows_in_space(tp_space *space, tp_dtype dtype, uint64_t seed, int mode,
                                           int64_t first_row, int64_t rows, int64_t rank,
                                           void *out);
/* The same with rows taken in steps: row i of out is factor row ((first_row + i) step)
 * mod count (step 1: first_row + i; else count <= 2^32 and first_row + rows <= count).
 * A distributed sparse tensor's relabelled slab (tpi_cp_relabel) draws its rows so. */
tp_status tpi_kruskal_random_rows_stepped_in_space(tp_space *space, tp_dtype dtype, uint64_t seed,
                                                   int mode, int64_t first_row, int64_t rows,
                                                   int64_t rank, uint64_t step, uint64_t count,
                                                   void *out);

/* The block of tp_dense_random_planted's tensor (whose Kruskal tensor is truth: the
 * whole dims, tp_kruskal_random(tpi_rng_planted_seed(seed))) that starts at `first` in every mode: the same
 * values, noise included, element for element; any layout. */
tp_status tpi_dense_random_planted_block(tp_dense *block, const int64_t *first,
                                         const tp_kruskal *truth, double noise, uint64_t seed);

/* ---- dense text (dense_text_header.c, dense_text_read.c, dense_text_write.c) ----------
 * The "tensor" text of GenTen and the Tensor Toolbox: a line "tensor" (GenTen's
 * index-base word may follow), a line of the order, a line of the dims, then the values
 * one per line, first index fastest. '#' starts a comment, a line whose first characters
 * (after blanks) are "//" is one (GenTen's), blank lines are skipped. */

/* The longest line read (a value; comments are the only long lines). */
enum { TP_DENSE_TEXT_MAX_LINE = 1 << 20 };

/* What the header at the top of dense text says. */
typedef struct tpi_dense_text_header {
  int order; /* 1 to TP_DENSE_MAX_ORDER */
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t count;                 /* prod(dims), known to fit int64 */
  int64_t order_line, dims_line; /* their line numbers, for messages */
  int64_t lines;                 /* lines up to the dims line, comments included */
  size_t bytes;                  /* their bytes */
} tpi_dense_text_header;

/* Reads the header from the input's first 64 KiB, peeked: nothing is consumed. Errors
 * (TP_ERROR_FORMAT naming the file and line; TP_ERROR_OVERFLOW for dims whose product
 * does not fit int64): no "tensor" line, a wrong second word, an order line that is not
 * one integer from 1 to TP_DENSE_MAX_ORDER, a dims line that is not order positive
 * integers, a header cut short. */
tp_status tpi_dense_text_peek_header(tp_input *in, tpi_dense_text_header *h);

/* "40x30x20" into buf. */
void tpi_dense_format_dims(int order, const int64_t *dims, char *buf, size_t cap);
enum { TP_DENSE_DIMS_TEXT = TP_DENSE_MAX_ORDER * 21 + 1 };

TP_EXTERN_C_END

#endif
