/* tp-bench-sttid: times exact (or truncated) STTID decompositions of the test
 * tensors, or of a file, with the per-phase breakdown (reshape, PRRLU, extraction) per
 * bond, next to the STTID authors' published times and to the machine's floor for this
 * work: one pivot step is three launches, so the floor is pivots x 3 x the launch cost
 * measured in the same run (a back-to-back stream of tiny operations), plus the host
 * round trips the loop does take (once per batch of steps).
 *
 * Times are wall-clock medians after warm-up runs (the decomposition is a host-driven
 * loop that waits for the device once per batch).
 *
 * Usage: tp-bench-sttid [--case rnd5|rnd6|kg|all] [--input X.tns|.tpb] [--rmax R]
 *          [--eps E] [--eps-relative] [--reps 5] [--warmup 1] [--seed S] [--no-error]
 *          [--json FILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/micro/micro.h"
#include "tenport/tenport.h"

typedef struct test_case {
  const char *name;
  tp_sttid_random_kind kind;
  int order;
  int64_t dims[5];
  int64_t nnz;
  double paper_gpu_s, paper_cpu_s; /* the authors: H200, and one thread of a 2-core CPU */
} test_case;

static const test_case cases[] = {
    {"rnd5", TP_STTID_RANDOM_POWER_LAW, 4, {100, 100, 100, 100}, 12729, 3.4, 2.7},
    {"rnd6", TP_STTID_RANDOM_POWER_LAW, 5, {50, 50, 50, 50, 50}, 27843, 3.2, 4.9},
    {"kg", TP_STTID_RANDOM_KNOWLEDGE, 4, {66, 12270, 12270, 12270}, 25820, 6.0, 43.0},
};

typedef struct config {
  const char *only, *input, *json;
  tp_sttid_options opt;
  int reps, warmup, error;
  uint64_t seed;
} config;

