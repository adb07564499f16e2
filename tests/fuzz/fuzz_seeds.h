/* The seed corpus a fuzz target's source writes when compiled as its seed writer
 * (-DFUZZ_<NAME>_WRITE_SEEDS, tests/fuzz/meson.build): files in the folder the program
 * is given, each led by the selector byte the target reads first where it reads one. */
#ifndef FUZZ_SEEDS_H
#define FUZZ_SEEDS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The corpus folder (the seed writer's argument). */
static const char *fuzz_seed_dir;

/* head (hn bytes; hn may be 0) then bytes (n) as the file name of the corpus; 1 on
 * success, else 0 after a message naming the file. */
static inline int fuzz_write_file(const char *name, const void *head, size_t hn, const void *bytes,
                                  size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", fuzz_seed_dir, name);
  FILE *f = fopen(path, "wb");
  int ok =
      f && (hn == 0 || fwrite(head, 1, hn, f) == hn) && (n == 0 || fwrite(bytes, 1, n, f) == n);
  if (f && fclose(f) != 0)
    ok = 0;
  if (!ok)
    perror(path);
  return ok;
}

/* A corpus entry of a target that reads a selector byte first. */
static inline int fuzz_write_seed(const char *name, uint8_t select, const void *bytes, size_t n) {
  return fuzz_write_file(name, &select, 1, bytes, n);
}

static inline int fuzz_write_text(const char *name, uint8_t select, const char *text) {
  return fuzz_write_seed(name, select, text, strlen(text));
}

#endif
