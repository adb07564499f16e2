/* tp-bench-mttkrp: dense mode-k MTTKRP variants next to the machine's ceilings and the
 * performance models of the GenTen dense MTTKRP paper (Section IV-B).
 *
 * The tensor is generated on the host (uniform [0, 1), fixed seed), copied to the space
 * once, and every (rank, variant, mode) is timed with tp_mttkrp: median of --reps after
 * --warmup, GPU events on GPUs (micro_time). Each row reports
 *   GF/s NRd  the paper's flop count f = N R d (R(d-1) multiplies and R adds per element)
 *   GF/s 2NR  the GEMM count 2 N R (one multiply-add per element and column)
 *   %peak     the flops the variant performs (f for ELEM, SLICE and TILE, 2 N R for
 *             GEMM and BLOCKED) over t, as a share of tau_f, the compute ceiling
 *             measured in this run (FP64 GEMM for f64, the FP32 FMA kernel for f32)
 *   GB/s      tensor bytes / t (one read of the tensor is the memory floor), and as a
 *             share of the device-to-device copy bandwidth measured in this run
 *   extra MB  peak bytes held by the space during the calls minus the bytes in use
 *             before them (workspaces; memory vendor libraries take on their own, such
 *             as cuBLAS workspaces, is not counted)
 *   T_0, T_0LM, T_inf  the paper's model times, f/tau_f + m/tau_m with
 *             m_inf  = s (N + R sum_n I_n)
 *             m_0    = s (N + N R (d-1) + (N_S/N_T) I_k R)
 *             m_0LM  = s (N + (N_S/N_T) I_k R) + s N R (d-1) / l
 *             N_S = N / I_k, N_T = 1 (ELEM), N_S (SLICE), Eq. 6 (TILE); tau_m the copy
 *             bandwidth; l = 10 on GPUs, 8 on CPUs. T_0 and T_0LM model the element-wise
 *             variants only; GEMM and BLOCKED show T_inf. (The paper's Table III TILE
 *             times match N_T = the tile edge, 6 for A and 4 for B, in N_S / N_T; the
 *             volume, as the formula defines, gives lower T_0 and T_0LM.)
 *   check     largest relative difference from a reference: exact rows computed on the
 *             host when that is cheap, else another variant's result (GEMM, BLOCKED or
 *             TILE, whichever fits first), all rows; tolerance 1e-8 (f64), 1e-3 (f32).
 * A row "avg" per variant averages the time over the modes (GFLOP/s from the mean time,
 * extra memory the largest). --cp-als ITERS also times tp_cp_als: seconds per iteration
 * and passes over the tensor per iteration, then the iteration's MTTKRPs alone (a sweep
 * of every mode with the final model) against the iteration and against the tensor reads
 * at the copy speed: what is left is the solves, Grams, norms, fit and launches. A variant given as NAME:R runs only for
 * ranks up to R (ELEM and SLICE take seconds per call at large ranks).
 *
 * Usage: tp-bench-mttkrp [--tensor A|B | --shape 401x201x12x501] [--ranks 10,32,500,2000]
 *          [--variants elem,slice:32,tile,gemm,blocked,auto] [--modes all|0,2]
 *          [--precision f64|f32] [--layout left|right] [--reps 5] [--warmup 1]
 *          [--budget SECONDS] [--cp-als ITERS] [--cp-ranks LIST] [--cp-variant V]
 *          [--cp-reuse on|off|both]
 *          [--skip-over BYTES] [--memory-limit BYTES] [--tile-volume N]
 *          [--workspace-fraction F] [--lanes N] [--panel COLUMNS]
 *          [--lm-ratio L] [--ceilings full|small] [--no-check] [--seed S] [--json FILE] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/micro/micro.h"
#include "tenport/tenport.h"
#include "portable/tp_error.h"

enum { MAX_RANKS = 16, MAX_VARIANTS = 8, NUM_VARIANTS = TP_MTTKRP_BLOCKED + 1 };
enum { HOST_CHECK_ROWS = 4 };
#define HOST_CHECK_FLOPS 1e8 /* exact host rows when they cost at most this */

typedef struct bench_config {
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER];
  char tensor_name[8]; /* "A", "B" or "" */
  int64_t ranks[MAX_RANKS], cp_ranks[MAX_RANKS];
  int nranks, ncp_ranks;
  tp_mttkrp_variant variants[MAX_VARIANTS];
  int64_t variant_max_rank[MAX_VARIANTS]; /* 0: every rank */
  int nvariants, variants_given;
  tp_mttkrp_variant cp_variant;
  int cp_variant_given;
  unsigned modes; /* bit k: mode k */
  tp_dtype dtype;
  tp_layout layout;
  int reps, warmup, cp_iters, cp_reuse; /* cp_reuse: 0 off, 1 on, 2 both */
  double budget_s, skip_over, memory_limit, workspace_fraction, lm_ratio;
  int64_t tile_volume;
  int lanes, panel;
  int small_ceilings, check;
  uint64_t seed;
  const char *json;
} bench_config;

/* The ceilings of this run in the models' units. */
typedef struct machine {
  double copy_gbps, gemm_gflops, fma_gflops;
  double tau_m; /* bytes per second (read + written) */
  double tau_f; /* flops per second */
  double l;     /* LM-cache / memory bandwidth ratio */
  char gemm_provider[32];
} machine;

typedef enum row_state { ROW_OK, ROW_SKIPPED, ROW_OOM, ROW_FAILED } row_state;

typedef struct row {
  int64_t rank;
  tp_mttkrp_variant variant, picked;
  int mode; /* -1: the average over modes, -2: every mode (a skipped variant) */
  row_state state;
  double ms;
  int reps;
  double work; /* flops the variant performs: N R d element-wise, 2 N R through GEMM */
  double extra_bytes, estimate_bytes;
  double t0, t0lm, tinf; /* model times in ms; < 0 where the model does not apply */
  int check;             /* 1 ok, 0 mismatch, -1 not checked */
  double max_rel;
  const char *ref;
  char note[160];
} row;

typedef struct bench {
  const bench_config *cfg;
  tp_space *space;
  tp_space_info info;
  machine mach;
  tp_dense X, host; /* host.data is NULL unless the host check needs it */
  tp_kruskal U, hostU;
  int64_t rank, count, max_dim, tile_volume;
  size_t sf;
  double tensor_bytes, mem_limit;
  void *G, *G_ref, *G_bytes;                     /* device outputs; a host staging buffer */
  double *G_host;                                /* the last output as doubles */
  double *ref[TP_DENSE_MAX_ORDER][NUM_VARIANTS]; /* reference outputs of this rank */
  int ref_failed[TP_DENSE_MAX_ORDER][NUM_VARIANTS];
  row mode_rows[TP_DENSE_MAX_ORDER];
  FILE *json;
  int json_open, json_rows, failures;
} bench;

/* ---- sizes ------------------------------------------------------------------- */

static double prod_dims(const int64_t *dims, int first, int last) {
  double p = 1;
  for (int m = first; m < last; ++m)
    p *= (double)dims[m];
  return p;
}

/* Extra memory the variant is expected to need for this mode (bytes). GEMM forms the
 * Khatri-Rao product of the larger side and a GEMM result of I_k times the smaller
 * side (the paper's m_inf^GEMM = N + R (I_L + I_R + I_k) counts both sides). */