static int fail(const char *what) {
  fprintf(stderr, "tp-bench-sttid: %s: %s\n", what, tp_last_error());
  return 1;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct run_times {
  double total, reshape, prrlu, extract;
} run_times;

static run_times sum_phases(const tp_sttid_info *info) {
  run_times r;
  memset(&r, 0, sizeof r);
  r.total = info->seconds_total;
  for (int b = 0; b < info->bonds; ++b) {
    r.reshape += info->bond[b].seconds_reshape;
    r.prrlu += info->bond[b].seconds_prrlu;
    r.extract += info->bond[b].seconds_extract;
  }
  return r;
}

static void print_bonds(const tp_sttid_info *info, const tp_sttid_options *opt) {
  printf("  %-4s %22s %9s %7s %-10s %10s %10s %8s %6s %9s %9s %9s\n", "bond", "matrix", "nnz",
         "rank", "stop", "|pivot1|", "|pivot_r|", "fill", "syncs", "reshape", "prrlu", "extract");
  for (int b = 0; b < info->bonds; ++b) {
    const tp_sttid_bond *x = &info->bond[b];
    char shape[48];
    snprintf(shape, sizeof shape, "%lldx%lld", (long long)x->rows, (long long)x->cols);
    printf("  %-4d %22s %9lld %7lld %-10s %10.3e %10.3e %8lld %6lld %8.2fms %8.2fms %8.2fms\n", b,
           shape, (long long)x->nnz, (long long)x->rank, tp_prrlu_stop_name(x->stop),
           x->first_pivot, x->last_pivot, (long long)x->fill, (long long)x->host_syncs,
           1e3 * x->seconds_reshape, 1e3 * x->seconds_prrlu, 1e3 * x->seconds_extract);
  }
  printf("  threshold: eps %g, %s\n", opt->eps,
         opt->eps_relative ? "relative to each bond's first pivot" : "absolute");
}

static int64_t total_pivots(const tp_sttid_info *info, int64_t *syncs) {
  int64_t p = 0;
  *syncs = 0;
  for (int b = 0; b < info->bonds; ++b)
    p += info->bond[b].rank, *syncs += info->bond[b].host_syncs;
  return p;
}

/* Warm-up and timed runs; *best_info gets the run of median total time. */
static int time_runs(tp_space *space, const tp_coo *t, const config *cfg, run_times *median,
                     tp_sttid_info *median_info, tp_tci *kept) {
  int reps = cfg->reps > 0 ? cfg->reps : 1;
  run_times *r = (run_times *)calloc((size_t)reps, sizeof *r);
  tp_sttid_info *infos = (tp_sttid_info *)calloc((size_t)reps, sizeof *infos);
  double *totals = (double *)calloc((size_t)reps, sizeof *totals);
  if (!r || !infos || !totals)
    return fprintf(stderr, "tp-bench-sttid: out of host memory\n"), 1;
  for (int k = 0; k < cfg->warmup + reps; ++k) {
    tp_tci tci;
    tp_sttid_info info;
    if (tp_sttid(space, t, &cfg->opt, &tci, &info))
      return fail("tp_sttid");
    if (k >= cfg->warmup) {
      infos[k - cfg->warmup] = info;
      r[k - cfg->warmup] = sum_phases(&info);
      totals[k - cfg->warmup] = info.seconds_total;
    }
    if (k + 1 == cfg->warmup + reps)
      *kept = tci;
    else
      tp_tci_free(&tci);
  }
  qsort(totals, (size_t)reps, sizeof *totals, compare_doubles);
  for (int k = 0; k < reps; ++k)
    if (r[k].total == totals[reps / 2])
      *median = r[k], *median_info = infos[k];
  free(r), free(infos), free(totals);
  return 0;
}

static int run_case(tp_space *space, const tp_space_info *si, const char *name, const tp_coo *t,
                    double paper_gpu, double paper_cpu, const config *cfg,
                    const micro_launch_costs *fl, FILE *json, int *first_json) {
  run_times med;
  tp_sttid_info info;
  tp_tci tci;
  memset(&med, 0, sizeof med), memset(&info, 0, sizeof info), memset(&tci, 0, sizeof tci);
  if (time_runs(space, t, cfg, &med, &info, &tci))
    return 1;
  int64_t syncs, pivots = total_pivots(&info, &syncs);
  double avg_density;
  if (tp_tci_density(&tci, NULL, &avg_density))
    return fail("tp_tci_density");
  tp_tci_error_info err;
  memset(&err, 0, sizeof err);
  err.relative_error = -1;
  if (cfg->error && tp_tci_error(&tci, t, &err))
    return fail("tp_tci_error");
  double floor_s = 1e-6 * ((double)pivots * 3 * fl->launch_us + (double)syncs * fl->round_trip_us);
  printf("\n%s: order %d, nnz %lld, ranks (", name, t->order, (long long)t->nnz);
  for (int k = 0; k <= tci.order; ++k)
    printf("%s%lld", k ? ", " : "", (long long)tci.ranks[k]);
  printf("), %lld pivots, average core density %.3e\n", (long long)pivots, avg_density);
  print_bonds(&info, &cfg->opt);
  printf("  median of %d: total %.4f s = reshape %.4f + prrlu %.4f + extract %.4f (+ rest)\n",
         cfg->reps, med.total, med.reshape, med.prrlu, med.extract);
  printf("  floor: %lld pivots x 3 launches x %.2f us + %lld syncs x %.2f us = %.4f s "
         "(measured / floor = %.2f)\n",
         (long long)pivots, fl->launch_us, (long long)syncs, fl->round_trip_us, floor_s,
         floor_s > 0 ? med.total / floor_s : 0);
  if (paper_gpu > 0)
    printf("  the authors' times: %.1f s (H200), %.1f s (one thread, 2-core CPU): "
           "tenport is %.1fx / %.1fx faster\n",
           paper_gpu, paper_cpu, paper_gpu / med.total, paper_cpu / med.total);
  if (cfg->error)
    printf("  relative error %.3e%s (computed in %.3f s without densifying)\n", err.relative_error,
           err.at_floor ? " (at the formula's floor)" : "", err.seconds);
  if (json) {
    fprintf(json,
            "%s    {\"case\": \"%s\", \"backend\": \"%s\", \"device\": \"%s\", "
            "\"order\": %d, \"nnz\": %lld, \"pivots\": %lld, \"seconds\": %.6f, "
            "\"reshape\": %.6f, \"prrlu\": %.6f, \"extract\": %.6f, \"floor\": %.6f, "
            "\"relative_error\": %.6e, \"density\": %.6e, \"paper_gpu\": %.2f, "
            "\"paper_cpu\": %.2f}",
            *first_json ? "" : ",\n", name, si->backend, si->device_name, t->order,
            (long long)t->nnz, (long long)pivots, med.total, med.reshape, med.prrlu, med.extract,
            floor_s, err.relative_error, avg_density, paper_gpu, paper_cpu);
    *first_json = 0;
  }
  tp_tci_free(&tci);
  return 0;
}

static int parse(int argc, char **argv, config *c) {
  memset(c, 0, sizeof *c);
  c->opt.rmax = (int64_t)1 << 40, c->opt.eps = 1e-12, c->opt.eps_relative = 1;
  c->reps = 5, c->warmup = 1, c->error = 1, c->seed = 1, c->only = "all";
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--eps-relative")) {
      c->opt.eps_relative = 1;
      continue;
    }
    if (!strcmp(a, "--eps-absolute")) {
      c->opt.eps_relative = 0;
      continue;
    }
    if (!strcmp(a, "--no-error")) {
      c->error = 0;
      continue;
    }
    if (!v)
      return fprintf(stderr, "tp-bench-sttid: %s needs a value\n", a), 1;
    ++i;
    if (!strcmp(a, "--case"))
      c->only = v;
    else if (!strcmp(a, "--input"))
      c->input = v;
    else if (!strcmp(a, "--json"))
      c->json = v;
    else if (!strcmp(a, "--rmax"))
      c->opt.rmax = atoll(v);
    else if (!strcmp(a, "--eps"))
      c->opt.eps = atof(v);
    else if (!strcmp(a, "--reps"))
      c->reps = atoi(v);
    else if (!strcmp(a, "--warmup"))
      c->warmup = atoi(v);
    else if (!strcmp(a, "--seed"))
      c->seed = strtoull(v, NULL, 10);
    else
      return fprintf(stderr, "tp-bench-sttid: unknown option %s\n", a), 1;
  }
  if (c->reps < 1 || c->warmup < 0 || c->opt.rmax < 1)
    return fprintf(stderr, "tp-bench-sttid: --reps >= 1, --warmup >= 0, --rmax >= 1\n"), 1;
  return 0;
}

