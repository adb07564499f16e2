/* Sparse MTTKRP: FLYCOO (every mode, with and without remapping, cut rows, any kappa) and
 * the atomic baseline against the double-precision COO reference; the partition
 * invariants; the record cycle; bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tpt.h"
#include "tenport/sparse_mttkrp.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_internal.h"

TestSuite(sparse_mttkrp, .init = tpt_setup, .fini = tpt_teardown);

typedef enum shape_kind { UNIFORM, SKEWED, ONE_SLICE, EVEN_ONLY } shape_kind;

/* A host COO tensor with nnz random nonzeros (duplicates allowed: MTTKRP is linear). */
static tp_coo make_coo(tpt_rng *rng, tp_dtype dtype, int order, const int64_t *dims, int64_t nnz,
                       shape_kind kind) {
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, dtype, order, dims, nnz, &t));
  for (int64_t x = 0; x < nnz; ++x) {
    for (int m = 0; m < order; ++m) {
      double u = tpt_uniform(rng, 0, 1);
      int64_t i = (int64_t)((kind == SKEWED ? pow(u, 4) : u) * (double)dims[m]);
      if (kind == ONE_SLICE && m == 0)
        i = dims[0] / 2;
      if (kind == EVEN_ONLY)
        i -= i % 2;
      t.indices[m][x] = i < dims[m] ? i : dims[m] - 1;
    }
    double v = tpt_uniform(rng, -1, 1);
    if (dtype == TP_DTYPE_F32)
      ((float *)t.values)[x] = (float)v;
    else
      ((double *)t.values)[x] = v;
  }
  return t;
}

typedef struct factors {
  tp_kruskal host, dev;
} factors;

static factors make_factors(tp_dtype dtype, int order, const int64_t *dims, int64_t R,
                            uint64_t seed) {
  factors f;
  TPT_OK(tp_kruskal_alloc(NULL, dtype, order, dims, R, &f.host));
  TPT_OK(tp_kruskal_random(&f.host, seed));
  TPT_OK(tp_kruskal_alloc(tpt_space, dtype, order, dims, R, &f.dev));
  TPT_OK(tp_kruskal_copy_to_device(tpt_space, &f.dev, &f.host));
  return f;
}

static void free_factors(factors *f) {
  tp_kruskal_free(NULL, &f->host);
  tp_kruskal_free(tpt_space, &f->dev);
}

/* max |G - ref| / max |scale| (0 when both vanish); scale = ref, or the MTTKRP of the
 * values' magnitudes, which bounds the rounding of sums that cancel. */