static double estimate_extra(const bench *b, tp_mttkrp_variant v, int mode) {
  const int64_t *dims = b->X.dims;
  double left = prod_dims(dims, 0, mode), right = prod_dims(dims, mode + 1, b->X.order);
  double ik = (double)dims[mode], R = (double)b->rank, s = (double)b->sf;
  if (v == TP_MTTKRP_GEMM) {
    double big = left > right ? left : right, small = left > right ? right : left;
    return s * R * (big + small * ik + ik);
  }
  if (v == TP_MTTKRP_BLOCKED) {
    double fraction = b->cfg->workspace_fraction > 0 ? b->cfg->workspace_fraction : 0.01;
    double ws = fraction * b->tensor_bytes;
    return ws > 4.0 * 1048576 ? ws : 4.0 * 1048576;
  }
  return 0;
}

/* Tiles per mode-k slice (N_S / N_T) for the element-wise variants, 0 for the others.
 * TILE counts ragged tiles when N_T is a whole tile edge to the power d - 1. */
static double tiles_per_slice(const bench *b, tp_mttkrp_variant v, int mode) {
  const int d = b->X.order;
  double ns = (double)b->count / (double)b->X.dims[mode];
  if (v == TP_MTTKRP_ELEM)
    return ns;
  if (v == TP_MTTKRP_SLICE)
    return 1;
  if (v != TP_MTTKRP_TILE || b->tile_volume < 1)
    return 0;
  double edge = floor(pow((double)b->tile_volume, 1.0 / (d - 1)) + 0.5);
  if (fabs(pow(edge, d - 1) - (double)b->tile_volume) > 0.5)
    return ceil(ns / (double)b->tile_volume);
  double tiles = 1;
  for (int m = 0; m < d; ++m)
    if (m != mode)
      tiles *= ceil((double)b->X.dims[m] / edge);
  return tiles;
}

/* The paper's T_0, T_0LM and T_inf in ms for this mode (T_0, T_0LM < 0 without tiles). */
static void model_times(const bench *b, tp_mttkrp_variant v, int mode, row *r) {
  const double N = (double)b->count, R = (double)b->rank, d = b->X.order;
  const double s = (double)b->sf, ik = (double)b->X.dims[mode];
  const double tf = N * R * d / b->mach.tau_f, ms = 1e3;
  double sum_dims = 0;
  for (int m = 0; m < b->X.order; ++m)
    sum_dims += (double)b->X.dims[m];
  r->tinf = ms * (tf + s * (N + R * sum_dims) / b->mach.tau_m);
  double tiles = tiles_per_slice(b, v, mode);
  r->t0 = r->t0lm = -1;
  if (tiles <= 0)
    return;
  double updates = tiles * ik * R, factor_reads = N * R * (d - 1);
  r->t0 = ms * (tf + s * (N + factor_reads + updates) / b->mach.tau_m);
  r->t0lm = ms * (tf + (s * (N + updates) + s * factor_reads / b->mach.l) / b->mach.tau_m);
}

/* ---- one MTTKRP call, timed ----------------------------------------------------- */

typedef struct call_ctx {
  tp_space *space;
  const tp_dense *X;
  const tp_kruskal *U;
  int mode;
  void *G;
  tp_mttkrp_options opts;
} call_ctx;

static tp_status call_op(void *ctx) {
  call_ctx *c = (call_ctx *)ctx;
  return tp_mttkrp(c->space, c->X, c->U, c->mode, c->G, &c->opts);
}

static tp_mttkrp_options bench_options(const bench *b, tp_mttkrp_variant v) {
  tp_mttkrp_options o = tp_mttkrp_options_default();
  o.variant = v;
  o.tile_volume = b->cfg->tile_volume;
  if (b->cfg->workspace_fraction > 0)
    o.workspace_fraction = b->cfg->workspace_fraction;
  o.lanes = b->cfg->lanes;
  o.panel = b->cfg->panel;
  return o;
}

/* Median ms: the first run is timed as a probe and counts as one warm-up run. With a
 * budget, a call slower than the budget is timed by the probe alone, and slow calls get
 * fewer repetitions (at least one). */
static tp_status time_call(bench *b, call_ctx *c, double *ms, int *reps) {
  const bench_config *cfg = b->cfg;
  const double budget_ms = 1e3 * cfg->budget_s;
  double probe = 0;
  TP_TRY(micro_time(b->space, NULL, call_op, c, 0, 1, &probe));
  *reps = cfg->reps;
  if (budget_ms > 0 && probe >= budget_ms) {
    *ms = probe, *reps = 1;
    return TP_SUCCESS;
  }
  if (budget_ms > 0 && probe * cfg->reps > budget_ms)
    *reps = (int)(budget_ms / probe) > 1 ? (int)(budget_ms / probe) : 1;
  int warmup = cfg->warmup > 0 ? cfg->warmup - 1 : 0;
  return micro_time(b->space, NULL, call_op, c, warmup, *reps, ms);
}

/* Runs variant v on mode into out (timed into r when `timed`), with the peak extra
 * memory of the calls into r->extra_bytes. */
static tp_status run_variant(bench *b, tp_mttkrp_variant v, int mode, void *out, int timed,
                             row *r) {
  call_ctx c = {b->space, &b->X, &b->U, mode, out, bench_options(b, v)};
  TP_TRY(tp_space_trim(b->space));
  tp_space_reset_peak(b->space);
  size_t before = tp_space_bytes_in_use(b->space);
  tp_status st = timed ? time_call(b, &c, &r->ms, &r->reps) : call_op(&c);
  if (st == TP_SUCCESS)
    st = tp_space_fence(b->space);
  if (st == TP_SUCCESS && r)
    r->extra_bytes = (double)(tp_space_bytes_peak(b->space) - before);
  tp_status trim = tp_space_trim(b->space);
  return st != TP_SUCCESS ? st : trim;
}

/* Copies G (I_k x R in the space) to b->G_host as doubles. */
static tp_status fetch_output(bench *b, const void *G, int mode, double *dst) {
  int64_t n = b->X.dims[mode] * b->rank;
  TP_TRY(tp_copy_to_host(b->space, b->G_bytes, G, b->sf * (size_t)n));
  for (int64_t i = 0; i < n; ++i)
    dst[i] = b->sf == sizeof(float) ? (double)((const float *)b->G_bytes)[i]
                                    : ((const double *)b->G_bytes)[i];
  return TP_SUCCESS;
}

/* ---- correctness ---------------------------------------------------------------- */

