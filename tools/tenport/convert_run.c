/* tenport convert's work: the input read as the sparse or dense tensor its content says it
 * is, turned into the other kind when the output's format needs it, and written into an
 * output set that replaces the output only once it is complete. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_files.h"
#include "tools/tenport/cli_tns_output.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/convert.h"

/* What was read and what is written, for the summary. */
typedef struct convert_job {
  const convert_cli *c;
  tp_input *in;
  tp_file_format in_format;
  tp_output_set *set;
  tp_coo coo; /* the sparse tensor read or made */
  tp_coo_read_info info;
  tp_dense dense;  /* the dense tensor read or made */
  int read_dense;  /* the input was dense */
  int64_t dropped; /* dense to sparse: nonzeros below --drop-below */
  int header;      /* a sparse text output starts with the sptensor header */
  double read_s, write_s;
} convert_job;

static int input_is_dense(tp_file_format f) { return f == TP_FILE_NPY || f == TP_FILE_DENSE_TEXT; }

static int input_is_sparse(tp_file_format f) {
  return f == TP_FILE_TEXT || f == TP_FILE_EMPTY || f == TP_FILE_TPB;
}

/* How the input's format reads in messages ("a .npy file", "dense text"). */
static const char *input_kind(tp_file_format f) {
  switch (f) {
  case TP_FILE_NPY: return "a .npy file";
  case TP_FILE_DENSE_TEXT: return "dense 'tensor' text";
  case TP_FILE_TPB: return "a .tpb file";
  default: return "sparse text";
  }
}

static int option_does_not_apply(const convert_job *j, const char *option, const char *where) {
  fprintf(stderr, "tenport convert: %s applies to %s; %s is %s\n", option, where,
          tp_input_name(j->in), input_kind(j->in_format));
  return 2;
}

/* The options that apply to some inputs only, against the input found. */
static int check_input_options(const convert_job *j) {
  const convert_cli *c = j->c;
  int dense_in = input_is_dense(j->in_format), dense_out = convert_is_dense(c->format);
  if (tenport_text_options_fit("convert", j->in, &c->text))
    return 2;
  if (c->dims_text && dense_in)
    return option_does_not_apply(j, "--dims", "sparse inputs (.tns, sptensor, .tpb)");
  if (c->drop_given && !(dense_in && !dense_out))
    return option_does_not_apply(j, "--drop-below", "a dense input written sparse");
  if (c->max_given && !(!dense_in && dense_out))
    return option_does_not_apply(j, "--max-elements", "a sparse input written dense");
  return 0;
}

/* --precision, else the input's own value type (float64 for other types and for text). */
static tp_status input_dtype(const convert_job *j, tp_dtype *dtype) {
  *dtype = TP_DTYPE_F64;
  if (j->c->precision) {
    *dtype = !strcmp(j->c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
    return TP_SUCCESS;
  }
  if (!input_is_dense(j->in_format))
    return tp_coo_input_dtype(j->in, dtype);
  tp_dense_header h;
  tp_status st = tp_dense_peek_header(j->in, &h);
  *dtype = st == TP_SUCCESS && h.dtype == TP_DTYPE_F32 ? TP_DTYPE_F32 : TP_DTYPE_F64;
  return st;
}

static tp_status read_input(convert_job *j) {
  const convert_cli *c = j->c;
  tp_dtype dtype;
  tp_status st = input_dtype(j, &dtype);
  if (st != TP_SUCCESS)
    return st;
  if (j->read_dense)
    return tp_dense_read_input(j->in, dtype, &j->dense);
  return tp_coo_read_input_with(j->in, dtype, c->order, c->dims_text ? c->dims : NULL,
                                &c->text.read, &j->coo, &j->info);
}

/* ---- sparse to dense ------------------------------------------------------------------ */

static void format_dims(int order, const int64_t *dims, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int m = 0; m < order && n < cap; ++m)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", m ? "x" : "", (long long)dims[m]);
}

/* The dense form must fit --max-elements (the memory check follows in the library). */
static int dense_size_fits(const convert_job *j) {
  const tp_coo *t = &j->coo;
  char dims[TP_COO_MAX_ORDER * 21];
  format_dims(t->order, t->dims, dims, sizeof dims);
  double elements = 1;
  for (int m = 0; m < t->order; ++m)
    elements *= (double)t->dims[m];
  if (t->order >= 2 && elements <= (double)j->c->max_elements)
    return 1;
  if (t->order < 2)
    fprintf(stderr,
            "tenport convert: %s holds a tensor of 1 mode (dims %s); a dense tensor "
            "has 2 to %d modes\n",
            tp_input_name(j->in), dims, TP_DENSE_MAX_ORDER);
  else
    fprintf(stderr,
            "tenport convert: the dense form of %s, dims %s, has %.4g elements (%.4g GB "
            "of %s), more than --max-elements %llu; raise it to convert it anyway\n",
            tp_input_name(j->in), dims, elements, elements * (double)tp_dtype_size(t->dtype) / 1e9,
            tp_dtype_name(t->dtype), (unsigned long long)j->c->max_elements);
  return 0;
}

/* The tensor read in the kind the output needs (both are kept for the summary). */
static int change_kind(convert_job *j) {
  int dense_out = convert_is_dense(j->c->format);
  if (j->read_dense == dense_out)
    return 0;
  if (dense_out && !dense_size_fits(j))
    return 1;
  tp_status st = dense_out ? tp_coo_to_dense(&j->coo, &j->dense)
                           : tp_coo_from_dense(&j->dense, j->c->drop_below, &j->coo, &j->dropped);
  return st == TP_SUCCESS ? 0 : tenport_fail("convert", "cannot convert the tensor");
}

