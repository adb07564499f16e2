/* Eigenvalues of small symmetric matrices, callable on the host and inside kernels:
 * cyclic Jacobi for any n, and a closed form for the extreme eigenvalues of 3 x 3
 * matrices (the adaptive shift of the n = 3 kernels). Kernel sources include
 * tp_portable.h first (TP_INLINE then runs on the device too); host code gets plain
 * static inline functions. */
#ifndef TP_SYMEIG_H
#define TP_SYMEIG_H

#include <math.h>

#ifndef TP_INLINE
#define TP_INLINE static inline
#endif

/* TP_DEFINE_SYMEIG(T, sfx, SQRT, FABS, ACOS, COS, EPS2) defines, for element type T:
 *
 * tp_symeig_jacobi_sfx(n, a, v): diagonalises the symmetric n x n matrix a
 *   (row-major, overwritten) by cyclic Jacobi rotations until the off-diagonal mass is
 *   negligible; a's diagonal then holds the eigenvalues (unsorted). v (n x n) receives
 *   the eigenvectors as columns, or is NULL. EPS2 is the squared relative precision.
 * tp_symeig3_extremes_sfx(h, &lo, &hi): smallest and largest eigenvalue of a
 *   symmetric 3 x 3 matrix by the trigonometric solution of its characteristic
 *   cubic (accurate to a few ulps of the matrix norm, enough for a shift). */
#define TP_DEFINE_SYMEIG(T, sfx, SQRT, FABS, ACOS, COS, EPS2)                                  \
  TP_INLINE void tp_symeig_rotate_##sfx(int n, T *a, T *v, int p, int q) {              \
    T apq = a[p * n + q];                                                               \
    if (apq == (T)0)                                                                    \
      return;                                                                           \
    /* Rotation angle that zeroes a[p][q] (Golub & Van Loan, Alg. 8.4.1). */            \
    T theta = (a[q * n + q] - a[p * n + p]) / ((T)2 * apq);                            \
    T t = (theta >= (T)0 ? (T)1 : (T)-1) / (FABS(theta) + SQRT(theta * theta + (T)1)); \
    T c = (T)1 / SQRT(t * t + (T)1), s = t * c;                                         \
    for (int k = 0; k < n; ++k) { /* columns p, q */                                    \
      T akp = a[k * n + p], akq = a[k * n + q];                                         \
      a[k * n + p] = c * akp - s * akq;                                                 \
      a[k * n + q] = s * akp + c * akq;                                                 \
    }                                                                                   \
    for (int k = 0; k < n; ++k) { /* rows p, q */                                       \
      T apk = a[p * n + k], aqk = a[q * n + k];                                         \
      a[p * n + k] = c * apk - s * aqk;                                                 \
      a[q * n + k] = s * apk + c * aqk;                                                 \
    }                                                                                   \
    if (v)                                                                              \
      for (int k = 0; k < n; ++k) {                                                     \
        T vkp = v[k * n + p], vkq = v[k * n + q];                                       \
        v[k * n + p] = c * vkp - s * vkq;                                               \
        v[k * n + q] = s * vkp + c * vkq;                                               \
      }                                                                                 \
  }                                                                                     \
  TP_INLINE void tp_symeig_jacobi_##sfx(int n, T *a, T *v) {                            \
    if (v)                                                                              \
      for (int i = 0; i < n * n; ++i)                                                   \
        v[i] = (i / n == i % n) ? (T)1 : (T)0;                                          \
    T total = 0;                                                                        \
    for (int i = 0; i < n * n; ++i)                                                     \
      total += a[i] * a[i];                                                             \
    for (int sweep = 0; sweep < 64; ++sweep) {                                          \
      T off = 0;                                                                        \
      for (int p = 0; p < n; ++p)                                                       \
        for (int q = p + 1; q < n; ++q)                                                 \
          off += a[p * n + q] * a[p * n + q];                                           \
      /* Converged when the off-diagonal mass is below rounding of the whole. */       \
      if (!(off > total * (T)(EPS2) && off > (T)0))                                    \
        break;                                                                          \
      for (int p = 0; p < n; ++p)                                                       \
        for (int q = p + 1; q < n; ++q)                                                 \
          tp_symeig_rotate_##sfx(n, a, v, p, q);                                        \
    }                                                                                   \
  }                                                                                     \
  TP_INLINE void tp_symeig3_extremes_##sfx(const T *h, T *lo, T *hi) {                  \
    T q = (h[0] + h[4] + h[8]) / (T)3;                                                  \
    T p1 = h[1] * h[1] + h[2] * h[2] + h[5] * h[5];                                     \
    T d0 = h[0] - q, d1 = h[4] - q, d2 = h[8] - q;                                      \
    T p2 = d0 * d0 + d1 * d1 + d2 * d2 + (T)2 * p1;                                     \
    if (!(p2 > (T)0)) { /* a multiple of the identity */                                \
      *lo = q, *hi = q;                                                                 \
      return;                                                                           \
    }                                                                                   \
    T p = SQRT(p2 / (T)6), ip = (T)1 / p;                                               \
    /* B = (H - qI) / p; r = det(B) / 2 lies in [-1, 1] up to rounding. */             \
    T b0 = d0 * ip, b4 = d1 * ip, b8 = d2 * ip;                                         \
    T b1 = h[1] * ip, b2 = h[2] * ip, b5 = h[5] * ip;                                   \
    T r = (b0 * (b4 * b8 - b5 * b5) - b1 * (b1 * b8 - b5 * b2) +                        \
           b2 * (b1 * b5 - b4 * b2)) / (T)2;                                            \
    r = r < (T)-1 ? (T)-1 : (r > (T)1 ? (T)1 : r);                                      \
    T phi = ACOS(r) / (T)3;                                                             \
    *hi = q + (T)2 * p * COS(phi);                                                      \
    *lo = q + (T)2 * p * COS(phi + (T)2.0943951023931954923);                          \
  }

TP_DEFINE_SYMEIG(double, f64, sqrt, fabs, acos, cos, 1e-32)
TP_DEFINE_SYMEIG(float, f32, sqrtf, fabsf, acosf, cosf, 1e-14)

#endif