static double host_value(const void *data, int single, int64_t i) {
  return single ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

/* Row i of the mode-`mode` MTTKRP computed exactly (double) from the host copies. */
static void host_row(const bench *b, int mode, int64_t i, double *out) {
  const int d = b->host.order, single = b->sf == sizeof(float);
  const int64_t R = b->rank, *dims = b->host.dims;
  int64_t stride[TP_DENSE_MAX_ORDER], idx[TP_DENSE_MAX_ORDER] = {0}, s = 1;
  for (int j = 0; j < d; ++j) {
    int m = b->host.layout == TP_LAYOUT_LEFT ? j : d - 1 - j;
    stride[m] = s;
    s *= dims[m];
  }
  for (int64_t r = 0; r < R; ++r)
    out[r] = 0;
  idx[mode] = i;
  for (;;) {
    int64_t off = 0;
    for (int m = 0; m < d; ++m)
      off += idx[m] * stride[m];
    double x = host_value(b->host.data, single, off);
    for (int64_t r = 0; r < R; ++r) {
      double p = x;
      for (int m = 0; m < d; ++m)
        if (m != mode)
          p *= host_value(b->hostU.factors[m], single, idx[m] * R + r);
      out[r] += p;
    }
    int m = 0;
    for (; m < d; ++m) {
      if (m == mode)
        continue;
      if (++idx[m] < dims[m])
        break;
      idx[m] = 0;
    }
    if (m == d)
      return;
  }
}

static double rel_diff(double got, double want) {
  double scale = fabs(want) > 1e-300 ? fabs(want) : 1e-300;
  return got == want ? 0 : fabs(got - want) / scale;
}

static int host_check_cheap(const bench *b, int mode) {
  double slice = (double)b->count / (double)b->X.dims[mode];
  return b->host.data && HOST_CHECK_ROWS * slice * (double)b->rank * b->X.order <= HOST_CHECK_FLOPS;
}

/* Compares a few rows (first, last, and random ones) with exact host values. */
static tp_status check_with_host(bench *b, int mode, row *r) {
  const int64_t ik = b->X.dims[mode], R = b->rank;
  double *want = (double *)malloc(sizeof(double) * (size_t)R);
  if (!want)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for a reference row");
  uint64_t state = b->cfg->seed + 977u * (uint64_t)mode + (uint64_t)R;
  r->max_rel = 0;
  for (int k = 0; k < HOST_CHECK_ROWS; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int64_t i = k == 0 ? 0 : k == 1 ? ik - 1 : (int64_t)((state >> 33) % (uint64_t)ik);
    host_row(b, mode, i, want);
    for (int64_t c = 0; c < R; ++c)
      r->max_rel = fmax(r->max_rel, rel_diff(b->G_host[i * R + c], want[c]));
  }
  free(want);
  r->ref = "host";
  return TP_SUCCESS;
}

/* Whether --variants limits v to ranks below the current one (too slow to run here). */
static int rank_excluded(const bench *b, tp_mttkrp_variant v) {
  for (int i = 0; i < b->cfg->nvariants; ++i)
    if (b->cfg->variants[i] == v && b->cfg->variant_max_rank[i] > 0 &&
        b->rank > b->cfg->variant_max_rank[i])
      return 1;
  return 0;
}

/* The reference output of variant v for this mode, computed once per rank into the
 * cache; NULL when v does not fit, fails (out of memory) or is limited to lower ranks. */
static tp_status reference_of(bench *b, tp_mttkrp_variant v, int mode, double **ref) {
  *ref = b->ref[mode][v];
  if (*ref || b->ref_failed[mode][v])
    return TP_SUCCESS;
  if (estimate_extra(b, v, mode) > b->mem_limit || rank_excluded(b, v)) {
    b->ref_failed[mode][v] = 1;
    return TP_SUCCESS;
  }
  size_t n = (size_t)(b->X.dims[mode] * b->rank);
  double *buf = (double *)malloc(sizeof(double) * n);
  if (!buf)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for a reference output");
  tp_status st = run_variant(b, v, mode, b->G_ref, 0, NULL);
  if (st == TP_ERROR_OUT_OF_MEMORY) {
    tp_clear_error();
    free(buf);
    b->ref_failed[mode][v] = 1;
    return tp_space_trim(b->space);
  }
  if (st == TP_SUCCESS)
    st = fetch_output(b, b->G_ref, mode, buf);
  if (st != TP_SUCCESS) {
    free(buf);
    return st;
  }
  *ref = b->ref[mode][v] = buf;
  return TP_SUCCESS;
}

/* Keeps a trusted variant's output as a reference for the other variants. */
static tp_status remember_output(bench *b, tp_mttkrp_variant v, int mode) {
  if (v != TP_MTTKRP_GEMM && v != TP_MTTKRP_BLOCKED && v != TP_MTTKRP_TILE)
    return TP_SUCCESS;
  if (b->ref[mode][v])
    return TP_SUCCESS;
  size_t n = (size_t)(b->X.dims[mode] * b->rank);
  double *copy = (double *)malloc(sizeof(double) * n);
  if (!copy)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for a reference output");
  memcpy(copy, b->G_host, sizeof(double) * n);
  b->ref[mode][v] = copy;
  return TP_SUCCESS;
}

/* Checks b->G_host (the output of r->variant, which ran r->picked) for this mode. */
static tp_status check_output(bench *b, int mode, row *r) {
  const double tol = b->sf == sizeof(float) ? 1e-3 : 1e-8;
  static const tp_mttkrp_variant candidates[] = {TP_MTTKRP_GEMM, TP_MTTKRP_BLOCKED, TP_MTTKRP_TILE};
  r->check = -1;
  if (!b->cfg->check)
    return TP_SUCCESS;
  if (host_check_cheap(b, mode)) {
    TP_TRY(check_with_host(b, mode, r));
  } else {
    double *ref = NULL;
    for (int c = 0; c < 3 && !ref; ++c) {
      if (candidates[c] == r->variant || candidates[c] == r->picked)
        continue;
      TP_TRY(reference_of(b, candidates[c], mode, &ref));
      r->ref = tp_mttkrp_variant_name(candidates[c]);
    }
    if (!ref) {
      r->ref = "";
      return TP_SUCCESS;
    }
    int64_t n = b->X.dims[mode] * b->rank;
    r->max_rel = 0;
    for (int64_t i = 0; i < n; ++i)
      r->max_rel = fmax(r->max_rel, rel_diff(b->G_host[i], ref[i]));
  }
  r->check = r->max_rel <= tol;
  return TP_SUCCESS;
}

/* ---- output ------------------------------------------------------------------- */

static double flops_paper(const bench *b) {
  return (double)b->count * (double)b->rank * b->X.order;
}

/* Flops variant v performs: R(d-1) multiplies and R adds per element for the
 * element-wise variants, one multiply-add per element and column through a GEMM. */
static double flops_done(const bench *b, tp_mttkrp_variant v) {
  int gemm = v == TP_MTTKRP_GEMM || v == TP_MTTKRP_BLOCKED;
  return gemm ? 2.0 * (double)b->count * (double)b->rank : flops_paper(b);
}

static void print_table_header(void) {
  printf("%5s %-13s %4s %10s %4s %9s %9s %6s %8s %5s %9s %9s %9s %9s  %s\n", "R", "variant", "mode",
         "ms", "reps", "GF/s NRd", "GF/s 2NR", "%peak", "GB/s", "%copy", "extra MB", "T_0 ms",
         "T_0LM ms", "T_inf ms", "check");
}

static void fmt_ms(char *buf, size_t n, double ms) {
  if (ms < 0)
    snprintf(buf, n, "-");
  else
    snprintf(buf, n, "%.3f", ms);
}

static void print_row(const bench *b, const row *r) {
  char name[32], mode[16], t0[24], t0lm[24], tinf[24];
  if (r->variant == TP_MTTKRP_AUTO && r->mode >= 0 && r->state == ROW_OK)
    snprintf(name, sizeof name, "auto>%s", tp_mttkrp_variant_name(r->picked));
  else
    snprintf(name, sizeof name, "%s", tp_mttkrp_variant_name(r->variant));
  if (r->mode < 0)
    snprintf(mode, sizeof mode, r->mode == -1 ? "avg" : "all");
  else
    snprintf(mode, sizeof mode, "%d", r->mode);
  if (r->state != ROW_OK) {
    printf("%5lld %-13s %4s  %s\n", (long long)r->rank, name, mode, r->note);
    return;
  }
  double s = r->ms * 1e-3, f = flops_paper(b), f2 = 2.0 * (double)b->count * (double)b->rank;
  double gbps = b->tensor_bytes / s * 1e-9;
  char check[64] = "-";
  if (r->check >= 0)
    snprintf(check, sizeof check, "%s %.1e vs %s", r->check ? "ok" : "MISMATCH", r->max_rel,
             r->ref);
  fmt_ms(t0, sizeof t0, r->t0), fmt_ms(t0lm, sizeof t0lm, r->t0lm);
  fmt_ms(tinf, sizeof tinf, r->tinf);
  printf("%5lld %-13s %4s %10.3f %4d %9.1f %9.1f %5.1f%% %8.1f %4.0f%% %9.1f %9s %9s %9s  "
         "%s%s%s\n",
         (long long)r->rank, name, mode, r->ms, r->reps, f / s * 1e-9, f2 / s * 1e-9,
         100.0 * r->work / s / b->mach.tau_f, gbps, 100.0 * gbps / b->mach.copy_gbps,
         r->extra_bytes / 1048576.0, t0, t0lm, tinf, check, r->note[0] ? "  " : "", r->note);
}

static const char *state_name(row_state s) {
  return s == ROW_OK        ? "ok"
         : s == ROW_SKIPPED ? "skipped"
         : s == ROW_OOM     ? "out of memory"
                            : "failed";
}

static void json_row(bench *b, const row *r) {
  FILE *f = b->json;
  if (!f)
    return;
  double s = r->ms * 1e-3;
  fprintf(f, "%s\n    {\"rank\": %lld, \"variant\": \"%s\", \"picked\": \"%s\", ",
          b->json_rows++ ? "," : "", (long long)r->rank, tp_mttkrp_variant_name(r->variant),
          tp_mttkrp_variant_name(r->picked));
  if (r->mode < 0)
    fprintf(f, "\"mode\": \"%s\", ", r->mode == -1 ? "avg" : "all");
  else
    fprintf(f, "\"mode\": %d, ", r->mode);
  fprintf(f, "\"state\": \"%s\", \"note\": ", state_name(r->state));
  micro_json_string(f, r->note);
  fprintf(f, ", \"estimate_bytes\": %.0f", r->estimate_bytes);
  if (r->state == ROW_OK)
    fprintf(f,
            ", \"ms\": %.6g, \"reps\": %d, \"gflops_nrd\": %.6g, \"gflops_2nr\": %.6g, "
            "\"gbps\": %.6g, \"extra_bytes\": %.0f, \"t0_ms\": %.6g, \"t0lm_ms\": %.6g, "
            "\"tinf_ms\": %.6g, \"peak_share\": %.4g, \"check\": \"%s\", \"max_rel\": %.3g, "
            "\"reference\": \"%s\"",
            r->ms, r->reps, flops_paper(b) / s * 1e-9,
            2.0 * (double)b->count * (double)b->rank / s * 1e-9, b->tensor_bytes / s * 1e-9,
            r->extra_bytes, r->t0, r->t0lm, r->tinf, r->work / s / b->mach.tau_f,
            r->check < 0 ? "none"
            : r->check   ? "ok"
                         : "mismatch",
            r->max_rel, r->ref ? r->ref : "");
  fprintf(f, "}");
}

static void emit_row(bench *b, const row *r) {
  print_row(b, r);
  json_row(b, r);
  fflush(stdout);
}

/* ---- one (rank, variant, mode) ---------------------------------------------------- */

static tp_status measure_mode(bench *b, tp_mttkrp_variant v, int mode, row *r) {
  memset(r, 0, sizeof *r);
  r->rank = b->rank, r->variant = v, r->mode = mode, r->check = -1, r->ref = "";
  tp_mttkrp_options opts = bench_options(b, v);
  r->picked = v == TP_MTTKRP_AUTO ? tp_mttkrp_choose(b->space, &b->X, mode, b->rank, &opts) : v;
  model_times(b, r->picked, mode, r);
  r->work = flops_done(b, r->picked);
  r->estimate_bytes = estimate_extra(b, r->picked, mode);
  if (r->estimate_bytes > b->mem_limit) {
    r->state = ROW_SKIPPED;
    snprintf(r->note, sizeof r->note, "skipped: needs about %.2f GB, limit %.2f GB",
             r->estimate_bytes * 1e-9, b->mem_limit * 1e-9);
    return TP_SUCCESS;
  }
  tp_status st = run_variant(b, v, mode, b->G, 1, r);
  if (st != TP_SUCCESS) {
    r->state = st == TP_ERROR_OUT_OF_MEMORY ? ROW_OOM : ROW_FAILED;
    snprintf(r->note, sizeof r->note, "%s: %.120s",
             st == TP_ERROR_OUT_OF_MEMORY ? "out of memory" : tp_status_name(st), tp_last_error());
    tp_clear_error();
    b->failures += r->state == ROW_FAILED;
    return tp_space_trim(b->space);
  }
  TP_TRY(fetch_output(b, b->G, mode, b->G_host));
  TP_TRY(check_output(b, mode, r));
  b->failures += r->check == 0;
  return v == TP_MTTKRP_AUTO ? TP_SUCCESS : remember_output(b, v, mode);
}

/* The "avg" row of a variant over the measured modes (only when all of them ran). */
static void average_row(bench *b, tp_mttkrp_variant v, int nmodes) {
  row a;
  memset(&a, 0, sizeof a);
  a.rank = b->rank, a.variant = a.picked = v, a.mode = -1, a.check = 1, a.ref = "";
  a.reps = b->cfg->reps;
  int models = 1;
  for (int i = 0; i < nmodes; ++i) {
    const row *r = &b->mode_rows[i];
    if (r->state != ROW_OK) {
      a.state = r->state;
      snprintf(a.note, sizeof a.note, "(not every mode ran)");
      emit_row(b, &a);
      return;
    }
    a.ms += r->ms / nmodes, a.tinf += r->tinf / nmodes, a.work += r->work / nmodes;
    a.t0 += r->t0 / nmodes, a.t0lm += r->t0lm / nmodes;
    models &= r->t0 >= 0;
    a.reps = r->reps < a.reps ? r->reps : a.reps;
    a.extra_bytes = fmax(a.extra_bytes, r->extra_bytes);
    a.check = a.check == 0 || r->check == 0 ? 0 : a.check < 0 || r->check < 0 ? -1 : 1;
    a.max_rel = fmax(a.max_rel, r->max_rel);
    if (r->check >= 0)
      a.ref = r->ref;
  }
  if (!models)
    a.t0 = a.t0lm = -1;
  if (v == TP_MTTKRP_AUTO) {
    int len = snprintf(a.note, sizeof a.note, "picks:");
    for (int i = 0; i < nmodes && len < (int)sizeof a.note; ++i)
      len += snprintf(a.note + len, sizeof a.note - (size_t)len, " %s",
                      tp_mttkrp_variant_name(b->mode_rows[i].picked));
  }
  emit_row(b, &a);
}

static tp_status bench_variant(bench *b, tp_mttkrp_variant v, int64_t max_rank) {
  if (max_rank > 0 && b->rank > max_rank) {
    row r;
    memset(&r, 0, sizeof r);
    r.rank = b->rank, r.variant = r.picked = v, r.mode = -2, r.state = ROW_SKIPPED;
    snprintf(r.note, sizeof r.note, "skipped: run up to R = %lld (--variants %s:%lld)",
             (long long)max_rank, tp_mttkrp_variant_name(v), (long long)max_rank);
    emit_row(b, &r);
    return TP_SUCCESS;
  }
  int n = 0;
  for (int mode = 0; mode < b->X.order; ++mode) {
    if (!(b->cfg->modes >> mode & 1u))
      continue;
    TP_TRY(measure_mode(b, v, mode, &b->mode_rows[n]));
    emit_row(b, &b->mode_rows[n++]);
  }
  if (n > 1)
    average_row(b, v, n);
  return TP_SUCCESS;
}

/* ---- per rank: factors, outputs, references ---------------------------------------- */

static void free_rank(bench *b) {
  for (int m = 0; m < TP_DENSE_MAX_ORDER; ++m)
    for (int v = 0; v < NUM_VARIANTS; ++v) {
      free(b->ref[m][v]);
      b->ref[m][v] = NULL;
      b->ref_failed[m][v] = 0;
    }
  if (b->U.lambda)
    tp_kruskal_free(b->space, &b->U);
  if (b->hostU.lambda)
    tp_kruskal_free(NULL, &b->hostU);
  tp_free(b->space, b->G), tp_free(b->space, b->G_ref);
  free(b->G_bytes), free(b->G_host);
  b->G = b->G_ref = b->G_bytes = NULL;
  b->G_host = NULL;
}

static tp_status setup_rank(bench *b, int64_t rank) {
  const tp_dense *X = &b->X;
  size_t n = (size_t)(b->max_dim * rank);
  b->rank = rank;
  memset(&b->U, 0, sizeof b->U), memset(&b->hostU, 0, sizeof b->hostU);
  TP_TRY(tp_kruskal_alloc(NULL, X->dtype, X->order, X->dims, rank, &b->hostU));
  TP_TRY(tp_kruskal_random(&b->hostU, b->cfg->seed + 1 + (uint64_t)rank));
  TP_TRY(tp_kruskal_alloc(b->space, X->dtype, X->order, X->dims, rank, &b->U));
  TP_TRY(tp_kruskal_copy_to_device(b->space, &b->U, &b->hostU));
  TP_TRY(tp_alloc(b->space, b->sf * n, &b->G));
  TP_TRY(tp_alloc(b->space, b->sf * n, &b->G_ref));
  b->G_bytes = malloc(b->sf * n);
  b->G_host = (double *)malloc(sizeof(double) * n);
  if (!b->G_bytes || !b->G_host)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for the outputs on the host");
  b->tile_volume =
      b->cfg->tile_volume > 0 ? b->cfg->tile_volume : tp_mttkrp_tile_volume(b->space, X, rank);
  return tp_space_fence(b->space);
}

/* What the space may still take before a variant is skipped: --skip-over, else the
 * memory (or --memory-limit) less what is in use and a reserve. */
static void set_memory_limit(bench *b) {
  if (b->cfg->skip_over > 0) {
    b->mem_limit = b->cfg->skip_over;
    return;
  }
  double total = b->cfg->memory_limit > 0 ? b->cfg->memory_limit : (double)b->info.memory_bytes;
  double used = (double)tp_space_bytes_in_use(b->space);
  double reserve = b->cfg->memory_limit > 0 ? 0
                   : b->info.is_gpu         ? 0.05 * total + 1073741824.0
                                            : 0.05 * total;
  b->mem_limit = total > 0 ? fmax(0, total - used - reserve) : INFINITY;
}

static tp_status bench_rank(bench *b, int64_t rank) {
  tp_status st = setup_rank(b, rank);
  set_memory_limit(b);
  if (st == TP_SUCCESS)
    printf("\nR = %lld: tile volume N_T = %lld%s, memory limit for skipping %.1f GB\n",
           (long long)rank, (long long)b->tile_volume,
           b->cfg->tile_volume > 0 ? " (--tile-volume)" : " (Eq. 6)", b->mem_limit * 1e-9);
  if (st == TP_SUCCESS)
    print_table_header();
  for (int i = 0; st == TP_SUCCESS && i < b->cfg->nvariants; ++i)
    st = bench_variant(b, b->cfg->variants[i], b->cfg->variant_max_rank[i]);
  free_rank(b);
  return st;
}

/* ---- CP-ALS --------------------------------------------------------------------- */

typedef struct cp_times {
  double first, rest;
  int count;
} cp_times;

static void cp_progress(const tp_cp_als_progress *p, void *user) {
  cp_times *t = (cp_times *)user;
  if (p->iteration == 1)
    t->first = p->seconds;
  else
    t->rest += p->seconds;
  t->count = p->iteration;
}

/* The MTTKRPs of one CP-ALS iteration alone: a sweep over every mode with the final
 * model's factors, partials reused as tp_cp_als reuses them (two tensor reads) or not. */
typedef struct sweep_ctx {
  tp_mttkrp_sweep *sweep;
  const tp_kruskal *U;
  void *G;
  int order;
} sweep_ctx;

static tp_status sweep_op(void *ctx) {
  sweep_ctx *c = (sweep_ctx *)ctx;
  TP_TRY(tp_mttkrp_sweep_restart(c->sweep));
  for (int n = 0; n < c->order; ++n)
    TP_TRY(tp_mttkrp_sweep_mode(c->sweep, c->U, n, c->G));
  return TP_SUCCESS;
}

/* Median ms of the sweep; *ms = -1 when it does not fit. */
static tp_status time_sweep(bench *b, const tp_kruskal *model, const tp_mttkrp_options *mo,
                            int reuse, double *ms) {
  sweep_ctx c = {NULL, model, NULL, b->X.order};
  const size_t bytes = b->sf * (size_t)(b->max_dim * model->rank);
  *ms = -1;
  tp_status st =
      tp_mttkrp_sweep_create(b->space, &b->X, model->rank, mo, reuse ? 0 : (size_t)1, &c.sweep);
  if (st == TP_SUCCESS)
    st = tp_alloc(b->space, bytes, &c.G);
  if (st == TP_SUCCESS) {
    const int warmup = b->cfg->warmup > 0 ? b->cfg->warmup : 1;
    st = micro_time(b->space, NULL, sweep_op, &c, warmup, b->cfg->reps, ms);
  }
  if (c.G)
    tp_free(b->space, c.G);
  if (c.sweep)
    tp_mttkrp_sweep_destroy(&c.sweep);
  if (st == TP_ERROR_OUT_OF_MEMORY) {
    *ms = -1;
    tp_clear_error();
    return tp_space_trim(b->space);
  }
  return st;
}

static tp_status bench_cp_als_once(bench *b, int64_t rank, int reuse) {
  const bench_config *cfg = b->cfg;
  tp_cp_als_options o = tp_cp_als_options_default();
  cp_times t = {0, 0, 0};
  tp_cp_als_result res;
  tp_kruskal model;
  memset(&res, 0, sizeof res), memset(&model, 0, sizeof model);
  o.rank = rank, o.tol = 0, o.max_iters = cfg->cp_iters, o.seed = cfg->seed;
  o.line_search = 0; /* the ALS iteration itself, as recorded before the line search */
  o.mttkrp = bench_options(b, cfg->cp_variant_given ? cfg->cp_variant
                              : cfg->variants_given ? cfg->variants[0]
                                                    : TP_MTTKRP_AUTO);
  o.reuse_partials = reuse, o.progress = cp_progress, o.progress_user = &t;
  TP_TRY(tp_kruskal_alloc(b->space, b->X.dtype, b->X.order, b->X.dims, rank, &model));
  TP_TRY(tp_space_trim(b->space));
  tp_space_reset_peak(b->space);
  size_t before = tp_space_bytes_in_use(b->space);
  tp_status st = tp_cp_als(b->space, &b->X, &o, &model, &res);
  double extra = (double)(tp_space_bytes_peak(b->space) - before);
  double sweep_ms = -1;
  if (st == TP_SUCCESS)
    st = time_sweep(b, &model, &o.mttkrp, reuse, &sweep_ms);
  tp_kruskal_free(b->space, &model);
  const char *variant = tp_mttkrp_variant_name(o.mttkrp.variant);
  if (st != TP_SUCCESS) {
    printf("cp-als R = %lld, %s, reuse %s: %s: %s\n", (long long)rank, variant,
           reuse ? "on" : "off", tp_status_name(st), tp_last_error());
    b->failures += st != TP_ERROR_OUT_OF_MEMORY;
    tp_clear_error();
    return tp_space_trim(b->space);
  }
  double per = t.count > 1 ? t.rest / (t.count - 1) : t.first;
  printf("cp-als R = %lld, mttkrp %s, reuse partials %s: %d iterations, %.4f s per iteration "
         "(mean of iterations 2..%d; the first %.4f s), %d passes over the tensor per "
         "iteration, fit %.6f, extra memory %.1f MB, total %.3f s\n",
         (long long)rank, variant, reuse ? "on" : "off", res.iterations, per, t.count, t.first,
         res.passes_per_iteration, res.fit, extra / 1048576.0, res.seconds);
  if (b->json)
    fprintf(b->json,
            "%s\n    {\"rank\": %lld, \"variant\": \"%s\", \"reuse\": %d, "
            "\"iterations\": %d, \"s_per_iteration\": %.6g, \"first_s\": %.6g, "
            "\"passes_per_iteration\": %d, \"fit\": %.10g, \"extra_bytes\": %.0f, "
            "\"mttkrps_s\": %.6g}",
            b->json_rows++ ? "," : "", (long long)rank, variant, reuse, res.iterations, per,
            t.first, res.passes_per_iteration, res.fit, extra, 1e-3 * sweep_ms);
  if (sweep_ms > 0) {
    const double reads_ms = 1e3 * res.passes_per_iteration * b->tensor_bytes / b->mach.tau_m;
    printf("  its MTTKRPs alone (every mode, %d passes): %.4f s; iteration / MTTKRPs %.2f; "
           "the rest (solves, Grams, norms, fit, launches) %.4f s; %d tensor reads at the "
           "copy speed %.4f s, iteration / reads %.2f\n",
           res.passes_per_iteration, 1e-3 * sweep_ms, 1e3 * per / sweep_ms, per - 1e-3 * sweep_ms,
           res.passes_per_iteration, 1e-3 * reads_ms, 1e3 * per / reads_ms);
  }
  fflush(stdout);
  return TP_SUCCESS;
}

static tp_status bench_cp_als(bench *b) {
  const bench_config *cfg = b->cfg;
  if (cfg->cp_iters <= 0)
    return TP_SUCCESS;
  printf("\nCP-ALS: %d iterations (tol 0), seconds per iteration from the progress "
         "callback\n",
         cfg->cp_iters);
  if (b->json)
    fprintf(b->json, "\n  ],\n  \"cp_als\": [");
  b->json_rows = 0;
  for (int i = 0; i < cfg->ncp_ranks; ++i)
    for (int reuse = 1; reuse >= 0; --reuse)
      if (cfg->cp_reuse == 2 || cfg->cp_reuse == reuse)
        TP_TRY(bench_cp_als_once(b, cfg->cp_ranks[i], reuse));
  return TP_SUCCESS;
}

/* ---- setup ------------------------------------------------------------------------ */

static tp_status make_tensor(bench *b) {
  const bench_config *cfg = b->cfg;
  int keep = 0;
  memset(&b->host, 0, sizeof b->host), memset(&b->X, 0, sizeof b->X);
  TP_TRY(tp_dense_alloc(NULL, cfg->dtype, cfg->order, cfg->dims, cfg->layout, &b->host));
  TP_TRY(tp_dense_random_uniform(&b->host, cfg->seed));
  TP_TRY(tp_dense_alloc(b->space, cfg->dtype, cfg->order, cfg->dims, cfg->layout, &b->X));
  TP_TRY(tp_dense_copy_to_device(b->space, &b->X, &b->host));
  TP_TRY(tp_space_fence(b->space));
  b->count = tp_dense_count(&b->X);
  b->sf = tp_dtype_size(cfg->dtype);
  b->tensor_bytes = (double)b->count * (double)b->sf;
  b->max_dim = 0;
  for (int m = 0; m < cfg->order; ++m)
    b->max_dim = cfg->dims[m] > b->max_dim ? cfg->dims[m] : b->max_dim;
  for (int i = 0; i < cfg->nranks; ++i)
    for (int m = 0; m < cfg->order; ++m) {
      double slice = (double)b->count / (double)cfg->dims[m];
      keep |= cfg->check &&
              HOST_CHECK_ROWS * slice * (double)cfg->ranks[i] * cfg->order <= HOST_CHECK_FLOPS;
    }
  if (!keep)
    tp_dense_free(NULL, &b->host);
  return TP_SUCCESS;
}

static tp_status measure_machine(bench *b) {
  micro_config tc = b->cfg->small_ceilings ? micro_config_small() : micro_config_full();
  micro_report rep;
  machine *m = &b->mach;
  tc.warmup = 1, tc.reps = b->cfg->small_ceilings ? 3 : 5;
  TP_TRY(micro_measure_ceilings(b->space, &tc, &rep));
  m->copy_gbps = rep.copy_gbps, m->gemm_gflops = rep.gemm_gflops;
  snprintf(m->gemm_provider, sizeof m->gemm_provider, "%s", rep.gemm_provider);
  if (b->cfg->dtype == TP_DTYPE_F32)
    TP_TRY(micro_fp32_fma_ceiling(b->space, &m->fma_gflops));
  m->tau_m = m->copy_gbps * 1e9;
  m->tau_f = 1e9 * (b->cfg->dtype == TP_DTYPE_F32 ? m->fma_gflops : m->gemm_gflops);
  m->l = b->cfg->lm_ratio > 0 ? b->cfg->lm_ratio : b->info.is_gpu ? 10 : 8;
  printf("ceilings measured in this run: copy %.1f GB/s (bytes read + written), FP64 GEMM "
         "%.1f GFLOP/s (%s, n = %d)",
         m->copy_gbps, m->gemm_gflops, m->gemm_provider, rep.gemm_n);
  if (b->cfg->dtype == TP_DTYPE_F32)
    printf(", FP32 FMA %.1f GFLOP/s", m->fma_gflops);
  printf("\nmodels: tau_m = copy bandwidth, tau_f = %s, l = %g\n",
         b->cfg->dtype == TP_DTYPE_F32 ? "FP32 FMA" : "FP64 GEMM", m->l);
  return TP_SUCCESS;
}

static void print_problem(bench *b) {
  const bench_config *cfg = b->cfg;
  char shape[256];
  int len = 0;
  for (int m = 0; m < cfg->order && len < (int)sizeof shape; ++m)
    len += snprintf(shape + len, sizeof shape - (size_t)len, m ? "x%lld" : "%lld",
                    (long long)cfg->dims[m]);
  printf("tensor %s%s%s %s, layout %s, N = %lld elements (%.3f GB), uniform [0, 1), seed "
         "%llu\n",
         cfg->tensor_name[0] ? cfg->tensor_name : "", cfg->tensor_name[0] ? " = " : "", shape,
         cfg->dtype == TP_DTYPE_F32 ? "f32" : "f64",
         cfg->layout == TP_LAYOUT_LEFT ? "left (first index fastest)"
                                       : "right (last index fastest)",
         (long long)b->count, b->tensor_bytes * 1e-9, (unsigned long long)cfg->seed);
  printf("median of %d after %d warm-up%s; flops: f = N R d (the paper's) and 2 N R, GFLOP = "
         "1e9 flops (the paper divides by 2^30)\n",
         cfg->reps, cfg->warmup,
         cfg->budget_s > 0 ? ", fewer repetitions for calls past the time budget" : "");
  if (b->json) {
    b->json_open = 1;
    fprintf(b->json, "{\n  \"device\": ");
    micro_json_string(b->json, b->info.device_name);
    fprintf(b->json, ",\n  \"backend\": \"%s\",\n  \"shape\": [", b->info.backend);
    for (int m = 0; m < cfg->order; ++m)
      fprintf(b->json, m ? ", %lld" : "%lld", (long long)cfg->dims[m]);
    fprintf(b->json,
            "],\n  \"dtype\": \"%s\", \"layout\": \"%s\",\n  \"copy_gbps\": %.6g, "
            "\"gemm_gflops\": %.6g, \"fma_gflops\": %.6g, \"l\": %g,\n  \"rows\": [",
            cfg->dtype == TP_DTYPE_F32 ? "f32" : "f64",
            cfg->layout == TP_LAYOUT_LEFT ? "left" : "right", b->mach.copy_gbps,
            b->mach.gemm_gflops, b->mach.fma_gflops, b->mach.l);
  }
}

static tp_status run_bench(bench *b) {
  TP_TRY(tp_space_get_info(b->space, &b->info));
  if (b->cfg->memory_limit > 0)
    TP_TRY(tp_space_set_memory_limit(b->space, (size_t)b->cfg->memory_limit));
  printf("tp-bench-mttkrp: %s backend, %s (%d units)\n", b->info.backend, b->info.device_name,
         b->info.compute_units);
  TP_TRY(measure_machine(b));
  TP_TRY(make_tensor(b));
  print_problem(b);
  for (int i = 0; i < b->cfg->nranks; ++i)
    TP_TRY(bench_rank(b, b->cfg->ranks[i]));
  printf("\n%%peak: the flops a variant performs (N R d for ELEM, SLICE and TILE, 2 N R for "
         "GEMM and BLOCKED) per second over tau_f. GB/s: tensor bytes over the time, %%copy "
         "its share of the copy bandwidth.\nextra MB: peak bytes the space held during the "
         "calls minus those in use before (not cuBLAS' own workspace). T_0/T_0LM for the "
         "element-wise variants only. check: largest relative difference, tolerance %s.\n",
         b->sf == sizeof(float) ? "1e-3" : "1e-8");
  return bench_cp_als(b);
}

/* ---- options -------------------------------------------------------------------- */

/* NAME or NAME:MAXRANK, comma separated. */
static int parse_variants(const char *s, bench_config *c) {
  char buf[256];
  if (strlen(s) >= sizeof buf)
    return 0;
  strcpy(buf, s);
  c->nvariants = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    char *colon = strchr(tok, ':'), *end = NULL;
    int64_t max_rank = 0;
    if (colon) {
      *colon = 0;
      max_rank = strtoll(colon + 1, &end, 10);
      if (end == colon + 1 || *end || max_rank < 1)
        return 0;
    }
    if (c->nvariants == MAX_VARIANTS ||
        tp_mttkrp_variant_parse(tok, &c->variants[c->nvariants]) != TP_SUCCESS)
      return 0;
    c->variant_max_rank[c->nvariants++] = max_rank;
  }
  c->variants_given = 1;
  return c->nvariants > 0;
}

