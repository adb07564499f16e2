/* The --json summary of a run (cli_summary.h): what the command records is kept in
 * memory as it runs, and written as one document when it ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_json.h"
#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/cli_summary.h"
#include "tools/tenport/commands.h"

enum { SUMMARY_MAX_ITEMS = 256 };

typedef enum item_kind {
  ITEM_INPUT,
  ITEM_OUTPUT,
  ITEM_PHASE,
  ITEM_NUMBER,
  ITEM_INTEGER,
  ITEM_BOOL,
  ITEM_TEXT
} item_kind;

typedef struct item {
  item_kind kind;
  char *key, *text; /* copies */
  double number;
  long long integer;
} item;

static struct {
  const char *cmd;
  int argc;
  char **argv;
  double started;
  tp_output_set *set; /* with --json, on the process that writes */
  int to_stdout;      /* --json -: the summary goes to standard output */
  int by_command;     /* the command writes its own JSON */
  char *error;
  item items[SUMMARY_MAX_ITEMS];
  int count;
} summary;

static char *copy_of(const char *s) {
  if (!s)
    return NULL;
  char *c = (char *)malloc(strlen(s) + 1);
  if (c)
    strcpy(c, s);
  return c;
}

static void add(item_kind kind, const char *key, const char *text, double number,
                long long integer) {
  if (summary.count == SUMMARY_MAX_ITEMS)
    return;
  for (int i = 0; i < summary.count; ++i) /* a key recorded again: the last value counts */
    if (summary.items[i].kind == kind && key && summary.items[i].key &&
        !strcmp(summary.items[i].key, key) && kind != ITEM_INPUT && kind != ITEM_OUTPUT) {
      free(summary.items[i].text);
      summary.items[i].text = copy_of(text);
      summary.items[i].number = number, summary.items[i].integer = integer;
      return;
    }
  item *it = &summary.items[summary.count++];
  it->kind = kind, it->key = copy_of(key), it->text = copy_of(text);
  it->number = number, it->integer = integer;
}

void tenport_summary_input(const char *path) { add(ITEM_INPUT, NULL, path, 0, 0); }
void tenport_summary_output(const char *path) { add(ITEM_OUTPUT, NULL, path, 0, 0); }
void tenport_summary_phase(const char *name, double s) { add(ITEM_PHASE, name, NULL, s, 0); }
void tenport_summary_number(const char *key, double v) { add(ITEM_NUMBER, key, NULL, v, 0); }
void tenport_summary_integer(const char *key, long long v) { add(ITEM_INTEGER, key, NULL, 0, v); }
void tenport_summary_bool(const char *key, int v) { add(ITEM_BOOL, key, NULL, 0, v != 0); }
void tenport_summary_text(const char *key, const char *v) { add(ITEM_TEXT, key, v, 0, 0); }
void tenport_summary_written_by_command(void) { summary.by_command = 1; }

void tenport_summary_dims(const char *key, int order, const int64_t *dims) {
  char text[TENPORT_DIMS_TEXT];
  tenport_format_dims(order, dims, text, sizeof text);
  tenport_summary_text(key, text);
}

void tenport_summary_outputs(const tp_output_set *set) {
  for (int i = 0; i < tp_output_set_count(set); ++i)
    tenport_summary_output(tp_output_set_path(set, i));
}

void tenport_summary_error(const char *message) {
  if (summary.error) /* the first failure is the one that ended the run */
    return;
  summary.error = copy_of(message);
}

static void reset(void) {
  for (int i = 0; i < summary.count; ++i)
    free(summary.items[i].key), free(summary.items[i].text);
  free(summary.error);
  tp_output_set_destroy(&summary.set);
  memset(&summary, 0, sizeof summary);
}

/* An argument of the command that names the file the summary would replace (an input or
 * output named on the command line), or NULL: the summary may not replace it, whatever
 * becomes of the run (a usage error ends it before its inputs are opened). */
static const char *argument_naming(int argc, char **argv, const char *path) {
  struct stat target, st;
  if (stat(path, &target) != 0)
    return NULL;
  for (int i = 1; i < argc; ++i)
    if (stat(argv[i], &st) == 0 && st.st_dev == target.st_dev && st.st_ino == target.st_ino)
      return argv[i];
  return NULL;
}

