/* Team and vector collectives against references computed from the team shape the
 * backend ran (GPUs run the requested shape, CPUs teams of one thread and one lane). */
#include <math.h>

#include "tests/common/tpt.h"
#include "tests/kernels/tpt_kernels.h"

TestSuite(collectives, .init = tpt_setup, .fini = tpt_teardown);

static const int shapes[][2] = {{1, 1},  {3, 1}, {5, 4},  {8, 32}, {32, 1},
                                {2, 16}, {7, 8}, {1, 32}, {33, 2}, {16, 64}};
static const int shape_count = (int)(sizeof shapes / sizeof shapes[0]);

static int shape_allowed(int team, int vector) {
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  int max_vector = info.is_gpu ? info.max_vector_length : TP_MAX_VECTOR_LENGTH;
  int max_threads = info.is_gpu ? info.max_team_threads : TP_MAX_TEAM_THREADS;
  return vector <= max_vector && team * vector <= max_threads;
}

Test(collectives, team_reductions_and_scan_match_reference) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t leagues[] = {1, 7, 203};
  for (int s = 0; s < shape_count; ++s) {
    if (!shape_allowed(shapes[s][0], shapes[s][1]))
      continue;
    for (int l = 0; l < 3; ++l) {
      int64_t league = leagues[l];
      /* inputs sized for the requested team; the backend may run fewer threads */
      int64_t cap = league * shapes[s][0];
      double *x = tpt_host_alloc(sizeof(double) * (size_t)cap);
      int64_t *k = tpt_host_alloc(sizeof(int64_t) * (size_t)cap);
      for (int64_t i = 0; i < cap; ++i) {
        x[i] = (double)tpt_int(&rng, -20, 20) * 0.25; /* repeated magnitudes: ties */
        k[i] = tpt_int(&rng, -1000, 1000);
      }
      double *dx = tpt_to_space(x, sizeof(double) * (size_t)cap);
      int64_t *dk = tpt_to_space(k, sizeof(int64_t) * (size_t)cap);
      double *sum = tpt_alloc_poisoned(sizeof(double) * (size_t)league);
      double *mn = tpt_alloc_poisoned(sizeof(double) * (size_t)league);
      double *mx = tpt_alloc_poisoned(sizeof(double) * (size_t)league);
      tp_argmax_f64 *am = tpt_alloc_poisoned(sizeof(tp_argmax_f64) * (size_t)league);
      int64_t *scan = tpt_alloc_poisoned(sizeof(int64_t) * (size_t)cap);
      int64_t *tot = tpt_alloc_poisoned(sizeof(int64_t) * (size_t)cap);
      tpt_shape shape;
      TPT_OK(tpt_team_collectives(tpt_space, shapes[s][0], shapes[s][1], league, dx, dk, sum, mn,
                                  mx, am, scan, tot, &shape));
      int T = shape.team_size;
      double *hs = tpt_host_alloc(sizeof(double) * (size_t)league);
      double *hmn = tpt_host_alloc(sizeof(double) * (size_t)league);
      double *hmx = tpt_host_alloc(sizeof(double) * (size_t)league);
      tp_argmax_f64 *ham = tpt_host_alloc(sizeof(tp_argmax_f64) * (size_t)league);
      int64_t *hscan = tpt_host_alloc(sizeof(int64_t) * (size_t)cap);
      int64_t *htot = tpt_host_alloc(sizeof(int64_t) * (size_t)cap);
      tpt_to_host(hs, sum, sizeof(double) * (size_t)league);
      tpt_to_host(hmn, mn, sizeof(double) * (size_t)league);
      tpt_to_host(hmx, mx, sizeof(double) * (size_t)league);
      tpt_to_host(ham, am, sizeof(tp_argmax_f64) * (size_t)league);
      tpt_to_host(hscan, scan, sizeof(int64_t) * (size_t)cap);
      tpt_to_host(htot, tot, sizeof(int64_t) * (size_t)cap);
      for (int64_t t = 0; t < league; ++t) {
        const double *xt = x + t * T;
        const int64_t *kt = k + t * T;
        double rs = 0, rmn = INFINITY, rmx = -INFINITY;
        int best = 0;
        int64_t run = 0;
        for (int i = 0; i < T; ++i) {
          rs += xt[i], rmn = fmin(rmn, xt[i]), rmx = fmax(rmx, xt[i]);
          if (fabs(xt[i]) > fabs(xt[best]))
            best = i;
          cr_assert_eq(hscan[t * T + i], run, "shape %dx%d team %lld thread %d: scan", shapes[s][0],
                       shapes[s][1], (long long)t, i);
          run += kt[i];
        }
        for (int i = 0; i < T; ++i)
          cr_assert_eq(htot[t * T + i], run, "scan total, team %lld", (long long)t);
        cr_assert(fabs(hs[t] - rs) <= 1e-12, "shape %dx%d team %lld: sum %.17g vs %.17g",
                  shapes[s][0], shapes[s][1], (long long)t, hs[t], rs);
        cr_assert_eq(hmn[t], rmn, "min, team %lld", (long long)t);
        cr_assert_eq(hmx[t], rmx, "max, team %lld", (long long)t);
        cr_assert_eq(ham[t].index, best, "shape %dx%d team %lld: argmax %lld expected %d",
                     shapes[s][0], shapes[s][1], (long long)t, (long long)ham[t].index, best);
        cr_assert_eq(ham[t].value, xt[best]);
      }
      tpt_free(dx), tpt_free(dk), tpt_free(sum), tpt_free(mn), tpt_free(mx), tpt_free(am);
      tpt_free(scan), tpt_free(tot);
      free(x), free(k), free(hs), free(hmn), free(hmx), free(ham), free(hscan), free(htot);
    }
  }
}

