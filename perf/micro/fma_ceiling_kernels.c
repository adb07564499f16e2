/* FP32 FMA ceiling: every lane runs independent FMA chains that the compiler cannot
 * shorten, so the rate approaches the FP32 pipes' peak. */
#include "perf/micro/micro.h"
#include "portable/tp_portable.h"

enum { FMA_CHAINS = 8, FMA_STEPS = 4096, FMA_TEAM = 256 };

typedef struct fma_args {
  float *out;
  float mul, add;
} fma_args;

TP_TEAM_KERNEL(micro_fma_kernel, fma_args, team, a) {
  TP_TEAM_VECTOR_FOR(team, i, 0, FMA_TEAM) {
    float v[FMA_CHAINS];
    TP_UNROLL for (int c = 0; c < FMA_CHAINS; ++c) v[c] = (float)(i + c) * 1e-3f;
    for (int s = 0; s < FMA_STEPS; ++s)
      TP_UNROLL for (int c = 0; c < FMA_CHAINS; ++c) v[c] = v[c] * a.mul + a.add;
    float sum = 0;
    TP_UNROLL for (int c = 0; c < FMA_CHAINS; ++c) sum += v[c];
    a.out[team->league_rank * FMA_TEAM + i] = sum; /* keeps the chains alive */
  }
}

typedef struct fma_run {
  tp_space *space;
  tp_team_policy policy;
  fma_args args;
} fma_run;

static tp_status fma_op(void *ctx) {
  fma_run *r = (fma_run *)ctx;
  return micro_fma_kernel_launch(r->space, r->policy, r->args);
}

tp_status micro_fp32_fma_ceiling(tp_space *space, double *gflops) {
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  /* Enough teams to fill every unit several times over. */
  int64_t teams = info.is_gpu ? (int64_t)info.compute_units * 64 : (int64_t)info.compute_units * 16;
  fma_run r;
  r.space = space;
  r.policy = tp_team_policy_make(teams, FMA_TEAM / 32, 32, 0);
  r.args.mul = 0.999999f, r.args.add = 1e-6f;
  TP_TRY(tp_alloc(space, sizeof(float) * (size_t)(teams * FMA_TEAM), (void **)&r.args.out));
  double ms = 0;
  tp_status st = micro_time(space, NULL, fma_op, &r, 2, 5, &ms);
  tp_free(space, r.args.out);
  TP_TRY(st);
  double flops = 2.0 * FMA_CHAINS * FMA_STEPS * (double)(teams * FMA_TEAM);
  *gflops = flops / (ms * 1e6);
  return TP_SUCCESS;
}
