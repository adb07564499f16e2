/* CP-ALS (GenTen / Tensor Toolbox): the iteration on the host, with the tensor, the
 * factors and the MTTKRPs in the space; the tensor is a tpi_cp_tensor (dense: cp_dense.c,
 * sparse: cp_sparse.c). Per mode n: G = MTTKRP, V = the
 * Hadamard product of the other Grams (double), U_n V = G (spd_solve.c), column
 * normalisation into lambda, Gram n refreshed. The fit after the last mode comes from
 * ||X||^2, the Grams, lambda and the last MTTKRP without forming the model.
 * The Grams, V and the solve stay on the host, except on GPUs for ranks of at least
 * TP_CP_DEVICE_SOLVE_MIN_RANK, where R x R work on the host would cost more than the
 * MTTKRPs (and distributed, would not shrink with more ranks): they are kept in the space
 * there (spd_device_kernels.c, gram_products_kernels.c), summed over the ranks in the space too.
 * Fixed modes are skipped by the sweeps; the line search runs between iterations
 * (cp_line_search.c); restarts keep the best model (cp_starts.c); the final
 * normalisation is cp_final.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/cp_als.h"
#include "tenport/linalg.h"
#include "tenport/memory.h"
#include "portable/tp_clock.h"
#include "portable/tp_norm_scale.h"
#include "algorithms/cp_als/tp_cp_run.h"
#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "portable/tp_space_common.h"

tp_cp_als_options tp_cp_als_options_default(void) {
  tp_cp_als_options o;
  memset(&o, 0, sizeof o);
  o.rank = 0; /* no default: the caller chooses */
  o.tol = 1e-4;
  o.max_iters = 50;
  o.seed = 1;
  o.init = NULL;
  o.mttkrp = tp_mttkrp_options_default();
  o.reuse_partials = 1;
  o.normalize = 1;
  o.progress = NULL;
  o.progress_user = NULL;
  o.reg = 0.0;
  o.fixed_modes = 0;
  o.init_method = TP_CP_INIT_RANDOM;
  o.max_seconds = 0.0;
  o.restarts = 0;
  o.line_search = 1;
  return o;
}

void tp_cp_als_print_progress(const tp_cp_als_progress *p, void *user) {
  FILE *out = user ? (FILE *)user : stdout;
  if (!p)
    return;
  fprintf(out, "iter %4d  fit %.10f  delta %+.3e  %.3f s", p->iteration, p->fit, p->delta_fit,
          p->seconds);
  if (p->fallback_solves)
    fprintf(out, "  (%d rank-revealing solve%s)", p->fallback_solves,
            p->fallback_solves == 1 ? "" : "s");
  if (p->extrapolated)
    fputs("  extrapolated", out);
  fputc('\n', out);
  fflush(out);
}

typedef tp_cp_run cp_run;

static size_t cp_elem(const cp_run *run) { return tpi_cp_run_elem(run); }
static int64_t cp_own_rows(const cp_run *run, int k) { return tpi_cp_run_own_rows(run, k); }
static int64_t cp_own_offset(const cp_run *run, int k) { return tpi_cp_run_own_offset(run, k); }

/* Row `row` of this rank's rows of factor k of the factors worked on. */
static void *cp_factor_row(const cp_run *run, int k, int64_t row) {
  return tpi_cp_run_row(run, run->M, k, row);
}

static tp_status cp_world_reduce(cp_run *run, double *v, int64_t n, tp_comm_op op) {
  if (!run->layout)
    return TP_SUCCESS;
  return tp_comm_allreduce_host(run->layout->world, v, n, TP_DTYPE_F64, op);
}

static tp_comm_op cp_column_comm_op(tpi_cp_column_op op) {
  if (op == TP_CP_COLUMN_MAXABS || op == TP_CP_COLUMN_MAX)
    return TP_COMM_MAX;
  return op == TP_CP_COLUMN_MIN ? TP_COMM_MIN : TP_COMM_SUM;
}

tp_status tpi_cp_run_owned_columns(cp_run *run, tpi_cp_column_op op, const void *A, const void *B,
                                   int k, double *out) {
  const int64_t R = run->R, rows = cp_own_rows(run, k);
  TP_TRY(tpi_cp_columns_reduce(run->space, run->dtype, op, A, B, rows, R, out));
  if (!run->layout)
    return TP_SUCCESS;
  if (op == TP_CP_COLUMN_NORM2)
    for (int64_t r = 0; r < R; ++r)
      out[r] *= out[r];
  TP_TRY(cp_world_reduce(run, out, R, cp_column_comm_op(op)));
  if (op == TP_CP_COLUMN_NORM2)
    for (int64_t r = 0; r < R; ++r)
      out[r] = sqrt(out[r]);
  return TP_SUCCESS;
}

static tp_status cp_owned_columns(cp_run *run, tpi_cp_column_op op, const void *A, const void *B,
                                  int k, double *out) {
  return tpi_cp_run_owned_columns(run, op, A, B, k, out);
}

static void cp_release(cp_run *run) {
  if (run->X->release)
    run->X->release(run->X->ctx);
  tpi_cp_line_search_destroy(run, &run->search);
  tp_kruskal_free(NULL, &run->nvecs);
  if (run->space) {
    tp_free(run->space, run->G);
    tp_free(run->space, run->gram_dev);
    tp_free(run->space, run->gram_space);
    tp_free(run->space, run->V_space);
  }
  free(run->grams), free(run->V), free(run->lambda), free(run->scale), free(run->dots);
  free(run->host_buf);
  if (run->space)
    tp_free(run->space, run->G_own);
  for (int k = 0; k < TP_COO_MAX_ORDER; ++k)
    free(run->layer_elems[k]), run->layer_elems[k] = NULL;
  run->G = run->gram_dev = run->G_own = NULL;
  run->gram_space = run->V_space = NULL;
  run->grams = run->V = run->lambda = run->scale = run->dots = run->host_buf = NULL;
}