static double rel_error_to(const void *G, tp_dtype dtype, const double *ref, const double *scale_of,
                           int64_t n) {
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < n; ++i) {
    double g = dtype == TP_DTYPE_F32 ? (double)((const float *)G)[i] : ((const double *)G)[i];
    if (isnan(g))
      return INFINITY;
    diff = fmax(diff, fabs(g - ref[i]));
    scale = fmax(scale, fabs(scale_of[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

static double rel_error(const void *G, tp_dtype dtype, const double *ref, int64_t n) {
  return rel_error_to(G, dtype, ref, ref, n);
}

/* The tensor with every value replaced by its magnitude (host). */
static tp_coo magnitudes(const tp_coo *host) {
  tp_coo a;
  TPT_OK(tp_coo_alloc(NULL, host->dtype, host->order, host->dims, host->nnz, &a));
  for (int m = 0; m < host->order; ++m)
    memcpy(a.indices[m], host->indices[m], sizeof(int64_t) * (size_t)host->nnz);
  for (int64_t x = 0; x < host->nnz; ++x) {
    if (host->dtype == TP_DTYPE_F32)
      ((float *)a.values)[x] = fabsf(((const float *)host->values)[x]);
    else
      ((double *)a.values)[x] = fabs(((const double *)host->values)[x]);
  }
  return a;
}

/* G (in the space) against the reference of mode `mode`. */
static void check_g(const tp_coo *host, const factors *f, int mode, const void *G_dev,
                    const char *what) {
  const int64_t n = host->dims[mode] * f->host.rank;
  const size_t eb = tp_dtype_size(host->dtype);
  double *ref = tpt_host_alloc(sizeof(double) * (size_t)n);
  double *bound = tpt_host_alloc(sizeof(double) * (size_t)n);
  void *G = tpt_host_alloc(eb * (size_t)n);
  tp_coo abs_x = magnitudes(host); /* factors are in [0, 1): only values change sign */
  TPT_OK(tp_coo_mttkrp_reference(host, &f->host, mode, ref));
  TPT_OK(tp_coo_mttkrp_reference(&abs_x, &f->host, mode, bound));
  tp_coo_free(NULL, &abs_x);
  tpt_to_host(G, G_dev, eb * (size_t)n);
  const double tol = host->dtype == TP_DTYPE_F32 ? 1e-5 : 1e-12;
  double err = rel_error_to(G, host->dtype, ref, bound, n);
  cr_assert(err <= tol, "%s: order %d mode %d R %lld nnz %lld: relative error %.3e > %.1e", what,
            host->order, mode, (long long)f->host.rank, (long long)host->nnz, err, tol);
  free(ref);
  free(bound);
  free(G);
}

/* Every mode in sequence with remapping, then every mode again in a scrambled order
 * (permutation passes, no remap), for one record copy set (opts->copies); remaps: the
 * layout expected (-1: either). */
static void check_flycoo(const tp_coo *host, const factors *f, void *G,
                         const tp_flycoo_options *opts, int remaps) {
  tp_flycoo *fly = NULL;
  TPT_OK(tp_flycoo_create(tpt_space, host, opts, &fly));
  tp_flycoo_stats st;
  TPT_OK(tp_flycoo_get_stats(fly, &st));
  cr_assert_eq(st.copies, opts->copies ? opts->copies : st.copies);
  cr_assert(remaps < 0 || st.remaps == remaps, "order %d copies %d: remaps %d, not %d", host->order,
            opts->copies, st.remaps, remaps);
  for (int m = 0; m < host->order; ++m) {
    cr_assert_eq(tp_flycoo_mode(fly), m);
    TPT_OK(tp_flycoo_mttkrp(tpt_space, fly, &f->dev, m, G, 1));
    check_g(host, f, m, G, st.remaps ? "flycoo remap" : "flycoo, a copy per mode");
  }
  for (int k = 0; k < host->order; ++k) {
    int m = (3 * k + 1) % host->order;
    TPT_OK(tp_flycoo_mttkrp(tpt_space, fly, &f->dev, m, G, 0));
    cr_assert_eq(tp_flycoo_mode(fly), m);
    check_g(host, f, m, G, st.remaps ? "flycoo reorder" : "flycoo, a copy per mode");
  }
  TPT_OK(tp_flycoo_destroy(&fly));
  cr_assert_null(fly);
}

/* FLYCOO with the options given, or else with both record copy sets (two buffers with
 * remapping, and one per mode: for 2 modes the default's), then the baseline. */
static void check_tensor(const tp_coo *host, int64_t R, const tp_flycoo_options *opts) {
  factors f = make_factors(host->dtype, host->order, host->dims, R, 7);
  int64_t most = 0;
  for (int m = 0; m < host->order; ++m)
    most = host->dims[m] > most ? host->dims[m] : most;
  void *G = tpt_alloc_poisoned(tp_dtype_size(host->dtype) * (size_t)(most * R));
  tp_flycoo_options o = opts ? *opts : tp_flycoo_options_default();
  if (opts) {
    check_flycoo(host, &f, G, &o, -1);
  } else {
    o.copies = 2;
    check_flycoo(host, &f, G, &o, 1);
    o.copies = host->order > 2 ? host->order : 0;
    check_flycoo(host, &f, G, &o, 0);
  }
  tp_coo dev;
  TPT_OK(tp_coo_copy_to_device(tpt_space, &dev, host));
  for (int m = 0; m < host->order; ++m) {
    TPT_OK(tp_coo_mttkrp_atomic(tpt_space, &dev, &f.dev, m, G));
    check_g(host, &f, m, G, "atomic baseline");
  }
  tp_coo_free(tpt_space, &dev);
  tpt_free(G);
  free_factors(&f);
}

static const int64_t dims2[] = {23, 19}, dims3[] = {17, 1, 29}, dims4[] = {7, 13, 5, 11},
                     dims5[] = {5, 3, 7, 2, 6}, dims6[] = {3, 4, 2, 5, 3, 7};
/* Shapes of 2 to 6 modes: shapes[order - 2]. */
static const int64_t *const shapes[] = {dims2, dims3, dims4, dims5, dims6};

static void check_orders(tp_dtype dtype, shape_kind kind, int64_t nnz) {
  const int64_t ranks[] = {1, 3, 16, 31, 32, 100};
  tpt_rng rng = tpt_rng_fresh();
  for (int s = 0; s < 5; ++s) {
    tp_coo t = make_coo(&rng, dtype, 2 + s, shapes[s], nnz, kind);
    for (int r = 0; r < 6; ++r)
      if (!tpt_fibers_skip(s + r))
        check_tensor(&t, ranks[r], NULL);
    tp_coo_free(NULL, &t);
  }
}

Test(sparse_mttkrp, uniform_f64) { check_orders(TP_DTYPE_F64, UNIFORM, 257); }
Test(sparse_mttkrp, uniform_f32) { check_orders(TP_DTYPE_F32, UNIFORM, 257); }
Test(sparse_mttkrp, skewed_f64) { check_orders(TP_DTYPE_F64, SKEWED, 611); }
Test(sparse_mttkrp, all_in_one_slice) { check_orders(TP_DTYPE_F64, ONE_SLICE, 97); }
Test(sparse_mttkrp, empty_slices) { check_orders(TP_DTYPE_F32, EVEN_ONLY, 131); }
Test(sparse_mttkrp, single_nonzero) { check_orders(TP_DTYPE_F64, UNIFORM, 1); }

/* The paper's partitioning (no cut rows), kappa from 1 to more partitions than rows. */
Test(sparse_mttkrp, any_kappa_and_paper_partitioning) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo t = make_coo(&rng, TP_DTYPE_F64, 4, dims4, 1003, SKEWED);
  const int kappas[] = {1, 2, 3, 7, 64, 1000};
  for (int k = 0; k < 6; ++k)
    for (int split = 0; split < 2; ++split) {
      tp_flycoo_options o = tp_flycoo_options_default();
      o.partitions = kappas[k];
      o.split_rows = split;
      for (int copies = 2; copies <= 4; copies += 2) { /* remapping; a copy per mode */
        o.copies = copies;
        if (!tpt_fibers_skip(k + split + copies / 2))
          check_tensor(&t, 33, &o);
      }
    }
  tp_coo_free(NULL, &t);
}

/* The sparse result equals the dense MTTKRP of the same tensor. */
Test(sparse_mttkrp, matches_dense_reference) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo t = make_coo(&rng, TP_DTYPE_F64, 4, dims4, 300, UNIFORM);
  TPT_OK(tp_coo_sum_duplicates(&t, NULL));
  tp_dense d;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 4, dims4, TP_LAYOUT_LEFT, &d));
  memset(d.data, 0, sizeof(double) * (size_t)tp_dense_count(&d));
  for (int64_t x = 0; x < t.nnz; ++x) {
    int64_t at = 0, stride = 1;
    for (int m = 0; m < 4; ++m)
      at += t.indices[m][x] * stride, stride *= dims4[m];
    ((double *)d.data)[at] = ((double *)t.values)[x];
  }
  factors f = make_factors(TP_DTYPE_F64, 4, dims4, 5, 3);
  void *G = tpt_alloc_poisoned(sizeof(double) * 13 * 5);
  tp_flycoo *fly = NULL;
  TPT_OK(tp_flycoo_create(tpt_space, &t, NULL, &fly));
  for (int m = 0; m < 4; ++m) {
    double ref[13 * 5], host[13 * 5];
    TPT_OK(tp_mttkrp_reference(&d, &f.host, m, ref));
    TPT_OK(tp_flycoo_mttkrp(tpt_space, fly, &f.dev, m, G, 1));
    tpt_to_host(host, G, sizeof(double) * (size_t)(dims4[m] * 5));
    cr_assert(rel_error(host, TP_DTYPE_F64, ref, dims4[m] * 5) <= 1e-12, "mode %d", m);
  }
  TPT_OK(tp_flycoo_destroy(&fly));
  tpt_free(G);
  free_factors(&f);
  tp_dense_free(NULL, &d);
  tp_coo_free(NULL, &t);
}

