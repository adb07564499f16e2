/* The example algorithm kernel: squared row norms with a team reduction and an atomic. */
#include <math.h>

#include "tpt.h"

TestSuite(linalg, .init = tpt_setup, .fini = tpt_teardown);

Test(linalg, row_norms_match_reference_on_awkward_shapes) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t shapes[][3] = {{0, 4, 4},   {1, 1, 1},    {17, 3, 5},   {16, 32, 32},
                               {100, 1, 1}, {97, 97, 101}, {1000, 7, 7}, {33, 1000, 1003}};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; ++c) {
    int64_t m = shapes[c][0], n = shapes[c][1], ld = shapes[c][2];
    double *A = tpt_host_alloc(sizeof(double) * (size_t)(m * ld));
    double *ref = tpt_host_alloc(sizeof(double) * (size_t)m), total = 0;
    for (int64_t i = 0; i < m; ++i) {
      ref[i] = 0;
      for (int64_t j = 0; j < ld; ++j) {
        A[i * ld + j] = j < n ? tpt_uniform(&rng, -2, 2) : NAN; /* padding is never read */
        if (j < n)
          ref[i] += A[i * ld + j] * A[i * ld + j];
      }
      total += ref[i];
    }
    double *dA = tpt_to_space(A, sizeof(double) * (size_t)(m * ld));
    double *dn = tpt_alloc_poisoned(sizeof(double) * (size_t)(m + 1));
    double *dt = tpt_alloc_poisoned(sizeof(double));
    TPT_OK(tp_row_norms2_f64(tpt_space, dA, m, n, ld, dn, dt));
    double *got = tpt_host_alloc(sizeof(double) * (size_t)(m + 1)), gt;
    tpt_to_host(got, dn, sizeof(double) * (size_t)(m + 1));
    tpt_to_host(&gt, dt, sizeof gt);
    for (int64_t i = 0; i < m; ++i)
      cr_assert(tpt_rel_diff(got[i], ref[i]) <= 1e-13, "%lldx%lld row %lld: %.17g vs %.17g",
                (long long)m, (long long)n, (long long)i, got[i], ref[i]);
    cr_assert(isnan(got[m]), "wrote past the last row");
    cr_assert(fabs(gt - total) <= 1e-12 * (total + 1), "total %.17g vs %.17g", gt, total);
    tpt_free(dA), tpt_free(dn), tpt_free(dt);
    free(A), free(ref), free(got);
  }
}

Test(linalg, bad_shapes_are_rejected) {
  double *d = tpt_alloc_poisoned(64);
  TPT_FAILS_WITH(tp_row_norms2_f64(tpt_space, d, 2, 4, 3, d, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_row_norms2_f64(tpt_space, d, -1, 4, 4, d, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_row_norms2_f64(tpt_space, NULL, 2, 4, 4, d, NULL), TP_ERROR_INVALID_ARGUMENT);
  tpt_free(d);
}
