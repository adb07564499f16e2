/* Shared by the dense (cmd_cp_als.c) and sparse (cmd_cp_als_sparse.c) paths of
 * tenport cp-als. */
#ifndef TENPORT_CMD_CP_ALS_H
#define TENPORT_CMD_CP_ALS_H

#include "tools/tenport/space_ahead.h"
#include "tools/tenport/cli_files.h"
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
  tenport_cp_record *history;
  int recorded, capacity;
  int out_of_memory; /* a record could not be kept */
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

/* Where a run's time went, as one line: "phases: read R s, build B s, initialisation I s,
 * iterations T s, write W s". */
typedef struct tenport_cp_phases {
  double read, build, init, write; /* the iterations: the watch's */
} tenport_cp_phases;
/* init: the run's own set-up (any wait for the space still being created, initial
 * factors read, model allocated) before the solver;
 * the solver's set-up and final normalisation (its time less its iterations') are added
 * here. */
void tenport_cp_print_phases(tenport_cp_phases ph, const tp_cp_als_result *r,
                             const tenport_cp_watch *w);

/* Reads the input, then takes the space from `ahead` (created meanwhile) for the rest. */
int tenport_cp_als_sparse(tenport_space_ahead *ahead, const tenport_cp_request *q);

/* A planted dense tensor each rank makes its block of (order 0: none). */
typedef struct tenport_cp_planted {
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t rank;
  double noise;
  uint64_t seed;
} tenport_cp_planted;

/* One distributed decomposition (cmd_cp_als_dist.c): of a file read in shares or blocks,
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

#endif
