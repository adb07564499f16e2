/* Squared row norms of a row-major matrix: the example of an algorithm kernel written
 * once on the portable layer. League ranks take blocks of rows, team threads take rows,
 * vector lanes take columns; team scratch stages the block's results, a team reduction
 * forms the block's total and one atomic adds it to the global total. */
/* generates: row_norms2_kernel */
#include "tenport/linalg.h"
#include "portable/tp_portable.h"

enum { ROWS_PER_TEAM = 16 };

typedef struct row_norms_args {
  const double *A;
  int64_t m, n, ld;
  double *row_norms2;
  double *total; /* NULL: no total wanted */
} row_norms_args;

TP_TEAM_KERNEL(row_norms2_kernel, row_norms_args, team, a) {
  double *block_norms = (double *)team->scratch;
  int64_t first = team->league_rank * ROWS_PER_TEAM;
  int64_t rows = tp_min_i64(a.m - first, ROWS_PER_TEAM);
  double my_rows_sum = 0.0;
  TP_TEAM_FOR(team, r, 0, rows) {
    const double *row = a.A + (first + r) * a.ld;
    double sum = 0.0;
    TP_VECTOR_FOR_SUM(team, j, 0, a.n, sum) { sum += row[j] * row[j]; }
    sum = tp_vector_sum_f64(team, sum);
    TP_VECTOR_SINGLE(team) { block_norms[r] = sum; }
    my_rows_sum += sum;
  }
  tp_team_barrier(team);
  TP_TEAM_VECTOR_FOR(team, r, 0, rows) { a.row_norms2[first + r] = block_norms[r]; }
  double block_total = tp_team_sum_f64(team, my_rows_sum);
  if (a.total) {
    TP_TEAM_SINGLE(team) { tp_atomic_add_f64(a.total, block_total); }
  }
}

tp_status tp_row_norms2_f64(tp_space *space, const double *A, int64_t m, int64_t n, int64_t ld,
                            double *row_norms2, double *total) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(m >= 0 && n >= 0, "matrix shape %lld x %lld is negative", (long long)m,
               (long long)n);
  TP_CHECK_ARG(ld >= n, "leading dimension %lld is smaller than the %lld columns", (long long)ld,
               (long long)n);
  TP_CHECK_ARG(m == 0 || row_norms2, "row_norms2 must not be NULL");
  TP_CHECK_ARG(m == 0 || n == 0 || A, "A must not be NULL");
  TP_CHECK_ARG(n <= INT32_MAX - TP_MAX_VECTOR_LENGTH,
               "%lld columns exceed the range of vector loops", (long long)n);
  if (total)
    TP_TRY(tp_fill_f64(space, total, 1, 0.0));
  row_norms_args args;
  args.A = A;
  args.m = m;
  args.n = n;
  args.ld = ld;
  args.row_norms2 = row_norms2;
  args.total = total;
  int vector = n >= 32 ? 32 : (n >= 8 ? 8 : 1);
  tp_team_policy policy = tp_team_policy_make((m + ROWS_PER_TEAM - 1) / ROWS_PER_TEAM, 128 / vector,
                                              vector, ROWS_PER_TEAM * sizeof(double));
  return row_norms2_kernel_launch(space, policy, args);
}