/* After a full cycle of modes the records are back in mode 0's order, values intact. */
Test(sparse_mttkrp, full_cycle_restores_order) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo t = make_coo(&rng, TP_DTYPE_F32, 5, dims5, 777, SKEWED);
  factors f = make_factors(TP_DTYPE_F32, 5, dims5, 8, 5);
  void *G = tpt_alloc_poisoned(sizeof(float) * 7 * 8);
  tp_flycoo *fly = NULL;
  tp_flycoo_options two = tp_flycoo_options_default();
  two.copies = 2; /* remapping moves the records */
  TPT_OK(tp_flycoo_create(tpt_space, &t, &two, &fly));
  tp_coo before, after;
  TPT_OK(tp_flycoo_to_coo(tpt_space, fly, &before));
  for (int m = 0; m < 5; ++m)
    TPT_OK(tp_flycoo_mttkrp(tpt_space, fly, &f.dev, m, G, 1));
  cr_assert_eq(tp_flycoo_mode(fly), 0);
  TPT_OK(tp_flycoo_to_coo(tpt_space, fly, &after));
  cr_assert_eq(before.nnz, t.nnz);
  for (int m = 0; m < 5; ++m)
    cr_assert(memcmp(before.indices[m], after.indices[m], sizeof(int64_t) * (size_t)t.nnz) == 0,
              "mode %d indices moved", m);
  cr_assert(memcmp(before.values, after.values, sizeof(float) * (size_t)t.nnz) == 0);
  /* and the records hold exactly the input's nonzeros */
  double sum_in = 0, sum_out = 0;
  for (int64_t x = 0; x < t.nnz; ++x) {
    sum_in += ((float *)t.values)[x] * (double)(t.indices[2][x] + 1);
    sum_out += ((float *)after.values)[x] * (double)(after.indices[2][x] + 1);
  }
  cr_assert(fabs(sum_in - sum_out) <= 1e-9 * fabs(sum_in) + 1e-12);
  tp_coo_free(NULL, &before);
  tp_coo_free(NULL, &after);
  TPT_OK(tp_flycoo_destroy(&fly));
  tpt_free(G);
  free_factors(&f);
  tp_coo_free(NULL, &t);
}

/* A value and its coordinates, to compare nonzeros as a multiset. */
typedef struct entry {
  int64_t idx[6];
  double value;
} entry;

static int entry_cmp(const void *a, const void *b) {
  const entry *x = (const entry *)a, *y = (const entry *)b;
  for (int m = 0; m < 6; ++m)
    if (x->idx[m] != y->idx[m])
      return x->idx[m] < y->idx[m] ? -1 : 1;
  return (x->value > y->value) - (x->value < y->value);
}

static entry *sorted_entries(const tp_coo *t) {
  entry *e = tpt_host_alloc(sizeof(entry) * (size_t)t->nnz);
  for (int64_t x = 0; x < t->nnz; ++x) {
    memset(&e[x], 0, sizeof e[x]);
    for (int m = 0; m < t->order; ++m)
      e[x].idx[m] = t->indices[m][x];
    e[x].value = t->dtype == TP_DTYPE_F32 ? (double)((const float *)t->values)[x]
                                          : ((const double *)t->values)[x];
  }
  qsort(e, (size_t)t->nnz, sizeof(entry), entry_cmp);
  return e;
}

/* Record bytes by order 2..6: [remaps][f64] (flycoo_record_layout, written out). */
static const int record_bytes[2][2][5] = {
    {{12, 16, 20, 24, 28}, {16, 24, 24, 32, 32}}, /* a copy per mode: indices, value */
    {{32, 32, 64, 64, 64}, {32, 32, 64, 64, 64}}, /* remapping: + positions, sectors */
};

/* A space counts an allocation in whole units of this many bytes (space_common.c). */
enum { SPACE_UNIT = 256 };

static size_t in_units(size_t bytes) { return (bytes + SPACE_UNIT - 1) / SPACE_UNIT * SPACE_UNIT; }

