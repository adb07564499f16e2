/* Symmetric tensor storage: class enumeration, multinomials, conversions and
 * double-precision reference products (host code). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/symtensor.h"
#include "portable/tp_error.h"
#include "algorithms/sshopm/tp_sshopm_internal.h"

#define TWO_POW_53 9007199254740992.0

/* C(a, b) exactly, or -1 when it exceeds 2^53. */
static int64_t binomial_or_neg(int64_t a, int64_t b) {
  if (b < 0 || b > a)
    return 0;
  if (b > a - b)
    b = a - b;
  unsigned __int128 r = 1;
  for (int64_t i = 1; i <= b; ++i) {
    r = r * (unsigned __int128)(a - b + i) / (unsigned __int128)i;
    if ((double)r > TWO_POW_53)
      return -1;
  }
  return (int64_t)r;
}

double tpi_sym_factorial(int k) {
  double f = 1.0;
  for (int i = 2; i <= k; ++i)
    f *= i;
  return f;
}

static tp_status check_shape(int order, int dim) {
  TP_CHECK_ARG(order >= 1, "order m = %d: must be at least 1", order);
  TP_CHECK_ARG(dim >= 1, "dimension n = %d: must be at least 1", dim);
  if (order > TP_SYM_MAX_ORDER)
    return TP_ERROR(TP_ERROR_OVERFLOW,
                    "order m = %d: multinomial coefficients up to m! are exact in double "
                    "only for m <= %d",
                    order, TP_SYM_MAX_ORDER);
  return TP_SUCCESS;
}

tp_status tp_sym_unique_count(int order, int dim, int64_t *count) {
  TP_CHECK_ARG(count != NULL, "count is NULL");
  TP_TRY(check_shape(order, dim));
  int64_t u = binomial_or_neg((int64_t)order + dim - 1, order);
  if (u < 0)
    return TP_ERROR(TP_ERROR_OVERFLOW,
                    "order m = %d, dimension n = %d: C(m+n-1, m) unique values exceed 2^53", order,
                    dim);
  *count = u;
  return TP_SUCCESS;
}

void tp_sym_index_first(int order, int *index) {
  for (int p = 0; p < order; ++p)
    index[p] = 0;
}

int tp_sym_index_next(int order, int dim, int *index) {
  int p = order - 1;
  while (p >= 0 && index[p] == dim - 1)
    --p;
  if (p < 0)
    return 0;
  int v = index[p] + 1;
  for (int q = p; q < order; ++q)
    index[q] = v;
  return 1;
}

/* Product of the factorials of the multiplicities in a nondecreasing index, skipping
 * positions skip_a and skip_b (-1: none). */
double tpi_sym_multiplicity_factorials(int order, const int *index, int skip_a, int skip_b) {
  double div = 1.0;
  int curr = -1, mult = 0;
  for (int p = 0; p < order; ++p) {
    if (p == skip_a || p == skip_b)
      continue;
    if (index[p] != curr) {
      curr = index[p];
      mult = 1;
    } else {
      div *= ++mult;
    }
  }
  return div;
}

int64_t tp_sym_class_multinomial(int order, const int *index) {
  return (int64_t)(tpi_sym_factorial(order) /
                   tpi_sym_multiplicity_factorials(order, index, -1, -1));
}

static void sort_small(int order, int *v) {
  for (int p = 1; p < order; ++p)
    for (int q = p; q > 0 && v[q - 1] > v[q]; --q) {
      int t = v[q];
      v[q] = v[q - 1];
      v[q - 1] = t;
    }
}

int64_t tp_sym_class_position(int order, int dim, const int *index) {
  int sorted[TP_SYM_MAX_ORDER];
  if (order < 1 || order > TP_SYM_MAX_ORDER)
    return -1;
  for (int p = 0; p < order; ++p) {
    if (index[p] < 0 || index[p] >= dim)
      return -1;
    sorted[p] = index[p];
  }
  sort_small(order, sorted);
  /* Count the nondecreasing sequences that precede: at position p, every smaller
   * value v >= the previous entry starts C((dim - v) + rest - 1, rest) of them. */
  int64_t pos = 0;
  int lo = 0;
  for (int p = 0; p < order; ++p) {
    int rest = order - p - 1;
    for (int v = lo; v < sorted[p]; ++v)
      pos += binomial_or_neg((int64_t)(dim - v) + rest - 1, rest);
    lo = sorted[p];
  }
  return pos;
}