static int parse_modes(const char *s, bench_config *c) {
  if (strcmp(s, "all") == 0) {
    c->modes = ~0u;
    return 1;
  }
  c->modes = 0;
  while (*s) {
    char *end;
    long m = strtol(s, &end, 10);
    if (end == s || m < 0 || m >= TP_DENSE_MAX_ORDER || (*end && *end != ','))
      return 0;
    c->modes |= 1u << m;
    s = *end ? end + 1 : end;
  }
  return c->modes != 0;
}

/* BYTES with an optional K, M, G or T suffix (powers of 1024). */
static int parse_bytes(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  const char *units = "KMGT";
  const char *u = *end ? strchr(units, *end) : NULL;
  if (end == s || v <= 0 || (*end && (!u || end[1])))
    return 0;
  *out = u ? v * pow(1024.0, (double)(u - units + 1)) : v;
  return 1;
}

static int set_tensor(const char *name, bench_config *c) {
  static const int64_t a[] = {401, 201, 12, 501}, bb[] = {129, 129, 129, 12, 39};
  int isa = strcmp(name, "A") == 0 || strcmp(name, "a") == 0;
  if (!isa && strcmp(name, "B") != 0 && strcmp(name, "b") != 0)
    return 0;
  c->order = isa ? 4 : 5;
  memcpy(c->dims, isa ? a : bb, sizeof(int64_t) * (size_t)c->order);
  snprintf(c->tensor_name, sizeof c->tensor_name, "%s", isa ? "A" : "B");
  return 1;
}

