/* Flop and byte counts the benchmarks report, in one place so the drivers and the suite
 * agree; and the JSON string writer they share. */
#include "perf/micro/micro.h"

/* Monomials of degree d in n variables: the unique values of an order-d tensor. */
static double monomials(int degree, int n) {
  int64_t count = 0;
  if (degree == 0)
    return 1.0;
  return tp_sym_unique_count(degree, n, &count) == TP_SUCCESS ? (double)count : 0.0;
}

static double monomials_2_to(int degree, int n) {
  double c = 0;
  for (int d = 2; d <= degree; ++d)
    c += monomials(d, n);
  return c;
}

static double vector_flops(int n, int step_test) { return 7.0 * n + (step_test ? 3.0 * n : 0.0); }

double micro_sshopm_flops_fixed(int m, int n, int step_test) {
  return monomials_2_to(m - 1, n) + 2.0 * n * monomials(m - 1, n) + vector_flops(n, step_test);
}

double micro_sshopm_flops_adaptive(int m, int n, int step_test) {
  return monomials_2_to(m - 2, n) + 2.0 * (n * (n + 1) / 2) * monomials(m - 2, n) + 2.0 * n * n +
         40 + vector_flops(n, step_test);
}

double micro_sparse_mode_bytes(const tp_flycoo_stats *s, int64_t rank, size_t value_bytes,
                               int64_t rows) {
  const double eb = (double)value_bytes, nnz = (double)s->nnz;
  const double records = (double)s->record_bytes * (s->remaps ? 2 : 1);
  return nnz * (records + (s->order - 1) * (double)rank * eb) + (double)rows * (double)rank * eb;
}

void micro_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}
