/* tp-bench-sparse-mttkrp: times FLYCOO's sparse MTTKRP per mode, with dynamic remapping
 * (the records leave in the next mode's order) and without it (records already in the
 * mode's order), so the difference is the remapping overhead; the atomic COO baseline on
 * the same tensor; and the whole cycle of modes. The tensor comes from the generator (or
 * a file); the copy bandwidth is measured in the same run.
 *
 * Bytes per mode (stated in the output): records read (and written when remapping),
 * nnz * (order - 1) factor rows gathered, and G written.
 *
 * Usage: tp-bench-sparse-mttkrp (--dims I0xI1x.. --nnz N [--skew S] | --input X.tns|.tpb)
 *          [--rank 32] [--precision f32|f64] [--reps 5] [--warmup 1] [--partitions K]
 *          [--no-split] [--no-baseline] [--copies 0|2|ORDER] [--build-reps 3] [--seed S]
 *          [--write FILE] [--json FILE]
 * With one record copy per mode (--copies ORDER, the default for 2 to 5 modes: see
 * tp_flycoo_options.copies) the "remap" column is the pass CP-ALS runs, which then writes
 * no records; --copies 2 measures the paper's dynamic remapping.
 *
 * The build is timed too (median of --build-reps, 3): tp_flycoo_create from the host
 * tensor (checks, narrowing and upload included) and tp_flycoo_create_in_space from its
 * copy in the space, each against the mean time of one mode's MTTKRP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf/micro/micro.h"
#include "tenport/tenport.h"
#include "portable/tp_error.h"

typedef struct config {
  int order;
  int64_t dims[TP_COO_MAX_ORDER], nnz, rank;
  double skew;
  const char *input, *write, *json;
  tp_dtype dtype;
  int reps, warmup, partitions, split, baseline, copies, build_reps;
  uint64_t seed;
} config;

typedef struct bench {
  const config *cfg;
  tp_space *space;
  tp_space_info info;
  tp_coo host, dev;
  tp_flycoo *fly;
  tp_kruskal U;
  void *G, *G_base;
  double copy_gbps;
  tp_flycoo_stats fly_stats; /* record copies, layout, record size */
  FILE *json;
} bench;

typedef struct mode_row {
  int mode;
  double remap_ms, plain_ms, base_ms, gbps, check;
} mode_row;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *what) {
  fprintf(stderr, "tp-bench-sparse-mttkrp: %s: %s\n", what, tp_last_error());
  return 1;
}

/* ---- timed steps ------------------------------------------------------------------- */
typedef struct step {
  bench *b;
  int mode, remap;
} step;

static tp_status put_in_order(void *ctx) {
  step *s = (step *)ctx;
  return tp_flycoo_reorder(s->b->space, s->b->fly, s->mode);
}

static tp_status flycoo_mode(void *ctx) {
  step *s = (step *)ctx;
  return tp_flycoo_mttkrp(s->b->space, s->b->fly, &s->b->U, s->mode, s->b->G, s->remap);
}

static tp_status baseline_mode(void *ctx) {
  step *s = (step *)ctx;
  return tp_coo_mttkrp_atomic(s->b->space, &s->b->dev, &s->b->U, s->mode, s->b->G_base);
}

static tp_status whole_cycle(void *ctx) {
  step *s = (step *)ctx;
  for (int m = 0; m < s->b->cfg->order; ++m) {
    step one = {s->b, m, 1};
    TP_TRY(flycoo_mode(&one));
  }
  return TP_SUCCESS;
}

static tp_status time_step(bench *b, micro_step prepare, micro_step op, step *s, double *ms) {
  return micro_time(b->space, prepare, op, s, b->cfg->warmup, b->cfg->reps, ms);
}

