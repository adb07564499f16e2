/* Diffusion-MRI images: NIfTI-1, NIfTI-2 and .mif written and read back (every format,
 * gzip or not, random sizes and geometries), files written byte by byte here (both byte
 * orders, every datatype, .mif layouts with reversed axes, scaling) read to the values
 * their index formula gives, the accepted and refused layouts, every malformed header
 * with its message, and the grid comparison. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tenport/image.h"
#include "tests/common/tpt.h"

static char image_dir[64];

static void image_setup(void) {
  tpt_setup();
  strcpy(image_dir, "/tmp/tenport-image-XXXXXX");
  cr_assert(mkdtemp(image_dir), "mkdtemp: %s", strerror(errno));
}

static void image_teardown(void) {
  DIR *dir = opendir(image_dir);
  for (struct dirent *e; dir && (e = readdir(dir)) != NULL;) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", image_dir, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      unlink(path);
  }
  if (dir)
    closedir(dir);
  rmdir(image_dir);
  tpt_teardown();
}

TestSuite(image, .init = image_setup, .fini = image_teardown);

/* ---- helpers ------------------------------------------------------------------------- */

static const char *tmp_path(const char *name) {
  static char paths[4][256];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", image_dir, name);
  return p;
}

static void write_bytes(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert(f && fwrite(bytes, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

/* The value the tests put at (x, y, z, c): distinct, and exact in float32. */
static double value_at(int64_t x, int64_t y, int64_t z, int64_t c) {
  return (double)((x * 131 + y * 37 + z * 11 + c * 5) % 2003) * 0.25 - 200.0;
}

/* v rounded to float32 (through a volatile: GCC 12's basic-block vectoriser was seen to
 * drop a plain (double)(float) round trip in random_nifti_geometry at -O2 and -O3). */
static double as_f32(double v) {
  volatile float f = (float)v;
  return (double)f;
}

/* An X x Y x Z image (ndim 3) or X x Y x Z x C (ndim 4) or X x Y x Z x 1 x C (ndim 5),
 * data from value_at. */
static void fill_image(tp_image *im, int ndim, const int64_t dims[3], int64_t values) {
  memset(im, 0, sizeof *im);
  tp_image_geometry *g = &im->geometry;
  g->ndim = ndim;
  for (int a = 0; a < 3; ++a)
    g->dim[a] = dims[a], g->vox[a] = 1.0;
  if (ndim >= 4)
    g->dim[3] = ndim == 5 ? 1 : values, g->vox[3] = 1.0;
  if (ndim == 5)
    g->dim[4] = values, g->vox[4] = 1.0;
  g->scl_slope = 1.0;
  for (int r = 0; r < 3; ++r)
    g->transform[r][r] = 1.0;
  im->voxels = dims[0] * dims[1] * dims[2];
  im->values = values;
  im->values_axis = ndim == 3 ? -1 : ndim == 5 ? 4 : 3;
  im->data = (double *)tpt_host_alloc(sizeof(double) * (size_t)(im->voxels * values));
  for (int64_t z = 0, v = 0; z < dims[2]; ++z)
    for (int64_t y = 0; y < dims[1]; ++y)
      for (int64_t x = 0; x < dims[0]; ++x, ++v)
        for (int64_t c = 0; c < values; ++c)
          im->data[v * values + c] = value_at(x, y, z, c);
}

/* Each value of im equals value_at (rounded to float32 when f32), scaled. */
static void check_values(const tp_image *im, const int64_t dims[3], int64_t values, int f32,
                         double slope, double inter) {
  cr_assert_eq(im->voxels, dims[0] * dims[1] * dims[2]);
  cr_assert_eq(im->values, values);
  for (int64_t z = 0, v = 0; z < dims[2]; ++z)
    for (int64_t y = 0; y < dims[1]; ++y)
      for (int64_t x = 0; x < dims[0]; ++x, ++v)
        for (int64_t c = 0; c < values; ++c) {
          double want = slope * value_at(x, y, z, c) + inter;
          double got = im->data[v * values + c];
          cr_assert(f32 ? fabs(got - want) <= 1e-5 * (1 + fabs(want)) : got == want,
                    "(%lld, %lld, %lld, %lld): %.17g, expected %.17g", (long long)x, (long long)y,
                    (long long)z, (long long)c, got, want);
        }
}

/* A random rotation (columns orthonormal) from a random unit quaternion, a >= 0. */
static void random_rotation(tpt_rng *rng, double q[4], double R[3][3]) {
  double n = 0;
  for (int i = 0; i < 4; ++i)
    q[i] = tpt_uniform(rng, -1, 1), n += q[i] * q[i];
  double scale = sqrt(n) * (q[0] < 0 ? -1 : 1);
  for (int i = 0; i < 4; ++i)
    q[i] /= scale;
  double a = q[0], b = q[1], c = q[2], d = q[3];
  double M[3][3] = {{a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)},
                    {2 * (b * c + a * d), a * a + c * c - b * b - d * d, 2 * (c * d - a * b)},
                    {2 * (b * d - a * c), 2 * (c * d + a * b), a * a + d * d - c * c - b * b}};
  memcpy(R, M, sizeof M);
}

/* A NIfTI geometry as nibabel would set it: qform and sform of one oblique affine, the
 * numbers exact in float32. */
static void random_nifti_geometry(tpt_rng *rng, tp_image_geometry *g, tp_image_format format) {
  double q[4], R[3][3];
  random_rotation(rng, q, R);
  g->format = format;
  g->qform_code = 1, g->sform_code = (int)tpt_int(rng, 1, 4), g->xyzt_units = 10;
  g->pixdim[0] = tpt_int(rng, 0, 1) ? 1.0 : -1.0;
  for (int i = 0; i < 3; ++i) {
    g->pixdim[i + 1] = as_f32(tpt_uniform(rng, 0.5, 3));
    g->quatern[i] = as_f32(q[i + 1]);
    g->qoffset[i] = as_f32(tpt_uniform(rng, -100, 100));
  }
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      g->srow[r][c] = as_f32(R[r][c] * g->pixdim[c + 1] * (c == 2 ? g->pixdim[0] : 1));
    g->srow[r][3] = g->qoffset[r];
  }
}

/* A .mif geometry: a rotation (with a reflection half the time) and voxel sizes. */
static void random_mif_geometry(tpt_rng *rng, tp_image_geometry *g) {
  double q[4], R[3][3];
  random_rotation(rng, q, R);
  int flip = (int)tpt_int(rng, 0, 1);
  g->format = TP_IMAGE_MIF;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      g->transform[r][c] = R[r][c] * (c == 0 && flip ? -1 : 1);
    g->transform[r][3] = tpt_uniform(rng, -100, 100);
  }
  for (int a = 0; a < 3; ++a)
    g->vox[a] = tpt_uniform(rng, 0.5, 3);
}