/* The bytes the structure should hold in the space: the record copies and every mode's
 * plan arrays (each at least one word). */
static size_t expected_bytes(const tp_flycoo_stats *st) {
  const size_t n = (size_t)(st->nnz > 0 ? st->nnz : 1);
  size_t b = (size_t)st->copies * in_units(n * (size_t)st->record_bytes);
  for (int m = 0; m < st->order; ++m) {
    const int64_t w[] = {st->pieces[m] + 1, st->pieces[m], st->partitions + 1, st->split_rows[m],
                         st->split_rows[m] + 1};
    for (int a = 0; a < 5; ++a)
      b += in_units(sizeof(uint32_t) * (size_t)(w[a] > 0 ? w[a] : 1));
  }
  return b;
}

/* Both record layouts: their sizes, the memory held, and every copy holding exactly the
 * input's nonzeros with each row of its mode together. */
static void check_layout(tp_dtype dtype, int order, const int64_t *dims) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo t = make_coo(&rng, dtype, order, dims, 401, SKEWED);
  entry *want = sorted_entries(&t);
  for (int remaps = 0; remaps < 2; ++remaps) {
    tp_flycoo_options o = tp_flycoo_options_default();
    o.copies = remaps ? 2 : (order > 2 ? order : 0); /* 2 modes: the default's copies */
    o.split_rows = 0;                                /* whole rows: each row's records adjacent */
    tp_flycoo *fly = NULL;
    TPT_OK(tp_flycoo_create(tpt_space, &t, &o, &fly));
    tp_flycoo_stats st;
    TPT_OK(tp_flycoo_get_stats(fly, &st));
    cr_assert_eq(st.remaps, remaps);
    cr_assert_eq(st.copies, remaps ? 2 : order);
    const int want_bytes = record_bytes[remaps][dtype == TP_DTYPE_F64][order - 2];
    cr_assert_eq(st.record_bytes, want_bytes, "order %d %s remaps %d: %d-byte records, not %d",
                 order, tp_dtype_name(dtype), remaps, st.record_bytes, want_bytes);
    cr_assert_eq(st.device_bytes, expected_bytes(&st),
                 "order %d remaps %d: %zu bytes held, not %zu", order, remaps, st.device_bytes,
                 expected_bytes(&st));
    for (int m = 0; m < order; ++m) {
      TPT_OK(tp_flycoo_reorder(tpt_space, fly, m));
      tp_coo back;
      TPT_OK(tp_flycoo_to_coo(tpt_space, fly, &back));
      int64_t runs = 0; /* a row's records form one run */
      for (int64_t x = 0; x < back.nnz; ++x)
        runs += x == 0 || back.indices[m][x] != back.indices[m][x - 1];
      cr_assert_eq(runs, st.rows[m], "order %d remaps %d mode %d: rows split", order, remaps, m);
      entry *got = sorted_entries(&back);
      cr_assert(memcmp(got, want, sizeof(entry) * (size_t)t.nnz) == 0,
                "order %d remaps %d mode %d: the records differ from the input", order, remaps, m);
      free(got);
      tp_coo_free(NULL, &back);
    }
    TPT_OK(tp_flycoo_destroy(&fly));
  }
  free(want);
  tp_coo_free(NULL, &t);
}

Test(sparse_mttkrp, record_layouts) {
  for (int s = 0; s < 5; ++s) {
    check_layout(TP_DTYPE_F32, 2 + s, shapes[s]);
    check_layout(TP_DTYPE_F64, 2 + s, shapes[s]);
  }
}

/* The default: a copy per mode for 2 to 5 modes, remapping from 6, in both precisions. */
Test(sparse_mttkrp, default_copies) {
  tpt_rng rng = tpt_rng_fresh();
  for (int s = 0; s < 5; ++s)
    for (int d = 0; d < 2; ++d) {
      const int order = 2 + s;
      tp_coo t = make_coo(&rng, d ? TP_DTYPE_F64 : TP_DTYPE_F32, order, shapes[s], 50, UNIFORM);
      tp_flycoo *fly = NULL;
      tp_flycoo_stats st;
      TPT_OK(tp_flycoo_create(tpt_space, &t, NULL, &fly));
      TPT_OK(tp_flycoo_get_stats(fly, &st));
      cr_assert_eq(st.remaps, order > 5, "order %d: remaps %d", order, st.remaps);
      cr_assert_eq(st.copies, order > 5 ? 2 : order);
      TPT_OK(tp_flycoo_destroy(&fly));
      tp_coo_free(NULL, &t);
    }
}

/* A tensor without nonzeros: G is all zeros in every mode, in both layouts. */
Test(sparse_mttkrp, no_nonzeros) {
  for (int s = 0; s < 5; ++s) {
    const int order = 2 + s;
    tp_coo t;
    TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, order, shapes[s], 0, &t));
    factors f = make_factors(TP_DTYPE_F64, order, shapes[s], 3, 11);
    double *G = tpt_alloc_poisoned(sizeof(double) * 29 * 3), host[29 * 3];
    for (int remaps = 0; remaps < 2; ++remaps) {
      tp_flycoo_options o = tp_flycoo_options_default();
      o.copies = remaps ? 2 : 0;
      tp_flycoo *fly = NULL;
      TPT_OK(tp_flycoo_create(tpt_space, &t, &o, &fly));
      for (int m = 0; m < order; ++m) {
        TPT_OK(tp_flycoo_mttkrp(tpt_space, fly, &f.dev, m, G, 1));
        tpt_to_host(host, G, sizeof(double) * (size_t)(shapes[s][m] * 3));
        for (int64_t i = 0; i < shapes[s][m] * 3; ++i)
          cr_assert(host[i] == 0.0, "order %d mode %d remaps %d: G[%lld] = %g", order, m, remaps,
                    (long long)i, host[i]);
      }
      TPT_OK(tp_flycoo_destroy(&fly));
      /* the freed blocks go back now: one the build also gave to the host's free() (an
       * empty tensor's staged indices on a GPU space, once) is a double free here */
      TPT_OK(tp_space_trim(tpt_space));
    }
    tpt_free(G);
    free_factors(&f);
    tp_coo_free(NULL, &t);
  }
}

