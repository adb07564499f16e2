/* Micro-benchmarks of the portable layer's primitives, each next to the machine's copy
 * bandwidth and, where a peer library is built in (CUB), the same operation by the peer
 * on the same data in the same run. */
#ifndef MICRO_MICRO_H
#define MICRO_MICRO_H

#include <stdint.h>
#include <stdio.h>

#include "tenport/tenport.h"

#ifdef __cplusplus
extern "C" { /* fma_ceiling_kernels.c is compiled as CUDA C++ on GPU backends */
#endif

typedef struct micro_config {
  int log2_copy_bytes;        /* copy of 2^k bytes */
  int log2_reduce;            /* sum of 2^k doubles */
  int log2_scan;              /* exclusive scan of 2^k int32 */
  int log2_sort;              /* sort of 2^k (u64 key, u32 value) pairs */
  int log2_hash;              /* 2^k random keys into a map at load 0.5 */
  int gemm_n_gpu, gemm_n_cpu; /* n of the n x n x n FP64 GEMM ceiling */
  int warmup, reps;
  const char *only; /* run only the benchmarks whose name contains this (NULL: all) */
} micro_config;

/* The sizes of the design brief (2^28 reduce and scan, 2^27 sort, 2^26 hash keys). */
micro_config micro_config_full(void);
/* Sizes for a quick look (a few seconds on two CPU cores). */
micro_config micro_config_small(void);

typedef struct micro_result {
  char name[32];
  int64_t n;      /* elements */
  double bytes;   /* bytes one operation must move (read + write), 0 if not a rate */
  double items;   /* items one operation processes */
  double ms;      /* tenport: median milliseconds */
  double peer_ms; /* the peer's median, or < 0 without one */
  int verified;   /* the result was checked (and the peer's agrees) */
} micro_result;

enum { MICRO_MAX_RESULTS = 8 };

typedef struct micro_report {
  char device[256];
  char backend[16];
  char peer[64];
  double copy_gbps;   /* device-to-device copy, bytes read + written per second / 1e9 */
  double gemm_gflops; /* FP64 GEMM through tp_gemm_f64 */
  int gemm_n;
  char gemm_provider[32];
  micro_result results[MICRO_MAX_RESULTS];
  int count;
} micro_report;

/* Median milliseconds (GPU events on GPUs) of `reps` runs of op after `warmup` runs;
 * prepare (may be NULL) runs before each, outside the timing. */
typedef tp_status (*micro_step)(void *ctx);
tp_status micro_time(tp_space *space, micro_step prepare, micro_step op, void *ctx, int warmup,
                     int reps, double *median_ms);

/* The median of n values (sorts them in place). */
double micro_median(double *values, int n);

/* FP32 fused multiply-add rate of the space (GFLOP/s, 2 flops per FMA), measured by a
 * kernel of independent FMA chains: the compute ceiling for FP32 kernels. */
tp_status micro_fp32_fma_ceiling(tp_space *space, double *gflops);

/* Measures the machine's two ceilings: copy bandwidth and FP64 GEMM rate. */
tp_status micro_measure_ceilings(tp_space *space, const micro_config *config, micro_report *report);

/* Runs the ceilings and every micro-benchmark; stops at the first error. */
tp_status micro_run_all(tp_space *space, const micro_config *config, micro_report *report);

/* Prints the report as a table: time, GB/s or items/s, % of copy bandwidth, peer. */
void micro_print(FILE *out, const micro_report *report);

/* Flops of one SS-HOPM iteration of order m, dimension n. Fixed shift (unrolled kernel):
 * monomials of degree 2..m-1 (one multiply each), y = B p (n x M1 FMAs),
 * lambda = x.y, x <- y + alpha x, the norm and the scaling (2n + 2n + 2n + n), the step
 * test (3n). Adaptive: H = A x^(m-2) (n(n+1)/2 x M2 FMAs), y = H x, the eigenvalue
 * bounds (counted as 40 flops), the shift and the same vector work. The step test is
 * counted only where it runs (step_test: the run has an xtol). */
double micro_sshopm_flops_fixed(int m, int n, int step_test);
double micro_sshopm_flops_adaptive(int m, int n, int step_test);

/* Bytes one FLYCOO MTTKRP pass of a mode with `rows` output rows must move: the records
 * read (and written again when remapping), nnz (d-1) R gathered factor values, G. */
double micro_sparse_mode_bytes(const tp_flycoo_stats *s, int64_t rank, size_t value_bytes,
                               int64_t rows);

/* Microseconds of one tiny launch in a back-to-back stream and of one host round trip,
 * each the least of several passes. */
typedef struct micro_launch_costs {
  double launch_us, round_trip_us;
} micro_launch_costs;
tp_status micro_measure_launch_costs(tp_space *space, micro_launch_costs *costs);

/* Writes s as a JSON string (quoted, with quotes, backslashes and control characters
 * escaped). */
void micro_json_string(FILE *f, const char *s);

/* Parses "a<sep>b<sep>c" of positive integers into out (at most max): 1 on success,
 * 0 on an empty, malformed or too long list. For the drivers' command lines. */
int micro_parse_i64_list(const char *s, char sep, int64_t *out, int max, int *count);

#ifdef __cplusplus
}
#endif
#endif
