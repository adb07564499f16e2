/* The check of test_simd.c for one element type: the includer defines TPT_T (float or
 * double), TPT_SFX (f32 or f64), TPT_EPS (the type's machine epsilon) and TPT_SUM_TOL (the
 * relative tolerance of hsum and dot on full-precision inputs), and includes this file once
 * per type (it undefines all four at its end, and has no include guard). It uses
 * test_simd.c's CHECK, draw, is_poison and op_names.
 * generates: run_f32 run_f64 */

#define SIMD_PASTE_(a, b) a##b
#define SIMD_PASTE(a, b) SIMD_PASTE_(a, b)
/* TPT_OK on the expanded call: the message names tpt_simd_ops_f32, not the paste. */
#define SIMD_OK(expr) TPT_OK(expr)

/* Runs every operation on rows rows of width `width` and checks each output against a
 * scalar loop on the host. */
static void SIMD_PASTE(run_, TPT_SFX)(tpt_rng *rng, int width, int64_t rows, int exact) {
  const int W = width;
  const int64_t len = rows * W;
  /* every output gets one spare row, which must stay poisoned */
  const size_t vec_bytes = sizeof(TPT_T) * (size_t)(len + W);
  const size_t row_bytes = sizeof(TPT_T) * (size_t)(rows + 1);
  TPT_T *a = tpt_host_alloc(sizeof(TPT_T) * (size_t)len),
        *b = tpt_host_alloc(sizeof(TPT_T) * (size_t)len);
  TPT_T *c = tpt_host_alloc(sizeof(TPT_T) * (size_t)len),
        *s = tpt_host_alloc(sizeof(TPT_T) * (size_t)rows);
  int32_t *n = tpt_host_alloc(sizeof(int32_t) * (size_t)rows);
  for (int64_t i = 0; i < len; ++i) {
    a[i] = (TPT_T)draw(rng, exact, 1);
    b[i] = (TPT_T)draw(rng, exact, 1);
    c[i] = (TPT_T)draw(rng, exact, 1);
  }
  for (int64_t r = 0; r < rows; ++r) {
    s[r] = (TPT_T)draw(rng, exact, 2);
    n[r] = (int32_t)(r % (W + 1)); /* every n in 0..W */
  }
  TPT_T *da = rows ? tpt_to_space(a, sizeof(TPT_T) * (size_t)len) : NULL;
  TPT_T *db = rows ? tpt_to_space(b, sizeof(TPT_T) * (size_t)len) : NULL;
  TPT_T *dc = rows ? tpt_to_space(c, sizeof(TPT_T) * (size_t)len) : NULL;
  TPT_T *ds = rows ? tpt_to_space(s, sizeof(TPT_T) * (size_t)rows) : NULL;
  int32_t *dn = rows ? tpt_to_space(n, sizeof(int32_t) * (size_t)rows) : NULL;
  SIMD_PASTE(tpt_simd_out_, TPT_SFX) out;
  for (int k = 0; k < TPT_SIMD_VEC_OUTS; ++k)
    out.vec[k] = tpt_alloc_poisoned(vec_bytes);
  out.hsum = tpt_alloc_poisoned(row_bytes);
  out.dot = tpt_alloc_poisoned(row_bytes);
  SIMD_OK(SIMD_PASTE(tpt_simd_ops_, TPT_SFX)(tpt_space, W, rows, da, db, dc, ds, dn, &out));
  TPT_T *got = tpt_host_alloc(vec_bytes), *hs = tpt_host_alloc(row_bytes);
  TPT_T *hd = tpt_host_alloc(row_bytes);
  tpt_to_host(hs, out.hsum, row_bytes);
  tpt_to_host(hd, out.dot, row_bytes);
  for (int op = 0; op < TPT_SIMD_VEC_OUTS; ++op) {
    tpt_to_host(got, out.vec[op], vec_bytes);
    for (int64_t r = 0; r < rows; ++r)
      for (int k = 0; k < W; ++k) {
        int64_t e = r * W + k;
        TPT_T x = a[e], y = b[e], z = c[e], g = got[e], want = 0;
        double tol = 0; /* exact unless set */
        switch (op) {
        case TPT_SIMD_FILL: want = s[r]; break;
        case TPT_SIMD_ZERO: want = 0; break;
        case TPT_SIMD_COPY: want = x; break;
        case TPT_SIMD_LOAD_N: want = k < n[r] ? x : (TPT_T)0; break;
        case TPT_SIMD_STORE_N: want = x; break;
        case TPT_SIMD_ADD: want = x + y; break;
        case TPT_SIMD_SUB: want = x - y; break;
        case TPT_SIMD_MUL: want = x * y; break;
        case TPT_SIMD_SCALE: want = x * s[r]; break;
        case TPT_SIMD_FMA:
          want = (TPT_T)((double)x * y + z);
          tol = exact ? 0 : 2 * TPT_EPS * (fabs((double)x * y) + fabs((double)z));
          break;
        case TPT_SIMD_FMA_S:
          want = (TPT_T)((double)x * s[r] + z);
          tol = exact ? 0 : 2 * TPT_EPS * (fabs((double)x * s[r]) + fabs((double)z));
          break;
        case TPT_SIMD_MAX: want = y > x ? y : x; break;
        }
        if (op == TPT_SIMD_STORE_N && k >= n[r]) {
          CHECK(is_poison(&got[e], sizeof(TPT_T)),
                "%s W=%d rows=%lld row %lld n=%d: element %d past n was written (%.9g)",
                op_names[op], W, (long long)rows, (long long)r, n[r], k, (double)g);
          continue;
        }
        CHECK(tol > 0 ? fabs((double)g - (double)want) <= tol
                      : (g == want && signbit(g) == signbit(want)),
              "%s W=%d rows=%lld%s row %lld element %d (n=%d): got %.17g, expected %.17g",
              op_names[op], W, (long long)rows, exact ? " exact" : "", (long long)r, k, n[r],
              (double)g, (double)want);
      }
    CHECK(is_poison(got + len, sizeof(TPT_T) * (size_t)W),
          "%s W=%d rows=%lld: wrote past the last row", op_names[op], W, (long long)rows);
  }
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0, mag = 0, dot = 0, dmag = 0;
    TPT_T sum_t = 0, dot_t = 0; /* the same order and precision as tp_simd.h */
    for (int k = 0; k < W; ++k) {
      TPT_T x = a[r * W + k], y = b[r * W + k];
      sum += x, mag += fabs((double)x), sum_t += x;
      dot += (double)x * y, dmag += fabs((double)x * y), dot_t += (TPT_T)(x * y);
    }
    if (exact) {
      CHECK(hs[r] == sum_t && hd[r] == dot_t,
            "exact W=%d row %lld: hsum %.17g (%.17g) dot %.17g (%.17g)", W, (long long)r,
            (double)hs[r], (double)sum_t, (double)hd[r], (double)dot_t);
    } else {
      CHECK(fabs(hs[r] - sum) <= TPT_SUM_TOL * mag, "hsum W=%d rows=%lld row %lld: %.17g vs %.17g",
            W, (long long)rows, (long long)r, (double)hs[r], sum);
      CHECK(fabs(hd[r] - dot) <= TPT_SUM_TOL * dmag, "dot W=%d rows=%lld row %lld: %.17g vs %.17g",
            W, (long long)rows, (long long)r, (double)hd[r], dot);
    }
  }
  cr_assert(is_poison(hs + rows, sizeof(TPT_T)) && is_poison(hd + rows, sizeof(TPT_T)),
            "hsum/dot W=%d rows=%lld: wrote past the last row", W, (long long)rows);
  for (int k = 0; k < TPT_SIMD_VEC_OUTS; ++k)
    tpt_free(out.vec[k]);
  tpt_free(out.hsum), tpt_free(out.dot);
  tpt_free(da), tpt_free(db), tpt_free(dc), tpt_free(ds), tpt_free(dn);
  free(a), free(b), free(c), free(s), free(n), free(got), free(hs), free(hd);
}

#undef SIMD_PASTE_
#undef SIMD_PASTE
#undef SIMD_OK
#undef TPT_T
#undef TPT_SFX
#undef TPT_EPS
#undef TPT_SUM_TOL
