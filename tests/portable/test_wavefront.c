/* The GPU layer where the warp width matters: vector groups of every length up to the
 * wavefront sharing one, some of them idle while the others exchange (ballot masks,
 * match, shuffles, reductions and scans at each group's offset in its wavefront), and
 * team-wide scans over several wavefronts. On the hip backend (wavefronts of 64 lanes,
 * on an AMD GPU or the HIP CPU runtime) the groups in the upper half of a wavefront,
 * vector lengths of 64 and ballots past bit 31 only occur here; CPUs run teams of one
 * thread and check the same calls in that shape. */
#include <math.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tests/kernels/tpt_wave_kernels.h"

TestSuite(wavefront, .init = tpt_setup, .fini = tpt_teardown);

/* team size x vector length: whole, partial and several wavefronts of 64 lanes */
static const int shapes[][2] = {{1, 64}, {3, 64}, {16, 64}, {2, 32}, {5, 32}, {3, 16},
                                {9, 8},  {13, 4}, {40, 2},  {70, 1}, {4, 32}, {2, 64}};
static const int shape_count = (int)(sizeof shapes / sizeof shapes[0]);

static int shape_allowed(int team, int vector) {
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  int max_vector = info.is_gpu ? info.max_vector_length : TP_MAX_VECTOR_LENGTH;
  int max_threads = info.is_gpu ? info.max_team_threads : TP_MAX_TEAM_THREADS;
  return vector <= max_vector && team * vector <= max_threads;
}

static int is_poison(const void *p, size_t bytes) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < bytes; ++i)
    if (c[i] != 0xFF)
      return 0;
  return 1;
}

Test(wavefront, hip_wavefronts_are_64_lanes_wide) {
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  if (!info.is_gpu) {
    cr_assert_eq(info.warp_size, 1);
    return;
  }
  cr_assert(info.warp_size == 32 || info.warp_size == 64, "warp size %d", info.warp_size);
  if (strcmp(tp_backend_name(), "hip") == 0)
    cr_assert_eq(info.warp_size, 64, "hip builds assume 64-lane wavefronts");
  cr_assert_eq(info.max_vector_length, info.warp_size);
}

