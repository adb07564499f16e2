/* libFuzzer target for the tenport command itself, run in process through tenport_main
 * (tools/tenport/dispatch.c): its option parsing, its format sniffing and the readers
 * behind each command, its output sets.
 *
 * An input is a command line and a file:
 *     WORD \0 ARG \0 ARG \0 ... \0 \0 PAYLOAD
 * WORD is one of convert, cp-als, cp-apr, sttid, sshopm, peaks, --help and version (anything else
 * is skipped); the arguments end at the first empty one (or at the end of the input).
 * PAYLOAD is written to the file "in" of a private folder, made once by
 * LLVMFuzzerInitialize, the current directory while the command runs and emptied after
 * every run. In the arguments, "@" stands
 * for "in" and "%" for an empty argument. Standard input is /dev/null.
 *
 * So that every run is short and stays in the folder, the harness
 *   - skips arguments with a '/' or longer than 64 bytes, and more than 24 of them;
 *   - skips values above small caps: --rank 6, --maxiters 50, --max-iters and --maxits
 *     100, --max-inner 10, --starts 16, --rmax 8, --max-peaks 8, and --dims or --shape of
 *     more than 2^16 entries; and any of those options, --output or --init written as
 *     "--name=value" (the caps and the renaming below read separate values);
 *   - skips a payload that reads as a sparse tensor with more than 2^16 rows in all
 *     modes: its dims cost nothing in the file, but each row costs every iteration (a
 *     mode of 2^24 rows takes the instrumented cp-als past the timeout);
 *   - skips distributed cp-als (--distributed, or --gen-dims with --gen-nnz): MPI is
 *     started at most once in a process;
 *   - puts "--starts 8 --maxits 100" first for sshopm and peaks (their defaults are 128 or
 *     64 starts of up to 1000 or 500 iterations; a later --starts or --maxits wins), and
 *     "--max-iters 20 --max-inner 5" for cp-apr (1000 iterations of 10 by default);
 *   - replaces the value of --output by "out" (keeping a .tns, .tpb, .npy, .tci or .txt
 *     ending, and .gz after one or alone)
 *     and that of --init by "init", "@" staying "in".
 * The bench, info, demo and gen commands are not run (fixed or unbounded work).
 *
 * After each run: the exit code is 0, 1 or 2; "in" holds the payload still (an input is
 * never replaced); no temporary of an output set is left (".*.tenport-tmp"); and a run
 * that failed (2, or 1 without --check-fit / --check-error, which fail after writing)
 * wrote nothing.
 *
 * Run it with -close_fd_mask=3 (the command prints); to replay an input with its
 * messages: build/fuzz/tests/fuzz/fuzz_cli FILE (tools/ci/fuzz.sh says the same).
 * Built by tests/fuzz/meson.build and run by tools/ci/fuzz.sh. Compiled with
 * -DFUZZ_CLI_WRITE_SEEDS it is instead a program that writes a seed corpus into the
 * directory named by its argument. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/tenport.h"

enum { MAX_ARGS = 24, MAX_ARG_LEN = 64 };

#ifndef FUZZ_CLI_WRITE_SEEDS

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/tenport/dispatch.h"

static void check(int ok) {
  if (!ok)
    abort(); /* libFuzzer reports it as a crash and keeps the input */
}

static char folder[64];
static int folder_fd = -1, home_fd = -1; /* the private folder, the starting directory */

/* Removes everything in the current folder (one level of subfolders too). */
static void empty_folder(void) {
  DIR *d = opendir(".");
  check(d != NULL);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    if (unlink(e->d_name) != 0) {
      DIR *sub = opendir(e->d_name);
      for (struct dirent *f; sub && (f = readdir(sub)) != NULL;) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", e->d_name, f->d_name);
        unlink(path);
      }
      if (sub)
        closedir(sub);
      rmdir(e->d_name);
    }
  }
  closedir(d);
}

static void remove_folder(void) {
  if (folder_fd >= 0 && fchdir(folder_fd) == 0) {
    empty_folder();
    if (fchdir(home_fd) == 0)
      rmdir(folder);
  }
}

