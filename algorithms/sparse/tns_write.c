/* Writing sparse text: one line per nonzero, the indices (1-based as FROSTT's .tns, or
 * 0-based) then the value with enough digits to read back exactly (9 significant digits
 * for float32, 17 for float64), after the sptensor header of the Tensor Toolbox and
 * GenTen when asked. Formatting dominates, so batches of nonzeros are formatted in
 * parallel pieces, which are then written in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { PIECES = 16, PIECE_NONZEROS = 4096, VALUE_BYTES = 32 };

/* The longest line: 20-digit indices and blanks, then a %.17g value and '\n'. */
static size_t line_bytes(int order) { return (size_t)order * 21 + VALUE_BYTES; }

/* Decimal digits of v at p; returns the end. */
static char *put_decimal(char *p, uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n > 0)
    *p++ = digits[--n];
  return p;
}

static char *format_line(const tp_coo *t, int64_t k, int base, char *p) {
  for (int m = 0; m < t->order; ++m) {
    p = put_decimal(p, (uint64_t)t->indices[m][k] + (uint64_t)base);
    *p++ = ' ';
  }
  int n = t->dtype == TP_DTYPE_F32
              ? snprintf(p, VALUE_BYTES, "%.9g\n", (double)((const float *)t->values)[k])
              : snprintf(p, VALUE_BYTES, "%.17g\n", ((const double *)t->values)[k]);
  return p + n;
}

/* Formats nonzeros [first, first + PIECES * PIECE_NONZEROS) into the pieces, then writes
 * them out in order. */
static void write_batch(tpi_output *s, const tp_coo *t, int base, int64_t first, char *text,
                        size_t piece_bytes) {
  size_t len[PIECES];
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1))
  for (int i = 0; i < PIECES; ++i) {
    int64_t k = first + (int64_t)i * PIECE_NONZEROS, end = k + PIECE_NONZEROS;
    char *begin = text + (size_t)i * piece_bytes, *p = begin;
    for (; k < end && k < t->nnz; ++k)
      p = format_line(t, k, base, p);
    len[i] = (size_t)(p - begin);
  }
  for (int i = 0; i < PIECES; ++i)
    tpi_output_write(s, text + (size_t)i * piece_bytes, len[i]);
}

/* "sptensor" (1-based, as the Tensor Toolbox writes it) or GenTen's "sptensor
 * indices-start-at-zero", then the order, the dims and the number of nonzeros. */
static void write_sptensor_header(tpi_output *f, const tp_coo *t, int base) {
  char line[64];
  tpi_output_text(f, base == 0 ? "sptensor indices-start-at-zero\n" : "sptensor\n");
  snprintf(line, sizeof line, "%d\n", t->order);
  tpi_output_text(f, line);
  for (int m = 0; m < t->order; ++m) {
    snprintf(line, sizeof line, "%s%lld", m ? " " : "", (long long)t->dims[m]);
    tpi_output_text(f, line);
  }
  snprintf(line, sizeof line, "\n%lld\n", (long long)t->nnz);
  tpi_output_text(f, line);
}

typedef struct text_job {
  const tp_coo *host;
  tp_tns_write_options opts;
} text_job;

static tp_status write_tns(tpi_output *f, const void *what) {
  const text_job *job = (const text_job *)what;
  const tp_coo *host = job->host;
  size_t piece_bytes = line_bytes(host->order) * PIECE_NONZEROS;
  char *text = (char *)malloc(piece_bytes * PIECES);
  if (!text)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the text buffers",
                    tpi_output_path(f));
  if (job->opts.sptensor)
    write_sptensor_header(f, host, job->opts.index_base);
  for (int64_t k = 0; !tpi_output_failed(f) && k < host->nnz; k += PIECES * PIECE_NONZEROS)
    write_batch(f, host, job->opts.index_base, k, text, piece_bytes);
  free(text);
  return TP_SUCCESS;
}

tp_tns_write_options tp_tns_write_options_default(void) {
  tp_tns_write_options o;
  memset(&o, 0, sizeof o);
  o.index_base = 1;
  return o;
}

static tp_status make_job(const tp_coo *host, const tp_tns_write_options *opts, text_job *job) {
  job->host = host;
  job->opts = opts ? *opts : tp_tns_write_options_default();
  TP_CHECK_ARG(job->opts.index_base == 0 || job->opts.index_base == 1,
               "index_base %d is not 0 or 1", job->opts.index_base);
  TP_CHECK_ARG(job->opts.sptensor == 0 || job->opts.sptensor == 1, "sptensor %d is not 0 or 1",
               job->opts.sptensor);
  return tp_coo_validate(host);
}

tp_status tp_coo_write_tns(const char *path, const tp_coo *host) {
  text_job job;
  TP_TRY(make_job(host, NULL, &job));
  return tpi_output_write_one(path, write_tns, &job);
}

tp_status tp_coo_write_tns_to(tp_output_set *set, const char *path, const tp_coo *host) {
  return tp_coo_write_text_to(set, path, host, NULL);
}

tp_status tp_coo_write_text_to(tp_output_set *set, const char *path, const tp_coo *host,
                               const tp_tns_write_options *opts) {
  TP_CHECK_ARG(set, "set is NULL");
  text_job job;
  TP_TRY(make_job(host, opts, &job));
  return tpi_output_write_in(set, path, write_tns, &job);
}
