/* The nvecs start of CP-ALS (the Tensor Toolbox's nvecs): factor k holds the leading
 * eigenvectors of Y_k = X_(k) X_(k)^T, the Gram of the mode-k unfolding.
 *   Dense: Y_k is formed in the space by GEMMs over the slabs of X that mode k cuts it
 *   into (with the modes stored faster than k "inner", the slower ones "outer", slab J
 *   is an I_k x inner block B_J, and Y_k = sum_J B_J B_J^T), then multiplied there.
 *   Sparse: Y_k is applied without being formed: the nonzeros that share all their
 *   other indices form a group g, and (Y_k Q)[i, :] = sum over g's nonzeros a with index
 *   i of x_a sum_{b in g} x_b Q[i_b, :]. No MTTKRP is involved.
 * The eigenvectors come from tpi_cp_top_eigenvectors; columns beyond I_k stay those of
 * tp_kruskal_random's factors (the random start's). */
#include <stdlib.h>
#include <string.h>

#include "tenport/cp_als.h"
#include "tenport/linalg.h"
#include "tenport/memory.h"
#include "algorithms/cp_als/tp_cp_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

static tp_status check_start(const tp_kruskal *K, tp_dtype dtype, int order, const int64_t *dims) {
  TP_CHECK_ARG(K, "host_init must not be NULL");
  TP_TRY(tp_kruskal_check(K));
  TP_CHECK_ARG(K->dtype == dtype && K->order == order, "host_init must be %s of order %d",
               tp_dtype_name(dtype), order);
  for (int k = 0; k < order; ++k)
    TP_CHECK_ARG(K->dims[k] == dims[k], "host_init dims[%d] = %lld, the tensor's %lld", k,
                 (long long)K->dims[k], (long long)dims[k]);
  TP_CHECK_ARG(K->lambda, "host_init->lambda must not be NULL");
  for (int k = 0; k < order; ++k)
    TP_CHECK_ARG(K->factors[k], "host_init->factors[%d] must not be NULL", k);
  return TP_SUCCESS;
}

/* The leading min(I_k, rank) eigenvectors of op into factor k's first columns. */
static tp_status fill_factor(const tpi_cp_gram_operator *op, tp_kruskal *K, int k, uint64_t seed) {
  const int64_t I = K->dims[k], R = K->rank, want = R < I ? R : I;
  double *vectors = (double *)malloc(sizeof(double) * (size_t)(I * want));
  if (!vectors)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for %lld x %lld eigenvectors",
                    (long long)I, (long long)want);
  tp_status st = tpi_cp_top_eigenvectors(op, I, want, seed + (uint64_t)k, vectors);
  for (int64_t i = 0; st == TP_SUCCESS && i < I; ++i)
    for (int64_t r = 0; r < want; ++r) {
      double v = vectors[i * want + r];
      if (K->dtype == TP_DTYPE_F32)
        ((float *)K->factors[k])[i * R + r] = (float)v;
      else
        ((double *)K->factors[k])[i * R + r] = v;
    }
  free(vectors);
  return st;
}

/* ---- dense ----------------------------------------------------------------------------- */

typedef struct dense_gram {
  tp_space *space;
  int64_t I;
  double *Y, *Q, *Z; /* space: I x I, and two blocks of I x tpi_cp_eigen_block vectors */
} dense_gram;

/* Products of the dims stored faster (inner) and slower (outer) than mode k. */
static void slab_shape(const tp_dense *X, int k, int64_t *inner, int64_t *outer) {
  *inner = *outer = 1;
  for (int m = 0; m < X->order; ++m) {
    int faster = X->layout == TP_LAYOUT_LEFT ? m < k : m > k;
    if (m != k)
      *(faster ? inner : outer) *= X->dims[m];
  }
}

/* Y (double, in the space) = sum over slabs B_J B_J^T; f32 tensors through a float Y32.
 * Slabs of one column each (mode k stored fastest) make X an outer x I matrix A, and
 * Y = A^T A is one product. */
