/* The eigenvectors of the largest eigenvalues of a symmetric positive semidefinite
 * operator Y (I x I) given by its product with blocks of vectors, for the nvecs start
 * (cp_nvecs.c). Small I: Y is formed from I products with unit vectors and diagonalised
 * by cyclic Jacobi (tp_symeig.h). Larger I: subspace iteration on a block of want + 10
 * vectors, with Rayleigh-Ritz at each step, until the wanted Ritz pairs' residuals are
 * below 1e-10 of the largest Ritz value or 500 steps have passed (a start needs no
 * more). Each vector is signed so that its entry of largest magnitude is positive. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/cp_als/tp_cp_internal.h"
#include "portable/tp_error.h"
#include "algorithms/sshopm/tp_symeig.h"

enum { EIGEN_DIRECT_MAX = 256, EIGEN_EXTRA = 10, EIGEN_MAX_STEPS = 500 };
#define EIGEN_TOL 1e-10

typedef struct eigen_work {
  const tpi_cp_gram_operator *op;
  int64_t I, b;
  double *Q, *Z, *T, *W, *theta; /* I x b, I x b, b x b, b x b, b */
} eigen_work;

/* Column j of the row-major I x b matrix A times s. */
static void scale_column(double *A, int64_t I, int64_t b, int64_t j, double s) {
  for (int64_t i = 0; i < I; ++i)
    A[i * b + j] *= s;
}

static double column_dot(const double *A, const double *B, int64_t I, int64_t b, int64_t j,
                         int64_t l) {
  double sum = 0.0;
  for (int64_t i = 0; i < I; ++i)
    sum += A[i * b + j] * B[i * b + l];
  return sum;
}

/* Column j made orthonormal to columns 0..j-1 (classical Gram-Schmidt, twice); 0 when
 * nothing of it is left. */
static int orthonormalise_column(double *A, int64_t I, int64_t b, int64_t j) {
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t l = 0; l < j; ++l) {
      double c = column_dot(A, A, I, b, l, j);
      for (int64_t i = 0; i < I; ++i)
        A[i * b + j] -= c * A[i * b + l];
    }
  double norm = sqrt(column_dot(A, A, I, b, j, j));
  if (!(norm > 0) || !isfinite(norm))
    return 0;
  scale_column(A, I, b, j, 1.0 / norm);
  return 1;
}

/* Orthonormal columns; a column that vanishes is replaced by an axis and tried again. */
static void orthonormalise(double *A, int64_t I, int64_t b) {
  for (int64_t j = 0; j < b; ++j) {
    if (orthonormalise_column(A, I, b, j))
      continue;
    for (int64_t i = 0; i < I; ++i)
      A[i * b + j] = i == j % I ? 1.0 : 0.0;
    (void)orthonormalise_column(A, I, b, j);
  }
}

/* Eigenpairs of the symmetric b x b matrix T (row-major, overwritten), sorted by
 * eigenvalue, largest first: theta, and W's columns. */
static void small_eigen(double *T, int64_t b, double *W, double *theta) {
  double *V = (double *)malloc(sizeof(double) * (size_t)(b * b));
  int64_t *order = (int64_t *)malloc(sizeof(int64_t) * (size_t)b);
  if (!V || !order) { /* callers allocate far more than this; treat as no rotation */
    free(V), free(order);
    for (int64_t i = 0; i < b * b; ++i)
      W[i] = i % (b + 1) == 0 ? 1.0 : 0.0;
    for (int64_t i = 0; i < b; ++i)
      theta[i] = T[i * b + i];
    return;
  }
  tp_symeig_jacobi_f64((int)b, T, V);
  for (int64_t i = 0; i < b; ++i)
    order[i] = i;
  for (int64_t i = 1; i < b; ++i) /* insertion sort: b is small */
    for (int64_t j = i; j > 0 && T[order[j] * b + order[j]] > T[order[j - 1] * b + order[j - 1]];
         --j) {
      int64_t t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  for (int64_t j = 0; j < b; ++j) {
    theta[j] = T[order[j] * b + order[j]];
    for (int64_t i = 0; i < b; ++i)
      W[i * b + j] = V[i * b + order[j]];
  }
  free(V), free(order);
}

/* C = A B for row-major A (I x b) and B (b x b). */
static void times_small(const double *A, const double *B, int64_t I, int64_t b, double *C) {
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < b; ++j) {
      double sum = 0.0;
      for (int64_t l = 0; l < b; ++l)
        sum += A[i * b + l] * B[l * b + j];
      C[i * b + j] = sum;
    }
}

/* Whether the first `want` Ritz pairs (Q W, theta) have converged, given Z = Y Q: the
 * residual of pair j is Z w_j - theta_j Q w_j. */
static int converged(const eigen_work *e, int64_t want) {
  const int64_t I = e->I, b = e->b;
  double worst = 0.0;
  for (int64_t j = 0; j < want; ++j) {
    double r2 = 0.0;
    for (int64_t i = 0; i < I; ++i) {
      double zw = 0.0, qw = 0.0;
      for (int64_t l = 0; l < b; ++l)
        zw += e->Z[i * b + l] * e->W[l * b + j], qw += e->Q[i * b + l] * e->W[l * b + j];
      r2 += (zw - e->theta[j] * qw) * (zw - e->theta[j] * qw);
    }
    worst = sqrt(r2) > worst ? sqrt(r2) : worst;
  }
  return worst <= EIGEN_TOL * (e->theta[0] > 0 ? e->theta[0] : 1.0);
}