Test(collectives, vector_reductions_scans_ballots_and_shuffles_match_reference) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t league = 11;
  for (int s = 0; s < shape_count; ++s) {
    if (!shape_allowed(shapes[s][0], shapes[s][1]))
      continue;
    int64_t cap = league * shapes[s][0] * shapes[s][1];
    double *y = tpt_host_alloc(sizeof(double) * (size_t)cap);
    uint32_t *key = tpt_host_alloc(sizeof(uint32_t) * (size_t)cap);
    for (int64_t i = 0; i < cap; ++i) {
      y[i] = (double)tpt_int(&rng, -8, 8) * 0.5;
      key[i] = (uint32_t)tpt_next_u64(&rng) & 0x303u; /* bits above 8 must be ignored */
    }
    double *dy = tpt_to_space(y, sizeof(double) * (size_t)cap);
    uint32_t *dkey = tpt_to_space(key, sizeof(uint32_t) * (size_t)cap);
    int64_t groups = league * shapes[s][0];
    double *sum = tpt_alloc_poisoned(sizeof(double) * (size_t)groups);
    tp_argmax_f64 *am = tpt_alloc_poisoned(sizeof(tp_argmax_f64) * (size_t)groups);
    uint64_t *ballot = tpt_alloc_poisoned(sizeof(uint64_t) * (size_t)groups);
    double *scan = tpt_alloc_poisoned(sizeof(double) * (size_t)cap);
    uint64_t *match = tpt_alloc_poisoned(sizeof(uint64_t) * (size_t)cap);
    double *rot = tpt_alloc_poisoned(sizeof(double) * (size_t)cap);
    tpt_shape shape;
    TPT_OK(tpt_vector_collectives(tpt_space, shapes[s][0], shapes[s][1], league, dy, dkey, sum, am,
                                  ballot, scan, match, rot, &shape));
    int T = shape.team_size, V = shape.vector_length;
    int64_t ran = league * T;
    double *hs = tpt_host_alloc(sizeof(double) * (size_t)ran);
    tp_argmax_f64 *ham = tpt_host_alloc(sizeof(tp_argmax_f64) * (size_t)ran);
    uint64_t *hb = tpt_host_alloc(sizeof(uint64_t) * (size_t)ran);
    double *hscan = tpt_host_alloc(sizeof(double) * (size_t)(ran * V));
    uint64_t *hm = tpt_host_alloc(sizeof(uint64_t) * (size_t)(ran * V));
    double *hrot = tpt_host_alloc(sizeof(double) * (size_t)(ran * V));
    tpt_to_host(hs, sum, sizeof(double) * (size_t)ran);
    tpt_to_host(ham, am, sizeof(tp_argmax_f64) * (size_t)ran);
    tpt_to_host(hb, ballot, sizeof(uint64_t) * (size_t)ran);
    tpt_to_host(hscan, scan, sizeof(double) * (size_t)(ran * V));
    tpt_to_host(hm, match, sizeof(uint64_t) * (size_t)(ran * V));
    tpt_to_host(hrot, rot, sizeof(double) * (size_t)(ran * V));
    for (int64_t g = 0; g < ran; ++g) {
      const double *yg = y + g * V;
      const uint32_t *kg = key + g * V;
      double rs = 0, run = 0;
      uint64_t rb = 0;
      int best = 0;
      for (int v = 0; v < V; ++v) {
        rs += yg[v];
        run += yg[v];
        if (yg[v] > 0)
          rb |= (uint64_t)1 << v;
        if (fabs(yg[v]) > fabs(yg[best]))
          best = v;
        cr_assert_eq(hscan[g * V + v], run, "shape %dx%d thread %lld lane %d: scan", T, V,
                     (long long)g, v);
        uint64_t rm = 0;
        for (int u = 0; u < V; ++u)
          if ((kg[u] & 0xffu) == (kg[v] & 0xffu))
            rm |= (uint64_t)1 << u;
        cr_assert_eq(hm[g * V + v], rm, "shape %dx%d lane %d: match %llx vs %llx", T, V, v,
                     (unsigned long long)hm[g * V + v], (unsigned long long)rm);
        cr_assert_eq(hrot[g * V + v], yg[(v + 1) % V], "shuffle, lane %d", v);
      }
      cr_assert_eq(hs[g], rs, "shape %dx%d thread %lld: vector sum", T, V, (long long)g);
      cr_assert_eq(hb[g], rb, "shape %dx%d thread %lld: ballot %llx vs %llx", T, V, (long long)g,
                   (unsigned long long)hb[g], (unsigned long long)rb);
      cr_assert_eq(ham[g].index, best, "shape %dx%d: vector argmax", T, V);
    }
    tpt_free(dy), tpt_free(dkey), tpt_free(sum), tpt_free(am), tpt_free(ballot);
    tpt_free(scan), tpt_free(match), tpt_free(rot);
    free(y), free(key), free(hs), free(ham), free(hb), free(hscan), free(hm), free(hrot);
  }
}