tp_status tp_sym_index_table(int order, int dim, int32_t *index, int64_t *multinomial) {
  int64_t count;
  TP_TRY(tp_sym_unique_count(order, dim, &count));
  int cur[TP_SYM_MAX_ORDER];
  tp_sym_index_first(order, cur);
  for (int64_t j = 0; j < count; ++j) {
    if (index)
      for (int p = 0; p < order; ++p)
        index[j * order + p] = cur[p];
    if (multinomial)
      multinomial[j] = tp_sym_class_multinomial(order, cur);
    tp_sym_index_next(order, dim, cur);
  }
  return TP_SUCCESS;
}

/* n^m with overflow detection. */
static tp_status full_size(int order, int dim, int64_t *size) {
  double s = pow((double)dim, (double)order);
  if (s > 1e12)
    return TP_ERROR(TP_ERROR_OVERFLOW,
                    "full tensor of order %d and dimension %d: %.3g "
                    "entries is too many to expand",
                    order, dim, s);
  *size = (int64_t)llround(s);
  return TP_SUCCESS;
}

/* Odometer over full tensor indices, last index fastest; 0 after the last one. */
static int full_index_next(int order, int dim, int *index) {
  for (int p = order - 1; p >= 0; --p) {
    if (++index[p] < dim)
      return 1;
    index[p] = 0;
  }
  return 0;
}

tp_status tp_sym_to_full_f64(int order, int dim, const double *unique, double *full) {
  TP_CHECK_ARG(unique && full, "unique or full is NULL");
  int64_t u = 0, size = 0;
  TP_TRY(tp_sym_unique_count(order, dim, &u));
  TP_TRY(full_size(order, dim, &size));
  int idx[TP_SYM_MAX_ORDER] = {0};
  int64_t e = 0;
  do
    full[e++] = unique[tp_sym_class_position(order, dim, idx)];
  while (full_index_next(order, dim, idx));
  return TP_SUCCESS;
}

tp_status tp_sym_from_full_f64(int order, int dim, const double *full, double rel_tol,
                               double *unique) {
  TP_CHECK_ARG(unique && full, "unique or full is NULL");
  TP_CHECK_ARG(rel_tol >= 0 && isfinite(rel_tol), "rel_tol = %g must be finite and >= 0", rel_tol);
  int64_t u = 0, size = 0;
  TP_TRY(tp_sym_unique_count(order, dim, &u));
  TP_TRY(full_size(order, dim, &size));
  TP_TRY(tp_check_finite_f64(full, size, "full tensor"));
  int64_t *members = (int64_t *)calloc((size_t)u, sizeof *members);
  double *first = (double *)malloc(sizeof(double) * (size_t)u);
  if (!members || !first) {
    free(members), free(first);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no room for %lld class counts", (long long)u);
  }
  /* A running mean per class (no overflow, and exact when all members agree); the
   * symmetry test compares every entry with its class's first member. */
  double scale = 0.0, worst = 0.0;
  int64_t worst_entry = -1;
  int idx[TP_SYM_MAX_ORDER] = {0};
  int64_t e = 0;
  do {
    int64_t c = tp_sym_class_position(order, dim, idx);
    if (members[c]++ == 0)
      first[c] = unique[c] = full[e];
    else
      unique[c] += (full[e] - unique[c]) / (double)members[c];
    if (fabs(full[e] - first[c]) > worst)
      worst = fabs(full[e] - first[c]), worst_entry = e;
    scale = fmax(scale, fabs(full[e++]));
  } while (full_index_next(order, dim, idx));
  free(members), free(first);
  if (worst > rel_tol * scale)
    return TP_ERROR(TP_ERROR_NUMERICAL,
                    "tensor is not symmetric: entry %lld differs from another entry of its "
                    "class by %.3g (tolerance %.3g)",
                    (long long)worst_entry, worst, rel_tol * scale);
  return TP_SUCCESS;
}