/* ---- validation ------------------------------------------------------------------ */

/* K (model or initial guess) agrees with X (of these dims) and the rank. */
static tp_status cp_check_kruskal(const tpi_cp_tensor *X, const int64_t *dims, int64_t rank,
                                  const tp_kruskal *K, const char *what, int need_lambda) {
  TP_TRY(tp_kruskal_check(K));
  TP_CHECK_ARG(K->dtype == X->dtype, "%s is %s but X is %s", what, tp_dtype_name(K->dtype),
               tp_dtype_name(X->dtype));
  TP_CHECK_ARG(K->order == X->order, "%s has order %d but X has order %d", what, K->order,
               X->order);
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(K->dims[k] == dims[k], "%s has dims[%d] = %lld but X has dims[%d] = %lld", what, k,
                 (long long)K->dims[k], k, (long long)dims[k]);
  TP_CHECK_ARG(K->rank == rank, "%s has rank %lld but opts->rank is %lld", what, (long long)K->rank,
               (long long)rank);
  TP_CHECK_ARG(!need_lambda || K->lambda, "%s->lambda must not be NULL", what);
  for (int k = 0; k < X->order; ++k)
    TP_CHECK_ARG(K->factors[k], "%s->factors[%d] must not be NULL", what, k);
  return TP_SUCCESS;
}

/* 1 when the byte ranges [a, a + na) and [b, b + nb) share a byte. */
static int cp_overlap(const void *a, size_t na, const void *b, size_t nb) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return na && nb && x < y + nb && y < x + na;
}

/* The model CP-ALS writes shares no memory with the tensor it reads, nor its arrays with
 * each other: a factor over the tensor's values would rewrite the data mid-run (success,
 * and a fit of garbage). */
static tp_status cp_check_no_alias(const tpi_cp_tensor *X, const tp_kruskal *M) {
  const size_t elem = X->dtype == TP_DTYPE_F32 ? 4 : 8, R = (size_t)M->rank;
  const size_t x_bytes = X->values ? elem * (size_t)X->count : 0;
  for (int k = 0; k <= X->order; ++k) {
    const void *a = k < X->order ? M->factors[k] : M->lambda;
    size_t na = elem * R * (k < X->order ? (size_t)M->dims[k] : 1);
    char name[32] = "model lambda";
    if (k < X->order)
      snprintf(name, sizeof name, "model factor %d", k);
    TP_CHECK_ARG(!cp_overlap(a, na, X->values, x_bytes),
                 "%s shares memory with the tensor's values: the model must be memory of its "
                 "own",
                 name);
    for (int j = 0; j < k; ++j)
      TP_CHECK_ARG(!cp_overlap(a, na, M->factors[j], elem * R * (size_t)M->dims[j]),
                   "%s shares memory with model factor %d", name, j);
  }
  return TP_SUCCESS;
}

/* The options beyond plain ALS: ridge, fixed modes, the start, time, restarts. */
static tp_status cp_validate_extras(const tpi_cp_tensor *X, const tp_cp_als_options *o) {
  TP_CHECK_ARG(isfinite(o->reg) && o->reg >= 0, "reg = %g must be finite and >= 0", o->reg);
  TP_CHECK_ARG(isfinite(o->max_seconds) && o->max_seconds >= 0,
               "max_seconds = %g must be finite and >= 0 (0: no limit)", o->max_seconds);
  TP_CHECK_ARG(o->restarts >= 0, "restarts = %d must be >= 0", o->restarts);
  TP_CHECK_ARG(o->line_search == 0 || o->line_search == 1, "line_search = %d is not 0 or 1",
               o->line_search);
  TP_CHECK_ARG(o->nonneg == 0 || o->nonneg == 1, "nonneg = %d is not 0 or 1", o->nonneg);
  TP_CHECK_ARG(o->init_method == TP_CP_INIT_RANDOM || o->init_method == TP_CP_INIT_NVECS,
               "init_method %d is not TP_CP_INIT_RANDOM or TP_CP_INIT_NVECS", (int)o->init_method);
  TP_CHECK_ARG(o->init || o->init_method != TP_CP_INIT_NVECS || X->nvecs,
               "the nvecs start is not offered for this tensor (a distributed run): give "
               "the start in opts->init");
  const uint32_t all = X->order >= 32 ? 0xffffffffu : (1u << X->order) - 1u;
  TP_CHECK_ARG((o->fixed_modes & ~all) == 0,
               "fixed_modes 0x%x names a mode beyond the "
               "tensor's %d",
               (unsigned)o->fixed_modes, X->order);
  TP_CHECK_ARG(o->fixed_modes != all, "fixed_modes fixes every mode: nothing is left to "
                                      "update");
  return TP_SUCCESS;
}

static tp_status cp_validate(tp_space *space, const tpi_cp_tensor *X, const tp_cp_als_options *o,
                             const tp_kruskal *M) {
  TP_CHECK_ARG(space && o && M, "space, opts and model must not be NULL");
  TP_CHECK_ARG(X->dtype == TP_DTYPE_F32 || X->dtype == TP_DTYPE_F64,
               "X is %s: CP-ALS takes float32 or float64 tensors", tp_dtype_name(X->dtype));
  TP_CHECK_ARG(o->rank >= 1, "rank = %lld: CP-ALS needs rank >= 1", (long long)o->rank);
  TP_CHECK_ARG(o->rank <= INT32_MAX, "rank = %lld is too large", (long long)o->rank);
  TP_CHECK_ARG(isfinite(o->tol) && o->tol >= 0, "tol = %g must be finite and >= 0", o->tol);
  TP_CHECK_ARG(o->max_iters >= 1, "max_iters = %d must be >= 1", o->max_iters);
  TP_TRY(cp_validate_extras(X, o));
  TP_TRY(cp_check_kruskal(X, X->dims, o->rank, M, "model", 1));
  TP_TRY(cp_check_no_alias(X, M));
  if (o->init) /* the whole tensor's factors, also when distributed */
    TP_TRY(cp_check_kruskal(X, X->layout ? X->layout->dims : X->dims, o->rank, o->init,
                            "opts->init", 0));
  return TP_SUCCESS;
}

