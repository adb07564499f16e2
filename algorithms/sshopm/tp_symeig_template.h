/* The eigenvalue routines of tp_symeig.h for one element type: the includer defines
 * SYMEIG_T, SYMEIG_SFX (f32 or f64), SYMEIG_SQRT, SYMEIG_FABS, SYMEIG_ACOS, SYMEIG_COS
 * and SYMEIG_EPS2 (the squared relative precision), and includes this file once per
 * type (it undefines them at its end, and has no include guard).
 * generates: tp_symeig_rotate_f32 tp_symeig_rotate_f64 tp_symeig_jacobi_f32
 * tp_symeig_jacobi_f64 tp_symeig3_extremes_f32 tp_symeig3_extremes_f64 */

TP_INLINE void TP_SYMEIG_CAT(tp_symeig_rotate_, SYMEIG_SFX)(int n, SYMEIG_T *a, SYMEIG_T *v, int p,
                                                            int q) {
  SYMEIG_T apq = a[p * n + q];
  if (apq == (SYMEIG_T)0)
    return;
  /* Rotation angle that zeroes a[p][q] (Golub & Van Loan, Alg. 8.4.1). */
  SYMEIG_T theta = (a[q * n + q] - a[p * n + p]) / ((SYMEIG_T)2 * apq);
  SYMEIG_T t = (theta >= (SYMEIG_T)0 ? (SYMEIG_T)1 : (SYMEIG_T)-1) /
               (SYMEIG_FABS(theta) + SYMEIG_SQRT(theta * theta + (SYMEIG_T)1));
  SYMEIG_T c = (SYMEIG_T)1 / SYMEIG_SQRT(t * t + (SYMEIG_T)1), s = t * c;
  for (int k = 0; k < n; ++k) { /* columns p, q */
    SYMEIG_T akp = a[k * n + p], akq = a[k * n + q];
    a[k * n + p] = c * akp - s * akq;
    a[k * n + q] = s * akp + c * akq;
  }
  for (int k = 0; k < n; ++k) { /* rows p, q */
    SYMEIG_T apk = a[p * n + k], aqk = a[q * n + k];
    a[p * n + k] = c * apk - s * aqk;
    a[q * n + k] = s * apk + c * aqk;
  }
  if (v)
    for (int k = 0; k < n; ++k) {
      SYMEIG_T vkp = v[k * n + p], vkq = v[k * n + q];
      v[k * n + p] = c * vkp - s * vkq;
      v[k * n + q] = s * vkp + c * vkq;
    }
}
TP_INLINE void TP_SYMEIG_CAT(tp_symeig_jacobi_, SYMEIG_SFX)(int n, SYMEIG_T *a, SYMEIG_T *v) {
  if (v)
    for (int i = 0; i < n * n; ++i)
      v[i] = (i / n == i % n) ? (SYMEIG_T)1 : (SYMEIG_T)0;
  SYMEIG_T total = 0;
  for (int i = 0; i < n * n; ++i)
    total += a[i] * a[i];
  for (int sweep = 0; sweep < 64; ++sweep) {
    SYMEIG_T off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q)
        off += a[p * n + q] * a[p * n + q];
    /* Converged when the off-diagonal mass is below rounding of the whole. */
    if (!(off > total * (SYMEIG_T)(SYMEIG_EPS2) && off > (SYMEIG_T)0))
      break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q)
        TP_SYMEIG_CAT(tp_symeig_rotate_, SYMEIG_SFX)(n, a, v, p, q);
  }
}
TP_INLINE void TP_SYMEIG_CAT(tp_symeig3_extremes_, SYMEIG_SFX)(const SYMEIG_T *h, SYMEIG_T *lo,
                                                               SYMEIG_T *hi) {
  SYMEIG_T q = (h[0] + h[4] + h[8]) / (SYMEIG_T)3;
  SYMEIG_T p1 = h[1] * h[1] + h[2] * h[2] + h[5] * h[5];
  SYMEIG_T d0 = h[0] - q, d1 = h[4] - q, d2 = h[8] - q;
  SYMEIG_T p2 = d0 * d0 + d1 * d1 + d2 * d2 + (SYMEIG_T)2 * p1;
  if (!(p2 > (SYMEIG_T)0)) { /* a multiple of the identity */
    *lo = q, *hi = q;
    return;
  }
  SYMEIG_T p = SYMEIG_SQRT(p2 / (SYMEIG_T)6), ip = (SYMEIG_T)1 / p;
  /* B = (H - qI) / p; r = det(B) / 2 lies in [-1, 1] up to rounding. */
  SYMEIG_T b0 = d0 * ip, b4 = d1 * ip, b8 = d2 * ip;
  SYMEIG_T b1 = h[1] * ip, b2 = h[2] * ip, b5 = h[5] * ip;
  SYMEIG_T r = (b0 * (b4 * b8 - b5 * b5) - b1 * (b1 * b8 - b5 * b2) + b2 * (b1 * b5 - b4 * b2)) /
               (SYMEIG_T)2;
  r = r < (SYMEIG_T)-1 ? (SYMEIG_T)-1 : (r > (SYMEIG_T)1 ? (SYMEIG_T)1 : r);
  SYMEIG_T phi = SYMEIG_ACOS(r) / (SYMEIG_T)3;
  *hi = q + (SYMEIG_T)2 * p * SYMEIG_COS(phi);
  *lo = q + (SYMEIG_T)2 * p * SYMEIG_COS(phi + (SYMEIG_T)2.0943951023931954923);
}

#undef SYMEIG_T
#undef SYMEIG_SFX
#undef SYMEIG_SQRT
#undef SYMEIG_FABS
#undef SYMEIG_ACOS
#undef SYMEIG_COS
#undef SYMEIG_EPS2