/* The folder is the current directory only while a command runs: libFuzzer reads and
 * writes its corpus, dictionary and artifacts relative to where it was started. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(folder, sizeof folder, "%s/tenport-fuzz-cli-XXXXXX",
           tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
  if (!mkdtemp(folder) || (folder_fd = open(folder, O_RDONLY | O_DIRECTORY)) < 0 ||
      (home_fd = open(".", O_RDONLY | O_DIRECTORY)) < 0) {
    perror("fuzz_cli: the temporary folder");
    exit(1);
  }
  atexit(remove_folder);
  int null = open("/dev/null", O_RDONLY);
  if (null < 0 || dup2(null, STDIN_FILENO) < 0) {
    perror("fuzz_cli: /dev/null as standard input");
    exit(1);
  }
  close(null);
  /* What a tensor may take, so that a file claiming huge dims is refused quickly. */
  setenv("TENPORT_HOST_MEMORY_LIMIT", "256M", 1);
  setenv("TENPORT_NO_PROGRESS", "1", 1);
  return 0;
}

static const char *const words[] = {"convert", "cp-als", "cp-apr", "sttid",
                                    "sshopm",  "peaks",  "--help", "version"};

typedef struct cap {
  const char *option;
  double most;
} cap;

static const cap caps[] = {{"--rank", 6},     {"--maxiters", 50},  {"--max-iters", 100},
                           {"--maxits", 100}, {"--max-inner", 10}, {"--starts", 16},
                           {"--rmax", 8},     {"--max-peaks", 8}};

/* An argument the command reads as an option's value (not "--name"). */
static int is_value(const char *v) { return !(v[0] == '-' && v[1] == '-' && v[2] != '\0'); }

/* The product of the numbers in a --dims or --shape value, saturated. */
static double dims_product(const char *v) {
  double p = 1;
  for (const char *s = v; *s;) {
    if (*s >= '0' && *s <= '9') {
      char *end;
      p *= strtod(s, &end);
      s = end > s ? end : s + 1;
    } else {
      ++s;
    }
  }
  return p;
}

static const char *ending(const char *v) {
  static const char *const kept[] = {".tns.gz", ".tpb.gz", ".npy.gz", ".txt.gz", ".tns",
                                     ".tpb",    ".npy",    ".tci",    ".txt",    ".gz"};
  size_t n = strlen(v);
  for (size_t k = 0; k < sizeof kept / sizeof kept[0]; ++k)
    if (n >= strlen(kept[k]) && !strcmp(v + n - strlen(kept[k]), kept[k]))
      return kept[k];
  return "";
}

/* 1 when the arguments ask for little work; rewrites output names. */
/* "--name=value" of an option the harness caps or renames. */
static int joined_watched(const char *a) {
  const char *eq = strchr(a, '=');
  if (a[0] != '-' || a[1] != '-' || !eq)
    return 0;
  static const char *const renamed[4] = {"--dims", "--shape", "--output", "--init"};
  const size_t n = (size_t)(eq - a);
  for (size_t k = 0; k < sizeof caps / sizeof caps[0]; ++k)
    if (strlen(caps[k].option) == n && !strncmp(a, caps[k].option, n))
      return 1;
  for (size_t k = 0; k < 4; ++k)
    if (strlen(renamed[k]) == n && !strncmp(a, renamed[k], n))
      return 1;
  return 0;
}

static int tame(int argc, char **argv, char (*store)[MAX_ARG_LEN + 8]) {
  for (int i = 2; i < argc; ++i)
    if (joined_watched(argv[i]))
      return 0;
  for (int i = 2; i + 1 < argc; ++i) {
    const char *a = argv[i], *v = argv[i + 1];
    if (!is_value(v))
      continue;
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; ++k)
      if (!strcmp(a, caps[k].option) && strtod(v, NULL) > caps[k].most)
        return 0;
    if ((!strcmp(a, "--dims") || !strcmp(a, "--shape")) && dims_product(v) > 65536)
      return 0;
    if (!strcmp(a, "--output") && strcmp(v, "in") != 0) {
      snprintf(store[i + 1], sizeof store[i + 1], "out%s", ending(v));
      argv[i + 1] = store[i + 1];
    }
    if (!strcmp(a, "--init") && strcmp(v, "in") != 0)
      argv[i + 1] = strcpy(store[i + 1], "init");
  }
  return 1;
}

