/* Dense MTTKRP: every variant against the double-precision reference, for orders 3-6,
 * every mode, awkward shapes (primes, sizes of 1), ranks 1..100, both layouts and both
 * precisions; the all-modes sweep against the reference while factors change as in
 * CP-ALS; and the argument checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(mttkrp, .init = tpt_setup, .fini = tpt_teardown);

typedef struct shape {
  int d;
  int64_t dims[6];
} shape;

static const shape shapes[] = {
    {3, {7, 1, 5}},    {3, {2, 3, 11}},      {4, {3, 5, 2, 7}},
    {4, {1, 4, 1, 3}}, {5, {2, 3, 1, 5, 2}}, {6, {2, 1, 3, 2, 2, 3}},
};
static const int64_t ranks[] = {1, 3, 16, 31, 32, 100};

/* A host problem with random values and the same data in the space. */
typedef struct problem {
  tp_dense hx, dx;
  tp_kruskal hu, du;
} problem;

static void problem_make(tp_dtype dtype, tp_layout layout, const shape *s, int64_t rank,
                         tpt_rng *rng, problem *p) {
  memset(p, 0, sizeof *p);
  TPT_OK(tp_dense_alloc(NULL, dtype, s->d, s->dims, layout, &p->hx));
  TPT_OK(tp_dense_random_uniform(&p->hx, tpt_next_u64(rng)));
  TPT_OK(tp_kruskal_alloc(NULL, dtype, s->d, s->dims, rank, &p->hu));
  TPT_OK(tp_kruskal_random(&p->hu, tpt_next_u64(rng)));
  TPT_OK(tp_dense_alloc(tpt_space, dtype, s->d, s->dims, layout, &p->dx));
  TPT_OK(tp_dense_copy_to_device(tpt_space, &p->dx, &p->hx));
  TPT_OK(tp_kruskal_alloc(tpt_space, dtype, s->d, s->dims, rank, &p->du));
  TPT_OK(tp_kruskal_copy_to_device(tpt_space, &p->du, &p->hu));
}

static void problem_free(problem *p) {
  tp_dense_free(NULL, &p->hx);
  tp_dense_free(tpt_space, &p->dx);
  tp_kruskal_free(NULL, &p->hu);
  tp_kruskal_free(tpt_space, &p->du);
}

/* Max |G - ref| / max |ref| over the whole matrix (G in the space, poisoned before). */
static double compare_with_reference(const problem *p, int mode, const void *G) {
  const int64_t n = p->hx.dims[mode] * p->hu.rank;
  const size_t eb = tp_dtype_size(p->hx.dtype);
  double *ref = (double *)tpt_host_alloc(sizeof(double) * n);
  void *got = tpt_host_alloc(eb * n);
  TPT_OK(tp_mttkrp_reference(&p->hx, &p->hu, mode, ref));
  tpt_to_host(got, G, eb * n);
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < n; ++i)
    scale = fmax(scale, fabs(ref[i]));
  for (int64_t i = 0; i < n; ++i) {
    double g = p->hx.dtype == TP_DTYPE_F32 ? ((float *)got)[i] : ((double *)got)[i];
    double e = isfinite(g) ? fabs(g - ref[i]) / (scale > 0 ? scale : 1) : INFINITY;
    worst = fmax(worst, e);
  }
  free(ref);
  free(got);
  return worst;
}

