/* tenport peaks on several ranks (started by mpirun, or with --distributed). The voxels
 * (all dimensions of SH.npy but the last, flattened in C order) are cut into contiguous
 * ranges as even as possible; each rank reads its range by positioned reads, finds its
 * voxels' peaks exactly as one process does (the starting vectors come from --seed and
 * are the same for every voxel, so a voxel's peaks do not depend on which rank has it),
 * and writes its rows into each output file, which rank 0 makes with the whole header
 * and commits once every rank succeeded: the files are the single process's, byte for
 * byte. Every rank takes the same path: a failure on any rank is agreed on, rank 0
 * prints it once, and all end with the same exit code. */

#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/peaks_cli.h"

typedef struct peaks_job {
  const peaks_cli *c;
  tp_comm *world;
  tp_space *space;
  tp_output_set *set; /* rank 0 */
  int rank, size, lmax;
  peaks_result r;        /* the whole input's shape; voxels: this rank's */
  int64_t voxels, first; /* all voxels; this rank's first */
  double *sh;
  double read_seconds, write_seconds;
} peaks_job;

static int root(const peaks_job *j) { return j->rank == 0; }

static int agree(peaks_job *j, tp_status local) {
  return tenport_ranks_agree("peaks", j->world, local);
}
static int collective(const peaks_job *j, tp_status st) {
  return tenport_ranks_collective("peaks", j->world, st);
}
static int reported(peaks_job *j, int code) {
  return tenport_ranks_reported("peaks", j->world, code);
}

static int start(peaks_job *j) {
  int code = tenport_ranks_start("peaks", &j->world, &j->space);
  if (j->world)
    j->rank = tp_comm_rank(j->world), j->size = tp_comm_size(j->world);
  return code;
}

static void finish(peaks_job *j) {
  tp_output_set_destroy(&j->set);
  tenport_peaks_free(&j->r);
  free(j->sh);
  tenport_ranks_end(&j->world, &j->space);
}

/* Whether path holds an image rather than a .npy (0 when it cannot be opened: the read
 * reports that). */
static int is_image(const char *path) {
  tp_input *in = NULL;
  tp_file_format found = TP_FILE_UNKNOWN;
  tp_image_format image = TP_IMAGE_NONE;
  if (tp_input_open(&in, path) == TP_SUCCESS && tp_input_format(in, &found) == TP_SUCCESS &&
      found != TP_FILE_NPY && tp_image_input_format(in, &image) != TP_SUCCESS)
    image = TP_IMAGE_NONE;
  tp_input_close(&in);
  tp_clear_error();
  return image != TP_IMAGE_NONE;
}

/* What a distributed run cannot do: the example, standard input, pipes, images. */
static int refuse(peaks_job *j) {
  const peaks_cli *c = j->c;
  int code = tenport_ranks_refuse("peaks", j->world, c->example, "--input", c->sh, "voxels");
  if (code)
    return code;
  code = tenport_ranks_reported("peaks", j->world,
                                c->mask || c->amplitudes || is_image(c->sh) ? 2 : 0);
  if (code && root(j))
    fprintf(stderr, "tenport peaks: a distributed run reads a .npy input; images (.nii, .mif) "
                    "and --mask, --amplitudes run in one process (without mpirun)\n");
  return code;
}

/* The header: shape and lmax; rank 0's output set, ready before the work. */
static int prepare(peaks_job *j) {
  const peaks_cli *c = j->c;
  tp_npy_header h;
  double none;
  if (agree(j, tp_npy_read_rows(c->sh, 0, 0, TP_DTYPE_F64, &none, &h)))
    return 1;
  int code = tenport_peaks_check_ndim(c->sh, h.ndim, root(j));
  if (code == 0)
    code = tenport_peaks_shape(c, c->sh, h.ndim, h.shape, &j->r, &j->lmax, root(j));
  if (reported(j, code))
    return 1;
  j->voxels = j->r.voxels;
  code = 0;
  if (root(j)) {
    const char *inputs[1] = {c->sh};
    code = tenport_outputs_begin("peaks", &j->set, NULL, inputs, 1);
    if (code == 0)
      code = tenport_peaks_reserve(c, j->set);
  }
  return reported(j, code);
}

/* This rank's voxels, read and solved. */
static int compute(peaks_job *j) {
  int64_t n, coeffs = tp_sh_count(j->lmax);
  tp_status st = tp_even_range(j->voxels, j->size, j->rank, &j->first, &n);
  double t0 = tenport_seconds();
  if (st == TP_SUCCESS) {
    j->sh = (double *)malloc(sizeof(double) * (size_t)(n ? n * coeffs : 1));
    st = j->sh ? tp_npy_read_rows(j->c->sh, j->first, n, TP_DTYPE_F64, j->sh, NULL)
               : TP_ERROR_OUT_OF_MEMORY;
  }
  if (st == TP_SUCCESS)
    st = tp_sh_to_mrtrix(j->c->basis, j->lmax, n, j->sh);
  if (agree(j, st))
    return 1;
  j->read_seconds = tenport_seconds() - t0;
  j->r.voxels = n;
  return agree(j, tenport_peaks_compute(j->space, j->c, j->lmax, j->sh, &j->r));
}

