/* The communication layer's collectives against a host reference every rank computes
 * for itself, on data in the space (device memory on GPU builds: NCCL, or staging
 * through the host) and on host memory, with parts of awkward sizes (empty ones too);
 * splitting; agreement on a failure. Run as mpirun -np P test_comm. */
#include <math.h>
#include <string.h>

#include "tests/mpi/mpi_check.h"

static tp_space *space;
static tp_comm *comm;
static int rank, size;

/* Integer-valued doubles, so that sums are exact in any order. */
static double value(uint64_t seed, int r, int64_t i) {
  return floor(mpi_check_value(seed, (uint64_t)r * 1000003u + (uint64_t)i) * 2000.0);
}

static void *to_space(const double *host, int64_t n, tp_dtype t) {
  void *d = NULL;
  size_t size1 = tp_dtype_size(t);
  void *tmp = malloc((size_t)(n ? n : 1) * size1);
  for (int64_t i = 0; i < n; ++i)
    if (t == TP_DTYPE_F64)
      ((double *)tmp)[i] = host[i];
    else if (t == TP_DTYPE_F32)
      ((float *)tmp)[i] = (float)host[i];
    else
      ((int64_t *)tmp)[i] = (int64_t)host[i];
  CHECK_OK(tp_alloc(space, (size_t)(n ? n : 1) * size1, &d));
  if (n)
    CHECK_OK(tp_copy_to_device(space, d, tmp, (size_t)n * size1));
  free(tmp);
  return d;
}

static void from_space(double *host, const void *d, int64_t n, tp_dtype t) {
  size_t size1 = tp_dtype_size(t);
  void *tmp = malloc((size_t)(n ? n : 1) * size1);
  if (n)
    CHECK_OK(tp_copy_to_host(space, tmp, d, (size_t)n * size1));
  for (int64_t i = 0; i < n; ++i)
    host[i] = t == TP_DTYPE_F64   ? ((double *)tmp)[i]
              : t == TP_DTYPE_F32 ? (double)((float *)tmp)[i]
                                  : (double)((int64_t *)tmp)[i];
  free(tmp);
}

static void expect_equal(const double *got, const double *want, int64_t n, const char *what) {
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      CHECK(0, "%s: element %lld is %g, expected %g", what, (long long)i, got[i], want[i]);
      return;
    }
}

static const tp_dtype dtypes[3] = {TP_DTYPE_F64, TP_DTYPE_F32, TP_DTYPE_I64};

static void test_allreduce(tp_dtype t, tp_comm_op op, int64_t n) {
  double *mine = malloc(sizeof(double) * (size_t)(n + 1)),
         *want = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) {
    mine[i] = value(1, rank, i);
    want[i] = op == TP_COMM_SUM ? 0 : value(1, 0, i);
    for (int r = 0; r < size; ++r) {
      double v = value(1, r, i);
      want[i] = op == TP_COMM_SUM   ? want[i] + v
                : op == TP_COMM_MAX ? fmax(want[i], v)
                                    : fmin(want[i], v);
    }
  }
  void *d = to_space(mine, n, t);
  CHECK_OK(tp_comm_allreduce(comm, d, n, t, op));
  from_space(mine, d, n, t);
  expect_equal(mine, want, n, "allreduce");
  tp_free(space, d);
  for (int64_t i = 0; i < n; ++i)
    mine[i] = value(1, rank, i);
  CHECK_OK(tp_comm_allreduce_host(comm, mine, n, TP_DTYPE_F64, op));
  expect_equal(mine, want, n, "allreduce_host");
  free(mine), free(want);
}

static void test_broadcast(tp_dtype t, int64_t n) {
  for (int root = 0; root < size; ++root) {
    double *buf = malloc(sizeof(double) * (size_t)(n + 1)),
           *want = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; ++i)
      buf[i] = value(2, rank, i), want[i] = value(2, root, i);
    void *d = to_space(buf, n, t);
    CHECK_OK(tp_comm_broadcast(comm, d, n, t, root));
    from_space(buf, d, n, t);
    expect_equal(buf, want, n, "broadcast");
    tp_free(space, d);
    free(buf), free(want);
  }
}

