/* The state of one CP-ALS run and the steps of its iteration that more than one file
 * takes: the driver (cp_als.c), the line search (cp_line_search.c), the starts
 * (cp_starts.c) and the final normalisation (cp_final.c). */
#ifndef TP_CP_RUN_H
#define TP_CP_RUN_H

#include "tenport/cp_als.h"
#include "portable/tp_clock.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

typedef struct tpi_cp_line_search tpi_cp_line_search;

typedef struct tp_cp_run {
  tp_space *space;
  const tpi_cp_tensor *X;
  const tpi_cp_layout *layout; /* distributed: the rows each rank owns; NULL: one process */
  tp_kruskal *M;               /* the factors the steps work on: the model, or a trial */
  tp_kruskal *model;           /* the caller's model */
  const tp_cp_als_options *opts;
  tp_dtype dtype;
  int d;
  int fit_mode; /* the last mode a sweep updates (the last free one) */
  int64_t R, max_dim;
  double norm_x2;   /* of X times x_scale */
  double x_scale;   /* 1, or 2^-e: X runs as X 2^-e (cp_tensor_norm) */
  double *grams;    /* host: d x R x R */
  double *V;        /* host: R x R */
  double *lambda;   /* host: R */
  double *scale;    /* host: R, column scale factors */
  double *dots;     /* host: R, column inner products of the fit */
  double *host_buf; /* host: max(max_dim, R) x R, solves and downloads */
  void *G;          /* space: max_dim x R, the MTTKRP (and the final gather) */
  void *G_own;      /* space, distributed: the owned rows of the summed MTTKRP */
  int64_t *layer_elems[TP_COO_MAX_ORDER]; /* distributed: owned elements of each rank of
                                             the slab of each mode (rows x R) */
  void *gram_dev;                         /* space: R x R */
  int grams_in_space;         /* the Grams, V and the solve in the space (cp_als.c's top) */
  double *gram_space;         /* space, grams_in_space: d x R x R */
  double *V_space;            /* space, grams_in_space: R x R, then R + R for the fit */
  double mttkrp_seconds;      /* distributed: this rank's MTTKRPs, each waited for */
  tp_kruskal nvecs;           /* host: the nvecs start, when asked for (else order 0) */
  tpi_cp_line_search *search; /* NULL without the line search */
  double started;             /* wall time the run began (max_seconds) */
} tp_cp_run;

static inline size_t tpi_cp_run_elem(const tp_cp_run *run) {
  return run->dtype == TP_DTYPE_F32 ? sizeof(float) : sizeof(double);
}

static inline int tpi_cp_run_fixed(const tp_cp_run *run, int k) {
  return (int)(run->opts->fixed_modes >> k & 1u);
}

/* One process owns every row of every factor; distributed, a rank holds its slab of
 * each factor and solves, normalises and measures only the rows it owns, the results
 * summed (or maxed) over all ranks. */
static inline int64_t tpi_cp_run_own_rows(const tp_cp_run *run, int k) {
  return run->layout ? run->layout->own_rows[k] : run->X->dims[k];
}

static inline int64_t tpi_cp_run_own_offset(const tp_cp_run *run, int k) {
  return run->layout ? run->layout->own_offset[k] : 0;
}

/* Row `row` of this rank's rows of factor k of M. */
static inline void *tpi_cp_run_row(const tp_cp_run *run, const tp_kruskal *M, int k, int64_t row) {
  return (char *)M->factors[k] + tpi_cp_run_elem(run) * (size_t)(row * run->R);
}

/* Per-column reductions over the owned rows of A (rows of factor k's length), over all
 * ranks (a 2-norm summed as squares). */
tp_status tpi_cp_run_owned_columns(tp_cp_run *run, tpi_cp_column_op op, const void *A,
                                   const void *B, int k, double *out);

/* Gram k of run->M, where the run keeps its Grams (cp_als.c's top). */
tp_status tpi_cp_run_gram(tp_cp_run *run, int k);

/* The MTTKRP of a mode outside the sweep (the source's cheapest, *mode), summed onto the
 * owning ranks; *G_own receives where the owned rows are. */
tp_status tpi_cp_run_mttkrp_trial(tp_cp_run *run, int *mode, void **G_own);

/* The fit of run->M with run->lambda, given the owned rows G_own of mode's MTTKRP. */
tp_status tpi_cp_run_fit(tp_cp_run *run, int mode, const void *G_own, double *fit);

/* The rows of factor k this rank holds: all of them in one process, its slab's
 * distributed (each row the same on every rank that holds it). */
static inline int64_t tpi_cp_run_slab_rows(const tp_cp_run *run, int k) { return run->X->dims[k]; }

/* max_seconds have passed since the run began. */
static inline int tpi_cp_run_out_of_time(const tp_cp_run *run) {
  return run->opts->max_seconds > 0 && tp_wall_seconds() - run->started >= run->opts->max_seconds;
}

/* The factors of start `start` (0: opts->init, the nvecs start or seed; s: seed + s;
 * fixed modes always as start 0) into the model, lambda 1. */
tp_status tpi_cp_run_initial_guess(tp_cp_run *run, int start);
/* One start from the model's factors: its Grams, then the iterations into res. */
tp_status tpi_cp_run_start(tp_cp_run *run, int start, tp_cp_als_result *res);

/* ---- the starts (cp_starts.c) ---------------------------------------------------------- */

/* The first start (set up already) and the restarts, the model of the highest fit kept
 * in the model and lambda; res says which and sums their fallback solves. */
tp_status tpi_cp_run_starts(tp_cp_run *run, tp_cp_als_result *res);

/* ---- the line search (cp_line_search.c) ----------------------------------------------- */

/* Its copies of the factors in the space; *search NULL when the options leave it off. */
tp_status tpi_cp_line_search_create(tp_cp_run *run, tpi_cp_line_search **search);
void tpi_cp_line_search_destroy(tp_cp_run *run, tpi_cp_line_search **search);
/* Before a sweep: the factors and lambda it starts from (a new start: forget the past). */
tp_status tpi_cp_line_search_before(tp_cp_run *run, tpi_cp_line_search *search, int new_start);
/* After the sweep of iteration it (fit its fit): an extrapolation tried, kept (*kept 1,
 * *fit raised, the model, lambda and Grams those of the extrapolation) only when its fit
 * is higher. */
tp_status tpi_cp_line_search_after(tp_cp_run *run, tpi_cp_line_search *search, int it, double *fit,
                                   int *kept);

/* ---- the final normalisation (cp_final.c) ---------------------------------------------- */

tp_status tpi_cp_final_normalise(tp_cp_run *run);

TP_EXTERN_C_END
#endif
