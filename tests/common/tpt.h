/* Shared helpers of the Criterion suites: a fresh space per test, seeded random inputs,
 * poisoned outputs and host <-> space transfers that fail the test on error. */
#ifndef TPT_H
#define TPT_H

#include <stddef.h>
#include <stdint.h>

#include <criterion/criterion.h>

#include "tenport/tenport.h"

/* The space of the running test, created by tpt_setup (Criterion forks a process per
 * test, so a GPU is initialised inside each test, never in a global constructor). */
extern tp_space *tpt_space;
void tpt_setup(void);
void tpt_teardown(void);

/* Asserts that a tenport call succeeded, printing the last-error message if not. */
#define TPT_OK(expr)                                                                        \
  do {                                                                                      \
    tp_status tpt_st_ = (expr);                                                             \
    cr_assert_eq(tpt_st_, TP_SUCCESS, "%s returned %s: %s", #expr, tp_status_name(tpt_st_), \
                 tp_last_error());                                                          \
  } while (0)

/* Asserts that a tenport call failed with the given status. */
#define TPT_FAILS_WITH(expr, status)                                                \
  do {                                                                              \
    tp_status tpt_st_ = (expr);                                                     \
    cr_assert_eq(tpt_st_, (status), "%s returned %s, expected %s (%s)", #expr,      \
                 tp_status_name(tpt_st_), tp_status_name(status), tp_last_error()); \
  } while (0)

/* ---- random inputs -------------------------------------------------------- */
/* Each test draws from a seed of its own, taken from the clock unless TPT_SEED is set;
 * the seed is logged so a failure can be replayed. */
typedef struct tpt_rng {
  uint64_t state;
} tpt_rng;

tpt_rng tpt_rng_fresh(void);
uint64_t tpt_next_u64(tpt_rng *rng);
double tpt_uniform(tpt_rng *rng, double lo, double hi);
int64_t tpt_int(tpt_rng *rng, int64_t lo, int64_t hi); /* inclusive bounds */
/* A Poisson draw of mean mu (Knuth's product of uniforms; mu up to a few hundred). */
double tpt_poisson(tpt_rng *rng, double mu);

/* Sizes every primitive is tried on: empty, one, primes, odd sizes far from powers of
 * two, and more elements than a GPU has threads. */
extern const int64_t tpt_sizes[];
extern const int tpt_sizes_count;

/* The hip backend on the HIP CPU runtime runs every work-item as a fiber: a team kernel
 * takes about a thousand times its GPU time, so suites shrink their largest inputs there
 * (never below sizes past a block and a wavefront: 65, 129, 1000+). tpt_size(full,
 * on_fibers) is on_fibers there and full everywhere else. */
int tpt_on_fibers(void);
int64_t tpt_size(int64_t full, int64_t on_fibers);
/* Half of a grid of cases there: 1 (skip the case) when on fibers and the case's parity
 * is odd, 0 everywhere else. A grid passes the sum of some of its indices, chosen so that
 * the cases kept still take every value of every axis. */
int tpt_fibers_skip(int64_t parity);

/* ---- space memory --------------------------------------------------------- */
/* Allocates bytes in the space and fills them with 0xFF (NaN for floats, -1 for
 * integers), so unwritten outputs are caught. */
void *tpt_alloc_poisoned(size_t bytes);
void *tpt_to_space(const void *host, size_t bytes);
void tpt_to_host(void *host, const void *space_ptr, size_t bytes);
void tpt_free(void *space_ptr);
/* Host buffer (malloc) that fails the test if exhausted. */
void *tpt_host_alloc(size_t bytes);

/* Reference solve of U V = G for V symmetric R x R (row-major) and G, U I x R: each row u
 * of U solves V u = g by Gaussian elimination with partial pivoting, in double. */
void tpt_solve_rows(const double *V, int64_t R, const double *G, int64_t I, double *U);

/* Relative difference |a - b| / max(|b|, tiny). */
double tpt_rel_diff(double a, double b);

/* The factor match score of two host f64 Kruskal tensors of the same shape and rank (at
 * most 3), weights left out: the best matching of their components of the mean over
 * components of the product over modes of the columns' congruence |a.b| / (|a| |b|). */
double tpt_factor_match_score(const tp_kruskal *a, const tp_kruskal *b);

#endif