/* ---- checks and figures ------------------------------------------------------------ */
static double max_rel_diff(bench *b, int mode) {
  const int64_t n = b->cfg->dims[mode] * b->cfg->rank;
  const size_t eb = tp_dtype_size(b->cfg->dtype);
  char *g = (char *)malloc(eb * (size_t)n), *h = (char *)malloc(eb * (size_t)n);
  double diff = 0, scale = 0;
  if (g && h && tp_copy_to_host(b->space, g, b->G, eb * (size_t)n) == TP_SUCCESS &&
      tp_copy_to_host(b->space, h, b->G_base, eb * (size_t)n) == TP_SUCCESS) {
    for (int64_t i = 0; i < n; ++i) {
      double x = eb == 4 ? ((float *)g)[i] : ((double *)g)[i];
      double y = eb == 4 ? ((float *)h)[i] : ((double *)h)[i];
      diff = fmax(diff, isnan(x) ? INFINITY : fabs(x - y));
      scale = fmax(scale, fabs(y));
    }
  }
  free(g), free(h);
  return scale > 0 ? diff / scale : diff;
}

static tp_status measure_mode(bench *b, int mode, mode_row *r) {
  memset(r, 0, sizeof *r);
  r->mode = mode;
  step s = {b, mode, 1};
  TP_TRY(time_step(b, put_in_order, flycoo_mode, &s, &r->remap_ms));
  s.remap = 0;
  TP_TRY(time_step(b, put_in_order, flycoo_mode, &s, &r->plain_ms));
  r->gbps = micro_sparse_mode_bytes(&b->fly_stats, b->cfg->rank, tp_dtype_size(b->cfg->dtype),
                                    b->cfg->dims[mode]) /
            (r->remap_ms * 1e6);
  r->base_ms = -1, r->check = -1;
  if (b->cfg->baseline) {
    TP_TRY(time_step(b, NULL, baseline_mode, &s, &r->base_ms));
    r->check = max_rel_diff(b, mode);
  }
  return TP_SUCCESS;
}

static void print_row(const bench *b, const mode_row *r) {
  char base[32] = "-", speed[32] = "-", check[32] = "-";
  if (r->base_ms >= 0) {
    snprintf(base, sizeof base, "%.3f", r->base_ms);
    snprintf(speed, sizeof speed, "%.2fx", r->base_ms / r->remap_ms);
    snprintf(check, sizeof check, "%.1e", r->check);
  }
  printf("%6d %11.3f %11.3f %8.1f%% %9.1f %6.1f%% %11s %8s %9s\n", r->mode, r->remap_ms,
         r->plain_ms, 100.0 * (r->remap_ms - r->plain_ms) / r->plain_ms, r->gbps,
         100.0 * r->gbps / b->copy_gbps, base, speed, check);
}

static void json_row(bench *b, const mode_row *r) {
  if (!b->json)
    return;
  fprintf(b->json,
          "%s\n    {\"mode\": %d, \"remap_ms\": %.6f, \"no_remap_ms\": %.6f, \"gbps\": %.3f, "
          "\"baseline_ms\": %.6f, \"check\": %.3e}",
          r->mode ? "," : "", r->mode, r->remap_ms, r->plain_ms, r->gbps, r->base_ms, r->check);
}

/* ---- setup ------------------------------------------------------------------------- */
static tp_status make_tensor(bench *b) {
  const config *c = b->cfg;
  const double t0 = now_s();
  tp_coo_read_info info = {0};
  int64_t merged = 0;
  if (c->input) {
    TP_TRY(tp_coo_read(c->input, c->dtype, &b->host, &info));
    merged = info.duplicates;
  } else {
    tp_coo_random_options o;
    memset(&o, 0, sizeof o);
    o.dtype = c->dtype, o.order = c->order, o.nnz = c->nnz, o.seed = c->seed;
    o.values = TP_COO_VALUES_UNIFORM;
    for (int m = 0; m < c->order; ++m)
      o.dims[m] = c->dims[m], o.skew[m] = c->skew;
    TP_TRY(tp_coo_random(&o, &b->host, &merged));
  }
  printf("tensor: %d modes, dims", b->host.order);
  for (int m = 0; m < b->host.order; ++m)
    printf("%s%lld", m ? "x" : " ", (long long)b->host.dims[m]);
  printf(", %lld nonzeros (%lld duplicates merged), %s, %s in %.2f s\n", (long long)b->host.nnz,
         (long long)merged, tp_dtype_name(c->dtype), c->input ? c->input : "generated",
         now_s() - t0);
  if (c->write) {
    const double t1 = now_s();
    const size_t n = strlen(c->write);
    TP_TRY(n > 4 && strcmp(c->write + n - 4, ".tpb") == 0 ? tp_coo_write_binary(c->write, &b->host)
                                                          : tp_coo_write_tns(c->write, &b->host));
    printf("written to %s in %.2f s\n", c->write, now_s() - t1);
  }
  return TP_SUCCESS;
}

