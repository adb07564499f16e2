/* Tensor trains in TCI form as files: PREFIX.tci, a text manifest, and one FROSTT .tns
 * file per core, PREFIX.core<k>.tns (values with 17 digits, so they read back exactly).
 *
 * The manifest, one item per line ('#' starts a comment, blank lines are skipped):
 *   tenport-tci 1                      the format and its version
 *   order D
 *   dims n_0 ... n_{D-1}
 *   ranks 1 r_1 ... r_{D-1} 1
 *   bond k rows i_1 ... i_{r_{k+1}}    for k = 0..D-2: bond k's pivot rows of M_k,
 *   bond k cols j_1 ... j_{r_{k+1}}    then its pivot columns, in pivot order
 *
 * The files are one output set (tenport/files.h): written to temporaries and renamed over
 * their targets only when all are complete, the cores first and the manifest last, so a
 * failed write leaves the earlier tensor train whole. The reader trusts nothing: every count, rank and pivot is checked against the
 * others, with the file, line and problem in the message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"
#include "algorithms/sparse/tp_sparse_internal.h"
#include "algorithms/sttid/tp_tci_internal.h"

#define TCI_MAGIC "tenport-tci"
#define TCI_VERSION 1
/* A manifest lists every pivot: 2 x 16 bonds of up to millions of 20-digit indices. */
#define TCI_MANIFEST_MAX (1 << 30)

/* ---- shared by the writer and the reader ------------------------------------------ */

/* PREFIX.tci (core < 0) or PREFIX.core<k>.tns, malloc'ed. */
static tp_status tci_path(const char *prefix, int core, char **path) {
  size_t cap = strlen(prefix) + 32;
  *path = (char *)malloc(cap);
  if (!*path)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for a path under %s", prefix);
  if (core < 0)
    snprintf(*path, cap, "%s.tci", prefix);
  else
    snprintf(*path, cap, "%s.core%d.tns", prefix, core);
  return TP_SUCCESS;
}

static int64_t saturated_product(int64_t a, int64_t b) {
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* Rows of M_k (ranks[k] * dims[k]) and columns (prod(dims[k+1..d-1])), INT64_MAX when a
 * product does not fit: then every index >= 0 is within it. */
static int64_t bond_rows(const int64_t *dims, const int64_t *ranks, int k) {
  return saturated_product(ranks[k], dims[k]);
}

static int64_t bond_cols(const int64_t *dims, int order, int k) {
  int64_t p = 1;
  for (int m = k + 1; m < order; ++m)
    p = saturated_product(p, dims[m]);
  return p;
}

/* The largest rank bond k can have: a PRRLU of M_k stops at min(rows, cols). */
static int64_t rank_limit(const int64_t *dims, const int64_t *ranks, int order, int k) {
  int64_t rows = bond_rows(dims, ranks, k), cols = bond_cols(dims, order, k);
  return rows < cols ? rows : cols;
}

static int compare_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* 1 when some value of v[0..n) repeats (a repeated pivot makes X_k singular); *twice
 * receives it. Sorts a copy; -1 when there is no memory for it. */
static int find_repeat(const int64_t *v, int64_t n, int64_t *twice) {
  int64_t *s = (int64_t *)malloc((size_t)n * sizeof *s);
  if (!s)
    return -1;
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, compare_i64);
  int found = 0;
  for (int64_t a = 1; a < n && !found; ++a)
    if (s[a] == s[a - 1])
      found = 1, *twice = s[a];
  free(s);
  return found;
}

/* ---- writing ------------------------------------------------------------------------- */

/* What tpi_tci_check_contents leaves out: ranks within what the dims allow, and no
 * pivot row or column taken twice in a bond. */
static tp_status check_bonds(const tp_tci *t) {
  for (int k = 0; k + 1 < t->order; ++k) {
    int64_t r = t->ranks[k + 1], limit = rank_limit(t->dims, t->ranks, t->order, k), twice = 0;
    TP_CHECK_ARG(r <= limit,
                 "TCI: ranks[%d] = %lld exceeds %lld, the most bond %d's matrix "
                 "allows",
                 k + 1, (long long)r, (long long)limit, k);
    for (int side = 0; side < 2; ++side) {
      int rep = find_repeat(side ? t->pivot_cols[k] : t->pivot_rows[k], r, &twice);
      if (rep < 0)
        return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "TCI: no memory to check bond %d", k);
      TP_CHECK_ARG(!rep, "TCI: bond %d takes pivot %s %lld twice", k, side ? "column" : "row",
                   (long long)twice);
    }
  }
  return TP_SUCCESS;
}

