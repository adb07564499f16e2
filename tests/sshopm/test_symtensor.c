/* Symmetric tensor storage (class enumeration, multinomials, conversions, reference
 * products) and the SS-HOPM product kernels, generic and unrolled, in the space. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/sshopm.h"
#include "tenport/symtensor.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"
#include "tests/common/tpt.h"

TestSuite(symtensor, .init = tpt_setup, .fini = tpt_teardown);

/* ---- independent helpers ---------------------------------------------------- */

/* C(a, b) from Pascal's triangle (exact in uint64 for a < 64). */
#define PASCAL_ROWS 64
static uint64_t binom(int a, int b) {
  static uint64_t row[PASCAL_ROWS][PASCAL_ROWS];
  static int ready = 0;
  if (!ready) {
    for (int i = 0; i < PASCAL_ROWS; ++i) {
      row[i][0] = row[i][i] = 1;
      for (int j = 1; j < i; ++j)
        row[i][j] = row[i - 1][j - 1] + row[i - 1][j];
    }
    ready = 1;
  }
  cr_assert(a >= 0 && a < PASCAL_ROWS, "binom(%d, %d) is out of the table", a, b);
  return b < 0 || b > a ? 0 : row[a][b];
}

static uint64_t factorial_u64(int k) {
  uint64_t f = 1;
  for (int i = 2; i <= k; ++i)
    f *= (uint64_t)i;
  return f;
}

static int64_t ipow(int64_t base, int e) {
  int64_t r = 1;
  for (int i = 0; i < e; ++i)
    r *= base;
  return r;
}

/* Odometer over full tensor indices, last index fastest; 0 after the last one. */
static int full_next(int m, int n, int *idx) {
  for (int p = m - 1; p >= 0; --p) {
    if (++idx[p] < n)
      return 1;
    idx[p] = 0;
  }
  return 0;
}

/* Offset of a tensor index in the full tensor (last index fastest). */
static int64_t full_offset(int m, int n, const int *idx) {
  int64_t e = 0;
  for (int p = 0; p < m; ++p)
    e = e * n + idx[p];
  return e;
}

/* Lexicographic comparison of two index representations. */
static int lex_cmp(int m, const int *a, const int *b) {
  for (int p = 0; p < m; ++p)
    if (a[p] != b[p])
      return a[p] < b[p] ? -1 : 1;
  return 0;
}

static void sort_ints(int m, int *v) {
  for (int p = 1; p < m; ++p)
    for (int q = p; q > 0 && v[q - 1] > v[q]; --q) {
      int t = v[q];
      v[q] = v[q - 1];
      v[q - 1] = t;
    }
}

static void shuffle_ints(tpt_rng *rng, int m, int *v) {
  for (int p = m - 1; p > 0; --p) {
    int q = (int)tpt_int(rng, 0, p), t = v[p];
    v[p] = v[q];
    v[q] = t;
  }
}

static void format_index(int m, const int *idx, char *buf) {
  for (int p = 0; p < m; ++p)
    buf[p] = (char)(idx[p] < 10 ? '0' + idx[p] : 'a' + idx[p] - 10);
  buf[m] = 0;
}

/* All classes of a shape (U x m, lexicographic), built by the library's enumeration
 * (checked against Table 3.1 and the ordering rules by the enumeration tests). */
static int *class_list(int m, int n, int64_t *count) {
  TPT_OK(tp_sym_unique_count(m, n, count));
  int *list = tpt_host_alloc(sizeof(int) * (size_t)(*count * m));
  int idx[TP_SYM_MAX_ORDER];
  tp_sym_index_first(m, idx);
  for (int64_t j = 0; j < *count; ++j) {
    memcpy(list + j * m, idx, sizeof(int) * (size_t)m);
    tp_sym_index_next(m, n, idx);
  }
  return list;
}

/* Linear search for a sorted index among the classes. */
static int64_t find_class(int m, int64_t count, const int *list, const int *sorted) {
  for (int64_t j = 0; j < count; ++j)
    if (lex_cmp(m, list + j * m, sorted) == 0)
      return j;
  return -1;
}

/* ---- 1. unique counts ------------------------------------------------------- */

Test(symtensor, unique_counts_are_binomials) {
  const int dims[] = {1, 2, 3, 4, 5, 7, 10, 16, 31, 45};
  for (int m = 1; m <= TP_SYM_MAX_ORDER; ++m)
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; ++d) {
      int n = dims[d];
      int64_t u = -1;
      TPT_OK(tp_sym_unique_count(m, n, &u));
      cr_assert_eq((uint64_t)u, binom(m + n - 1, m), "m = %d, n = %d: %lld vs C(%d, %d) = %llu", m,
                   n, (long long)u, m + n - 1, m, (unsigned long long)binom(m + n - 1, m));
      if (n == 1)
        cr_assert_eq(u, 1, "one class for n = 1 (m = %d)", m);
      if (m == 1)
        cr_assert_eq(u, n, "n classes for m = 1 (n = %d)", n);
    }
  int64_t u = -1;
  TPT_OK(tp_sym_unique_count(3, 4, &u));
  cr_assert_eq(u, 20, "Table 3.1 lists 20 classes for m = 3, n = 4");
  TPT_OK(tp_sym_unique_count(1, INT_MAX, &u));
  cr_assert_eq(u, INT_MAX);
  TPT_OK(tp_sym_unique_count(2, 1000000, &u));
  cr_assert_eq(u, 500000500000LL);
}

