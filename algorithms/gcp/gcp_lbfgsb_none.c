/* GCP's full-gradient solver in a build without L-BFGS-B (liblbfgsb-dev): not
 * supported, with a message that says what to install. */
#include "portable/tp_error.h"
#include "algorithms/gcp/tp_gcp_internal.h"

tp_status tpi_gcp_lbfgsb(tp_space *space, const tpi_gcp_source *src, const tp_gcp_options *o,
                         double *x, tp_kruskal *M, tp_kruskal *G, tp_gcp_result *res) {
  (void)space, (void)src, (void)o, (void)x, (void)M, (void)G, (void)res;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                  "this tenport was built without L-BFGS-B (Debian: liblbfgsb-dev): GCP's "
                  "full-gradient solver is not available");
}
