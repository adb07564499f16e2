/* tenport peaks on a diffusion-MRI image (NIfTI-1/2 or MRtrix .mif, gzip-compressed or
 * not): the FOD's coefficients in, converted to MRtrix3's basis, the voxels inside the
 * mask solved, and the peaks written as sh2peaks writes them, an image on the input's
 * grid of each peak's direction times its amplitude, NaN where there is none. The
 * outputs are named and added to the output set before anything is read. */
#include "tools/tenport/peaks_cli.h"

typedef struct image_run {
  const peaks_cli *c;
  tp_input *in;
  tp_image fod, mask;
  char peaks_path[4096], amplitudes_path[4096];
  tp_output_set *set;
  int lmax;
  int64_t inside, *voxel; /* the voxels solved, and their indices in the image */
  double *sh;             /* their coefficients, inside x C */
  peaks_result r;
} image_run;

static int fail(void) { return tenport_fail("peaks", "out of host memory"); }

static void run_free(image_run *j) {
  tp_output_set_destroy(&j->set);
  tp_image_free(&j->fod);
  tp_image_free(&j->mask);
  free(j->voxel), free(j->sh);
  tenport_peaks_free(&j->r);
}

/* ---- the outputs' names ---------------------------------------------------------------- */

static int is_npy_name(const char *path) {
  size_t n = strlen(path);
  return n > 4 && !strcmp(path + n - 4, ".npy");
}

/* The input's image extension: from its name, else its format (standard input). */
static const char *input_extension(tp_input *in, tp_image_format format) {
  int gzip = 0;
  tp_image_format named = tp_image_path_format(tp_input_name(in), &gzip);
  if (named != TP_IMAGE_NONE)
    format = named;
  if (format == TP_IMAGE_MIF)
    return gzip ? ".mif.gz" : ".mif";
  return gzip ? ".nii.gz" : ".nii";
}

/* given as it is when it names a format, else given and the input's extension. */
static int output_name(const char *given, const char *ext, char *path, size_t cap) {
  int named = tp_image_path_format(given, NULL) != TP_IMAGE_NONE || is_npy_name(given);
  if ((size_t)snprintf(path, cap, "%s%s", given, named ? "" : ext) < cap)
    return 0;
  fprintf(stderr, "tenport peaks: the output name '%s' is too long\n", given);
  return 2;
}

/* A .gz name in a build that cannot compress: refused before the work. */
static int can_write(const char *path) {
  int gzip = 0;
  if (tp_image_path_format(path, &gzip) == TP_IMAGE_NONE || !gzip || tp_input_has_gzip())
    return 0;
  fprintf(stderr,
          "tenport peaks: cannot write %s: this tenport was built without zlib, which "
          "gzip-compressed output needs; name it without .gz\n",
          path);
  return 1;
}

static int reserve_outputs(image_run *j, tp_image_format format) {
  const peaks_cli *c = j->c;
  const char *ext = input_extension(j->in, format);
  const char *inputs[1] = {c->mask};
  int code =
      output_name(c->output_set ? c->output : "peaks", ext, j->peaks_path, sizeof j->peaks_path);
  if (code == 0 && c->amplitudes)
    code = output_name(c->amplitudes, ext, j->amplitudes_path, sizeof j->amplitudes_path);
  if (code == 0)
    code = can_write(j->peaks_path);
  if (code == 0 && c->amplitudes)
    code = can_write(j->amplitudes_path);
  if (code == 0)
    code = tenport_outputs_begin("peaks", &j->set, j->in, inputs, 1);
  if (code == 0)
    code = tenport_outputs_add("peaks", j->set, j->peaks_path);
  if (code == 0 && c->amplitudes)
    code = tenport_outputs_add("peaks", j->set, j->amplitudes_path);
  return code;
}

/* ---- the inputs ---------------------------------------------------------------------------- */

