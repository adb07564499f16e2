/* tenport gen's outputs, shared by its kinds: the set made before the work, the
 * tensor written in the format its name says (with the header its text needs), the truth
 * and the commit, and the dims as the summaries print them. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gen_cli.h"

int tenport_gen_fail(void) { return tenport_fail("gen", "failed"); }

/* The output set of a generator, ready before the work: the tensor, then the truth's
 * files (a model of `order` modes) when asked for. */
int tenport_gen_begin_outputs(const char *output, const char *truth, int order,
                              tp_output_set **set) {
  if (tenport_outputs_begin("gen", set, NULL, NULL, 0))
    return 1;
  size_t n = strlen(output); /* a name ending in .gz is written gzip-compressed */
  int code = n > 3 && !strcmp(output + n - 3, ".gz")
                 ? (tp_output_set_gzip(*set, output) == TP_SUCCESS ? 0 : tenport_gen_fail())
                 : tenport_outputs_add("gen", *set, output);
  if (code == 0 && truth && tp_kruskal_reserve_npy(*set, truth, order) != TP_SUCCESS)
    code = tenport_gen_fail();
  if (code)
    tp_output_set_destroy(set);
  return code;
}

/* Writes the truth (if asked for) into the set and commits it. */
tp_status tenport_gen_finish_outputs(tp_output_set *set, const char *truth, const tp_kruskal *k) {
  tp_status st = truth ? tp_kruskal_write_npy_to(set, truth, k) : TP_SUCCESS;
  if (st == TP_SUCCESS && (st = tp_output_set_commit(set)) == TP_SUCCESS)
    tenport_summary_outputs(set);
  return st;
}

/* A .tpb, or a .tns with the sptensor header when its text alone would read back as
 * another shape (unless no_header). */
tp_status tenport_gen_write_coo(tp_output_set *set, const char *path, const tp_coo *t,
                                int no_header) {
  tp_tns_write_options text = tenport_tns_output_options(t, 1, 0, no_header);
  return tenport_coo_format(path) == 'b' ? tp_coo_write_binary_to(set, path, t)
                                         : tp_coo_write_text_to(set, path, t, &text);
}

void tenport_gen_print_dims(const tp_coo *t) {
  for (int m = 0; m < t->order; ++m)
    printf("%s%lld", m ? "x" : "", (long long)t->dims[m]);
}
