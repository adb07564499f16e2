/* tenport sshopm, shared by its files: the options (cmd_sshopm.c takes them and runs one
 * process), a batch's runs and distinct eigenpairs (sshopm_solve.c), the input's checks
 * and the outputs' names (sshopm_files.c), the summary (sshopm_report.c) and --example
 * (sshopm_example.c), so that the single-process and distributed (sshopm_dist.c) runs
 * compute and print the same numbers. */
#ifndef TENPORT_SSHOPM_CLI_H
#define TENPORT_SSHOPM_CLI_H

#include "tools/tenport/cli_files.h"
#include "tools/tenport/commands.h"
#include "tenport/npy.h"
#include "tenport/tenport.h"

#define SUMMARY_TENSORS 10 /* tensors whose eigenpairs are printed */
#define PAIR_FIXED_COLS 3  /* lambda, kind, starts; then x */

typedef struct sshopm_cli {
  const char *input, *output;
  int order, dim, starts, single, example, tol_set, distributed;
  uint64_t seed;
  tp_sshopm_options solver;
} sshopm_cli;

/* One batch's results on the host, in double. */
typedef struct runs {
  int64_t tensors;
  int starts, order, dim;
  double *lambda, *x;
  int8_t *flag;
  int32_t *iterations;
  double seconds;
} runs;

/* Per tensor, count rows of width n + 3: lambda, kind, starts, x. */
typedef struct pair_table {
  int64_t tensors;
  int width, max_count;
  int *count;
  double **rows;
} pair_table;

/* What the summary says of a batch's runs (sums over ranks in a distributed run). */
typedef struct sshopm_totals {
  int64_t tensors, runs;
  int64_t flags[5];          /* runs per tp_sshopm_flag */
  int64_t nonfinite_tensors; /* tensors with a NaN or infinite value */
  int64_t iterations;
  double seconds;
} sshopm_totals;

/* The output files, PREFIX_<name>.npy, in the order they are written. */
extern const char *const tenport_sshopm_outputs[5];

void tenport_sshopm_runs_free(runs *r);
void tenport_sshopm_table_free(pair_table *t);

/* Runs V starts on T tensors a (host, T x U doubles) and fills r. */
tp_status tenport_sshopm_solve(tp_space *s, const sshopm_cli *c, int order, int dim,
                               int64_t tensors, const double *a, runs *r);
/* The distinct eigenpairs of every tensor; on failure message holds the error's text. */
tp_status tenport_sshopm_pairs(const runs *r, const double *a, int64_t unique, pair_table *tab,
                               char *message, size_t message_size);
/* The table as one array of tensors x max_count x width, padded with NaN rows (NULL when
 * out of memory). */
double *tenport_sshopm_padded(const pair_table *tab, int max_count);

/* An input of this shape: its tensor count, and whether it is one tensor (1-D); 0, or 1
 * when it does not hold T x U values of the order and dimension (reported when loud). */
int tenport_sshopm_shape(const sshopm_cli *c, const char *name, int ndim, const int64_t *shape,
                         int64_t *tensors, int *one_tensor, int loud);

/* One tensor's pairs (rows of tab); known (may be NULL) lists reference eigenvalues to
 * show beside them. */
void tenport_sshopm_print_pairs(const pair_table *tab, int64_t t, int dim, const double *known,
                                int known_count);
void tenport_sshopm_count(const runs *r, sshopm_totals *t);
void tenport_sshopm_print_totals(const sshopm_cli *c, int order, int dim, const sshopm_totals *t);
/* The summary: the input, the eigenpairs of the first SUMMARY_TENSORS tensors (tab holds
 * at least those), the totals. */
void tenport_sshopm_print_result(const sshopm_cli *c, const char *name, const pair_table *tab,
                                 const sshopm_totals *t);

int tenport_sshopm_output_path(const char *prefix, const char *name, char *path, size_t cap);
/* Adds every output file to the set before the work; 0, or 1 (reported). */
int tenport_sshopm_reserve(const sshopm_cli *c, tp_output_set *set);

/* Reports what went wrong: what, or the last tenport error when what is NULL or empty
 * ("out of host memory" when there is none); returns 1. */
int tenport_sshopm_fail(const char *what);

/* --example (sshopm_example.c): the exit code. */
int tenport_sshopm_example(tp_space *s, sshopm_cli *c);

/* mpirun ... tenport sshopm (or --distributed): every rank runs this. */
int tenport_sshopm_distributed(const sshopm_cli *c);

#endif