Test(symtensor, unique_count_limits) {
  int64_t u = -7;
  TPT_FAILS_WITH(tp_sym_unique_count(0, 3, &u), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_unique_count(-1, 3, &u), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_unique_count(3, 0, &u), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_unique_count(3, -2, &u), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_unique_count(0, 0, &u), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_unique_count(3, 4, NULL), TP_ERROR_INVALID_ARGUMENT);
  /* Orders whose m! is not exact in double. */
  TPT_FAILS_WITH(tp_sym_unique_count(TP_SYM_MAX_ORDER + 1, 1, &u), TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tp_sym_unique_count(19, 3, &u), TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tp_sym_unique_count(40, 2, &u), TP_ERROR_OVERFLOW);
  /* Counts above 2^53: C(1017, 18) ~ 1e40. */
  TPT_FAILS_WITH(tp_sym_unique_count(18, 1000, &u), TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tp_sym_unique_count(18, INT_MAX, &u), TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tp_sym_unique_count(2, INT_MAX, &u), TP_ERROR_OVERFLOW);
  cr_assert_eq(u, -7, "a failed call wrote the count");

  /* Either side of 2^53 = 9007199254740992 (values from exact integer arithmetic). */
  const struct {
    int m, n_last;
    int64_t count;
  } edge[] = {{2, 134217727, 9007199187632128LL},
              {3, 378076, 9007194154594076LL},
              {10, 173, 8543814344395330LL},
              {18, 49, 6848956078664700LL}};
  for (size_t c = 0; c < sizeof edge / sizeof edge[0]; ++c) {
    TPT_OK(tp_sym_unique_count(edge[c].m, edge[c].n_last, &u));
    cr_assert_eq(u, edge[c].count, "m = %d, n = %d: %lld vs %lld", edge[c].m, edge[c].n_last,
                 (long long)u, (long long)edge[c].count);
    TPT_FAILS_WITH(tp_sym_unique_count(edge[c].m, edge[c].n_last + 1, &u), TP_ERROR_OVERFLOW);
  }
  TPT_OK(tp_sym_unique_count(TP_SYM_MAX_ORDER, 1, &u));
  cr_assert_eq(u, 1);
}

/* ---- 2. enumeration and positions -------------------------------------------- */

/* Table 3.1 of the paper (m = 3, n = 4), index representation made 0-based, and the
 * monomial representation. */
