/* The commands' inputs and output sets, with their messages. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_files.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/options.h"

int tenport_open_input(const char *cmd, const char *path, tp_input **in) {
  tenport_summary_input(path);
  return tp_input_open(in, path) == TP_SUCCESS ? 0 : tenport_fail(cmd, "cannot open the input");
}

void tenport_note_header(const char *cmd, const char *name, const tp_coo_read_info *info, int order,
                         const int64_t *dims) {
  if (!info || !info->header_kind || strcmp(info->header_kind, "order and dims line") != 0)
    return;
  char shape[TENPORT_DIMS_TEXT];
  tenport_format_dims(order, dims, shape, sizeof shape);
  fprintf(stderr,
          "tenport %s: %s: its first line was taken as a header (order %d, dims %s), not as a "
          "nonzero; --no-header reads every line as a nonzero\n",
          cmd, name, order, shape);
}

int tenport_outputs_begin(const char *cmd, tp_output_set **set, const tp_input *in,
                          const char *const *inputs, int n) {
  tp_status st = tp_output_set_create(set);
  if (st == TP_SUCCESS && !tenport_settings.force)
    st = tp_output_set_keep_existing(*set, TENPORT_FORCE_ADVICE);
  if (st == TP_SUCCESS && in)
    st = tp_output_set_protect_input(*set, in);
  for (int k = 0; k < n && st == TP_SUCCESS; ++k)
    if (inputs[k])
      st = tp_output_set_protect(*set, inputs[k]);
  if (st == TP_SUCCESS)
    return 0;
  tp_output_set_destroy(set);
  return tenport_fail(cmd, "cannot prepare the outputs");
}

int tenport_outputs_add(const char *cmd, tp_output_set *set, const char *path) {
  return tp_output_set_add(set, path) == TP_SUCCESS ? 0 : tenport_fail(cmd, "cannot write");
}

int tenport_outputs_commit(const char *cmd, tp_output_set *set) {
  if (tp_output_set_commit(set) != TP_SUCCESS)
    return tenport_fail(cmd, "cannot write the results");
  tenport_summary_outputs(set);
  return 0;
}

int tenport_outputs_check_folder(const char *cmd, const char *path) {
  return tp_output_check_folder(path) == TP_SUCCESS ? 0 : tenport_fail(cmd, "cannot write");
}

/* The files of --init PREFIX that a model of any order may be read from. */
static tp_status protect_model_files(tp_output_set *set, const char *init) {
  char name[4096];
  tp_status st = TP_SUCCESS;
  for (int k = -1; init && k < TP_DENSE_MAX_ORDER && st == TP_SUCCESS; ++k) {
    if (k < 0)
      snprintf(name, sizeof name, "%s_lambda.npy", init);
    else
      snprintf(name, sizeof name, "%s_factor%d.npy", init, k);
    st = tp_output_set_protect(set, name);
  }
  return st;
}

int tenport_outputs_begin_model(const char *cmd, const tp_input *in, const char *init,
                                const char *const *inputs, int n, const char *output,
                                const char *history, tp_output_set **set) {
  if (tenport_outputs_begin(cmd, set, in, inputs, n))
    return 1;
  if (protect_model_files(*set, init) != TP_SUCCESS) {
    tp_output_set_destroy(set);
    return tenport_fail(cmd, "cannot prepare the outputs");
  }
  if (history && tenport_outputs_add(cmd, *set, history))
    return 1;
  return output ? tenport_outputs_check_folder(cmd, output) : 0;
}

tp_status tenport_outputs_begin_paths(const char *const *inputs, int n, const char *init,
                                      const char *output, const char *history,
                                      tp_output_set **set) {
  tp_status st = tp_output_set_create(set);
  if (st == TP_SUCCESS && !tenport_settings.force)
    st = tp_output_set_keep_existing(*set, TENPORT_FORCE_ADVICE);
  for (int i = 0; i < n && st == TP_SUCCESS; ++i)
    if (inputs[i])
      st = tp_output_set_protect(*set, inputs[i]);
  if (st == TP_SUCCESS)
    st = protect_model_files(*set, init);
  if (st == TP_SUCCESS && history)
    st = tp_output_set_add(*set, history);
  if (st == TP_SUCCESS && output)
    st = tp_output_check_folder(output);
  return st;
}

int tenport_text_option(tenport_text_options *t, const char *a, const char *v) {
  if (!strcmp(a, "--no-header") && !v)
    return t->given = 1, t->read.no_header = 1, 1;
  if (!strcmp(a, "--index-base") && v)
    return t->given = 1, tenport_parse_index_base(v, &t->read.index_base);
  return -1;
}

int tenport_text_options_fit(const char *cmd, tp_input *in, const tenport_text_options *t) {
  tp_file_format format;
  if (!t->given)
    return 0;
  if (tp_input_format(in, &format) != TP_SUCCESS)
    return tenport_fail(cmd, "cannot read the input");
  if (format == TP_FILE_TEXT || format == TP_FILE_EMPTY)
    return 0;
  fprintf(stderr,
          "tenport %s: --index-base and --no-header apply to sparse text (.tns); %s is "
          "%s%s%s\n",
          cmd, tp_input_name(in), format == TP_FILE_DENSE_TEXT ? "" : "a .",
          format == TP_FILE_DENSE_TEXT ? "dense 'tensor' text" : tp_file_format_name(format),
          format == TP_FILE_DENSE_TEXT ? "" : " file");
  return 2;
}