/* ---- products A x^m, A x^(m-1), A x^(m-2) -------------------------------------------
 * Unique entry j (a nondecreasing index) holds the value `a` of every full-tensor
 * position whose index is a permutation of it. Written with its runs, value v_r
 * repeated e_r times, the entry adds to
 *   A x^m:              m! / prod e_r! * a * prod x_v^e_r
 *   (A x^(m-1))_i:      the same with one i taken away: (m-1)! / prod e'_r! * a * x^e'
 *   (A x^(m-2))_{i,k}:  with an i and a k taken away, (m-2)! / prod e'_r! * a * x^e'
 * (the derivatives of the polynomial A x^m, divided by m and m (m - 1)). Powers of x come
 * from a table made once per call, so an entry costs a few products per output. */

typedef struct sym_runs {
  int count;
  int value[TP_SYM_MAX_ORDER], times[TP_SYM_MAX_ORDER];
  double factorials; /* prod e_r! */
} sym_runs;

static void runs_of(int order, const int *index, sym_runs *r) {
  r->count = 0;
  r->factorials = 1.0;
  for (int p = 0; p < order; ++p) {
    if (r->count > 0 && r->value[r->count - 1] == index[p]) {
      r->factorials *= ++r->times[r->count - 1];
    } else {
      r->value[r->count] = index[p];
      r->times[r->count++] = 1;
    }
  }
}

/* pw[v * (order + 1) + e] = x_v^e for every v < dim and e <= order. */
typedef struct sym_powers {
  double *pw;
  int stride;
  double local[512];
} sym_powers;

static tp_status powers_make(int order, int dim, const double *x, sym_powers *p) {
  size_t n = (size_t)dim * (size_t)(order + 1);
  p->stride = order + 1;
  p->pw =
      n <= sizeof p->local / sizeof p->local[0] ? p->local : (double *)malloc(sizeof(double) * n);
  if (!p->pw)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %zu powers", n);
  for (int v = 0; v < dim; ++v) {
    double *row = p->pw + (size_t)v * (size_t)p->stride;
    row[0] = 1.0;
    for (int e = 1; e <= order; ++e)
      row[e] = row[e - 1] * x[v];
  }
  return TP_SUCCESS;
}

static void powers_free(sym_powers *p) {
  if (p->pw != p->local)
    free(p->pw);
}

/* prod_r x_{v_r}^{e_r} with run a's count lowered by drop_a and run b's by drop_b. */
static double runs_monomial(const sym_runs *r, const sym_powers *p, int a, int drop_a, int b,
                            int drop_b) {
  double prod = 1.0;
  for (int q = 0; q < r->count; ++q) {
    int e = r->times[q] - (q == a ? drop_a : 0) - (q == b ? drop_b : 0);
    prod *= p->pw[(size_t)r->value[q] * (size_t)p->stride + e];
  }
  return prod;
}

static tp_status check_product_args(int order, int dim, const double *unique, const double *x,
                                    const void *out, int64_t *count) {
  TP_CHECK_ARG(unique && x && out, "a NULL array");
  return tp_sym_unique_count(order, dim, count);
}

tp_status tp_sym_axm_f64(int order, int dim, const double *unique, const double *x,
                         double *result) {
  int64_t u;
  TP_TRY(check_product_args(order, dim, unique, x, result, &u));
  sym_powers pw;
  TP_TRY(powers_make(order, dim, x, &pw));
  double fm = tpi_sym_factorial(order), sum = 0.0;
  int idx[TP_SYM_MAX_ORDER];
  sym_runs r;
  tp_sym_index_first(order, idx);
  for (int64_t j = 0; j < u; ++j, tp_sym_index_next(order, dim, idx)) {
    runs_of(order, idx, &r);
    sum += fm / r.factorials * unique[j] * runs_monomial(&r, &pw, -1, 0, -1, 0);
  }
  powers_free(&pw);
  *result = sum;
  return TP_SUCCESS;
}

