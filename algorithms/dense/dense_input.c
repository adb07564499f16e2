/* A dense tensor from an input in either of its file formats, told apart by the content:
 * a NumPy .npy array or dense text (tp_input_format). */
#include <string.h>

#include "algorithms/dense/tp_dense_internal.h"
#include "portable/tp_error.h"

static const char WANTED[] = "a dense tensor (.npy, or dense 'tensor' text)";

tp_status tp_dense_read_input(tp_input *in, tp_dtype want_dtype, tp_dense *t) {
  TP_CHECK_ARG(t, "t is NULL");
  memset(t, 0, sizeof *t);
  TP_CHECK_ARG(in, "in is NULL");
  tp_file_format format;
  TP_TRY(tp_input_format(in, &format));
  if (format == TP_FILE_NPY)
    return tp_dense_read_npy_input(in, want_dtype, t);
  if (format == TP_FILE_DENSE_TEXT)
    return tp_dense_read_text_input(in, want_dtype, t);
  return tp_input_wrong_format(in, format, WANTED);
}

tp_status tp_dense_peek_header(tp_input *in, tp_dense_header *h) {
  TP_CHECK_ARG(h, "h is NULL");
  memset(h, 0, sizeof *h);
  TP_CHECK_ARG(in, "in is NULL");
  tp_file_format format;
  TP_TRY(tp_input_format(in, &format));
  if (format == TP_FILE_NPY) {
    tp_npy_header npy;
    TP_TRY(tp_npy_peek_header(in, &npy));
    h->format = format, h->dtype = npy.dtype, h->order = npy.ndim;
    memcpy(h->dims, npy.shape, sizeof(int64_t) * (size_t)npy.ndim);
    return TP_SUCCESS;
  }
  if (format != TP_FILE_DENSE_TEXT)
    return tp_input_wrong_format(in, format, WANTED);
  tpi_dense_text_header text;
  TP_TRY(tpi_dense_text_peek_header(in, &text));
  h->format = format, h->dtype = TP_DTYPE_F64, h->order = text.order;
  memcpy(h->dims, text.dims, sizeof(int64_t) * (size_t)text.order);
  return TP_SUCCESS;
}