static void config_defaults(bench_config *c) {
  memset(c, 0, sizeof *c);
  set_tensor("A", c);
  c->ranks[0] = 10, c->ranks[1] = 32, c->ranks[2] = 500, c->ranks[3] = 2000, c->nranks = 4;
  parse_variants("elem,slice,tile,gemm,blocked,auto", c);
  c->variants_given = 0;
  c->modes = ~0u, c->dtype = TP_DTYPE_F64, c->layout = TP_LAYOUT_LEFT;
  c->reps = 5, c->warmup = 1, c->cp_reuse = 1, c->check = 1, c->seed = 2026;
}

static int parse_int(const char *v, int lo, int *out) {
  char *end;
  long n = strtol(v, &end, 10);
  if (end == v || *end || n < lo || n > 1000000000)
    return 0;
  *out = (int)n;
  return 1;
}

static int parse_nonnegative(const char *v, double *out) {
  char *end;
  double d = strtod(v, &end);
  if (end == v || *end || !(d >= 0) || !isfinite(d))
    return 0;
  *out = d;
  return 1;
}

static int parse_u64(const char *v, uint64_t *out) {
  char *end;
  unsigned long long u = strtoull(v, &end, 10);
  if (end == v || *end || *v == '-')
    return 0;
  *out = u;
  return 1;
}

