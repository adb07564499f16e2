"""tenport peaks on diffusion-MRI images: FOD images written by nibabel (NIfTI-1 and -2,
oblique affines, gzip, 4-D and 5-D) and .mif files written here byte by byte are read,
and the peak images come back on the input's grid with its header fields, as nibabel and
a hand parser open them; masks, the absolute threshold, the amplitudes image, output
formats by name, the SH bases of DIPY and FSL against fibers of known direction, and
malformed headers with their messages."""
import gzip
import math

import numpy as np
import pytest

from conftest import err, ok, out, run, snapshot
from sh_reference import angle_deg, fit_many, random_unit

LMAX, C = 8, 45
FAST = ("--starts", "48")


@pytest.fixture
def nib():
    return pytest.importorskip("nibabel", reason="the NIfTI tests need nibabel "
                               "(tools/setup/deps.sh test installs python3-nibabel)")


def oblique_affine(voxel=(1.5, 2.0, 2.5), angles=(0.3, -0.2, 0.5), shift=(-40, 12.5, 30)):
    ax, ay, az = angles
    rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    rz = np.array([[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]])
    a = np.eye(4)
    a[:3, :3] = rz @ ry @ rx @ np.diag(voxel)
    a[:3, 3] = shift
    return a


WEIGHT = 1.7  # the first fiber's weight: the amplitude of its peak


