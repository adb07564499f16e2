/* The GCP losses' names, parameters, bounds and data rules (the formulas: tp_gcp_loss.h),
 * and the message that names the first entry a loss refuses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/gcp/tp_gcp_loss.h"
#include "portable/tp_error.h"

static const char *const gcp_names[TP_GCP_LOSS_COUNT] = {
    "gaussian", "poisson",           "poisson-log", "bernoulli-odds", "bernoulli-logit", "gamma",
    "rayleigh", "negative-binomial", "huber",       "beta",           "zt-poisson"};

const char *tp_gcp_loss_name(tp_gcp_loss loss) {
  return (int)loss >= 0 && loss < TP_GCP_LOSS_COUNT ? gcp_names[loss] : NULL;
}

tp_status tp_gcp_loss_from_name(const char *name, tp_gcp_loss *loss) {
  TP_CHECK_ARG(name && loss, "name and loss must not be NULL");
  for (int k = 0; k < TP_GCP_LOSS_COUNT; ++k)
    if (!strcmp(name, gcp_names[k])) {
      *loss = (tp_gcp_loss)k;
      return TP_SUCCESS;
    }
  return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "unknown loss '%s': gaussian, poisson, poisson-log, bernoulli-odds, "
                  "bernoulli-logit, gamma, rayleigh, negative-binomial, huber, beta or "
                  "zt-poisson",
                  name);
}

int tp_gcp_loss_has_param(tp_gcp_loss loss) {
  return loss == TP_GCP_NEGATIVE_BINOMIAL || loss == TP_GCP_HUBER || loss == TP_GCP_BETA;
}

double tp_gcp_loss_lower_bound(tp_gcp_loss loss) {
  switch (loss) {
  case TP_GCP_POISSON:
  case TP_GCP_BERNOULLI_ODDS:
  case TP_GCP_GAMMA:
  case TP_GCP_RAYLEIGH:
  case TP_GCP_NEGATIVE_BINOMIAL:
  case TP_GCP_BETA:
  case TP_GCP_ZT_POISSON: return 0.0;
  default: return -INFINITY;
  }
}

/* The parameter a loss needs, checked; others ignore theirs. */
tp_status tpi_gcp_check_param(tp_gcp_loss loss, double param) {
  TP_CHECK_ARG((int)loss >= 0 && loss < TP_GCP_LOSS_COUNT, "loss %d is not a GCP loss", (int)loss);
  if (loss == TP_GCP_NEGATIVE_BINOMIAL)
    TP_CHECK_ARG(isfinite(param) && param > 0,
                 "negative-binomial needs its number of trials as the loss parameter "
                 "(> 0), not %g",
                 param);
  if (loss == TP_GCP_HUBER)
    TP_CHECK_ARG(isfinite(param) && param > 0,
                 "huber needs its threshold as the loss parameter (> 0), not %g", param);
  if (loss == TP_GCP_BETA)
    TP_CHECK_ARG(isfinite(param) && param != 0 && param != 1,
                 "beta needs its parameter b (finite, not 0 or 1) as the loss parameter, "
                 "not %g",
                 param);
  return TP_SUCCESS;
}

tp_status tp_gcp_loss_eval(tp_gcp_loss loss, double param, double x, double m, double *f,
                           double *dfdm) {
  TP_TRY(tpi_gcp_check_param(loss, param));
  double fv, gv;
  tp_gcp_loss_fg((int)loss, param, x, m, &fv, &gv);
  if (f)
    *f = fv;
  if (dfdm)
    *dfdm = gv;
  return TP_SUCCESS;
}

const char *tpi_gcp_data_rule_text(tp_gcp_loss loss) {
  switch (tp_gcp_data_rule((int)loss)) {
  case TP_GCP_DATA_COUNT: return "nonnegative integers (counts)";
  case TP_GCP_DATA_BINARY: return "0 or 1";
  case TP_GCP_DATA_POSITIVE: return "positive values";
  case TP_GCP_DATA_NONNEG: return "nonnegative values";
  default: return "finite values";
  }
}