/* The stored values' statistics, their squares times scale summed over the ranks when
 * distributed (every rank learns first whether the others could compute theirs). */
static tp_status cp_value_stats(cp_run *run, double scale, tpi_cp_array_stats *s) {
  tp_status st =
      tpi_cp_array_stats_scaled_of(run->space, run->dtype, run->X->values, run->X->count, scale, s);
  if (!run->layout)
    return st;
  TP_TRY(tp_comm_agree(run->layout->world, st));
  double v[2] = {s->sumsq, (double)s->nonfinite};
  TP_TRY(cp_world_reduce(run, v, 2, TP_COMM_SUM));
  TP_TRY(cp_world_reduce(run, &s->max_abs, 1, TP_COMM_MAX));
  s->sumsq = v[0], s->nonfinite = (int64_t)v[1];
  return TP_SUCCESS;
}

/* ||X||^2, after checking X is finite and not zero (one pass over the stored values in
 * the space, unless the source knows it). A tensor whose squares would underflow or
 * overflow runs as X / 2^e, 2^e its largest |value| rounded to a power of two
 * (run->x_scale = 2^-e, tp_norm_scale.h): each MTTKRP is scaled by it, exactly, so the
 * factors are those of X and lambda is scaled back at the end; the fit does not depend
 * on the units. Sources without values in the space (sparse ones) give ||X s||^2 and s. */
static tp_status cp_tensor_norm(cp_run *run) {
  const tpi_cp_tensor *X = run->X;
  double given_scale = X->norm2_scale > 0 ? X->norm2_scale : 1.0;
  tpi_cp_array_stats s = {X->norm2, 0, 0};
  int known = X->norm2 >= 0 && (!X->values || tp_norm2_is_plain(X->norm2));
  if (!known)
    TP_TRY(cp_value_stats(run, 1.0, &s));
  if (s.nonfinite > 0)
    return TP_ERROR(TP_ERROR_NUMERICAL,
                    "X has %lld non-finite value%s (NaN or Inf) among "
                    "its %lld elements",
                    (long long)s.nonfinite, s.nonfinite == 1 ? "" : "s", (long long)X->count);
  run->x_scale = known ? given_scale : 1.0;
  if (!known && !tp_norm2_is_plain(s.sumsq)) {
    if (s.max_abs == 0)
      return TP_ERROR(TP_ERROR_NUMERICAL, "X is the zero tensor: the fit is undefined");
    run->x_scale = tp_scale_for_max_abs(s.max_abs);
    TP_TRY(cp_value_stats(run, run->x_scale, &s));
  }
  if (!isfinite(s.sumsq))
    return TP_ERROR(TP_ERROR_NUMERICAL, "||X||^2 overflows double precision");
  if (s.sumsq == 0)
    return TP_ERROR(TP_ERROR_NUMERICAL, "X is the zero tensor: the fit is undefined");
  run->norm_x2 = s.sumsq;
  return TP_SUCCESS;
}

/* ---- setup --------------------------------------------------------------------------- */

/* The owned rows' MTTKRP buffer and the element counts of the slab's ranks. */
static tp_status cp_alloc_distributed(cp_run *run) {
  int64_t own = 1;
  for (int k = 0; k < run->d; ++k) {
    int q = tp_comm_size(run->layout->layer[k]);
    own = cp_own_rows(run, k) > own ? cp_own_rows(run, k) : own;
    run->layer_elems[k] = (int64_t *)malloc(sizeof(int64_t) * (size_t)q);
    if (!run->layer_elems[k])
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", q);
    for (int j = 0; j < q; ++j)
      run->layer_elems[k][j] = run->layout->layer_rows[k][j] * run->R;
  }
  return tp_alloc(run->space, cp_elem(run) * (size_t)(own * run->R), &run->G_own);
}

static tp_status cp_reduce_rows(cp_run *run, int n);
static tp_status cp_share_rows(cp_run *run, int n);

/* One reduction and one share per mode, as the iterations make them, the first on a
 * zeroed G, the second of the starting factors (the same rows on every rank): NCCL sets
 * up a communicator's connections at their first use (longer than a whole iteration of
 * the runs measured), which then counts to setup, not to the first iteration. */
static tp_status cp_warm_collectives(cp_run *run) {
  TP_TRY(tp_memset(run->space, run->G, 0, cp_elem(run) * (size_t)(run->max_dim * run->R)));
  for (int k = 0; k < run->d; ++k) {
    TP_TRY(cp_reduce_rows(run, k));
    TP_TRY(cp_share_rows(run, k));
  }
  return tp_space_fence(run->space);
}

