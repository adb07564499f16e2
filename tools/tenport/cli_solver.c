/* The reports of an iterative solver's run (cli_solver.h). */
#include "tools/tenport/cli_solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_summary.h"

void *tenport_history_push(tenport_history *h, size_t size) {
  if (h->out_of_memory || (h->size && h->size != size))
    return NULL;
  if (h->count == h->capacity) {
    int cap = h->capacity ? 2 * h->capacity : 64;
    void *grown = realloc(h->records, size * (size_t)cap);
    if (!grown) {
      h->out_of_memory = 1;
      return NULL;
    }
    h->records = grown, h->capacity = cap;
  }
  h->size = size;
  char *r = (char *)h->records + size * (size_t)h->count++;
  memset(r, 0, size);
  return r;
}

const void *tenport_history_at(const tenport_history *h, int i) {
  return (const char *)h->records + h->size * (size_t)i;
}

void tenport_history_free(tenport_history *h) {
  free(h->records);
  memset(h, 0, sizeof *h);
}

void tenport_print_phases(tenport_phases ph, double solver_seconds, double iteration_seconds) {
  const double solver_rest = solver_seconds - iteration_seconds;
  const double init = ph.init + (solver_rest > 0 ? solver_rest : 0);
  printf("phases: read %.3f s, build %.3f s, initialisation %.3f s, iterations %.3f s, "
         "write %.3f s\n",
         ph.read, ph.build, init, iteration_seconds, ph.write);
  tenport_summary_phase("read", ph.read), tenport_summary_phase("build", ph.build);
  tenport_summary_phase("initialisation", init);
  tenport_summary_phase("iterations", iteration_seconds);
  tenport_summary_phase("write", ph.write);
}