int main(int argc, char **argv) {
  config cfg;
  if (parse(argc, argv, &cfg))
    return 2;
  tp_space *space;
  tp_space_info si;
  micro_launch_costs fl;
  if (tp_space_create(&space, NULL) || tp_space_get_info(space, &si))
    return fail("space");
  if (micro_measure_launch_costs(space, &fl))
    return fail("launch floor");
  printf("tp-bench-sttid: %s on %s (%d compute units); launch %.2f us, round trip %.2f us\n",
         si.backend, si.device_name, si.compute_units, fl.launch_us, fl.round_trip_us);
  FILE *json = cfg.json ? fopen(cfg.json, "w") : NULL;
  if (cfg.json && !json)
    return fprintf(stderr, "tp-bench-sttid: cannot write %s\n", cfg.json), 1;
  if (json)
    fprintf(json,
            "{\"benchmark\": \"sttid\", \"launch_us\": %.3f, \"round_trip_us\": %.3f, "
            "\"results\": [\n",
            fl.launch_us, fl.round_trip_us);
  int first = 1, rc = 0;
  if (cfg.input) {
    tp_coo t;
    if (tp_coo_read(cfg.input, TP_DTYPE_F64, &t, NULL))
      return fail(cfg.input);
    rc = run_case(space, &si, cfg.input, &t, 0, 0, &cfg, &fl, json, &first);
    tp_coo_free(NULL, &t);
  }
  for (size_t k = 0; !cfg.input && !rc && k < sizeof cases / sizeof cases[0]; ++k) {
    const test_case *c = &cases[k];
    if (strcmp(cfg.only, "all") && strcmp(cfg.only, c->name))
      continue;
    tp_coo t;
    if (tp_sttid_random(c->kind, c->order, c->dims, c->nnz, 2.0, cfg.seed, &t))
      return fail("tp_sttid_random");
    rc = run_case(space, &si, c->name, &t, c->paper_gpu_s, c->paper_cpu_s, &cfg, &fl, json, &first);
    tp_coo_free(NULL, &t);
  }
  if (json)
    fprintf(json, "\n]}\n"), fclose(json);
  tp_space_destroy(&space);
  return rc;
}