static int has_arg(int argc, char **argv, const char *a) {
  for (int i = 2; i < argc; ++i)
    if (!strcmp(argv[i], a))
      return 1;
  return 0;
}

/* 1 unless "in" reads as a sparse tensor whose modes have more than 2^16 rows in all. */
static int sparse_rows_few(void) {
  tp_input *in = NULL;
  if (tp_input_open(&in, "in") != TP_SUCCESS)
    return 1;
  tp_coo t;
  tp_status st = tp_coo_read_input(in, TP_DTYPE_F64, 0, NULL, &t, NULL);
  tp_input_close(&in);
  tp_clear_error();
  if (st != TP_SUCCESS)
    return 1;       /* not sparse, or refused: the command meets the same */
  int64_t rows = 0; /* saturates: dims may be near 2^63 */
  for (int m = 0; m < t.order && rows <= 65536; ++m)
    rows = t.dims[m] > 65536 - rows ? 65537 : rows + t.dims[m];
  (void)tp_coo_free(NULL, &t);
  return rows <= 65536;
}

static void write_payload(const uint8_t *p, size_t n) {
  FILE *f = fopen("in", "wb");
  check(f != NULL);
  check(n == 0 || fwrite(p, 1, n, f) == n);
  check(fclose(f) == 0);
}

/* "in" still holds the payload. */
static void check_input(const uint8_t *p, size_t n) {
  FILE *f = fopen("in", "rb");
  check(f != NULL);
  unsigned char buf[4096];
  size_t at = 0, got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    check(at + got <= n && memcmp(buf, p + at, got) == 0);
    at += got;
  }
  fclose(f);
  check(at == n);
}

/* No temporary of an output set is left; *others receives how many files besides "in"
 * there are. */
/* The value of option a (its last), or NULL. */
static const char *arg_value(int argc, char **argv, const char *a) {
  const char *v = NULL;
  for (int i = 2; i + 1 < argc; ++i)
    if (!strcmp(argv[i], a))
      v = argv[i + 1];
  return v;
}

/* Counts the files a run left beside its input, but for its --json summary (written
 * when the run fails too); none may be a temporary. */
static void check_folder(int *others, const char *summary) {
  DIR *d = opendir(".");
  check(d != NULL);
  *others = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "in") ||
        (summary && !strcmp(e->d_name, summary)))
      continue;
    size_t n = strlen(e->d_name);
    check(!(n > 12 && !strcmp(e->d_name + n - 12, ".tenport-tmp")));
    ++*others;
  }
  closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Copies n bytes of text into the next row of args and appends it to argv. */
