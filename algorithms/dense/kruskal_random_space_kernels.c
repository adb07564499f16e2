/* Rows of tp_kruskal_random's factors drawn in the space: the counter-based generator of
 * tp_random_internal.h evaluated per element, so the values are the host's bit for bit
 * (a uniform in [0, 1) of the dtype's precision is exact in it). */
/* generates: kruskal_random_elements */
#include "portable/tp_portable.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "algorithms/dense/tp_random_internal.h"

typedef struct random_rows_args {
  uint64_t key;
  int64_t first, rank;  /* the call's first row; columns per row */
  uint64_t step, count; /* row i of the call is factor row ((first + i) step) mod count */
  int single;
  void *out;
} random_rows_args;

TP_RANGE_KERNEL(kruskal_random_elements, random_rows_args, e, a) {
  int64_t i = e / a.rank, c = e % a.rank, row = a.first + i;
  if (a.step != 1) /* row and step are below count <= 2^32: the product fits */
    row = (int64_t)(((uint64_t)row * a.step) % a.count);
  uint64_t bits = tpi_rng_draw(a.key, (uint64_t)(row * a.rank + c));
  if (a.single)
    ((float *)a.out)[e] = (float)tpi_rng_uniform(bits, TP_DTYPE_F32);
  else
    ((double *)a.out)[e] = tpi_rng_uniform(bits, TP_DTYPE_F64);
}

tp_status tpi_kruskal_random_rows_stepped_in_space(tp_space *space, tp_dtype dtype, uint64_t seed,
                                                   int mode, int64_t first_row, int64_t rows,
                                                   int64_t rank, uint64_t step, uint64_t count,
                                                   void *out) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(dtype == TP_DTYPE_F32 || dtype == TP_DTYPE_F64,
               "dtype %d: random factors are float32 or float64", (int)dtype);
  TP_CHECK_ARG(first_row >= 0 && rows >= 0 && rank >= 0,
               "rows [%lld, +%lld) of rank %lld: "
               "invalid",
               (long long)first_row, (long long)rows, (long long)rank);
  TP_CHECK_ARG(step == 1 || (count <= ((uint64_t)1 << 32) && step < count &&
                             (uint64_t)(first_row + rows) <= count),
               "rows [%lld, +%lld) stepped by %llu modulo %llu: invalid", (long long)first_row,
               (long long)rows, (unsigned long long)step, (unsigned long long)count);
  TP_CHECK_ARG(rows == 0 || rank == 0 || out, "out must not be NULL");
  if (rows == 0 || rank == 0)
    return TP_SUCCESS;
  random_rows_args a;
  a.key = tpi_rng_stream_key(seed, TP_RNG_STREAM_FACTOR + (uint64_t)mode);
  a.first = first_row, a.rank = rank, a.step = step, a.count = count;
  a.single = dtype == TP_DTYPE_F32, a.out = out;
  return TP_LAUNCHER(kruskal_random_elements)(space, rows * rank, a);
}

tp_status tpi_kruskal_random_rows_in_space(tp_space *space, tp_dtype dtype, uint64_t seed, int mode,
                                           int64_t first_row, int64_t rows, int64_t rank,
                                           void *out) {
  return tpi_kruskal_random_rows_stepped_in_space(space, dtype, seed, mode, first_row, rows, rank,
                                                  1, 0, out);
}