/* ---- partition invariants (the host plan) ------------------------------------------ */

/* Smallest possible largest partition, by trying every assignment (tiny cases only). */
static int64_t best_makespan(const int64_t *sizes, int n, int kappa) {
  int64_t best = INT64_MAX;
  int64_t assignments = 1;
  for (int i = 0; i < n; ++i)
    assignments *= kappa;
  for (int64_t a = 0; a < assignments; ++a) {
    int64_t load[8] = {0}, code = a, most = 0;
    for (int i = 0; i < n; ++i, code /= kappa)
      load[code % kappa] += sizes[i];
    for (int p = 0; p < kappa; ++p)
      most = load[p] > most ? load[p] : most;
    best = most < best ? most : best;
  }
  return best;
}

static void check_plan(const tp_coo *t, int mode, int kappa, int split) {
  flycoo_mode_plan p;
  TPT_OK(flycoo_plan_mode(t, mode, kappa, split, &p));
  const int64_t dim = t->dims[mode];
  /* positions: a permutation, and each nonzero inside a piece of its own row */
  char *hit = calloc((size_t)t->nnz, 1);
  for (int64_t x = 0; x < t->nnz; ++x) {
    cr_assert_lt(p.position[x], (uint32_t)t->nnz);
    cr_assert_eq(hit[p.position[x]], 0, "position %u taken twice", p.position[x]);
    hit[p.position[x]] = 1;
  }
  /* every row in exactly one partition (uncut rows), pieces in order */
  int *part_of_row = malloc(sizeof(int) * (size_t)dim);
  for (int64_t i = 0; i < dim; ++i)
    part_of_row[i] = -1;
  int64_t most = 0, total = 0, biggest_piece = 0;
  for (int q = 0; q < kappa; ++q) {
    int64_t load = 0;
    for (uint32_t j = p.part_piece[q]; j < p.part_piece[q + 1]; ++j) {
      int64_t size = p.piece_start[j + 1] - p.piece_start[j];
      cr_assert_gt(size, 0);
      load += size;
      biggest_piece = size > biggest_piece ? size : biggest_piece;
      if (p.piece_slot[j] < dim) {
        cr_assert_eq(part_of_row[p.piece_slot[j]], -1, "row %u in two partitions", p.piece_slot[j]);
        part_of_row[p.piece_slot[j]] = q;
      }
    }
    most = load > most ? load : most;
    total += load;
  }
  cr_assert_eq(total, t->nnz);
  cr_assert_eq(most, p.max_partition);
  if (!split)
    cr_assert_eq(p.split_rows, 0);
  /* Graham's bound for list scheduling: average plus the largest piece */
  cr_assert_leq(most, (t->nnz + kappa - 1) / kappa + biggest_piece);
  for (int64_t x = 0; x < t->nnz; ++x) {
    int64_t row = t->indices[mode][x];
    if (!split || p.split_rows == 0)
      cr_assert_geq(part_of_row[row], 0, "row %lld has no partition", (long long)row);
  }
  free(hit);
  free(part_of_row);
  flycoo_plan_free(&p);
}

Test(sparse_mttkrp, partitions_cover_rows_and_positions_permute) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[] = {50, 9, 300};
  tp_coo t = make_coo(&rng, TP_DTYPE_F64, 3, dims, 5000, SKEWED);
  const int kappas[] = {1, 4, 13, 132};
  for (int k = 0; k < 4; ++k)
    for (int m = 0; m < 3; ++m)
      for (int split = 0; split < 2; ++split)
        check_plan(&t, m, kappas[k], split);
  tp_coo_free(NULL, &t);
}

/* The paper's bound: the largest partition within 4/3 of the optimum (brute force). */
Test(sparse_mttkrp, largest_partition_within_four_thirds_of_optimum) {
  tpt_rng rng = tpt_rng_fresh();
  for (int trial = 0; trial < 40; ++trial) {
    const int rows = (int)tpt_int(&rng, 3, 9), kappa = (int)tpt_int(&rng, 2, 3);
    const int64_t dims[] = {rows, 1};
    int64_t sizes[9], nnz = 0;
    for (int i = 0; i < rows; ++i)
      nnz += sizes[i] = tpt_int(&rng, 1, 20);
    tp_coo t;
    TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, nnz, &t));
    int64_t x = 0;
    for (int i = 0; i < rows; ++i)
      for (int64_t c = 0; c < sizes[i]; ++c, ++x)
        t.indices[0][x] = i, t.indices[1][x] = 0, ((double *)t.values)[x] = 1;
    flycoo_mode_plan p;
    TPT_OK(flycoo_plan_mode(&t, 0, kappa, 0, &p));
    int64_t opt = best_makespan(sizes, rows, kappa);
    cr_assert_leq(3 * p.max_partition, 4 * opt, "largest %lld, optimum %lld",
                  (long long)p.max_partition, (long long)opt);
    flycoo_plan_free(&p);
    tp_coo_free(NULL, &t);
  }
}