static int64_t part(int r, int salt) { return (r * 7 + salt) % 11; }

static void test_reduce_scatter(tp_dtype t, int salt) {
  int64_t counts[64] = {0}, all = 0, before = 0;
  for (int r = 0; r < size; ++r)
    counts[r] = part(r, salt) * 13, all += counts[r], before += r < rank ? counts[r] : 0;
  double *send = malloc(sizeof(double) * (size_t)(all + 1));
  double *want = malloc(sizeof(double) * (size_t)(counts[rank] + 1));
  double *got = malloc(sizeof(double) * (size_t)(counts[rank] + 1));
  for (int64_t i = 0; i < all; ++i)
    send[i] = value(3, rank, i);
  for (int64_t i = 0; i < counts[rank]; ++i) {
    want[i] = 0;
    for (int r = 0; r < size; ++r)
      want[i] += value(3, r, before + i);
  }
  void *ds = to_space(send, all, t), *dr = to_space(want, counts[rank], t);
  CHECK_OK(tp_comm_reduce_scatter(comm, ds, dr, counts, t));
  from_space(got, dr, counts[rank], t);
  expect_equal(got, want, counts[rank], "reduce_scatter");
  tp_free(space, ds), tp_free(space, dr);
  free(send), free(want), free(got);
}

static void test_allgatherv(tp_dtype t, int salt) {
  int64_t counts[64], all = 0;
  for (int r = 0; r < size; ++r)
    counts[r] = part(r, salt) * 5, all += counts[r];
  double *mine = malloc(sizeof(double) * (size_t)(counts[rank] + 1));
  double *want = malloc(sizeof(double) * (size_t)(all + 1)),
         *got = malloc(sizeof(double) * (size_t)(all + 1));
  for (int64_t i = 0; i < counts[rank]; ++i)
    mine[i] = value(4, rank, i);
  for (int r = 0, k = 0; r < size; ++r)
    for (int64_t i = 0; i < counts[r]; ++i)
      want[k++] = value(4, r, i);
  void *ds = to_space(mine, counts[rank], t), *dr = to_space(want, all, t);
  CHECK_OK(tp_memset(space, dr, 0, (size_t)all * tp_dtype_size(t)));
  CHECK_OK(tp_comm_allgatherv(comm, ds, dr, counts, t));
  from_space(got, dr, all, t);
  expect_equal(got, want, all, "allgatherv");
  double *host = malloc(sizeof(double) * (size_t)(all + 1));
  CHECK_OK(tp_comm_allgatherv_host(comm, mine, host, counts, TP_DTYPE_F64));
  expect_equal(host, want, all, "allgatherv_host");
  tp_free(space, ds), tp_free(space, dr);
  free(mine), free(want), free(got), free(host);
}

/* Rank r sends (r + 2 s) % 5 * 3 elements to rank s: values (r, s, i). */
static int64_t a2a_count(int from, int to) { return (from + 2 * to) % 5 * 3; }
static double a2a_value(int from, int to, int64_t i) { return value(5, from * 64 + to, i); }

