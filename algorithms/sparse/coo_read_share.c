/* Each rank reading its share of a sparse tensor file. A .tpb share is nonzeros
 * [r nnz / P, (r + 1) nnz / P): a header of its own (the file's, with the share's nnz)
 * followed by positioned reads of that range of every array, read by the usual binary
 * reader, which checks everything. A .tns share is the lines that start in bytes
 * [H + r (S - H) / P, H + (r + 1) (S - H) / P) of the file, H being the bytes of a header
 * at its top (which every rank reads for itself: its order, dims and index base are the
 * tensor's): read by the usual text reader, counting lines from the number of lines
 * before them, so that a message names the line of the whole file. An index 0 anywhere
 * makes a text without a stated base 0-based, as in a one-process read. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tenport/distributed.h"
#include "portable/tp_error.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { SCAN_BYTES = 1 << 20 };

typedef struct share_file {
  const char *path;
  int fd;
  uint64_t size;
  int rank, ranks;
} share_file;

static tp_status open_file(share_file *f, const char *path) {
  f->path = path;
  f->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (f->fd < 0)
    return TP_ERROR(TP_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode))
    return TP_ERROR(TP_ERROR_IO,
                    "%s is not a regular file: each rank reads its share by "
                    "positioned reads, which a pipe or device cannot give",
                    path);
  f->size = (uint64_t)st.st_size;
  return TP_SUCCESS;
}

static tp_status read_at(const share_file *f, void *buf, size_t n, uint64_t offset, size_t *got) {
  *got = 0;
  while (*got < n) {
    ssize_t r = pread(f->fd, (char *)buf + *got, n - *got, (off_t)(offset + *got));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return TP_ERROR(TP_ERROR_IO, "cannot read %s: %s", f->path, strerror(errno));
    if (r == 0)
      break;
    *got += (size_t)r;
  }
  return TP_SUCCESS;
}

/* ---- .tpb ------------------------------------------------------------------------------ */

static uint64_t get_le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

static void put_le(unsigned char *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = (unsigned char)(v >> 8 * i);
}

/* The share's pieces: its header, then its range of each index array and of the values.
 * The reader checks the header; the widths and order read here only place the ranges,
 * and a file whose size disagrees with them is refused first. */
static tp_status tpb_pieces(const share_file *f, unsigned char *head, tpi_input_piece *pieces,
                            int *count) {
  size_t got;
  TP_TRY(read_at(f, head, TP_TPB_FIXED_HEADER + 8 * TP_COO_MAX_ORDER, 0, &got));
  uint64_t iw = get_le(head + 12, 4), vw = get_le(head + 16, 4), order = get_le(head + 20, 4);
  uint64_t nnz = get_le(head + 24, 8);
  if (order < 1 || order > TP_COO_MAX_ORDER || (iw != 4 && iw != 8) || (vw != 4 && vw != 8))
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: a .tpb header with order %llu and widths %llu and "
                    "%llu is not one tenport reads",
                    f->path, (unsigned long long)order, (unsigned long long)iw,
                    (unsigned long long)vw);
  uint64_t header = TP_TPB_FIXED_HEADER + 8 * order, per = order * iw + vw;
  if (nnz > (f->size - (f->size < header ? f->size : header)) / per ||
      header + nnz * per != f->size)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s: the file holds %llu bytes, the header (order %llu, "
                    "nnz %llu, widths %llu and %llu) says %llu",
                    f->path, (unsigned long long)f->size, (unsigned long long)order,
                    (unsigned long long)nnz, (unsigned long long)iw, (unsigned long long)vw,
                    (unsigned long long)(header + nnz * per));
  uint64_t first = nnz * (uint64_t)f->rank / (uint64_t)f->ranks;
  uint64_t mine = nnz * (uint64_t)(f->rank + 1) / (uint64_t)f->ranks - first;
  put_le(head + 24, mine, 8);
  pieces[0].bytes = head, pieces[0].offset = 0, pieces[0].length = header;
  for (uint64_t m = 0; m <= order; ++m) { /* the index arrays, then the values */
    uint64_t w = m < order ? iw : vw, start = header + m * nnz * iw;
    pieces[m + 1].bytes = NULL;
    pieces[m + 1].offset = start + first * w, pieces[m + 1].length = mine * w;
  }
  *count = (int)order + 2;
  return TP_SUCCESS;
}