static void affine_of(const tp_image_geometry *g, double A[3][4]) { tp_image_affine(g, A); }

static void check_affines(const tp_image_geometry *a, const tp_image_geometry *b, double tol,
                          const char *what) {
  double A[3][4], B[3][4];
  affine_of(a, A);
  affine_of(b, B);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      cr_assert(fabs(A[r][c] - B[r][c]) <= tol, "%s: affine[%d][%d] %.17g against %.17g", what, r,
                c, B[r][c], A[r][c]);
}

/* ---- round trips ------------------------------------------------------------------------- */

static const char *const names[] = {"a.nii", "a.nii.gz", "a.mif", "a.mif.gz"};

Test(image, every_format_round_trips_random_images) {
  tpt_rng rng = tpt_rng_fresh();
  for (int round = 0; round < 12; ++round) {
    int64_t dims[3] = {tpt_int(&rng, 1, 9), tpt_int(&rng, 1, 7), tpt_int(&rng, 1, 5)};
    int ndim = (int)tpt_int(&rng, 3, 5);
    int64_t values = ndim == 3 ? 1 : tpt_int(&rng, 2, 29);
    tp_image im, back;
    fill_image(&im, ndim, dims, values);
    for (size_t n = 0; n < sizeof names / sizeof names[0]; ++n)
      for (int f32 = 0; f32 < 2; ++f32) {
        const char *path = tmp_path(names[n]);
        TPT_OK(tp_image_write(path, &im, f32 ? TP_DTYPE_F32 : TP_DTYPE_F64));
        TPT_OK(tp_image_read(path, &back));
        cr_assert_eq(back.geometry.format,
                     strstr(names[n], "mif") ? TP_IMAGE_MIF : TP_IMAGE_NIFTI1);
        check_values(&back, dims, values, f32, 1.0, 0.0);
        cr_assert_eq(back.values_axis, ndim == 3 ? -1 : 3, "%s: values axis %d", names[n],
                     back.values_axis);
        tp_image_free(&back);
        cr_assert_null(back.data);
      }
    tp_image_free(&im);
  }
}