static void test_alltoallv(tp_dtype t) {
  int64_t sc[64], rc[64], out = 0, in = 0;
  for (int r = 0; r < size; ++r)
    sc[r] = a2a_count(rank, r), rc[r] = a2a_count(r, rank), out += sc[r], in += rc[r];
  double *send = malloc(sizeof(double) * (size_t)(out + 1)),
         *want = malloc(sizeof(double) * (size_t)(in + 1));
  double *got = malloc(sizeof(double) * (size_t)(in + 1));
  for (int r = 0, k = 0; r < size; ++r)
    for (int64_t i = 0; i < sc[r]; ++i)
      send[k++] = a2a_value(rank, r, i);
  for (int r = 0, k = 0; r < size; ++r)
    for (int64_t i = 0; i < rc[r]; ++i)
      want[k++] = a2a_value(r, rank, i);
  void *ds = to_space(send, out, t), *dr = to_space(want, in, t);
  CHECK_OK(tp_memset(space, dr, 0, (size_t)in * tp_dtype_size(t)));
  CHECK_OK(tp_comm_alltoallv(comm, ds, sc, dr, rc, t));
  from_space(got, dr, in, t);
  expect_equal(got, want, in, "alltoallv");
  double *host = malloc(sizeof(double) * (size_t)(in + 1));
  CHECK_OK(tp_comm_alltoallv_host(comm, send, sc, host, rc, TP_DTYPE_F64));
  expect_equal(host, want, in, "alltoallv_host");
  tp_free(space, ds), tp_free(space, dr);
  free(send), free(want), free(got), free(host);
}

static void test_split(void) {
  tp_comm *half = NULL;
  CHECK_OK(tp_comm_split(comm, rank % 2, -rank, &half));
  int n = 0, want = 0;
  for (int r = 0; r < size; ++r)
    want += r % 2 == rank % 2;
  CHECK(tp_comm_size(half) == want, "split: %d ranks, expected %d", tp_comm_size(half), want);
  double v = rank, sum = 0;
  for (int r = rank % 2; r < size; r += 2)
    sum += r, ++n;
  CHECK_OK(tp_comm_allreduce_host(half, &v, 1, TP_DTYPE_F64, TP_COMM_SUM));
  CHECK(v == sum, "split allreduce: %g, expected %g", v, sum);
  CHECK(tp_comm_rank(half) == (want - 1 - rank / 2),
        "split: key -rank orders the ranks "
        "backwards (rank %d is %d)",
        rank, tp_comm_rank(half));
  tp_comm_destroy(&half);
  CHECK(half == NULL, "destroy sets NULL");
}

static void test_agree(void) {
  CHECK_OK(tp_comm_agree(comm, TP_SUCCESS));
  int failing = size - 1;
  tp_status mine = TP_SUCCESS;
  if (rank == failing) { /* a failure that leaves its message */
    tp_npy_array a;
    mine = tp_npy_read("/no/such/file.npy", &a);
  }
  tp_status st = tp_comm_agree(comm, mine);
  CHECK(st == TP_ERROR_IO, "agree returned %s", tp_status_name(st));
  char want[64];
  snprintf(want, sizeof want, "rank %d: ", failing);
  CHECK(strstr(tp_last_error(), want) && strstr(tp_last_error(), "/no/such/file.npy"),
        "agree's message: %s", tp_last_error());
}

int main(int argc, char **argv) {
  mpi_check_start(&argc, &argv, &space, &comm, &rank, &size);
  CHECK(size <= 64, "at most 64 ranks");
  for (int k = 0; k < 3; ++k) {
    const int64_t sizes[4] = {0, 1, 7, 1031};
    for (int s = 0; s < 4; ++s) {
      test_allreduce(dtypes[k], TP_COMM_SUM, sizes[s]);
      test_allreduce(dtypes[k], TP_COMM_MAX, sizes[s]);
      test_allreduce(dtypes[k], TP_COMM_MIN, sizes[s]);
      test_broadcast(dtypes[k], sizes[s]);
    }
    for (int salt = 0; salt < 3; ++salt) {
      test_reduce_scatter(dtypes[k], salt);
      test_allgatherv(dtypes[k], salt);
    }
    test_alltoallv(dtypes[k]);
  }
  test_split();
  test_agree();
  CHECK(tp_comm_seconds(comm) > 0, "collective time is counted");
  return mpi_check_end("test_comm", NULL, &space, &comm);
}
