/* Micro-benchmarks: median of timed repetitions after warm-up, timed with the space's
 * events, on data generated in the space. */
#include "perf/micro/micro.h"

#include <stdlib.h>
#include <string.h>

#include "perf/micro/bench_data.h"
#include "perf/peers/peer.h"
#include "portable/tp_error.h"

micro_config micro_config_full(void) {
  micro_config c = {30, 28, 28, 27, 26, 8192, 2048, 3, 10, NULL};
  return c;
}

micro_config micro_config_small(void) {
  micro_config c = {24, 22, 22, 20, 20, 4096, 768, 1, 5, NULL};
  return c;
}

/* ---- timing ---------------------------------------------------------------- */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : (x > y);
}

double micro_median(double *values, int n) {
  qsort(values, (size_t)n, sizeof *values, cmp_double);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* Median milliseconds of `reps` runs of op after `warmup` runs; prepare (may be NULL)
 * runs before each, outside the timing. */
tp_status micro_time(tp_space *space, micro_step prepare, micro_step op, void *ctx, int warmup,
                     int reps, double *median_ms) {
  tp_timer *timer = NULL;
  TP_TRY(tp_timer_create(space, &timer));
  double *times = (double *)calloc((size_t)reps, sizeof *times);
  tp_status st = times ? TP_SUCCESS : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for timings");
  for (int r = 0; st == TP_SUCCESS && r < warmup + reps; ++r) {
    if (prepare)
      st = prepare(ctx);
    if (st == TP_SUCCESS)
      st = tp_timer_start(timer);
    if (st == TP_SUCCESS)
      st = op(ctx);
    double ms = 0;
    if (st == TP_SUCCESS)
      st = tp_timer_stop(timer, &ms);
    if (r >= warmup)
      times[r - warmup] = ms;
  }
  if (st == TP_SUCCESS) {
    *median_ms = micro_median(times, reps);
  }
  free(times);
  tp_timer_destroy(&timer);
  return st;
}

static tp_status micro_peer_status(int rc, const char *what) {
  if (rc == 0)
    return TP_SUCCESS;
  return TP_ERROR(TP_ERROR_DEVICE, "peer %s failed: %s", what, tp_peer_last_error());
}

static int micro_have_peer(void) { return strcmp(tp_peer_name(), "none") != 0; }

static micro_result *micro_add(micro_report *rep, const char *name, int64_t n, double bytes,
                               double items) {
  micro_result *r = &rep->results[rep->count++];
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", name);
  r->n = n;
  r->bytes = bytes;
  r->items = items;
  r->peer_ms = -1;
  return r;
}

/* ---- copy ------------------------------------------------------------------- */
typedef struct copy_ctx {
  tp_space *space;
  void *dst, *src;
  size_t bytes;
} copy_ctx;

static tp_status copy_op(void *c) {
  copy_ctx *x = (copy_ctx *)c;
  return tp_copy_on_device(x->space, x->dst, x->src, x->bytes);
}

static tp_status micro_copy(tp_space *s, const micro_config *cfg, micro_report *rep) {
  copy_ctx c = {s, NULL, NULL, (size_t)1 << cfg->log2_copy_bytes};
  tp_status st;
  TP_TRY_GOTO(st, tp_alloc(s, c.bytes, &c.src), done);
  TP_TRY_GOTO(st, tp_alloc(s, c.bytes, &c.dst), done);
  TP_TRY_GOTO(st, micro_random_u64(s, (uint64_t *)c.src, (int64_t)(c.bytes / 8), 1), done);
  micro_result *r =
      micro_add(rep, "copy", (int64_t)(c.bytes / 8), 2.0 * (double)c.bytes, (double)c.bytes / 8);
  TP_TRY_GOTO(st, micro_time(s, NULL, copy_op, &c, cfg->warmup, cfg->reps, &r->ms), done);
  int64_t nbad = -1;
  TP_TRY_GOTO(st,
              micro_count_mismatches_u64(s, (uint64_t *)c.src, (uint64_t *)c.dst,
                                         (int64_t)(c.bytes / 8), &nbad),
              done);
  r->verified = nbad == 0;
  rep->copy_gbps = r->bytes / (r->ms * 1e6);
done:
  tp_free(s, c.src);
  tp_free(s, c.dst);
  return st;
}

/* ---- reduce ----------------------------------------------------------------- */
typedef struct reduce_ctx {
  tp_space *space;
  double *x, *out;
  int64_t n;
} reduce_ctx;

static tp_status reduce_op(void *c) {
  reduce_ctx *x = (reduce_ctx *)c;
  return tp_reduce_sum_f64(x->space, x->x, x->n, x->out);
}

static tp_status micro_reduce(tp_space *s, const micro_config *cfg, micro_report *rep) {
  reduce_ctx c = {s, NULL, NULL, (int64_t)1 << cfg->log2_reduce};
  tp_status st;
  TP_TRY_GOTO(st, tp_alloc(s, sizeof(double) * (size_t)c.n, (void **)&c.x), done);
  TP_TRY_GOTO(st, tp_alloc(s, 2 * sizeof(double), (void **)&c.out), done);
  TP_TRY_GOTO(st, micro_random_f64(s, c.x, c.n, 2), done);
  micro_result *r = micro_add(rep, "reduce sum f64", c.n, 8.0 * (double)c.n, (double)c.n);
  TP_TRY_GOTO(st, micro_time(s, NULL, reduce_op, &c, cfg->warmup, cfg->reps, &r->ms), done);
  double sums[2] = {0, 0};
  r->verified = 1;
  if (micro_have_peer()) {
    TP_TRY_GOTO(st,
                micro_peer_status(tp_peer_reduce_sum_f64(tp_space_stream(s), c.x, c.n, c.out + 1,
                                                         cfg->warmup, cfg->reps, &r->peer_ms),
                                  "reduce"),
                done);
    TP_TRY_GOTO(st, tp_copy_to_host(s, sums, c.out, sizeof sums), done);
    /* different summation orders: agree to rounding */
    double diff = sums[0] - sums[1], scale = 1e-12 * (double)c.n;
    r->verified = diff <= scale && -diff <= scale;
  }
done:
  tp_free(s, c.x);
  tp_free(s, c.out);
  return st;
}

/* ---- scan ------------------------------------------------------------------- */
typedef struct scan_ctx {
  tp_space *space;
  int32_t *in, *out;
  int64_t n;
} scan_ctx;

static tp_status scan_op(void *c) {
  scan_ctx *x = (scan_ctx *)c;
  return tp_exclusive_scan_i32(x->space, x->in, x->out, x->n, NULL);
}

static tp_status micro_scan(tp_space *s, const micro_config *cfg, micro_report *rep) {
  scan_ctx c = {s, NULL, NULL, (int64_t)1 << cfg->log2_scan};
  int32_t *peer_out = NULL;
  int64_t nbad = -1;
  tp_status st;
  TP_TRY_GOTO(st, tp_alloc(s, sizeof(int32_t) * (size_t)c.n, (void **)&c.in), done);
  TP_TRY_GOTO(st, tp_alloc(s, sizeof(int32_t) * (size_t)c.n, (void **)&c.out), done);
  TP_TRY_GOTO(st, micro_random_i32(s, c.in, c.n, 3, 0, 3), done); /* sums stay below 2^31 */
  micro_result *r = micro_add(rep, "exclusive scan i32", c.n, 8.0 * (double)c.n, (double)c.n);
  TP_TRY_GOTO(st, micro_time(s, NULL, scan_op, &c, cfg->warmup, cfg->reps, &r->ms), done);
  r->verified = 1;
  if (micro_have_peer()) {
    TP_TRY_GOTO(st, tp_alloc(s, sizeof(int32_t) * (size_t)c.n, (void **)&peer_out), done);
    TP_TRY_GOTO(
        st,
        micro_peer_status(tp_peer_exclusive_scan_i32(tp_space_stream(s), c.in, peer_out, c.n,
                                                     cfg->warmup, cfg->reps, &r->peer_ms),
                          "scan"),
        done);
    /* compare as 64-bit words: the count of differing pairs of int32 */
    TP_TRY_GOTO(st,
                micro_count_mismatches_u64(s, (const uint64_t *)c.out, (const uint64_t *)peer_out,
                                           c.n / 2, &nbad),
                done);
    r->verified = nbad == 0;
  }
done:
  tp_free(s, c.in);
  tp_free(s, c.out);
  tp_free(s, peer_out);
  return st;
}

/* ---- sort ------------------------------------------------------------------- */
typedef struct sort_ctx {
  tp_space *space;
  uint64_t *keys, *keys0;
  uint32_t *vals, *vals0;
  int64_t n;
} sort_ctx;

static tp_status sort_restore(void *c) {
  sort_ctx *x = (sort_ctx *)c;
  TP_TRY(tp_copy_on_device(x->space, x->keys, x->keys0, sizeof(uint64_t) * (size_t)x->n));
  return tp_copy_on_device(x->space, x->vals, x->vals0, sizeof(uint32_t) * (size_t)x->n);
}

static tp_status sort_op(void *c) {
  sort_ctx *x = (sort_ctx *)c;
  return tp_sort_pairs_u64_u32(x->space, x->keys, x->vals, x->n, 0, 64);
}

static tp_status micro_sort(tp_space *s, const micro_config *cfg, micro_report *rep) {
  sort_ctx c = {s, NULL, NULL, NULL, NULL, (int64_t)1 << cfg->log2_sort};
  size_t kb = sizeof(uint64_t) * (size_t)c.n, vb = sizeof(uint32_t) * (size_t)c.n;
  uint64_t *pk = NULL;
  uint32_t *pv = NULL;
  int64_t descents = -1, differences = 0;
  tp_status st;
  TP_TRY_GOTO(st, tp_alloc(s, kb, (void **)&c.keys), done);
  TP_TRY_GOTO(st, tp_alloc(s, kb, (void **)&c.keys0), done);
  TP_TRY_GOTO(st, tp_alloc(s, vb, (void **)&c.vals), done);
  TP_TRY_GOTO(st, tp_alloc(s, vb, (void **)&c.vals0), done);
  TP_TRY_GOTO(st, micro_random_u64(s, c.keys0, c.n, 4), done);
  TP_TRY_GOTO(st, micro_iota_u32(s, c.vals0, c.n), done);
  /* a sort pass reads and writes keys and values: report the bytes of one pass */
  micro_result *r = micro_add(rep, "sort pairs u64+u32", c.n, 24.0 * (double)c.n, (double)c.n);
  TP_TRY_GOTO(st, micro_time(s, sort_restore, sort_op, &c, cfg->warmup, cfg->reps, &r->ms), done);
  TP_TRY_GOTO(st, micro_count_descents_u64(s, c.keys, c.n, &descents), done);
  if (micro_have_peer()) {
    TP_TRY_GOTO(st, tp_alloc(s, kb, (void **)&pk), done);
    TP_TRY_GOTO(st, tp_alloc(s, vb, (void **)&pv), done);
    TP_TRY_GOTO(st, tp_copy_on_device(s, pk, c.keys0, kb), done);
    TP_TRY_GOTO(st, tp_copy_on_device(s, pv, c.vals0, vb), done);
    TP_TRY_GOTO(st, tp_space_fence(s), done);
    TP_TRY_GOTO(st,
                micro_peer_status(tp_peer_sort_pairs_u64_u32(tp_space_stream(s), pk, pv, c.n,
                                                             cfg->warmup, cfg->reps, &r->peer_ms),
                                  "sort"),
                done);
    TP_TRY_GOTO(st, micro_count_mismatches_u64(s, c.keys, pk, c.n, &differences), done);
  }
  r->verified = descents == 0 && differences == 0;
done:
  tp_free(s, c.keys), tp_free(s, c.keys0), tp_free(s, c.vals), tp_free(s, c.vals0);
  tp_free(s, pk), tp_free(s, pv);
  return st;
}

/* ---- hash map --------------------------------------------------------------- */
typedef struct hash_ctx {
  tp_hashmap *map;
  uint64_t *keys, *values;
  int64_t n;
} hash_ctx;

static tp_status hash_clear(void *c) { return tp_hashmap_clear(((hash_ctx *)c)->map); }

static tp_status hash_insert(void *c) {
  hash_ctx *x = (hash_ctx *)c;
  return tp_hashmap_insert(x->map, x->keys, x->keys, x->n, NULL);
}

static tp_status hash_find(void *c) {
  hash_ctx *x = (hash_ctx *)c;
  return tp_hashmap_find(x->map, x->keys, x->n, x->values, TP_HASHMAP_EMPTY_KEY);
}

static tp_status micro_hash(tp_space *s, const micro_config *cfg, micro_report *rep) {
  hash_ctx c = {NULL, NULL, NULL, (int64_t)1 << cfg->log2_hash};
  int64_t nbad = -1;
  tp_status st;
  TP_TRY_GOTO(st, tp_hashmap_create(s, 2 * c.n, &c.map), done);
  TP_TRY_GOTO(st, tp_alloc(s, sizeof(uint64_t) * (size_t)c.n, (void **)&c.keys), done);
  TP_TRY_GOTO(st, tp_alloc(s, sizeof(uint64_t) * (size_t)c.n, (void **)&c.values), done);
  TP_TRY_GOTO(st, micro_random_u64(s, c.keys, c.n, 5), done);
  micro_result *ri = micro_add(rep, "hash insert (load 0.5)", c.n, 0, (double)c.n);
  TP_TRY_GOTO(st, micro_time(s, hash_clear, hash_insert, &c, cfg->warmup, cfg->reps, &ri->ms),
              done);
  micro_result *rf = micro_add(rep, "hash find (load 0.5)", c.n, 0, (double)c.n);
  TP_TRY_GOTO(st, micro_time(s, NULL, hash_find, &c, cfg->warmup, cfg->reps, &rf->ms), done);
  TP_TRY_GOTO(st, micro_count_mismatches_u64(s, c.keys, c.values, c.n, &nbad), done);
  ri->verified = rf->verified = nbad == 0; /* every key found with its own value */
done:
  tp_hashmap_destroy(&c.map);
  tp_free(s, c.keys), tp_free(s, c.values);
  return st;
}

/* ---- FP64 GEMM ceiling --------------------------------------------------------- */
typedef struct gemm_ctx {
  tp_space *space;
  double *A, *B, *C;
  int64_t n;
} gemm_ctx;

static tp_status gemm_op(void *c) {
  gemm_ctx *x = (gemm_ctx *)c;
  return tp_gemm_f64(x->space, TP_NO_TRANS, TP_NO_TRANS, x->n, x->n, x->n, 1.0, x->A, x->n, x->B,
                     x->n, 0.0, x->C, x->n);
}

static tp_status micro_gemm(tp_space *s, int n, const micro_config *cfg, micro_report *rep) {
  gemm_ctx c = {s, NULL, NULL, NULL, n};
  size_t bytes = sizeof(double) * (size_t)n * (size_t)n;
  double ms = 0;
  tp_status st;
  TP_TRY_GOTO(st, tp_alloc(s, bytes, (void **)&c.A), done);
  TP_TRY_GOTO(st, tp_alloc(s, bytes, (void **)&c.B), done);
  TP_TRY_GOTO(st, tp_alloc(s, bytes, (void **)&c.C), done);
  TP_TRY_GOTO(st, micro_random_f64(s, c.A, (int64_t)n * n, 6), done);
  TP_TRY_GOTO(st, micro_random_f64(s, c.B, (int64_t)n * n, 7), done);
  TP_TRY_GOTO(st, micro_time(s, NULL, gemm_op, &c, cfg->warmup, cfg->reps, &ms), done);
  rep->gemm_n = n;
  rep->gemm_gflops = 2.0 * (double)n * n * n / (ms * 1e6);
  snprintf(rep->gemm_provider, sizeof rep->gemm_provider, "%s", tp_gemm_provider());
done:
  tp_free(s, c.A), tp_free(s, c.B), tp_free(s, c.C);
  return st;
}

static tp_status micro_describe(tp_space *space, micro_report *report, tp_space_info *info) {
  TP_TRY(tp_space_get_info(space, info));
  snprintf(report->device, sizeof report->device, "%s", info->device_name);
  snprintf(report->backend, sizeof report->backend, "%s", info->backend);
  snprintf(report->peer, sizeof report->peer, "%s", tp_peer_name());
  return TP_SUCCESS;
}

tp_status micro_measure_ceilings(tp_space *space, const micro_config *config,
                                 micro_report *report) {
  memset(report, 0, sizeof *report);
  tp_space_info info;
  TP_TRY(micro_describe(space, report, &info));
  TP_TRY(micro_copy(space, config, report));
  return micro_gemm(space, info.is_gpu ? config->gemm_n_gpu : config->gemm_n_cpu, config, report);
}

typedef tp_status (*micro_bench)(tp_space *, const micro_config *, micro_report *);

tp_status micro_run_all(tp_space *space, const micro_config *config, micro_report *report) {
  static const struct {
    const char *name;
    micro_bench run;
  } benches[] = {
      {"reduce", micro_reduce}, {"scan", micro_scan}, {"sort", micro_sort}, {"hash", micro_hash}};
  TP_TRY(micro_measure_ceilings(space, config, report));
  for (size_t b = 0; b < sizeof benches / sizeof benches[0]; ++b)
    if (!config->only || strstr(benches[b].name, config->only))
      TP_TRY(benches[b].run(space, config, report));
  return tp_space_trim(space);
}

void micro_print(FILE *out, const micro_report *rep) {
  fprintf(out, "device: %s | backend: %s | peer: %s\n", rep->device, rep->backend, rep->peer);
  fprintf(out,
          "ceilings measured in this run: copy %.1f GB/s (bytes read + written), "
          "FP64 GEMM %.1f GFLOP/s (%s, n = %d, 2n^3 flops)\n\n",
          rep->copy_gbps, rep->gemm_gflops, rep->gemm_provider, rep->gemm_n);
  fprintf(out, "%-24s %12s %10s %12s %11s %8s %10s %12s %9s %s\n", "primitive", "n", "ms", "GB/s",
          "Gitems/s", "%copy", "peer ms", "peer GB/s", "vs peer", "check");
  for (int i = 0; i < rep->count; ++i) {
    const micro_result *r = &rep->results[i];
    double gbps = r->bytes > 0 ? r->bytes / (r->ms * 1e6) : 0;
    char peer_ms[16] = "-", peer_gbps[16] = "-", ratio[16] = "-", bw[16] = "-", pct[16] = "-";
    if (r->bytes > 0) {
      snprintf(bw, sizeof bw, "%.1f", gbps);
      snprintf(pct, sizeof pct, "%.0f%%", 100.0 * gbps / rep->copy_gbps);
    }
    if (r->peer_ms > 0) {
      snprintf(peer_ms, sizeof peer_ms, "%.3f", r->peer_ms);
      if (r->bytes > 0)
        snprintf(peer_gbps, sizeof peer_gbps, "%.1f", r->bytes / (r->peer_ms * 1e6));
      snprintf(ratio, sizeof ratio, "%.0f%%", 100.0 * r->peer_ms / r->ms);
    }
    fprintf(out, "%-24s %12lld %10.3f %12s %11.3f %8s %10s %12s %9s %s\n", r->name, (long long)r->n,
            r->ms, bw, r->items / (r->ms * 1e6), pct, peer_ms, peer_gbps, ratio,
            r->verified ? "ok" : "MISMATCH");
  }
  fprintf(out, "\nGB/s: bytes one operation must move (read + write) over its median time; "
               "sort counts one pass (24 B per pair). vs peer: tenport throughput as a "
               "percentage of the peer's.\n");
}

int micro_parse_i64_list(const char *s, char sep, int64_t *out, int max, int *count) {
  *count = 0;
  while (*s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v < 1 || *count == max || (*end && *end != sep))
      return 0;
    out[(*count)++] = v;
    s = *end ? end + 1 : end;
  }
  return *count > 0;
}