static void check_variant(tp_mttkrp_options opts) {
  tpt_rng rng = tpt_rng_fresh();
  for (int dt = 0; dt < 2; ++dt) {
    tp_dtype dtype = dt ? TP_DTYPE_F32 : TP_DTYPE_F64;
    double tol = dt ? 1e-5 : 1e-12;
    for (int lay = 0; lay < 2; ++lay)
      for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si)
        for (size_t ri = 0; ri < sizeof ranks / sizeof ranks[0]; ++ri) {
          problem p;
          problem_make(dtype, lay ? TP_LAYOUT_RIGHT : TP_LAYOUT_LEFT, &shapes[si], ranks[ri], &rng,
                       &p);
          for (int mode = 0; mode < shapes[si].d; ++mode) {
            size_t bytes = tp_dtype_size(dtype) * p.hx.dims[mode] * ranks[ri];
            void *G = tpt_alloc_poisoned(bytes);
            TPT_OK(tp_mttkrp(tpt_space, &p.dx, &p.du, mode, G, &opts));
            double err = compare_with_reference(&p, mode, G);
            cr_assert(err <= tol,
                      "%s %s %s order %d shape #%zu mode %d R=%lld: relative error %.3g > %.0e",
                      tp_mttkrp_variant_name(opts.variant), tp_dtype_name(dtype),
                      lay ? "right" : "left", shapes[si].d, si, mode, (long long)ranks[ri], err,
                      tol);
            tpt_free(G);
          }
          problem_free(&p);
        }
  }
}

static tp_mttkrp_options with_variant(tp_mttkrp_variant v) {
  tp_mttkrp_options o = tp_mttkrp_options_default();
  o.variant = v;
  return o;
}

Test(mttkrp, elem) { check_variant(with_variant(TP_MTTKRP_ELEM)); }
Test(mttkrp, slice) { check_variant(with_variant(TP_MTTKRP_SLICE)); }
Test(mttkrp, tile_eq6) { check_variant(with_variant(TP_MTTKRP_TILE)); }
Test(mttkrp, gemm) { check_variant(with_variant(TP_MTTKRP_GEMM)); }
Test(mttkrp, blocked) { check_variant(with_variant(TP_MTTKRP_BLOCKED)); }
Test(mttkrp, auto_choice) { check_variant(with_variant(TP_MTTKRP_AUTO)); }

/* Tiles of edge 2 leave ragged tiles on every odd mode size. */
Test(mttkrp, tile_ragged) {
  tp_mttkrp_options o = with_variant(TP_MTTKRP_TILE);
  o.tile_volume = 32; /* edge 2 up to order 6, 3 for order 4 (27 <= 32) */
  check_variant(o);
}

/* A tiny budget forces many Khatri-Rao passes, partial blocks and split contractions. */
Test(mttkrp, blocked_tiny_budget) {
  tp_mttkrp_options o = with_variant(TP_MTTKRP_BLOCKED);
  o.workspace_bytes = 1500;
  check_variant(o);
}

Test(mttkrp, blocked_middle_budget) {
  tp_mttkrp_options o = with_variant(TP_MTTKRP_BLOCKED);
  o.workspace_bytes = 40000;
  check_variant(o);
}

/* Blocks alternating between concurrent lanes (GPU streams; one lane on the host). */
Test(mttkrp, blocked_lanes) {
  tp_mttkrp_options o = with_variant(TP_MTTKRP_BLOCKED);
  o.workspace_bytes = 6000;
  o.lanes = 3;
  check_variant(o);
}

/* AUTO, GEMM and BLOCKED (one lane, and lanes over rank panels) give the same bits every
 * time: no sum's order depends on how the device schedules its teams or streams. A mode
 * of 3 rows among 6000 other indices spreads each row over many teams on GPUs. */
Test(mttkrp, repeats_bit_for_bit) {
  tpt_rng rng = tpt_rng_fresh();
  const shape tall = {3, {97, 3, 61}};
  problem p;
  problem_make(TP_DTYPE_F64, TP_LAYOUT_LEFT, &tall, 40, &rng, &p);
  tp_mttkrp_options opts[] = {with_variant(TP_MTTKRP_AUTO), with_variant(TP_MTTKRP_GEMM),
                              with_variant(TP_MTTKRP_BLOCKED), with_variant(TP_MTTKRP_BLOCKED)};
  opts[3].lanes = 2;
  opts[3].panel = 16;
  opts[3].workspace_bytes = 20000;
  for (size_t v = 0; v < sizeof opts / sizeof opts[0]; ++v)
    for (int mode = 0; mode < tall.d; ++mode) {
      const size_t bytes = sizeof(double) * (size_t)(tall.dims[mode] * 40);
      double *first = (double *)tpt_host_alloc(bytes), *again = (double *)tpt_host_alloc(bytes);
      for (int run = 0; run < 5; ++run) {
        void *G = tpt_alloc_poisoned(bytes);
        TPT_OK(tp_mttkrp(tpt_space, &p.dx, &p.du, mode, G, &opts[v]));
        cr_assert(compare_with_reference(&p, mode, G) <= 1e-12, "options #%zu mode %d", v, mode);
        tpt_to_host(run == 0 ? first : again, G, bytes);
        cr_assert(run == 0 || memcmp(first, again, bytes) == 0,
                  "options #%zu mode %d: run %d differs from run 0", v, mode, run);
        tpt_free(G);
      }
      free(first);
      free(again);
    }
  problem_free(&p);
}

