/* Rows of R values moved by a list of row numbers in the space, for the sparse row
 * exchange of distributed CP-ALS (cp_row_exchange.c): packing the rows a rank touches,
 * adding what the owners receive, and placing the rows they send back. */
/* generates: cp_rows_move */
#include <string.h>

#include "algorithms/cp_als/tp_dist_internal.h"
#include "portable/tp_portable.h"

typedef struct rows_args {
  const void *src;
  void *dst;
  const int64_t *rows;
  int64_t R;
  int single, add, gather;
} rows_args;

/* gather: dst row k = src row rows[k]; else dst row rows[k] = (or +=) src row k. */
TP_RANGE2_KERNEL(cp_rows_move, rows_args, k, c, a) {
  const int64_t listed = a.rows[k] * a.R + c, packed = k * a.R + c;
  const int64_t from = a.gather ? listed : packed, to = a.gather ? packed : listed;
  if (a.single) {
    float v = ((const float *)a.src)[from], *d = (float *)a.dst + to;
    *d = a.add ? *d + v : v;
  } else {
    double v = ((const double *)a.src)[from], *d = (double *)a.dst + to;
    *d = a.add ? *d + v : v;
  }
}

static tp_status rows_move(tp_space *space, tp_dtype dtype, const void *src, void *dst,
                           const int64_t *rows, int64_t count, int64_t R, int gather, int add) {
  if (count == 0 || R == 0)
    return TP_SUCCESS;
  rows_args a;
  a.src = src, a.dst = dst, a.rows = rows, a.R = R;
  a.single = dtype == TP_DTYPE_F32, a.add = add, a.gather = gather;
  return TP_LAUNCHER(cp_rows_move)(space, count, R, a);
}

tp_status tpi_cp_rows_gather(tp_space *space, tp_dtype dtype, const void *src, const int64_t *rows,
                             int64_t count, int64_t R, void *packed) {
  return rows_move(space, dtype, src, packed, rows, count, R, 1, 0);
}

tp_status tpi_cp_rows_scatter(tp_space *space, tp_dtype dtype, const void *packed,
                              const int64_t *rows, int64_t count, int64_t R, void *dst, int add) {
  return rows_move(space, dtype, packed, dst, rows, count, R, 0, add);
}