Test(image, nifti_keeps_qform_and_sform_as_stored) {
  tpt_rng rng = tpt_rng_fresh();
  for (int version = 1; version <= 2; ++version) {
    int64_t dims[3] = {5, 3, 4};
    tp_image im, back;
    fill_image(&im, 4, dims, 6);
    random_nifti_geometry(&rng, &im.geometry, version == 1 ? TP_IMAGE_NIFTI1 : TP_IMAGE_NIFTI2);
    const char *path = tmp_path(version == 1 ? "q.nii" : "q2.nii.gz");
    TPT_OK(tp_image_write(path, &im, TP_DTYPE_F32));
    TPT_OK(tp_image_read(path, &back));
    const tp_image_geometry *a = &im.geometry, *b = &back.geometry;
    cr_assert_eq(b->format, a->format, "NIfTI-%d came back as %s", version,
                 tp_image_format_name(b->format));
    cr_assert(b->qform_code == a->qform_code && b->sform_code == a->sform_code &&
              b->xyzt_units == a->xyzt_units);
    for (int i = 0; i < 4; ++i)
      cr_assert_eq(b->pixdim[i], a->pixdim[i], "pixdim[%d]", i);
    for (int i = 0; i < 3; ++i) {
      cr_assert(b->quatern[i] == a->quatern[i] && b->qoffset[i] == a->qoffset[i],
                "NIfTI-%d: the qform changed at %d", version, i);
      for (int c = 0; c < 4; ++c)
        cr_assert_eq(b->srow[i][c], a->srow[i][c], "NIfTI-%d: srow[%d][%d] %.17g, was %.17g",
                     version, i, c, b->srow[i][c], a->srow[i][c]);
    }
    double S[3][4]; /* the affine read is the sform */
    affine_of(b, S);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c)
        cr_assert(fabs(S[r][c] - a->srow[r][c]) < 1e-12, "affine[%d][%d]", r, c);
    check_values(&back, dims, 6, 1, 1.0, 0.0);
    tp_image_free(&back);
    tp_image_free(&im);
  }
}

Test(image, geometry_crosses_between_nifti_and_mif) {
  tpt_rng rng = tpt_rng_fresh();
  for (int round = 0; round < 8; ++round) {
    int64_t dims[3] = {4, 6, 3};
    tp_image im, mif, nii, again;
    fill_image(&im, 4, dims, 3);
    random_mif_geometry(&rng, &im.geometry);
    TPT_OK(tp_image_write(tmp_path("g.mif"), &im, TP_DTYPE_F64));
    TPT_OK(tp_image_read(tmp_path("g.mif"), &mif));
    cr_assert(
        !memcmp(mif.geometry.transform, im.geometry.transform, sizeof im.geometry.transform) &&
            !memcmp(mif.geometry.vox, im.geometry.vox, 3 * sizeof(double)),
        "a .mif's transform and voxel sizes come back exactly");
    TPT_OK(tp_image_write(tmp_path("g.nii"), &mif, TP_DTYPE_F64));
    TPT_OK(tp_image_read(tmp_path("g.nii"), &nii));
    cr_assert(nii.geometry.qform_code == 1 && nii.geometry.sform_code == 1);
    check_affines(&im.geometry, &nii.geometry, 1e-4, ".mif to NIfTI (float32 fields)");
    double Q[3][4], A[3][4]; /* the qform holds the same grid as the sform */
    tp_image_affine(&im.geometry, A);
    tp_image_geometry qonly = nii.geometry;
    qonly.sform_code = 0;
    TPT_OK(tp_image_write(tmp_path("q.nii"),
                          &(tp_image){qonly, nii.voxels, nii.values, nii.values_axis, nii.data},
                          TP_DTYPE_F32));
    tp_image qread;
    TPT_OK(tp_image_read(tmp_path("q.nii"), &qread));
    tp_image_affine(&qread.geometry, Q);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c)
        cr_assert(fabs(Q[r][c] - A[r][c]) < 1e-4, "qform[%d][%d] %g against %g", r, c, Q[r][c],
                  A[r][c]);
    TPT_OK(tp_image_write(tmp_path("h.mif.gz"), &nii, TP_DTYPE_F64));
    TPT_OK(tp_image_read(tmp_path("h.mif.gz"), &again));
    check_affines(&nii.geometry, &again.geometry, 1e-12, "NIfTI to .mif");
    check_values(&again, dims, 3, 0, 1.0, 0.0);
    tp_image_free(&qread);
    tp_image_free(&again);
    tp_image_free(&nii);
    tp_image_free(&mif);
    tp_image_free(&im);
  }
}

Test(image, a_sheared_transform_keeps_the_sform_and_drops_the_qform) {
  int64_t dims[3] = {2, 2, 2};
  tp_image im, back;
  fill_image(&im, 3, dims, 1);
  im.geometry.format = TP_IMAGE_MIF;
  im.geometry.transform[0][1] = 0.5; /* axes not orthogonal: no quaternion holds it */
  TPT_OK(tp_image_write(tmp_path("s.nii"), &im, TP_DTYPE_F32));
  TPT_OK(tp_image_read(tmp_path("s.nii"), &back));
  cr_assert(back.geometry.qform_code == 0 && back.geometry.sform_code == 1);
  check_affines(&im.geometry, &back.geometry, 1e-6, "sheared");
  tp_image_free(&back);
  tp_image_free(&im);
}

