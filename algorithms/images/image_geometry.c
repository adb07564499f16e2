/* Image geometry: the voxel-to-scanner affine in its three spellings (NIfTI's qform
 * quaternion with qfac, NIfTI's sform rows, MRtrix3's unit-axis transform with voxel
 * sizes), conversions between them, and whether two images share a voxel grid. The
 * qform follows the NIfTI-1 standard's nifti1.h: R from the quaternion (b, c, d) with
 * a = sqrt(1 - b^2 - c^2 - d^2), columns scaled by pixdim[1..3], the third also by qfac. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/images/tp_image_internal.h"

void tp_image_affine(const tp_image_geometry *g, double affine[3][4]) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      affine[r][c] = g->transform[r][c] * g->vox[c];
    affine[r][3] = g->transform[r][3];
  }
}

/* ---- the qform ----------------------------------------------------------------------- */

/* The rotation of a unit quaternion given by (b, c, d); a non-unit (b, c, d) is scaled
 * to unit length with a = 0, as nifti1_io does. */
static void quaternion_rotation(const double q[3], double R[3][3]) {
  double b = q[0], c = q[1], d = q[2], a = 1.0 - (b * b + c * c + d * d);
  if (a < 1e-7) {
    double s = sqrt(b * b + c * c + d * d);
    a = 0.0;
    if (s > 0)
      b /= s, c /= s, d /= s;
  } else {
    a = sqrt(a);
  }
  R[0][0] = a * a + b * b - c * c - d * d;
  R[0][1] = 2 * (b * c - a * d);
  R[0][2] = 2 * (b * d + a * c);
  R[1][0] = 2 * (b * c + a * d);
  R[1][1] = a * a + c * c - b * b - d * d;
  R[1][2] = 2 * (c * d - a * b);
  R[2][0] = 2 * (b * d - a * c);
  R[2][1] = 2 * (c * d + a * b);
  R[2][2] = a * a + d * d - c * c - b * b;
}

void tpi_nifti_qform_affine(const double quatern[3], const double qoffset[3],
                            const double pixdim[8], double affine[3][4]) {
  double R[3][3], qfac = pixdim[0] < 0 ? -1.0 : 1.0;
  quaternion_rotation(quatern, R);
  for (int c = 0; c < 3; ++c) {
    double size = pixdim[c + 1] > 0 ? pixdim[c + 1] : 1.0; /* nifti1_io's rule */
    if (c == 2)
      size *= qfac;
    for (int r = 0; r < 3; ++r)
      affine[r][c] = R[r][c] * size;
  }
  for (int r = 0; r < 3; ++r)
    affine[r][3] = qoffset[r];
}

void tpi_image_set_affine(tp_image_geometry *g, const double affine[3][4]) {
  for (int c = 0; c < 3; ++c) {
    double n = hypot(hypot(affine[0][c], affine[1][c]), affine[2][c]); /* no overflow */
    for (int r = 0; r < 3; ++r)
      g->transform[r][c] = n > 0 ? affine[r][c] / n : (double)(r == c);
    g->vox[c] = n;
  }
  for (int r = 0; r < 3; ++r)
    g->transform[r][3] = affine[r][3];
}

static double det3(double R[3][3]) {
  return R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) -
         R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
         R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
}

/* (a, b, c, d) of a rotation, a >= 0 (Shepperd's method: the largest of the four first). */
static void rotation_quaternion(double R[3][3], double q[4]) {
  double t = R[0][0] + R[1][1] + R[2][2];
  if (t > R[0][0] && t > R[1][1] && t > R[2][2]) {
    double s = 2.0 * sqrt(1.0 + t);
    q[0] = 0.25 * s, q[1] = (R[2][1] - R[1][2]) / s, q[2] = (R[0][2] - R[2][0]) / s;
    q[3] = (R[1][0] - R[0][1]) / s;
  } else if (R[0][0] >= R[1][1] && R[0][0] >= R[2][2]) {
    double s = 2.0 * sqrt(1.0 + R[0][0] - R[1][1] - R[2][2]);
    q[0] = (R[2][1] - R[1][2]) / s, q[1] = 0.25 * s, q[2] = (R[0][1] + R[1][0]) / s;
    q[3] = (R[0][2] + R[2][0]) / s;
  } else if (R[1][1] >= R[2][2]) {
    double s = 2.0 * sqrt(1.0 + R[1][1] - R[0][0] - R[2][2]);
    q[0] = (R[0][2] - R[2][0]) / s, q[1] = (R[0][1] + R[1][0]) / s, q[2] = 0.25 * s;
    q[3] = (R[1][2] + R[2][1]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + R[2][2] - R[0][0] - R[1][1]);
    q[0] = (R[1][0] - R[0][1]) / s, q[1] = (R[0][2] + R[2][0]) / s;
    q[2] = (R[1][2] + R[2][1]) / s, q[3] = 0.25 * s;
  }
  if (q[0] < 0)
    for (int i = 0; i < 4; ++i)
      q[i] = -q[i];
}

void tpi_nifti_qform_of(const double transform[3][4], double quatern[3], double qoffset[3],
                        double *qfac) {
  double R[3][3], q[4];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      R[r][c] = transform[r][c];
  *qfac = 1.0;
  if (det3(R) < 0) { /* a left-handed grid: the third axis flipped, qfac -1 */
    for (int r = 0; r < 3; ++r)
      R[r][2] = -R[r][2];
    *qfac = -1.0;
  }
  rotation_quaternion(R, q);
  for (int i = 0; i < 3; ++i)
    quatern[i] = q[i + 1], qoffset[i] = transform[i][3];
}

/* ---- comparing grids ----------------------------------------------------------------- */

tp_status tp_image_check_same_grid(const tp_image_geometry *a, const char *name_a,
                                   const tp_image_geometry *b, const char *name_b,
                                   double tolerance) {
  TP_CHECK_ARG(a && b && name_a && name_b, "a geometry or a name is NULL");
  int64_t da[3], db[3];
  tp_image_spatial_dims(a, da);
  tp_image_spatial_dims(b, db);
  if (memcmp(da, db, sizeof da) != 0)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%s has %lld x %lld x %lld voxels and %s "
                    "%lld x %lld x %lld: they must be the same",
                    name_b, (long long)db[0], (long long)db[1], (long long)db[2], name_a,
                    (long long)da[0], (long long)da[1], (long long)da[2]);
  double A[3][4], B[3][4], largest = 0;
  tp_image_affine(a, A);
  tp_image_affine(b, B);
  for (int c = 0; c < 3; ++c)
    largest = fmax(largest, fabs(a->vox[c]));
  double limit = tolerance * (largest > 0 ? largest : 1.0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      if (!(fabs(A[r][c] - B[r][c]) <= limit))
        return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                        "%s is not on the voxel grid of %s: "
                        "their voxel-to-scanner affines differ at row %d, column %d (%.9g "
                        "against %.9g; at most %.3g mm is allowed)",
                        name_b, name_a, r, c, B[r][c], A[r][c], limit);
  return TP_SUCCESS;
}
