/* tenport sttid's report: the backend, the tensor read, each bond's PRRLU, the TT ranks,
 * the cores, the relative error, the time and --check-error's verdict. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/sttid_cli.h"

void tenport_sttid_print_backend(tp_space *space) {
  tp_space_info info;
  if (tp_space_get_info(space, &info) != TP_SUCCESS) {
    printf("backend: %s (no device information: %s)\n", tp_backend_name(), tp_last_error());
    return;
  }
  printf("backend: %s, device %d: %s, %d %s\n", info.backend, info.device, info.device_name,
         info.compute_units, info.is_gpu ? "multiprocessors" : "threads");
}

void tenport_sttid_print_tensor(const sttid_cli *c, const tp_input *in, const tp_coo *t,
                                const tp_coo_read_info *info) {
  double entries = 1;
  printf("tensor: %s, ", tp_input_name(in));
  for (int m = 0; m < t->order; ++m) {
    printf("%s%lld", m ? "x" : "", (long long)t->dims[m]);
    entries *= (double)t->dims[m];
  }
  printf(", %lld nonzeros (%lld duplicates summed), density %.3g\n", (long long)t->nnz,
         (long long)info->duplicates, (double)t->nnz / entries);
  tenport_summary_dims("dims", t->order, t->dims);
  tenport_summary_integer("nnz", (long long)t->nnz);
  tenport_summary_integer("duplicates", (long long)info->duplicates);
  printf("sttid: rmax %lld, eps %g (%s)\n", (long long)c->opt.rmax, c->opt.eps,
         c->opt.eps_relative ? "relative to each bond's first pivot" : "absolute");
}

void tenport_sttid_print_bond(const sttid_cli *c, int k, const tp_sttid_bond *b) {
  printf("bond %d: %lld x %lld, %lld nnz, rank %lld (%s), pivots %.6g .. %.6g, threshold %.3g "
         "(%s), fill %lld; reshape %.3f s, prrlu %.3f s, extract %.3f s\n",
         k, (long long)b->rows, (long long)b->cols, (long long)b->nnz, (long long)b->rank,
         tp_prrlu_stop_name(b->stop), b->first_pivot, b->last_pivot, b->threshold,
         c->opt.eps_relative ? "relative" : "absolute", (long long)b->fill, b->seconds_reshape,
         b->seconds_prrlu, b->seconds_extract);
}

void tenport_sttid_print_ranks(const tp_tci *t) {
  printf("tt ranks:");
  for (int k = 0; k <= t->order; ++k)
    printf(" %lld", (long long)t->ranks[k]);
  printf("\n");
  tenport_summary_dims("tt_ranks", t->order + 1, t->ranks);
}

tp_status tenport_sttid_print_cores(const tp_tci *t, int quiet) {
  double per_core[TP_COO_MAX_ORDER], average = 0;
  tp_status st = tp_tci_density(t, per_core, &average);
  if (st != TP_SUCCESS)
    return st;
  if (!quiet)
    for (int k = 0; k < t->order; ++k)
      printf("core %d: %lld x %lld x %lld, %lld nnz, density %.4g\n", k,
             (long long)t->cores[k].dims[0], (long long)t->cores[k].dims[1],
             (long long)t->cores[k].dims[2], (long long)t->cores[k].nnz, per_core[k]);
  int64_t stored = 0;
  for (int k = 0; k < t->order; ++k)
    stored += t->cores[k].nnz;
  printf("cores: %lld stored entries, average density %.4g\n", (long long)stored, average);
  tenport_summary_integer("core_entries", (long long)stored);
  return TP_SUCCESS;
}

void tenport_sttid_print_error(const tp_tci_error_info *e) {
  tenport_summary_number("relative_error", e->relative_error);
  tenport_summary_phase("error", e->seconds);
  if (e->at_floor)
    printf("relative error: at most %.3g, the floor of ||X||^2 - 2<X, X~> + ||X~||^2 in "
           "double precision (%.3f s)\n",
           e->relative_error, e->seconds);
  else
    printf("relative error: %.6g (%.3f s)\n", e->relative_error, e->seconds);
}

void tenport_sttid_print_done(const sttid_cli *c, const tp_tci *tci, const tp_sttid_info *info,
                              double seconds) {
  printf("sttid %.3f s; total %.3f s (reading, error and writing included)\n", info->seconds_total,
         seconds);
  tenport_summary_phase("sttid", info->seconds_total);
  if (c->output)
    printf("wrote %s.tci, %s.core{0..%d}.tns\n", c->output, c->output, tci->order - 1);
}

int tenport_sttid_check_error(const sttid_cli *c, const tp_tci_error_info *err) {
  if (c->check_error < 0)
    return 0;
  int pass = err->relative_error <= c->check_error;
  printf("check: relative error %.3g <= %.3g: %s\n", err->relative_error, c->check_error,
         pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
