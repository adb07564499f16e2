/* Core densities as the paper's Figure 3 reports them: stored entries over core sizes.
 * Sizes are taken in double precision, since ranks[k] * dims[k] * ranks[k+1] of a large
 * sparse tensor's core need not fit 64 bits. */
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sttid/tp_tci_internal.h"

static double core_size(const tp_tci *t, int k) {
  return (double)t->ranks[k] * (double)t->dims[k] * (double)t->ranks[k + 1];
}

tp_status tp_tci_density(const tp_tci *t, double *per_core, double *average) {
  TP_CHECK_ARG(average, "tp_tci_density: average must not be NULL");
  TP_TRY(tpi_tci_check(t));
  double stored = 0, size = 0;
  for (int k = 0; k < t->order; ++k) {
    if (per_core)
      per_core[k] = (double)t->cores[k].nnz / core_size(t, k);
    stored += (double)t->cores[k].nnz;
    size += core_size(t, k);
  }
  *average = stored / size;
  return TP_SUCCESS;
}
