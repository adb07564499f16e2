/* tenport gcp on a sparse tensor (.tns or .tpb): the tensor read as cp-als reads it, and
 * the mask, a list of the missing entries' coordinates, read from .tns or .tpb and checked
 * against the tensor's shape. tp_gcp_sparse makes both dense in the space. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gcp_cli.h"

static int fail(void) { return tenport_fail("gcp", "failed"); }

/* The mask's shape against the tensor's: the same order, and dims equal to the tensor's
 * when the file states them (.tpb, a text header), else largest indices within them;
 * then the tensor's dims. 0, or 2 after a message naming both shapes. */
static int check_missing(tenport_gcp_job *j, tp_file_format format, const tp_coo_read_info *info) {
  tp_coo *m = &j->missing;
  const int stated = format == TP_FILE_TPB || (info->header_kind != NULL);
  int fits = m->order == j->order;
  for (int k = 0; fits && k < m->order; ++k)
    fits = stated ? m->dims[k] == j->dims[k] : m->dims[k] <= j->dims[k];
  if (fits) {
    memcpy(m->dims, j->dims, sizeof(int64_t) * (size_t)j->order);
    return 0;
  }
  char ms[TENPORT_DIMS_TEXT], xs[TENPORT_DIMS_TEXT];
  tenport_format_dims(m->order, m->dims, ms, sizeof ms);
  tenport_format_dims(j->order, j->dims, xs, sizeof xs);
  const char *mask = tp_input_name(j->mask_in), *name = tp_input_name(j->in);
  if (m->order != j->order)
    fprintf(stderr,
            "tenport gcp: --mask %s lists %d-mode coordinates (up to %s), the tensor %s has %d "
            "modes (%s): each line of the mask is a missing entry's %d indices and a value "
            "(ignored)\n",
            mask, m->order, ms, name, j->order, xs, j->order);
  else
    fprintf(stderr,
            "tenport gcp: --mask %s %s %s, the tensor %s %s: the missing entries' coordinates "
            "must lie in the tensor\n",
            mask, stated ? "has shape" : "has coordinates up to", ms, name, xs);
  return 2;
}

/* The missing entries' coordinates (values ignored), checked against the tensor's shape. */
static int read_missing(tenport_gcp_job *j) {
  const tenport_gcp_cli *c = j->c;
  tp_file_format format;
  tp_coo_read_info info;
  if (tp_input_format(j->mask_in, &format) != TP_SUCCESS)
    return fail();
  if (format != TP_FILE_TPB && format != TP_FILE_TEXT)
    return (tp_input_wrong_format(j->mask_in, format,
                                  "a sparse tensor's mask: a .tns or .tpb of the coordinates of "
                                  "its missing entries"),
            fail());
  if (tp_coo_read_input_with(j->mask_in, j->dtype, 0, NULL, &c->text.read, &j->missing, &info) !=
      TP_SUCCESS)
    return fail();
  int code = check_missing(j, format, &info);
  if (code == 0 && j->observed > 0)
    j->observed -= j->missing.nnz;
  return code;
}

int tenport_gcp_load_sparse(tenport_gcp_job *j) {
  const tenport_gcp_cli *c = j->c;
  j->sparse = 1;
  j->dtype = TP_DTYPE_F64;
  if (c->precision)
    j->dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  else if (tp_coo_input_dtype(j->in, &j->dtype) != TP_SUCCESS)
    return fail();
  double t0 = tenport_seconds();
  tp_status st = tp_coo_read_input_with(j->in, j->dtype, c->order, c->order ? c->dims : NULL,
                                        &c->text.read, &j->coo, &j->info);
  if (st != TP_SUCCESS)
    return fail();
  tenport_note_header("gcp", tp_input_name(j->in), &j->info, j->coo.order, j->coo.dims);
  if (j->coo.order < 2 || j->coo.order > TP_DENSE_MAX_ORDER) {
    fprintf(stderr, "tenport gcp: %s has %d modes; GCP takes 2 to %d\n", tp_input_name(j->in),
            j->coo.order, TP_DENSE_MAX_ORDER);
    return 1;
  }
  j->order = j->coo.order;
  memcpy(j->dims, j->coo.dims, sizeof(int64_t) * (size_t)j->order);
  j->observed = 1; /* -1 when the count overflows (the dense form is refused then) */
  for (int k = 0; k < j->order && j->observed > 0; ++k)
    j->observed = j->observed <= INT64_MAX / j->dims[k] ? j->observed * j->dims[k] : -1;
  int code = j->mask_in ? read_missing(j) : 0;
  j->phases.read = tenport_seconds() - t0;
  if (code == 0 && j->set && c->output &&
      tp_kruskal_reserve_npy(j->set, c->output, j->order) != TP_SUCCESS)
    code = fail();
  return code;
}
