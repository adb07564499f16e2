/* tenport cp-als, shared by its files: the arguments (cp_als_args.c), the watch on the
 * iterations (cp_als_watch.c), the outputs (cp_als_outputs.c) and summary lines
 * (cp_als_report.c), and the paths cmd_cp_als.c picks from: dense (cp_als_dense.c), sparse
 * (cp_als_sparse.c) and distributed (cp_als_dist.c). */
#ifndef TENPORT_CP_ALS_CLI_H
#define TENPORT_CP_ALS_CLI_H

#include "tools/tenport/space_ahead.h"
#include "tools/tenport/cli_files.h"
#include "tools/tenport/cli_solver.h"
#include "tools/tenport/cli_json.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/progress.h"

/* One iteration as --history records it. */
typedef struct tenport_cp_record {
  int start, iteration, extrapolated, fallback_solves;
  double fit, delta, seconds;
} tenport_cp_record;

/* The per-iteration reports of a run (solver.progress_user): a line on stdout as
 * before, and the live indicator on a terminal; with --history, every iteration kept. */
typedef struct tenport_cp_watch {
  int max_iters;
  double tol;
  tenport_progress bar;
  int quiet;                /* --quiet: only the time is taken */
  double iteration_seconds; /* the iterations' time so far (the phases line) */
  int starts, start;        /* 1 + restarts; the start running */
  int keep_history;         /* --history */
  tenport_history history;  /* of tenport_cp_record */
} tenport_cp_watch;

void tenport_cp_watch_free(tenport_cp_watch *w);

/* The --history document: the options that shape the iteration, and each iteration's
 * start, number, fit, change of fit, seconds, whether the line search's extrapolation
 * was kept and its rank-revealing solves; then the result. Written into set as path. */
tp_status tenport_cp_write_history(const tenport_cp_watch *w, const tp_cp_als_options *solver,
                                   const tp_cp_als_result *r, tp_output_set *set, const char *path);

/* tp_cp_als_options.progress with a tenport_cp_watch as user. */
void tenport_cp_watch_iteration(const tp_cp_als_progress *p, void *watch);
/* The indicator around the solver call; both accept NULL (--quiet). */
void tenport_cp_watch_begin(tenport_cp_watch *w);
void tenport_cp_watch_end(tenport_cp_watch *w);

/* One decomposition of a file, as the command line asked. */
typedef struct tenport_cp_request {
  tp_input *in;
  tp_output_set *set; /* with --output: receives the model's files, committed at the end */
  const char *init, *output, *history;
  int rank, order; /* order and dims: --dims, else 0 */
  const int64_t *dims;
  const tp_tns_options *text; /* --index-base, --no-header (.tns inputs) */
  int dense_only_options;     /* --mttkrp or --no-reuse was given */
  tp_dtype dtype;
  const tp_cp_als_options *solver;
  tenport_cp_watch *watch; /* NULL with --quiet */
  double check_fit;        /* --check-fit: fail below this fit (< 0: no check) */
} tenport_cp_request;

/* Prints "check: fit F >= WANT: PASS|FAIL"; returns the exit code, 0 or 1. */
int tenport_cp_check_fit(double fit, double want);

/* The fit, iterations, time and fallback lines of the summary. */
void tenport_cp_print_result(const tp_cp_als_result *r, double total_seconds);

/* The set's model files (with --output) and history (with --history), then the commit;
 * a tp_status of the first failure. */
tp_status tenport_cp_write_outputs(tp_output_set *set, const char *output, const char *history,
                                   const tp_kruskal *host_model, const tenport_cp_watch *watch,
                                   const tp_cp_als_options *solver, const tp_cp_als_result *r);

/* A sparse input: read, then the space taken from `ahead` (created meanwhile) for the
 * rest; the exit code. */
int tenport_cp_als_sparse(tenport_space_ahead *ahead, const tenport_cp_request *q);

/* A planted dense tensor each rank makes its block of (order 0: none). */
typedef struct tenport_cp_planted {
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t rank;
  double noise;
  uint64_t seed;
} tenport_cp_planted;

/* One distributed decomposition (cp_als_dist.c): of a file read in shares or blocks,
 * of a random sparse tensor each rank draws its share of (generate.nnz > 0), or of a
 * planted dense tensor each rank makes its block of (planted.order > 0). */
typedef struct tenport_cp_dist_request {
  const char *input, *init, *output, *grid, *precision, *history;
  int rank, order; /* order and dims: --dims, else 0 */
  int64_t dims[TP_COO_MAX_ORDER];
  tp_coo_random_options generate;
  tenport_cp_planted planted;
  const tp_cp_als_options *solver;
  tenport_cp_watch *watch; /* NULL with --quiet */
  double check_fit;
} tenport_cp_dist_request;

int tenport_cp_als_distributed(const tenport_cp_dist_request *q);

/* --example: a planted rank-3 tensor made in memory, checked by its fit. */
#define EXAMPLE_RANK 3
#define EXAMPLE_FIT 0.9999
#define EXAMPLE_TENSOR_SEED 20261122 /* not the default start seed: the start is not the truth */

/* What the command line asked for (cp_als_args.c). */
typedef struct tenport_cp_cli {
  const char *input, *init, *output, *precision, *history;
  int rank, quiet, example, tol_set, iters_set;
  int dense_only_options; /* --mttkrp or --no-reuse */
  double check_fit;       /* < 0: none */
  tp_cp_als_options solver;
  tenport_cp_watch watch;
  /* distributed runs */
  const char *grid, *dims_text, *gen_dims_text, *gen_shape_text;
  tenport_text_options text; /* --index-base, --no-header */
  int distributed, order;
  int64_t dims[TP_COO_MAX_ORDER];
  tp_coo_random_options generate; /* nnz > 0: draw the tensor instead of reading it */
  tenport_cp_planted planted;     /* order > 0: make the dense tensor instead */
} tenport_cp_cli;

void tenport_cp_als_usage(FILE *out);
/* 0: run; 1: help was asked for; 2: usage error (reported). */
int tenport_cp_als_args(int argc, char **argv, tenport_cp_cli *c);

/* A dense input (.npy or dense text): read, then the space taken from `ahead`; the exit
 * code. */
int tenport_cp_als_dense_file(tenport_space_ahead *ahead, tenport_cp_cli *c, tp_input *in,
                              tp_output_set *set);
/* --example in the space given; the exit code. */
int tenport_cp_als_example(tp_space *space, tenport_cp_cli *c);

#endif
