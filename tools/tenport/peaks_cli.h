/* tenport peaks, shared by its files: the options (cmd_peaks.c takes them and runs a .npy
 * or the example), a set of voxels' peaks (peaks_compute.c), the input's checks and the
 * outputs' names and files (peaks_files.c), the summary (peaks_report.c) and --example
 * (peaks_example.c), so that the single-process, image (peaks_image.c) and distributed
 * (peaks_dist.c) runs compute and print the same numbers. */
#ifndef TENPORT_PEAKS_CLI_H
#define TENPORT_PEAKS_CLI_H

#include "tools/tenport/cli_files.h"
#include "tools/tenport/commands.h"
#include "tenport/npy.h"
#include "tenport/tenport.h"

typedef struct peaks_cli {
  const char *sh, *output;
  const char *mask, *amplitudes; /* images only: --mask IMAGE, --amplitudes FILE */
  int lmax, example, output_set, distributed;
  tp_sh_basis basis; /* --sh-basis: the input's convention */
  tp_peaks_options opt;
} peaks_cli;

/* Peaks of a set of voxels (voxels of them, rows of sh), with the input's leading shape
 * (the whole input's, also in a distributed run where voxels is this rank's count). */
typedef struct peaks_result {
  int lead_ndim;
  int64_t lead[TP_NPY_MAX_DIMS], voxels;
  int64_t nonfinite; /* voxels with a NaN or infinite coefficient (given no peaks) */
  double *dir, *amp, seconds;
  int32_t *count;
} peaks_result;

void tenport_peaks_free(peaks_result *r);

/* An input of ndim dimensions: 0 when its outputs fit a .npy, else 1 (reported when
 * loud). */
int tenport_peaks_check_ndim(const char *name, int ndim, int loud);

/* lmax from a count of coefficients per voxel (--lmax when given, which must match):
 * 0, or 1 when no even lmax in 2..16 has that count (reported when loud). */
int tenport_peaks_lmax(const peaks_cli *c, const char *name, int64_t count, int *lmax, int loud);

/* The leading shape, voxel count and lmax of an input of this shape into r and *lmax;
 * 0 on success, 1 when it holds no voxels x coefficients of an even lmax (reported when
 * loud). */
int tenport_peaks_shape(const peaks_cli *c, const char *name, int ndim, const int64_t *shape,
                        peaks_result *r, int *lmax, int loud);

/* The peaks of r->voxels voxels (sh: voxels x coefficients, host), counting those with
 * non-finite coefficients; allocates r's arrays. */
tp_status tenport_peaks_compute(tp_space *s, const peaks_cli *c, int lmax, const double *sh,
                                peaks_result *r);

/* hist[j] (j = 0..max_peaks): the voxels of r with j peaks. */
void tenport_peaks_histogram(const peaks_cli *c, const peaks_result *r, int64_t *hist);

/* "NAME: V voxels (X x Y x Z), lmax L". */
void tenport_peaks_print_input(const char *name, const peaks_result *r, int lmax);
/* The histogram, the voxels with non-finite coefficients and the time. */
void tenport_peaks_print_summary(const peaks_cli *c, int64_t voxels, const int64_t *hist,
                                 int64_t nonfinite, double seconds);

/* PREFIX_name.npy into path; 0 (reported) when it does not fit. */
int tenport_peaks_output_path(const char *prefix, const char *name, char *path, size_t cap);
/* Adds the output files to the set before any work; 0, or 1 (reported). */
int tenport_peaks_reserve(const peaks_cli *c, tp_output_set *set);

/* PREFIX_name.npy into the set: the leading shape of r, then tail_ndim more dimensions;
 * 1, or 0 (reported). */
int tenport_peaks_write_array(tp_output_set *set, const char *prefix, const char *name,
                              const peaks_result *r, int tail_ndim, const int64_t *tail,
                              tp_dtype dtype, const void *data);
/* PREFIX_directions.npy, PREFIX_amplitudes.npy and PREFIX_counts.npy (k peaks at most);
 * 1, or 0 (reported). */
int tenport_peaks_write_result(tp_output_set *set, const char *prefix, const peaks_result *r,
                               int k);
/* r's histogram of peaks per voxel, its non-finite voxels and its time. */
void tenport_peaks_print_histogram(const peaks_cli *c, const peaks_result *r);

/* --example (peaks_example.c): the exit code. */
int tenport_peaks_example(tp_space *s, const peaks_cli *c);

/* tenport peaks on a NIfTI or .mif image (peaks_image.c): the exit code. */
int tenport_peaks_image(tp_space *s, const peaks_cli *c, tp_input *in);

/* mpirun ... tenport peaks (or --distributed): every rank runs this (peaks_dist.c). */
int tenport_peaks_distributed(const peaks_cli *c);

#endif