static const int table31_index[20][3] = {{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {0, 0, 3}, {0, 1, 1},
                                         {0, 1, 2}, {0, 1, 3}, {0, 2, 2}, {0, 2, 3}, {0, 3, 3},
                                         {1, 1, 1}, {1, 1, 2}, {1, 1, 3}, {1, 2, 2}, {1, 2, 3},
                                         {1, 3, 3}, {2, 2, 2}, {2, 2, 3}, {2, 3, 3}, {3, 3, 3}};
static const int table31_monomial[20][4] = {{3, 0, 0, 0}, {2, 1, 0, 0}, {2, 0, 1, 0}, {2, 0, 0, 1},
                                            {1, 2, 0, 0}, {1, 1, 1, 0}, {1, 1, 0, 1}, {1, 0, 2, 0},
                                            {1, 0, 1, 1}, {1, 0, 0, 2}, {0, 3, 0, 0}, {0, 2, 1, 0},
                                            {0, 2, 0, 1}, {0, 1, 2, 0}, {0, 1, 1, 1}, {0, 1, 0, 2},
                                            {0, 0, 3, 0}, {0, 0, 2, 1}, {0, 0, 1, 2}, {0, 0, 0, 3}};

Test(symtensor, enumeration_matches_table_3_1) {
  int idx[3] = {7, 7, 7};
  tp_sym_index_first(3, idx);
  for (int j = 0; j < 20; ++j) {
    char got[4], want[4];
    format_index(3, idx, got), format_index(3, table31_index[j], want);
    cr_assert(lex_cmp(3, idx, table31_index[j]) == 0, "class %d: %s, Table 3.1 has %s", j, got,
              want);
    int k[4] = {0, 0, 0, 0};
    for (int p = 0; p < 3; ++p)
      ++k[idx[p]];
    cr_assert(memcmp(k, table31_monomial[j], sizeof k) == 0,
              "class %d (%s): monomial representation differs from Table 3.1", j, got);
    cr_assert_eq(tp_sym_class_position(3, 4, idx), j, "position of %s", got);
    int more = tp_sym_index_next(3, 4, idx);
    cr_assert_eq(more, j < 19, "index_next after class %d (%s) returned %d", j, got, more);
  }
  /* After the last class the index stays [3, 3, 3]. */
  cr_assert(idx[0] == 3 && idx[1] == 3 && idx[2] == 3, "last class changed: %d%d%d", idx[0], idx[1],
            idx[2]);
  cr_assert_eq(tp_sym_index_next(3, 4, idx), 0);
  cr_assert(idx[0] == 3 && idx[1] == 3 && idx[2] == 3);

  /* The paper's examples of UPDATEINDEX (1-based [1,1,1] -> [1,1,2], [2,4,4] -> [3,3,3]). */
  int a[3] = {0, 0, 0}, b[3] = {1, 3, 3};
  cr_assert_eq(tp_sym_index_next(3, 4, a), 1);
  cr_assert(a[0] == 0 && a[1] == 0 && a[2] == 1);
  cr_assert_eq(tp_sym_index_next(3, 4, b), 1);
  cr_assert(b[0] == 2 && b[1] == 2 && b[2] == 2);

  int32_t table[60];
  TPT_OK(tp_sym_index_table(3, 4, table, NULL));
  for (int j = 0; j < 20; ++j)
    for (int p = 0; p < 3; ++p)
      cr_assert_eq(table[j * 3 + p], table31_index[j][p], "index table row %d", j);
}

Test(symtensor, enumeration_visits_every_class_once_in_order) {
  tpt_rng rng = tpt_rng_fresh();
  const int shapes[][2] = {{1, 1}, {1, 6}, {5, 1}, {2, 6},  {3, 4},  {5, 3},
                           {4, 5}, {7, 2}, {6, 5}, {3, 12}, {18, 2}, {9, 4}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
    int m = shapes[c][0], n = shapes[c][1];
    int64_t count;
    TPT_OK(tp_sym_unique_count(m, n, &count));
    int32_t *table = tpt_host_alloc(sizeof(int32_t) * (size_t)(count * m));
    int64_t *mult = tpt_host_alloc(sizeof(int64_t) * (size_t)count);
    int64_t *mult_only = tpt_host_alloc(sizeof(int64_t) * (size_t)count);
    TPT_OK(tp_sym_index_table(m, n, table, mult));
    TPT_OK(tp_sym_index_table(m, n, NULL, mult_only));
    TPT_OK(tp_sym_index_table(m, n, NULL, NULL));

    int idx[TP_SYM_MAX_ORDER], prev[TP_SYM_MAX_ORDER];
    tp_sym_index_first(m, idx);
    int64_t visited = 0;
    char s[TP_SYM_MAX_ORDER + 1];
    for (;;) {
      format_index(m, idx, s);
      cr_assert(visited < count, "m = %d, n = %d: more than %lld classes", m, n, (long long)count);
      for (int p = 0; p < m; ++p) {
        cr_assert(idx[p] >= 0 && idx[p] < n, "m = %d, n = %d: %s out of range", m, n, s);
        cr_assert(p == 0 || idx[p - 1] <= idx[p], "m = %d, n = %d: %s not nondecreasing", m, n, s);
        cr_assert_eq(table[visited * m + p], idx[p], "m = %d, n = %d: table row %lld", m, n,
                     (long long)visited);
      }
      if (visited > 0)
        cr_assert(lex_cmp(m, prev, idx) < 0,
                  "m = %d, n = %d: %s does not follow its "
                  "predecessor in lexicographic order",
                  m, n, s);
      cr_assert_eq(tp_sym_class_position(m, n, idx), visited, "m = %d, n = %d: position of %s", m,
                   n, s);
      cr_assert_eq(mult[visited], tp_sym_class_multinomial(m, idx));
      cr_assert_eq(mult_only[visited], mult[visited]);
      /* Any tensor index of the class maps to the same position. */
      for (int r = 0; r < 3; ++r) {
        int perm[TP_SYM_MAX_ORDER];
        memcpy(perm, idx, sizeof(int) * (size_t)m);
        shuffle_ints(&rng, m, perm);
        char ps[TP_SYM_MAX_ORDER + 1];
        format_index(m, perm, ps);
        cr_assert_eq(tp_sym_class_position(m, n, perm), visited,
                     "m = %d, n = %d: position of the permutation %s of %s", m, n, ps, s);
      }
      memcpy(prev, idx, sizeof(int) * (size_t)m);
      ++visited;
      if (!tp_sym_index_next(m, n, idx))
        break;
    }
    /* Strictly increasing, in range and nondecreasing, with C(m+n-1, m) of them: every
     * class exactly once. */
    cr_assert_eq(visited, count, "m = %d, n = %d: visited %lld classes of %lld", m, n,
                 (long long)visited, (long long)count);
    cr_assert(lex_cmp(m, prev, idx) == 0, "the last class changed after index_next");
    for (int p = 0; p < m; ++p)
      cr_assert_eq(idx[p], n - 1, "the last class is [n-1, ..., n-1]");
    free(table), free(mult), free(mult_only);
  }
}

Test(symtensor, class_position_rejects_out_of_range_entries) {
  int a[3] = {0, 4, 1}, b[3] = {2, -1, 0}, c[3] = {3, 3, 3};
  cr_assert_eq(tp_sym_class_position(3, 4, a), -1);
  cr_assert_eq(tp_sym_class_position(3, 4, b), -1);
  cr_assert_eq(tp_sym_class_position(3, 4, c), 19);
  cr_assert_eq(tp_sym_class_position(3, 3, c), -1);
  int32_t t[4];
  TPT_FAILS_WITH(tp_sym_index_table(0, 3, t, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_index_table(3, 0, t, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_index_table(19, 1, NULL, NULL), TP_ERROR_OVERFLOW);
}

/* ---- 3. multinomials ------------------------------------------------------- */

Test(symtensor, multinomials_count_the_members_of_each_class) {
  const int shapes[][2] = {{1, 4},  {2, 3},  {3, 4},  {4, 3},  {5, 2}, {7, 3},
                           {10, 5}, {12, 1}, {18, 2}, {18, 3}, {6, 6}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
    int m = shapes[c][0], n = shapes[c][1];
    int64_t count;
    TPT_OK(tp_sym_unique_count(m, n, &count));
    int idx[TP_SYM_MAX_ORDER];
    tp_sym_index_first(m, idx);
    uint64_t total = 0;
    for (int64_t j = 0; j < count; ++j, tp_sym_index_next(m, n, idx)) {
      int k[8] = {0};
      for (int p = 0; p < m; ++p)
        ++k[idx[p]];
      uint64_t denominator = 1;
      for (int i = 0; i < n; ++i)
        denominator *= factorial_u64(k[i]);
      uint64_t want = factorial_u64(m) / denominator;
      int64_t got = tp_sym_class_multinomial(m, idx);
      char s[TP_SYM_MAX_ORDER + 1];
      format_index(m, idx, s);
      cr_assert_eq((uint64_t)got, want, "m = %d, n = %d, class %s: %lld vs %llu", m, n, s,
                   (long long)got, (unsigned long long)want);
      total += (uint64_t)got;
    }
    cr_assert_eq(total, (uint64_t)ipow(n, m),
                 "m = %d, n = %d: multinomials sum to %llu, not "
                 "n^m",
                 m, n, (unsigned long long)total);
  }
  /* Table 3.1: 1 for [3,0,0,0], 3 for [2,1,0,0], 6 for [1,1,1,0]. */
  int64_t mult[20];
  TPT_OK(tp_sym_index_table(3, 4, NULL, mult));
  cr_assert(mult[0] == 1 && mult[1] == 3 && mult[5] == 6 && mult[14] == 6 && mult[19] == 1);
  /* The largest multinomial of the largest order: 18! / (1! ... 1! 0! ...) = 18!. */
  int spread[18];
  for (int p = 0; p < 18; ++p)
    spread[p] = p;
  cr_assert_eq(tp_sym_class_multinomial(18, spread), 6402373705728000LL);
}

/* ---- 4. full tensor conversions -------------------------------------------- */

Test(symtensor, full_round_trip) {
  tpt_rng rng = tpt_rng_fresh();
  const int shapes[][2] = {{3, 4}, {4, 3}, {5, 2}, {1, 4}, {2, 1}, {2, 5}, {6, 2}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
    int m = shapes[c][0], n = shapes[c][1];
    int64_t count, size = ipow(n, m);
    int *list = class_list(m, n, &count);
    double *unique = tpt_host_alloc(sizeof(double) * (size_t)count);
    double *back = tpt_host_alloc(sizeof(double) * (size_t)count);
    double *full = tpt_host_alloc(sizeof(double) * (size_t)(size + 1));
    for (int64_t j = 0; j < count; ++j)
      unique[j] = tpt_uniform(&rng, -3, 3);
    full[size] = NAN;
    TPT_OK(tp_sym_to_full_f64(m, n, unique, full));
    cr_assert(isnan(full[size]), "m = %d, n = %d: wrote past the full tensor", m, n);
    int idx[TP_SYM_MAX_ORDER] = {0}, sorted[TP_SYM_MAX_ORDER];
    int64_t e = 0;
    do {
      memcpy(sorted, idx, sizeof(int) * (size_t)m);
      sort_ints(m, sorted);
      int64_t j = find_class(m, count, list, sorted);
      cr_assert(j >= 0);
      cr_assert_eq(full[e], unique[j],
                   "m = %d, n = %d: full entry %lld is %.17g, class %lld "
                   "holds %.17g",
                   m, n, (long long)e, full[e], (long long)j, unique[j]);
      ++e;
    } while (full_next(m, n, idx));
    cr_assert_eq(e, size);

    for (int64_t j = 0; j < count; ++j)
      back[j] = NAN;
    TPT_OK(tp_sym_from_full_f64(m, n, full, 1e-12, back));
    for (int64_t j = 0; j < count; ++j)
      cr_assert(fabs(back[j] - unique[j]) <= 1e-15 * fabs(unique[j]) * (double)size,
                "m = %d, n = %d: class %lld came back as %.17g, not %.17g", m, n, (long long)j,
                back[j], unique[j]);
    free(list), free(unique), free(back), free(full);
  }
}

Test(symtensor, from_full_rejects_asymmetric_and_nonfinite_tensors) {
  tpt_rng rng = tpt_rng_fresh();
  const int shapes[][2] = {{3, 4}, {4, 3}, {5, 2}, {2, 2}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
    int m = shapes[c][0], n = shapes[c][1];
    int64_t count, size = ipow(n, m);
    TPT_OK(tp_sym_unique_count(m, n, &count));
    double *unique = tpt_host_alloc(sizeof(double) * (size_t)count);
    double *full = tpt_host_alloc(sizeof(double) * (size_t)size);
    /* A random tensor is not symmetric. */
    for (int64_t e = 0; e < size; ++e)
      full[e] = tpt_uniform(&rng, -1, 1);
    TPT_FAILS_WITH(tp_sym_from_full_f64(m, n, full, 1e-12, unique), TP_ERROR_NUMERICAL);
    /* Entries [0, 1, ..., 1] = 2 and [1, ..., 1, 0] = -2 of one class (largest magnitude
     * 2): the class mean stays within 1 of 0, so one of them is at least 2 - 1 = 1 away
     * from it, half the largest magnitude; a rel_tol below 1/2 refuses it whatever the
     * other members hold. */
    int first[TP_SYM_MAX_ORDER], last[TP_SYM_MAX_ORDER];
    for (int p = 0; p < m; ++p)
      first[p] = p == 0 ? 0 : 1, last[p] = p == m - 1 ? 0 : 1;
    full[full_offset(m, n, first)] = 2.0;
    full[full_offset(m, n, last)] = -2.0;
    TPT_FAILS_WITH(tp_sym_from_full_f64(m, n, full, 0.4, unique), TP_ERROR_NUMERICAL);

    /* A small perturbation of entry [0, 1, 1, ...] (class [0, 1, ..., 1], m members):
     * refused at a tight tolerance, averaged at a loose one. */
    for (int64_t j = 0; j < count; ++j)
      unique[j] = tpt_uniform(&rng, 0.5, 1); /* max |entry| <= 1 */
    TPT_OK(tp_sym_to_full_f64(m, n, unique, full));
    int idx[TP_SYM_MAX_ORDER];
    for (int p = 0; p < m; ++p)
      idx[p] = p == 0 ? 0 : 1;
    int64_t j01 = tp_sym_class_position(m, n, idx), e01 = full_offset(m, n, idx);
    double want = unique[j01], delta = 1e-6;
    full[e01] += delta;
    TPT_FAILS_WITH(tp_sym_from_full_f64(m, n, full, 1e-9, unique), TP_ERROR_NUMERICAL);
    TPT_OK(tp_sym_from_full_f64(m, n, full, 1e-3, unique));
    double mean = want + delta / (double)m;
    cr_assert(fabs(unique[j01] - mean) <= 1e-14, "m = %d, n = %d: class mean %.17g vs %.17g", m, n,
              unique[j01], mean);
    full[e01] -= delta;

    /* Non-finite entries, even in an otherwise symmetric tensor. */
    TPT_OK(tp_sym_to_full_f64(m, n, unique, full));
    double saved = full[size - 1];
    full[size - 1] = NAN;
    TPT_FAILS_WITH(tp_sym_from_full_f64(m, n, full, 1e-3, unique), TP_ERROR_NUMERICAL);
    full[size - 1] = INFINITY;
    TPT_FAILS_WITH(tp_sym_from_full_f64(m, n, full, 1e-3, unique), TP_ERROR_NUMERICAL);
    full[size - 1] = saved;
    full[0] = -INFINITY;
    TPT_FAILS_WITH(tp_sym_from_full_f64(m, n, full, 1e-3, unique), TP_ERROR_NUMERICAL);
    free(unique), free(full);
  }
  /* m = 1: every vector is symmetric. */
  double v[5] = {1, -2, 3.5, 0, 1e300}, u[5];
  TPT_OK(tp_sym_from_full_f64(1, 5, v, 0.0, u));
  cr_assert(memcmp(u, v, sizeof v) == 0);
  v[2] = NAN;
  TPT_FAILS_WITH(tp_sym_from_full_f64(1, 5, v, 0.0, u), TP_ERROR_NUMERICAL);
}

Test(symtensor, conversions_check_their_arguments) {
  double a[8] = {0}, b[8] = {0};
  TPT_FAILS_WITH(tp_sym_to_full_f64(3, 2, NULL, b), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_to_full_f64(3, 2, a, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_to_full_f64(0, 2, a, b), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_from_full_f64(3, 2, NULL, 0, b), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_from_full_f64(3, 0, a, 0, b), TP_ERROR_INVALID_ARGUMENT);
  /* 5^18 ~ 3.8e12 entries: refused before anything is written. */
  TPT_FAILS_WITH(tp_sym_to_full_f64(18, 5, a, b), TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tp_sym_from_full_f64(18, 5, a, 0, b), TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tp_sym_to_full_f64(19, 2, a, b), TP_ERROR_OVERFLOW);
}

/* ---- 5. reference products against the full tensor -------------------------- */

/* Definitions (2.1) summed over all n^m entries: s0 = A x^m, y = A x^(m-1),
 * h = A x^(m-2) (m >= 2), with the sums of |terms| alongside. */
static void brute_products(int m, int n, const double *full, const double *x, double *s0,
                           double *a0, double *y, double *ay, double *h, double *ah) {
  *s0 = *a0 = 0;
  for (int i = 0; i < n; ++i)
    y[i] = ay[i] = 0;
  for (int i = 0; i < n * n; ++i)
    h[i] = ah[i] = 0;
  int idx[TP_SYM_MAX_ORDER] = {0};
  int64_t e = 0;
  do {
    double t2 = full[e];
    for (int p = 2; p < m; ++p)
      t2 *= x[idx[p]];
    double t1 = m >= 2 ? t2 * x[idx[1]] : full[e], t0 = t1 * x[idx[0]];
    *s0 += t0, *a0 += fabs(t0);
    y[idx[0]] += t1, ay[idx[0]] += fabs(t1);
    if (m >= 2)
      h[idx[0] * n + idx[1]] += t2, ah[idx[0] * n + idx[1]] += fabs(t2);
    ++e;
  } while (full_next(m, n, idx));
}

static void assert_close(double got, double want, double scale, double tol, const char *what, int m,
                         int n, int entry) {
  cr_assert(fabs(got - want) <= tol * scale,
            "m = %d, n = %d, %s[%d]: %.17g vs %.17g (|diff| %.3g, scale %.3g)", m, n, what, entry,
            got, want, fabs(got - want), scale);
}

Test(symtensor, reference_products_match_the_full_tensor) {
  tpt_rng rng = tpt_rng_fresh();
  const int shapes[][2] = {{1, 1}, {1, 4}, {2, 1}, {3, 1}, {2, 2}, {2, 5}, {3, 2},
                           {3, 4}, {4, 3}, {5, 2}, {5, 3}, {6, 3}, {7, 2}, {3, 6}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c)
    for (int rep = 0; rep < 3; ++rep) {
      int m = shapes[c][0], n = shapes[c][1];
      int64_t count, size = ipow(n, m);
      TPT_OK(tp_sym_unique_count(m, n, &count));
      double *unique = tpt_host_alloc(sizeof(double) * (size_t)count);
      double *full = tpt_host_alloc(sizeof(double) * (size_t)size);
      double x[8], y[8], ay[8], h[64], ah[64], s0, a0, r0, r1[8 + 1], r2[64 + 1];
      for (int64_t j = 0; j < count; ++j)
        unique[j] = tpt_uniform(&rng, -1, 1);
      for (int i = 0; i < n; ++i)
        x[i] = tpt_uniform(&rng, -1.5, 1.5);
      TPT_OK(tp_sym_to_full_f64(m, n, unique, full));
      brute_products(m, n, full, x, &s0, &a0, y, ay, h, ah);

      r0 = NAN;
      TPT_OK(tp_sym_axm_f64(m, n, unique, x, &r0));
      assert_close(r0, s0, a0, 1e-12, "A x^m", m, n, 0);
      for (int i = 0; i <= n; ++i)
        r1[i] = NAN;
      TPT_OK(tp_sym_axm1_f64(m, n, unique, x, r1));
      for (int i = 0; i < n; ++i)
        assert_close(r1[i], y[i], ay[i], 1e-12, "A x^(m-1)", m, n, i);
      cr_assert(isnan(r1[n]), "A x^(m-1) wrote past n entries");
      for (int i = 0; i <= n * n; ++i)
        r2[i] = NAN;
      if (m >= 2) {
        TPT_OK(tp_sym_axm2_f64(m, n, unique, x, r2));
        for (int i = 0; i < n * n; ++i)
          assert_close(r2[i], h[i], ah[i], 1e-12, "A x^(m-2)", m, n, i);
        cr_assert(isnan(r2[n * n]), "A x^(m-2) wrote past n^2 entries");
        if (m == 2) /* A x^0 is the matrix itself */
          for (int i = 0; i < n * n; ++i)
            cr_assert_eq(r2[i], full[i]);
      } else {
        TPT_FAILS_WITH(tp_sym_axm2_f64(m, n, unique, x, r2), TP_ERROR_INVALID_ARGUMENT);
      }
      free(unique), free(full);
    }
  double a[4] = {1, 2, 3, 4}, x[2] = {1, 1}, r[4];
  TPT_FAILS_WITH(tp_sym_axm_f64(3, 2, NULL, x, r), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_axm1_f64(3, 2, a, NULL, r), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_axm2_f64(3, 2, a, x, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_axm_f64(0, 2, a, x, r), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_axm1_f64(19, 2, a, x, r), TP_ERROR_OVERFLOW);
}

/* ---- 6. product kernels in the space ---------------------------------------- */

/* tools/build/gen_sshopm_unrolled.py SHAPES. */
static const int unrolled_shapes[][2] = {{3, 2}, {4, 2}, {3, 3}, {4, 3}, {5, 3},
                                         {6, 3}, {8, 3}, {3, 4}, {4, 4}};
/* Shapes the generator does not list (checked with tp_sshopm_has_unrolled). */
static const int other_shapes[][2] = {{2, 3}, {5, 2}, {3, 5}, {6, 4}, {7, 3}, {2, 1}, {3, 1}};

#define NUM_TENSORS 37

/* Inputs shared by both precisions (values exact in float), double references from the
 * library's reference products, and error scales: the same products of |A| and |x|,
 * i.e. the sums of the absolute values of all the terms. Any summation order and any
 * grouping of the factors (prescaled coefficients, shared monomials) stays within a
 * small multiple of the unit roundoff times that sum, while the result itself can be
 * far smaller than its terms (cancellation), so |ref| or max(1, |ref|) would be no
 * sound scale. */
typedef struct products_case {
  int m, n;
  int64_t T, U;
  double *a, *x, *r0, *r1, *r2, *s0, *s1, *s2;
} products_case;

static products_case make_case(tpt_rng *rng, int m, int n) {
  products_case pc;
  pc.m = m, pc.n = n, pc.T = NUM_TENSORS;
  TPT_OK(tp_sym_unique_count(m, n, &pc.U));
  size_t T = (size_t)pc.T, U = (size_t)pc.U, nn = (size_t)n;
  pc.a = tpt_host_alloc(sizeof(double) * T * U), pc.x = tpt_host_alloc(sizeof(double) * T * nn);
  pc.r0 = tpt_host_alloc(sizeof(double) * T), pc.s0 = tpt_host_alloc(sizeof(double) * T);
  pc.r1 = tpt_host_alloc(sizeof(double) * T * nn), pc.s1 = tpt_host_alloc(sizeof(double) * T * nn);
  pc.r2 = tpt_host_alloc(sizeof(double) * T * nn * nn);
  pc.s2 = tpt_host_alloc(sizeof(double) * T * nn * nn);
  double *abs_a = tpt_host_alloc(sizeof(double) * U), abs_x[TP_SSHOPM_MAX_DIM];
  for (size_t t = 0; t < T; ++t) {
    /* Magnitudes vary across the batch: tensor t is scaled by 2^(t % 9 - 4). */
    double scale = ldexp(1.0, (int)(t % 9) - 4);
    double *a = pc.a + t * U, *x = pc.x + t * nn;
    for (size_t j = 0; j < U; ++j)
      a[j] = (double)(float)(scale * tpt_uniform(rng, -1, 1)), abs_a[j] = fabs(a[j]);
    for (size_t i = 0; i < nn; ++i)
      x[i] = (double)(float)tpt_uniform(rng, -1, 1), abs_x[i] = fabs(x[i]);
    TPT_OK(tp_sym_axm_f64(m, n, a, x, pc.r0 + t));
    TPT_OK(tp_sym_axm1_f64(m, n, a, x, pc.r1 + t * nn));
    TPT_OK(tp_sym_axm2_f64(m, n, a, x, pc.r2 + t * nn * nn));
    TPT_OK(tp_sym_axm_f64(m, n, abs_a, abs_x, pc.s0 + t));
    TPT_OK(tp_sym_axm1_f64(m, n, abs_a, abs_x, pc.s1 + t * nn));
    TPT_OK(tp_sym_axm2_f64(m, n, abs_a, abs_x, pc.s2 + t * nn * nn));
  }
  free(abs_a);
  return pc;
}

static void free_case(products_case *pc) {
  free(pc->a), free(pc->x), free(pc->r0), free(pc->r1), free(pc->r2);
  free(pc->s0), free(pc->s1), free(pc->s2);
}

static const char *kernel_name(tp_sshopm_kernel k) {
  return k == TP_SSHOPM_KERNEL_GENERIC    ? "generic"
         : k == TP_SSHOPM_KERNEL_UNROLLED ? "unrolled"
                                          : "auto";
}

/* Compares got (count entries, then one guard entry) with the reference. */
static void check_output(const products_case *pc, const char *prec, tp_sshopm_kernel k,
                         const char *what, const double *got, const double *ref,
                         const double *scale, size_t count, double tol) {
  for (size_t i = 0; i < count; ++i) {
    cr_assert(isfinite(got[i]), "m = %d, n = %d, %s %s, %s[%zu] is %g (left unwritten?)", pc->m,
              pc->n, prec, kernel_name(k), what, i, got[i]);
    cr_assert(fabs(got[i] - ref[i]) <= tol * scale[i],
              "m = %d, n = %d, %s %s, %s[%zu]: %.10g vs %.17g (|diff| %.3g > %.1g x %.3g)", pc->m,
              pc->n, prec, kernel_name(k), what, i, got[i], ref[i], fabs(got[i] - ref[i]), tol,
              scale[i]);
  }
  cr_assert(isnan(got[count]), "m = %d, n = %d, %s %s: %s written past its end", pc->m, pc->n, prec,
            kernel_name(k), what);
}

static void run_f64(const products_case *pc, tp_sshopm_kernel kernel) {
  size_t T = (size_t)pc->T, U = (size_t)pc->U, n = (size_t)pc->n;
  size_t c0 = T, c1 = T * n, c2 = T * n * n;
  double *da = tpt_to_space(pc->a, sizeof(double) * T * U);
  double *dx = tpt_to_space(pc->x, sizeof(double) * T * n);
  double *d0 = tpt_alloc_poisoned(sizeof(double) * (c0 + 1));
  double *d1 = tpt_alloc_poisoned(sizeof(double) * (c1 + 1));
  double *d2 = tpt_alloc_poisoned(sizeof(double) * (c2 + 1));
  double *h0 = tpt_host_alloc(sizeof(double) * (c0 + 1));
  double *h1 = tpt_host_alloc(sizeof(double) * (c1 + 1));
  double *h2 = tpt_host_alloc(sizeof(double) * (c2 + 1));

  /* An empty batch writes nothing. */
  TPT_OK(tp_sym_products_f64(tpt_space, pc->m, pc->n, 0, da, dx, kernel, d0, d1, d2));
  tpt_to_host(h0, d0, sizeof(double) * (c0 + 1));
  for (size_t i = 0; i <= c0; ++i)
    cr_assert(isnan(h0[i]), "an empty batch wrote out0[%zu]", i);

  TPT_OK(tp_sym_products_f64(tpt_space, pc->m, pc->n, pc->T, da, dx, kernel, d0, d1, d2));
  tpt_to_host(h0, d0, sizeof(double) * (c0 + 1));
  tpt_to_host(h1, d1, sizeof(double) * (c1 + 1));
  tpt_to_host(h2, d2, sizeof(double) * (c2 + 1));
  check_output(pc, "f64", kernel, "A x^m", h0, pc->r0, pc->s0, c0, 1e-12);
  check_output(pc, "f64", kernel, "A x^(m-1)", h1, pc->r1, pc->s1, c1, 1e-12);
  check_output(pc, "f64", kernel, "A x^(m-2)", h2, pc->r2, pc->s2, c2, 1e-12);
  tpt_free(da), tpt_free(dx), tpt_free(d0), tpt_free(d1), tpt_free(d2);
  free(h0), free(h1), free(h2);
}

static void run_f32(const products_case *pc, tp_sshopm_kernel kernel) {
  size_t T = (size_t)pc->T, U = (size_t)pc->U, n = (size_t)pc->n;
  size_t c0 = T, c1 = T * n, c2 = T * n * n;
  float *a = tpt_host_alloc(sizeof(float) * T * U), *x = tpt_host_alloc(sizeof(float) * T * n);
  for (size_t i = 0; i < T * U; ++i)
    a[i] = (float)pc->a[i]; /* exact: the values were drawn in float */
  for (size_t i = 0; i < T * n; ++i)
    x[i] = (float)pc->x[i];
  float *da = tpt_to_space(a, sizeof(float) * T * U);
  float *dx = tpt_to_space(x, sizeof(float) * T * n);
  float *d0 = tpt_alloc_poisoned(sizeof(float) * (c0 + 1));
  float *d1 = tpt_alloc_poisoned(sizeof(float) * (c1 + 1));
  float *d2 = tpt_alloc_poisoned(sizeof(float) * (c2 + 1));
  TPT_OK(tp_sym_products_f32(tpt_space, pc->m, pc->n, pc->T, da, dx, kernel, d0, d1, d2));
  float *f = tpt_host_alloc(sizeof(float) * (c2 + 1));
  double *h = tpt_host_alloc(sizeof(double) * (c2 + 1));
  const struct {
    float *d;
    size_t count;
    const double *ref, *scale;
    const char *what;
  } outs[3] = {{d0, c0, pc->r0, pc->s0, "A x^m"},
               {d1, c1, pc->r1, pc->s1, "A x^(m-1)"},
               {d2, c2, pc->r2, pc->s2, "A x^(m-2)"}};
  for (int o = 0; o < 3; ++o) {
    tpt_to_host(f, outs[o].d, sizeof(float) * (outs[o].count + 1));
    for (size_t i = 0; i <= outs[o].count; ++i)
      h[i] = (double)f[i];
    check_output(pc, "f32", kernel, outs[o].what, h, outs[o].ref, outs[o].scale, outs[o].count,
                 1e-5);
  }
  tpt_free(da), tpt_free(dx), tpt_free(d0), tpt_free(d1), tpt_free(d2);
  free(a), free(x), free(f), free(h);
}

static void check_shape_kernels(tpt_rng *rng, int m, int n) {
  products_case pc = make_case(rng, m, n);
  run_f64(&pc, TP_SSHOPM_KERNEL_GENERIC);
  run_f32(&pc, TP_SSHOPM_KERNEL_GENERIC);
  run_f64(&pc, TP_SSHOPM_KERNEL_AUTO);
  run_f32(&pc, TP_SSHOPM_KERNEL_AUTO);
  if (tp_sshopm_has_unrolled(m, n)) {
    run_f64(&pc, TP_SSHOPM_KERNEL_UNROLLED);
    run_f32(&pc, TP_SSHOPM_KERNEL_UNROLLED);
  } else {
    size_t T = (size_t)pc.T, U = (size_t)pc.U, nn = (size_t)n;
    double *da = tpt_to_space(pc.a, sizeof(double) * T * U);
    double *dx = tpt_to_space(pc.x, sizeof(double) * T * nn);
    double *d0 = tpt_alloc_poisoned(sizeof(double) * T);
    double *d1 = tpt_alloc_poisoned(sizeof(double) * T * nn);
    double *d2 = tpt_alloc_poisoned(sizeof(double) * T * nn * nn);
    TPT_FAILS_WITH(
        tp_sym_products_f64(tpt_space, m, n, pc.T, da, dx, TP_SSHOPM_KERNEL_UNROLLED, d0, d1, d2),
        TP_ERROR_NOT_SUPPORTED);
    TPT_FAILS_WITH(tp_sym_products_f32(tpt_space, m, n, pc.T, (const float *)da, (const float *)dx,
                                       TP_SSHOPM_KERNEL_UNROLLED, (float *)d0, (float *)d1,
                                       (float *)d2),
                   TP_ERROR_NOT_SUPPORTED);
    double h0[NUM_TENSORS];
    tpt_to_host(h0, d0, sizeof h0);
    for (int t = 0; t < NUM_TENSORS; ++t)
      cr_assert(isnan(h0[t]), "a refused call wrote out0[%d]", t);
    tpt_free(da), tpt_free(dx), tpt_free(d0), tpt_free(d1), tpt_free(d2);
  }
  free_case(&pc);
}

Test(symtensor, unrolled_shapes_are_available) {
  for (size_t c = 0; c < sizeof unrolled_shapes / sizeof unrolled_shapes[0]; ++c)
    cr_assert(tp_sshopm_has_unrolled(unrolled_shapes[c][0], unrolled_shapes[c][1]),
              "no unrolled kernel for m = %d, n = %d", unrolled_shapes[c][0],
              unrolled_shapes[c][1]);
  cr_assert(!tp_sshopm_has_unrolled(0, 3) && !tp_sshopm_has_unrolled(3, 0) &&
            !tp_sshopm_has_unrolled(-4, -3) && !tp_sshopm_has_unrolled(4, 300));
}

Test(symtensor, unrolled_products_match_reference) {
  tpt_rng rng = tpt_rng_fresh();
  for (size_t c = 0; c < sizeof unrolled_shapes / sizeof unrolled_shapes[0]; ++c)
    check_shape_kernels(&rng, unrolled_shapes[c][0], unrolled_shapes[c][1]);
}

Test(symtensor, generic_products_match_reference_on_other_shapes) {
  tpt_rng rng = tpt_rng_fresh();
  for (size_t c = 0; c < sizeof other_shapes / sizeof other_shapes[0]; ++c)
    check_shape_kernels(&rng, other_shapes[c][0], other_shapes[c][1]);
}

Test(symtensor, products_reject_bad_arguments) {
  double *d = tpt_alloc_poisoned(sizeof(double) * 64);
  TPT_FAILS_WITH(tp_sym_products_f64(tpt_space, 1, 3, 1, d, d, TP_SSHOPM_KERNEL_GENERIC, d, d, d),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_products_f64(tpt_space, 3, 0, 1, d, d, TP_SSHOPM_KERNEL_GENERIC, d, d, d),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_products_f64(tpt_space, 3, 2, -1, d, d, TP_SSHOPM_KERNEL_AUTO, d, d, d),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_products_f64(tpt_space, 19, 2, 1, d, d, TP_SSHOPM_KERNEL_GENERIC, d, d, d),
                 TP_ERROR_OVERFLOW);
  TPT_FAILS_WITH(tp_sym_products_f32(tpt_space, 1, 3, 1, (float *)d, (float *)d,
                                     TP_SSHOPM_KERNEL_GENERIC, (float *)d, (float *)d, (float *)d),
                 TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_sym_products_f32(tpt_space, 5, 2, 1, (float *)d, (float *)d,
                                     TP_SSHOPM_KERNEL_UNROLLED, (float *)d, (float *)d, (float *)d),
                 tp_sshopm_has_unrolled(5, 2) ? TP_SUCCESS : TP_ERROR_NOT_SUPPORTED);
  /* Generic term lists store entries in bytes: n <= 255. */
  TPT_FAILS_WITH(tp_sym_products_f64(tpt_space, 2, 256, 0, d, d, TP_SSHOPM_KERNEL_GENERIC, d, d, d),
                 TP_ERROR_INVALID_ARGUMENT);
  tpt_free(d);
}
