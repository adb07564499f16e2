/* The standard benchmark suite behind `tenport bench`: the four methods' standard cases
 * on the configured backend, each next to the machine's ceilings measured in the same
 * run, with a model's prediction where one exists. Sizes: "quick" finishes in under a
 * minute on two CPU cores; "full" uses the design brief's problems where the machine's
 * memory holds them.
 *
 * Counts (per run of a case): flops and bytes as stated at each case's source; items are
 * what a method naturally counts (SS-HOPM tensor-start iterations, STTID pivots). */
#ifndef TPS_SUITE_H
#define TPS_SUITE_H

#include <stdio.h>

#include "perf/micro/micro.h"
#include "tenport/tenport.h"

typedef enum tps_ceiling {
  TPS_CEILING_NONE = 0,
  TPS_CEILING_COPY,     /* bytes / copy bandwidth */
  TPS_CEILING_GEMM_F64, /* flops / FP64 GEMM rate */
  TPS_CEILING_FMA_F32   /* flops / FP32 FMA rate */
} tps_ceiling;

typedef struct tps_result {
  char method[24]; /* dense-mttkrp, cp-als, sshopm, sparse-mttkrp, sparse-cp-als, sttid */
  char name[96];   /* the case: problem, precision, rank */
  char kernel[24]; /* the variant that ran */
  double ms;       /* median of one run */
  double flops, bytes, items; /* per run; 0 where not counted */
  char items_unit[32];
  tps_ceiling ceiling;
  double model_ms; /* the model's prediction, < 0 where there is none */
  char model[32];  /* which model */
  int verified;    /* the result was checked (how: see each case) */
  char check[48];  /* what was checked, with the figure */
} tps_result;

typedef struct tps_ceilings {
  double copy_gbps, gemm_f64_gflops, fma_f32_gflops;
  char gemm_provider[32];
} tps_ceilings;

enum { TPS_MAX_RESULTS = 32 };

typedef void (*tps_progress_fn)(const char *what, void *user);

typedef struct tps_run {
  tp_space *space;
  tp_space_info info;
  int full; /* 0: quick sizes */
  int warmup, reps;
  const char *only; /* run only this method (NULL: all) */
  tps_ceilings ceilings;
  tps_result results[TPS_MAX_RESULTS];
  int count;
  tps_progress_fn progress; /* told the case about to run; may be NULL */
  void *progress_user;
} tps_run;

/* Sets up a run on a space: sizes, repetitions, method filter. */
tp_status tps_init(tps_run *run, tp_space *space, int full, const char *only);

/* Measures the ceilings, then runs every selected method; stops at the first error. */
tp_status tps_run_all(tps_run *run);

/* The method names tps_run_all knows, for --only. */
int tps_is_method(const char *name);
const char *tps_method_list(void);

/* One method each (called by tps_run_all). */
tp_status tps_dense(tps_run *run);
tp_status tps_sshopm(tps_run *run);
tp_status tps_sparse(tps_run *run);
tp_status tps_sttid(tps_run *run);

/* ---- helpers for the cases -------------------------------------------------------- */

/* Appends a result (zeroed, model_ms -1); NULL when the table is full. */
tps_result *tps_add(tps_run *run, const char *method, const char *kernel, const char *fmt, ...);
/* Says which case is about to run (the progress callback). */
void tps_announce(tps_run *run, const char *what);
/* The ceiling's rate in its unit (GB/s or GFLOP/s), 0 when unmeasured. */
double tps_ceiling_rate(const tps_run *run, tps_ceiling c);
/* The result's achieved rate against its ceiling, in percent; < 0 without one. */
double tps_percent_of_ceiling(const tps_run *run, const tps_result *r);
const char *tps_ceiling_name(tps_ceiling c);
/* Roofline time in ms: the larger of bytes at copy speed and flops at the rate of
 * `compute`. */
double tps_roofline_ms(const tps_run *run, double flops, double bytes, tps_ceiling compute);

/* Largest |a - b| over the largest |b|, for two arrays of n values of dtype (f32, f64)
 * in the space; a non-finite value on either side counts as infinitely far. */
tp_status tps_max_rel_diff(tp_space *space, const void *a, const void *b, size_t n, tp_dtype dtype,
                           double *rel);

/* ---- output ---------------------------------------------------------------------- */

/* The table: method, case, kernel, time, GFLOP/s, GB/s, items/s, % of ceiling, model. */
void tps_print(FILE *out, const tps_run *run);

typedef struct tps_machine {
  char host[128], cpu[128], compiler[96], revision[48], date[32], label[400];
} tps_machine;

/* Host name, CPU model, compilers, revision and date of this run. */
void tps_machine_describe(const tps_run *run, tps_machine *m);

/* Writes the run as JSON (schema tenport-bench/1) to path; TP_ERROR_IO names the file. */
tp_status tps_write_json(tp_output_set *set, const char *path, const tps_run *run,
                         const tps_machine *m);

#endif
