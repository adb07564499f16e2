/* Shared pieces of the PRRLU implementations (sparse in a space, dense reference). */
#ifndef TP_PRRLU_INTERNAL_H
#define TP_PRRLU_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "tenport/sttid.h"
#include "tp_clock.h"
#include "tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Checks the options; *limit receives min(rmax, rows, cols). */
tp_status tp_prrlu_check_options(const tp_prrlu_options *opt, int64_t rows, int64_t cols,
                                 int64_t *limit);

/* Zeroes *r and allocates room for capacity pivots (host). */
tp_status tp_prrlu_result_init(tp_prrlu_result *r, int64_t capacity);

/* The threshold once the first pivot (magnitude first) is known. */
static inline double tp_prrlu_threshold(const tp_prrlu_options *opt, double first) {
  return opt->eps_relative ? opt->eps * first : opt->eps;
}


TP_EXTERN_C_END
#endif
