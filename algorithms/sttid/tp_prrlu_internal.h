/* Shared pieces of the PRRLU implementations (sparse in a space, dense reference). */
#ifndef TP_PRRLU_INTERNAL_H
#define TP_PRRLU_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "tenport/sttid.h"
#include "portable/tp_clock.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Checks the options; *limit receives min(rmax, rows, cols). */
tp_status tpi_prrlu_check_options(const tp_prrlu_options *opt, int64_t rows, int64_t cols,
                                  int64_t *limit);

/* Zeroes *r and allocates room for capacity pivots (host). */
tp_status tpi_prrlu_result_init(tp_prrlu_result *r, int64_t capacity);

/* The threshold once the first pivot (magnitude first) is known. */
static inline double tpi_prrlu_threshold(const tp_prrlu_options *opt, double first) {
  return opt->eps_relative ? opt->eps * first : opt->eps;
}

/* Told the number of pivots chosen so far each time the sparse PRRLU has read its state
 * back from the space (once per batch of pivot steps): watching costs no extra
 * synchronisation. */
typedef struct tpi_prrlu_observer {
  void (*pivots)(void *ctx, int64_t rank);
  void *ctx;
} tpi_prrlu_observer;

/* Tests: the sparse PRRLU runs stores of at most `entries` entries with its one-team
 * kernel (0: never; INT64_MAX: always); a negative value restores the default. Not
 * thread-safe: for tests only. */
void tpi_prrlu_set_one_team_entries(int64_t entries);

/* tp_prrlu with an observer (may be NULL). */
tp_status tpi_prrlu_observed(tp_space *space, const tp_spmat *host, const tp_prrlu_options *opt,
                             const tpi_prrlu_observer *observer, tp_prrlu_result *result);

TP_EXTERN_C_END
#endif