Test(image, scaling_is_written_and_applied) {
  int64_t dims[3] = {3, 2, 2};
  for (size_t n = 0; n < sizeof names / sizeof names[0]; ++n) {
    tp_image im, back;
    fill_image(&im, 4, dims, 2);
    im.geometry.scl_slope = 4.0, im.geometry.scl_inter = -2.5;
    TPT_OK(tp_image_write(tmp_path(names[n]), &im, TP_DTYPE_F64));
    TPT_OK(tp_image_read(tmp_path(names[n]), &back));
    cr_assert(back.geometry.scl_slope == 4.0 && back.geometry.scl_inter == -2.5, "%s", names[n]);
    check_values(&back, dims, 2, 0, 1.0, 0.0); /* the values the image was given */
    tp_image_free(&back);
    tp_image_free(&im);
  }
}

Test(image, dimensions_beyond_nifti1_make_nifti2) {
  int64_t dims[3] = {40000, 1, 1};
  tp_image im, back;
  fill_image(&im, 3, dims, 1);
  TPT_OK(tp_image_write(tmp_path("wide.nii"), &im, TP_DTYPE_F32));
  TPT_OK(tp_image_read(tmp_path("wide.nii"), &back));
  cr_assert_eq(back.geometry.format, TP_IMAGE_NIFTI2);
  check_values(&back, dims, 1, 1, 1.0, 0.0);
  tp_image_free(&back);
  tp_image_free(&im);
}

Test(image, writers_refuse_what_they_cannot_write) {
  int64_t dims[3] = {2, 2, 2};
  tp_image im;
  fill_image(&im, 3, dims, 1);
  TPT_FAILS_WITH(tp_image_write(tmp_path("a.img"), &im, TP_DTYPE_F32), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), ".nii, .nii.gz, .mif or .mif.gz"), "%s", tp_last_error());
  TPT_FAILS_WITH(tp_image_write(tmp_path("a.nii"), &im, TP_DTYPE_I32), TP_ERROR_INVALID_ARGUMENT);
  im.voxels = 7;
  TPT_FAILS_WITH(tp_image_write(tmp_path("a.nii"), &im, TP_DTYPE_F32), TP_ERROR_INVALID_ARGUMENT);
  cr_assert_eq(access(tmp_path("a.nii"), F_OK), -1, "nothing was written");
  tp_image_free(&im);
}

/* ---- NIfTI files written here --------------------------------------------------------------- */

typedef struct bytes {
  unsigned char b[4096];
  size_t n;
  int big;
} bytes;

static void put(bytes *h, size_t off, uint64_t v, size_t size) {
  for (size_t i = 0; i < size; ++i)
    h->b[off + (h->big ? size - 1 - i : i)] = (unsigned char)(v >> (8 * i));
  if (off + size > h->n)
    h->n = off + size;
}
static void put_f32(bytes *h, size_t off, double v) {
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, 4);
  put(h, off, u, 4);
}
static void put_f64(bytes *h, size_t off, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  put(h, off, u, 8);
}

/* A NIfTI-1 header: dims, datatype code and bits, qform (a 90 degree turn about z,
 * pixdim 2, 3, 4, qfac -1, offset 1, 2, 3), vox_offset 352, scaling. */
static void nifti1_header(bytes *h, int ndim, const int64_t *dim, int code, int bits, double slope,
                          double inter) {
  memset(h->b, 0, sizeof h->b);
  h->n = 352;
  put(h, 0, 348, 4);
  put(h, 40, (uint64_t)ndim, 2);
  for (int a = 0; a < ndim; ++a)
    put(h, 42 + 2 * (size_t)a, (uint64_t)dim[a], 2);
  put(h, 70, (uint64_t)code, 2);
  put(h, 72, (uint64_t)bits, 2);
  const double pixdim[4] = {-1, 2, 3, 4};
  for (int i = 0; i < 4; ++i)
    put_f32(h, 76 + 4 * (size_t)i, pixdim[i]);
  put_f32(h, 108, 352);
  put_f32(h, 112, slope);
  put_f32(h, 116, inter);
  put(h, 252, 1, 2);          /* qform_code */
  put_f32(h, 264, sqrt(0.5)); /* quatern_d: 90 degrees about z */
  put_f32(h, 268, 1), put_f32(h, 272, 2), put_f32(h, 276, 3);
  memcpy(h->b + 344, "n+1", 4);
}

/* Stores v as the type of NIfTI code at off. */
static void put_value(bytes *h, size_t off, int code, double v) {
  switch (code) {
  case 2:
  case 256: put(h, off, (uint64_t)(int64_t)v, 1); break;
  case 4:
  case 512: put(h, off, (uint64_t)(int64_t)v, 2); break;
  case 8:
  case 768: put(h, off, (uint64_t)(int64_t)v, 4); break;
  case 1024:
  case 1280: put(h, off, (uint64_t)(int64_t)v, 8); break;
  case 16: put_f32(h, off, v); break;
  case 64: put_f64(h, off, v); break;
  }
}