/* ---- writing --------------------------------------------------------------------------- */

static tp_status write_output(convert_job *j) {
  const convert_cli *c = j->c;
  tp_tns_write_options text = tp_tns_write_options_default();
  if (c->format == CONVERT_TNS || c->format == CONVERT_SPTENSOR)
    text = tenport_tns_output_options(&j->coo, c->out_base, c->format == CONVERT_SPTENSOR,
                                      c->no_header_out);
  j->header = text.sptensor;
  switch ((convert_format)c->format) {
  case CONVERT_TNS:
  case CONVERT_SPTENSOR: return tp_coo_write_text_to(j->set, c->output, &j->coo, &text);
  case CONVERT_TPB: return tp_coo_write_binary_to(j->set, c->output, &j->coo);
  case CONVERT_NPY: return tp_dense_write_npy_to(j->set, c->output, &j->dense);
  case CONVERT_TENSOR: return tp_dense_write_text_to(j->set, c->output, &j->dense);
  }
  return TP_SUCCESS;
}

/* ---- the summary ------------------------------------------------------------------------ */

/* "sparse, 3 modes, dims 13x7x11, nnz 300, float64" or "dense, ..., 1001 elements, ..." */
static void print_tensor(const convert_job *j, int dense) {
  int order = dense ? j->dense.order : j->coo.order;
  char text[TP_COO_MAX_ORDER * 21];
  format_dims(order, dense ? j->dense.dims : j->coo.dims, text, sizeof text);
  printf("%s, %d mode%s, dims %s, ", dense ? "dense" : "sparse", order, order == 1 ? "" : "s",
         text);
  if (dense)
    printf("%lld elements, ", (long long)tp_dense_count(&j->dense));
  else
    printf("nnz %lld, ", (long long)j->coo.nnz);
  printf("%s", tp_dtype_name(dense ? j->dense.dtype : j->coo.dtype));
}

static void print_read(const convert_job *j) {
  const tp_coo_read_info *i = &j->info;
  printf("read %s (%s%s", tp_input_name(j->in),
         j->in_format == TP_FILE_TEXT ? "sparse text" : tp_file_format_name(j->in_format),
         tp_input_compressed(j->in) ? ", gzip" : "");
  if (i->lines)
    printf(", %lld lines%s%s%s", (long long)i->lines, i->index_base == 0 ? ", 0-based indices" : "",
           i->header_kind ? ", header: " : "", i->header_kind ? i->header_kind : "");
  printf("): ");
  print_tensor(j, j->read_dense);
  if (!j->read_dense)
    printf(", duplicates merged %lld", (long long)i->duplicates);
  printf(", in %.3f s\n", j->read_s);
}

static void print_written(const convert_job *j) {
  const convert_cli *c = j->c;
  int dense = convert_is_dense(c->format);
  printf("wrote %s (%s%s%s%s): ", c->output, convert_format_names[c->format],
         !dense && c->format != CONVERT_TPB && c->out_base == 0 ? ", 0-based indices" : "",
         c->format == CONVERT_TNS && j->header ? ", sptensor header" : "", c->gzip ? ", gzip" : "");
  print_tensor(j, dense);
  if (j->read_dense && !dense && c->drop_given)
    printf(", %lld nonzeros below %g left out", (long long)j->dropped, c->drop_below);
  printf(", in %.3f s\n", j->write_s);
}

/* ---- the whole run ---------------------------------------------------------------------- */

static int open_all(convert_job *j) {
  const convert_cli *c = j->c;
  int code = tenport_open_input("convert", c->input, &j->in);
  if (code == 0 && tp_input_format(j->in, &j->in_format) != TP_SUCCESS)
    code = tenport_fail("convert", "cannot read the input");
  if (code == 0 && !input_is_dense(j->in_format) && !input_is_sparse(j->in_format))
    code = (tp_input_wrong_format(j->in, j->in_format,
                                  "a tensor (.tns or sptensor text, .tpb, "
                                  ".npy, or dense 'tensor' text)"),
            tenport_fail("convert", "cannot read the input"));
  j->read_dense = input_is_dense(j->in_format);
  if (code == 0)
    code = check_input_options(j);
  if (code == 0)
    code = tenport_outputs_begin("convert", &j->set, j->in, NULL, 0);
  if (code == 0)
    code = tenport_outputs_add("convert", j->set, c->output);
  if (code == 0 && c->gzip && tp_output_set_gzip(j->set, c->output) != TP_SUCCESS)
    code = tenport_fail("convert", "cannot write gzip");
  return code;
}

int tenport_convert_run(const convert_cli *c) {
  convert_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  int code = open_all(&j);
  double t0 = tenport_seconds();
  if (code == 0 && read_input(&j) != TP_SUCCESS)
    code = tenport_fail("convert", "cannot read the input");
  j.read_s = tenport_seconds() - t0;
  t0 = tenport_seconds();
  if (code == 0)
    code = change_kind(&j);
  if (code == 0 && write_output(&j) != TP_SUCCESS)
    code = tenport_fail("convert", "cannot write the output");
  if (code == 0)
    code = tenport_outputs_commit("convert", j.set);
  j.write_s = tenport_seconds() - t0;
  if (code == 0)
    print_read(&j), print_written(&j);
  tp_coo_free(NULL, &j.coo);
  tp_dense_free(NULL, &j.dense);
  tp_output_set_destroy(&j.set);
  tp_input_close(&j.in);
  return code;
}