/* v must be one of the n names; *index receives its position. */
static int parse_choice(const char *v, const char *const *names, int n, int *index) {
  for (int i = 0; i < n; ++i)
    if (strcmp(v, names[i]) == 0)
      return *index = i, 1;
  return 0;
}

static int parse_shape(const char *v, bench_config *c) {
  c->tensor_name[0] = 0;
  return micro_parse_i64_list(v, 'x', c->dims, TP_DENSE_MAX_ORDER, &c->order) && c->order >= 2;
}

/* Options with a value; 0 when the value is bad, -1 for an unknown option. */
static int parse_valued(const char *a, const char *v, bench_config *c) {
  static const char *const precisions[] = {"f64", "f32"}, *const layouts[] = {"left", "right"};
  static const char *const reuse[] = {"off", "on", "both"}, *const ceilings[] = {"full", "small"};
  int i = 0, ok;
  uint64_t u = 0;
  if (strcmp(a, "--shape") == 0)
    return parse_shape(v, c);
  if (strcmp(a, "--tensor") == 0)
    return set_tensor(v, c);
  if (strcmp(a, "--ranks") == 0)
    return micro_parse_i64_list(v, ',', c->ranks, MAX_RANKS, &c->nranks);
  if (strcmp(a, "--cp-ranks") == 0)
    return micro_parse_i64_list(v, ',', c->cp_ranks, MAX_RANKS, &c->ncp_ranks);
  if (strcmp(a, "--variants") == 0)
    return parse_variants(v, c);
  if (strcmp(a, "--modes") == 0)
    return parse_modes(v, c);
  if (strcmp(a, "--reps") == 0)
    return parse_int(v, 1, &c->reps);
  if (strcmp(a, "--warmup") == 0)
    return parse_int(v, 0, &c->warmup);
  if (strcmp(a, "--cp-als") == 0)
    return parse_int(v, 0, &c->cp_iters);
  if (strcmp(a, "--budget") == 0)
    return parse_nonnegative(v, &c->budget_s);
  if (strcmp(a, "--lm-ratio") == 0)
    return parse_nonnegative(v, &c->lm_ratio);
  if (strcmp(a, "--workspace-fraction") == 0)
    return parse_nonnegative(v, &c->workspace_fraction);
  if (strcmp(a, "--lanes") == 0)
    return parse_int(v, 0, &c->lanes);
  if (strcmp(a, "--panel") == 0)
    return parse_int(v, 0, &c->panel);
  if (strcmp(a, "--skip-over") == 0)
    return parse_bytes(v, &c->skip_over);
  if (strcmp(a, "--memory-limit") == 0)
    return parse_bytes(v, &c->memory_limit);
  if (strcmp(a, "--cp-variant") == 0)
    return c->cp_variant_given = 1, tp_mttkrp_variant_parse(v, &c->cp_variant) == TP_SUCCESS;
  if (strcmp(a, "--seed") == 0)
    return parse_u64(v, &c->seed);
  if (strcmp(a, "--json") == 0)
    return c->json = v, 1;
  if (strcmp(a, "--tile-volume") == 0) {
    ok = parse_u64(v, &u);
    c->tile_volume = (int64_t)u;
    return ok;
  }
  if (strcmp(a, "--precision") == 0) {
    ok = parse_choice(v, precisions, 2, &i);
    c->dtype = i ? TP_DTYPE_F32 : TP_DTYPE_F64;
    return ok;
  }
  if (strcmp(a, "--layout") == 0) {
    ok = parse_choice(v, layouts, 2, &i);
    c->layout = i ? TP_LAYOUT_RIGHT : TP_LAYOUT_LEFT;
    return ok;
  }
  if (strcmp(a, "--cp-reuse") == 0)
    return parse_choice(v, reuse, 3, &c->cp_reuse);
  if (strcmp(a, "--ceilings") == 0)
    return parse_choice(v, ceilings, 2, &c->small_ceilings);
  return -1;
}