tp_status tp_sym_axm1_f64(int order, int dim, const double *unique, const double *x, double *y) {
  int64_t u;
  TP_TRY(check_product_args(order, dim, unique, x, y, &u));
  sym_powers pw;
  TP_TRY(powers_make(order, dim, x, &pw));
  double fm1 = tpi_sym_factorial(order - 1);
  memset(y, 0, sizeof(double) * (size_t)dim);
  int idx[TP_SYM_MAX_ORDER];
  sym_runs r;
  tp_sym_index_first(order, idx);
  for (int64_t j = 0; j < u; ++j, tp_sym_index_next(order, dim, idx)) {
    runs_of(order, idx, &r);
    for (int a = 0; a < r.count; ++a) /* prod e'! = prod e! / e_a */
      y[r.value[a]] +=
          fm1 / (r.factorials / r.times[a]) * unique[j] * runs_monomial(&r, &pw, a, 1, -1, 0);
  }
  powers_free(&pw);
  return TP_SUCCESS;
}

tp_status tp_sym_axm2_f64(int order, int dim, const double *unique, const double *x, double *h) {
  int64_t u;
  TP_TRY(check_product_args(order, dim, unique, x, h, &u));
  TP_CHECK_ARG(order >= 2, "A x^(m-2) needs order m >= 2, got %d", order);
  sym_powers pw;
  TP_TRY(powers_make(order, dim, x, &pw));
  double fm2 = tpi_sym_factorial(order - 2);
  memset(h, 0, sizeof(double) * (size_t)dim * (size_t)dim);
  int idx[TP_SYM_MAX_ORDER];
  sym_runs r;
  tp_sym_index_first(order, idx);
  for (int64_t j = 0; j < u; ++j, tp_sym_index_next(order, dim, idx)) {
    runs_of(order, idx, &r);
    for (int a = 0; a < r.count; ++a) {
      if (r.times[a] >= 2) /* i = k: prod e'! = prod e! / (e_a (e_a - 1)) */
        h[r.value[a] * dim + r.value[a]] += fm2 / (r.factorials / (r.times[a] * (r.times[a] - 1))) *
                                            unique[j] * runs_monomial(&r, &pw, a, 2, -1, 0);
      for (int b = a + 1; b < r.count; ++b) /* i < k: prod e! / (e_a e_b) */
        h[r.value[a] * dim + r.value[b]] += fm2 / (r.factorials / (r.times[a] * r.times[b])) *
                                            unique[j] * runs_monomial(&r, &pw, a, 1, b, 1);
    }
  }
  powers_free(&pw);
  for (int i = 0; i < dim; ++i)
    for (int k = i + 1; k < dim; ++k)
      h[k * dim + i] = h[i * dim + k];
  return TP_SUCCESS;
}

tp_status tp_check_finite_f64(const double *values, int64_t count, const char *what) {
  for (int64_t i = 0; i < count; ++i)
    if (!isfinite(values[i]))
      return TP_ERROR(TP_ERROR_NUMERICAL, "%s: value %lld is %g (not finite)", what, (long long)i,
                      values[i]);
  return TP_SUCCESS;
}

tp_status tp_check_finite_f32(const float *values, int64_t count, const char *what) {
  for (int64_t i = 0; i < count; ++i)
    if (!isfinite(values[i]))
      return TP_ERROR(TP_ERROR_NUMERICAL, "%s: value %lld is %g (not finite)", what, (long long)i,
                      (double)values[i]);
  return TP_SUCCESS;
}

int tpi_sym_norm_parts_f64(int order, int dim, int64_t unique, const double *a, double *big,
                           double *root) {
  double b = 0.0, q = 0.0;
  for (int64_t j = 0; j < unique; ++j) {
    if (!isfinite(a[j]))
      return -1;
    b = fmax(b, fabs(a[j]));
  }
  b = b > 0 ? b : 1.0;
  int idx[TP_SYM_MAX_ORDER];
  tp_sym_index_first(order, idx);
  for (int64_t j = 0; j < unique; ++j, tp_sym_index_next(order, dim, idx)) {
    double v = a[j] / b;
    q += (double)tp_sym_class_multinomial(order, idx) * v * v;
  }
  *big = b;
  *root = q > 0 ? sqrt(q) : 1.0;
  return q > 0 ? 0 : 1;
}