static tp_status form_dense_gram(tp_space *space, const tp_dense *X, int k, double *Y, float *Y32) {
  const int64_t I = X->dims[k];
  int64_t inner, outer;
  slab_shape(X, k, &inner, &outer);
  const int f32 = X->dtype == TP_DTYPE_F32, whole = inner == 1;
  const int64_t products = whole ? 1 : outer, depth = whole ? outer : inner;
  const tp_transpose ta = whole ? TP_TRANS : TP_NO_TRANS, tb = whole ? TP_NO_TRANS : TP_TRANS;
  const int64_t ld = whole ? I : inner;
  for (int64_t J = 0; J < products; ++J) {
    const size_t offset = (size_t)(J * I * inner);
    if (f32) {
      const float *B = (const float *)X->data + offset;
      TP_TRY(tp_gemm_f32(space, ta, tb, I, I, depth, 1.0f, B, ld, B, ld, J ? 1.0f : 0.0f, Y32, I));
    } else {
      const double *B = (const double *)X->data + offset;
      TP_TRY(tp_gemm_f64(space, ta, tb, I, I, depth, 1.0, B, ld, B, ld, J ? 1.0 : 0.0, Y, I));
    }
  }
  return f32 ? tpi_cp_to_double(space, TP_DTYPE_F32, Y32, Y, I * I) : TP_SUCCESS;
}

static tp_status dense_apply(void *ctx, const double *Q, int64_t b, double *Z) {
  dense_gram *g = (dense_gram *)ctx;
  const size_t bytes = sizeof(double) * (size_t)(g->I * b);
  TP_TRY(tp_copy_to_device(g->space, g->Q, Q, bytes));
  TP_TRY(tp_gemm_f64(g->space, TP_NO_TRANS, TP_NO_TRANS, g->I, b, g->I, 1.0, g->Y, g->I, g->Q, b,
                     0.0, g->Z, b));
  return tp_copy_to_host(g->space, Z, g->Z, bytes);
}

/* Y_k formed (a float one first for an f32 tensor), then its vectors. */
static tp_status dense_mode(tp_space *space, const tp_dense *X, int k, uint64_t seed,
                            tp_kruskal *K) {
  const int64_t I = X->dims[k], want = K->rank < I ? K->rank : I;
  const size_t square = sizeof(double) * (size_t)(I * I);
  const size_t block = sizeof(double) * (size_t)(I * tpi_cp_eigen_block(I, want));
  const size_t half = X->dtype == TP_DTYPE_F32 ? square / 2 : 0;
  dense_gram g;
  memset(&g, 0, sizeof g);
  g.space = space, g.I = I;
  float *Y32 = NULL;
  tp_status st = tp_alloc(space, square, (void **)&g.Y);
  if (st == TP_SUCCESS && half)
    st = tp_alloc(space, half, (void **)&Y32);
  if (st == TP_SUCCESS)
    st = form_dense_gram(space, X, k, g.Y, Y32);
  tp_free(space, Y32);
  if (st == TP_SUCCESS)
    st = tp_alloc(space, block, (void **)&g.Q);
  if (st == TP_SUCCESS)
    st = tp_alloc(space, block, (void **)&g.Z);
  if (st == TP_ERROR_OUT_OF_MEMORY)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                  "nvecs of mode %d forms its %lld x %lld Gram (%zu "
                  "bytes) and two blocks of %zu bytes in the space: they do not fit",
                  k, (long long)I, (long long)I, square, block);
  tpi_cp_gram_operator op = {dense_apply, &g};
  if (st == TP_SUCCESS)
    st = fill_factor(&op, K, k, seed);
  tp_free(space, g.Y), tp_free(space, g.Q), tp_free(space, g.Z);
  return st;
}

tp_status tp_cp_nvecs_dense(tp_space *space, const tp_dense *X, uint64_t seed,
                            tp_kruskal *host_init) {
  TP_CHECK_ARG(space && X, "space and X must not be NULL");
  TP_TRY(tp_dense_check(X));
  TP_CHECK_ARG(X->data, "X->data must not be NULL");
  TP_CHECK_ARG(X->dtype == TP_DTYPE_F32 || X->dtype == TP_DTYPE_F64,
               "X is %s: nvecs takes float32 or float64 tensors", tp_dtype_name(X->dtype));
  TP_TRY(check_start(host_init, X->dtype, X->order, X->dims));
  TP_TRY(tp_kruskal_random(host_init, seed));
  for (int k = 0; k < X->order; ++k)
    TP_TRY(dense_mode(space, X, k, seed, host_init));
  return TP_SUCCESS;
}

/* ---- sparse ---------------------------------------------------------------------------- */