static tp_status read_tpb_share(const share_file *f, tp_dtype dtype, tp_coo *share,
                                tp_coo_read_info *info) {
  unsigned char head[TP_TPB_FIXED_HEADER + 8 * TP_COO_MAX_ORDER];
  tpi_input_piece pieces[TP_COO_MAX_ORDER + 2];
  int count = 0;
  memset(head, 0, sizeof head);
  TP_TRY(tpb_pieces(f, head, pieces, &count));
  tp_input *in;
  TP_TRY(tpi_input_open_pieces(&in, f->path, pieces, count));
  tp_status st = tpi_coo_read_binary_input(in, dtype, share, info);
  tp_input_close(&in);
  return st;
}

/* ---- .tns ------------------------------------------------------------------------------ */

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Blank-separated fields of [p, end), up to a '#'. */
static int count_fields(const char *p, const char *end) {
  int n = 0;
  while (p < end && *p != '#') {
    while (p < end && is_blank(*p))
      ++p;
    if (p == end || *p == '#')
      break;
    ++n;
    while (p < end && !is_blank(*p) && *p != '#')
      ++p;
  }
  return n;
}

/* Where the first line starting at or after byte b begins (the file's size if none); the
 * lines begin at byte data (after a header). */
static tp_status line_start(const share_file *f, uint64_t data, uint64_t b, uint64_t *start) {
  if (b <= data || b >= f->size) {
    *start = b < f->size ? data : f->size;
    return TP_SUCCESS;
  }
  char buf[4096];
  for (uint64_t at = b - 1; at < f->size; at += sizeof buf) {
    size_t got;
    TP_TRY(read_at(f, buf, sizeof buf, at, &got));
    const char *nl = (const char *)memchr(buf, '\n', got);
    if (nl) {
      *start = at + (uint64_t)(nl - buf) + 1;
      return TP_SUCCESS;
    }
    if (got < sizeof buf)
      break;
  }
  *start = f->size;
  return TP_SUCCESS;
}

/* Line ends in [begin, end): the lines before the next share's. */
static tp_status count_lines(const share_file *f, uint64_t begin, uint64_t end, int64_t *lines) {
  char *buf = (char *)malloc(SCAN_BYTES);
  if (!buf)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to scan %s", f->path);
  tp_status st = TP_SUCCESS;
  *lines = 0;
  for (uint64_t at = begin; at < end && st == TP_SUCCESS; at += SCAN_BYTES) {
    size_t want = end - at < SCAN_BYTES ? (size_t)(end - at) : SCAN_BYTES, got;
    st = read_at(f, buf, want, at, &got);
    for (const char *p = buf;
         st == TP_SUCCESS && (p = (const char *)memchr(p, '\n', (size_t)(buf + got - p))); ++p)
      ++*lines;
  }
  free(buf);
  return st;
}

/* Whether [begin, end) holds a line with a field (not only blanks and comments). */
static tp_status has_nonzero_line(const share_file *f, uint64_t begin, uint64_t end, int *found) {
  char buf[4096];
  *found = 0;
  for (uint64_t line = begin; line < end && !*found;) {
    size_t got;
    TP_TRY(read_at(f, buf, sizeof buf, line, &got));
    const char *stop = buf + (end - line < got ? end - line : got);
    const char *nl = (const char *)memchr(buf, '\n', (size_t)(stop - buf));
    *found = count_fields(buf, nl ? nl : stop) > 0;
    if (!nl && got == sizeof buf)
      return TP_SUCCESS; /* a line longer than the buffer: let the reader judge it */
    line = nl ? line + (uint64_t)(nl - buf) + 1 : end;
  }
  return TP_SUCCESS;
}

/* How the ranks read the text: what its header says (order, dims, index base), or what
 * the caller gave. */
typedef struct text_plan {
  tpi_tns_header header;
  int order;
  const int64_t *dims;
  uint64_t data; /* where the nonzero lines begin */
} text_plan;