static int parse(int argc, char **argv, bench_config *c) {
  config_defaults(c);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--no-check") == 0) {
      c->check = 0;
      continue;
    }
    int r = v ? parse_valued(a, v, c) : -1;
    if (r < 0) {
      fprintf(stderr, "tp-bench-mttkrp: unknown option or missing value: %s\n", a);
      return 0;
    }
    if (r == 0) {
      fprintf(stderr, "tp-bench-mttkrp: bad value for %s: '%s'\n", a, v);
      return 0;
    }
    ++i;
  }
  if (c->ncp_ranks == 0) {
    memcpy(c->cp_ranks, c->ranks, sizeof c->ranks);
    c->ncp_ranks = c->nranks;
  }
  if (c->order < 32)
    c->modes &= (1u << c->order) - 1;
  if (c->modes == 0)
    fprintf(stderr, "tp-bench-mttkrp: no mode of the tensor in --modes\n");
  return c->modes != 0;
}

static const char *usage =
    "usage: tp-bench-mttkrp [--tensor A|B | --shape 401x201x12x501] [--ranks 10,32,500,2000]\n"
    "         [--variants elem,slice,tile,gemm,blocked,auto] [--modes all|0,2]\n"
    "         (a variant as NAME:R runs for ranks up to R only)\n"
    "         [--precision f64|f32] [--layout left|right] [--reps 5] [--warmup 1]\n"
    "         [--budget SECONDS] [--cp-als ITERS] [--cp-ranks LIST] [--cp-variant V]\n"
    "         [--cp-reuse on|off|both]\n"
    "         [--skip-over BYTES] [--memory-limit BYTES] (BYTES: a number with K, M, G\n"
    "         or T for powers of 1024) [--tile-volume N] [--workspace-fraction F]\n"
    "         [--lanes N] (BLOCKED's concurrent lanes; 0 = automatic)\n"
    "         [--panel COLUMNS] (BLOCKED's rank columns per pass; 0 = automatic)\n"
    "         [--lm-ratio L] [--ceilings full|small] [--no-check] [--seed S] [--json FILE]\n"
    "A = 401x201x12x501, B = 129x129x129x12x39 (the paper's tensors).\n";

int main(int argc, char **argv) {
  bench_config c;
  if (!parse(argc, argv, &c)) {
    fputs(usage, stderr);
    return 2;
  }
  bench b;
  memset(&b, 0, sizeof b);
  b.cfg = &c;
  if (c.json && !(b.json = fopen(c.json, "w"))) {
    fprintf(stderr, "tp-bench-mttkrp: cannot write %s\n", c.json);
    return 1;
  }
  int rc = 0;
  if (tp_space_create(&b.space, NULL) != TP_SUCCESS || run_bench(&b) != TP_SUCCESS) {
    fprintf(stderr, "tp-bench-mttkrp: %s\n", tp_last_error());
    rc = 1;
  }
  if (b.X.data)
    tp_dense_free(b.space, &b.X);
  if (b.host.data)
    tp_dense_free(NULL, &b.host);
  if (b.json) {
    if (b.json_open)
      fprintf(b.json, "\n  ]\n}\n");
    fclose(b.json);
  }
  if (b.space && tp_space_destroy(&b.space) != TP_SUCCESS) {
    fprintf(stderr, "tp-bench-mttkrp: %s\n", tp_last_error());
    rc = 1;
  }
  return rc ? rc : b.failures ? 1 : 0;
}