static tp_status cp_alloc(cp_run *run) {
  size_t R = (size_t)run->R, rows = (size_t)(run->max_dim > run->R ? run->max_dim : run->R);
  run->grams = (double *)malloc(sizeof(double) * (size_t)run->d * R * R);
  run->V = (double *)malloc(sizeof(double) * R * R);
  run->lambda = (double *)malloc(sizeof(double) * R);
  run->scale = (double *)malloc(sizeof(double) * R);
  run->dots = (double *)malloc(sizeof(double) * R);
  run->host_buf = (double *)malloc(sizeof(double) * rows * R);
  if (!run->grams || !run->V || !run->lambda || !run->scale || !run->dots || !run->host_buf)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for rank %lld CP-ALS",
                    (long long)run->R);
  TP_TRY(tp_alloc(run->space, cp_elem(run) * (size_t)run->max_dim * R, &run->G));
  TP_TRY(tp_alloc(run->space, cp_elem(run) * R * R, &run->gram_dev));
  tp_space_info info;
  TP_TRY(tp_space_get_info(run->space, &info));
  run->grams_in_space = info.is_gpu && run->R >= TP_CP_DEVICE_SOLVE_MIN_RANK;
  if (run->grams_in_space) {
    TP_TRY(
        tp_alloc(run->space, sizeof(double) * (size_t)run->d * R * R, (void **)&run->gram_space));
    TP_TRY(tp_alloc(run->space, sizeof(double) * (R * R + 2 * R), (void **)&run->V_space));
  }
  if (run->layout)
    TP_TRY(cp_alloc_distributed(run));
  return run->X->prepare ? run->X->prepare(run->X->ctx, run->space, run->R, run->opts) : TP_SUCCESS;
}

/* Entry (i, r) of factor k of a host Kruskal tensor, as a double. */
static double cp_init_entry(const tp_kruskal *K, int k, int64_t i, int64_t r) {
  int64_t at = i * K->rank + r;
  return K->dtype == TP_DTYPE_F32 ? (double)((const float *)K->factors[k])[at]
                                  : ((const double *)K->factors[k])[at];
}

/* Every factor of a host Kruskal tensor is finite and has no column of zeros: ALS keeps
 * a zero column zero (its MTTKRP and Gram are zero), so such a start would "converge" to
 * a model without that component, or to the zero model. */
static tp_status cp_check_init_values(const tp_kruskal *K) {
  for (int k = 0; k < K->order; ++k) {
    for (int64_t r = 0; r < K->rank; ++r) {
      int nonzero = 0;
      for (int64_t i = 0; i < K->dims[k]; ++i) {
        double v = cp_init_entry(K, k, i, r);
        if (!isfinite(v))
          return TP_ERROR(TP_ERROR_NUMERICAL,
                          "opts->init factor %d has a non-finite value at "
                          "(%lld, %lld)",
                          k, (long long)i, (long long)r);
        nonzero |= v != 0;
      }
      if (!nonzero)
        return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                        "opts->init factor %d has a column of zeros (column %lld): ALS "
                        "cannot move a zero start; give every column a nonzero entry",
                        k, (long long)r);
    }
  }
  return TP_SUCCESS;
}

/* This rank's rows of factor k: the whole factor in one process, the slab's rows when
 * distributed (a slab without rows keeps one zero row, its dims being at least 1). */
static void cp_slab(const cp_run *run, int k, int64_t *first, int64_t *rows) {
  *first = run->layout ? run->layout->slab_begin[k] : 0;
  *rows = run->layout ? run->layout->rows[k] : run->X->dims[k];
}

/* The slab's rows of a host Kruskal tensor's factor k (opts->init or the nvecs start),
 * each from the index its row stands for (relabelled modes), into the model. */
static tp_status cp_copy_start_rows(cp_run *run, const tp_kruskal *K, int k, int64_t first,
                                    int64_t rows) {
  const size_t elem = cp_elem(run), row_bytes = elem * (size_t)run->R;
  const char *from = (const char *)K->factors[k];
  const tpi_cp_relabel *relabel = run->layout ? &run->layout->relabel[k] : NULL;
  if (!relabel || relabel->step == 1)
    return tp_copy_to_device(run->space, run->M->factors[k], from + row_bytes * (size_t)first,
                             row_bytes * (size_t)rows);
  char *staged = (char *)(void *)run->host_buf; /* max_dim x R doubles */
  for (int64_t j = 0; j < rows; ++j)
    memcpy(staged + row_bytes * (size_t)j,
           from + row_bytes * (size_t)tpi_cp_relabel_index(relabel, first + j), row_bytes);
  return tp_copy_to_device(run->space, run->M->factors[k], staged, row_bytes * (size_t)rows);
}

/* The host factors the first start copies: opts->init, the nvecs start, or none
 * (random). */
static const tp_kruskal *cp_first_start(const cp_run *run) {
  return run->opts->init ? run->opts->init : run->nvecs.order ? &run->nvecs : NULL;
}

/* Rows of factor k of a start into the model: the first start's (and a fixed mode's in
 * every start) copied from opts->init or the nvecs start, else drawn in the space from
 * tenport's random factors with seed + start (any rows of them, so every rank count
 * starts from the same guess). */
static tp_status cp_start_factor(cp_run *run, int k, int start) {
  const int64_t R = run->R;
  const size_t elem = cp_elem(run);
  int64_t first, rows;
  cp_slab(run, k, &first, &rows);
  TP_TRY(tp_memset(run->space, run->M->factors[k], 0, elem * (size_t)(run->X->dims[k] * R)));
  if (tpi_cp_run_fixed(run, k))
    start = 0;
  const tp_kruskal *K = start == 0 ? cp_first_start(run) : NULL;
  if (K)
    return cp_copy_start_rows(run, K, k, first, rows);
  const tpi_cp_relabel *relabel = run->layout ? &run->layout->relabel[k] : NULL;
  return tpi_kruskal_random_rows_stepped_in_space(
      run->space, run->dtype, run->opts->seed + (uint64_t)start, k, first, rows, R,
      relabel ? relabel->inverse : 1, relabel ? relabel->count : 0, run->M->factors[k]);
}

