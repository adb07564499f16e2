/* Option values of the tenport commands: each parser checks a whole string and, when it
 * is not valid, records what the option accepts, so that every usage error says what
 * was given and what would have been taken ("--rank '0': expected an integer from 1 to
 * 1048576"). */
#ifndef TENPORT_OPTIONS_H
#define TENPORT_OPTIONS_H

#include <stdint.h>

/* Each returns 1 when s is valid (then *out is set), else 0 with the accepted values
 * recorded for tenport_option_error. */
int tenport_parse_int(const char *s, long lo, long hi, int *out);
int tenport_parse_u64(const char *s, uint64_t *out);
/* A finite number. */
int tenport_parse_double(const char *s, double *out);
/* A finite number in [lo, hi]; lo_open/hi_open exclude the bound (hi may be INFINITY). */
int tenport_parse_number(const char *s, double lo, int lo_open, double hi, int hi_open,
                         double *out);
/* One of n names; *index receives its position. */
int tenport_parse_choice(const char *s, const char *const *names, int n, int *index);
/* "f64" (index 0) or "f32" (index 1), for tenport_parse_choice. */
extern const char *const tenport_precisions[2];
/* f32 or f64, kept as the text. */
int tenport_parse_precision(const char *s, const char **out);
/* A non-empty string. */
int tenport_parse_text(const char *s, const char **out);

/* --index-base: "0", "1" or "auto" (TP_TNS_INDEX_AUTO). */
int tenport_parse_index_base(const char *s, int *out);

/* Records what an option accepts, for a check the parsers above do not make; returns 0 so
 * that `return tenport_expected("an even number from 2 to 16");` rejects the value. */
int tenport_expected(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The value of the option at argv[i]: argv[i + 1], or NULL when there is none or it is
 * another option ("--name", so that "--input --rank 3" reports the missing input). */
const char *tenport_option_value(int argc, char **argv, int i);

/* Reports an option whose parse result r was negative (unknown option) or zero (a value
 * that is not valid), or that had no value (value NULL); returns 2, the usage-error exit
 * code, or 0 when the value was taken. */
int tenport_option_error(const char *cmd, const char *opt, int r, const char *value);

/* A command's arguments argv[1..]: --help or -h returns 1; each flag(ctx, a) that says
 * 1 is a flag; any other argument takes the next as its value, value(ctx, a, v) saying 1
 * (valid), 0 (invalid) or -1 (unknown option). Returns 0, 1, or 2 after a usage error
 * (reported by tenport_option_error). */
typedef int (*tenport_flag_fn)(void *ctx, const char *a);
typedef int (*tenport_value_fn)(void *ctx, const char *a, const char *v);
int tenport_parse_options(const char *cmd, int argc, char **argv, void *ctx, tenport_flag_fn flag,
                          tenport_value_fn value);

#endif
