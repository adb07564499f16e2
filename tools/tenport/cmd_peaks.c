/* tenport peaks: DW-MRI fiber peaks, the largest local maxima of each voxel's
 * spherical-harmonic function (MRtrix3 convention, or another converted to it), by
 * SS-HOPM (tp_fiber_peaks). A .npy input is read here; a NIfTI or .mif image goes to
 * peaks_image.c. --example builds a phantom with known fibers and checks the peaks
 * found. Under mpirun (or with --distributed) the voxels of a .npy are spread over the
 * ranks (peaks_dist.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/peaks_cli.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: tenport peaks --input FOD.nii[.gz]|FOD.mif[.gz] [--mask IMAGE] [options]\n"
          "       tenport peaks --input SH.npy [--lmax L] [options]\n"
          "       tenport peaks --example [options]\n"
          "Fiber directions of orientation functions given by real symmetric spherical\n"
          "harmonics: the local maxima, found by SS-HOPM on the equivalent symmetric tensor\n"
          "of order L.\n"
          "  --input FILE         the coefficients (format from the content, else the name):\n"
          "                       an X x Y x Z x C image (NIfTI-1/2 .nii, .nii.gz; MRtrix\n"
          "                       .mif, .mif.gz; also X x Y x Z x 1 x C) or a .npy of\n"
          "                       voxels x C (any leading shape, or C alone for one voxel);\n"
          "                       C = (L+1)(L+2)/2\n"
          "  --lmax L             even, 2..16 (default: from C)\n"
          "  --sh-basis B         the coefficients' convention (mrtrix):\n"
          "                         mrtrix          MRtrix3 (DIPY's tournier07): for m > 0,\n"
          "                                         sqrt(2) Re Y_l^m at +m, sqrt(2) Im Y_l^m\n"
          "                                         at -m\n"
          "                         dipy            DIPY's descoteaux07, legacy=True (its\n"
          "                                         default): sqrt(2) Im Y_l^m at +m,\n"
          "                                         sqrt(2) Re Y_l^m at -m\n"
          "                         dipy-nonlegacy  descoteaux07, legacy=False: sqrt(2) Im\n"
          "                                         Y_l^m at +m, (-1)^m sqrt(2) Re Y_l^m at -m\n"
          "                         fsl             FSL qboot's: (-1)^m sqrt(2) Im Y_l^m at +m,\n"
          "                                         sqrt(2) Re Y_l^m at -m\n"
          "                       each even l only, (l, m) at l(l+1)/2 + m, m = 0 Y_l^0, Y_l^m\n"
          "                       orthonormal with the Condon-Shortley phase, theta from z,\n"
          "                       phi from x towards y\n"
          "  --max-peaks k        peaks kept per voxel (3)\n"
          "  --min-amplitude F    drop maxima below F times the voxel's largest (0.1)\n"
          "  --threshold A        drop maxima whose amplitude is below A (an absolute value,\n"
          "                       as sh2peaks -threshold; default 0)\n"
          "  --starts V           SS-HOPM starting vectors (64)\n"
          "  --seed S             seed of the starting vectors (1)\n"
          "  --precision P        f32 or f64 for SS-HOPM (f32)\n"
          "  --tol X, --xtol X    convergence on |delta lambda| and |delta x|, relative to the\n"
          "                       function's L2 norm (1e-6 and 1e-4 in f32, 1e-12 and 1e-8\n"
          "                       in f64)\n"
          "  --max-iters N        iterations per start (500)\n"
          "  --example            a 16 x 16 x 1 phantom (lmax 8) of one, two and three fibers\n"
          "                       per voxel, checked against the truth; writes files only\n"
          "                       with --output (then also PREFIX_sh.npy, the phantom); one\n"
          "                       process only (refused under mpirun)\n"
          "  --distributed        run distributed even if no MPI launcher is seen (.npy input)\n"
          "Images:\n"
          "  --output FILE        the peaks image, X x Y x Z x 3k float32 on the input's grid:\n"
          "                       peak j of a voxel as its unit direction times its amplitude\n"
          "                       in values 3j..3j+2, largest first, NaN where the voxel has\n"
          "                       fewer peaks or lies outside the mask (as MRtrix3's sh2peaks\n"
          "                       writes); the format by the extension (.nii, .nii.gz, .mif,\n"
          "                       .mif.gz; .npy: an X x Y x Z x 3k array), else the input's\n"
          "                       (its extension appended; default peaks.EXT)\n"
          "  --amplitudes FILE    also the amplitudes, X x Y x Z x k (NaN likewise)\n"
          "  --mask IMAGE         X x Y x Z (or trailing axes of size 1), on the input's voxel\n"
          "                       grid (the voxel-to-scanner affines equal to within 1e-4\n"
          "                       of the largest voxel size): voxels where it is nonzero\n"
          "                       and not NaN are computed\n"
          "  The geometry (dimensions, voxel sizes, qform and sform or transform) is the\n"
          "  input's; the input's scaling is applied when it is read. Directions are in the\n"
          "  frame the coefficients are defined in, the image transform left out: MRtrix3's\n"
          "  FODs are defined on the scanner axes, so the peaks are as sh2peaks gives them.\n"
          ".npy input:\n"
          "  --output PREFIX      output files PREFIX_*.npy ('peaks')\n"
          "  Writes PREFIX_directions.npy (voxels x k x 3, unit vectors), PREFIX_amplitudes.npy\n"
          "  (voxels x k, the function's value at each peak, largest first) and\n"
          "  PREFIX_counts.npy (int32 voxels), keeping the input's leading shape; unused slots\n"
          "  are NaN.\n"
          "A voxel with a NaN or infinite coefficient, or all zero, gets no peaks; the summary\n"
          "counts those with non-finite coefficients.\n"
          "Distributed (started by mpirun, or with --distributed; .npy input only): each rank\n"
          "reads its range of voxels from SH.npy (a regular file, not standard input or a\n"
          "pipe) and computes their peaks on its own GPU where there are several; rank 0\n"
          "writes each output as one file, byte for byte the one process's, and prints the\n"
          "summary.\n");
  tenport_conventions_help(out);
}

static const char *const basis_names[4] = {"mrtrix", "dipy", "dipy-nonlegacy", "fsl"};

/* Parses the value v of option a; 1 if valid, 0 if not, -1 if a is unknown. */
static int parse_value(peaks_cli *c, const char *a, const char *v) {
  tp_peaks_options *o = &c->opt;
  int basis;
  if (!strcmp(a, "--input"))
    return tenport_parse_text(v, &c->sh);
  if (!strcmp(a, "--mask"))
    return tenport_parse_text(v, &c->mask);
  if (!strcmp(a, "--amplitudes"))
    return tenport_parse_text(v, &c->amplitudes);
  if (!strcmp(a, "--sh-basis"))
    return tenport_parse_choice(v, basis_names, 4, &basis) && (c->basis = (tp_sh_basis)basis, 1);
  if (!strcmp(a, "--threshold"))
    return tenport_parse_double(v, &o->threshold);
  if (!strcmp(a, "--output"))
    return c->output_set = 1, tenport_parse_text(v, &c->output);
  if (!strcmp(a, "--lmax"))
    return (tenport_parse_int(v, 2, 16, &c->lmax) && c->lmax % 2 == 0) ||
           tenport_expected("an even number from 2 to 16");
  if (!strcmp(a, "--max-peaks"))
    return tenport_parse_int(v, 1, 1 << 10, &o->max_peaks);
  if (!strcmp(a, "--starts"))
    return tenport_parse_int(v, 1, 1 << 20, &o->num_starts);
  if (!strcmp(a, "--max-iters"))
    return tenport_parse_int(v, 1, 1 << 30, &o->max_iterations);
  if (!strcmp(a, "--seed"))
    return tenport_parse_u64(v, &o->seed);
  if (!strcmp(a, "--min-amplitude"))
    return tenport_parse_number(v, 0, 0, 1, 0, &o->min_amplitude);
  if (!strcmp(a, "--tol"))
    return tenport_parse_number(v, 0, 1, INFINITY, 0, &o->tol);
  if (!strcmp(a, "--xtol"))
    return tenport_parse_number(v, 0, 1, INFINITY, 0, &o->xtol);
  if (!strcmp(a, "--precision"))
    return tenport_parse_choice(v, tenport_precisions, 2, &o->single_precision);
  return -1;
}