typedef struct coo_gram {
  tp_coo sorted;        /* the nonzeros, mode k moved last and sorted: groups adjacent */
  int64_t *group_start; /* groups + 1 offsets */
  int64_t groups;
} coo_gram;

/* A copy of X (values in double) with mode k last, sorted by coordinate. */
static tp_status sorted_copy(const tp_coo *X, int k, tp_coo *c) {
  int64_t dims[TP_COO_MAX_ORDER];
  int from[TP_COO_MAX_ORDER], n = 0;
  for (int m = 0; m < X->order; ++m)
    if (m != k)
      from[n++] = m;
  from[n] = k;
  for (int m = 0; m < X->order; ++m)
    dims[m] = X->dims[from[m]];
  TP_TRY(tpi_coo_host_alloc(TP_DTYPE_F64, X->order, dims, X->nnz, c));
  for (int m = 0; m < X->order; ++m)
    memcpy(c->indices[m], X->indices[from[m]], sizeof(int64_t) * (size_t)X->nnz);
  for (int64_t a = 0; a < X->nnz; ++a)
    ((double *)c->values)[a] = tpi_coo_value(X, a);
  return tpi_coo_sort(c);
}

/* Offsets of the runs of nonzeros with equal indices in every mode but the last. */
static tp_status find_groups(coo_gram *g) {
  const tp_coo *c = &g->sorted;
  g->group_start = (int64_t *)malloc(sizeof(int64_t) * (size_t)(c->nnz + 1));
  if (!g->group_start)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for %lld group offsets (nvecs)",
                    (long long)c->nnz);
  g->groups = 0;
  for (int64_t a = 0; a < c->nnz; ++a) {
    int same = a > 0;
    for (int m = 0; same && m + 1 < c->order; ++m)
      same = c->indices[m][a] == c->indices[m][a - 1];
    if (!same)
      g->group_start[g->groups++] = a;
  }
  g->group_start[g->groups] = c->nnz;
  return TP_SUCCESS;
}

static tp_status coo_apply(void *ctx, const double *Q, int64_t b, double *Z) {
  const coo_gram *g = (const coo_gram *)ctx;
  const tp_coo *c = &g->sorted;
  const int64_t *index = c->indices[c->order - 1];
  const double *x = (const double *)c->values;
  memset(Z, 0, sizeof(double) * (size_t)(c->dims[c->order - 1] * b));
  TP_HOST_OMP(omp parallel for schedule(static))
  for (int64_t col = 0; col < b; ++col)
    for (int64_t grp = 0; grp < g->groups; ++grp) {
      double sum = 0.0;
      for (int64_t a = g->group_start[grp]; a < g->group_start[grp + 1]; ++a)
        sum += x[a] * Q[index[a] * b + col];
      for (int64_t a = g->group_start[grp]; a < g->group_start[grp + 1]; ++a)
        Z[index[a] * b + col] += x[a] * sum;
    }
  return TP_SUCCESS;
}

static tp_status coo_mode(const tp_coo *X, int k, uint64_t seed, tp_kruskal *K) {
  coo_gram g;
  memset(&g, 0, sizeof g);
  tp_status st = sorted_copy(X, k, &g.sorted);
  if (st == TP_SUCCESS)
    st = find_groups(&g);
  tpi_cp_gram_operator op = {coo_apply, &g};
  if (st == TP_SUCCESS)
    st = fill_factor(&op, K, k, seed);
  tpi_coo_host_free(&g.sorted);
  free(g.group_start);
  return st;
}

tp_status tp_cp_nvecs_coo(const tp_coo *host, uint64_t seed, tp_kruskal *host_init) {
  TP_CHECK_ARG(host, "host must not be NULL");
  TP_TRY(tp_coo_validate(host));
  TP_CHECK_ARG(host->order <= TP_DENSE_MAX_ORDER, "order %d is beyond a Kruskal tensor's %d",
               host->order, TP_DENSE_MAX_ORDER);
  TP_TRY(
      check_start(host_init, host_init ? host_init->dtype : TP_DTYPE_F64, host->order, host->dims));
  TP_CHECK_ARG(host_init->dtype == TP_DTYPE_F32 || host_init->dtype == TP_DTYPE_F64,
               "host_init must be float32 or float64");
  TP_TRY(tp_kruskal_random(host_init, seed));
  for (int k = 0; k < host->order; ++k)
    TP_TRY(coo_mode(host, k, seed, host_init));
  return TP_SUCCESS;
}