/* The nvecs start, made once when asked for and no init is given. */
static tp_status cp_make_nvecs(cp_run *run) {
  const tpi_cp_tensor *X = run->X;
  if (run->opts->init || run->opts->init_method != TP_CP_INIT_NVECS)
    return TP_SUCCESS;
  TP_TRY(tp_kruskal_alloc(NULL, X->dtype, X->order, X->dims, run->R, &run->nvecs));
  return X->nvecs(X->ctx, run->space, run->opts->seed, &run->nvecs);
}

/* The factors of start `start` into the model; lambda = 1. A nonnegative run takes its
 * free factors in absolute value (the nvecs start's eigenvectors have both signs). */
tp_status tpi_cp_run_initial_guess(cp_run *run, int start) {
  for (int64_t r = 0; r < run->R; ++r)
    run->lambda[r] = 1.0;
  for (int k = 0; k < run->d; ++k) {
    TP_TRY(cp_start_factor(run, k, start));
    if (run->opts->nonneg && !tpi_cp_run_fixed(run, k))
      TP_TRY(tpi_cp_columns_abs(run->space, run->dtype, run->M->factors[k],
                                tpi_cp_run_slab_rows(run, k), run->R));
  }
  return TP_SUCCESS;
}

/* ---- Grams and the Hadamard products -------------------------------------------------- */

/* U^T U of the I rows at U into out (host, double). */
static tp_status cp_gram_rows(cp_run *run, const void *U, int64_t I, double *out) {
  const int64_t R = run->R;
  if (I == 0) {
    memset(out, 0, sizeof(double) * (size_t)(R * R));
    return TP_SUCCESS;
  }
  if (run->dtype == TP_DTYPE_F64) {
    TP_TRY(tp_gemm_f64(run->space, TP_TRANS, TP_NO_TRANS, R, R, I, 1.0, (const double *)U, R,
                       (const double *)U, R, 0.0, (double *)run->gram_dev, R));
    return tp_copy_to_host(run->space, out, run->gram_dev, sizeof(double) * (size_t)(R * R));
  }
  TP_TRY(tp_gemm_f32(run->space, TP_TRANS, TP_NO_TRANS, R, R, I, 1.0f, (const float *)U, R,
                     (const float *)U, R, 0.0f, (float *)run->gram_dev, R));
  float *f = (float *)(void *)run->host_buf;
  TP_TRY(tp_copy_to_host(run->space, f, run->gram_dev, sizeof(float) * (size_t)(R * R)));
  for (int64_t i = 0; i < R * R; ++i)
    out[i] = (double)f[i];
  return TP_SUCCESS;
}

/* Gram k kept in the space in double (grams_in_space), summed over the ranks there. */
static tp_status cp_gram_in_space(cp_run *run, int k) {
  const int64_t R = run->R, RR = R * R, rows = cp_own_rows(run, k);
  double *out = run->gram_space + (size_t)k * (size_t)RR;
  const void *U = cp_factor_row(run, k, cp_own_offset(run, k));
  if (rows == 0)
    TP_TRY(tp_memset(run->space, out, 0, sizeof(double) * (size_t)RR));
  else if (run->dtype == TP_DTYPE_F64)
    TP_TRY(tp_gemm_f64(run->space, TP_TRANS, TP_NO_TRANS, R, R, rows, 1.0, (const double *)U, R,
                       (const double *)U, R, 0.0, out, R));
  else {
    TP_TRY(tp_gemm_f32(run->space, TP_TRANS, TP_NO_TRANS, R, R, rows, 1.0f, (const float *)U, R,
                       (const float *)U, R, 0.0f, (float *)run->gram_dev, R));
    TP_TRY(tpi_cp_to_double(run->space, TP_DTYPE_F32, run->gram_dev, out, RR));
  }
  if (!run->layout)
    return TP_SUCCESS;
  return tp_comm_allreduce(run->layout->world, out, RR, TP_DTYPE_F64, TP_COMM_SUM);
}

/* Gram k = U_k^T U_k, computed in the space (over the owned rows, summed over the ranks)
 * and kept on the host in double, or in the space (grams_in_space). */
tp_status tpi_cp_run_gram(cp_run *run, int k) {
  if (run->grams_in_space)
    return cp_gram_in_space(run, k);
  const int64_t RR = run->R * run->R;
  double *out = run->grams + (size_t)k * (size_t)RR;
  TP_TRY(cp_gram_rows(run, cp_factor_row(run, k, cp_own_offset(run, k)), cp_own_rows(run, k), out));
  return cp_world_reduce(run, out, RR, TP_COMM_SUM);
}

static tp_status cp_gram(cp_run *run, int k) { return tpi_cp_run_gram(run, k); }

/* V = the elementwise product of every Gram but skip's (skip = -1: all of them), plus
 * shift on the diagonal. */
static void cp_hadamard(const cp_run *run, int skip, double shift, double *V) {
  const int64_t R = run->R, RR = R * R;
  for (int64_t i = 0; i < RR; ++i)
    V[i] = 1.0;
  for (int k = 0; k < run->d; ++k) {
    if (k == skip)
      continue;
    const double *g = run->grams + (size_t)k * (size_t)RR;
    TP_HOST_OMP(omp parallel for simd schedule(static) if (RR > (1 << 16)))
    for (int64_t i = 0; i < RR; ++i)
      V[i] *= g[i];
  }
  for (int64_t r = 0; r < R; ++r)
    V[r * R + r] += shift;
}

/* ---- one mode -------------------------------------------------------------------------- */

/* Distributed: the slab's partial MTTKRP rows (G) summed onto the ranks that own them
 * (G_own): the touched rows only when the layer has a sparse plan, else whole slabs. */