Test(image, every_nifti_datatype_in_both_byte_orders) {
  static const struct {
    int code, bits;
    double lo, hi;
  } types[] = {{2, 8, 0, 255},
               {256, 8, -128, 127},
               {4, 16, -32768, 32767},
               {512, 16, 0, 65535},
               {8, 32, -2147483648.0, 2147483647.0},
               {768, 32, 0, 4294967295.0},
               {1024, 64, -9e15, 9e15},
               {1280, 64, 0, 1.8e16},
               {16, 32, -1e30, 1e30},
               {64, 64, -1e300, 1e300}};
  const int64_t dim[4] = {3, 2, 1, 2};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t)
    for (int big = 0; big < 2; ++big) {
      bytes h;
      h.big = big;
      nifti1_header(&h, 4, dim, types[t].code, types[t].bits, 0, 0);
      size_t size = (size_t)types[t].bits / 8;
      double want[12];
      for (int e = 0; e < 12; ++e) { /* x fastest, the volume slowest */
        want[e] = e % 3 == 0 ? types[t].lo : e % 3 == 1 ? types[t].hi : (double)(e % 100);
        put_value(&h, 352 + (size_t)e * size, types[t].code, want[e]);
      }
      tp_image im;
      TPT_OK(tp_image_read_buffer(h.b, h.n, "t.nii", &im));
      for (int e = 0; e < 12; ++e) {
        int x = e % 3, y = (e / 3) % 2, c = e / 6;
        double got = im.data[(y * 3 + x) * 2 + c];
        double w = types[t].code == 16 ? as_f32(want[e]) : want[e];
        cr_assert_eq(got, w, "datatype %d %s-endian element %d: %.17g, expected %.17g",
                     types[t].code, big ? "big" : "little", e, got, w);
      }
      tp_image_free(&im);
    }
}

Test(image, nifti_qform_and_scaling_read_from_bytes) {
  const int64_t dim[3] = {4, 3, 2};
  bytes h;
  h.big = 1;
  nifti1_header(&h, 3, dim, 4, 16, 0.5, -3.0);
  for (int e = 0; e < 24; ++e)
    put_value(&h, 352 + 2 * (size_t)e, 4, e * 7 - 80);
  tp_image im;
  TPT_OK(tp_image_read_buffer(h.b, h.n, "be.nii", &im));
  for (int e = 0; e < 24; ++e)
    cr_assert_eq(im.data[e], 0.5 * (e * 7 - 80) - 3.0, "element %d", e);
  const double want[3][4] = {{0, -3, 0, 1}, {2, 0, 0, 2}, {0, 0, -4, 3}};
  double A[3][4];
  tp_image_affine(&im.geometry, A);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      cr_assert(fabs(A[r][c] - want[r][c]) < 1e-6, "affine[%d][%d] = %g, expected %g", r, c,
                A[r][c], want[r][c]);
  cr_assert_eq(im.values_axis, -1);
  tp_image_free(&im);
}

