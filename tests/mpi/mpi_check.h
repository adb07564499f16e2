/* A small harness for the MPI test programs (Criterion forks a process per test, which
 * MPI does not allow): CHECK records a failure with its rank and place and goes on;
 * mpi_check_finish makes the exit code every rank's verdict. */
#ifndef MPI_CHECK_H
#define MPI_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/tenport.h"

static int mpi_check_failures;

/* A failed check: prints its rank, place, condition and message, and counts it. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static inline void
mpi_check_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", rank, file, line, cond);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  ++mpi_check_failures;
}

#define CHECK(cond, ...)                                      \
  do {                                                        \
    if (!(cond))                                              \
      mpi_check_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)

#define CHECK_OK(expr)                                                                     \
  do {                                                                                     \
    tp_status check_st_ = (expr);                                                          \
    CHECK(check_st_ == TP_SUCCESS, "%s returned %s: %s", #expr, tp_status_name(check_st_), \
          tp_last_error());                                                                \
  } while (0)

/* 0 when no rank failed a check; prints the verdict once. */
/* A space on this rank's own GPU (its rank among the ranks of its node, modulo the
 * node's GPUs), as the tenport command chooses: NCCL refuses two ranks on one device. */
static inline tp_status mpi_check_space(MPI_Comm world, tp_space **space) {
  MPI_Comm node;
  int local = 0, devices = 1;
  if (MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
  }
  tp_space_options o = tp_space_options_default();
  if (tp_device_count(&devices) == TP_SUCCESS && devices > 1)
    o.device = local % devices;
  return tp_space_create(space, &o);
}

/* A grid that puts all `ranks` on mode m (its other parts 1). */
static inline tp_grid mpi_check_line_grid(int order, int m, int ranks) {
  tp_grid g;
  memset(&g, 0, sizeof g);
  g.order = order;
  for (int k = 0; k < order; ++k)
    g.parts[k] = k == m ? ranks : 1;
  return g;
}

/* A new folder under /tmp (named from prefix) that every rank of world knows; removed by
 * mpi_check_folder_remove after the last rank is done with it. */
static inline void mpi_check_folder_make(char *folder, int cap, const char *prefix) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    snprintf(folder, (size_t)cap, "/tmp/%s-XXXXXX", prefix);
    CHECK(mkdtemp(folder) != NULL, "mkdtemp");
  }
  MPI_Bcast(folder, cap, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static inline void mpi_check_folder_remove(const char *folder) {
  int rank;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    CHECK(system(cmd) == 0, "removing %s", folder);
  }
}

static inline int mpi_check_finish(const char *name) {
  int failures = 0, rank, size;
  MPI_Allreduce(&mpi_check_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0)
    printf("%s on %d rank%s: %s (%d failed check%s)\n", name, size, size == 1 ? "" : "s",
           failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}

/* What every program starts with: MPI, then (space not NULL) a space on this rank's own
 * GPU, and a communicator over MPI_COMM_WORLD whose data lives in that space (in host
 * memory without one); this rank and the rank count. */
static inline void mpi_check_start(int *argc, char ***argv, tp_space **space, tp_comm **comm,
                                   int *rank, int *size) {
  MPI_Init(argc, argv);
  MPI_Comm world = MPI_COMM_WORLD;
  if (space)
    CHECK_OK(mpi_check_space(world, space));
  CHECK_OK(tp_comm_create(comm, &world, space ? *space : NULL));
  *rank = tp_comm_rank(*comm), *size = tp_comm_size(*comm);
}

/* And ends with: every rank's verdict (the exit code), the scratch folder (NULL: none)
 * removed, the communicator and space destroyed, MPI finished. */
static inline int mpi_check_end(const char *name, const char *folder, tp_space **space,
                                tp_comm **comm) {
  const int code = mpi_check_finish(name);
  if (folder)
    mpi_check_folder_remove(folder);
  tp_comm_destroy(comm);
  if (space)
    tp_space_destroy(space);
  MPI_Finalize();
  return code;
}

/* Every rank holds rank 0's model (host, f64), bit for bit. */
static inline void mpi_check_same_model(const char *what, const tp_kruskal *d) {
  for (int k = 0; k < d->order; ++k) {
    const int64_t n = d->dims[k] * d->rank;
    double *root = (double *)malloc(sizeof(double) * (size_t)n);
    memcpy(root, d->factors[k], sizeof(double) * (size_t)n);
    MPI_Bcast(root, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(!memcmp(root, d->factors[k], sizeof(double) * (size_t)n),
          "%s: factor %d differs from rank 0's", what, k);
    free(root);
  }
}

/* The same pseudo-random stream on every rank for a seed: every rank can compute what
 * any other rank holds. */
static inline double mpi_check_value(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53 - 0.5;
}

#endif