static tp_status cp_reduce_rows(cp_run *run, int n) {
  if (run->layout->plan[n])
    return tpi_cp_rows_reduce(run->space, run->layout, n, run->dtype, run->R, run->G, run->G_own);
  return tp_comm_reduce_scatter(run->layout->layer[n], run->G, run->G_own, run->layer_elems[n],
                                run->dtype);
}

/* The owned rows of mode n's MTTKRP times run->x_scale (see cp_tensor_norm), when the
 * tensor runs scaled. */
static tp_status cp_scale_mttkrp(cp_run *run, int n, void *G_own) {
  if (run->x_scale == 1.0)
    return TP_SUCCESS;
  for (int64_t r = 0; r < run->R; ++r)
    run->scale[r] = run->x_scale;
  int64_t rows = run->layout ? cp_own_rows(run, n) : run->X->dims[n];
  return tpi_cp_columns_scale(run->space, run->dtype, G_own, rows, run->R, run->scale);
}

/* The MTTKRP of mode *n (of a sweep, or the trial's, which picks *n); distributed, each
 * rank's partial rows summed onto the rank that owns them (a reduce-scatter among the
 * ranks of the slab). Returns where the owned rows of the sum are. */
static tp_status cp_mttkrp_of(cp_run *run, int trial, int *n, void **G_own) {
  const tpi_cp_tensor *X = run->X;
  double t0 = tp_wall_seconds();
  tp_status st = trial ? X->mttkrp_trial(X->ctx, run->space, run->M, n, run->G)
                       : X->mttkrp(X->ctx, run->space, run->M, *n, run->G);
  *G_own = run->G;
  if (!run->layout)
    return st == TP_SUCCESS ? cp_scale_mttkrp(run, *n, *G_own) : st;
  if (st == TP_SUCCESS) /* the collectives wait for it anyway: timed apart from them */
    st = tp_space_fence(run->space);
  run->mttkrp_seconds += tp_wall_seconds() - t0;
  TP_TRY(tp_comm_agree(run->layout->world, st)); /* no rank waits for a failed one */
  *G_own = run->G_own;
  TP_TRY(cp_reduce_rows(run, *n));
  return cp_scale_mttkrp(run, *n, *G_own);
}

static tp_status cp_mttkrp(cp_run *run, int n, void **G_own) {
  return cp_mttkrp_of(run, 0, &n, G_own);
}

tp_status tpi_cp_run_mttkrp_trial(cp_run *run, int *mode, void **G_own) {
  return cp_mttkrp_of(run, 1, mode, G_own);
}

/* Distributed: the owned rows of factor n go to every rank of the slab (with a sparse
 * plan, to those that touch them). */
static tp_status cp_share_rows(cp_run *run, int n) {
  if (!run->layout)
    return TP_SUCCESS;
  if (run->layout->plan[n])
    return tpi_cp_rows_share(run->space, run->layout, n, run->dtype, run->R, run->M->factors[n]);
  return tp_comm_allgatherv(run->layout->layer[n],
                            cp_factor_row(run, n, run->layout->own_offset[n]), run->M->factors[n],
                            run->layer_elems[n], run->dtype);
}

/* lambda = column norms of factor n (2-norm on the first iteration, max-norm after);
 * the columns are divided by them, a zero column is left as it is. */
static tp_status cp_normalise(cp_run *run, int n, int first_iteration) {
  const int64_t R = run->R;
  void *own = cp_factor_row(run, n, cp_own_offset(run, n));
  tpi_cp_column_op op = first_iteration ? TP_CP_COLUMN_NORM2 : TP_CP_COLUMN_MAXABS;
  TP_TRY(cp_owned_columns(run, op, own, NULL, n, run->lambda));
  for (int64_t r = 0; r < R; ++r) {
    if (!isfinite(run->lambda[r]))
      return TP_ERROR(TP_ERROR_NUMERICAL,
                      "mode %d: the updated factor has non-finite values "
                      "in column %lld",
                      n, (long long)r);
    run->scale[r] = run->lambda[r] > 0 ? 1.0 / run->lambda[r] : 1.0;
  }
  if (cp_own_rows(run, n) == 0)
    return TP_SUCCESS;
  return tpi_cp_columns_scale(run->space, run->dtype, own, cp_own_rows(run, n), R, run->scale);
}

/* U_n V = G with V and the solve in the space; a V that is not numerically positive
 * definite goes to the host solve's pivoted Cholesky. */
static tp_status cp_solve_in_space(cp_run *run, int n, const void *G, void *U, int *fallback) {
  const int64_t R = run->R, rows = cp_own_rows(run, n);
  TP_TRY(tpi_cp_hadamard_in_space(run->space, run->gram_space, run->d, R, n, run->opts->reg,
                                  run->V_space));
  if (rows == 0)
    return TP_SUCCESS;
  int solved = 0;
  TP_TRY(tpi_cp_spd_solve_device(run->space, run->dtype, G, U, rows, R, run->V_space, 0, &solved));
  if (solved)
    return TP_SUCCESS;
  TP_TRY(tp_copy_to_host(run->space, run->V, run->V_space, sizeof(double) * (size_t)(R * R)));
  return tpi_cp_solve_in_space(run->space, run->dtype, G, U, rows, R, run->V, run->host_buf,
                               fallback);
}

/* Nonnegative: HALS sweeps from the factor as the model holds it (its columns times
 * lambda, the weights the last normalisation moved out of the factors). */