/* A NIfTI-2 file, little-endian float64, X x Y x Z x 1 x C, sform only. */
Test(image, nifti2_five_dimensional_layout) {
  bytes h;
  memset(&h, 0, sizeof h);
  const int64_t dim[5] = {2, 3, 2, 1, 4};
  put(&h, 0, 540, 4);
  memcpy(h.b + 4, "n+2\0\r\n\032\n", 8);
  put(&h, 12, 64, 2), put(&h, 14, 64, 2);
  put(&h, 16, 5, 8);
  for (int a = 0; a < 5; ++a)
    put(&h, 24 + 8 * (size_t)a, (uint64_t)dim[a], 8), put_f64(&h, 112 + 8 * (size_t)a, 1.5);
  put(&h, 168, 544, 8);
  put(&h, 348, 2, 4); /* sform_code */
  const double srow[3][4] = {{0, 0, 1.5, 7}, {1.5, 0, 0, 8}, {0, 1.5, 0, 9}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      put_f64(&h, 400 + 32 * (size_t)r + 8 * (size_t)c, srow[r][c]);
  h.n = 544;
  for (int64_t c = 0, e = 0; c < 4; ++c)
    for (int64_t z = 0; z < 2; ++z)
      for (int64_t y = 0; y < 3; ++y)
        for (int64_t x = 0; x < 2; ++x, ++e)
          put_f64(&h, 544 + 8 * (size_t)e, value_at(x, y, z, c));
  tp_image im;
  TPT_OK(tp_image_read_buffer(h.b, h.n, "five.nii", &im));
  cr_assert_eq(im.geometry.format, TP_IMAGE_NIFTI2);
  cr_assert_eq(im.values_axis, 4);
  const int64_t dims[3] = {2, 3, 2};
  check_values(&im, dims, 4, 0, 1.0, 0.0);
  double A[3][4];
  tp_image_affine(&im.geometry, A);
  cr_assert(!memcmp(A, srow, sizeof A), "the sform is the affine");
  tp_image_free(&im);
}

/* ---- .mif files written here ----------------------------------------------------------------- */

/* A .mif of X x Y x Z x C int16 big-endian with the layout -1,+2,+3,+0: the values of a
 * voxel together, x stored backwards; scaling offset 1, scale 0.5. */
Test(image, mif_layout_with_a_reversed_axis) {
  const int64_t X = 3, Y = 2, Z = 2, C = 4;
  char text[512];
  bytes h;
  memset(&h, 0, sizeof h);
  h.big = 1;
  int len = snprintf(text, sizeof text,
                     "mrtrix image\n# written by hand\ndim: %lld,%lld,%lld,"
                     "%lld\nvox: 1.5, 2, 2.5, nan\nlayout: -1,+2,+3,+0\ndatatype: Int16BE\n"
                     "transform: 0,-1,0,10\ntransform: 1,0,0,20\ntransform: 0,0,1,30\n"
                     "scaling: 1,0.5\ncomments: ignored\nfile: . 256\nEND\n",
                     (long long)X, (long long)Y, (long long)Z, (long long)C);
  memcpy(h.b, text, (size_t)len);
  size_t e = 0;
  for (int64_t z = 0; z < Z; ++z)
    for (int64_t y = 0; y < Y; ++y)
      for (int64_t xr = 0; xr < X; ++xr)
        for (int64_t c = 0; c < C; ++c, ++e)
          put(&h, 256 + 2 * e, (uint64_t)(int64_t)(4 * value_at(X - 1 - xr, y, z, c)), 2);
  tp_image im;
  TPT_OK(tp_image_read_buffer(h.b, h.n, "by_hand.mif", &im));
  const int64_t dims[3] = {X, Y, Z};
  check_values(&im, dims, C, 0, 2.0, 1.0); /* 1 + 0.5 * (4 v) */
  const double want[3][4] = {{0, -2, 0, 10}, {1.5, 0, 0, 20}, {0, 0, 2.5, 30}};
  double A[3][4];
  tp_image_affine(&im.geometry, A);
  cr_assert(!memcmp(A, want, sizeof A), "the affine is the transform times the voxel sizes");
  tp_image_free(&im);
}

Test(image, mif_layouts_of_three_axes) {
  static const char *const layouts[] = {"+0,+1,+2", "+2,-0,-1", "-2,+1,+0", "1,0,2"};
  const int64_t X = 3, Y = 4, Z = 2, dim[3] = {X, Y, Z};
  for (size_t t = 0; t < 4; ++t) {
    int rank[3], neg[3], order[3];
    const char *p = layouts[t];
    for (int a = 0; a < 3; ++a) {
      neg[a] = *p == '-';
      p += *p == '-' || *p == '+';
      rank[a] = *p++ - '0';
      order[rank[a]] = a;
      p += *p == ',';
    }
    bytes h;
    memset(&h, 0, sizeof h);
    int len = snprintf((char *)h.b, 256,
                       "mrtrix image\r\ndim: 3,4,2\r\nvox: 1,1,1\r\nlayout: "
                       "%s\r\ndatatype: Float64LE\r\nfile: . 128\r\nEND\r\n",
                       layouts[t]);
    cr_assert(len < 128);
    int64_t idx[3];
    size_t e = 0;
    for (idx[order[2]] = 0; idx[order[2]] < dim[order[2]]; ++idx[order[2]])
      for (idx[order[1]] = 0; idx[order[1]] < dim[order[1]]; ++idx[order[1]])
        for (idx[order[0]] = 0; idx[order[0]] < dim[order[0]]; ++idx[order[0]], ++e) {
          int64_t at[3];
          for (int a = 0; a < 3; ++a)
            at[a] = neg[a] ? dim[a] - 1 - idx[a] : idx[a];
          put_f64(&h, 128 + 8 * e, value_at(at[0], at[1], at[2], 0));
        }
    tp_image im;
    TPT_OK(tp_image_read_buffer(h.b, h.n, "l.mif", &im));
    check_values(&im, dim, 1, 0, 1.0, 0.0);
    tp_image_free(&im);
  }
}

/* ---- layouts refused ------------------------------------------------------------------------- */

static void write_mif_dims(const char *path, const char *dims, int count) {
  char text[600];
  int len = snprintf(text, sizeof text,
                     "mrtrix image\ndim: %s\nvox: 1,1,1\nlayout: %s\n"
                     "datatype: UInt8\nfile: . 200\nEND\n",
                     dims,
                     count == 6   ? "+0,+1,+2,+3,+4,+5"
                     : count == 5 ? "+0,+1,+2,+3,+4"
                                  : "+0,+1,+2,+3");
  memset(text + len, 7, sizeof text - (size_t)len);
  write_bytes(path, text, 200 + 400);
}

Test(image, layouts_accepted_and_refused) {
  tp_image im;
  write_mif_dims(tmp_path("a.mif"), "2,2,2,1,3", 5);
  TPT_OK(tp_image_read(tmp_path("a.mif"), &im));
  cr_assert(im.values == 3 && im.values_axis == 4);
  tp_image_free(&im);
  write_mif_dims(tmp_path("b.mif"), "2,2,2,3,1", 5); /* a trailing axis of size 1 */
  TPT_OK(tp_image_read(tmp_path("b.mif"), &im));
  cr_assert(im.values == 3 && im.values_axis == 3);
  tp_image_free(&im);
  write_mif_dims(tmp_path("c.mif"), "2,2,2,2,3", 5);
  TPT_FAILS_WITH(tp_image_read(tmp_path("c.mif"), &im), TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), "dimensions 2 x 2 x 2 x 2 x 3") &&
                strstr(tp_last_error(), "X x Y x Z x 1 x C"),
            "%s", tp_last_error());
  cr_assert_null(im.data);
  write_mif_dims(tmp_path("d.mif"), "2,2,2,1,3,2", 6);
  TPT_FAILS_WITH(tp_image_read(tmp_path("d.mif"), &im), TP_ERROR_FORMAT);
}

