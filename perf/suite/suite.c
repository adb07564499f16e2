/* The suite's driver: ceilings first, then each selected method in turn. */
#include "perf/suite/suite.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"

static const char *const methods[] = {"dense", "sshopm", "sparse", "sttid"};
static tp_status (*const runners[])(tps_run *) = {tps_dense, tps_sshopm, tps_sparse, tps_sttid};
enum { NUM_METHODS = sizeof methods / sizeof methods[0] };

int tps_is_method(const char *name) {
  for (int i = 0; i < NUM_METHODS; ++i)
    if (!strcmp(name, methods[i]))
      return 1;
  return 0;
}

const char *tps_method_list(void) { return "dense, sshopm, sparse, sttid"; }

tp_status tps_init(tps_run *run, tp_space *space, int full, const char *only) {
  memset(run, 0, sizeof *run);
  run->space = space;
  run->full = full;
  run->warmup = 1;
  run->reps = full ? 5 : 3;
  run->only = only;
  if (only && !tps_is_method(only))
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT, "no method '%s' in the suite (there are: %s)", only,
                    tps_method_list());
  return tp_space_get_info(space, &run->info);
}

static tp_status measure_ceilings(tps_run *run) {
  micro_config c = run->full ? micro_config_full() : micro_config_small();
  c.warmup = 1, c.reps = run->full ? 5 : 3;
  micro_report rep;
  tps_announce(run, "ceilings: copy, FP64 GEMM, FP32 FMA");
  TP_TRY(micro_measure_ceilings(run->space, &c, &rep));
  run->ceilings.copy_gbps = rep.copy_gbps;
  run->ceilings.gemm_f64_gflops = rep.gemm_gflops;
  snprintf(run->ceilings.gemm_provider, sizeof run->ceilings.gemm_provider, "%s",
           rep.gemm_provider);
  return micro_fp32_fma_ceiling(run->space, &run->ceilings.fma_f32_gflops);
}

tp_status tps_run_all(tps_run *run) {
  TP_TRY(measure_ceilings(run));
  for (int i = 0; i < NUM_METHODS; ++i)
    if (!run->only || !strcmp(run->only, methods[i]))
      TP_TRY(runners[i](run));
  return TP_SUCCESS;
}

tps_result *tps_add(tps_run *run, const char *method, const char *kernel, const char *fmt, ...) {
  if (run->count == TPS_MAX_RESULTS)
    return NULL;
  tps_result *r = &run->results[run->count++];
  memset(r, 0, sizeof *r);
  snprintf(r->method, sizeof r->method, "%s", method);
  snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->name, sizeof r->name, fmt, ap);
  va_end(ap);
  r->model_ms = -1;
  return r;
}

void tps_announce(tps_run *run, const char *what) {
  if (run->progress)
    run->progress(what, run->progress_user);
}

double tps_ceiling_rate(const tps_run *run, tps_ceiling c) {
  switch (c) {
  case TPS_CEILING_COPY: return run->ceilings.copy_gbps;
  case TPS_CEILING_GEMM_F64: return run->ceilings.gemm_f64_gflops;
  case TPS_CEILING_FMA_F32: return run->ceilings.fma_f32_gflops;
  default: return 0;
  }
}

const char *tps_ceiling_name(tps_ceiling c) {
  switch (c) {
  case TPS_CEILING_COPY: return "copy";
  case TPS_CEILING_GEMM_F64: return "gemm_f64";
  case TPS_CEILING_FMA_F32: return "fma_f32";
  default: return NULL;
  }
}

double tps_percent_of_ceiling(const tps_run *run, const tps_result *r) {
  double ceiling = tps_ceiling_rate(run, r->ceiling);
  double work = r->ceiling == TPS_CEILING_COPY ? r->bytes : r->flops;
  if (ceiling <= 0 || work <= 0 || r->ms <= 0)
    return -1;
  return 100.0 * (work / (r->ms * 1e6)) / ceiling;
}

double tps_roofline_ms(const tps_run *run, double flops, double bytes, tps_ceiling compute) {
  double copy = run->ceilings.copy_gbps, rate = tps_ceiling_rate(run, compute);
  double t_bytes = copy > 0 ? bytes / (copy * 1e6) : 0;
  double t_flops = rate > 0 ? flops / (rate * 1e6) : 0;
  return t_bytes > t_flops ? t_bytes : t_flops;
}

static double value_at(const void *p, size_t i, tp_dtype dtype) {
  return dtype == TP_DTYPE_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

tp_status tps_max_rel_diff(tp_space *space, const void *a, const void *b, size_t n, tp_dtype dtype,
                           double *rel) {
  const size_t bytes = n * tp_dtype_size(dtype);
  void *ha = malloc(bytes ? bytes : 1), *hb = malloc(bytes ? bytes : 1);
  tp_status st = ha && hb ? TP_SUCCESS : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room to check");
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(space, ha, a, bytes);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(space, hb, b, bytes);
  double diff = 0, scale = 0;
  for (size_t i = 0; st == TP_SUCCESS && i < n; ++i) {
    double x = value_at(ha, i, dtype), y = value_at(hb, i, dtype);
    diff = isfinite(x) && isfinite(y) ? fmax(diff, fabs(x - y)) : INFINITY;
    scale = isfinite(y) ? fmax(scale, fabs(y)) : scale;
  }
  *rel = scale > 0 ? diff / scale : diff;
  free(ha), free(hb);
  return st;
}