/* The share's lines through the text reader, numbered from first_line + 1, with the
 * plan's index base (TP_TNS_INDEX_AUTO: left 1-based, *saw_zero set when an index 0
 * appears). A share without nonzero lines is an empty tensor of the given order (its
 * dims are agreed later when not given). */
static tp_status parse_lines(const share_file *f, uint64_t begin, uint64_t end, int64_t first_line,
                             tp_dtype dtype, const text_plan *plan, tp_coo *share,
                             tp_coo_read_info *info, int *saw_zero) {
  int64_t ones[TP_COO_MAX_ORDER];
  int found = 1;
  *saw_zero = 0;
  for (int m = 0; m < plan->order; ++m)
    ones[m] = 1;
  if (!plan->dims)
    TP_TRY(has_nonzero_line(f, begin, end, &found));
  if (begin == end || !found)
    return tpi_coo_host_alloc(dtype, plan->order, plan->dims ? plan->dims : ones, 0, share);
  tpi_input_piece piece = {NULL, begin, end - begin};
  tp_input *in;
  TP_TRY(tpi_input_open_pieces(&in, f->path, &piece, 1));
  in->first_line = first_line;
  tp_status st = tpi_coo_read_tns_share(in, dtype, plan->order, plan->dims, plan->header.index_base,
                                        share, info, saw_zero);
  tp_input_close(&in);
  return st;
}

/* The order of the file: fields less one on its first nonzero line (from byte data on),
 * which every rank reads for itself, so that every share is read with the same order (a
 * line that disagrees is then reported with its number). */
static tp_status file_order(const share_file *f, uint64_t data, int *order) {
  char buf[8192];
  size_t got;
  TP_TRY(read_at(f, buf, sizeof buf, data, &got));
  for (const char *line = buf, *stop = buf + got; line < stop;) {
    const char *nl = (const char *)memchr(line, '\n', (size_t)(stop - line));
    int fields = count_fields(line, nl ? nl : stop);
    if (fields > 1 && fields - 1 <= TP_COO_MAX_ORDER)
      return *order = fields - 1, TP_SUCCESS;
    if (fields > 0 || !nl)
      break; /* the text reader says what is wrong with it */
    line = nl + 1;
  }
  *order = 0;
  return TP_SUCCESS;
}

/* ---- the collective read ---------------------------------------------------------------- */

/* The whole tensor's dims: each mode's largest index over all ranks, when not given. */
static tp_status agree_dims(tp_comm *comm, tp_coo *share) {
  int64_t top[TP_COO_MAX_ORDER];
  for (int m = 0; m < share->order; ++m) {
    top[m] = 0;
    for (int64_t k = 0; k < share->nnz; ++k)
      top[m] = share->indices[m][k] + 1 > top[m] ? share->indices[m][k] + 1 : top[m];
  }
  TP_TRY(tp_comm_allreduce_host(comm, top, share->order, TP_DTYPE_I64, TP_COMM_MAX));
  for (int m = 0; m < share->order; ++m)
    if (top[m] == 0)
      return TP_ERROR(TP_ERROR_FORMAT, "the file has no nonzeros; give the dims to read an "
                                       "empty tensor");
  memcpy(share->dims, top, sizeof(int64_t) * (size_t)share->order);
  return TP_SUCCESS;
}

