/* One .npy written by all ranks, each its slab of rows (tp_npy_write_rows_dist): the file
 * is byte for byte the one tp_npy_write makes of the whole array, for several shapes
 * (rows fewer than ranks, no rows, one row, a scalar), dtypes and splits (even, and
 * ranks in reverse order); a failure on one rank (a write beyond its file size limit, a
 * range outside the array) fails every rank, leaves no temporary and the old target as
 * it was. Run as mpirun -np P test_npy_dist. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tests/mpi/mpi_check.h"
#include "tenport/distributed.h"

static tp_comm *comm;
static int rank, size;
static char folder[256];

/* A folder every rank sees: made by rank 0, its name broadcast. */
static void path_of(char *path, size_t cap, const char *name) {
  snprintf(path, cap, "%s/%s", folder, name);
}

/* The whole file at path (malloc'ed), its size in *n; NULL if it cannot be read. */
static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = (unsigned char *)malloc(len > 0 ? (size_t)len : 1);
  *n = b && fread(b, 1, (size_t)len, f) == (size_t)len ? (size_t)len : 0;
  fclose(f);
  return b;
}

/* Temporaries left in the folder. */
static int temporaries(void) {
  int n = 0;
  DIR *d = opendir(folder);
  for (struct dirent *e; d && (e = readdir(d));)
    n += strstr(e->d_name, ".tenport-tmp") != NULL;
  if (d)
    closedir(d);
  return n;
}

/* Element i of the test array, in dtype. */
static void put(void *data, tp_dtype dtype, int64_t i) {
  double v = mpi_check_value(7, (uint64_t)i);
  switch (dtype) {
  case TP_DTYPE_F64: ((double *)data)[i] = v; break;
  case TP_DTYPE_F32: ((float *)data)[i] = (float)v; break;
  case TP_DTYPE_I32: ((int32_t *)data)[i] = (int32_t)(v * 1e6); break;
  case TP_DTYPE_I8: ((int8_t *)data)[i] = (int8_t)(v * 200); break;
  default: break;
  }
}

typedef struct shape_case {
  int ndim, lead;
  int64_t shape[4];
} shape_case;

static const shape_case cases[] = {
    {2, 1, {5, 3}}, {4, 3, {2, 3, 2, 3}}, {1, 1, {7}},       {2, 1, {1, 4}},
    {2, 1, {2, 6}}, {2, 1, {0, 3}},       {3, 1, {4, 2, 5}}, {0, 0, {0}},
    {1, 0, {3}},    {3, 2, {3, 1, 2}},    {2, 2, {3, 0}},
};

/* Writes the case with the given split and compares with tp_npy_write's file. */
static void write_case(int c, tp_dtype dtype, int reverse) {
  const shape_case *k = &cases[c];
  int64_t rows = 1, per = 1, count;
  for (int i = 0; i < k->ndim; ++i)
    *(i < k->lead ? &rows : &per) *= k->shape[i];
  count = rows * per;
  size_t elem = tp_dtype_size(dtype);
  unsigned char *all = (unsigned char *)malloc(count ? (size_t)count * elem : 1);
  for (int64_t i = 0; i < count; ++i)
    put(all, dtype, i);
  int64_t first, n;
  CHECK_OK(tp_even_range(rows, size, reverse ? size - 1 - rank : rank, &first, &n));
  char got[512], want[512];
  path_of(got, sizeof got, "got.npy");
  path_of(want, sizeof want, "want.npy");
  tp_output_set *set = NULL;
  if (rank == 0)
    CHECK_OK(tp_output_set_create(&set));
  tp_status st = tp_npy_write_rows_dist(comm, set, got, dtype, k->ndim, k->shape, k->lead, first, n,
                                        all + (size_t)(first * per) * elem);
  CHECK(st == TP_SUCCESS, "case %d %s: %s", c, tp_dtype_name(dtype), tp_last_error());
  if (rank == 0) {
    CHECK_OK(tp_output_set_commit(set));
    tp_output_set_destroy(&set);
    CHECK_OK(tp_npy_write(want, dtype, k->ndim, k->shape, 0, all));
    size_t na = 0, nb = 0;
    unsigned char *a = slurp(got, &na), *b = slurp(want, &nb);
    CHECK(a && b && na == nb && na > 0 && memcmp(a, b, na) == 0,
          "case %d (%s, %s split): %zu bytes, tp_npy_write's %zu, differ", c, tp_dtype_name(dtype),
          reverse ? "reverse" : "even", na, nb);
    free(a), free(b);
    CHECK(temporaries() == 0, "case %d: a temporary is left", c);
  }
  free(all);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_same_bytes(void) {
  const tp_dtype dtypes[4] = {TP_DTYPE_F64, TP_DTYPE_I32, TP_DTYPE_I8, TP_DTYPE_F32};
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); ++c)
    for (int d = 0; d < 4; ++d)
      for (int reverse = 0; reverse <= 1; ++reverse)
        write_case(c, dtypes[d], reverse);
}

