/* tenport gcp on a dense tensor (.npy or dense text): its header and the mask's checked
 * against each other before either is read, then the tensor read as cp-als reads it, or,
 * with a mask, without the check that every value is finite (the entries the mask leaves
 * out may hold NaN; the library checks the observed ones against the loss), and the mask
 * converted to 0/1 in the tensor's dtype and memory order. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gcp_cli.h"

static int fail(void) { return tenport_fail("gcp", "failed"); }

static double load(const void *data, tp_dtype dtype, int64_t i) {
  return dtype == TP_DTYPE_F32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
}

static void store(void *data, tp_dtype dtype, int64_t i, double v) {
  if (dtype == TP_DTYPE_F32)
    ((float *)data)[i] = (float)v;
  else
    ((double *)data)[i] = v;
}

/* The mask's header against the tensor's: a .npy of the same shape; 0, or 2 after a
 * message naming both shapes. */
static int check_mask_header(tenport_gcp_job *j, const tp_dense_header *h) {
  const char *mask = tp_input_name(j->mask_in), *name = tp_input_name(j->in);
  tp_file_format format;
  tp_npy_header m;
  if (tp_input_format(j->mask_in, &format) != TP_SUCCESS)
    return fail();
  if (format != TP_FILE_NPY) /* "M is sparse text (.tns), not ..." */
    return (tp_input_wrong_format(j->mask_in, format,
                                  "a dense tensor's mask: a .npy of its shape, nonzero where it "
                                  "is observed"),
            fail());
  if (tp_npy_peek_header(j->mask_in, &m) != TP_SUCCESS)
    return fail();
  int same = m.ndim == h->order;
  for (int k = 0; same && k < h->order; ++k)
    same = m.shape[k] == h->dims[k];
  if (same)
    return 0;
  char ms[TENPORT_DIMS_TEXT], xs[TENPORT_DIMS_TEXT];
  tenport_format_dims(m.ndim, m.shape, ms, sizeof ms);
  tenport_format_dims(h->order, h->dims, xs, sizeof xs);
  fprintf(stderr,
          "tenport gcp: --mask %s has shape %s, the tensor %s %s: the mask of a dense "
          "tensor has its shape\n",
          mask, ms, name, xs);
  return 2;
}

/* The precision (--precision, else the file's float type; float64 for other element
 * types), the mask's shape checked, and with --output the model's files added to the set
 * now that the order is known, before anything is read. */
static int plan(tenport_gcp_job *j) {
  const tenport_gcp_cli *c = j->c;
  tp_dense_header h;
  if (tp_dense_peek_header(j->in, &h) != TP_SUCCESS)
    return fail();
  j->dtype = h.dtype == TP_DTYPE_F32 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  if (c->precision)
    j->dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  int order_ok = h.order >= 2 && h.order <= TP_DENSE_MAX_ORDER; /* else the reader says why */
  if (j->mask_in && !order_ok) {
    fprintf(stderr, "tenport gcp: %s holds a %d-dimensional array; a dense tensor has 2 to %d\n",
            tp_input_name(j->in), h.order, TP_DENSE_MAX_ORDER);
    return 1;
  }
  int code = j->mask_in ? check_mask_header(j, &h) : 0;
  if (code == 0 && j->set && c->output && order_ok &&
      tp_kruskal_reserve_npy(j->set, c->output, h.order) != TP_SUCCESS)
    code = fail();
  return code;
}

/* With a mask: a .npy tensor in C order, converted to the run's dtype, every value kept
 * (dense text is read as without a mask: it cannot hold NaN). */
static tp_status read_tensor(tenport_gcp_job *j) {
  tp_file_format format;
  tp_status st = tp_input_format(j->in, &format);
  if (st != TP_SUCCESS)
    return st;
  if (!j->mask_in || format != TP_FILE_NPY)
    return tp_dense_read_input(j->in, j->dtype, &j->host_x); /* .npy or dense text */
  tp_npy_array a;
  if ((st = tp_npy_read_converted_input(j->in, j->dtype, -1, &a)) != TP_SUCCESS)
    return st;
  tp_dense *x = &j->host_x;
  x->dtype = j->dtype, x->order = a.ndim, x->layout = TP_LAYOUT_RIGHT, x->data = a.data;
  memcpy(x->dims, a.shape, sizeof(int64_t) * (size_t)a.ndim);
  if ((st = tp_dense_check(x)) != TP_SUCCESS)
    tp_npy_free(&a), memset(x, 0, sizeof *x);
  return st;
}

/* The mask's values (C order, X's dtype) as 1 (nonzero: observed) or 0 in X's dtype and
 * memory order, walked in C order with the offset in X's order alongside. */
static tp_status binary_mask(const tp_npy_array *m, const tp_dense *x, tp_dense *w,
                             int64_t *observed) {
  tp_status st = tp_dense_alloc(NULL, x->dtype, x->order, x->dims, x->layout, w);
  if (st != TP_SUCCESS)
    return st;
  int64_t index[TP_DENSE_MAX_ORDER] = {0}, stride[TP_DENSE_MAX_ORDER];
  int64_t s = 1;
  for (int p = 0; p < x->order; ++p) { /* the p-th fastest mode of X's order */
    int k = x->layout == TP_LAYOUT_LEFT ? p : x->order - 1 - p;
    stride[k] = s, s *= x->dims[k];
  }
  const int64_t count = tp_dense_count(x);
  int64_t at = 0;
  *observed = 0;
  for (int64_t c = 0; c < count; ++c) {
    const int on = load(m->data, m->dtype, c) != 0;
    store(w->data, w->dtype, at, on ? 1.0 : 0.0);
    *observed += on;
    for (int k = x->order - 1; k >= 0; --k) { /* the next C-order index */
      at += stride[k];
      if (++index[k] < x->dims[k])
        break;
      at -= stride[k] * x->dims[k], index[k] = 0;
    }
  }
  return TP_SUCCESS;
}

static tp_status read_mask(tenport_gcp_job *j) {
  tp_npy_array m;
  tp_status st = tp_npy_read_converted_input(j->mask_in, j->dtype, j->host_x.order, &m);
  if (st != TP_SUCCESS)
    return st;
  st = binary_mask(&m, &j->host_x, &j->host_w, &j->observed);
  tp_npy_free(&m);
  return st;
}

int tenport_gcp_load_dense(tenport_gcp_job *j) {
  int code = plan(j);
  if (code)
    return code;
  double t0 = tenport_seconds();
  tp_status st = read_tensor(j);
  if (st == TP_SUCCESS) {
    j->order = j->host_x.order, j->dtype = j->host_x.dtype;
    memcpy(j->dims, j->host_x.dims, sizeof j->dims);
    j->observed = tp_dense_count(&j->host_x);
  }
  if (st == TP_SUCCESS && j->mask_in)
    st = read_mask(j);
  j->phases.read = tenport_seconds() - t0;
  return st == TP_SUCCESS ? 0 : fail();
}

tp_status tenport_gcp_dense_to_space(tenport_gcp_job *j) {
  const tp_dense *h = &j->host_x;
  tp_status st = tp_dense_alloc(j->space, h->dtype, h->order, h->dims, h->layout, &j->x);
  if (st == TP_SUCCESS)
    st = tp_dense_copy_to_device(j->space, &j->x, h);
  if (st == TP_SUCCESS && j->mask_in)
    st = tp_dense_alloc(j->space, h->dtype, h->order, h->dims, h->layout, &j->w);
  if (st == TP_SUCCESS && j->mask_in)
    st = tp_dense_copy_to_device(j->space, &j->w, &j->host_w);
  return st;
}