/* " v_0 v_1 ... v_{n-1}\n" */
static void put_list(tpi_output *f, const int64_t *v, int64_t n) {
  char buf[32];
  for (int64_t a = 0; a < n; ++a) {
    snprintf(buf, sizeof buf, " %lld", (long long)v[a]);
    tpi_output_text(f, buf);
  }
  tpi_output_text(f, "\n");
}

static tp_status write_manifest(tpi_output *f, const void *what) {
  const tp_tci *t = (const tp_tci *)what;
  char buf[64];
  snprintf(buf, sizeof buf, "%s %d\norder %d\ndims", TCI_MAGIC, TCI_VERSION, t->order);
  tpi_output_text(f, buf);
  put_list(f, t->dims, t->order);
  tpi_output_text(f, "ranks");
  put_list(f, t->ranks, t->order + 1);
  for (int k = 0; k + 1 < t->order; ++k) {
    snprintf(buf, sizeof buf, "bond %d rows", k);
    tpi_output_text(f, buf);
    put_list(f, t->pivot_rows[k], t->ranks[k + 1]);
    snprintf(buf, sizeof buf, "bond %d cols", k);
    tpi_output_text(f, buf);
    put_list(f, t->pivot_cols[k], t->ranks[k + 1]);
  }
  return TP_SUCCESS;
}

/* Adds PREFIX.core<k>.tns for every core, then PREFIX.tci: the manifest is renamed last. */
tp_status tp_tci_reserve(tp_output_set *set, const char *prefix, int order) {
  TP_CHECK_ARG(set && prefix && *prefix, "tp_tci_reserve: set or prefix is NULL or empty");
  TP_CHECK_ARG(order >= 2 && order <= TP_COO_MAX_ORDER,
               "tp_tci_reserve: order %d is outside "
               "[2, %d]",
               order, TP_COO_MAX_ORDER);
  tp_status st = TP_SUCCESS;
  for (int k = 0; k <= order && st == TP_SUCCESS; ++k) {
    char *path = NULL;
    st = tci_path(prefix, k < order ? k : -1, &path);
    if (st == TP_SUCCESS)
      st = tp_output_set_add(set, path);
    free(path);
  }
  return st;
}

tp_status tp_tci_write_to(tp_output_set *set, const char *prefix, const tp_tci *t) {
  TP_CHECK_ARG(set, "tp_tci_write_to: the set is NULL");
  TP_CHECK_ARG(prefix && *prefix, "tp_tci_write: the prefix is NULL or empty");
  TP_TRY(tpi_tci_check_contents(t));
  TP_TRY(check_bonds(t));
  char *path = NULL;
  tp_status st = TP_SUCCESS;
  for (int k = 0; k < t->order && st == TP_SUCCESS; ++k) {
    st = tci_path(prefix, k, &path);
    if (st == TP_SUCCESS)
      st = tp_coo_write_tns_to(set, path, &t->cores[k]);
    free(path);
    path = NULL;
  }
  if (st == TP_SUCCESS)
    st = tci_path(prefix, -1, &path);
  if (st == TP_SUCCESS)
    st = tpi_output_write_in(set, path, write_manifest, t);
  free(path);
  return st;
}

tp_status tp_tci_write(const char *prefix, const tp_tci *t) {
  tp_output_set *set;
  TP_TRY(tp_output_set_create(&set));
  tp_status st = tp_tci_write_to(set, prefix, t);
  if (st == TP_SUCCESS)
    st = tp_output_set_commit(set);
  tp_output_set_destroy(&set);
  return st;
}

/* ---- reading the manifest: lines and fields ---------------------------------------- */

typedef struct manifest {
  const char *path;
  char *text;
  size_t size;
  const char *next;    /* where the next line starts */
  const char *p, *end; /* the current line's unread part, end at '\n', '#' or the end */
  int64_t line;        /* the current line's number (1-based) */
} manifest;

