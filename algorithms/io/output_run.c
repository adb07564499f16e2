/* A run's files: between tp_output_run_begin and tp_output_run_end, the inputs this
 * process opens and the paths its pending output sets write are one set of files. No
 * output may be one of the run's inputs, whichever set writes it and whenever the input
 * is opened, and no path may be written by two sets (a summary and a result of the same
 * name would leave only the last one). A committed set's files leave the outputs: a later
 * step may read them. Files are compared by identity (device and inode) where they exist,
 * else by their folder's real path and their name. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"
#include "algorithms/io/tp_output_names.h"

typedef struct run_input {
  dev_t dev;
  ino_t ino;
} run_input;

typedef struct run_output {
  char *path, *key; /* as given; folder's real path + "/" + name */
  const void *set;
} run_output;

static struct {
  int active;
  run_input *inputs;
  size_t inputs_n, inputs_cap;
  run_output *outputs;
  size_t outputs_n, outputs_cap;
} run;
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

static void forget_all(void) {
  for (size_t i = 0; i < run.outputs_n; ++i)
    free(run.outputs[i].path), free(run.outputs[i].key);
  free(run.inputs), free(run.outputs);
  memset(&run, 0, sizeof run);
}

void tp_output_run_begin(void) {
  pthread_mutex_lock(&run_lock);
  forget_all();
  run.active = 1;
  pthread_mutex_unlock(&run_lock);
}

void tp_output_run_end(void) {
  pthread_mutex_lock(&run_lock);
  forget_all();
  pthread_mutex_unlock(&run_lock);
}

/* The folder's real path and the name: two spellings of one place give one key. NULL
 * when the folder cannot be resolved (the set reports that itself). */
static char *key_of(const char *path) {
  char *folder = tpi_output_folder_of(path), real[PATH_MAX];
  const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
  char *key = NULL;
  if (folder && realpath(folder, real)) {
    size_t n = strlen(real) + strlen(name) + 2;
    if ((key = (char *)malloc(n)) != NULL)
      snprintf(key, n, "%s/%s", real, name);
  }
  free(folder);
  return key;
}

static int same_file(const struct stat *st, dev_t dev, ino_t ino) {
  return st->st_dev == dev && st->st_ino == ino;
}

/* An output of the run that is the file dev/ino, or NULL. */
static const run_output *output_that_is(dev_t dev, ino_t ino) {
  struct stat st;
  for (size_t i = 0; i < run.outputs_n; ++i)
    if (stat(run.outputs[i].path, &st) == 0 && same_file(&st, dev, ino))
      return &run.outputs[i];
  return NULL;
}

/* " (LEAD OTHER)" when other spells the file otherwise than given, else "": the
 * messages name the other spelling only when there is one. */
static const char *other_spelling(char *buf, size_t cap, const char *lead, const char *given,
                                  const char *other) {
  buf[0] = '\0';
  if (strcmp(given, other) != 0)
    snprintf(buf, cap, " (%s %s)", lead, other);
  return buf;
}

tp_status tpi_output_run_input(const char *name, dev_t dev, ino_t ino) {
  pthread_mutex_lock(&run_lock);
  tp_status st = TP_SUCCESS;
  const run_output *o = run.active ? output_that_is(dev, ino) : NULL;
  char as[PATH_MAX + 16];
  if (o)
    st = TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "%s is also one of this run's outputs%s, which would replace it; "
                  "choose another output name",
                  name, other_spelling(as, sizeof as, "as", name, o->path));
  /* listed also when refused, so that no set of the run commits over it */
  int room = run.inputs_n < run.inputs_cap;
  if (run.active && !room) {
    size_t cap = run.inputs_cap ? 2 * run.inputs_cap : 8;
    run_input *p = (run_input *)realloc(run.inputs, cap * sizeof *p);
    if (p)
      run.inputs = p, run.inputs_cap = cap, room = 1;
    else if (st == TP_SUCCESS)
      st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to list the run's inputs");
  }
  if (run.active && room) {
    run.inputs[run.inputs_n].dev = dev;
    run.inputs[run.inputs_n++].ino = ino;
  }
  pthread_mutex_unlock(&run_lock);
  return st;
}

int tpi_output_run_is_input(const struct stat *st) {
  pthread_mutex_lock(&run_lock);
  int found = 0;
  for (size_t i = 0; run.active && i < run.inputs_n && !found; ++i)
    found = same_file(st, run.inputs[i].dev, run.inputs[i].ino);
  pthread_mutex_unlock(&run_lock);
  return found;
}

/* Whether two outputs name one file: by identity where both exist, else by key. */
static int same_output(const run_output *o, const char *path, const char *key) {
  struct stat a, b;
  if (stat(o->path, &a) == 0 && stat(path, &b) == 0)
    return same_file(&a, b.st_dev, b.st_ino);
  return key && o->key && strcmp(key, o->key) == 0;
}

tp_status tpi_output_run_claim(const void *set, const char *path) {
  pthread_mutex_lock(&run_lock);
  tp_status st = TP_SUCCESS;
  char *key = run.active ? key_of(path) : NULL, as[PATH_MAX + 16];
  for (size_t i = 0; run.active && i < run.outputs_n && st == TP_SUCCESS; ++i)
    if (run.outputs[i].set != set && same_output(&run.outputs[i], path, key))
      st = TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%s is named twice among this run's outputs%s: one would replace the "
                    "other; give each output its own name",
                    path, other_spelling(as, sizeof as, "also as", path, run.outputs[i].path));
  if (st == TP_SUCCESS && run.active && run.outputs_n == run.outputs_cap) {
    size_t cap = run.outputs_cap ? 2 * run.outputs_cap : 8;
    run_output *p = (run_output *)realloc(run.outputs, cap * sizeof *p);
    if (!p)
      st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to list the run's outputs");
    else
      run.outputs = p, run.outputs_cap = cap;
  }
  char *copy = st == TP_SUCCESS && run.active ? strdup(path) : NULL;
  if (st == TP_SUCCESS && run.active && !copy)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to list the run's outputs");
  if (st == TP_SUCCESS && run.active) {
    run_output *o = &run.outputs[run.outputs_n++];
    o->path = copy, o->key = key, o->set = set;
    key = NULL;
  }
  free(key);
  pthread_mutex_unlock(&run_lock);
  return st;
}

void tpi_output_run_release(const void *set) {
  pthread_mutex_lock(&run_lock);
  size_t kept = 0;
  for (size_t i = 0; i < run.outputs_n; ++i) {
    if (run.outputs[i].set == set)
      free(run.outputs[i].path), free(run.outputs[i].key);
    else
      run.outputs[kept++] = run.outputs[i];
  }
  run.outputs_n = kept;
  pthread_mutex_unlock(&run_lock);
}