/* 0: run; 1: help was asked for; 2: usage error (reported). */
static int parse_args(int argc, char **argv, peaks_cli *c) {
  memset(c, 0, sizeof *c);
  c->output = "peaks";
  tp_peaks_options_init(&c->opt);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return 1;
    if (!strcmp(a, "--example")) {
      c->example = 1;
      continue;
    }
    if (!strcmp(a, "--distributed")) {
      c->distributed = 1;
      continue;
    }
    const char *v = tenport_option_value(argc, argv, i);
    int r = parse_value(c, a, v ? v : "");
    if (tenport_option_error("peaks", a, r, v))
      return 2;
    ++i;
  }
  if (!c->example && !c->sh) {
    fprintf(stderr, "tenport peaks: --input is required (or --example)\n");
    return 2;
  }
  if (c->example && (c->sh || (c->lmax && c->lmax != 8))) {
    fprintf(stderr, "tenport peaks: --example builds its own lmax 8 input; it takes no --input "
                    "or other --lmax\n");
    return 2;
  }
  if (c->example && (c->mask || c->amplitudes || c->basis != TP_SH_MRTRIX)) {
    fprintf(stderr, "tenport peaks: --example builds its own MRtrix3-basis coefficients; "
                    "--mask, --amplitudes and --sh-basis apply to an --input\n");
    return 2;
  }
  return 0;
}