Test(sparse_mttkrp, bad_arguments) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo t = make_coo(&rng, TP_DTYPE_F64, 3, dims3, 40, UNIFORM);
  tp_flycoo *fly = NULL;
  TPT_OK(tp_flycoo_create(tpt_space, &t, NULL, &fly));
  factors f = make_factors(TP_DTYPE_F64, 3, dims3, 4, 1);
  void *G = tpt_alloc_poisoned(sizeof(double) * 29 * 4);
  TPT_FAILS_WITH(tp_flycoo_mttkrp(tpt_space, fly, &f.dev, 3, G, 1), TP_ERROR_INVALID_ARGUMENT);
  tp_kruskal wrong = f.dev;
  wrong.dims[2] = 28;
  TPT_FAILS_WITH(tp_flycoo_mttkrp(tpt_space, fly, &wrong, 0, G, 1), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "factor 2"), "%s", tp_last_error());
  wrong = f.dev;
  wrong.dtype = TP_DTYPE_F32;
  TPT_FAILS_WITH(tp_flycoo_mttkrp(tpt_space, fly, &wrong, 0, G, 1), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_flycoo_mttkrp(tpt_space, fly, &f.dev, 0, NULL, 1), TP_ERROR_INVALID_ARGUMENT);
  tp_coo one = t;
  one.order = 1;
  tp_flycoo *bad = NULL;
  TPT_FAILS_WITH(tp_flycoo_create(tpt_space, &one, NULL, &bad), TP_ERROR_INVALID_ARGUMENT);
  cr_assert_null(bad);
  tp_flycoo_options o = tp_flycoo_options_default();
  o.partitions = -2;
  TPT_FAILS_WITH(tp_flycoo_create(tpt_space, &t, &o, &bad), TP_ERROR_INVALID_ARGUMENT);
  o = tp_flycoo_options_default();
  o.copies = 4; /* neither 2 nor the order, 3 */
  TPT_FAILS_WITH(tp_flycoo_create(tpt_space, &t, &o, &bad), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "copies 4"), "%s", tp_last_error());
  cr_assert_null(bad);
  TPT_OK(tp_flycoo_destroy(&fly));
  tpt_free(G);
  free_factors(&f);
  tp_coo_free(NULL, &t);
}

/* ---- the build in the space against the host reference, bit for bit ------------------- */

static uint32_t *words_to_host(const uint32_t *dev, int64_t n) {
  uint32_t *h = tpt_host_alloc(sizeof(uint32_t) * (size_t)(n > 0 ? n : 1));
  if (n > 0)
    tpt_to_host(h, dev, sizeof(uint32_t) * (size_t)n);
  return h;
}

static void check_words(const uint32_t *dev, const uint32_t *want, int64_t n, const char *what,
                        const tp_coo *t, int mode) {
  uint32_t *got = words_to_host(dev, n);
  for (int64_t i = 0; i < n; ++i)
    cr_assert_eq(got[i], want[i], "order %d nnz %lld mode %d: %s[%lld] = %u, the host's %u",
                 t->order, (long long)t->nnz, mode, what, (long long)i, got[i], want[i]);
  free(got);
}

/* Mode `mode`'s records as the host reference lays them out from its plans. */
static uint32_t *reference_records(const tp_coo *t, const flycoo_mode_plan *plans, flycoo_layout l,
                                   int mode) {
  const size_t vb = tp_dtype_size(t->dtype);
  uint32_t *rec = tpt_host_alloc(sizeof(uint32_t) * (size_t)(t->nnz * l.stride + 1));
  memset(rec, 0, sizeof(uint32_t) * (size_t)(t->nnz * l.stride + 1));
  for (int64_t x = 0; x < t->nnz; ++x) {
    uint32_t *r = rec + (size_t)plans[mode].position[x] * (size_t)l.stride;
    for (int m = 0; m < t->order; ++m) {
      r[m] = (uint32_t)t->indices[m][x];
      if (l.positions)
        r[t->order + m] = plans[m].position[x];
    }
    memcpy(r + l.value_word, (const char *)t->values + (size_t)x * vb, vb);
  }
  return rec;
}

static void check_plan_matches(const tp_flycoo *fly, const tp_coo *t, const flycoo_mode_plan *p,
                               int mode, int kappa) {
  const flycoo_mode_dev *d = flycoo_plan_of(fly, mode);
  cr_assert_eq(d->pieces, p->pieces, "mode %d: %lld pieces, the host's %lld", mode,
               (long long)d->pieces, (long long)p->pieces);
  cr_assert_eq(d->split_rows, p->split_rows);
  cr_assert_eq(d->partial_rows, p->partial_rows);
  check_words(d->piece_start, p->piece_start, p->pieces + 1, "piece_start", t, mode);
  check_words(d->piece_slot, p->piece_slot, p->pieces, "piece_slot", t, mode);
  check_words(d->part_piece, p->part_piece, kappa + 1, "part_piece", t, mode);
  check_words(d->split_row, p->split_row, p->split_rows, "split_row", t, mode);
  check_words(d->split_first, p->split_first, p->split_rows + 1, "split_first", t, mode);
  tp_flycoo_stats st;
  TPT_OK(tp_flycoo_get_stats(fly, &st));
  cr_assert_eq(st.rows[mode], p->rows);
  cr_assert_eq(st.max_partition[mode], p->max_partition);
}

/* Built from the host tensor or from its copy in the space: every plan and record word
 * equals flycoo_plan_mode's and its layout's. */
