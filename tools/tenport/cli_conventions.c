/* The option conventions of every command (cli_conventions.h). */
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/options.h"

tenport_cli_settings tenport_settings;

typedef struct spelling {
  const char *given, *canonical;
} spelling;

/* Short forms; those marked with a value take one (next argument or attached). */
static const struct {
  char letter;
  const char *option;
  int takes_value;
} short_forms[] = {{'r', "--rank", 1}, {'i', "--input", 1},   {'o', "--output", 1},
                   {'s', "--seed", 1}, {'t', "--threads", 1}, {'q', "--quiet", 0},
                   {'h', "--help", 0}};

/* Older or other tools' spellings of one concept. */
static const spelling other_spellings[] = {
    {"--maxiters", "--max-iters"}, {"--maxits", "--max-iters"}, {"--max-iter", "--max-iters"},
    {"--maxiter", "--max-iters"},  {"--shape", "--dims"},       {"--sh", "--input"},
};

static const char *canonical(const char *name) {
  for (size_t k = 0; k < sizeof other_spellings / sizeof other_spellings[0]; ++k)
    if (!strcmp(name, other_spellings[k].given))
      return other_spellings[k].canonical;
  return name;
}

static int short_form(char letter) {
  for (size_t k = 0; k < sizeof short_forms / sizeof short_forms[0]; ++k)
    if (short_forms[k].letter == letter)
      return (int)k;
  return -1;
}

/* A token the user meant as a short option: "-x" or "-xVALUE" with x a letter. */
static int looks_short(const char *a) {
  return a[0] == '-' && ((a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z'));
}

/* 0 when this build has a device d, else 2 after a message saying which it has. */
static int device_exists(const char *cmd, int d) {
  int count = 0;
  if (tp_device_count(&count) != TP_SUCCESS)
    return fprintf(stderr, "tenport %s: %s\n", cmd, tp_last_error()), 2;
  if (d < count)
    return 0;
  fprintf(stderr,
          "tenport %s: --device '%d' is not valid: expected a device from 0 to %d (the "
          "%s backend sees %d)\n",
          cmd, d, count - 1, tp_backend_name(), count);
  return 2;
}

/* --timeout S: the collectives' time limit of a distributed run (tp_comm_set_timeout);
 * accepted in every build, so that one command line serves all of them. */
static int take_timeout(const char *cmd, const char *v, int *used) {
  double seconds = 0;
  int r = v ? tenport_parse_number(v, 0, 0, 1e9, 0, &seconds) : 0;
  if (tenport_option_error(cmd, "--timeout", r, v))
    return 2;
  if (tp_comm_has_mpi() && tp_comm_set_timeout(seconds) != TP_SUCCESS)
    return fprintf(stderr, "tenport %s: --timeout: %s\n", cmd, tp_last_error()), 2;
  *used = 1;
  return 1;
}

/* Takes --threads, --device, --timeout, --force and --json (name, with value v) into
 * tenport_settings; 1 if it was one of them (then *used tells whether v was consumed), 0
 * if not, 2 after a usage message. */
static int take_setting(const char *cmd, const char *name, const char *v, int *used) {
  *used = 0;
  if (!strcmp(name, "--force"))
    return tenport_settings.force = 1;
  if (!strcmp(name, "--json")) {
    if (tenport_option_error(cmd, name, v ? tenport_parse_text(v, &tenport_settings.json) : 0, v))
      return 2;
    return *used = 1;
  }
  if (!strcmp(name, "--timeout"))
    return take_timeout(cmd, v, used);
  int is_threads = !strcmp(name, "--threads"), is_device = !strcmp(name, "--device");
  if (!is_threads && !is_device)
    return 0;
  int r = v ? is_threads ? tenport_parse_int(v, 1, TP_MAX_THREADS, &tenport_settings.threads)
                         : tenport_parse_int(v, 0, 1023, &tenport_settings.device)
            : 0;
  if (tenport_option_error(cmd, name, r, v))
    return 2;
  if (is_device && (r = device_exists(cmd, tenport_settings.device)) != 0)
    return r;
  tenport_settings.device_set |= is_device;
  *used = 1;
  return 1;
}

/* Appends s to out (n entries so far). */
static void push(char **out, int *n, char *s) { out[(*n)++] = s; }

/* A copy of the first len bytes of s, kept in owned[] to be freed. */
static char *copy(const char *s, size_t len, char **owned, int *nowned) {
  char *c = malloc(len + 1);
  if (!c)
    return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  owned[(*nowned)++] = c;
  return c;
}

/* One argument a at argv[i] into out; *skip is set when the next argument was used as
 * its value. Returns 0, or 2 after a usage message. */
static int convert_one(const char *cmd, int argc, char **argv, int i, char **out, int *n,
                       char **owned, int *nowned, int *skip) {
  const char *a = argv[i];
  *skip = 0;
  if (a[0] == '-' && a[1] == '-' && a[2]) {
    const char *eq = strchr(a, '=');
    char *name = copy(a, eq ? (size_t)(eq - a) : strlen(a), owned, nowned);
    if (!name)
      return fprintf(stderr, "tenport %s: out of memory\n", cmd), 2;
    const char *canon = canonical(name);
    const char *v = eq ? eq + 1 : tenport_option_value(argc, argv, i);
    int used, r = take_setting(cmd, canon, v, &used);
    if (r == 2)
      return 2;
    if (r == 1) {
      *skip = used && !eq;
      if (eq && !used)
        return fprintf(stderr, "tenport %s: %s takes no value\n", cmd, canon), 2;
      return 0;
    }
    push(out, n, (char *)canon);
    if (eq)
      push(out, n, (char *)(eq + 1));
    return 0;
  }
  if (!looks_short(a)) {
    push(out, n, argv[i]);
    return 0;
  }
  int k = short_form(a[1]);
  if (k < 0 || (!short_forms[k].takes_value && a[2])) {
    fprintf(stderr,
            "tenport %s: unknown option '%s' (short forms: -r rank, -i input, "
            "-o output, -s seed, -t threads, -q quiet, -h help)\n",
            cmd, a);
    return 2;
  }
  char *as_long = (char *)short_forms[k].option;
  const char *v = a[2] ? a + 2 : NULL;
  int used, r = take_setting(cmd, as_long, v ? v : tenport_option_value(argc, argv, i), &used);
  if (r == 2)
    return 2;
  if (r == 1) {
    *skip = used && !v;
    return 0;
  }
  push(out, n, as_long);
  if (v)
    push(out, n, (char *)v);
  return 0;
}

int tenport_conventional_args(const char *cmd, int argc, char **argv, int *out_argc,
                              char ***out_argv) {
  memset(&tenport_settings, 0, sizeof tenport_settings);
  /* Each argument becomes at most two; the owned copies are kept after the NULL. */
  char **out = calloc(4 * (size_t)argc + 2, sizeof *out);
  if (!out)
    return fprintf(stderr, "tenport %s: out of memory\n", cmd), 2;
  char **owned = out + 2 * argc + 1;
  int n = 0, nowned = 0;
  push(out, &n, argv[0]);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--")) { /* the rest as they are */
      while (i < argc)
        push(out, &n, argv[i++]);
      break;
    }
    int skip;
    if (convert_one(cmd, argc, argv, i, out, &n, owned, &nowned, &skip)) {
      tenport_conventional_args_free(argc, argv, out);
      return 2;
    }
    i += skip;
  }
  out[n] = NULL;
  *out_argc = n;
  *out_argv = out;
  return 0;
}