/* ---- malformed headers ----------------------------------------------------------------------- */

/* A valid NIfTI-1 (or -2) file of a 3 x 2 x 2 x 2 float32 image, in memory. */
static size_t valid_nifti(int version, unsigned char *buf, size_t cap) {
  int64_t dims[3] = {3, 2, 2};
  tp_image im;
  fill_image(&im, 4, dims, 2);
  if (version == 2)
    im.geometry.format = TP_IMAGE_NIFTI2;
  const char *path = tmp_path("valid.nii");
  TPT_OK(tp_image_write(path, &im, TP_DTYPE_F32));
  tp_image_free(&im);
  FILE *f = fopen(path, "rb");
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

static void expect_error(const unsigned char *b, size_t n, const char *name, const char *text) {
  tp_image im;
  TPT_FAILS_WITH(tp_image_read_buffer(b, n, name, &im), TP_ERROR_FORMAT);
  cr_assert(strstr(tp_last_error(), text) && strstr(tp_last_error(), name),
            "expected '%s' naming %s in: %s", text, name, tp_last_error());
  cr_assert_null(im.data);
}

Test(image, malformed_nifti_headers_are_named) {
  unsigned char good[2048], b[2048];
  size_t n = valid_nifti(1, good, sizeof good);
  tp_image im;
  TPT_OK(tp_image_read_buffer(good, n, "good.nii", &im));
  tp_image_free(&im);
#define CASE(edit, len, text)              \
  do {                                     \
    memcpy(b, good, n);                    \
    edit;                                  \
    expect_error(b, len, "bad.nii", text); \
  } while (0)
  CASE((void)0, 200, "truncated: its NIfTI-1 header needs 348 bytes");
  CASE(b[0] = 0x5d, n, "sizeof_hdr");
  CASE(memcpy(b + 344, "ni1", 4), n, ".hdr/.img pair");
  CASE(memcpy(b + 344, "xyz", 4), n, "magic");
  CASE(b[40] = 0, n, "dim[0]");
  CASE(b[40] = 9, n, "dim[0]");
  CASE((b[44] = 0xfb, b[45] = 0xff), n, "dim[2] is -5");
  CASE(b[70] = 32, n, "datatype 32 (complex64) is not supported");
  CASE((b[70] = 0x39, b[71] = 0x30), n, "datatype 12345 (no NIfTI datatype) is not supported");
  CASE(b[72] = 64, n, "bitpix is 64");
  CASE((memset(b + 108, 0, 4)), n, "vox_offset is 0");
  CASE((b[110] = 0x80, b[111] = 0x46), n, "vox_offset 16384 is beyond the end of the file");
  CASE((void)0, n - 5, "the data end after");
  CASE((b[264] = 0, b[265] = 0, b[266] = 0xc0, b[267] = 0x7f, b[254] = 0), n, "the qform");
  CASE((b[280] = 0, b[281] = 0, b[282] = 0x80, b[283] = 0x7f), n, "the sform");
  CASE((b[84] = 0, b[85] = 0, b[86] = 0xc0, b[87] = 0x7f), n, "pixdim");
#undef CASE
  n = valid_nifti(2, good, sizeof good);
  memcpy(b, good, n);
  memcpy(b + 8, "\n\n\n\n", 4);
  expect_error(b, n, "bad2.nii", "text-mode transfer");
  expect_error(good, 500, "short2.nii", "NIfTI-2 header needs 540 bytes");
  expect_error((const unsigned char *)"\x93NUMPY", 6, "x.npy", "not an image");
}

static void expect_mif_error(const char *header, const char *text) {
  unsigned char b[1024];
  size_t len = strlen(header);
  memcpy(b, header, len);
  memset(b + len, 0, sizeof b - len);
  expect_error(b, sizeof b, "bad.mif", text);
}

#define MIF_REST "vox: 1,1,1\nlayout: +0,+1,+2\ndatatype: Float32LE\nfile: . 200\nEND\n"

Test(image, malformed_mif_headers_are_named_with_their_line) {
  expect_mif_error("mrtrix imagex\ndim: 2,2,2\n" MIF_REST, "first line is not 'mrtrix image'");
  expect_mif_error("mrtrix image\ndim: 2,2,2\n", "no END line");
  expect_mif_error("mrtrix image\n" MIF_REST, "no 'dim' entry");
  expect_mif_error("mrtrix image\ndim: 2,0,2\n" MIF_REST, "line 2: dim '2,0,2' is not valid");
  expect_mif_error("mrtrix image\ndim: 2,2,2\ndim: 2,2,2\n" MIF_REST, "line 3");
  expect_mif_error("mrtrix image\ndim: 2,2,2,2,2,2,2,2\n" MIF_REST, "at most 7 dimensions");
  expect_mif_error("mrtrix image\ndim 2,2,2\n" MIF_REST, "line 2: 'dim 2,2,2' is not 'key: "
                                                         "value'");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,-1,1\nlayout: +0,+1,+2\ndatatype: "
                   "Float32LE\nfile: . 200\nEND\n",
                   "voxel size of axis 1 is -1");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,1,1\nlayout: +0,+0,+2\ndatatype: "
                   "Float32LE\nfile: . 200\nEND\n",
                   "each once");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,1,1\nlayout: +0,+1\ndatatype: "
                   "Float32LE\nfile: . 200\nEND\n",
                   "the layout has 2 axes");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,1,1\nlayout: +0,+1,+2\ndatatype: "
                   "CFloat32LE\nfile: . 200\nEND\n",
                   "line 5: datatype 'CFloat32LE'");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,1,1\nlayout: +0,+1,+2\ndatatype: "
                   "Float32LE\nfile: data.dat 0\nEND\n",
                   "single-file .mif");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,1,1\nlayout: +0,+1,+2\ndatatype: "
                   "Float32LE\nfile: . 20\nEND\n",
                   "lies inside the header");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,1,1\nlayout: +0,+1,+2\ndatatype: "
                   "Float32LE\nfile: . 5000\nEND\n",
                   "beyond the end of the file");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,1,1\nlayout: +0,+1,+2\ndatatype: "
                   "Float32LE\ntransform: 1,0,0\nfile: . 200\nEND\n",
                   "a row of four numbers");
  expect_mif_error("mrtrix image\ndim: 2,2,2\nvox: 1,1,1\nlayout: +0,+1,+2\ndatatype: "
                   "Float32LE\ntransform: 1,0,0,0\nfile: . 200\nEND\n",
                   "the transform has 1 "
                   "rows");
  expect_mif_error("mrtrix image\ndim: 40,40,40\n" MIF_REST, "the data end after 824 of "
                                                             "their 256000 bytes");
}