int tenport_summary_start(const char *cmd, int argc, char **argv) {
  reset();
  summary.cmd = cmd, summary.argc = argc, summary.argv = argv;
  summary.started = tenport_seconds();
  if (!tenport_settings.json || tenport_launch_rank() != 0)
    return 0;
  summary.to_stdout = !strcmp(tenport_settings.json, "-"); /* as "-i -" reads standard input */
  if (summary.to_stdout)
    return 0;
  const char *named = argument_naming(argc, argv, tenport_settings.json);
  if (named) {
    fprintf(stderr,
            "tenport %s: --json %s would replace %s, which the command line names too (an "
            "input or an output); choose another name for the summary\n",
            cmd, tenport_settings.json, named);
    reset();
    return 2;
  }
  tp_status st = tp_output_set_create(&summary.set);
  if (st == TP_SUCCESS && !tenport_settings.force)
    st = tp_output_set_keep_existing(summary.set, TENPORT_FORCE_ADVICE);
  if (st == TP_SUCCESS)
    st = tp_output_set_add(summary.set, tenport_settings.json);
  if (st == TP_SUCCESS)
    return 0;
  tenport_fail(cmd, "cannot write the --json summary");
  reset();
  return 1;
}

/* The inputs or outputs, as an array of paths. */
static void paths_of(tenport_json *j, item_kind kind, const char *name) {
  tenport_json_array(j, name);
  for (int i = 0; i < summary.count; ++i)
    if (summary.items[i].kind == kind)
      tenport_json_string(j, NULL, summary.items[i].text);
  tenport_json_end(j);
}

/* The phases (seconds) or the results (numbers, integers, texts), as an object. */
static void members_of(tenport_json *j, int phases, const char *name) {
  tenport_json_object(j, name);
  for (int i = 0; i < summary.count; ++i) {
    const item *it = &summary.items[i];
    if ((it->kind == ITEM_PHASE) != phases || it->kind == ITEM_INPUT || it->kind == ITEM_OUTPUT)
      continue;
    if (it->kind == ITEM_PHASE || it->kind == ITEM_NUMBER)
      tenport_json_number(j, it->key, it->number);
    else if (it->kind == ITEM_INTEGER)
      tenport_json_integer(j, it->key, it->integer);
    else if (it->kind == ITEM_BOOL)
      tenport_json_bool(j, it->key, (int)it->integer);
    else
      tenport_json_string(j, it->key, it->text);
  }
  tenport_json_end(j);
}

static tp_status write_summary(int code) {
  tenport_json j;
  tenport_json_begin(&j);
  tenport_json_string(&j, "tenport", tp_version());
  tenport_json_string(&j, "backend", tp_backend_name());
  tenport_json_string(&j, "command", summary.cmd);
  tenport_json_array(&j, "arguments");
  for (int i = 1; i < summary.argc; ++i)
    tenport_json_string(&j, NULL, summary.argv[i]);
  tenport_json_end(&j);
  tenport_json_integer(&j, "exit_code", code);
  tenport_json_string(&j, "error", summary.error);
  tenport_json_number(&j, "seconds", tenport_seconds() - summary.started);
  paths_of(&j, ITEM_INPUT, "inputs");
  paths_of(&j, ITEM_OUTPUT, "outputs");
  members_of(&j, 1, "phases");
  members_of(&j, 0, "results");
  tp_status st = summary.to_stdout ? tenport_json_print(&j, stdout)
                                   : tenport_json_write(&j, summary.set, tenport_settings.json);
  if (st == TP_SUCCESS && !summary.to_stdout)
    st = tp_output_set_commit(summary.set);
  tenport_json_free(&j);
  return st;
}

int tenport_summary_finish(int code) {
  if ((summary.set || summary.to_stdout) && !summary.by_command &&
      write_summary(code) != TP_SUCCESS)
    code = tenport_fail(summary.cmd, "cannot write the --json summary");
  reset();
  return code;
}
