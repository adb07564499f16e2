/* The suite's table and its JSON record (schema tenport-bench/1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perf/suite/suite.h"
#include "portable/tp_error.h"
#include "perf/tps_revision.h"

#ifndef TPS_KERNEL_COMPILER
#define TPS_KERNEL_COMPILER ""
#endif

/* ---- the table --------------------------------------------------------------------- */

static void format_rate(char *buf, size_t n, double amount, double ms, double scale) {
  if (amount > 0 && ms > 0)
    snprintf(buf, n, "%.4g", amount / (ms * 1e-3) / scale);
  else
    snprintf(buf, n, "-");
}

static void print_row(FILE *out, const tps_run *run, const tps_result *r) {
  char gflops[24], gbps[24], items[24], pct[24] = "-", model[24] = "-";
  format_rate(gflops, sizeof gflops, r->flops, r->ms, 1e9);
  format_rate(gbps, sizeof gbps, r->bytes, r->ms, 1e9);
  format_rate(items, sizeof items, r->items, r->ms, 1);
  double p = tps_percent_of_ceiling(run, r);
  if (p >= 0)
    snprintf(pct, sizeof pct, "%.1f%% %s", p, tps_ceiling_name(r->ceiling));
  if (r->model_ms >= 0)
    snprintf(model, sizeof model, "%.4g", r->model_ms);
  fprintf(out, "%-14s %-48s %-13s %10.4g %9s %9s %10s %-16s %9s  %s %s\n", r->method, r->name,
          r->kernel, r->ms, gflops, gbps, items, pct, model, r->verified ? "ok" : "FAILED",
          r->check);
}

void tps_print(FILE *out, const tps_run *run) {
  const tps_ceilings *c = &run->ceilings;
  fprintf(out, "tenport bench (%s sizes): %s backend, %s, %d compute units\n",
          run->full ? "full" : "quick", run->info.backend, run->info.device_name,
          run->info.compute_units);
  fprintf(out,
          "ceilings measured in this run: copy %.1f GB/s (read + write), FP64 GEMM %.1f "
          "GFLOP/s (%s), FP32 FMA %.1f GFLOP/s\n",
          c->copy_gbps, c->gemm_f64_gflops, c->gemm_provider, c->fma_f32_gflops);
  fprintf(out, "times: median of %d after %d warm-up (ms per run); model: predicted ms\n\n",
          run->reps, run->warmup);
  fprintf(out, "%-14s %-48s %-13s %10s %9s %9s %10s %-16s %9s  %s\n", "method", "case", "kernel",
          "ms", "GFLOP/s", "GB/s", "items/s", "% of ceiling", "model ms", "check");
  for (int i = 0; i < run->count; ++i)
    print_row(out, run, &run->results[i]);
}

/* ---- the machine ------------------------------------------------------------------- */

static void cpu_model(char *out, size_t n) {
  snprintf(out, n, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    const char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon)
      continue;
    snprintf(out, n, "%s", colon + 2);
    out[strcspn(out, "\n")] = '\0';
    break;
  }
  if (f)
    fclose(f);
}

void tps_machine_describe(const tps_run *run, tps_machine *m) {
  memset(m, 0, sizeof *m);
  if (gethostname(m->host, sizeof m->host - 1))
    snprintf(m->host, sizeof m->host, "unknown");
  cpu_model(m->cpu, sizeof m->cpu);
#if defined(__clang__) || defined(__GNUC__)
  snprintf(m->compiler, sizeof m->compiler, "%s %s%s%s",
#ifdef __clang__
           "clang",
#else
           "gcc",
#endif
           __VERSION__, *TPS_KERNEL_COMPILER ? ", kernels " : "", TPS_KERNEL_COMPILER);
#else
  snprintf(m->compiler, sizeof m->compiler, "unknown");
#endif
  snprintf(m->revision, sizeof m->revision, "%s", TPS_REVISION);
  time_t now = time(NULL);
  strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  if (run->info.is_gpu)
    snprintf(m->label, sizeof m->label, "%s, %s", run->info.backend, run->info.device_name);
  else
    snprintf(m->label, sizeof m->label, "%s, %d threads, %s", run->info.backend,
             run->info.compute_units, m->cpu);
}

/* ---- JSON -------------------------------------------------------------------------- */

/* A number, or null when the figure does not apply (v <= 0, or < 0 with zero_ok). */
static void json_number(FILE *f, double v, int zero_ok) {
  if (isfinite(v) && (v > 0 || (zero_ok && v == 0)))
    fprintf(f, "%.6g", v);
  else
    fputs("null", f);
}

