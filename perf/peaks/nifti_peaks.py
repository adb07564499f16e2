#!/usr/bin/env python3
"""A FOD image in NIfTI through `tenport peaks` with a brain mask, its output opened by
nibabel: the phantom of `tenport peaks --example` (16 x 16 x 1 voxels of one, two and
three crossing fibers, lmax 8) written by nibabel as a gzipped NIfTI-1 FOD with an oblique
affine, a mask that leaves out a border of voxels, then the peak image checked: same
affine, qform/sform codes and voxel sizes, X x Y x Z x 9 float32, NaN outside the mask,
and inside it the same peaks as the .npy path (`tenport peaks --input SH.npy`) gives,
each a direction scaled by its amplitude.
Usage: perf/peaks/nifti_peaks.py TENPORT [FOLDER]"""
import math
import os
import subprocess
import sys
import tempfile

import nibabel as nib
import numpy as np


def tenport(*args, cwd):
    r = subprocess.run([TENPORT, *args], cwd=cwd, capture_output=True, text=True)
    print("$ tenport " + " ".join(args))
    print(r.stdout + r.stderr, end="")
    if r.returncode != 0:
        sys.exit(f"exit {r.returncode}")


def oblique(voxel=(2.0, 2.0, 2.5), angles=(0.25, -0.15, 0.4), shift=(-16.0, 20.0, 4.0)):
    ax, ay, az = angles
    rx = [[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]]
    ry = [[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]]
    rz = [[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]]
    a = np.eye(4)
    a[:3, :3] = np.array(rz) @ np.array(ry) @ np.array(rx) @ np.diag(voxel)
    a[:3, 3] = shift
    return a


TENPORT = os.path.abspath(sys.argv[1])
work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
os.makedirs(work, exist_ok=True)
tenport("peaks", "--example", "--output", "ph", "--force", cwd=work)
sh = np.load(os.path.join(work, "ph_sh.npy"))            # 16 x 16 x 1 x 45
affine = oblique()
fod = nib.Nifti1Image(sh.astype(np.float32), affine)
fod.set_qform(affine, code=1)
fod.set_sform(affine, code=1)
nib.save(fod, os.path.join(work, "fod.nii.gz"))
mask = np.zeros(sh.shape[:3], np.uint8)
mask[2:14, 1:15, :] = 1
nib.save(nib.Nifti1Image(mask, affine), os.path.join(work, "mask.nii.gz"))
tenport("peaks", "--input", "fod.nii.gz", "--mask", "mask.nii.gz", "--output",
        "peaks.nii.gz", "--force", cwd=work)
tenport("peaks", "--input", "ph_sh.npy", "--output", "np", "--force", cwd=work)

out = nib.load(os.path.join(work, "peaks.nii.gz"))
data = out.get_fdata(dtype=np.float64)
print(f"nibabel: {out.shape} {out.get_data_dtype()}, zooms {out.header.get_zooms()[:3]}, "
      f"qform code {int(out.header['qform_code'])}, sform code {int(out.header['sform_code'])}")
assert out.shape == (16, 16, 1, 9) and out.get_data_dtype() == np.float32
assert np.allclose(out.affine, fod.affine, atol=1e-5), (out.affine, fod.affine)
assert np.allclose(out.header.get_zooms()[:3], fod.header.get_zooms()[:3])
inside = mask.astype(bool)
assert np.isnan(data[~inside]).all()
directions = np.load(os.path.join(work, "np_directions.npy"))   # 16 x 16 x 1 x 3 x 3
amplitudes = np.load(os.path.join(work, "np_amplitudes.npy"))   # 16 x 16 x 1 x 3
want = (directions * amplitudes[..., None]).reshape(16, 16, 1, 9)
both = inside[..., None] & ~np.isnan(want)
diff = np.abs(data[both] - want[both]).max()
print(f"voxels inside the mask: {inside.sum()} of {inside.size}; peaks there: "
      f"{int(np.isfinite(data[inside]).sum() // 3)}; largest difference from the .npy "
      f"path's peaks: {diff:.2e} (float32 output)")
assert np.array_equal(np.isnan(data[inside]), np.isnan(want[inside])) and diff < 1e-5
print("check: passed")
