/* Reading a file in shares: the shares of all ranks add up to what the serial reader reads
 * (.tns and .tpb, duplicates, comments, files smaller than the rank count), and a
 * malformed line is reported by every rank with its line number in the whole file,
 * whichever rank read it. Run as mpirun -np P test_read_share. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tests/mpi/mpi_check.h"

static tp_comm *comm;
static int rank, size;
static char folder[256];

/* A folder every rank sees: made by rank 0, its name broadcast. */
static void path_of(char *path, size_t cap, const char *name) {
  snprintf(path, cap, "%s/%s", folder, name);
}

/* Every rank's share gathered on every rank and summed like the serial reader does. */
static void gather_all(const tp_coo *share, tp_coo *all) {
  int64_t counts[64], n = share->nnz, total = 0;
  int64_t ones[64];
  for (int r = 0; r < size; ++r)
    ones[r] = 1;
  CHECK_OK(tp_comm_allgatherv_host(comm, &n, counts, ones, TP_DTYPE_I64));
  for (int r = 0; r < size; ++r)
    total += counts[r];
  CHECK_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, share->order, share->dims, total, all));
  for (int m = 0; m < share->order; ++m)
    CHECK_OK(
        tp_comm_allgatherv_host(comm, share->indices[m], all->indices[m], counts, TP_DTYPE_I64));
  CHECK_OK(tp_comm_allgatherv_host(comm, share->values, all->values, counts, TP_DTYPE_F64));
  int64_t merged;
  CHECK_OK(tp_coo_sum_duplicates(all, &merged));
}

static void expect_same(const char *what, const tp_coo *got, const tp_coo *want) {
  CHECK(got->order == want->order && got->nnz == want->nnz,
        "%s: order %d nnz %lld, expected "
        "%d and %lld",
        what, got->order, (long long)got->nnz, want->order, (long long)want->nnz);
  for (int m = 0; m < want->order && got->order == want->order; ++m)
    CHECK(got->dims[m] == want->dims[m], "%s: dims[%d] %lld, expected %lld", what, m,
          (long long)got->dims[m], (long long)want->dims[m]);
  for (int64_t k = 0; k < want->nnz && got->nnz == want->nnz; ++k) {
    int same = ((double *)got->values)[k] == ((double *)want->values)[k];
    for (int m = 0; m < want->order; ++m)
      same = same && got->indices[m][k] == want->indices[m][k];
    if (!same) {
      CHECK(0, "%s: nonzero %lld differs", what, (long long)k);
      return;
    }
  }
}

static void check_file(const char *what, const char *path, int order, const int64_t *dims) {
  tp_coo share, all, serial;
  tp_coo_read_info info;
  CHECK_OK(tp_coo_read_share(comm, path, TP_DTYPE_F64, order, dims, &share, &info));
  gather_all(&share, &all);
  if (dims)
    CHECK_OK(tp_coo_read_tns(path, TP_DTYPE_F64, order, dims, &serial, NULL));
  else
    CHECK_OK(tp_coo_read(path, TP_DTYPE_F64, &serial, NULL));
  expect_same(what, &all, &serial);
  tp_coo_free(NULL, &share), tp_coo_free(NULL, &all), tp_coo_free(NULL, &serial);
}

/* A text file of n lines: a comment and a blank line here and there, duplicates. */
static void write_tns(const char *path, int64_t n, int64_t bad_line) {
  FILE *f = fopen(path, "w");
  for (int64_t k = 1; k <= n; ++k) {
    if (k == bad_line)
      fprintf(f, "1 2 x3 0.5\n");
    else if (k % 17 == 0)
      fprintf(f, "# comment %lld\n", (long long)k);
    else if (k % 23 == 0)
      fprintf(f, "\n");
    else
      fprintf(f, "%lld %lld %lld %.17g\n", (long long)(k * 7 % 13 + 1), (long long)(k * 5 % 11 + 1),
              (long long)(k % 9 + 1), mpi_check_value(3, (uint64_t)k) + 1.0);
  }
  fclose(f);
}

static void test_text(void) {
  char path[512];
  path_of(path, sizeof path, "x.tns");
  if (rank == 0)
    write_tns(path, 2000, -1);
  MPI_Barrier(MPI_COMM_WORLD);
  check_file("tns", path, 0, NULL);
  const int64_t dims[3] = {20, 30, 40};
  check_file("tns with dims", path, 3, dims);
  path_of(path, sizeof path, "tiny.tns"); /* fewer lines than ranks */
  if (rank == 0)
    write_tns(path, 2, -1);
  MPI_Barrier(MPI_COMM_WORLD);
  check_file("tiny tns", path, 0, NULL);
}

static void test_binary(void) {
  char text[512], path[512];
  path_of(text, sizeof text, "b.tns");
  path_of(path, sizeof path, "b.tpb");
  if (rank == 0) {
    write_tns(text, 3001, -1);
    tp_coo t;
    CHECK_OK(tp_coo_read(text, TP_DTYPE_F64, &t, NULL));
    CHECK_OK(tp_coo_write_binary(path, &t));
    tp_coo_free(NULL, &t);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  check_file("tpb", path, 0, NULL);
}

static void test_bad_line(void) {
  char path[512];
  path_of(path, sizeof path, "bad.tns");
  const int64_t bad = 1999; /* in the last rank's share */
  if (rank == 0)
    write_tns(path, 2000, bad);
  MPI_Barrier(MPI_COMM_WORLD);
  tp_coo share;
  tp_status st = tp_coo_read_share(comm, path, TP_DTYPE_F64, 0, NULL, &share, NULL);
  CHECK(st == TP_ERROR_FORMAT, "a bad line gives %s", tp_status_name(st));
  CHECK(strstr(tp_last_error(), "line 1999:") && strstr(tp_last_error(), "x3"),
        "the message names the line of the whole file: %s", tp_last_error());
  CHECK(share.nnz == 0 && share.values == NULL, "a failed read owns nothing");
}

static void test_missing_on_one_rank(void) {
  char path[512];
  path_of(path, sizeof path, rank == size - 1 ? "missing.tns" : "x.tns");
  tp_coo share;
  tp_status st = tp_coo_read_share(comm, path, TP_DTYPE_F64, 0, NULL, &share, NULL);
  CHECK(st == TP_ERROR_IO && strstr(tp_last_error(), "missing.tns"),
        "every rank fails with the failing rank's message: %s", tp_last_error());
}

int main(int argc, char **argv) {
  mpi_check_start(&argc, &argv, NULL, &comm, &rank, &size);
  mpi_check_folder_make(folder, (int)sizeof folder, "tenport-share");
  test_text();
  test_binary();
  test_bad_line();
  test_missing_on_one_rank();
  return mpi_check_end("test_read_share", folder, NULL, &comm);
}