static int read_fod(image_run *j) {
  const char *name = tp_input_name(j->in);
  if (tp_image_read_input(j->in, &j->fod) != TP_SUCCESS)
    return fail();
  if (j->fod.values_axis < 0) {
    fprintf(stderr,
            "tenport peaks: %s is a 3-D image (one value per voxel); the coefficients "
            "come as X x Y x Z x C (or X x Y x Z x 1 x C)\n",
            name);
    return 1;
  }
  return tenport_peaks_lmax(j->c, name, j->fod.values, &j->lmax, 1);
}

static int read_mask(image_run *j) {
  const char *name = j->c->mask;
  if (tp_image_read(name, &j->mask) != TP_SUCCESS)
    return fail();
  if (j->mask.values != 1) {
    fprintf(stderr,
            "tenport peaks: the mask %s has %lld values per voxel; a mask is an "
            "X x Y x Z image\n",
            name, (long long)j->mask.values);
    return 1;
  }
  if (tp_image_check_same_grid(&j->fod.geometry, tp_input_name(j->in), &j->mask.geometry, name,
                               1e-4) != TP_SUCCESS)
    return fail();
  return 0;
}

static int inside_mask(const image_run *j, int64_t v) {
  return !j->mask.data || (j->mask.data[v] != 0 && !isnan(j->mask.data[v]));
}

/* The coefficients of the voxels inside the mask, in MRtrix3's basis. */
static int gather(image_run *j) {
  const int64_t coeffs = j->fod.values;
  j->inside = 0;
  for (int64_t v = 0; v < j->fod.voxels; ++v)
    j->inside += inside_mask(j, v);
  j->voxel = (int64_t *)malloc(sizeof(int64_t) * (size_t)(j->inside ? j->inside : 1));
  j->sh = (double *)malloc(sizeof(double) * (size_t)(j->inside ? j->inside * coeffs : 1));
  if (!j->voxel || !j->sh)
    return fail();
  for (int64_t v = 0, i = 0; v < j->fod.voxels; ++v)
    if (inside_mask(j, v)) {
      j->voxel[i] = v;
      memcpy(j->sh + i * coeffs, j->fod.data + v * coeffs, sizeof(double) * (size_t)coeffs);
      ++i;
    }
  free(j->fod.data); /* only its geometry is needed from here on */
  j->fod.data = NULL;
  return tp_sh_to_mrtrix(j->c->basis, j->lmax, j->inside, j->sh) == TP_SUCCESS ? 0 : fail();
}

/* ---- the outputs ----------------------------------------------------------------------------- */

/* An image on the input's grid with `values` values per voxel, all NaN. */
static int blank_image(const image_run *j, int64_t values, tp_image *out) {
  memset(out, 0, sizeof *out);
  out->geometry = j->fod.geometry;
  out->geometry.scl_slope = 1.0, out->geometry.scl_inter = 0.0;
  out->voxels = j->fod.voxels, out->values = values, out->values_axis = j->fod.values_axis;
  out->data = (double *)malloc(sizeof(double) * (size_t)(out->voxels * values));
  if (!out->data)
    return fail();
  for (int64_t i = 0; i < out->voxels * values; ++i)
    out->data[i] = NAN;
  return 0;
}

/* The image as an X x Y x Z x values float32 .npy (C order, as numpy indexes [x, y, z]). */
static tp_status write_npy(tp_output_set *set, const char *path, const tp_image *image) {
  int64_t dims[3], shape[4];
  tp_image_spatial_dims(&image->geometry, dims);
  float *c_order = (float *)malloc(sizeof(float) * (size_t)(image->voxels * image->values));
  if (!c_order)
    return TP_ERROR_OUT_OF_MEMORY;
  for (int64_t z = 0, v = 0; z < dims[2]; ++z)
    for (int64_t y = 0; y < dims[1]; ++y)
      for (int64_t x = 0; x < dims[0]; ++x, ++v)
        for (int64_t k = 0; k < image->values; ++k)
          c_order[((x * dims[1] + y) * dims[2] + z) * image->values + k] =
              (float)image->data[v * image->values + k];
  memcpy(shape, dims, sizeof dims);
  shape[3] = image->values;
  tp_status st = tp_npy_write_to(set, path, TP_DTYPE_F32, 4, shape, 0, c_order);
  free(c_order);
  return st;
}