static char *push(char **argv, int *argc, char (*args)[MAX_ARG_LEN + 8], const void *text,
                  size_t n) {
  char *a = args[*argc];
  memcpy(a, text, n);
  a[n] = '\0';
  return argv[(*argc)++] = a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char args[MAX_ARGS + 8][MAX_ARG_LEN + 8], rewritten[MAX_ARGS + 8][MAX_ARG_LEN + 8];
  char *argv[MAX_ARGS + 8];
  int argc = 0;
  push(argv, &argc, args, "tenport", 7);
  size_t at = 0;
  int ended = 0;
  while (at < size && !ended) {
    const uint8_t *nul = (const uint8_t *)memchr(data + at, 0, size - at);
    size_t len = (nul ? (size_t)(nul - data) : size) - at;
    if (len == 0) {
      ended = 1;
    } else {
      if (len > MAX_ARG_LEN || argc >= MAX_ARGS + 2 || memchr(data + at, '/', len))
        return -1;
      char *a = push(argv, &argc, args, data + at, len);
      if (argc == 2) {
        int known = 0;
        for (size_t k = 0; k < sizeof words / sizeof words[0]; ++k)
          known = known || !strcmp(a, words[k]);
        if (!known)
          return -1;
        if (!strcmp(a, "sshopm") || !strcmp(a, "peaks")) {
          static const char *const limits[4] = {"--starts", "8", "--maxits", "100"};
          for (int k = 0; k < 4; ++k)
            push(argv, &argc, args, limits[k], strlen(limits[k]));
        }
        if (!strcmp(a, "cp-apr")) {
          static const char *const limits[4] = {"--max-iters", "20", "--max-inner", "5"};
          for (int k = 0; k < 4; ++k)
            push(argv, &argc, args, limits[k], strlen(limits[k]));
        }
      } else if (!strcmp(a, "@")) {
        strcpy(a, "in");
      } else if (!strcmp(a, "%")) {
        a[0] = '\0';
      }
    }
    at += len + 1;
  }
  if (argc < 2 || !tame(argc, argv, rewritten))
    return -1;
  /* Distributed cp-als (MPI_Init) runs once per process at most. */
  if (has_arg(argc, argv, "--distributed") ||
      (has_arg(argc, argv, "--gen-nnz") && has_arg(argc, argv, "--gen-dims")))
    return -1;
  argv[argc] = NULL;

  const uint8_t *payload = data + (at < size ? at : size);
  size_t n = (size_t)(data + size - payload);
  check(fchdir(folder_fd) == 0);
  write_payload(payload, n);
  if (!sparse_rows_few()) {
    empty_folder();
    check(fchdir(home_fd) == 0);
    return -1;
  }
  tp_clear_error();
  int code = tenport_main(argc, argv);
  fflush(stdout);
  fprintf(stderr, "fuzz_cli: tenport exited with %d\n", code); /* seen on a replay */
  check(code == 0 || code == 1 || code == 2);
  const char *summary = arg_value(argc, argv, "--json");
  /* The payload is the run's input unless only --json names it: then replacing it with
   * the summary is what was asked for. */
  int named = 0;
  for (int i = 2; i < argc; ++i)
    named |= !strcmp(argv[i], "in") && !(summary == argv[i]);
  if (named || !summary || strcmp(summary, "in") != 0)
    check_input(payload, n);
  int others = 0;
  check_folder(&others, summary && strchr(summary, '/') ? strrchr(summary, '/') + 1 : summary);
  if (code == 2 ||
      (code == 1 && !has_arg(argc, argv, "--check-fit") && !has_arg(argc, argv, "--check-error")))
    check(others == 0);
  empty_folder();
  check(fchdir(home_fd) == 0);
  return 0;
}

#else

static const char *seed_dir;
static int seed_count;

/* One corpus entry: the arguments (NUL-separated, NULL-terminated list), an empty
 * argument, then the payload. */
static int write_seed(const char *const *args, const void *payload, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/cli_%02d", seed_dir, seed_count++);
  FILE *f = fopen(path, "wb");
  int ok = f != NULL;
  for (int i = 0; ok && args[i]; ++i)
    ok = fwrite(args[i], 1, strlen(args[i]) + 1, f) == strlen(args[i]) + 1;
  ok = ok && fputc('\0', f) != EOF && (n == 0 || fwrite(payload, 1, n, f) == n);
  if (f && fclose(f) != 0)
    ok = 0;
  if (!ok)
    perror(path);
  return ok;
}

/* The bytes of a file the library wrote at path (removed afterwards). */
static size_t slurp(const char *path, unsigned char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, cap, f) : 0;
  if (f)
    fclose(f);
  remove(path);
  if (n == 0)
    fprintf(stderr, "%s: %s\n", path, tp_last_error());
  return n;
}

static size_t npy_bytes(tp_dtype dtype, int ndim, const int64_t *shape, int fortran,
                        const void *values, unsigned char *buf, size_t cap) {
  char path[4096];
  snprintf(path, sizeof path, "%s/npy.tmp", seed_dir);
  if (tp_npy_write(path, dtype, ndim, shape, fortran, values) != TP_SUCCESS)
    return 0;
  return slurp(path, buf, cap);
}