def fiber_image(shape, seed=5, basis="mrtrix", two=False):
    """An X x Y x Z x C image of one fiber per voxel (two at 90 degrees with two=True,
    weights WEIGHT and 0.6) in random directions; returns the coefficients and the first
    fiber's direction per voxel (X x Y x Z x 3)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    d = random_unit(rng, n)
    voxels = []
    for v in range(n):
        fibers = [(d[v], WEIGHT)]
        if two:
            e = np.cross(d[v], random_unit(rng, 1)[0])
            fibers.append((e / np.linalg.norm(e), 0.6))
        voxels.append(fibers)
    sh = fit_many(basis, LMAX, voxels)
    return sh.reshape(*shape, C), d.reshape(*shape, 3)


def check_peaks(peaks, truth, inside=None, k=3):
    """Each voxel's first peak (a vector of length its amplitude, WEIGHT) along its fiber,
    the other slots NaN; voxels outside the mask all NaN."""
    assert peaks.shape == truth.shape[:3] + (3 * k,)
    for idx in np.ndindex(*truth.shape[:3]):
        p = peaks[idx]
        if inside is not None and not inside[idx]:
            assert np.isnan(p).all(), f"voxel {idx} is outside the mask: {p}"
            continue
        assert angle_deg(p[:3], truth[idx]) < 0.5, f"voxel {idx}: {p[:3]} vs {truth[idx]}"
        assert abs(np.linalg.norm(p[:3]) - WEIGHT) < 1e-3, f"voxel {idx}: amplitude"
        assert np.isnan(p[3:]).all(), f"voxel {idx}: {p[3:]}"


def save_nifti(nib, path, data, affine, version=1, qcode=1, scode=2):
    cls = nib.Nifti1Image if version == 1 else nib.Nifti2Image
    img = cls(data, affine)
    img.set_qform(affine, code=qcode)
    img.set_sform(affine, code=scode)
    img.header.set_xyzt_units("mm", "sec")
    nib.save(img, str(path))
    return img


# ---- NIfTI written by nibabel -----------------------------------------------------------

def test_oblique_nifti_comes_back_with_its_header(work, nib):
    sh, truth = fiber_image((5, 4, 3))
    affine = oblique_affine()
    src = save_nifti(nib, work / "fod.nii", sh.astype(np.float32), affine)
    r = ok(run("peaks", "--input", "fod.nii", "--output", "out.nii", *FAST))
    assert "fod.nii: NIfTI-1 image, 5 x 4 x 3 voxels, lmax 8" in out(r)
    res = nib.load(work / "out.nii")
    assert res.shape == (5, 4, 3, 9) and res.get_data_dtype() == np.float32
    h, g = res.header, src.header
    for field in ("qform_code", "sform_code", "quatern_b", "quatern_c", "quatern_d",
                  "qoffset_x", "qoffset_y", "qoffset_z", "srow_x", "srow_y", "srow_z",
                  "xyzt_units"):
        assert np.array_equal(h[field], g[field]), field
    assert np.array_equal(h["pixdim"][:4], g["pixdim"][:4])
    assert np.array_equal(res.affine, src.affine)
    assert np.array_equal(res.get_qform(), src.get_qform())
    # The directions are in the coefficients' frame: the transform is not applied.
    check_peaks(res.get_fdata(), truth)


def test_gzip_and_nifti2_keep_their_format(work, nib):
    sh, truth = fiber_image((3, 5, 2), seed=6)
    affine = oblique_affine(voxel=(2, 2, 2), angles=(0.1, 0.7, -0.4))
    src = save_nifti(nib, work / "fod.nii.gz", sh, affine, version=2, qcode=1, scode=4)
    r = ok(run("peaks", "-i", "fod.nii.gz", "--amplitudes", "amp", *FAST))
    assert "wrote peaks.nii.gz" in out(r) and "amp.nii.gz (the amplitudes)" in out(r)
    raw = gzip.decompress((work / "peaks.nii.gz").read_bytes())
    assert int.from_bytes(raw[:4], "little") == 540 and raw[4:8] == b"n+2\0"
    res = nib.load(work / "peaks.nii.gz")
    assert isinstance(res, nib.Nifti2Image)
    assert np.array_equal(res.affine, src.affine) and res.header["sform_code"] == 4
    check_peaks(res.get_fdata(), truth)
    amp = nib.load(work / "amp.nii.gz").get_fdata()
    assert amp.shape == (3, 5, 2, 3)
    norms = np.linalg.norm(res.get_fdata()[..., :3], axis=-1)
    assert np.allclose(amp[..., 0], norms, rtol=1e-6) and np.isnan(amp[..., 1:]).all()


def test_five_dimensional_layout_gives_the_same_peaks(work, nib):
    sh, truth = fiber_image((4, 3, 2), seed=8)
    affine = oblique_affine()
    save_nifti(nib, work / "four.nii", sh.astype(np.float32), affine)
    save_nifti(nib, work / "five.nii", sh.astype(np.float32)[:, :, :, None, :], affine)
    ok(run("peaks", "-i", "four.nii", "-o", "p4.nii", *FAST))
    ok(run("peaks", "-i", "five.nii", "-o", "p5.nii", *FAST))
    p4, p5 = nib.load(work / "p4.nii"), nib.load(work / "p5.nii")
    assert p5.shape == (4, 3, 2, 9)
    assert np.array_equal(p4.get_fdata(), p5.get_fdata(), equal_nan=True)
    check_peaks(p5.get_fdata(), truth)


def test_mask_leaves_the_outside_nan_and_must_share_the_grid(work, nib):
    sh, truth = fiber_image((5, 4, 3), seed=9)
    affine = oblique_affine()
    save_nifti(nib, work / "fod.nii", sh.astype(np.float32), affine)
    inside = np.zeros((5, 4, 3), np.uint8)
    inside[1:4, 1:3, :] = 1
    inside[0, 0, 0] = 7  # nonzero is inside
    save_nifti(nib, work / "mask.nii.gz", inside, affine)
    r = ok(run("peaks", "-i", "fod.nii", "--mask", "mask.nii.gz", "-o", "p.nii", *FAST))
    assert f"mask mask.nii.gz: {int((inside != 0).sum())} of 60 voxels inside" in out(r)
    check_peaks(nib.load(work / "p.nii").get_fdata(), truth, inside=inside != 0)
    # A 4-D mask of one volume is a mask too.
    save_nifti(nib, work / "mask4.nii", inside[..., None], affine)
    ok(run("peaks", "-i", "fod.nii", "--mask", "mask4.nii", "-o", "p4.nii", *FAST))
    before = snapshot(work)
    shifted = affine.copy()
    shifted[0, 3] += 0.05
    save_nifti(nib, work / "shifted.nii", inside, shifted)
    save_nifti(nib, work / "small.nii", inside[:4], affine)
    save_nifti(nib, work / "vector.nii", np.stack([inside, inside], axis=-1), affine)
    for mask, text in [("shifted.nii", "shifted.nii is not on the voxel grid of fod.nii"),
                       ("small.nii", "they must be the same"),
                       ("vector.nii", "has 2 values per voxel; a mask is an X x Y x Z image"),
                       ("missing.nii", "cannot open missing.nii")]:
        r = run("peaks", "-i", "fod.nii", "--mask", mask, "-o", "bad.nii", *FAST)
        assert r.returncode == 1 and text in err(r), err(r)
        assert not (work / "bad.nii").exists()
    assert {k: v for k, v in snapshot(work).items() if k in before} == before


def test_sh_basis_of_a_dipy_image(work, nib):
    sh, truth = fiber_image((3, 3, 2), seed=10, basis="dipy", two=True)
    save_nifti(nib, work / "dipy.nii", sh, np.diag([2.0, 2.0, 2.0, 1.0]))
    ok(run("peaks", "-i", "dipy.nii", "--sh-basis", "dipy", "-o", "p.nii", *FAST))
    peaks = nib.load(work / "p.nii").get_fdata()
    for idx in np.ndindex(3, 3, 2):
        assert angle_deg(peaks[idx][:3], truth[idx]) < 0.5
        assert not np.isnan(peaks[idx][3:6]).any()  # the second fiber


def test_outputs_by_name_and_refusals(work, nib):
    sh, truth = fiber_image((3, 2, 2), seed=11)
    affine = oblique_affine()
    save_nifti(nib, work / "fod.nii", sh.astype(np.float32), affine)
    ok(run("peaks", "-i", "fod.nii", "-o", "res", *FAST))  # the input's extension added
    ok(run("peaks", "-i", "fod.nii", "-o", "res.npy", "--amplitudes", "a.mif", *FAST))
    arr = np.load(work / "res.npy")
    assert arr.shape == (3, 2, 2, 9) and arr.dtype == np.float32
    assert np.array_equal(arr, nib.load(work / "res.nii").get_fdata(), equal_nan=True)
    assert (work / "a.mif").read_bytes().startswith(b"mrtrix image\n")
    with open(work / "fod.nii", "rb") as f:  # standard input: the format from the bytes
        r = ok(run("peaks", "-i", "-", *FAST, stdin=f))
    assert "wrote peaks.nii " in out(r)
    before = snapshot(work)
    r = run("peaks", "-i", "fod.nii", "-o", "res.nii", *FAST)
    assert r.returncode == 1 and "'res.nii' exists; --force replaces it" in err(r)
    assert snapshot(work) == before
    ok(run("peaks", "-i", "fod.nii", "-o", "res.nii", "--max-peaks", "2", "--force", *FAST))
    assert nib.load(work / "res.nii").shape == (3, 2, 2, 6)
    r = run("peaks", "-i", "fod.nii", "-o", "fod.nii", "--force", *FAST)
    assert r.returncode != 0 and "inputs" in err(r)


def test_a_three_dimensional_input_and_wrong_counts_are_refused(work, nib):
    save_nifti(nib, work / "t1.nii", np.ones((3, 3, 3), np.float32), np.eye(4))
    save_nifti(nib, work / "seven.nii", np.ones((3, 3, 3, 7), np.float32), np.eye(4))
    r = run("peaks", "-i", "t1.nii")
    assert r.returncode == 1 and "t1.nii is a 3-D image (one value per voxel)" in err(r)
    r = run("peaks", "-i", "seven.nii")
    assert r.returncode == 1 and "7 coefficients per voxel" in err(r)
    assert not (work / "peaks.nii").exists()


# ---- malformed NIfTI headers --------------------------------------------------------------

def nifti_bytes(nib, work):
    sh, _ = fiber_image((2, 2, 2), seed=12)
    save_nifti(nib, work / "good.nii", sh.astype(np.float32), np.eye(4))
    return bytearray((work / "good.nii").read_bytes())


def edited(data, **at):
    b = bytearray(data)
    for off, value in at.items():
        off = int(off[1:])
        b[off:off + len(value)] = value
    return bytes(b)


@pytest.mark.parametrize("name,edit,text", [
    ("truncated", lambda b: bytes(b[:300]), "truncated: its NIfTI-1 header needs 348 bytes"),
    ("sizeof_hdr", lambda b: edited(b, o0=(347).to_bytes(4, "little")),
     "sizeof_hdr (bytes 0-3) is not 348 (NIfTI-1) or 540 (NIfTI-2)"),
    ("dims", lambda b: edited(b, o40=(0).to_bytes(2, "little")), "dim[0]"),
    ("negative_dim", lambda b: edited(b, o46=(-2).to_bytes(2, "little", signed=True)),
     "dim[3] is -2"),
    ("datatype", lambda b: edited(b, o70=(32).to_bytes(2, "little")),
     "datatype 32 (complex64) is not supported"),
    ("bitpix", lambda b: edited(b, o72=(8).to_bytes(2, "little")), "bitpix is 8"),
    ("vox_offset", lambda b: edited(b, o108=np.float32(1e6).tobytes()),
     "vox_offset 1000000 is beyond the end of the file"),
    ("data", lambda b: bytes(b[:-7]), "the data end after"),
])
def test_malformed_nifti_headers_are_named(work, nib, name, edit, text):
    (work / "bad.nii").write_bytes(edit(nifti_bytes(nib, work)))
    r = run("peaks", "-i", "bad.nii")
    assert r.returncode == 1 and "bad.nii" in err(r) and text in err(r), err(r)
    assert not (work / "peaks.nii").exists()


# ---- .mif written here -------------------------------------------------------------------

def write_mif(path, data, layout, vox, transform, datatype="<f4", name="Float32LE",
              offset=512):
    """data X x Y x Z x C stored with a .mif layout (ranks 0 fastest, '-' backwards)."""
    ranks = [int(t.lstrip("+-")) for t in layout.split(",")]
    neg = [t.startswith("-") for t in layout.split(",")]
    arr = data
    for a, flip in enumerate(neg):
        if flip:
            arr = np.flip(arr, axis=a)
    order = sorted(range(4), key=lambda a: ranks[a])  # fastest first
    stored = np.transpose(arr, order[::-1]).astype(datatype)  # C order: last index fastest
    rows = "".join("transform: " + ",".join(repr(float(v)) for v in row) + "\n"
                   for row in transform)
    head = (f"mrtrix image\ndim: {','.join(map(str, data.shape))}\n"
            f"vox: {','.join(map(str, vox))}\nlayout: {layout}\ndatatype: {name}\n{rows}"
            f"command_history: written by hand\nfile: . {offset}\nEND\n").encode()
    assert len(head) <= offset
    path.write_bytes(head + b"\0" * (offset - len(head)) + stored.tobytes())


def read_mif(path):
    """A .mif header as a dict of lists of lines, and the data from its offset."""
    raw = path.read_bytes()
    end = raw.index(b"\nEND\n")
    keys = {}
    for line in raw[:end].decode().splitlines()[1:]:
        k, v = line.split(":", 1)
        keys.setdefault(k.strip(), []).append(v.strip())
    offset = int(keys["file"][0].split()[1])
    return keys, raw, offset


def test_hand_written_mif_with_a_reversed_axis(work):
    sh, truth = fiber_image((4, 3, 2), seed=13)
    transform = [[0.0, -1.0, 0.0, 12.5], [1.0, 0.0, 0.0, -3.0], [0.0, 0.0, 1.0, 7.25]]
    write_mif(work / "fod.mif", sh, "-1,+2,+3,+0", (1.25, 2.0, 3.0, 1.0), transform,
              datatype=">f8", name="Float64BE")
    r = ok(run("peaks", "-i", "fod.mif", "-o", "p.npy", *FAST))
    assert "fod.mif: MRtrix .mif image, 4 x 3 x 2 voxels, lmax 8" in out(r)
    peaks = np.load(work / "p.npy")
    check_peaks(peaks, truth)
    ok(run("peaks", "-i", "fod.mif", "--amplitudes", "a.mif.gz", *FAST))
    keys, raw, offset = read_mif(work / "peaks.mif")
    assert keys["dim"] == ["4,3,2,9"] and keys["layout"] == ["+1,+2,+3,+0"]
    assert keys["datatype"] == ["Float32LE"]
    assert [float(v) for v in keys["vox"][0].split(",")[:3]] == [1.25, 2.0, 3.0]
    assert [[float(v) for v in row.split(",")] for row in keys["transform"]] == transform
    assert offset % 16 == 0 and offset >= raw.index(b"\nEND\n") + 5
    stored = np.frombuffer(raw[offset:], "<f4").reshape(2, 3, 4, 9)  # z, y, x, value
    assert np.array_equal(stored.transpose(2, 1, 0, 3), peaks, equal_nan=True)
    amp = gzip.decompress((work / "a.mif.gz").read_bytes())
    assert amp.startswith(b"mrtrix image\ndim: 4,3,2,3\n")


@pytest.mark.parametrize("edit,text", [
    (lambda h: h.replace(b"layout: -1,+2,+3,+0", b"layout: -1,+2,+2,+0"), "each once"),
    (lambda h: h.replace(b"datatype: Float64BE", b"datatype: Bit"), "datatype 'Bit'"),
    (lambda h: h.replace(b"file: . 512", b"file: fod.dat 0"), "single-file .mif"),
    (lambda h: h.replace(b"\nEND\n", b"\nEND?\n"), "no END line"),
    (lambda h: h.replace(b"dim: 4,3,2,45", b"dim: 4,3,2,45,2"), "the layout has 4 axes"),
])
def test_malformed_mif_headers_are_named(work, edit, text):
    sh, _ = fiber_image((4, 3, 2), seed=14)
    write_mif(work / "fod.mif", sh, "-1,+2,+3,+0", (1, 1, 1, 1), np.eye(4)[:3].tolist(),
              datatype=">f8", name="Float64BE")
    (work / "bad.mif").write_bytes(edit((work / "fod.mif").read_bytes()))
    r = run("peaks", "-i", "bad.mif")
    assert r.returncode == 1 and "bad.mif" in err(r) and text in err(r), err(r)


# ---- SH bases and thresholds on .npy inputs --------------------------------------------------

@pytest.mark.parametrize("basis", ["mrtrix", "dipy", "dipy-nonlegacy", "fsl"])
def test_each_basis_finds_the_fibers_it_was_written_with(work, basis):
    sh, truth = fiber_image((6,), seed=15, basis=basis, two=True)
    np.save(work / "sh.npy", sh)
    ok(run("peaks", "--input", "sh.npy", "--sh-basis", basis, "--output", "p", *FAST))
    dirs, counts = np.load(work / "p_directions.npy"), np.load(work / "p_counts.npy")
    assert (counts == 2).all(), counts
    for v in range(6):
        assert min(angle_deg(dirs[v, j], truth[v]) for j in range(2)) < 0.5
    if basis != "mrtrix":  # read as MRtrix3's, the same numbers give other peaks
        ok(run("peaks", "--input", "sh.npy", "--output", "wrong", *FAST))
        wrong = np.load(work / "wrong_directions.npy")
        assert max(min(angle_deg(wrong[v, j], truth[v]) for j in range(3)
                       if not np.isnan(wrong[v, j]).any()) for v in range(6)) > 5


def test_threshold_is_an_absolute_amplitude(work):
    d = [[1, 0, 0], [0, 1, 0]]
    sh = fit_many("mrtrix", LMAX, [[(d[0], 2.0), (d[1], 1.0)]])  # amplitudes 2 and 1
    np.save(work / "sh.npy", sh)
    for threshold, count in [("0.9", 2), ("1.1", 1), ("2.5", 0)]:
        ok(run("peaks", "-i", "sh.npy", "--min-amplitude", "0", "--threshold", threshold,
               "-o", "t", "--force", *FAST))
        assert np.load(work / "t_counts.npy")[0] == count, threshold
    amps = np.load(work / "t_amplitudes.npy")
    assert np.isnan(amps).all()


@pytest.mark.parametrize("args,text", [
    (["-i", "sh.npy", "--mask", "m.nii"], "--mask applies to image inputs"),
    (["-i", "sh.npy", "--amplitudes", "a.nii"], "--amplitudes applies to image inputs"),
    (["--example", "--mask", "m.nii"], "--mask, --amplitudes and --sh-basis apply to an"),
    (["-i", "sh.npy", "--sh-basis", "descoteaux"], "expected mrtrix, dipy, dipy-nonlegacy "
                                                    "or fsl"),
    (["-i", "sh.npy", "--threshold", "nan"], "--threshold 'nan' is not valid"),
])
def test_options_that_do_not_apply_are_refused(work, args, text):
    np.save(work / "sh.npy", fit_many("mrtrix", 4, [[([0, 0, 1], 1.0)]]))
    r = run("peaks", *args)
    assert r.returncode == 2 and text in err(r), err(r)


def test_what_is_not_coefficients_is_named(work):
    (work / "notes.txt").write_text("1 2 3\n")
    r = run("peaks", "-i", "notes.txt")
    assert r.returncode == 1
    assert "not spherical-harmonic coefficients (.npy, .nii, .nii.gz, .mif, .mif.gz)" in err(r)