/* Rank panels: widths that divide no tested rank, with budgets small enough for many
 * blocks and passes per panel, and one larger than every rank (a single panel). */
Test(mttkrp, blocked_panels) {
  static const int64_t widths[] = {7, 16, 1000};
  static const size_t budgets[] = {1500, 40000, 40000};
  for (int i = 0; i < 3; ++i) {
    tp_mttkrp_options o = with_variant(TP_MTTKRP_BLOCKED);
    o.panel = widths[i];
    o.workspace_bytes = budgets[i];
    check_variant(o);
  }
}

/* Odd mode products (odd rows of X for BLOCKED's GEMMs: on GPUs they are then split by
 * row parity, each parity with its own window of columns per pass), with budgets that
 * force several passes and blocks. */
Test(mttkrp, blocked_odd_rows) {
  static const shape odd[] = {{3, {15, 9, 7}}, {4, {9, 5, 3, 11}}, {5, {3, 7, 5, 9, 3}}};
  static const int64_t odd_ranks[] = {1, 16, 100};
  static const size_t budgets[] = {1500, 20000};
  tpt_rng rng = tpt_rng_fresh();
  for (int lay = 0; lay < 2; ++lay)
    for (int si = 0; si < 3; ++si)
      for (int ri = 0; ri < 3; ++ri) {
        if (tpt_fibers_skip(lay + si + ri))
          continue;
        problem p;
        problem_make(TP_DTYPE_F64, lay ? TP_LAYOUT_RIGHT : TP_LAYOUT_LEFT, &odd[si], odd_ranks[ri],
                     &rng, &p);
        for (int b = 0; b < 2; ++b)
          for (int mode = 0; mode < odd[si].d; ++mode) {
            tp_mttkrp_options o = with_variant(TP_MTTKRP_BLOCKED);
            o.workspace_bytes = budgets[b];
            void *G = tpt_alloc_poisoned(sizeof(double) * p.hx.dims[mode] * odd_ranks[ri]);
            TPT_OK(tp_mttkrp(tpt_space, &p.dx, &p.du, mode, G, &o));
            double err = compare_with_reference(&p, mode, G);
            cr_assert(err <= 1e-12, "shape #%d %s mode %d R=%lld budget %zu: error %.3g", si,
                      lay ? "right" : "left", mode, (long long)odd_ranks[ri], budgets[b], err);
            tpt_free(G);
          }
        problem_free(&p);
      }
}

/* The sweep gives every mode's MTTKRP with the factors as they are at that mode, while
 * each factor changes right after its own mode (as CP-ALS updates it). */
