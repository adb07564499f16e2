/* The relabelling of a distributed sparse tensor's split modes (tp_dist_internal.h): a
 * multiplication modulo the mode's size by a step near size / golden ratio, the step's
 * inverse for the way back. Consecutive multiples of such a step fall evenly over the
 * whole range, which is what spreads a run of heavy indices over every slab. */
#include <stdlib.h>
#include <string.h>

#include "algorithms/cp_als/tp_dist_internal.h"

static uint64_t gcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* a^-1 mod n for a prime to n (extended Euclid on signed values: n <= 2^32). */
static uint64_t inverse_mod(uint64_t a, uint64_t n) {
  int64_t r0 = (int64_t)n, r1 = (int64_t)a, t0 = 0, t1 = 1;
  while (r1 != 0) {
    int64_t q = r0 / r1, r = r0 - q * r1, t = t0 - q * t1;
    r0 = r1, r1 = r, t0 = t1, t1 = t;
  }
  return (uint64_t)(t0 < 0 ? t0 + (int64_t)n : t0);
}

void tpi_cp_relabel_make(int64_t count, int spread, tpi_cp_relabel *r) {
  r->count = (uint64_t)(count > 0 ? count : 1), r->step = 1, r->inverse = 1;
  if (!spread || count <= 2 || (uint64_t)count > ((uint64_t)1 << 32))
    return; /* past 2^32 the product of two labels would not fit 64 bits */
  uint64_t step = (uint64_t)((double)count * 0.6180339887498949);
  step = step > 2 ? step : 2; /* 1 would be the identity */
  while (gcd(step, r->count) != 1)
    ++step;
  r->step = step, r->inverse = inverse_mod(step, r->count);
}

int tpi_cp_relabel_wanted(void) {
  const char *v = getenv("TENPORT_RELABEL");
  return !(v && strcmp(v, "0") == 0);
}