/* ---- grids ----------------------------------------------------------------------------------- */

Test(image, grids_compared_within_the_tolerance) {
  tpt_rng rng = tpt_rng_fresh();
  tp_image_geometry a, b;
  memset(&a, 0, sizeof a);
  a.ndim = 3, a.dim[0] = 4, a.dim[1] = 5, a.dim[2] = 6;
  random_mif_geometry(&rng, &a);
  b = a;
  TPT_OK(tp_image_check_same_grid(&a, "fod", &b, "mask", 1e-4));
  b.transform[1][3] = a.transform[1][3] + 1e-6; /* below 1e-4 of the largest voxel size */
  TPT_OK(tp_image_check_same_grid(&a, "fod", &b, "mask", 1e-4));
  b.transform[1][3] = a.transform[1][3] + 0.01;
  TPT_FAILS_WITH(tp_image_check_same_grid(&a, "fod", &b, "mask", 1e-4), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "mask is not on the voxel grid of fod") &&
                strstr(tp_last_error(), "row 1, column 3"),
            "%s", tp_last_error());
  b = a;
  b.dim[2] = 7;
  TPT_FAILS_WITH(tp_image_check_same_grid(&a, "fod", &b, "mask", 1e-4), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "4 x 5 x 7"), "%s", tp_last_error());
}

Test(image, path_formats) {
  int gz = -1;
  cr_assert(tp_image_path_format("a.nii", &gz) == TP_IMAGE_NIFTI1 && gz == 0);
  cr_assert(tp_image_path_format("d/a.NII.GZ", &gz) == TP_IMAGE_NIFTI1 && gz == 1);
  cr_assert(tp_image_path_format("a.mif.gz", &gz) == TP_IMAGE_MIF && gz == 1);
  cr_assert(tp_image_path_format("a.mif", &gz) == TP_IMAGE_MIF && gz == 0);
  cr_assert(tp_image_path_format("a.npy", &gz) == TP_IMAGE_NONE);
  cr_assert(tp_image_path_format(".nii", &gz) == TP_IMAGE_NONE);
}