static tp_status cp_update_nonneg(cp_run *run, int n, const void *G, void *U) {
  const int64_t R = run->R, rows = cp_own_rows(run, n);
  const double *V_space = NULL;
  if (run->grams_in_space) {
    TP_TRY(tpi_cp_hadamard_in_space(run->space, run->gram_space, run->d, R, n, run->opts->reg,
                                    run->V_space));
    V_space = run->V_space;
  } else {
    cp_hadamard(run, n, run->opts->reg, run->V);
  }
  if (rows == 0)
    return TP_SUCCESS;
  TP_TRY(tpi_cp_columns_scale(run->space, run->dtype, U, rows, R, run->lambda));
  return tpi_cp_columns_hals(run->space, run->dtype, G, U, rows, R, run->V, V_space,
                             TPI_CP_HALS_SWEEPS);
}

static tp_status cp_update_mode(cp_run *run, int n, int first_iteration, int *fallbacks) {
  int fallback = 0;
  void *G, *U = cp_factor_row(run, n, cp_own_offset(run, n));
  TP_TRY(cp_mttkrp(run, n, &G));
  if (run->opts->nonneg) {
    TP_TRY(cp_update_nonneg(run, n, G, U));
  } else if (run->grams_in_space) {
    TP_TRY(cp_solve_in_space(run, n, G, U, &fallback));
  } else {
    cp_hadamard(run, n, run->opts->reg, run->V);
    if (cp_own_rows(run, n) > 0)
      TP_TRY(tpi_cp_solve_in_space(run->space, run->dtype, G, U, cp_own_rows(run, n), run->R,
                                   run->V, run->host_buf, &fallback));
  }
  *fallbacks += fallback;
  TP_TRY(cp_normalise(run, n, first_iteration));
  TP_TRY(cp_share_rows(run, n));
  return cp_gram(run, n);
}

/* out = (the elementwise product of all Grams) lambda, R values on the host. */
static tp_status cp_grams_times_lambda(cp_run *run, double *out) {
  const int64_t R = run->R;
  if (run->grams_in_space) {
    double *V = run->V_space, *lambda = V + R * R, *product = lambda + R;
    TP_TRY(tpi_cp_hadamard_in_space(run->space, run->gram_space, run->d, R, -1, 0.0, V));
    TP_TRY(tp_copy_to_device(run->space, lambda, run->lambda, sizeof(double) * (size_t)R));
    TP_TRY(tp_gemm_f64(run->space, TP_NO_TRANS, TP_NO_TRANS, R, 1, R, 1.0, V, R, lambda, 1, 0.0,
                       product, 1));
    return tp_copy_to_host(run->space, out, product, sizeof(double) * (size_t)R);
  }
  cp_hadamard(run, -1, 0.0, run->V);
  for (int64_t r = 0; r < R; ++r) {
    double sum = 0.0;
    for (int64_t s = 0; s < R; ++s)
      sum += run->V[r * R + s] * run->lambda[s];
    out[r] = sum;
  }
  return TP_SUCCESS;
}

/* fit = 1 - ||X - M|| / ||X|| with ||M||^2 = lambda^T (Hadamard of all Grams) lambda and
 * <X, M> = sum_r lambda_r sum_i G[i, r] U[i, r] for any mode's MTTKRP G (owned rows)
 * and that mode's factor U (lambda holds the rest of the components' scale). */
tp_status tpi_cp_run_fit(cp_run *run, int mode, const void *G, double *fit) {
  const int64_t R = run->R;
  TP_TRY(cp_owned_columns(run, TP_CP_COLUMN_DOT, G,
                          cp_factor_row(run, mode, cp_own_offset(run, mode)), mode, run->dots));
  double *row = run->host_buf; /* row r of (the product of all Grams) lambda */
  TP_TRY(cp_grams_times_lambda(run, row));
  double inner = 0.0, norm_m2 = 0.0;
  for (int64_t r = 0; r < R; ++r) {
    norm_m2 += run->lambda[r] * row[r];
    inner += run->lambda[r] * run->dots[r];
  }
  double residual2 = run->norm_x2 - 2.0 * inner + norm_m2;
  *fit = 1.0 - sqrt(residual2 > 0 ? residual2 : 0.0) / sqrt(run->norm_x2);
  return TP_SUCCESS;
}

/* lambda (host, double) into the model's lambda in the space. */
static tp_status cp_store_lambda(cp_run *run) {
  const int64_t R = run->R;
  for (int64_t r = 0; r < R; ++r) /* the scale of X (exact: a power of two) */
    run->lambda[r] /= run->x_scale;
  if (run->dtype == TP_DTYPE_F64)
    return tp_copy_to_device(run->space, run->M->lambda, run->lambda, sizeof(double) * (size_t)R);
  float *f = (float *)(void *)run->host_buf;
  for (int64_t r = 0; r < R; ++r)
    f[r] = (float)run->lambda[r];
  return tp_copy_to_device(run->space, run->M->lambda, f, sizeof(float) * (size_t)R);
}

/* ---- the iteration ----------------------------------------------------------------------- */

static void cp_report(const cp_run *run, int start, int iteration, double fit, double delta,
                      double seconds, int fallbacks, int extrapolated) {
  if (!run->opts->progress)
    return;
  tp_cp_als_progress p;
  memset(&p, 0, sizeof p);
  p.iteration = iteration;
  p.fit = fit;
  p.delta_fit = delta;
  p.seconds = seconds;
  p.fallback_solves = fallbacks;
  p.start = start;
  p.extrapolated = extrapolated;
  run->opts->progress(&p, run->opts->progress_user);
}

/* One sweep over the free modes, then the fit from the last one's MTTKRP. */
static tp_status cp_sweep(cp_run *run, int first_iteration, int *fallbacks, double *fit) {
  if (run->X->restart)
    TP_TRY(run->X->restart(run->X->ctx));
  for (int n = 0; n < run->d; ++n)
    if (!tpi_cp_run_fixed(run, n))
      TP_TRY(cp_update_mode(run, n, first_iteration, fallbacks));
  return tpi_cp_run_fit(run, run->fit_mode, run->layout ? run->G_own : run->G, fit);
}