/* One launch of wave_lanes with idle threads every idle_mod-th rank from idle_rem. */
static void check_lanes(tpt_rng *rng, int team, int vector, int64_t league, int idle_mod,
                        int idle_rem) {
  int64_t cap = league * team * vector;
  double *y = tpt_host_alloc(sizeof(double) * (size_t)cap);
  uint32_t *key = tpt_host_alloc(sizeof(uint32_t) * (size_t)cap);
  int64_t *k = tpt_host_alloc(sizeof(int64_t) * (size_t)cap);
  for (int64_t i = 0; i < cap; ++i) {
    y[i] = (double)tpt_int(rng, -6, 6) * 0.5;
    key[i] = (uint32_t)tpt_next_u64(rng) & 0x1C5u; /* bits 6 and up must be ignored */
    k[i] = tpt_int(rng, -1000000, 1000000);
  }
  int xor_mask = vector > 1 ? (int)tpt_int(rng, 1, vector - 1) : 0;
  int delta = (int)tpt_int(rng, 0, vector);
  double *dy = tpt_to_space(y, sizeof(double) * (size_t)cap);
  uint32_t *dkey = tpt_to_space(key, sizeof(uint32_t) * (size_t)cap);
  int64_t *dk = tpt_to_space(k, sizeof(int64_t) * (size_t)cap);
  size_t b8 = sizeof(uint64_t) * (size_t)cap;
  tpt_wave_lanes_out o;
  o.ballot = tpt_alloc_poisoned(b8), o.match = tpt_alloc_poisoned(b8);
  o.from = tpt_alloc_poisoned(b8), o.xored = tpt_alloc_poisoned(b8);
  o.up = tpt_alloc_poisoned(b8), o.sum = tpt_alloc_poisoned(b8);
  o.scan = tpt_alloc_poisoned(b8);
  tpt_shape shape;
  TPT_OK(tpt_wave_lanes(tpt_space, team, vector, league, dy, dkey, dk, xor_mask, delta, idle_mod,
                        idle_rem, o, &shape));
  const int T = shape.team_size, V = shape.vector_length;
  uint64_t *hb = tpt_host_alloc(b8), *hm = tpt_host_alloc(b8);
  double *hf = tpt_host_alloc(b8), *hx = tpt_host_alloc(b8), *hu = tpt_host_alloc(b8);
  double *hs = tpt_host_alloc(b8);
  int64_t *hc = tpt_host_alloc(b8);
  const size_t ran = sizeof(uint64_t) * (size_t)(league * T * V);
  tpt_to_host(hb, o.ballot, ran), tpt_to_host(hm, o.match, ran);
  tpt_to_host(hf, o.from, ran), tpt_to_host(hx, o.xored, ran), tpt_to_host(hu, o.up, ran);
  tpt_to_host(hs, o.sum, ran), tpt_to_host(hc, o.scan, ran);
  for (int64_t g = 0; g < league * T; ++g) {
    const int64_t e0 = g * V;
    const int rank = (int)(g % T);
    if (rank % idle_mod == idle_rem) { /* idle: untouched */
      for (int v = 0; v < V; ++v)
        cr_assert(is_poison(&hb[e0 + v], 8) && is_poison(&hs[e0 + v], 8) &&
                      is_poison(&hc[e0 + v], 8),
                  "shape %dx%d: idle thread %lld lane %d was written", T, V, (long long)g, v);
      continue;
    }
    uint64_t ballot = 0;
    double sum = 0;
    for (int v = 0; v < V; ++v) {
      ballot |= (uint64_t)(y[e0 + v] > 0) << v;
      sum += y[e0 + v];
    }
    int64_t run = 0;
    for (int v = 0; v < V; ++v) {
      const int64_t e = e0 + v;
      uint64_t match = 0;
      for (int u = 0; u < V; ++u)
        match |= (uint64_t)((key[e0 + u] & 63u) == (key[e] & 63u)) << u;
      run += k[e];
      int xs = v ^ xor_mask;
      double xored = xs >= V ? y[e] : y[e0 + xs];
      double up = v - delta < 0 ? y[e] : y[e - delta];
      cr_assert_eq(hb[e], ballot, "shape %dx%d thread %lld lane %d: ballot %llx, expected %llx", T,
                   V, (long long)g, v, (unsigned long long)hb[e], (unsigned long long)ballot);
      cr_assert_eq(hm[e], match, "shape %dx%d thread %lld lane %d: match %llx, expected %llx", T, V,
                   (long long)g, v, (unsigned long long)hm[e], (unsigned long long)match);
      cr_assert_eq(hf[e], y[e0 + (7 * v + 3) % V], "shape %dx%d lane %d: shuffle", T, V, v);
      cr_assert_eq(hx[e], xored, "shape %dx%d lane %d: shuffle xor %d", T, V, v, xor_mask);
      cr_assert_eq(hu[e], up, "shape %dx%d lane %d: shuffle up %d", T, V, v, delta);
      cr_assert_eq(hs[e], sum, "shape %dx%d thread %lld lane %d: sum %g, expected %g", T, V,
                   (long long)g, v, hs[e], sum);
      cr_assert_eq(hc[e], run, "shape %dx%d thread %lld lane %d: inclusive scan", T, V,
                   (long long)g, v);
    }
  }
  tpt_free(dy), tpt_free(dkey), tpt_free(dk);
  tpt_free(o.ballot), tpt_free(o.match), tpt_free(o.from), tpt_free(o.xored);
  tpt_free(o.up), tpt_free(o.sum), tpt_free(o.scan);
  free(y), free(key), free(k), free(hb), free(hm), free(hf), free(hx), free(hu), free(hs);
  free(hc);
}

Test(wavefront, vector_groups_exchange_within_their_wavefront) {
  tpt_rng rng = tpt_rng_fresh();
  for (int s = 0; s < shape_count; ++s)
    if (shape_allowed(shapes[s][0], shapes[s][1]))
      for (int64_t league = 1; league <= 7; league += 6)
        check_lanes(&rng, shapes[s][0], shapes[s][1], league, 1 << 20, -1); /* none idle */
}

/* Groups of one wavefront that sit out while the others exchange, as the rows of a team
 * loop with fewer rows than team threads: the last rank, every third from rank 1 or 0. */