void tenport_conventional_args_free(int argc, char **argv, char **out_argv) {
  (void)argv;
  if (!out_argv)
    return;
  for (char **o = out_argv + 2 * argc + 1; *o; ++o)
    free(*o);
  free(out_argv);
}

tp_space_options tenport_space_options(void) {
  tp_space_options o = tp_space_options_default();
  if (tenport_settings.device_set)
    o.device = tenport_settings.device;
  if (tenport_settings.threads)
    o.threads = tenport_settings.threads;
  return o;
}

void tenport_conventions_help(FILE *out) {
  fprintf(out,
          "\nEvery command also takes:\n"
          "  -t, --threads N     OpenMP threads (the openmp backend; others run as they do)\n"
          "  --device D          the GPU to run on (0 on the CPU backends)\n"
          "  --force             replace outputs that exist (refused otherwise)\n"
          "  --json FILE         a JSON summary of the run: the command, its arguments, exit\n"
          "                      code and error, inputs, outputs, phases' seconds, results\n"
          "  --timeout S         distributed runs: a rank that waits more than S seconds in\n"
          "                      one collective (another was stopped, or hangs) ends every\n"
          "                      rank with a message (default: no limit; also\n"
          "                      TENPORT_COMM_TIMEOUT)\n"
          "Options may be written --name=value; short forms: -r rank, -i input, -o output,\n"
          "-s seed, -t threads, -q quiet, -h help. --max-iters is also taken as --maxiters or\n"
          "--maxits, --dims as --shape, and --input as peaks' --sh.\n");
}