static void test_even_range(void) {
  for (int64_t n = 0; n < 20; ++n)
    for (int parts = 1; parts <= 7; ++parts) {
      int64_t next = 0;
      for (int p = 0; p < parts; ++p) {
        int64_t first, count;
        CHECK_OK(tp_even_range(n, parts, p, &first, &count));
        CHECK(first == n * p / parts && count == n * (p + 1) / parts - first,
              "n %lld parts %d part %d", (long long)n, parts, p);
        next += count;
      }
      CHECK(next == n, "the parts of %lld add up to %lld", (long long)n, (long long)next);
    }
  int64_t first, count;
  CHECK_OK(tp_even_range(INT64_MAX, 3, 2, &first, &count));
  CHECK(first + count == INT64_MAX, "the last part of INT64_MAX ends at %lld",
        (long long)(first + count));
}

/* A target with old contents that a failed write must leave as it was. */
static void old_target(const char *path) {
  if (rank == 0) {
    FILE *f = fopen(path, "wb");
    CHECK(f && fputs("old", f) >= 0 && fclose(f) == 0, "writing %s", path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void expect_untouched(const char *path, const char *what) {
  if (rank != 0)
    return;
  size_t n = 0;
  unsigned char *b = slurp(path, &n);
  CHECK(b && n == 3 && memcmp(b, "old", 3) == 0, "%s: the old target changed", what);
  free(b);
  CHECK(temporaries() == 0, "%s: a temporary is left", what);
}

/* The last rank cannot write beyond 64 bytes (a full disk), so its slab's write fails
 * (on one rank, rank 0's sizing of the temporary fails). */
static void test_write_failure_on_one_rank(void) {
  char path[512];
  path_of(path, sizeof path, "target.npy");
  old_target(path);
  const int64_t shape[2] = {40, 8};
  double data[320];
  for (int i = 0; i < 320; ++i)
    data[i] = i;
  int64_t first, n;
  CHECK_OK(tp_even_range(40, size, rank, &first, &n));
  tp_output_set *set = NULL;
  if (rank == 0)
    CHECK_OK(tp_output_set_create(&set));
  struct rlimit old;
  getrlimit(RLIMIT_FSIZE, &old);
  if (rank == size - 1) {
    struct rlimit small = {64, old.rlim_max};
    signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0, "setrlimit");
  }
  tp_status st = tp_npy_write_rows_dist(comm, set, path, TP_DTYPE_F64, 2, shape, 1, first, n,
                                        data + first * 8);
  if (rank == size - 1)
    setrlimit(RLIMIT_FSIZE, &old);
  char rank_text[32];
  snprintf(rank_text, sizeof rank_text, "rank %d: ", size - 1);
  CHECK(st == TP_ERROR_IO && strstr(tp_last_error(), rank_text),
        "every rank fails with rank %d's write error: %s %s", size - 1, tp_status_name(st),
        tp_last_error());
  tp_output_set_destroy(&set); /* rank 0: the temporary goes */
  MPI_Barrier(MPI_COMM_WORLD);
  expect_untouched(path, "a failed write");
}

/* A rank whose range is outside the array: every rank fails before anything is made. */
static void test_bad_range_on_one_rank(void) {
  char path[512];
  path_of(path, sizeof path, "target.npy");
  old_target(path);
  const int64_t shape[2] = {4, 2};
  double data[8] = {0};
  int64_t first, n;
  CHECK_OK(tp_even_range(4, size, rank, &first, &n));
  if (rank == size - 1)
    n += 1; /* beyond the last row */
  tp_output_set *set = NULL;
  if (rank == 0)
    CHECK_OK(tp_output_set_create(&set));
  double big[16] = {0};
  tp_status st = tp_npy_write_rows_dist(comm, set, path, TP_DTYPE_F64, 2, shape, 1, first, n,
                                        rank == size - 1 ? big : data);
  CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "outside"),
        "a range outside the array: %s %s", tp_status_name(st), tp_last_error());
  tp_output_set_destroy(&set);
  MPI_Barrier(MPI_COMM_WORLD);
  expect_untouched(path, "a bad range");
}

/* Overlapping ranges (every rank claims row 0) are refused. */
static void test_overlap_refused(void) {
  if (size < 2)
    return;
  char path[512];
  path_of(path, sizeof path, "overlap.npy");
  const int64_t shape[2] = {1, 2};
  double data[2] = {1, 2};
  tp_output_set *set = NULL;
  if (rank == 0)
    CHECK_OK(tp_output_set_create(&set));
  tp_status st = tp_npy_write_rows_dist(comm, set, path, TP_DTYPE_F64, 2, shape, 1, 0, 1, data);
  CHECK(st == TP_ERROR_INVALID_ARGUMENT && strstr(tp_last_error(), "cover"),
        "overlapping ranges: %s %s", tp_status_name(st), tp_last_error());
  tp_output_set_destroy(&set);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    CHECK(temporaries() == 0 && access(path, F_OK) != 0, "overlap: something was written");
}

int main(int argc, char **argv) {
  mpi_check_start(&argc, &argv, NULL, &comm, &rank, &size);
  mpi_check_folder_make(folder, (int)sizeof folder, "tenport-npydist");
  test_even_range();
  test_same_bytes();
  test_write_failure_on_one_rank();
  test_bad_range_on_one_rank();
  test_overlap_refused();
  return mpi_check_end("test_npy_dist", folder, NULL, &comm);
}