static int fail(void) { return tenport_fail("peaks", "out of host memory"); }

static int input_shape(const peaks_cli *c, const char *name, const tp_npy_array *arr,
                       peaks_result *r, int *lmax) {
  return tenport_peaks_shape(c, name, arr->ndim, arr->shape, r, lmax, 1);
}

/* The outputs add two dimensions to the input's leading ones: a .npy holds at most
 * TP_NPY_MAX_DIMS, which is checked before the input is read. */
static int check_input_dims(tp_input *in) {
  tp_npy_header h;
  if (tp_npy_peek_header(in, &h) != TP_SUCCESS)
    return fail();
  return tenport_peaks_check_ndim(tp_input_name(in), h.ndim, 1);
}

static int run_input(tp_space *s, const peaks_cli *c, tp_input *in, tp_output_set *set) {
  tp_npy_array arr;
  peaks_result r;
  int lmax = 0, code = 0;
  memset(&arr, 0, sizeof arr);
  memset(&r, 0, sizeof r);
  if (tp_npy_read_converted_input(in, TP_DTYPE_F64, -1, &arr) != TP_SUCCESS)
    return fail();
  if (input_shape(c, tp_input_name(in), &arr, &r, &lmax) != 0)
    code = 1; /* reported */
  else if (tp_sh_to_mrtrix(c->basis, lmax, r.voxels, (double *)arr.data) != TP_SUCCESS ||
           tenport_peaks_compute(s, c, lmax, (const double *)arr.data, &r) != TP_SUCCESS)
    code = fail();
  else if (!tenport_peaks_write_result(set, c->output, &r, c->opt.max_peaks) ||
           tenport_outputs_commit("peaks", set) != 0)
    code = 1; /* reported */
  if (code == 0) {
    tenport_peaks_print_input(tp_input_name(in), &r, lmax);
    tenport_peaks_print_histogram(c, &r);
    printf("wrote %s_directions.npy, %s_amplitudes.npy, %s_counts.npy\n", c->output, c->output,
           c->output);
  }
  tenport_peaks_free(&r);
  tp_npy_free(&arr);
  return code;
}

/* The options that apply to images only, given for a .npy input: 2 (reported), else 0. */
static int npy_takes_options(const peaks_cli *c, const char *name) {
  const char *given = c->mask ? "--mask" : c->amplitudes ? "--amplitudes" : NULL;
  if (!given)
    return 0;
  fprintf(stderr,
          "tenport peaks: %s applies to image inputs (.nii, .nii.gz, .mif, .mif.gz); "
          "%s is a NumPy .npy array\n",
          given, name);
  return 2;
}

/* A .npy array, an image, or a message saying what the input is. */
static int run_kind(tp_space *s, const peaks_cli *c, tp_input *in, int *is_npy) {
  tp_file_format found;
  tp_image_format image;
  *is_npy = 0;
  if (tp_input_format(in, &found) != TP_SUCCESS)
    return fail();
  if (found == TP_FILE_NPY)
    return *is_npy = 1, npy_takes_options(c, tp_input_name(in));
  if (tp_image_input_format(in, &image) != TP_SUCCESS)
    return fail();
  if (image != TP_IMAGE_NONE)
    return tenport_peaks_image(s, c, in);
  tp_input_wrong_format(in, found,
                        "spherical-harmonic coefficients (.npy, .nii, .nii.gz, "
                        ".mif, .mif.gz)");
  return fail();
}

/* The input opened once, its shape checked and the output set ready before the work. */
static int run_file(tp_space *s, const peaks_cli *c) {
  tp_input *in = NULL;
  tp_output_set *set = NULL;
  int is_npy = 0;
  int code = tenport_open_input("peaks", c->sh, &in);
  if (code == 0)
    code = run_kind(s, c, in, &is_npy);
  if (!is_npy) {
    tp_input_close(&in);
    return code;
  }
  if (code == 0)
    code = check_input_dims(in);
  if (code == 0)
    code = tenport_outputs_begin("peaks", &set, in, NULL, 0);
  if (code == 0)
    code = tenport_peaks_reserve(c, set);
  if (code == 0)
    code = run_input(s, c, in, set);
  tp_output_set_destroy(&set);
  tp_input_close(&in);
  return code;
}

/* The example or the input file, as the options say. */
static int run(tp_space *space, void *cli) {
  peaks_cli *c = (peaks_cli *)cli;
  return c->example ? tenport_peaks_example(space, c) : run_file(space, c);
}

int tenport_cmd_peaks(int argc, char **argv) {
  peaks_cli c;
  int code = tenport_parsed(parse_args(argc, argv, &c), usage);
  if (code >= 0)
    return code;
  if (c.distributed || tp_comm_launched())
    return tenport_peaks_distributed(&c);
  return tenport_run_in_space("peaks", run, &c);
}
