#include "tests/common/tpt.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <math.h>

tp_space *tpt_space = NULL;

const int64_t tpt_sizes[] = {0, 1, 2, 3, 31, 97, 1000, 4099, 65537, 1000003};
const int tpt_sizes_count = (int)(sizeof tpt_sizes / sizeof tpt_sizes[0]);

int tpt_on_fibers(void) {
#ifdef TPT_HIP_CPU
  return 1;
#else
  return 0;
#endif
}

int64_t tpt_size(int64_t full, int64_t on_fibers) { return tpt_on_fibers() ? on_fibers : full; }

int tpt_fibers_skip(int64_t parity) { return tpt_on_fibers() && parity % 2 != 0; }

void tpt_setup(void) {
  tp_space_options opts = tp_space_options_default();
  tp_status st = tp_space_create(&tpt_space, &opts);
  cr_assert_eq(st, TP_SUCCESS, "tp_space_create: %s", tp_last_error());
}

void tpt_teardown(void) {
  tp_status st = tp_space_destroy(&tpt_space);
  cr_assert_eq(st, TP_SUCCESS, "tp_space_destroy (leaked allocations?): %s", tp_last_error());
}

static uint64_t tpt_splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

tpt_rng tpt_rng_fresh(void) {
  tpt_rng r;
  const char *fixed = getenv("TPT_SEED");
  if (fixed) {
    r.state = strtoull(fixed, NULL, 0);
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r.state =
        ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
  }
  cr_log_info("random seed: TPT_SEED=0x%llx", (unsigned long long)r.state);
  return r;
}

uint64_t tpt_next_u64(tpt_rng *rng) { return tpt_splitmix(&rng->state); }

double tpt_uniform(tpt_rng *rng, double lo, double hi) {
  double u = (double)(tpt_next_u64(rng) >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * u;
}

int64_t tpt_int(tpt_rng *rng, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)(hi - lo) + 1;
  return lo + (int64_t)(span ? tpt_next_u64(rng) % span : tpt_next_u64(rng));
}

void *tpt_alloc_poisoned(size_t bytes) {
  void *p = NULL;
  tp_status st = tp_alloc(tpt_space, bytes, &p);
  cr_assert_eq(st, TP_SUCCESS, "tp_alloc(%zu): %s", bytes, tp_last_error());
  st = tp_memset(tpt_space, p, 0xFF, bytes);
  cr_assert_eq(st, TP_SUCCESS, "tp_memset: %s", tp_last_error());
  return p;
}

void *tpt_to_space(const void *host, size_t bytes) {
  void *p = NULL;
  tp_status st = tp_alloc(tpt_space, bytes, &p);
  cr_assert_eq(st, TP_SUCCESS, "tp_alloc(%zu): %s", bytes, tp_last_error());
  st = tp_copy_to_device(tpt_space, p, host, bytes);
  cr_assert_eq(st, TP_SUCCESS, "tp_copy_to_device: %s", tp_last_error());
  return p;
}

void tpt_to_host(void *host, const void *space_ptr, size_t bytes) {
  tp_status st = tp_copy_to_host(tpt_space, host, space_ptr, bytes);
  cr_assert_eq(st, TP_SUCCESS, "tp_copy_to_host: %s", tp_last_error());
}

void tpt_free(void *space_ptr) {
  tp_status st = tp_free(tpt_space, space_ptr);
  cr_assert_eq(st, TP_SUCCESS, "tp_free: %s", tp_last_error());
}

void *tpt_host_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  cr_assert_not_null(p, "host allocation of %zu bytes failed", bytes);
  return p;
}

double tpt_rel_diff(double a, double b) {
  double scale = fabs(b) > 1e-300 ? fabs(b) : 1e-300;
  return fabs(a - b) / scale;
}

void tpt_solve_rows(const double *V, int64_t R, const double *G, int64_t I, double *U) {
  double *A = tpt_host_alloc(sizeof(double) * (size_t)(R * (R + 1)));
  for (int64_t i = 0; i < I; ++i) {
    for (int64_t r = 0; r < R; ++r) {
      memcpy(A + r * (R + 1), V + r * R, sizeof(double) * (size_t)R);
      A[r * (R + 1) + R] = G[i * R + r];
    }
    for (int64_t k = 0; k < R; ++k) {
      int64_t p = k;
      for (int64_t r = k + 1; r < R; ++r)
        if (fabs(A[r * (R + 1) + k]) > fabs(A[p * (R + 1) + k]))
          p = r;
      for (int64_t c = 0; c <= R; ++c) {
        double t = A[k * (R + 1) + c];
        A[k * (R + 1) + c] = A[p * (R + 1) + c], A[p * (R + 1) + c] = t;
      }
      for (int64_t r = k + 1; r < R; ++r) {
        double f = A[r * (R + 1) + k] / A[k * (R + 1) + k];
        for (int64_t c = k; c <= R; ++c)
          A[r * (R + 1) + c] -= f * A[k * (R + 1) + c];
      }
    }
    for (int64_t k = R - 1; k >= 0; --k) {
      double s = A[k * (R + 1) + R];
      for (int64_t c = k + 1; c < R; ++c)
        s -= A[k * (R + 1) + c] * U[i * R + c];
      U[i * R + k] = s / A[k * (R + 1) + k];
    }
  }
  free(A);
}

/* Column ra of a's factor k against column rb of b's: |a.b| / (|a| |b|). */
static double tpt_congruence(const tp_kruskal *a, int64_t ra, const tp_kruskal *b, int64_t rb,
                             int k) {
  double ab = 0, aa = 0, bb = 0;
  const double *A = (const double *)a->factors[k], *B = (const double *)b->factors[k];
  for (int64_t i = 0; i < a->dims[k]; ++i) {
    ab += A[i * a->rank + ra] * B[i * b->rank + rb];
    aa += A[i * a->rank + ra] * A[i * a->rank + ra];
    bb += B[i * b->rank + rb] * B[i * b->rank + rb];
  }
  return fabs(ab) / sqrt(aa * bb);
}

double tpt_factor_match_score(const tp_kruskal *a, const tp_kruskal *b) {
  static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  cr_assert(a->rank <= 3 && a->rank == b->rank, "the match score takes equal ranks up to 3");
  double best = 0;
  for (int q = 0; q < 6; ++q) {
    int ok = 1;
    for (int64_t r = 0; r < a->rank; ++r)
      ok &= perms[q][r] < a->rank;
    if (!ok)
      continue;
    double s = 0;
    for (int64_t r = 0; r < a->rank; ++r) {
      double c = 1;
      for (int k = 0; k < a->order; ++k)
        c *= tpt_congruence(a, r, b, perms[q][r], k);
      s += c;
    }
    best = fmax(best, s / (double)a->rank);
  }
  return best;
}

double tpt_poisson(tpt_rng *rng, double mu) {
  const double limit = exp(-mu);
  double p = tpt_uniform(rng, 0, 1);
  int k = 0;
  while (p > limit && k < 1000)
    p *= tpt_uniform(rng, 0, 1), ++k;
  return (double)k;
}