Test(wavefront, idle_vector_groups_do_not_disturb_the_others) {
  tpt_rng rng = tpt_rng_fresh();
  for (int s = 0; s < shape_count; ++s) {
    if (!shape_allowed(shapes[s][0], shapes[s][1]))
      continue;
    const int team = shapes[s][0];
    check_lanes(&rng, team, shapes[s][1], 3, 1 << 20, team - 1);
    check_lanes(&rng, team, shapes[s][1], 3, 3, 1);
    check_lanes(&rng, team, shapes[s][1], 2, 3, 0);
  }
}

Test(wavefront, team_vector_scans_span_wavefronts) {
  tpt_rng rng = tpt_rng_fresh();
  for (int s = 0; s < shape_count; ++s) {
    if (!shape_allowed(shapes[s][0], shapes[s][1]))
      continue;
    const int64_t league = 5;
    int64_t cap = league * shapes[s][0] * shapes[s][1];
    int64_t *k = tpt_host_alloc(sizeof(int64_t) * (size_t)cap);
    double *x = tpt_host_alloc(sizeof(double) * (size_t)cap);
    for (int64_t i = 0; i < cap; ++i) {
      k[i] = tpt_int(&rng, -(1 << 20), 1 << 20);
      x[i] = (double)tpt_int(&rng, -64, 64) * 0.125; /* exact sums in any order */
    }
    int64_t *dk = tpt_to_space(k, sizeof(int64_t) * (size_t)cap);
    double *dx = tpt_to_space(x, sizeof(double) * (size_t)cap);
    int64_t *pre = tpt_alloc_poisoned(sizeof(int64_t) * (size_t)cap);
    int64_t *tot = tpt_alloc_poisoned(sizeof(int64_t) * (size_t)cap);
    double *fpre = tpt_alloc_poisoned(sizeof(double) * (size_t)cap);
    double *ftot = tpt_alloc_poisoned(sizeof(double) * (size_t)cap);
    tpt_shape shape;
    TPT_OK(tpt_wave_team_scan(tpt_space, shapes[s][0], shapes[s][1], league, dk, dx, pre, tot, fpre,
                              ftot, &shape));
    const int64_t per = (int64_t)shape.team_size * shape.vector_length, ran = league * per;
    int64_t *hp = tpt_host_alloc(sizeof(int64_t) * (size_t)ran);
    int64_t *ht = tpt_host_alloc(sizeof(int64_t) * (size_t)ran);
    double *hfp = tpt_host_alloc(sizeof(double) * (size_t)ran);
    double *hft = tpt_host_alloc(sizeof(double) * (size_t)ran);
    tpt_to_host(hp, pre, sizeof(int64_t) * (size_t)ran);
    tpt_to_host(ht, tot, sizeof(int64_t) * (size_t)ran);
    tpt_to_host(hfp, fpre, sizeof(double) * (size_t)ran);
    tpt_to_host(hft, ftot, sizeof(double) * (size_t)ran);
    for (int64_t t = 0; t < league; ++t) {
      int64_t run = 0, total = 0;
      double frun = 0, ftotal = 0;
      for (int64_t i = 0; i < per; ++i)
        total += k[t * per + i], ftotal += x[t * per + i];
      for (int64_t i = 0; i < per; ++i) {
        const int64_t e = t * per + i;
        cr_assert_eq(hp[e], run, "shape %dx%d team %lld element %lld: prefix %lld, expected %lld",
                     shape.team_size, shape.vector_length, (long long)t, (long long)i,
                     (long long)hp[e], (long long)run);
        cr_assert_eq(ht[e], total, "shape %dx%d team %lld: total", shape.team_size,
                     shape.vector_length, (long long)t);
        cr_assert_eq(hfp[e], frun, "shape %dx%d team %lld element %lld: f64 prefix",
                     shape.team_size, shape.vector_length, (long long)t, (long long)i);
        cr_assert_eq(hft[e], ftotal, "f64 total, team %lld", (long long)t);
        run += k[e], frun += x[e];
      }
    }
    tpt_free(dk), tpt_free(dx), tpt_free(pre), tpt_free(tot), tpt_free(fpre), tpt_free(ftot);
    free(k), free(x), free(hp), free(ht), free(hfp), free(hft);
  }
}
