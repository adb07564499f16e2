/* The elementwise product of CP-ALS Grams in the space (the in-space R x R solve's V and
 * the fit's product of all Grams), in mode order, as the host's product multiplies. */
/* generates: gram_product */
#include "algorithms/cp_als/tp_cp_internal.h"
#include "portable/tp_portable.h"

typedef struct gram_product_args {
  const double *grams; /* d x RR */
  int64_t R, RR;
  int d, skip;
  double shift;
  double *V;
} gram_product_args;

TP_RANGE_KERNEL(gram_product, gram_product_args, i, a) {
  double v = 1.0;
  for (int k = 0; k < a.d; ++k)
    if (k != a.skip)
      v *= a.grams[(int64_t)k * a.RR + i];
  a.V[i] = i % (a.R + 1) == 0 ? v + a.shift : v; /* the diagonal */
}

tp_status tpi_cp_hadamard_in_space(tp_space *space, const double *grams, int d, int64_t R, int skip,
                                   double shift, double *V) {
  TP_CHECK_ARG(space && grams && V, "space, grams and V must not be NULL");
  TP_CHECK_ARG(d >= 1 && R >= 1 && skip >= -1 && skip < d,
               "%d Grams of order %lld, skipping %d: invalid", d, (long long)R, skip);
  gram_product_args a;
  a.grams = grams, a.R = R, a.RR = R * R, a.d = d, a.skip = skip, a.shift = shift, a.V = V;
  return TP_LAUNCHER(gram_product)(space, R * R, a);
}