/* The caller's cancel flag (opts->cancel), agreed on by every rank when distributed. */
static tp_status cp_check_cancel(const cp_run *run, int iteration) {
  if (!run->opts->cancel)
    return TP_SUCCESS;
  tp_status st = *run->opts->cancel ? TP_ERROR(TP_ERROR_CANCELLED,
                                               "CP-ALS was cancelled after iteration %d", iteration)
                                    : TP_SUCCESS;
  return run->layout ? tp_comm_agree(run->layout->world, st) : st;
}

/* Iterates until |delta fit| < tol (from the second iteration on), max_iters, or
 * max_seconds; between sweeps the line search may extrapolate. */
static tp_status cp_iterate(cp_run *run, int start, tp_cp_als_result *res) {
  double fit_prev = 0.0;
  for (int it = 1; it <= run->opts->max_iters; ++it) {
    double t0 = tp_wall_seconds(), fit;
    int fallbacks = 0, kept = 0;
    if (run->search)
      TP_TRY(tpi_cp_line_search_before(run, run->search, it == 1));
    TP_TRY(cp_sweep(run, it == 1, &fallbacks, &fit));
    if (run->search)
      TP_TRY(tpi_cp_line_search_after(run, run->search, it, &fit, &kept));
    double delta = fit - fit_prev;
    res->iterations = it, res->fit = fit;
    res->fallback_solves += fallbacks, res->extrapolations += kept;
    cp_report(run, start, it, fit, delta, tp_wall_seconds() - t0, fallbacks, kept);
    TP_TRY(cp_check_cancel(run, it));
    if (it > 1 && fabs(delta) < run->opts->tol) {
      res->converged = 1;
      break;
    }
    if (tpi_cp_run_out_of_time(run)) {
      res->stopped_by_time = 1;
      break;
    }
    fit_prev = fit;
  }
  return TP_SUCCESS;
}

/* Distributed, every rank learns of a failure in its own setup before the collectives. */
static tp_status cp_setup(cp_run *run) {
  tp_status st = cp_tensor_norm(run);
  if (st == TP_SUCCESS && run->opts->init)
    st = cp_check_init_values(run->opts->init);
  if (st == TP_SUCCESS)
    st = cp_alloc(run);
  if (st == TP_SUCCESS)
    st = cp_make_nvecs(run);
  if (st == TP_SUCCESS)
    st = tpi_cp_line_search_create(run, &run->search);
  if (st == TP_SUCCESS)
    st = tpi_cp_run_initial_guess(run, 0);
  if (!run->layout)
    return st;
  TP_TRY(tp_comm_agree(run->layout->world, st));
  return cp_warm_collectives(run);
}

/* Seconds in the collectives of the distributed run's communicators so far. */
static double cp_comm_seconds(const cp_run *run) {
  if (!run->layout)
    return 0.0;
  double s = tp_comm_seconds(run->layout->world);
  for (int k = 0; k < run->d; ++k)
    s += tp_comm_seconds(run->layout->layer[k]);
  return s;
}

/* One start from the factors in the model: Grams, then the iterations. */
tp_status tpi_cp_run_start(cp_run *run, int start, tp_cp_als_result *res) {
  for (int k = 0; k < run->d; ++k)
    TP_TRY(cp_gram(run, k));
  return cp_iterate(run, start, res);
}

static tp_status cp_run_all(cp_run *run, tp_cp_als_result *res) {
  TP_TRY(cp_setup(run));
  TP_TRY(tp_space_fence(run->space));
  res->setup_seconds = tp_wall_seconds() - run->started;
  double comm0 = cp_comm_seconds(run); /* the warm-up: setup */
  res->passes_per_iteration = run->X->passes(run->X->ctx);
  TP_TRY(tpi_cp_run_starts(run, res));
  if (run->opts->normalize)
    TP_TRY(tpi_cp_final_normalise(run));
  TP_TRY(cp_store_lambda(run));
  TP_TRY(tp_space_fence(run->space));
  res->comm_seconds = cp_comm_seconds(run) - comm0;
  res->mttkrp_seconds = run->mttkrp_seconds;
  return TP_SUCCESS;
}

/* The last mode a sweep updates. */
static int cp_last_free_mode(const tp_cp_als_options *opts, int d) {
  int last = d - 1;
  while (last > 0 && (opts->fixed_modes >> last & 1u))
    --last;
  return last;
}

tp_status tpi_cp_als_run(tp_space *space, const tpi_cp_tensor *X, const tp_cp_als_options *opts,
                         tp_kruskal *model, tp_cp_als_result *result) {
  double t0 = tp_wall_seconds();
  TP_TRY(cp_validate(space, X, opts, model));
  cp_run run;
  memset(&run, 0, sizeof run);
  run.space = space, run.X = X, run.M = model, run.model = model, run.opts = opts;
  run.layout = X->layout, run.started = t0, run.x_scale = 1.0;
  run.dtype = X->dtype, run.d = X->order, run.R = opts->rank;
  run.fit_mode = cp_last_free_mode(opts, X->order);
  for (int k = 0; k < X->order; ++k)
    run.max_dim = X->dims[k] > run.max_dim ? X->dims[k] : run.max_dim;
  tp_cp_als_result res;
  memset(&res, 0, sizeof res);
  /* an MTTKRP's work: every stored value times the rank (small problems run inline) */
  int64_t work = tp_space_set_work(space, X->count * run.R);
  tp_status st = cp_run_all(&run, &res);
  tp_space_set_work(space, work);
  cp_release(&run);
  res.seconds = tp_wall_seconds() - t0;
  if (st == TP_SUCCESS && result)
    *result = res;
  return st;
}