/* A deterministic start: uniform numbers in [-1, 1) from seed (splitmix64). */
static void random_block(double *Q, int64_t n, uint64_t seed) {
  uint64_t s = seed ^ 0x6e76656373ull; /* "nvecs" */
  for (int64_t i = 0; i < n; ++i) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    Q[i] = (double)(z >> 11) * 0x1.0p-52 - 1.0;
  }
}

/* Subspace iteration: Q <- orth(Y Q W) with W the Ritz vectors of Q^T Y Q. The Ritz
 * vectors Q W of the last step go to Q. */
static tp_status subspace(eigen_work *e, int64_t want, uint64_t seed) {
  const int64_t I = e->I, b = e->b;
  random_block(e->Q, I * b, seed);
  orthonormalise(e->Q, I, b);
  for (int step = 0; step < EIGEN_MAX_STEPS; ++step) {
    TP_TRY(e->op->apply(e->op->ctx, e->Q, b, e->Z));
    for (int64_t j = 0; j < b; ++j)
      for (int64_t l = 0; l < b; ++l)
        e->T[j * b + l] = column_dot(e->Q, e->Z, I, b, j, l);
    for (int64_t j = 0; j < b; ++j) /* symmetric in exact arithmetic: make it so */
      for (int64_t l = 0; l < j; ++l)
        e->T[j * b + l] = e->T[l * b + j] = 0.5 * (e->T[j * b + l] + e->T[l * b + j]);
    small_eigen(e->T, b, e->W, e->theta);
    if (converged(e, want) || step + 1 == EIGEN_MAX_STEPS) {
      memcpy(e->T, e->W, sizeof(double) * (size_t)(b * b));
      times_small(e->Q, e->T, I, b, e->Z);
      memcpy(e->Q, e->Z, sizeof(double) * (size_t)(I * b));
      return TP_SUCCESS;
    }
    times_small(e->Z, e->W, I, b, e->Q);
    orthonormalise(e->Q, I, b);
  }
  return TP_SUCCESS;
}

/* Y formed whole (I products with the identity's columns) and diagonalised. */
static tp_status direct(eigen_work *e) {
  const int64_t I = e->I;
  for (int64_t i = 0; i < I * I; ++i)
    e->Q[i] = i % (I + 1) == 0 ? 1.0 : 0.0;
  TP_TRY(e->op->apply(e->op->ctx, e->Q, I, e->Z));
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < i; ++j)
      e->Z[i * I + j] = e->Z[j * I + i] = 0.5 * (e->Z[i * I + j] + e->Z[j * I + i]);
  small_eigen(e->Z, I, e->Q, e->theta);
  return TP_SUCCESS;
}

/* Column j of the I x b result into column j of out (I x want), signed. */
static void take_vector(const double *Q, int64_t I, int64_t b, int64_t j, double *out,
                        int64_t want) {
  int64_t lead = 0;
  for (int64_t i = 1; i < I; ++i)
    if (fabs(Q[i * b + j]) > fabs(Q[lead * b + j]))
      lead = i;
  double sign = Q[lead * b + j] < 0 ? -1.0 : 1.0;
  for (int64_t i = 0; i < I; ++i)
    out[i * want + j] = sign * Q[i * b + j];
}

int64_t tpi_cp_eigen_block(int64_t I, int64_t want) {
  if (I <= EIGEN_DIRECT_MAX)
    return I;
  return want + EIGEN_EXTRA < I ? want + EIGEN_EXTRA : I;
}

tp_status tpi_cp_top_eigenvectors(const tpi_cp_gram_operator *op, int64_t I, int64_t want,
                                  uint64_t seed, double *out) {
  TP_CHECK_ARG(op && op->apply && out, "op, op->apply and out must not be NULL");
  TP_CHECK_ARG(I >= 1 && want >= 1 && want <= I,
               "%lld eigenvectors of an operator of order "
               "%lld: not possible",
               (long long)want, (long long)I);
  eigen_work e;
  memset(&e, 0, sizeof e);
  e.op = op, e.I = I;
  e.b = tpi_cp_eigen_block(I, want);
  const size_t block = (size_t)(I * e.b), small = (size_t)(e.b * e.b);
  e.Q = (double *)malloc(sizeof(double) * block);
  e.Z = (double *)malloc(sizeof(double) * block);
  e.T = (double *)malloc(sizeof(double) * small);
  e.W = (double *)malloc(sizeof(double) * small);
  e.theta = (double *)malloc(sizeof(double) * (size_t)e.b);
  tp_status st = TP_SUCCESS;
  if (!e.Q || !e.Z || !e.T || !e.W || !e.theta)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                  "no host memory for %lld x %lld eigenvectors "
                  "(nvecs)",
                  (long long)I, (long long)e.b);
  if (st == TP_SUCCESS)
    st = I <= EIGEN_DIRECT_MAX ? direct(&e) : subspace(&e, want, seed);
  for (int64_t j = 0; st == TP_SUCCESS && j < want; ++j)
    take_vector(e.Q, I, e.b, j, out, want);
  free(e.Q), free(e.Z), free(e.T), free(e.W), free(e.theta);
  return st;
}