/* PREFIX_name.npy: the whole leading shape, then tail; this rank's rows of data. */
static int write_one(peaks_job *j, const char *name, int tail_ndim, const int64_t *tail,
                     tp_dtype dtype, const void *data) {
  int64_t shape[TP_NPY_MAX_DIMS + 2];
  char path[4096];
  const peaks_result *r = &j->r;
  memcpy(shape, r->lead, sizeof(int64_t) * (size_t)r->lead_ndim);
  for (int i = 0; i < tail_ndim; ++i)
    shape[r->lead_ndim + i] = tail[i];
  if (!tenport_peaks_output_path(j->c->output, name, path, sizeof path))
    return 1; /* the same on every rank: the names were reserved already */
  return collective(j,
                    tp_npy_write_rows_dist(j->world, j->set, path, dtype, r->lead_ndim + tail_ndim,
                                           shape, r->lead_ndim, j->first, r->voxels, data));
}

static int write_all(peaks_job *j) {
  const int k = j->c->opt.max_peaks;
  const int64_t dir_tail[2] = {k, 3}, amp_tail[1] = {k};
  double t0 = tenport_seconds();
  int code = write_one(j, "directions", 2, dir_tail, TP_DTYPE_F64, j->r.dir);
  if (code == 0)
    code = write_one(j, "amplitudes", 1, amp_tail, TP_DTYPE_F64, j->r.amp);
  if (code == 0)
    code = write_one(j, "counts", 0, NULL, TP_DTYPE_I32, j->r.count);
  if (code == 0)
    code = reported(j, root(j) ? tenport_outputs_commit("peaks", j->set) : 0);
  j->write_seconds = tenport_seconds() - t0;
  return code;
}

/* The summary's numbers over all ranks, and the distributed report, on rank 0. */
static int report(peaks_job *j) {
  const peaks_cli *c = j->c;
  const int k = c->opt.max_peaks;
  int64_t *sums = (int64_t *)calloc((size_t)k + 2, sizeof(int64_t)); /* hist, nonfinite */
  int64_t least = j->r.voxels, most = j->r.voxels;
  double times[3] = {j->r.seconds, j->read_seconds, j->write_seconds};
  double comm_seconds = tp_comm_seconds(j->world);
  if (agree(j, sums ? TP_SUCCESS : TP_ERROR_OUT_OF_MEMORY)) {
    free(sums);
    return 1;
  }
  tenport_peaks_histogram(c, &j->r, sums);
  sums[k + 1] = j->r.nonfinite;
  tp_status st = tp_comm_allreduce_host(j->world, sums, k + 2, TP_DTYPE_I64, TP_COMM_SUM);
  if (st == TP_SUCCESS)
    st = tp_comm_allreduce_host(j->world, times, 3, TP_DTYPE_F64, TP_COMM_MAX);
  if (st == TP_SUCCESS)
    st = tp_comm_allreduce_host(j->world, &least, 1, TP_DTYPE_I64, TP_COMM_MIN);
  if (st == TP_SUCCESS)
    st = tp_comm_allreduce_host(j->world, &most, 1, TP_DTYPE_I64, TP_COMM_MAX);
  if (collective(j, st)) {
    free(sums);
    return 1;
  }
  if (root(j)) {
    peaks_result whole = j->r;
    whole.voxels = j->voxels;
    tenport_peaks_print_input(c->sh, &whole, j->lmax);
    tenport_peaks_print_summary(c, j->voxels, sums, sums[k + 1], times[0]);
    printf("distributed: %d ranks, voxels per rank %lld..%lld; phases: read %.3f s, compute "
           "%.3f s, write %.3f s (the slowest rank's; communication %.3f s)\n",
           j->size, (long long)least, (long long)most, times[1], times[0], times[2], comm_seconds);
    printf("wrote %s_directions.npy, %s_amplitudes.npy, %s_counts.npy\n", c->output, c->output,
           c->output);
  }
  free(sums);
  return 0;
}

int tenport_peaks_distributed(const peaks_cli *c) {
  if (tenport_ranks_available("peaks"))
    return 2;
  peaks_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  int code = start(&j);
  if (code == 0)
    code = refuse(&j);
  if (code == 0)
    code = prepare(&j);
  if (code == 0)
    code = compute(&j);
  if (code == 0)
    code = write_all(&j);
  if (code == 0)
    code = report(&j);
  finish(&j);
  return code;
}