static void check_build(const tp_coo *t, const tp_flycoo_options *o, int in_space) {
  tp_flycoo *fly = NULL;
  if (in_space) {
    tp_coo dev;
    TPT_OK(tp_coo_copy_to_device(tpt_space, &dev, t));
    TPT_OK(tp_flycoo_create_in_space(tpt_space, &dev, o, &fly));
    tp_coo_free(tpt_space, &dev);
  } else {
    TPT_OK(tp_flycoo_create(tpt_space, t, o, &fly));
  }
  tp_flycoo_stats st;
  TPT_OK(tp_flycoo_get_stats(fly, &st));
  flycoo_mode_plan plans[TP_COO_MAX_ORDER];
  for (int m = 0; m < t->order; ++m) {
    TPT_OK(flycoo_plan_mode(t, m, st.partitions, o->split_rows, &plans[m]));
    check_plan_matches(fly, t, &plans[m], m, st.partitions);
  }
  const flycoo_layout l = flycoo_layout_of(fly);
  for (int b = 0; b < st.copies && (b == 0 || !l.positions); ++b) {
    uint32_t *want = reference_records(t, plans, l, b);
    check_words(flycoo_records_of(fly, b), want, t->nnz * l.stride, "records", t, b);
    free(want);
  }
  double norm2 = 0;
  tp_coo merged;
  TPT_OK(tp_coo_alloc(NULL, t->dtype, t->order, t->dims, t->nnz, &merged));
  for (int m = 0; m < t->order; ++m)
    memcpy(merged.indices[m], t->indices[m], sizeof(int64_t) * (size_t)t->nnz);
  memcpy(merged.values, t->values, tp_dtype_size(t->dtype) * (size_t)t->nnz);
  TPT_OK(tp_coo_sum_duplicates(&merged, NULL));
  norm2 = tp_coo_norm2(&merged);
  cr_assert(fabs(st.norm2 - norm2) <= 1e-12 * norm2, "norm2 %.17g, the host's %.17g", st.norm2,
            norm2);
  tp_coo_free(NULL, &merged);
  for (int m = 0; m < t->order; ++m)
    flycoo_plan_free(&plans[m]);
  TPT_OK(tp_flycoo_destroy(&fly));
}

/* Every partition count (1 to more than the rows) with one of the four variants (rows
 * split or not, copies or not), on both inputs and layouts. */
static void check_builds(const tp_coo *t, int variant) {
  const int kappas[] = {1, 3, 64};
  for (int k = 0; k < 3; ++k) {
    tp_flycoo_options o = tp_flycoo_options_default();
    o.partitions = kappas[k];
    o.split_rows = variant & 1;
    o.copies = variant & 2 ? 2 : 0;
    check_build(t, &o, (k + variant) % 2);
  }
}

/* Each shape's twelve tensors (kinds x sizes) take the four variants three times each. */
Test(sparse_mttkrp, build_matches_host_reference) {
  tpt_rng rng = tpt_rng_fresh();
  const shape_kind kinds[] = {UNIFORM, SKEWED, ONE_SLICE, EVEN_ONLY};
  const int64_t sizes[] = {1, 97, 1003};
  for (int s = 0; s < 5; ++s)
    for (int k = 0; k < 4; ++k)
      for (int n = 0; n < 3; ++n) {
        if (tpt_fibers_skip(s + n)) /* both dtypes still: they alternate with k */
          continue;
        tp_dtype dtype = (s + k + n) % 2 ? TP_DTYPE_F64 : TP_DTYPE_F32;
        tp_coo t = make_coo(&rng, dtype, 2 + s, shapes[s], sizes[n], kinds[k]);
        check_builds(&t, (3 * k + n + s) % 4);
        tp_coo_free(NULL, &t);
      }
}

/* Long runs of equal rows (the placement by threshold), a mode of one row, heavy rows. */
Test(sparse_mttkrp, build_matches_host_reference_large) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[] = {20011, 1, 613};
  for (int skewed = 0; skewed < 2; ++skewed) {
    tp_coo t = make_coo(&rng, TP_DTYPE_F32, 3, dims, 60013, skewed ? SKEWED : UNIFORM);
    const int kappas[] = {2, 7, 132};
    for (int k = 0; k < 3; ++k) {
      tp_flycoo_options o = tp_flycoo_options_default();
      o.partitions = kappas[k];
      check_build(&t, &o, k % 2);
    }
    tp_coo_free(NULL, &t);
  }
}

/* Sorted, duplicate-free input: the build and ||X||^2 of a tensor as the readers give it. */
Test(sparse_mttkrp, build_of_a_merged_tensor) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo t = make_coo(&rng, TP_DTYPE_F64, 4, dims4, 2000, SKEWED);
  TPT_OK(tp_coo_sum_duplicates(&t, NULL));
  tp_flycoo_options o = tp_flycoo_options_default();
  o.partitions = 5;
  check_build(&t, &o, 0);
  check_build(&t, &o, 1);
  tp_coo_free(NULL, &t);
}

/* The pieces' placement by hand: the least-filled partition, ties to the lowest. */
typedef struct pick {
  uint64_t load;
  uint32_t part;
} pick;

static int pick_cmp(const void *a, const void *b) {
  const pick *x = (const pick *)a, *y = (const pick *)b;
  if (x->load != y->load)
    return x->load < y->load ? -1 : 1;
  return (x->part > y->part) - (x->part < y->part);
}