static void check_sweep(tp_mttkrp_variant v, size_t workspace) {
  tpt_rng rng = tpt_rng_fresh();
  tp_mttkrp_options opts = with_variant(v);
  opts.workspace_bytes = workspace;
  for (int lay = 0; lay < 2; ++lay)
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
      problem p;
      problem_make(TP_DTYPE_F64, lay ? TP_LAYOUT_RIGHT : TP_LAYOUT_LEFT, &shapes[si], 7, &rng, &p);
      tp_mttkrp_sweep *sw = NULL;
      TPT_OK(tp_mttkrp_sweep_create(tpt_space, &p.dx, 7, &opts, 0, &sw));
      if (v == TP_MTTKRP_ELEM)
        cr_assert_eq(tp_mttkrp_sweep_passes(sw), shapes[si].d);
      else
        cr_assert_eq(tp_mttkrp_sweep_passes(sw), 2, "order %d: %d passes", shapes[si].d,
                     tp_mttkrp_sweep_passes(sw));
      for (int iter = 0; iter < 2; ++iter)
        for (int mode = 0; mode < shapes[si].d; ++mode) {
          void *G = tpt_alloc_poisoned(sizeof(double) * p.hx.dims[mode] * 7);
          TPT_OK(tp_mttkrp_sweep_mode(sw, &p.du, mode, G));
          double err = compare_with_reference(&p, mode, G);
          cr_assert(err <= 1e-12, "sweep %s %s shape #%zu iter %d mode %d: error %.3g",
                    tp_mttkrp_variant_name(v), lay ? "right" : "left", si, iter, mode, err);
          tpt_free(G);
          /* the factor of this mode changes, as a CP-ALS update would change it */
          tp_kruskal fresh;
          TPT_OK(tp_kruskal_alloc(NULL, TP_DTYPE_F64, shapes[si].d, shapes[si].dims, 7, &fresh));
          TPT_OK(tp_kruskal_random(&fresh, tpt_next_u64(&rng)));
          size_t fb = sizeof(double) * shapes[si].dims[mode] * 7;
          memcpy(p.hu.factors[mode], fresh.factors[mode], fb);
          TPT_OK(tp_copy_to_device(tpt_space, p.du.factors[mode], fresh.factors[mode], fb));
          tp_kruskal_free(NULL, &fresh);
        }
      TPT_OK(tp_mttkrp_sweep_destroy(&sw));
      cr_assert_null(sw);
      problem_free(&p);
    }
}

Test(mttkrp, sweep_blocked) { check_sweep(TP_MTTKRP_BLOCKED, 0); }
Test(mttkrp, sweep_blocked_tiny_budget) { check_sweep(TP_MTTKRP_BLOCKED, 1500); }
Test(mttkrp, sweep_gemm) { check_sweep(TP_MTTKRP_GEMM, 0); }
Test(mttkrp, sweep_without_reuse) { check_sweep(TP_MTTKRP_ELEM, 0); }

/* A partial the space cannot hold (its memory limit) is done without, not an error; the
 * MTTKRPs are then each mode's own and still right. */
Test(mttkrp, sweep_goes_without_a_partial_it_cannot_have) {
  tpt_rng rng = tpt_rng_fresh();
  problem p;
  problem_make(TP_DTYPE_F64, TP_LAYOUT_LEFT, &shapes[1], 7, &rng, &p);
  tp_mttkrp_options opts = with_variant(TP_MTTKRP_BLOCKED);
  TPT_OK(tp_space_set_memory_limit(tpt_space, tp_space_bytes_in_use(tpt_space) + 64));
  tp_mttkrp_sweep *sw = NULL;
  TPT_OK(tp_mttkrp_sweep_create(tpt_space, &p.dx, 7, &opts, 0, &sw));
  cr_assert_eq(tp_mttkrp_sweep_passes(sw), shapes[1].d, "%d passes: the partial was had",
               tp_mttkrp_sweep_passes(sw));
  TPT_OK(tp_space_set_memory_limit(tpt_space, 0));
  for (int mode = 0; mode < shapes[1].d; ++mode) {
    void *G = tpt_alloc_poisoned(sizeof(double) * p.hx.dims[mode] * 7);
    TPT_OK(tp_mttkrp_sweep_mode(sw, &p.du, mode, G));
    double err = compare_with_reference(&p, mode, G);
    cr_assert(err <= 1e-12, "mode %d: error %.3g", mode, err);
    tpt_free(G);
  }
  tp_mttkrp_sweep_destroy(&sw);
  problem_free(&p);
}