static tp_status make_flycoo(bench *b) {
  tp_flycoo_options o = tp_flycoo_options_default();
  o.partitions = b->cfg->partitions;
  o.split_rows = b->cfg->split;
  o.copies = b->cfg->copies;
  TP_TRY(tp_flycoo_create(b->space, &b->host, &o, &b->fly));
  tp_flycoo_stats s;
  TP_TRY(tp_flycoo_get_stats(b->fly, &s));
  b->fly_stats = s;
  printf("FLYCOO: kappa = %d partitions, rows %s, %d record copies (%s) of %d-byte records, "
         "built in %.2f s, %.1f MB in the space\n",
         s.partitions, b->cfg->split ? "cut above half a share" : "never cut (the paper's)",
         s.copies, s.remaps ? "dynamic remapping" : "one per mode", s.record_bytes, s.build_seconds,
         s.device_bytes / 1e6);
  const double share = (double)s.nnz / s.partitions;
  for (int m = 0; m < s.order; ++m)
    printf("  mode %d: %lld nonempty rows, %lld pieces, %lld rows cut, fullest partition "
           "%lld nonzeros = %.2f x the average\n",
           m, (long long)s.rows[m], (long long)s.pieces[m], (long long)s.split_rows[m],
           (long long)s.max_partition[m], share > 0 ? s.max_partition[m] / share : 0.0);
  return TP_SUCCESS;
}

static tp_status make_factors(bench *b) {
  const config *c = b->cfg;
  tp_kruskal host;
  TP_TRY(tp_kruskal_alloc(NULL, c->dtype, c->order, c->dims, c->rank, &host));
  tp_status st = tp_kruskal_random(&host, c->seed + 1);
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(b->space, c->dtype, c->order, c->dims, c->rank, &b->U);
  if (st == TP_SUCCESS)
    st = tp_kruskal_copy_to_device(b->space, &b->U, &host);
  tp_kruskal_free(NULL, &host);
  int64_t most = 0;
  for (int m = 0; m < c->order; ++m)
    most = c->dims[m] > most ? c->dims[m] : most;
  const size_t bytes = tp_dtype_size(c->dtype) * (size_t)(most * c->rank);
  if (st == TP_SUCCESS)
    st = tp_alloc(b->space, bytes, &b->G);
  if (st == TP_SUCCESS)
    st = tp_alloc(b->space, bytes, &b->G_base);
  return st;
}

/* ---- the build ---------------------------------------------------------------------- */
typedef struct build_times {
  double host_ms, space_ms; /* medians */
} build_times;

static tp_status time_build(bench *b, int in_space, double *ms) {
  tp_flycoo_options o = tp_flycoo_options_default();
  o.partitions = b->cfg->partitions, o.split_rows = b->cfg->split, o.copies = b->cfg->copies;
  double t[64];
  const int reps = b->cfg->build_reps < 64 ? b->cfg->build_reps : 64;
  for (int r = 0; r < reps; ++r) {
    tp_flycoo *f = NULL;
    TP_TRY(tp_space_fence(b->space));
    const double t0 = now_s();
    TP_TRY(in_space ? tp_flycoo_create_in_space(b->space, &b->dev, &o, &f)
                    : tp_flycoo_create(b->space, &b->host, &o, &f));
    TP_TRY(tp_space_fence(b->space));
    t[r] = 1e3 * (now_s() - t0);
    TP_TRY(tp_flycoo_destroy(&f));
  }
  *ms = micro_median(t, reps);
  return TP_SUCCESS;
}