static void check_assignment(const uint32_t *size, const int64_t *count, int runs, int kappa,
                             int64_t bulk_from) {
  int64_t n = 0;
  for (int d = 0; d < runs; ++d)
    n += count[d];
  pick *want = tpt_host_alloc(sizeof(pick) * (size_t)(n + 1));
  uint64_t load[32] = {0};
  uint32_t pieces[32] = {0}, *rank = tpt_host_alloc(sizeof(uint32_t) * (size_t)(n + 1));
  for (int d = 0, t = 0; d < runs; ++d)
    for (int64_t j = 0; j < count[d]; ++j, ++t) {
      uint32_t best = 0;
      for (uint32_t p = 1; p < (uint32_t)kappa; ++p)
        best = load[p] < load[best] ? p : best;
      want[t].load = load[best], want[t].part = best, rank[t] = pieces[best]++;
      load[best] += size[d];
    }
  flycoo_assignment a;
  TPT_OK(flycoo_assign_runs(size, count, runs, kappa, bulk_from, &a));
  pick *got = tpt_host_alloc(sizeof(pick) * (size_t)(n + 1));
  uint32_t *got_rank = tpt_host_alloc(sizeof(uint32_t) * (size_t)(n + 1));
  int64_t events = 0;
  for (int64_t s = 0; s < a.n_shares; ++s)
    for (uint32_t j = 0; j < a.shares[s].count; ++j, ++events) {
      const flycoo_share *sh = &a.shares[s];
      cr_assert_eq(sh->first + j, (uint32_t)events);
      got[events].load = sh->load + (uint64_t)j * sh->size;
      got[events].part = sh->part;
    }
  cr_assert_eq(events, n);
  qsort(got, (size_t)n, sizeof(pick), pick_cmp);
  for (int64_t s = 0; s < a.n_shares; ++s) /* ranks, by the event each piece became */
    for (uint32_t j = 0; j < a.shares[s].count; ++j) {
      pick key = {a.shares[s].load + (uint64_t)j * a.shares[s].size, a.shares[s].part};
      pick *at = bsearch(&key, got, (size_t)n, sizeof(pick), pick_cmp);
      got_rank[at - got] = a.shares[s].rank + j;
    }
  for (int64_t t = 0; t < n; ++t) {
    cr_assert(want[t].load == got[t].load && want[t].part == got[t].part && rank[t] == got_rank[t],
              "kappa %d bulk_from %lld: piece %lld to partition %u at %llu (rank %u), the "
              "heap's %u at %llu (rank %u)",
              kappa, (long long)bulk_from, (long long)t, got[t].part,
              (unsigned long long)got[t].load, got_rank[t], want[t].part,
              (unsigned long long)want[t].load, rank[t]);
  }
  uint64_t most = 0;
  for (int p = 0; p < kappa; ++p) {
    cr_assert_eq(a.part_piece[p + 1] - a.part_piece[p], pieces[p]);
    cr_assert_eq(a.part_first[p + 1] - a.part_first[p], (uint32_t)load[p]);
    most = load[p] > most ? load[p] : most;
  }
  cr_assert_eq((uint64_t)a.max_partition, most);
  flycoo_assignment_free(&a);
  free(want), free(rank), free(got), free(got_rank);
}

/* Runs placed by the heap, by the threshold or as their cost says: the same placement as
 * one piece at a time. */
Test(sparse_mttkrp, placement_over_runs_matches_the_heap) {
  tpt_rng rng = tpt_rng_fresh();
  for (int trial = 0; trial < 300; ++trial) {
    const int kappa = (int)tpt_int(&rng, 1, 32), runs = (int)tpt_int(&rng, 0, 30);
    uint32_t size[30];
    int64_t count[30];
    uint32_t s = (uint32_t)tpt_int(&rng, runs, 4 * runs + 40);
    for (int d = 0; d < runs; ++d) {
      s -= (uint32_t)tpt_int(&rng, 1, s > (uint32_t)(runs - d) ? 3 : 1);
      size[d] = s > 0 ? s : 1;
      count[d] = tpt_int(&rng, trial % 3 ? 1 : 0, trial % 2 ? 5 : 400);
    }
    const int64_t bulk_from[] = {0, 1, INT64_MAX};
    for (int b = 0; b < 3; ++b)
      check_assignment(size, count, runs, kappa, bulk_from[b]);
  }
}

/* A tensor in the space is checked as a host one: the same error, the same message. */
Test(sparse_mttkrp, in_space_input_rejects_what_the_host_rejects) {
  tpt_rng rng = tpt_rng_fresh();
  for (int flaw = 0; flaw < 3; ++flaw) {
    tp_coo t = make_coo(&rng, TP_DTYPE_F32, 3, dims3, 50, UNIFORM);
    if (flaw == 0)
      t.indices[2][17] = dims3[2];
    else if (flaw == 1)
      t.indices[0][3] = -1;
    else
      ((float *)t.values)[40] = NAN;
    tp_flycoo *fly = NULL;
    tp_status host_st = tp_flycoo_create(tpt_space, &t, NULL, &fly);
    cr_assert_neq(host_st, TP_SUCCESS);
    char host_msg[512];
    snprintf(host_msg, sizeof host_msg, "%s", tp_last_error());
    tp_coo dev;
    TPT_OK(tp_coo_copy_to_device(tpt_space, &dev, &t));
    TPT_FAILS_WITH(tp_flycoo_create_in_space(tpt_space, &dev, NULL, &fly), host_st);
    cr_assert_null(fly);
    const char *a = strchr(host_msg, ':'), *b = strchr(tp_last_error(), ':');
    cr_assert(a && b && strncmp(a, b, strcspn(a, "(")) == 0, "%s against %s", tp_last_error(),
              host_msg);
    tp_coo_free(tpt_space, &dev);
    tp_coo_free(NULL, &t);
  }
}