Test(mttkrp, bad_arguments) {
  tpt_rng rng = tpt_rng_fresh();
  problem p;
  problem_make(TP_DTYPE_F64, TP_LAYOUT_LEFT, &shapes[2], 4, &rng, &p);
  void *G = tpt_alloc_poisoned(sizeof(double) * 7 * 4);
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &p.du, 4, G, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &p.du, -1, G, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &p.du, 0, NULL, NULL), TP_ERROR_INVALID_ARGUMENT);
  tp_kruskal wrong = p.du;
  wrong.dims[1] = 6;
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &wrong, 0, G, NULL), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "mode 1"), "%s", tp_last_error());
  wrong = p.du;
  wrong.dtype = TP_DTYPE_F32;
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &wrong, 0, G, NULL), TP_ERROR_INVALID_ARGUMENT);
  wrong = p.du;
  wrong.rank = 0;
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &wrong, 0, G, NULL), TP_ERROR_INVALID_ARGUMENT);
  tp_mttkrp_options o = tp_mttkrp_options_default();
  o.variant = (tp_mttkrp_variant)42;
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &p.du, 0, G, &o), TP_ERROR_INVALID_ARGUMENT);
  o = tp_mttkrp_options_default();
  o.lanes = TP_SPACE_MAX_LANES + 1;
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &p.du, 0, G, &o), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "lanes"), "%s", tp_last_error());
  o = tp_mttkrp_options_default();
  o.panel = -3;
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &p.du, 0, G, &o), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "panel"), "%s", tp_last_error());
  tp_mttkrp_variant v;
  TPT_FAILS_WITH(tp_mttkrp_variant_parse("fast", &v), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "blocked"), "%s", tp_last_error());
  TPT_OK(tp_mttkrp_variant_parse("tile", &v));
  cr_assert_eq(v, TP_MTTKRP_TILE);
  tpt_free(G);
  problem_free(&p);
}

/* BLOCKED's workspace stays within its budget (counted by the space), at full width and
 * in rank panels, down to budgets of a few rows; the odd sizes make GPUs split the GEMMs
 * by row parity where the depth allows. */
Test(mttkrp, blocked_respects_budget) {
  tpt_rng rng = tpt_rng_fresh();
  const shape big = {4, {23, 19, 17, 13}};
  problem p;
  problem_make(TP_DTYPE_F64, TP_LAYOUT_LEFT, &big, 16, &rng, &p);
  tp_mttkrp_options o = with_variant(TP_MTTKRP_BLOCKED);
  for (int run = 0; run < 24; ++run) {
    if (tpt_fibers_skip(run % 4 + run / 4)) /* every mode, panel and budget still */
      continue;
    const int mode = run % 4;
    o.panel = run % 8 < 4 ? 0 : 5;
    o.workspace_bytes = run < 8 ? 16384 : run < 16 ? 2048 : 640;
    void *G = tpt_alloc_poisoned(sizeof(double) * big.dims[mode] * 16);
    TPT_OK(tp_space_trim(tpt_space));
    size_t before = tp_space_bytes_in_use(tpt_space);
    tp_space_reset_peak(tpt_space);
    TPT_OK(tp_mttkrp(tpt_space, &p.dx, &p.du, mode, G, &o));
    size_t extra = tp_space_bytes_peak(tpt_space) - before;
    /* allocations are rounded up to 256 bytes each */
    cr_assert(extra <= o.workspace_bytes + 512,
              "mode %d (panel %lld) used %zu bytes over a %zu-byte budget", mode,
              (long long)o.panel, extra, o.workspace_bytes);
    cr_assert(compare_with_reference(&p, mode, G) <= 1e-12);
    tpt_free(G);
  }
  /* below one slab and one Khatri-Rao row at one column (4 rows here, as mode 0 has
   * one-row slabs): refused, with the least budget */
  o.workspace_bytes = 3 * sizeof(double);
  void *G = tpt_alloc_poisoned(sizeof(double) * big.dims[0] * 16);
  TPT_FAILS_WITH(tp_mttkrp(tpt_space, &p.dx, &p.du, 0, G, &o), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "too small") && strstr(tp_last_error(), "at least"), "%s",
            tp_last_error());
  tpt_free(G);
  problem_free(&p);
}