/* The whole manifest in memory, through a tp_input (a FIFO works too). */
static tp_status manifest_load(manifest *m, const char *path) {
  memset(m, 0, sizeof *m);
  m->path = path;
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  size_t cap = 4096, got = 0;
  tp_status st = TP_SUCCESS;
  m->text = (char *)malloc(cap);
  while (m->text && st == TP_SUCCESS) {
    st = tpi_input_read(in, m->text + m->size, cap - m->size, &got);
    m->size += got;
    if (m->size < cap)
      break;
    char *grown = cap <= TCI_MANIFEST_MAX / 2 ? (char *)realloc(m->text, cap * 2) : NULL;
    if (!grown)
      free(m->text);
    m->text = grown, cap *= 2;
  }
  tp_input_close(&in);
  if (st != TP_SUCCESS)
    return st;
  if (!m->text)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory to read it, or longer than %d bytes",
                    path, TCI_MANIFEST_MAX);
  m->next = m->text;
  return TP_SUCCESS;
}

static tp_status manifest_error(const manifest *m, const char *fmt, ...) {
  char why[320];
  va_list args;
  va_start(args, fmt);
  vsnprintf(why, sizeof why, fmt, args);
  va_end(args);
  if (m->line == 0)
    return TP_ERROR(TP_ERROR_FORMAT, "%s: %s", m->path, why);
  return TP_ERROR(TP_ERROR_FORMAT, "%s, line %lld: %s", m->path, (long long)m->line, why);
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static void skip_blanks(manifest *m) {
  while (m->p < m->end && is_blank(*m->p))
    ++m->p;
}

/* Moves to the next line holding something besides blanks and comments; 0 at the end. */
static int next_line(manifest *m) {
  const char *stop = m->text + m->size;
  while (m->next < stop) {
    const char *start = m->next, *nl = (const char *)memchr(start, '\n', (size_t)(stop - start));
    const char *hash = (const char *)memchr(start, '#', (size_t)((nl ? nl : stop) - start));
    m->next = nl ? nl + 1 : stop;
    ++m->line;
    m->p = start, m->end = hash ? hash : nl ? nl : stop;
    skip_blanks(m);
    if (m->p < m->end)
      return 1;
  }
  m->p = m->end = stop;
  return 0;
}

static size_t field_length(const manifest *m) {
  size_t n = 0;
  while (m->p + n < m->end && !is_blank(m->p[n]))
    ++n;
  return n;
}

/* The current field for a message: printable, cut at 24 bytes. */
static const char *field_text(const manifest *m, char buf[32]) {
  size_t n = field_length(m), shown = n < 24 ? n : 24;
  for (size_t i = 0; i < shown; ++i)
    buf[i] = m->p[i] >= 0x20 && m->p[i] < 0x7f ? m->p[i] : '?';
  strcpy(buf + shown, n > shown ? "..." : "");
  return buf;
}

static int64_t fields_left(manifest *m) {
  const char *save = m->p;
  int64_t n = 0;
  for (skip_blanks(m); m->p < m->end; skip_blanks(m), ++n)
    m->p += field_length(m);
  m->p = save;
  return n;
}

/* 1 when the next field is exactly word (then consumed). */
static int take_word(manifest *m, const char *word) {
  skip_blanks(m);
  size_t n = field_length(m);
  if (n != strlen(word) || memcmp(m->p, word, n) != 0)
    return 0;
  m->p += n;
  return 1;
}

/* A non-negative decimal integer field; what names it in the message. */
static tp_status take_integer(manifest *m, const char *what, int64_t *v) {
  char buf[32];
  skip_blanks(m);
  size_t n = field_length(m);
  int64_t x = 0;
  int ok = n > 0;
  for (size_t i = 0; i < n && ok; ++i) {
    int digit = m->p[i] - '0';
    ok = digit >= 0 && digit <= 9 && x <= (INT64_MAX - digit) / 10;
    x = ok ? x * 10 + digit : x;
  }
  if (!ok)
    return manifest_error(m, "%s: '%s' is not an integer in [0, 2^63)", what,
                          n ? field_text(m, buf) : "");
  m->p += n;
  *v = x;
  return TP_SUCCESS;
}

static tp_status expect_line_end(manifest *m, const char *what) {
  char buf[32];
  skip_blanks(m);
  if (m->p < m->end)
    return manifest_error(m, "%s: unexpected '%s' at the end of the line", what,
                          field_text(m, buf));
  return TP_SUCCESS;
}

/* The next line, which must start with the keyword that introduces `what`. */
static tp_status expect_keyword(manifest *m, const char *keyword, const char *what) {
  char buf[32];
  if (!next_line(m))
    return manifest_error(m, "the file ends before %s (truncated?)", what);
  if (!take_word(m, keyword))
    return manifest_error(m, "expected %s ('%s ...'), found '%s'", what, keyword,
                          field_text(m, buf));
  return TP_SUCCESS;
}

/* The rest of the line holds exactly n fields. Checked before any array is sized by n,
 * so a count in the file can never ask for more memory than the file's own size. */
static tp_status expect_count(manifest *m, const char *what, int64_t n) {
  int64_t found = fields_left(m);
  if (found != n)
    return manifest_error(m, "%s: %lld value%s, expected %lld", what, (long long)found,
                          found == 1 ? "" : "s", (long long)n);
  return TP_SUCCESS;
}

/* Exactly n integers up to the end of the line, into v. */
static tp_status take_list(manifest *m, const char *what, int64_t n, int64_t *v) {
  TP_TRY(expect_count(m, what, n));
  for (int64_t a = 0; a < n; ++a)
    TP_TRY(take_integer(m, what, &v[a]));
  return TP_SUCCESS;
}

/* ---- reading the manifest: its items --------------------------------------------------- */

static tp_status read_header(manifest *m) {
  int64_t version = 0;
  if (!next_line(m))
    return manifest_error(m, "empty file; expected a '%s %d' first line", TCI_MAGIC, TCI_VERSION);
  if (!take_word(m, TCI_MAGIC))
    return manifest_error(m, "not a tenport TCI manifest (the first line must be '%s %d')",
                          TCI_MAGIC, TCI_VERSION);
  TP_TRY(take_integer(m, "the format version", &version));
  if (version != TCI_VERSION)
    return manifest_error(m, "format version %lld; this reader knows version %d",
                          (long long)version, TCI_VERSION);
  return expect_line_end(m, "the first line");
}

static tp_status read_shape(manifest *m, tp_tci *t) {
  int64_t order = 0;
  TP_TRY(expect_keyword(m, "order", "the order"));
  TP_TRY(take_integer(m, "the order", &order));
  if (order < 2 || order > TP_COO_MAX_ORDER)
    return manifest_error(m, "order %lld is outside [2, %d]", (long long)order, TP_COO_MAX_ORDER);
  TP_TRY(expect_line_end(m, "the order"));
  int d = (int)order;
  TP_TRY(expect_keyword(m, "dims", "the dims"));
  TP_TRY(take_list(m, "the dims", d, t->dims));
  for (int k = 0; k < d; ++k)
    if (t->dims[k] < 1)
      return manifest_error(m, "dims[%d] = 0; every dim is at least 1", k);
  t->order = d;
  return TP_SUCCESS;
}

static tp_status read_ranks(manifest *m, tp_tci *t) {
  int d = t->order;
  TP_TRY(expect_keyword(m, "ranks", "the ranks"));
  TP_TRY(take_list(m, "the ranks", d + 1, t->ranks));
  if (t->ranks[0] != 1 || t->ranks[d] != 1)
    return manifest_error(m, "the boundary ranks are %lld and %lld; both must be 1",
                          (long long)t->ranks[0], (long long)t->ranks[d]);
  for (int k = 0; k + 1 < d; ++k) {
    int64_t r = t->ranks[k + 1], limit = rank_limit(t->dims, t->ranks, d, k);
    if (r < 1 || r > limit)
      return manifest_error(m,
                            "ranks[%d] = %lld is outside [1, %lld] (bond %d's matrix is "
                            "%lld x %lld)",
                            k + 1, (long long)r, (long long)limit, k,
                            (long long)bond_rows(t->dims, t->ranks, k),
                            (long long)bond_cols(t->dims, d, k));
  }
  return TP_SUCCESS;
}

/* "bond k rows|cols" and ranks[k+1] distinct indices below limit, into a new array. */
static tp_status read_pivots(manifest *m, const tp_tci *t, int k, int cols, int64_t **out) {
  char what[48];
  int64_t given = -1, r = t->ranks[k + 1], twice = 0;
  int64_t limit = cols ? bond_cols(t->dims, t->order, k) : bond_rows(t->dims, t->ranks, k);
  const char *side = cols ? "cols" : "rows";
  snprintf(what, sizeof what, "bond %d's pivot %s", k, side);
  TP_TRY(expect_keyword(m, "bond", what));
  TP_TRY(take_integer(m, what, &given));
  if (given != k || !take_word(m, side))
    return manifest_error(m, "expected %s ('bond %d %s ...')", what, k, side);
  TP_TRY(expect_count(m, what, r));
  *out = (int64_t *)malloc((size_t)r * sizeof **out);
  if (!*out)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory for %lld pivots", m->path, (long long)r);
  TP_TRY(take_list(m, what, r, *out));
  for (int64_t a = 0; a < r; ++a)
    if ((*out)[a] >= limit)
      return manifest_error(m, "%s: pivot %lld is %lld, outside [0, %lld)", what, (long long)a,
                            (long long)(*out)[a], (long long)limit);
  int rep = find_repeat(*out, r, &twice);
  if (rep < 0)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory to check the pivots", m->path);
  if (rep)
    return manifest_error(m, "%s: %lld appears twice", what, (long long)twice);
  return TP_SUCCESS;
}

/* The whole manifest into t (order, dims, ranks, pivots); t->order is set as soon as
 * it is known, so tp_tci_free can release what was read so far. */
static tp_status read_manifest(manifest *m, tp_tci *t) {
  char buf[32];
  TP_TRY(read_header(m));
  TP_TRY(read_shape(m, t));
  TP_TRY(read_ranks(m, t));
  for (int k = 0; k + 1 < t->order; ++k) {
    TP_TRY(read_pivots(m, t, k, 0, &t->pivot_rows[k]));
    TP_TRY(read_pivots(m, t, k, 1, &t->pivot_cols[k]));
  }
  if (next_line(m))
    return manifest_error(m, "unexpected '%s' after the last bond", field_text(m, buf));
  return TP_SUCCESS;
}

/* ---- reading the cores --------------------------------------------------------------- */

static tp_status read_core(const char *prefix, tp_tci *t, int k) {
  char *path = NULL;
  TP_TRY(tci_path(prefix, k, &path));
  int64_t dims[3] = {t->ranks[k], t->dims[k], t->ranks[k + 1]};
  tp_coo_read_info info = {0};
  tp_status st = tp_coo_read_tns(path, TP_DTYPE_F64, 3, dims, &t->cores[k], &info);
  if (st == TP_SUCCESS && info.duplicates > 0)
    st = TP_ERROR(TP_ERROR_FORMAT,
                  "%s: %lld entr%s repeat%s a coordinate; a core stores each "
                  "entry once",
                  path, (long long)info.duplicates, info.duplicates == 1 ? "y" : "ies",
                  info.duplicates == 1 ? "s" : "");
  free(path);
  return st;
}

static tp_status read_all(const char *prefix, tp_tci *t) {
  char *path = NULL;
  manifest m;
  TP_TRY(tci_path(prefix, -1, &path));
  tp_status st = manifest_load(&m, path);
  if (st == TP_SUCCESS)
    st = read_manifest(&m, t);
  free(m.text);
  free(path);
  for (int k = 0; k < t->order && st == TP_SUCCESS; ++k)
    st = read_core(prefix, t, k);
  /* Everything was checked above; this catches a reader and a checker that disagree. */
  if (st == TP_SUCCESS)
    st = tpi_tci_check_contents(t);
  return st;
}

tp_status tpi_tci_read_manifest_buffer(const char *name, const void *bytes, size_t size,
                                       tp_tci *t) {
  TP_CHECK_ARG(t, "tpi_tci_read_manifest_buffer: the output is NULL");
  memset(t, 0, sizeof *t);
  TP_CHECK_ARG(bytes || size == 0, "tpi_tci_read_manifest_buffer: bytes is NULL");
  manifest m;
  memset(&m, 0, sizeof m);
  m.path = name ? name : "manifest buffer";
  m.text = (char *)(bytes ? bytes : ""); /* only read */
  m.size = size;
  m.next = m.text;
  tp_status st = read_manifest(&m, t);
  if (st != TP_SUCCESS)
    tp_tci_free(t);
  return st;
}

tp_status tp_tci_read(const char *prefix, tp_tci *t) {
  TP_CHECK_ARG(t, "tp_tci_read: the output is NULL");
  memset(t, 0, sizeof *t);
  TP_CHECK_ARG(prefix && *prefix, "tp_tci_read: the prefix is NULL or empty");
  tp_status st = read_all(prefix, t);
  if (st != TP_SUCCESS)
    tp_tci_free(t);
  return st;
}
