/* JSON documents the commands write (--history, --json): built in memory with keys in
 * the order they are added, numbers printed so that they read back exactly (%.17g),
 * non-finite numbers as null, then written through an output set like any result. */
#ifndef TENPORT_CLI_JSON_H
#define TENPORT_CLI_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "tenport/files.h"

#define TENPORT_JSON_MAX_DEPTH 16

typedef struct tenport_json {
  char *text;
  size_t len, cap;
  int failed; /* out of memory at some point */
  int depth;
  int items[TENPORT_JSON_MAX_DEPTH];   /* values so far at each open level */
  char closer[TENPORT_JSON_MAX_DEPTH]; /* '}' or ']' for each open level */
} tenport_json;

/* An empty document, its top-level object opened. */
void tenport_json_begin(tenport_json *j);
void tenport_json_free(tenport_json *j);

/* Members of the object open now (key given) or items of the array open now (key NULL). */
void tenport_json_object(tenport_json *j, const char *key);
void tenport_json_array(tenport_json *j, const char *key);
void tenport_json_end(tenport_json *j); /* closes the innermost object or array */
void tenport_json_string(tenport_json *j, const char *key, const char *value); /* NULL: null */
void tenport_json_number(tenport_json *j, const char *key, double value);
void tenport_json_integer(tenport_json *j, const char *key, long long value);
void tenport_json_bool(tenport_json *j, const char *key, int value);

/* Closes every level still open and writes the document into the set as path
 * (TP_ERROR_OUT_OF_MEMORY when it could not be built whole). */
tp_status tenport_json_write(tenport_json *j, tp_output_set *set, const char *path);
/* The same document printed on out (--json -). */
tp_status tenport_json_print(tenport_json *j, FILE *out);

#endif