static void json_key(FILE *f, const char *key, const char *value) {
  fprintf(f, "\"%s\": ", key);
  micro_json_string(f, value);
}

static double rate(double amount, double ms, double scale) {
  return amount > 0 && ms > 0 ? amount / (ms * 1e-3) / scale : -1;
}

static void json_result(FILE *f, const tps_run *run, const tps_result *r) {
  fputs("    {", f);
  json_key(f, "method", r->method), fputs(", ", f);
  json_key(f, "case", r->name), fputs(", ", f);
  json_key(f, "kernel", r->kernel), fputs(", ", f);
  json_key(f, "tool", "tenport"), fputs(",\n     \"ms\": ", f);
  json_number(f, r->ms, 0), fputs(", \"flops\": ", f);
  json_number(f, r->flops, 0), fputs(", \"bytes\": ", f);
  json_number(f, r->bytes, 0), fputs(", \"gflops\": ", f);
  json_number(f, rate(r->flops, r->ms, 1e9), 0), fputs(", \"gbps\": ", f);
  json_number(f, rate(r->bytes, r->ms, 1e9), 0), fputs(", \"items_per_s\": ", f);
  json_number(f, rate(r->items, r->ms, 1), 0), fputs(", \"items\": ", f);
  if (*r->items_unit)
    micro_json_string(f, r->items_unit);
  else
    fputs("null", f);
  fputs(",\n     \"ceiling\": ", f);
  if (tps_ceiling_name(r->ceiling))
    micro_json_string(f, tps_ceiling_name(r->ceiling));
  else
    fputs("null", f);
  fputs(", \"percent_of_ceiling\": ", f);
  json_number(f, tps_percent_of_ceiling(run, r), 1), fputs(", \"model_ms\": ", f);
  json_number(f, r->model_ms, 1), fputs(", ", f);
  json_key(f, "model", r->model), fputs(", ", f);
  fprintf(f, "\"verified\": %s, ", r->verified ? "true" : "false");
  json_key(f, "check", r->check), fputs("}", f);
}

static void json_machine(FILE *f, const tps_run *run, const tps_machine *m) {
  fputs("  \"machine\": {", f);
  json_key(f, "label", m->label), fputs(", ", f);
  json_key(f, "backend", run->info.backend), fputs(", ", f);
  json_key(f, "device", run->info.device_name), fputs(",\n    ", f);
  json_key(f, "host", m->host), fputs(", ", f);
  json_key(f, "cpu", m->cpu), fputs(", ", f);
  if (run->info.is_gpu)
    fprintf(f, "\"threads\": null, \"compute_units\": %d,\n    ", run->info.compute_units);
  else
    fprintf(f, "\"threads\": %d, \"compute_units\": %d,\n    ", run->info.compute_units,
            run->info.compute_units);
  json_key(f, "compiler", m->compiler), fputs(", ", f);
  json_key(f, "revision", m->revision), fputs(", ", f);
  json_key(f, "date", m->date), fputs(", ", f);
  fprintf(f, "\"tenport_version\": \"%s\"},\n", tp_version());
}

/* The document is made in memory and written as one file of the output set, so that an
 * existing file is replaced only by a complete new one. */
tp_status tps_write_json(tp_output_set *set, const char *path, const tps_run *run,
                         const tps_machine *m) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for the JSON text of %s", path);
  fprintf(f, "{\n  \"schema\": \"tenport-bench/1\",\n  \"size\": \"%s\",\n",
          run->full ? "full" : "quick");
  json_machine(f, run, m);
  const tps_ceilings *c = &run->ceilings;
  fputs("  \"ceilings\": {\"copy_gbps\": ", f);
  json_number(f, c->copy_gbps, 0), fputs(", \"gemm_f64_gflops\": ", f);
  json_number(f, c->gemm_f64_gflops, 0), fputs(", ", f);
  json_key(f, "gemm_provider", c->gemm_provider), fputs(", \"fma_f32_gflops\": ", f);
  json_number(f, c->fma_f32_gflops, 0), fputs("},\n  \"results\": [\n", f);
  for (int i = 0; i < run->count; ++i) {
    json_result(f, run, &run->results[i]);
    fputs(i + 1 < run->count ? ",\n" : "\n", f);
  }
  fputs("  ]\n}\n", f);
  tp_status st = fclose(f) == 0 ? tp_output_set_write(set, path, text, len)
                                : TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                                           "no memory for the JSON "
                                           "text of %s",
                                           path);
  free(text);
  return st;
}
