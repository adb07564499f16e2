/* Subcommands of the tenport command-line tool. Each returns the process exit code:
 * 0 on success, 1 when the work failed, 2 on a usage error. */
#ifndef TENPORT_COMMANDS_H
#define TENPORT_COMMANDS_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/tenport/options.h"
#include "tenport/tenport.h"
#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_summary.h"

int tenport_cmd_info(int argc, char **argv);
int tenport_cmd_sshopm(int argc, char **argv);
int tenport_cmd_peaks(int argc, char **argv);
int tenport_cmd_gen(int argc, char **argv);
int tenport_cmd_cp_als(int argc, char **argv);
int tenport_cmd_gcp(int argc, char **argv);
int tenport_cmd_cp_apr(int argc, char **argv);
/* cp-als --mask (cp_als_mask.c): whether the command line asks for it, and the run, which
 * is gcp's Gaussian loss under the mask (CP-WOPT). */
int tenport_cp_als_has_mask(int argc, char **argv);
int tenport_cp_als_masked(int argc, char **argv);
int tenport_cmd_convert(int argc, char **argv);
int tenport_cmd_sttid(int argc, char **argv);
int tenport_cmd_bench(int argc, char **argv);
int tenport_cmd_demo(int argc, char **argv);
int tenport_cmd_version(int argc, char **argv);

/* ---- helpers shared by the subcommands' option parsing -------------------------- */

/* "401x201x12" (or "401,201,12") into *order sizes in dims, at most max_order, each an integer >= 1; 1 on
 * success, else 0 with the reason in why. */
static inline int tenport_parse_dims(const char *text, int max_order, int64_t *dims, int *order,
                                     char *why, size_t cap) {
  *order = 0;
  for (const char *p = text;; ++p) {
    const char *end = p;
    int64_t v = 0;
    int ok = *p >= '0' && *p <= '9';
    for (; *end >= '0' && *end <= '9'; ++end) {
      ok = ok && v <= (INT64_MAX - (*end - '0')) / 10;
      v = ok ? v * 10 + (*end - '0') : v;
    }
    if (*order == max_order) {
      snprintf(why, cap, "more than %d modes", max_order);
      return 0;
    }
    size_t len = strcspn(p, "x,");
    if (!ok && *p >= '0' && *p <= '9' && p + len == end) {
      snprintf(why, cap, "the size of mode %d ('%.*s') does not fit in 64 bits", *order,
               (int)(len < 40 ? len : 40), p);
      return 0;
    }
    if (!ok || v < 1 || (*end != 'x' && *end != ',' && *end != '\0')) {
      snprintf(why, cap, "size %d ('%.*s') is not an integer of at least 1", *order,
               (int)(len < 40 ? len : 40), p);
      return 0;
    }
    dims[(*order)++] = v;
    if (*end == '\0')
      return 1;
    p = end;
  }
}

/* Bytes of the longest shape text tenport_format_dims writes. */
#define TENPORT_DIMS_TEXT (TP_COO_MAX_ORDER * 21 + 4)

/* A shape as text, "401x201x12" ("()" for no modes), cut to fit cap bytes. */
static inline void tenport_format_dims(int order, const int64_t *dims, char *text, size_t cap) {
  size_t n = (size_t)snprintf(text, cap, "%s", order ? "" : "()");
  for (int m = 0; m < order && n < cap; ++m)
    n += (size_t)snprintf(text + n, cap - n, "%s%lld", m ? "x" : "", (long long)dims[m]);
}

/* The value text of a shape option opt (such as --dims: "I0xI1x...", or with commas) into
 * *order and dims, at most TP_COO_MAX_ORDER modes; 0, or 2 after a message naming cmd. */
static inline int tenport_parse_shape(const char *cmd, const char *opt, const char *text,
                                      int *order, int64_t *dims) {
  char buf[512], why[160];
  if (strlen(text) >= sizeof buf) {
    fprintf(stderr, "tenport %s: %s is too long\n", cmd, opt);
    return 2;
  }
  strcpy(buf, text);
  for (char *p = buf; *p; ++p)
    *p = *p == ',' ? 'x' : *p;
  if (tenport_parse_dims(buf, TP_COO_MAX_ORDER, dims, order, why, sizeof why))
    return 0;
  fprintf(stderr, "tenport %s: %s '%s': %s\n", cmd, opt, text, why);
  return 2;
}

/* The sparse file format a path names by its extension: 'b' for .tpb, 't' for .tns, or 0. */
static inline char tenport_coo_format(const char *path) {
  size_t n = strlen(path);
  if (n > 4 && !strcmp(path + n - 4, ".tpb"))
    return 'b';
  if (n > 4 && !strcmp(path + n - 4, ".tns"))
    return 't';
  return 0;
}

/* What a command's parser returned (0: run, 1: help was asked for, 2: a usage error,
 * reported), with its usage printed for 1: -1 when the command is to run, else its exit
 * status (0 or 2). */
static inline int tenport_parsed(int parsed, void (*usage)(FILE *out)) {
  if (parsed == 1)
    usage(stdout);
  return parsed == 0 ? -1 : parsed == 1 ? 0 : 2;
}

/* Prints "tenport CMD: " and the last tenport error (fallback when there is none);
 * returns 1, the exit code of failed work. */
static inline int tenport_fail(const char *cmd, const char *fallback) {
  const char *why = *tp_last_error() ? tp_last_error() : fallback;
  fprintf(stderr, "tenport %s: %s\n", cmd, why);
  tenport_summary_error(why);
  return 1;
}

/* Runs job(space, cli) in a space of its own, created and destroyed around it; returns
 * the job's exit code, or 1 when the space cannot be created or destroyed cleanly. */
typedef int (*tenport_job)(tp_space *space, void *cli);
static inline int tenport_run_in_space(const char *cmd, tenport_job job, void *cli) {
  tp_space *space = NULL;
  tp_space_options options = tenport_space_options();
  if (tp_space_create(&space, &options) != TP_SUCCESS)
    return tenport_fail(cmd, "cannot create a space");
  int code = job(space, cli);
  if (tp_space_destroy(&space) != TP_SUCCESS)
    code = tenport_fail(cmd, "the space did not shut down cleanly");
  return code;
}

/* Seconds on a monotonic clock. */
static inline double tenport_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
