/* A file that shrinks while it is read is an error, not a shorter tensor: the readers
 * compare the bytes they get with the size the file had when it was opened. A file cut
 * after it was opened (here, between tp_input_open and the read) is refused with a
 * message that names it; the same file read whole is accepted. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/tpt.h"

TestSuite(input_shrink, .init = tpt_setup, .fini = tpt_teardown);

enum { LINES = 20000 };

/* A 3-mode .tns of LINES nonzeros; its size in bytes. */
static long write_tns(const char *path) {
  FILE *f = fopen(path, "w");
  cr_assert(f, "cannot write %s", path);
  for (int i = 0; i < LINES; ++i)
    fprintf(f, "%d %d %d %.6f\n", 1 + i % 97, 1 + i % 89, 1 + i % 83, 0.5 + i);
  long size = ftell(f);
  fclose(f);
  return size;
}

static tp_status read_after_cut(const char *path, long keep, tp_coo *coo) {
  tp_input *in = NULL;
  TPT_OK(tp_input_open(&in, path));
  if (keep >= 0)
    cr_assert_eq(truncate(path, keep), 0, "cannot cut %s", path);
  tp_status st = tp_coo_read_input(in, TP_DTYPE_F64, 0, NULL, coo, NULL);
  tp_input_close(&in);
  return st;
}

Test(input_shrink, a_tns_cut_while_it_is_read_is_refused) {
  char path[] = "/tmp/tenport-shrink-XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  long size = write_tns(path);
  tp_coo coo;
  memset(&coo, 0, sizeof coo);
  TPT_FAILS_WITH(read_after_cut(path, size / 2 + 3, &coo), TP_ERROR_IO);
  cr_expect(strstr(tp_last_error(), "shrank while it was read"), "message: %s", tp_last_error());
  cr_expect(strstr(tp_last_error(), path), "the file is not named: %s", tp_last_error());
  write_tns(path);
  TPT_OK(read_after_cut(path, -1, &coo));
  cr_expect_eq(coo.nnz, LINES, "%lld nonzeros of %d", (long long)coo.nnz, LINES);
  tp_coo_free(NULL, &coo);
  unlink(path);
}
