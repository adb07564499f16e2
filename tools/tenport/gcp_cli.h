/* tenport gcp, shared by its files: the arguments (gcp_args.c), the watch on the
 * iterations and the files written (gcp_watch.c), the summary lines (gcp_report.c), and
 * the tensor and its mask read by the path the input takes: dense (gcp_dense.c) or sparse
 * (gcp_sparse.c); cmd_gcp.c runs the pipeline. */
#ifndef TENPORT_GCP_CLI_H
#define TENPORT_GCP_CLI_H

#include "tools/tenport/cli_files.h"
#include "tools/tenport/cli_json.h"
#include "tools/tenport/cli_solver.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/progress.h"
#include "tools/tenport/space_ahead.h"

/* One iteration as --history records it. */
typedef struct tenport_gcp_record {
  int iteration, evaluations;
  double loss, gradient_norm, seconds;
} tenport_gcp_record;

/* The per-iteration reports of a run (solver.progress_user): a line on stdout and the
 * live indicator on a terminal unless --quiet; with --history, every iteration kept. */
typedef struct tenport_gcp_watch {
  int max_iters;
  tenport_progress bar;
  int quiet;                /* --quiet: only the time is taken */
  double iteration_seconds; /* the solver's time at its last iteration (the phases line) */
  int keep_history;         /* --history */
  tenport_history history;  /* of tenport_gcp_record */
} tenport_gcp_watch;

/* What the command line asked for. */
typedef struct tenport_gcp_cli {
  const char *input, *mask, *init, *output, *precision, *history, *dims_text;
  int rank, quiet, param_set;
  tp_gcp_options solver;
  tenport_gcp_watch watch;
  tenport_text_options text; /* --index-base, --no-header (.tns inputs) */
  int order;                 /* order and dims: --dims, else 0 */
  int64_t dims[TP_COO_MAX_ORDER];
} tenport_gcp_cli;

void tenport_gcp_usage(FILE *out);
/* 0: run; 1: help was asked for; 2: usage error (reported). */
int tenport_gcp_args(int argc, char **argv, tenport_gcp_cli *c);

/* Everything one run holds, freed by tenport_gcp_job_free. A dense tensor and its mask
 * are read into host_x and host_w, then copied into the space (x, w); a sparse one and
 * its missing coordinates stay in host memory (coo, missing), as tp_gcp_sparse takes
 * them. */
typedef struct tenport_gcp_job {
  tenport_gcp_cli *c;
  tp_input *in, *mask_in; /* mask_in: NULL without --mask */
  tp_output_set *set;     /* NULL without --output and --history */
  tp_space *space;
  int sparse;
  tp_dtype dtype;
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  tp_dense host_x, host_w, x, w;
  tp_coo coo, missing;
  tp_coo_read_info info;
  int64_t observed; /* entries the loss is summed over */
  tp_kruskal init, model, host_model;
  tp_gcp_result result;
  double solve_seconds; /* the solver call's: its checks and set-up too */
  tenport_phases phases;
} tenport_gcp_job;

void tenport_gcp_job_free(tenport_gcp_job *j);

/* The tensor and its mask into host memory, with the model's files added to the set once
 * the order is known; the exit code (0, or 1 or 2 after a message). */
int tenport_gcp_load_dense(tenport_gcp_job *j);
int tenport_gcp_load_sparse(tenport_gcp_job *j);
/* A dense tensor and its mask copied into the space. */
tp_status tenport_gcp_dense_to_space(tenport_gcp_job *j);

/* tp_gcp_options.progress with a tenport_gcp_watch as user, and the indicator around
 * the solver call (both accept NULL: --quiet). */
void tenport_gcp_watch_iteration(const tp_gcp_progress *p, void *watch);
void tenport_gcp_watch_begin(tenport_gcp_watch *w);
void tenport_gcp_watch_end(tenport_gcp_watch *w);
void tenport_gcp_watch_free(tenport_gcp_watch *w);

/* The model (with --output) and the history (with --history) into the set, committed. */
tp_status tenport_gcp_write_outputs(const tenport_gcp_job *j);

/* The summary: the tensor, the mask, where the time went and the result; also into the
 * --json summary. Its parts: the loss line, and the result's lines. */
void tenport_gcp_report(const tenport_gcp_job *j, double total_seconds);
void tenport_gcp_print_loss(const tp_gcp_options *s);
void tenport_gcp_print_result(const tp_gcp_result *r, int adam, double total_seconds);

/* mpirun ... tenport gcp: every rank runs this (gcp_dist.c); the exit code. */
int tenport_gcp_distributed(tenport_gcp_cli *c);

#endif