static tp_status measure_build(bench *b, double mode_ms, build_times *bt) {
  if (!b->dev.values && b->host.nnz > 0)
    TP_TRY(tp_coo_copy_to_device(b->space, &b->dev, &b->host));
  TP_TRY(time_build(b, 0, &bt->host_ms));
  TP_TRY(time_build(b, 1, &bt->space_ms));
  printf("build (median of %d): tp_flycoo_create %.1f ms from the host tensor (%.1f x one "
         "mode), tp_flycoo_create_in_space %.1f ms from its copy in the space (%.1f x one "
         "mode of %.3f ms)\n",
         b->cfg->build_reps, bt->host_ms, bt->host_ms / mode_ms, bt->space_ms,
         bt->space_ms / mode_ms, mode_ms);
  return TP_SUCCESS;
}

static tp_status run(bench *b) {
  config *c = (config *)b->cfg;
  TP_TRY(tp_space_get_info(b->space, &b->info));
  printf("tp-bench-sparse-mttkrp: %s backend, %s (%d units)\n", b->info.backend,
         b->info.device_name, b->info.compute_units);
  micro_config tc = micro_config_small();
  tc.warmup = 1, tc.reps = 3;
  micro_report rep;
  TP_TRY(micro_measure_ceilings(b->space, &tc, &rep));
  b->copy_gbps = rep.copy_gbps;
  printf("copy bandwidth measured in this run: %.1f GB/s (bytes read + written)\n", b->copy_gbps);
  TP_TRY(make_tensor(b));
  c->order = b->host.order, c->nnz = b->host.nnz;
  memcpy(c->dims, b->host.dims, sizeof c->dims);
  TP_TRY(make_flycoo(b));
  TP_TRY(make_factors(b));
  if (c->baseline)
    TP_TRY(tp_coo_copy_to_device(b->space, &b->dev, &b->host));
  printf("R = %lld, median of %d after %d warm-up; bytes = records read (+ written with "
         "remap) + nnz (d-1) R gathered factor values + G (every gather counted as a memory "
         "read: the L2 serves part of them, so DRAM moves fewer)\n",
         (long long)c->rank, c->reps, c->warmup);
  printf("%6s %11s %11s %9s %9s %7s %11s %8s %9s\n", "mode", "remap ms", "no-remap ms", "overhead",
         "GB/s", "%copy", "atomic ms", "speedup", "check");
  if (b->json)
    fprintf(b->json,
            "{\"backend\": \"%s\", \"device\": \"%s\", \"copy_gbps\": %.3f, "
            "\"nnz\": %lld, \"rank\": %lld, \"precision\": \"%s\", \"copies\": %d, "
            "\"remaps\": %d, \"record_bytes\": %d, \"modes\": [",
            b->info.backend, b->info.device_name, b->copy_gbps, (long long)c->nnz,
            (long long)c->rank, tp_dtype_name(c->dtype), b->fly_stats.copies, b->fly_stats.remaps,
            b->fly_stats.record_bytes);
  double sum = 0, sum_plain = 0, sum_base = 0;
  for (int m = 0; m < c->order; ++m) {
    mode_row r;
    TP_TRY(measure_mode(b, m, &r));
    print_row(b, &r);
    json_row(b, &r);
    sum += r.remap_ms, sum_plain += r.plain_ms, sum_base += r.base_ms;
  }
  step s = {b, 0, 1};
  double cycle = 0;
  TP_TRY(tp_flycoo_reorder(b->space, b->fly, 0));
  TP_TRY(time_step(b, NULL, whole_cycle, &s, &cycle));
  printf("all modes: %.3f ms as one cycle with remapping (sum of the modes %.3f ms; "
         "without remapping %.3f ms, overhead %.1f%%)",
         cycle, sum, sum_plain, 100.0 * (sum - sum_plain) / sum_plain);
  if (c->baseline)
    printf("; atomic baseline %.3f ms, %.2fx", sum_base, sum_base / cycle);
  printf("\n");
  build_times bt = {-1, -1};
  if (c->build_reps > 0)
    TP_TRY(measure_build(b, sum / c->order, &bt));
  if (b->json)
    fprintf(b->json,
            "\n  ], \"cycle_ms\": %.6f, \"sum_remap_ms\": %.6f, \"sum_no_remap_ms\": "
            "%.6f, \"sum_baseline_ms\": %.6f, \"build_host_ms\": %.6f, \"build_space_ms\": "
            "%.6f}\n",
            cycle, sum, sum_plain, sum_base, bt.host_ms, bt.space_ms);
  return TP_SUCCESS;
}