/* Lines before this rank's share: the line counts of the ranks before it. */
static tp_status lines_before(tp_comm *comm, int64_t lines, int64_t *before) {
  int P = tp_comm_size(comm), rank = tp_comm_rank(comm);
  int64_t *all = (int64_t *)malloc(sizeof(int64_t) * 2 * (size_t)P);
  TP_TRY(tp_comm_agree(comm, all ? TP_SUCCESS : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory")));
  int64_t *ones = all + P;
  for (int r = 0; r < P; ++r)
    ones[r] = 1;
  tp_status st = tp_comm_allgatherv_host(comm, &lines, all, ones, TP_DTYPE_I64);
  *before = 0;
  for (int r = 0; r < rank; ++r)
    *before += all[r];
  free(all);
  return st;
}

/* The header at the top of the text, which every rank reads for itself as a one-process
 * read takes it (tns_header.c), against the order and dims the caller gave. */
static tp_status plan_text(const share_file *f, int order, const int64_t *dims, text_plan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->order = order, plan->dims = dims;
  plan->header.nnz = -1, plan->header.index_base = TP_TNS_INDEX_AUTO;
  tp_input *in = NULL;
  tp_status st = tp_input_open(&in, f->path);
  if (st == TP_SUCCESS)
    st = tpi_tns_take_header(in, &plan->header);
  if (st == TP_SUCCESS && plan->header.lines)
    st = tpi_tns_agree_with_header(f->path, &plan->header, order, dims);
  tp_input_close(&in);
  TP_TRY(st);
  if (plan->header.lines) {
    plan->order = plan->header.order, plan->dims = plan->header.dims;
    plan->data = plan->header.bytes;
  }
  return plan->order > 0 ? TP_SUCCESS : file_order(f, plan->data, &plan->order);
}

/* Every rank's saw_zero: a TP_TNS_INDEX_AUTO text with an index 0 anywhere is 0-based,
 * as a one-process read decides; the indices, read 1-based, are shifted up, and the
 * duplicates of each share merged. */
static tp_status settle_base(tp_comm *comm, const share_file *f, const text_plan *plan,
                             int saw_zero, tp_coo *share, tp_coo_read_info *info) {
  int64_t any = saw_zero && plan->header.index_base == TP_TNS_INDEX_AUTO;
  TP_TRY(tp_comm_allreduce_host(comm, &any, 1, TP_DTYPE_I64, TP_COMM_MAX));
  tp_status st = TP_SUCCESS;
  if (any) {
    int64_t top[TP_COO_MAX_ORDER];
    for (int m = 0; m < share->order; ++m) {
      top[m] = -1;
      for (int64_t k = 0; k < share->nnz; ++k)
        top[m] = share->indices[m][k] > top[m] ? share->indices[m][k] : top[m];
    }
    st = tpi_tns_shift_up(f->path, share->order, share->indices, share->nnz, top, plan->dims);
    for (int m = 0; st == TP_SUCCESS && !plan->dims && m < share->order; ++m)
      share->dims[m] = top[m] + 1 > share->dims[m] ? top[m] + 1 : share->dims[m];
  }
  if (info)
    info->index_base = plan->header.index_base == 0 || any ? 0 : 1;
  return tpi_coo_finish_read(st, f->path, share, info);
}

/* The nonzeros an sptensor header announces, against those of every share. */
static tp_status check_count(tp_comm *comm, const share_file *f, const text_plan *plan,
                             const tp_coo *share) {
  int64_t nnz = share->nnz;
  TP_TRY(tp_comm_allreduce_host(comm, &nnz, 1, TP_DTYPE_I64, TP_COMM_SUM));
  return tpi_tns_check_count(f->path, &plan->header, nnz);
}

static tp_status read_tns_share(tp_comm *comm, const share_file *f, tp_dtype dtype, int order,
                                const int64_t *dims, tp_coo *share, tp_coo_read_info *info) {
  uint64_t begin = 0, end = 0;
  int64_t lines = 0, before = 0;
  int saw_zero = 0;
  text_plan plan;
  tp_status st = plan_text(f, order, dims, &plan);
  uint64_t span = f->size - (plan.data < f->size ? plan.data : f->size);
  if (st == TP_SUCCESS)
    st =
        line_start(f, plan.data, plan.data + span * (uint64_t)f->rank / (uint64_t)f->ranks, &begin);
  if (st == TP_SUCCESS)
    st = line_start(f, plan.data, plan.data + span * (uint64_t)(f->rank + 1) / (uint64_t)f->ranks,
                    &end);
  if (st == TP_SUCCESS)
    st = count_lines(f, begin, end, &lines);
  TP_TRY(tp_comm_agree(comm, st));
  TP_TRY(lines_before(comm, lines, &before));
  if (plan.order == 0) /* no usable first line: the reader of the first share says why */
    begin = f->rank == 0 ? plan.data : end;
  st = parse_lines(f, begin, end, before + plan.header.lines, dtype, &plan, share, info, &saw_zero);
  TP_TRY(tp_comm_agree(comm, st));
  TP_TRY(tp_comm_agree(comm, settle_base(comm, f, &plan, saw_zero, share, info)));
  TP_TRY(tp_comm_agree(comm, check_count(comm, f, &plan, share)));
  if (info)
    info->header_lines = plan.header.lines, info->header_kind = plan.header.kind;
  return plan.dims ? TP_SUCCESS : tp_comm_agree(comm, agree_dims(comm, share));
}

/* Dense text is told from sparse text by its first word, as a one-process read tells it. */
static tp_status refuse_dense_text(const char *path) {
  tp_input *in = NULL;
  tp_file_format format = TP_FILE_TEXT;
  tp_status st = tp_input_open(&in, path);
  if (st == TP_SUCCESS)
    st = tp_input_format(in, &format);
  tp_input_close(&in);
  if (st == TP_SUCCESS && format == TP_FILE_DENSE_TEXT)
    st = TP_ERROR(TP_ERROR_FORMAT,
                  "%s is dense 'tensor' text, not a sparse tensor: distributed "
                  "runs read a dense tensor from a .npy file by positioned reads; convert it "
                  "first (tenport convert --input %s --output X.npy)",
                  path, path);
  return st;
}

static tp_status read_share(tp_comm *comm, share_file *f, tp_dtype dtype, int order,
                            const int64_t *dims, tp_coo *share, tp_coo_read_info *info) {
  unsigned char magic[8] = {0};
  size_t got = 0;
  tp_status st = open_file(f, f->path);
  if (st == TP_SUCCESS)
    st = read_at(f, magic, sizeof magic, 0, &got);
  if (st == TP_SUCCESS && got >= 6 && memcmp(magic, "\x93NUMPY", 6) == 0)
    st = TP_ERROR(TP_ERROR_FORMAT,
                  "%s is a NumPy .npy array, not a sparse tensor (.tns or "
                  ".tpb)",
                  f->path);
  if (st == TP_SUCCESS && got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b)
    st = TP_ERROR(TP_ERROR_FORMAT,
                  "%s is gzip-compressed: the ranks read their shares of "
                  "the file by positioned reads; decompress it first",
                  f->path);
  TP_TRY(tp_comm_agree(comm, st));
  if (got >= 5 && memcmp(magic, "TPCOO", 5) == 0) {
    TP_TRY(tp_comm_agree(comm, read_tpb_share(f, dtype, share, info)));
    int same = order == 0 || share->order == order;
    for (int m = 0; same && dims && m < order; ++m)
      same = share->dims[m] == dims[m];
    return same ? TP_SUCCESS
                : TP_ERROR(TP_ERROR_FORMAT,
                           "%s holds a tensor of another order "
                           "or dims than those given",
                           f->path);
  }
  TP_TRY(tp_comm_agree(comm, refuse_dense_text(f->path)));
  return read_tns_share(comm, f, dtype, order, dims, share, info);
}

tp_status tp_coo_read_share(tp_comm *comm, const char *path, tp_dtype dtype, int order,
                            const int64_t *dims, tp_coo *share, tp_coo_read_info *info) {
  TP_CHECK_ARG(comm && path && share, "comm, path and share must not be NULL");
  memset(share, 0, sizeof *share);
  if (info)
    memset(info, 0, sizeof *info);
  TP_CHECK_ARG(tpi_coo_dtype_ok(dtype), "dtype %s is not float32 or float64", tp_dtype_name(dtype));
  TP_CHECK_ARG(!dims || order > 0, "dims are given but the order is not");
  share_file f = {path, -1, 0, tp_comm_rank(comm), tp_comm_size(comm)};
  tp_status st = read_share(comm, &f, dtype, order, dims, share, info);
  if (f.fd >= 0)
    close(f.fd);
  if (st != TP_SUCCESS) {
    tpi_coo_host_free(share);
    memset(share, 0, sizeof *share);
  }
  return st;
}
