/* Writing a host tensor as dense text: "tensor", the order, the dims, then the values one
 * per line, first index fastest whatever the tensor's layout, each with digits that read
 * back exactly (15 or 17, tpi_text_format_number). Formatting dominates,
 * so batches of values are formatted in parallel pieces, which are then written in
 * order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/io/tp_io_internal.h"

enum {
  PIECES = 16,
  PIECE_VALUES = 4096,
  VALUE_BYTES = TP_TEXT_NUMBER_BYTES,
  INDEX_TEXT = 16 * 22 + 4
};

/* The memory offsets of the elements in first-index-fastest order. */
typedef struct left_walk {
  int order;
  int64_t dims[TP_DENSE_MAX_ORDER], stride[TP_DENSE_MAX_ORDER], idx[TP_DENSE_MAX_ORDER];
  int64_t offset;
} left_walk;

/* The walk from the element at position `first` of that order on. */
static void walk_start(left_walk *w, const tp_dense *t, int64_t first) {
  w->order = t->order;
  int64_t s = 1;
  for (int p = 0; p < t->order; ++p) { /* p = 0 is the fastest in memory */
    int k = tpi_dense_mode_at(t, p);
    w->dims[k] = t->dims[k], w->stride[k] = s;
    s *= t->dims[k];
  }
  w->offset = 0;
  for (int k = 0; k < t->order; ++k) {
    w->idx[k] = first % t->dims[k];
    first /= t->dims[k];
    w->offset += w->idx[k] * w->stride[k];
  }
}

static void walk_next(left_walk *w) {
  for (int k = 0; k < w->order; ++k) {
    w->offset += w->stride[k];
    if (++w->idx[k] < w->dims[k])
      return;
    w->offset -= w->dims[k] * w->stride[k];
    w->idx[k] = 0;
  }
}

static size_t format_value(const tp_dense *t, int64_t offset, char *p) {
  size_t n =
      tpi_text_format_number(p, VALUE_BYTES, tpi_dense_load(t->data, t->dtype, offset), t->dtype);
  p[n] = '\n';
  return n + 1;
}

/* Formats the values at positions [first, first + PIECES * PIECE_VALUES) into the pieces,
 * then writes them out in order. */
static void write_batch(tpi_output *f, const tp_dense *t, int64_t count, int64_t first,
                        char *text) {
  size_t len[PIECES];
  const size_t piece_bytes = (size_t)PIECE_VALUES * VALUE_BYTES;
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1))
  for (int i = 0; i < PIECES; ++i) {
    int64_t k = first + (int64_t)i * PIECE_VALUES, end = k + PIECE_VALUES;
    char *begin = text + (size_t)i * piece_bytes, *p = begin;
    left_walk w;
    memset(&w, 0, sizeof w);
    if (k < count)
      walk_start(&w, t, k);
    for (; k < end && k < count; ++k, walk_next(&w))
      p += format_value(t, w.offset, p);
    len[i] = (size_t)(p - begin);
  }
  for (int i = 0; i < PIECES; ++i)
    tpi_output_write(f, text + (size_t)i * piece_bytes, len[i]);
}

static void write_header(tpi_output *f, const tp_dense *t) {
  char line[TP_DENSE_DIMS_TEXT + 32];
  snprintf(line, sizeof line, "tensor\n%d\n", t->order);
  tpi_output_text(f, line);
  for (int k = 0; k < t->order; ++k) {
    snprintf(line, sizeof line, "%s%lld", k ? " " : "", (long long)t->dims[k]);
    tpi_output_text(f, line);
  }
  tpi_output_text(f, "\n");
}

static tp_status write_text(tpi_output *f, const void *what) {
  const tp_dense *t = (const tp_dense *)what;
  char *text = (char *)malloc((size_t)PIECES * PIECE_VALUES * VALUE_BYTES);
  if (!text)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the text buffers",
                    tpi_output_path(f));
  write_header(f, t);
  int64_t count = tp_dense_count(t);
  for (int64_t k = 0; !tpi_output_failed(f) && k < count; k += PIECES * PIECE_VALUES)
    write_batch(f, t, count, k, text);
  free(text);
  return TP_SUCCESS;
}

/* A tensor that the reader would take back: valid, with data, every value finite. */
static tp_status check_writable(const tp_dense *host) {
  TP_TRY(tp_dense_check(host));
  TP_CHECK_ARG(host->data, "the tensor's data is NULL");
  int64_t count = tp_dense_count(host);
  for (int64_t i = 0; i < count; ++i) {
    if (isfinite(tpi_dense_load(host->data, host->dtype, i)))
      continue;
    int64_t idx[TP_DENSE_MAX_ORDER];
    char text[INDEX_TEXT];
    tpi_dense_unravel(host, i, idx);
    tpi_dense_format_index(host->order, idx, text, sizeof text);
    return TP_ERROR(TP_ERROR_NUMERICAL,
                    "element %s is not finite; dense text holds finite "
                    "values",
                    text);
  }
  return TP_SUCCESS;
}

tp_status tp_dense_write_text(const char *path, const tp_dense *host) {
  TP_TRY(check_writable(host));
  return tpi_output_write_one(path, write_text, host);
}

tp_status tp_dense_write_text_to(tp_output_set *set, const char *path, const tp_dense *host) {
  TP_CHECK_ARG(set, "set is NULL");
  TP_TRY(check_writable(host));
  return tpi_output_write_in(set, path, write_text, host);
}
