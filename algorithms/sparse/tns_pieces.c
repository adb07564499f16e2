/* Parsing a large block of complete .tns lines in parallel: the block is cut at line
 * ends into a fixed number of pieces, each parsed into a builder of its own, and the
 * builders are appended in order, so the result does not depend on the thread count.
 * Threads take pieces one at a time; a side job (the read of the next chunk) is one more
 * item of the same loop, taken first, so reading overlaps parsing. Pieces count their
 * lines from 0; when one fails, it is parsed again on the calling thread from its true
 * first line, which raises the error there with the right line. */
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

enum { PARALLEL_MIN_BYTES = 1 << 20 };

/* The start of the line holding text[at] (or following it), at most end. */
static const char *line_start_after(const char *text, const char *end, size_t at) {
  const char *p = text + at;
  if (p == text)
    return p;
  const char *nl = (const char *)memchr(p - 1, '\n', (size_t)(end - (p - 1)));
  return nl ? nl + 1 : end;
}

static void setup_parts(const tpi_tns_parser *ps, tpi_tns_pieces *pc, size_t bytes) {
  for (int i = 0; i < TP_TNS_PIECES; ++i) {
    tpi_tns_parser *part = &pc->part[i];
    if (!pc->ready) {
      *part = *ps;
      tpi_coo_builder_init(&part->b, ps->dtype, ps->order, (int64_t)(bytes / TP_TNS_PIECES / 16));
    }
    part->line = 0;
    part->b.t.nnz = 0;
  }
  pc->ready = 1;
}

/* Parses piece `failed` again from its first line, on this thread. */
static tp_status report(tpi_tns_parser *ps, tpi_tns_pieces *pc, const char *const *cut,
                        int failed) {
  int64_t line = ps->line;
  for (int i = 0; i < failed; ++i)
    line += pc->part[i].line;
  tpi_tns_parser *part = &pc->part[failed];
  part->line = line;
  part->b.t.nnz = 0;
  tp_status st = tpi_tns_parse_lines(part, cut[failed], cut[failed + 1]);
  return st != TP_SUCCESS ? st
                          : TP_ERROR(TP_ERROR_INTERNAL,
                                     "%s: a piece parsed twice "
                                     "differently",
                                     ps->name);
}

/* Runs the side job, if any, into *side_st. */
static void run_side(tpi_tns_side_job side, void *ctx, tp_status *side_st) {
  if (side)
    *side_st = side(ctx);
}

tp_status tpi_tns_parse_block(tpi_tns_parser *ps, tpi_tns_pieces *pc, const char *text,
                              const char *end, tpi_tns_side_job side, void *ctx,
                              tp_status *side_st) {
  size_t bytes = (size_t)(end - text);
  if (ps->order == 0 || bytes < PARALLEL_MIN_BYTES) {
    tp_status st = tpi_tns_parse_lines(ps, text, end);
    run_side(side, ctx, side_st);
    return st;
  }
  const char *cut[TP_TNS_PIECES + 1];
  for (int i = 0; i < TP_TNS_PIECES; ++i)
    cut[i] = line_start_after(text, end, bytes / TP_TNS_PIECES * (size_t)i);
  cut[TP_TNS_PIECES] = end;
  setup_parts(ps, pc, bytes);
  tp_status st[TP_TNS_PIECES];
  TP_HOST_OMP(omp parallel for schedule(dynamic, 1))
  for (int i = -1; i < TP_TNS_PIECES; ++i) {
    if (i < 0)
      run_side(side, ctx, side_st);
    else
      st[i] = tpi_tns_parse_lines(&pc->part[i], cut[i], cut[i + 1]);
  }
  for (int i = 0; i < TP_TNS_PIECES; ++i)
    if (st[i] != TP_SUCCESS)
      return report(ps, pc, cut, i);
  TP_TRY(tpi_coo_builder_append_all(&ps->b, pc->part, TP_TNS_PIECES, ps->name));
  for (int i = 0; i < TP_TNS_PIECES; ++i)
    ps->line += pc->part[i].line, ps->saw_zero |= pc->part[i].saw_zero;
  return TP_SUCCESS;
}

void tpi_tns_pieces_free(tpi_tns_pieces *pc) {
  for (int i = 0; pc->ready && i < TP_TNS_PIECES; ++i)
    tpi_coo_builder_free(&pc->part[i].b);
  pc->ready = 0;
}
