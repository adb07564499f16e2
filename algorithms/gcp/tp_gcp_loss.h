/* The GCP losses f(x, m) and their derivatives df/dm, in double precision, for kernels
 * and the host alike (include/tenport/gcp.h has the table). One switch on the loss per
 * entry: the branch is uniform over a launch. */
#ifndef TP_GCP_LOSS_H
#define TP_GCP_LOSS_H

#include <math.h>

#include "tenport/gcp.h"
#include "portable/tp_portable.h"

/* pyttb's and GenTen's guard against log(0) and division by zero. */
#define TP_GCP_EPS 1e-10
#define TP_GCP_PI 3.14159265358979323846

/* f(x, m) into *f and df/dm into *g. */
TP_INLINE void tp_gcp_loss_fg(int loss, double param, double x, double m, double *f, double *g) {
  switch (loss) {
  case TP_GCP_POISSON: {
    const double me = m + TP_GCP_EPS;
    *f = m - x * log(me), *g = 1.0 - x / me;
    return;
  }
  case TP_GCP_POISSON_LOG: {
    const double e = exp(m);
    *f = e - x * m, *g = e - x;
    return;
  }
  case TP_GCP_BERNOULLI_ODDS: {
    const double me = m + TP_GCP_EPS;
    *f = log(m + 1.0) - x * log(me), *g = 1.0 / (m + 1.0) - x / me;
    return;
  }
  case TP_GCP_BERNOULLI_LOGIT: {
    /* log(1 + e^m) without overflow for large m; its derivative the logistic function */
    const double e = exp(-fabs(m));
    *f = (m > 0 ? m : 0.0) + log1p(e) - x * m;
    *g = (m >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e)) - x;
    return;
  }
  case TP_GCP_GAMMA: {
    const double me = m + TP_GCP_EPS;
    *f = x / me + log(me), *g = -x / (me * me) + 1.0 / me;
    return;
  }
  case TP_GCP_RAYLEIGH: {
    const double me = m + TP_GCP_EPS, q = x / me;
    *f = 2.0 * log(me) + (TP_GCP_PI / 4.0) * q * q;
    *g = 2.0 / me - (TP_GCP_PI / 2.0) * q * q / me;
    return;
  }
  case TP_GCP_NEGATIVE_BINOMIAL: {
    const double me = m + TP_GCP_EPS;
    *f = (param + x) * log(m + 1.0) - x * log(me);
    *g = (param + x) / (m + 1.0) - x / me;
    return;
  }
  case TP_GCP_HUBER: {
    const double d = x - m, a = fabs(d);
    if (a < param)
      *f = d * d, *g = -2.0 * d;
    else
      *f = 2.0 * param * a - param * param, *g = d > 0 ? -2.0 * param : 2.0 * param;
    return;
  }
  case TP_GCP_BETA: {
    const double me = m + TP_GCP_EPS, p1 = pow(me, param - 1.0);
    *f = p1 * me / param - x * p1 / (param - 1.0);
    *g = p1 - x * p1 / me;
    return;
  }
  case TP_GCP_ZT_POISSON: {
    const double me = m + TP_GCP_EPS;
    *f = m - x * log(me) + log(1.0 - exp(-m) + TP_GCP_EPS);
    *g = 1.0 - x / me + 1.0 / (expm1(m) + TP_GCP_EPS);
    return;
  }
  default: { /* gaussian */
    const double d = m - x;
    *f = d * d, *g = 2.0 * d;
    return;
  }
  }
}

/* What the loss asks of an observed entry x (tp_gcp_data_rule). */
enum {
  TP_GCP_DATA_FINITE = 0,
  TP_GCP_DATA_COUNT,    /* a nonnegative integer */
  TP_GCP_DATA_BINARY,   /* 0 or 1 */
  TP_GCP_DATA_POSITIVE, /* > 0 */
  TP_GCP_DATA_NONNEG    /* >= 0 */
};

TP_INLINE int tp_gcp_data_rule(int loss) {
  switch (loss) {
  case TP_GCP_POISSON:
  case TP_GCP_POISSON_LOG:
  case TP_GCP_NEGATIVE_BINOMIAL:
  case TP_GCP_ZT_POISSON: return TP_GCP_DATA_COUNT;
  case TP_GCP_BERNOULLI_ODDS:
  case TP_GCP_BERNOULLI_LOGIT: return TP_GCP_DATA_BINARY;
  case TP_GCP_GAMMA:
  case TP_GCP_RAYLEIGH: return TP_GCP_DATA_POSITIVE;
  case TP_GCP_BETA: return TP_GCP_DATA_NONNEG;
  default: return TP_GCP_DATA_FINITE;
  }
}

/* 1 when x breaks the rule (non-finite values break every rule). */
TP_INLINE int tp_gcp_data_bad(int rule, double x) {
  if (!(x - x == 0.0))
    return 1;
  switch (rule) {
  case TP_GCP_DATA_COUNT: return x < 0 || x != floor(x);
  case TP_GCP_DATA_BINARY: return x != 0.0 && x != 1.0;
  case TP_GCP_DATA_POSITIVE: return !(x > 0);
  case TP_GCP_DATA_NONNEG: return x < 0;
  default: return 0;
  }
}

#endif
