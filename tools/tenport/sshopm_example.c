/* tenport sshopm --example: the Kofidis-Regalia tensor, whose eigenpairs are known, solved
 * with the adaptive convex and concave shifts and each checked against them. */
#include <math.h>
#include <stdio.h>

#include "tools/tenport/sshopm_cli.h"

/* Kofidis & Regalia (2002), Example 1, and its known eigenvalues. */
static const double kr_tensor[15] = {0.2883, -0.0031, 0.1973, -0.2485, -0.2939,
                                     0.3847, 0.2972,  0.1862, 0.0919,  -0.3619,
                                     0.1241, -0.3420, 0.2127, 0.2727,  -0.3054};

static const double kr_known[2][3] = {{0.8893, 0.8169, 0.3633}, {-0.0451, -0.5629, -1.0954}};

/* How many of the known values a pair of the wanted kind matches. */
static int known_found(const pair_table *tab, const double *known, int kind) {
  int found = 0;
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < tab->count[0]; ++k) {
      const double *row = tab->rows[0] + (size_t)k * (size_t)tab->width;
      if ((int)row[1] == kind && fabs(row[0] - known[j]) < 5e-4) {
        ++found;
        break;
      }
    }
  return found;
}

static void print_totals(const sshopm_cli *c, const runs *r) {
  sshopm_totals t;
  tenport_sshopm_count(r, &t);
  tenport_sshopm_print_totals(c, r->order, r->dim, &t);
}

int tenport_sshopm_example(tp_space *s, sshopm_cli *c) {
  int all = 1;
  printf("Kofidis-Regalia tensor (m = 4, n = 3), %d starts, %s\n", c->starts,
         c->single ? "f32" : "f64");
  c->solver.shift = TP_SHIFT_ADAPTIVE;
  for (int concave = 0; concave <= 1; ++concave) {
    runs r;
    pair_table tab;
    char message[512] = "";
    c->solver.concave = concave;
    if (tenport_sshopm_solve(s, c, 4, 3, 1, kr_tensor, &r) != TP_SUCCESS)
      return tenport_sshopm_fail(NULL);
    if (tenport_sshopm_pairs(&r, kr_tensor, 15, &tab, message, sizeof message) != TP_SUCCESS) {
      tenport_sshopm_runs_free(&r);
      tenport_sshopm_table_free(&tab);
      return tenport_sshopm_fail(message);
    }
    int found = known_found(&tab, kr_known[concave], concave ? TP_EIG_LOCAL_MIN : TP_EIG_LOCAL_MAX);
    printf("\nadaptive %s shift: %d distinct eigenpairs\n", concave ? "concave" : "convex",
           tab.count[0]);
    tenport_sshopm_print_pairs(&tab, 0, 3, kr_known[concave], 3);
    print_totals(c, &r);
    printf("known local %s (Kofidis & Regalia): %.4f %.4f %.4f -- %d of 3 found\n",
           concave ? "minima" : "maxima", kr_known[concave][0], kr_known[concave][1],
           kr_known[concave][2], found);
    all = all && found == 3;
    tenport_sshopm_table_free(&tab);
    tenport_sshopm_runs_free(&r);
  }
  printf("\ncheck: %s\n", all ? "passed" : "FAILED");
  return all ? 0 : 1;
}