static int write_one(image_run *j, const char *path, const tp_image *image) {
  tp_status st = is_npy_name(path) ? write_npy(j->set, path, image)
                                   : tp_image_write_to(j->set, path, image, TP_DTYPE_F32);
  return st == TP_SUCCESS ? 0 : fail();
}

/* Peak p of each voxel as direction times amplitude (values 3p..3p+2), and with
 * --amplitudes the amplitudes (value p). */
static int write_outputs(image_run *j) {
  const int k = j->c->opt.max_peaks;
  tp_image peaks, amps;
  memset(&amps, 0, sizeof amps);
  int code = blank_image(j, 3 * (int64_t)k, &peaks);
  if (code == 0 && j->c->amplitudes)
    code = blank_image(j, k, &amps);
  for (int64_t i = 0; code == 0 && i < j->inside; ++i)
    for (int p = 0; p < j->r.count[i]; ++p) {
      double a = j->r.amp[i * k + p];
      for (int d = 0; d < 3; ++d)
        peaks.data[j->voxel[i] * 3 * k + 3 * p + d] = a * j->r.dir[(i * k + p) * 3 + d];
      if (amps.data)
        amps.data[j->voxel[i] * k + p] = a;
    }
  if (code == 0)
    code = write_one(j, j->peaks_path, &peaks);
  if (code == 0 && amps.data)
    code = write_one(j, j->amplitudes_path, &amps);
  if (code == 0)
    code = tenport_outputs_commit("peaks", j->set);
  tp_image_free(&peaks);
  tp_image_free(&amps);
  return code;
}

/* ---- the summary ----------------------------------------------------------------------------- */

static void print_summary(const image_run *j) {
  const peaks_cli *c = j->c;
  int64_t dims[3], *hist = (int64_t *)calloc((size_t)c->opt.max_peaks + 1, sizeof(int64_t));
  tp_image_spatial_dims(&j->fod.geometry, dims);
  printf("%s: %s image, %lld x %lld x %lld voxels, lmax %d (%lld coefficients, basis %s)\n",
         tp_input_name(j->in), tp_image_format_name(j->fod.geometry.format), (long long)dims[0],
         (long long)dims[1], (long long)dims[2], j->lmax, (long long)j->fod.values,
         tp_sh_basis_name(c->basis));
  if (c->mask)
    printf("mask %s: %lld of %lld voxels inside\n", c->mask, (long long)j->inside,
           (long long)j->fod.voxels);
  if (hist) {
    tenport_peaks_histogram(c, &j->r, hist);
    tenport_peaks_print_summary(c, j->inside, hist, j->r.nonfinite, j->r.seconds);
    free(hist);
  }
  printf("wrote %s (%lld x %lld x %lld x %d float32: each peak's direction times its "
         "amplitude)",
         j->peaks_path, (long long)dims[0], (long long)dims[1], (long long)dims[2],
         3 * c->opt.max_peaks);
  if (c->amplitudes)
    printf(", %s (the amplitudes)", j->amplitudes_path);
  printf("\n");
}

int tenport_peaks_image(tp_space *s, const peaks_cli *c, tp_input *in) {
  image_run j;
  tp_image_format format;
  memset(&j, 0, sizeof j);
  j.c = c, j.in = in;
  if (tp_image_input_format(in, &format) != TP_SUCCESS)
    return fail();
  int code = reserve_outputs(&j, format);
  if (code == 0)
    code = read_fod(&j);
  if (code == 0 && c->mask)
    code = read_mask(&j);
  if (code == 0)
    code = gather(&j);
  if (code == 0) {
    j.r.voxels = j.inside;
    if (tenport_peaks_compute(s, c, j.lmax, j.sh, &j.r) != TP_SUCCESS)
      code = fail();
  }
  if (code == 0)
    code = write_outputs(&j);
  if (code == 0)
    print_summary(&j);
  run_free(&j);
  return code;
}