static size_t tpb_bytes(tp_dtype dtype, unsigned char *buf, size_t cap) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tpb.tmp", seed_dir);
  const int64_t dims[3] = {4, 5, 3};
  tp_coo t;
  if (tp_coo_alloc(NULL, dtype, 3, dims, 6, &t) != TP_SUCCESS)
    return 0;
  for (int64_t k = 0; k < 6; ++k) {
    for (int m = 0; m < 3; ++m)
      t.indices[m][k] = (k * 5 + m * 3 + k / 2) % dims[m];
    if (dtype == TP_DTYPE_F32)
      ((float *)t.values)[k] = 1.5f - (float)k;
    else
      ((double *)t.values)[k] = 1.5 - (double)k;
  }
  tp_status st = tp_coo_sum_duplicates(&t, NULL);
  if (st == TP_SUCCESS)
    st = tp_coo_write_binary(path, &t);
  tp_coo_free(NULL, &t);
  return st == TP_SUCCESS ? slurp(path, buf, cap) : 0;
}

#define SEED(payload, n, ...) write_seed((const char *const[]){__VA_ARGS__, NULL}, payload, n)

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  seed_dir = argv[1];
  static unsigned char npy3[4096], npy_f32[4096], sym[4096], sym2[4096], sh[4096], tpb[4096],
      tpb32[4096];
  double d[60], kr[15] = {0.2883, -0.0031, 0.1973, -0.2485, -0.2939, 0.3847, 0.2972, 0.1862,
                          0.0919, -0.3619, 0.1241, -0.3420, 0.2127,  0.2727, -0.3054};
  float s[60];
  for (int i = 0; i < 60; ++i)
    d[i] = 1.0 + 0.5 * ((i * 7) % 11) - 0.1 * i, s[i] = (float)d[i];
  double shc[12] = {1.0, 0.1, -0.2, 0.3, 0.05, -0.1, 0.8, -0.3, 0.2, 0.1, 0.0, 0.25};
  const int64_t s345[3] = {3, 4, 5}, s45[2] = {4, 5}, s15[1] = {15}, s24[2] = {2, 4},
                s26[2] = {2, 6};
  size_t n_npy3 = npy_bytes(TP_DTYPE_F64, 3, s345, 0, d, npy3, sizeof npy3),
         n_npy_f32 = npy_bytes(TP_DTYPE_F32, 2, s45, 1, s, npy_f32, sizeof npy_f32),
         n_sym = npy_bytes(TP_DTYPE_F64, 1, s15, 0, kr, sym, sizeof sym),
         n_sym2 = npy_bytes(TP_DTYPE_F32, 2, s24, 0, s, sym2, sizeof sym2),
         n_sh = npy_bytes(TP_DTYPE_F64, 2, s26, 0, shc, sh, sizeof sh),
         n_tpb = tpb_bytes(TP_DTYPE_F64, tpb, sizeof tpb),
         n_tpb32 = tpb_bytes(TP_DTYPE_F32, tpb32, sizeof tpb32);
  if (!n_npy3 || !n_npy_f32 || !n_sym || !n_sym2 || !n_sh || !n_tpb || !n_tpb32)
    return 1;
  const char tns[] = "# a small sparse tensor\n1 1 1 1.5\n2 3 1 -2\n4 5 3 0.25\n3 2 2 4e-1\n"
                     "1 5 2 -0.75\n2 3 1 1\n";
  const size_t n_tns = sizeof tns - 1;
  const char tns2[] = "1 2 3.0\n3 1 -1\n2 2 0.5\n";
  const unsigned char gzip[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03};
  const char bad_magic[] = "TPCOX\x00\x00\x01\x03\x00\x00\x00";
  const char dense_text[] = "# dense text\ntensor\n3\n2 3 2\n1\n0.25\n0\n-2\n3e-1\n0\n0.5\n"
                            "7\n0\n-1.5\n2\n0.125\n";
  const size_t n_dense_text = sizeof dense_text - 1;
  const char header_line[] = "3 20 20 20\n1 1 1 1.0\n2 2 2 2.0\n";
  const char zero_based[] = "sptensor indices-start-at-zero\n3\n9 9 9\n2\n0 0 0 1\n3 1 2 2\n";
  int ok =
      /* a run's files: --json beside -o and the input, headers of every form */
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--json", "out.json") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--json", "@",
           "--force") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--json", "out.tns") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--json", "-") &&
      SEED(header_line, sizeof header_line - 1, "convert", "--input", "@", "--output", "out.tns") &&
      SEED(zero_based, sizeof zero_based - 1, "convert", "--input", "@", "--output", "out.tns",
           "--no-header-out") &&
      SEED(zero_based, sizeof zero_based - 1, "cp-als", "--input", "@", "--rank", "2", "--history",
           "h.json", "--json", "h.json") &&
      /* convert: every format in, both out */
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tpb") &&
      SEED(tpb, n_tpb, "convert", "--input", "@", "--output", "out.tns") &&
      SEED(tpb32, n_tpb32, "convert", "--input", "@", "--output", "out.tpb", "--precision",
           "f64") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--dims", "4x5x3") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--dims", "2x2x2") &&
      SEED(tns2, sizeof tns2 - 1, "convert", "--input", "@", "--output", "out.tpb", "--precision",
           "f32") &&
      SEED(npy3, n_npy3, "convert", "--input", "@", "--output", "out.tns") &&
      SEED(gzip, sizeof gzip, "convert", "--input", "@", "--output", "out.tns") &&
      SEED(bad_magic, sizeof bad_magic - 1, "convert", "--input", "@", "--output", "out.tns") &&
      SEED("", 0, "convert", "--input", "@", "--output", "out.tns") &&
      SEED("", 0, "convert", "--input", "-", "--output", "out.tpb") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "@") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.txt") &&
      SEED(tns, n_tns, "convert", "--input", "missing", "--output", "out.tns") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "%") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--precision", "f16") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--dims", "4x0x3") &&
      /* convert: dense text and the sparse <-> dense ways, gzip outputs */
      SEED(dense_text, n_dense_text, "convert", "--input", "@", "--output", "out.npy") &&
      SEED(dense_text, n_dense_text, "convert", "--input", "@", "--output", "out.tns.gz",
           "--drop-below", "0.3") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.txt", "--format", "tensor",
           "--max-elements", "60") &&
      SEED(tns, n_tns, "convert", "--input", "@", "--output", "out.tns", "--format", "sptensor",
           "--output-index-base", "0") &&
      SEED(npy3, n_npy3, "convert", "--input", "@", "--output", "out.txt.gz", "--format", "tensor",
           "--precision", "f32") &&
      SEED(npy3, n_npy3, "convert", "--input", "@", "--output", "out.npy", "--format", "tpb") &&
      SEED(dense_text, n_dense_text, "cp-als", "--input", "@", "--rank", "2", "--maxiters", "5") &&
      /* cp-als: dense and sparse inputs */
      SEED(npy3, n_npy3, "cp-als", "--input", "@", "--rank", "2", "--output", "model") &&
      SEED(npy_f32, n_npy_f32, "cp-als", "--input", "@", "--rank", "2", "--maxiters", "5",
           "--precision", "f64", "--mttkrp", "gemm", "--seed", "7") &&
      SEED(npy3, n_npy3, "cp-als", "--input", "@", "--rank", "3", "--mttkrp", "elem", "--no-reuse",
           "--quiet", "--tol", "0") &&
      SEED(npy3, n_npy3, "cp-als", "--input", "@", "--rank", "2", "--check-fit", "0.5", "--output",
           "model") &&
      SEED(npy3, n_npy3, "cp-als", "--input", "@", "--rank", "2", "--init", "model") &&
      SEED(tns, n_tns, "cp-als", "--input", "@", "--rank", "2", "--output", "model") &&
      SEED(tpb32, n_tpb32, "cp-als", "--input", "@", "--rank", "1", "--maxiters", "3") &&
      SEED(npy3, n_npy3, "cp-als", "--input", "@", "--rank", "0") &&
      SEED(npy3, n_npy3, "cp-als", "--input", "@", "--rank", "2", "--tol", "-1") &&
      SEED(npy3, n_npy3, "cp-als", "--input", "@", "--rank", "2", "--check-fit", "2") &&
      SEED(npy3, n_npy3, "cp-als", "--input", "@", "--rank", "2", "--mttkrp", "fast") &&
      /* cp-apr: counts, sparse and dense, and its refusals */
      SEED(tns, n_tns, "cp-apr", "--input", "@", "--rank", "2", "--output", "model") &&
      SEED(npy3, n_npy3, "cp-apr", "--input", "@", "--rank", "2", "--inadmissible-phi", "0") &&
      SEED(tpb32, n_tpb32, "cp-apr", "--input", "@", "--rank", "1", "--max-iters", "3") &&
      SEED(tns, n_tns, "cp-apr", "--input", "@", "--rank", "2", "--max-inner", "0") &&
      SEED(sym, n_sym, "cp-als", "--input", "@", "--rank", "2") &&
      SEED(gzip, sizeof gzip, "cp-als", "--input", "@", "--rank", "2") &&
      /* sttid */
      SEED(tns, n_tns, "sttid", "--input", "@", "--rmax", "3", "--eps", "0", "--output", "tt") &&
      SEED(tpb, n_tpb, "sttid", "--input", "@", "--rmax", "2", "--eps", "1e-3", "--eps-relative",
           "--dims", "4,5,3", "--check-error", "0.5") &&
      SEED(tns2, sizeof tns2 - 1, "sttid", "--input", "@", "--rmax", "4", "--eps", "0",
           "--no-error", "--quiet", "--backend-info") &&
      SEED(npy3, n_npy3, "sttid", "--input", "@", "--rmax", "2", "--eps", "0") &&
      SEED(tns, n_tns, "sttid", "--input", "@", "--rmax", "0", "--eps", "0") &&
      SEED(tns, n_tns, "sttid", "--input", "@", "--rmax", "2", "--eps", "0", "--dims", "4") &&
      SEED(tns, n_tns, "sttid", "--input", "@", "--rmax", "2", "--eps", "0", "--no-error",
           "--check-error", "1") &&
      SEED("", 0, "sttid", "--input", "-", "--rmax", "2", "--eps", "0") &&
      /* sshopm */
      SEED(sym, n_sym, "sshopm", "--input", "@", "--order", "4", "--dim", "3", "--output", "eig") &&
      SEED(sym2, n_sym2, "sshopm", "--input", "@", "--order", "3", "--dim", "2", "--shift", "0.5",
           "--concave", "--precision", "f32", "--kernel", "generic", "--starts", "4") &&
      SEED(sym, n_sym, "sshopm", "--input", "@", "--order", "4", "--dim", "3", "--kernel",
           "unrolled", "--tol", "1e-8", "--xtol", "1e-6", "--maxits", "30", "--seed", "5") &&
      SEED(sym, n_sym, "sshopm", "--input", "@", "--order", "3", "--dim", "3") &&
      SEED(sym, n_sym, "sshopm", "--input", "@", "--order", "1", "--dim", "3") &&
      SEED(sym, n_sym, "sshopm", "--input", "@", "--order", "4", "--dim", "3", "--shift", "nan") &&
      SEED("", 0, "sshopm", "--example") &&
      /* peaks */
      SEED(sh, n_sh, "peaks", "--sh", "@", "--output", "pk") &&
      SEED(sh, n_sh, "peaks", "--sh", "@", "--lmax", "2", "--max-peaks", "2", "--precision", "f64",
           "--min-amplitude", "0.5") &&
      SEED(sh, n_sh, "peaks", "--sh", "@", "--lmax", "3") &&
      SEED(npy3, n_npy3, "peaks", "--sh", "@", "--lmax", "4") &&
      SEED(tns, n_tns, "peaks", "--sh", "@") &&
      /* help, version, usage errors */
      SEED("", 0, "--help") && SEED("", 0, "version") && SEED("", 0, "convert", "--help") &&
      SEED("", 0, "cp-als", "--help") && SEED("", 0, "sttid", "--help") &&
      SEED("", 0, "sshopm", "--help") && SEED("", 0, "peaks", "-h") &&
      SEED("", 0, "cp-als", "--input") && SEED("", 0, "cp-als", "--bogus", "1") &&
      SEED("", 0, "sttid", "--input", "--rmax", "2");
  return ok ? 0 : 1;
}

#endif