/* ---- command line ------------------------------------------------------------------ */
static int parse_arg(const char *a, const char *v, config *c) {
  if (!strcmp(a, "--dims"))
    return micro_parse_i64_list(v, 'x', c->dims, TP_COO_MAX_ORDER, &c->order) && c->order >= 2;
  if (!strcmp(a, "--nnz"))
    return (c->nnz = atoll(v)) > 0;
  if (!strcmp(a, "--skew"))
    return (c->skew = atof(v)) > 0;
  if (!strcmp(a, "--rank"))
    return (c->rank = atoll(v)) > 0;
  if (!strcmp(a, "--reps"))
    return (c->reps = atoi(v)) > 0;
  if (!strcmp(a, "--warmup"))
    return (c->warmup = atoi(v)) >= 0;
  if (!strcmp(a, "--partitions"))
    return (c->partitions = atoi(v)) >= 0;
  if (!strcmp(a, "--copies"))
    return (c->copies = atoi(v)) >= 0;
  if (!strcmp(a, "--build-reps"))
    return (c->build_reps = atoi(v)) >= 0;
  if (!strcmp(a, "--seed"))
    return (c->seed = strtoull(v, NULL, 10)), 1;
  if (!strcmp(a, "--input"))
    return (c->input = v) != NULL;
  if (!strcmp(a, "--write"))
    return (c->write = v) != NULL;
  if (!strcmp(a, "--json"))
    return (c->json = v) != NULL;
  if (!strcmp(a, "--precision") && (!strcmp(v, "f32") || !strcmp(v, "f64")))
    return (c->dtype = !strcmp(v, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64), 1;
  return 0;
}

static const char *usage =
    "usage: tp-bench-sparse-mttkrp (--dims I0xI1x.. --nnz N [--skew S] | --input FILE)\n"
    "         [--rank 32] [--precision f32|f64] [--reps 5] [--warmup 1] [--partitions K]\n"
    "         [--no-split] [--no-baseline] [--copies 0|2|ORDER] [--build-reps 3] [--seed S]\n"
    "         [--write FILE.tns|.tpb] [--json FILE]\n";

int main(int argc, char **argv) {
  config c;
  memset(&c, 0, sizeof c);
  c.skew = 1, c.rank = 32, c.dtype = TP_DTYPE_F32, c.reps = 5, c.warmup = 1, c.split = 1;
  c.baseline = 1, c.seed = 2026, c.build_reps = 3;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--no-split")) {
      c.split = 0;
    } else if (!strcmp(argv[i], "--no-baseline")) {
      c.baseline = 0;
    } else if (i + 1 >= argc || !parse_arg(argv[i], argv[i + 1], &c)) {
      fprintf(stderr, "tp-bench-sparse-mttkrp: bad or incomplete option %s\n%s", argv[i], usage);
      return 2;
    } else {
      ++i;
    }
  }
  if (!c.input && (c.order < 2 || c.nnz <= 0)) {
    fprintf(stderr, "%s", usage);
    return 2;
  }
  bench b;
  memset(&b, 0, sizeof b);
  b.cfg = &c;
  if (c.json && !(b.json = fopen(c.json, "w"))) {
    fprintf(stderr, "tp-bench-sparse-mttkrp: cannot write %s\n", c.json);
    return 1;
  }
  int rc = 0;
  if (tp_space_create(&b.space, NULL) != TP_SUCCESS)
    rc = fail("space");
  else if (run(&b) != TP_SUCCESS)
    rc = fail("benchmark");
  if (b.json)
    fclose(b.json);
  if (b.space) {
    tp_flycoo_destroy(&b.fly);
    tp_kruskal_free(b.space, &b.U);
    tp_coo_free(b.space, &b.dev);
    tp_free(b.space, b.G), tp_free(b.space, b.G_base);
    tp_space_destroy(&b.space);
  }
  tp_coo_free(NULL, &b.host);
  return rc;
}
