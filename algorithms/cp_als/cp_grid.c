/* The grid of ranks over a tensor's modes: chosen as SPLATT does (each prime factor of
 * the rank count, largest first, to the mode with the most indices per part), or read
 * from "2x2x1"; and a rank's place in it (mode 0 varies slowest). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/distributed.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "portable/tp_error.h"

static int largest_prime_factor(int n) {
  int largest = 1;
  for (int f = 2; (long)f * f <= n; ++f)
    while (n % f == 0)
      largest = f, n /= f;
  return n > 1 ? n : largest;
}

tp_status tp_grid_choose(int order, const int64_t *dims, int ranks, tp_grid *grid) {
  TP_CHECK_ARG(grid && dims, "grid and dims must not be NULL");
  TP_CHECK_ARG(order >= 1 && order <= TP_COO_MAX_ORDER, "order %d is outside [1, %d]", order,
               TP_COO_MAX_ORDER);
  TP_CHECK_ARG(ranks >= 1, "ranks = %d must be at least 1", ranks);
  memset(grid, 0, sizeof *grid);
  grid->order = order;
  for (int m = 0; m < order; ++m)
    grid->parts[m] = 1;
  for (int left = ranks; left > 1;) {
    int f = largest_prime_factor(left), best = 0;
    for (int m = 1; m < order; ++m) /* the most indices per part; ties to the lower mode */
      if ((double)dims[m] / grid->parts[m] > (double)dims[best] / grid->parts[best])
        best = m;
    grid->parts[best] *= f;
    left /= f;
  }
  return TP_SUCCESS;
}

tp_status tp_grid_parse(const char *text, tp_grid *grid) {
  TP_CHECK_ARG(text && grid, "text and grid must not be NULL");
  memset(grid, 0, sizeof *grid);
  const char *p = text;
  for (;;) {
    char *end;
    long v = strtol(p, &end, 10);
    TP_CHECK_ARG(end != p && v >= 1 && v <= (1 << 20),
                 "grid '%s': part %d is not an integer "
                 "from 1 to 1048576",
                 text, grid->order);
    TP_CHECK_ARG(grid->order < TP_COO_MAX_ORDER, "grid '%s': more than %d modes", text,
                 TP_COO_MAX_ORDER);
    grid->parts[grid->order++] = (int)v;
    if (*end == '\0')
      return TP_SUCCESS;
    TP_CHECK_ARG(*end == 'x', "grid '%s': expected 'x' between the parts, found '%c'", text, *end);
    p = end + 1;
  }
}

int64_t tpi_grid_size(const tp_grid *grid) {
  int64_t n = 1;
  for (int m = 0; m < grid->order; ++m)
    n *= grid->parts[m];
  return n;
}

void tpi_grid_coords(const tp_grid *grid, int rank, int *coords) {
  for (int m = grid->order - 1; m >= 0; --m) {
    coords[m] = rank % grid->parts[m];
    rank /= grid->parts[m];
  }
}

int tpi_grid_rank(const tp_grid *grid, const int *coords) {
  int rank = 0;
  for (int m = 0; m < grid->order; ++m)
    rank = rank * grid->parts[m] + coords[m];
  return rank;
}
