"""tenport peaks and sshopm on several ranks (mpirun): every output file byte for byte the
single process's for any rank count (more ranks than voxels too), C- and Fortran-order
inputs, the same summary, and failures (a missing input, a bad shape, an output that
cannot be written, standard input or a pipe) ending every rank with one message and
nothing written. Also the summaries' counts of non-finite inputs (one process)."""
import os

import numpy as np
import pytest

from conftest import MPIRUN, TENPORT, built_with_mpi, err, mpirun, ok, out, ranks_among, run

FAST = ["--starts", "8", "--maxits", "100"]
PEAKS_FILES = ["directions", "amplitudes", "counts"]
SSHOPM_FILES = ["lambda", "x", "flag", "iterations", "eigenpairs"]
SSHOPM = ["--order", "4", "--dim", "3"]



needs_mpi = pytest.mark.skipif(not MPIRUN or not built_with_mpi(),
                               reason="needs mpirun and a tenport built with MPI")


def sh_image(shape, seed=4):
    """Random lmax 4 coefficients (15 per voxel), one voxel of NaN and one of zeros."""
    x = np.random.default_rng(seed).normal(size=(*shape, 15))
    flat = x.reshape(-1, 15)
    if flat.shape[0] > 2:
        flat[1, 3] = np.nan
        flat[2] = 0
    return x


def tensors(count, seed=5):
    """count order-4, dimension-3 tensors (15 unique values), one holding a NaN."""
    a = np.random.default_rng(seed).normal(size=(count, 15))
    if count > 2:
        a[2, 7] = np.nan
    return a


def save(path, a, order="C"):
    np.save(path, np.asfortranarray(a) if order == "F" else a)


def same_files(folder, names, one="one", many="many"):
    for n in names:
        a = (folder / f"{one}_{n}.npy").read_bytes()
        b = (folder / f"{many}_{n}.npy").read_bytes()
        assert a == b, f"{n}: the distributed file differs from the single process's"


def summary(r):
    """The summary's lines that do not depend on time, input name or rank count."""
    skip = ("time:", "solver:", "distributed:", "wrote")
    return [l.replace("many_", "one_") for l in out(r).splitlines()[1:] if not l.startswith(skip)]


def leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tenport-tmp")]


# ---- byte for byte ------------------------------------------------------------------

@needs_mpi
@pytest.mark.parametrize("ranks", ranks_among(1, 2, 3, 4, 6))
def test_peaks_distributed_equals_one_process(work, ranks):
    save(work / "sh.npy", sh_image((4, 3)))
    one = ok(run("peaks", "--sh", "sh.npy", *FAST, "--output", "one"))
    many = mpirun(ranks, "peaks", "--sh", "sh.npy", *FAST, "--output", "many")
    assert many.returncode == 0, err(many)
    same_files(work, PEAKS_FILES)
    assert summary(many) == summary(one)
    assert "non-finite coefficients: 1 voxel" in out(many)
    assert f"distributed: {ranks} ranks" in out(many)
    assert err(many).strip() == ""
    assert not leftovers(work)


@needs_mpi
@pytest.mark.parametrize("order", ["C", "F"])
def test_peaks_fortran_and_c_order_more_ranks_than_voxels(work, order):
    save(work / "sh.npy", sh_image((5, 1)), order)
    one = ok(run("peaks", "--sh", "sh.npy", *FAST, "--output", "one"))
    many = mpirun(6, "peaks", "--sh", "sh.npy", *FAST, "--output", "many")
    assert many.returncode == 0, err(many)
    same_files(work, PEAKS_FILES)
    assert summary(many) == summary(one)
    assert "voxels per rank 0..1" in out(many)


@needs_mpi
def test_peaks_fortran_order_image(work):
    save(work / "sh.npy", sh_image((3, 2, 2)), "F")
    ok(run("peaks", "--sh", "sh.npy", *FAST, "--output", "one"))
    many = mpirun(4, "peaks", "--sh", "sh.npy", *FAST, "--output", "many", "--max-peaks", "3")
    assert many.returncode == 0, err(many)
    same_files(work, PEAKS_FILES)


@needs_mpi
def test_peaks_one_voxel_on_two_ranks(work):
    save(work / "sh.npy", sh_image(()))
    ok(run("peaks", "--sh", "sh.npy", *FAST, "--output", "one"))
    many = mpirun(2, "peaks", "--sh", "sh.npy", *FAST, "--output", "many")
    assert many.returncode == 0, err(many)
    same_files(work, PEAKS_FILES)


@needs_mpi
@pytest.mark.parametrize("ranks", ranks_among(1, 2, 3, 4, 6))
def test_sshopm_distributed_equals_one_process(work, ranks):
    save(work / "A.npy", tensors(13))
    one = ok(run("sshopm", "--input", "A.npy", *SSHOPM, *FAST, "--output", "one"))
    many = mpirun(ranks, "sshopm", "--input", "A.npy", *SSHOPM, *FAST, "--output", "many")
    assert many.returncode == 0, err(many)
    same_files(work, SSHOPM_FILES)
    assert summary(many) == summary(one)  # the first tensors' eigenpairs and the counts
    assert "1 non-finite tensor(s)" in out(many)
    assert f"distributed: {ranks} ranks" in out(many)
    assert not leftovers(work)


@needs_mpi
@pytest.mark.parametrize("order", ["C", "F"])
def test_sshopm_fortran_and_c_order_more_ranks_than_tensors(work, order):
    save(work / "A.npy", tensors(5), order)
    one = ok(run("sshopm", "--input", "A.npy", *SSHOPM, *FAST, "--output", "one"))
    many = mpirun(6, "sshopm", "--input", "A.npy", *SSHOPM, *FAST, "--output", "many")
    assert many.returncode == 0, err(many)
    same_files(work, SSHOPM_FILES)
    assert summary(many) == summary(one)
    assert "tensors per rank 0..1" in out(many)


@needs_mpi
def test_sshopm_one_tensor_on_three_ranks(work):
    save(work / "A.npy", tensors(1)[0])
    ok(run("sshopm", "--input", "A.npy", *SSHOPM, *FAST, "--output", "one"))
    many = mpirun(3, "sshopm", "--input", "A.npy", *SSHOPM, *FAST, "--output", "many")
    assert many.returncode == 0, err(many)
    same_files(work, SSHOPM_FILES)
    assert np.load(work / "many_lambda.npy").shape == (8,)


# ---- failures -----------------------------------------------------------------------

def one_message(r, cmd):
    assert r.returncode != 0
    lines = [l for l in err(r).splitlines() if l.startswith(f"tenport {cmd}:")]
    assert len(lines) == 1, err(r)
    return lines[0]


def nothing_written(folder, prefix="many"):
    assert not [p.name for p in folder.iterdir() if p.name.startswith(prefix)]
    assert not leftovers(folder)


@needs_mpi
def test_a_missing_input_fails_every_rank_once(work):
    r = mpirun(3, "peaks", "--sh", "missing.npy", "--output", "many", timeout=60)
    assert "missing.npy" in one_message(r, "peaks")
    r = mpirun(3, "sshopm", "--input", "missing.npy", *SSHOPM, "--output", "many", timeout=60)
    assert "missing.npy" in one_message(r, "sshopm")
    nothing_written(work)


@needs_mpi
def test_an_input_missing_on_one_rank_fails_every_rank(work):
    save(work / "A.npy", tensors(6))
    script = ('if [ "$OMPI_COMM_WORLD_RANK" = 2 ]; then f=missing.npy; else f=A.npy; fi; '
              'exec "$0" sshopm --input "$f" --order 4 --dim 3 --starts 8 --output many')
    r = mpirun(3, shell=script, timeout=60)
    line = one_message(r, "sshopm")
    assert "rank 2: " in line and "missing.npy" in line
    nothing_written(work)


@needs_mpi
def test_a_bad_shape_fails_every_rank_once(work):
    np.save(work / "bad.npy", np.zeros((4, 14)))
    r = mpirun(3, "peaks", "--sh", "bad.npy", "--output", "many", timeout=60)
    assert "14 coefficients per voxel" in one_message(r, "peaks")
    r = mpirun(3, "sshopm", "--input", "bad.npy", *SSHOPM, "--output", "many", timeout=60)
    assert "14 values per tensor" in one_message(r, "sshopm")
    nothing_written(work)


@needs_mpi
def test_a_missing_output_folder_leaves_nothing(work):
    save(work / "sh.npy", sh_image((4, 3)))
    r = mpirun(3, "peaks", "--sh", "sh.npy", *FAST, "--output", "no/such/many", timeout=60)
    assert "does not exist" in one_message(r, "peaks")
    nothing_written(work)


@needs_mpi
@pytest.mark.parametrize("cmd", ["peaks", "sshopm"])
def test_a_failed_write_leaves_the_old_files_and_no_temporary(work, cmd):
    """Rank 1 may write files of at most 2048 bytes (a full disk): its rows of the first
    large output fail to be written, on that rank only."""
    if cmd == "peaks":
        save(work / "in.npy", sh_image((60,)))
        args, names = "peaks --sh in.npy", PEAKS_FILES
    else:
        save(work / "in.npy", tensors(40))
        args, names = "sshopm --input in.npy --order 4 --dim 3", SSHOPM_FILES
    for n in names:
        (work / f"many_{n}.npy").write_bytes(b"old")
    script = ('trap "" XFSZ; if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then ulimit -f 4; fi; '
              f'exec "$0" {args} --starts 8 --maxits 100 --output many --force')
    # MPI's shared-memory transport needs larger files than the limit: TCP between ranks
    r = mpirun(3, shell=script, timeout=60, OMPI_MCA_btl="self,tcp")
    line = one_message(r, cmd)
    assert "rank 1: " in line and "File too large" in line
    for n in names:
        assert (work / f"many_{n}.npy").read_bytes() == b"old"
    assert not leftovers(work)


@needs_mpi
def test_standard_input_and_pipes_are_refused(work):
    save(work / "sh.npy", sh_image((4,)))
    r = mpirun(2, "peaks", "--sh", "-", "--output", "many", timeout=60)
    assert "regular file" in one_message(r, "peaks")
    os.mkfifo(work / "fifo")
    r = mpirun(2, "sshopm", "--input", "fifo", *SSHOPM, "--output", "many", timeout=60)
    assert "regular file" in one_message(r, "sshopm")
    nothing_written(work)


@needs_mpi
@pytest.mark.parametrize("cmd", ["peaks", "sshopm"])
def test_the_example_is_refused_under_mpirun(work, cmd):
    r = mpirun(2, cmd, "--example", timeout=60)
    assert r.returncode == 2 or r.returncode != 0
    assert "one process" in one_message(r, cmd)


# ---- counts of non-finite inputs (one process) --------------------------------------

def test_peaks_counts_voxels_with_non_finite_coefficients(work):
    x = sh_image((6,))
    x[4, 0] = np.inf
    save(work / "sh.npy", x)
    r = ok(run("peaks", "--sh", "sh.npy", *FAST))
    assert "non-finite coefficients: 2 voxels (given no peaks)" in out(r)
    counts = np.load(work / "peaks_counts.npy")
    assert counts[1] == 0 and counts[4] == 0 and counts[2] == 0


def test_sshopm_counts_non_finite_tensors_and_lambda_overflow(work):
    a = tensors(3, seed=8)
    a[2] = np.nan
    big = np.vstack([a, np.full((1, 15), 3e38)])  # lambda beyond float32's range
    np.save(work / "A.npy", big)
    r = ok(run("sshopm", "--input", "A.npy", *SSHOPM, "--starts", "8", "--precision", "f32"))
    line = [l for l in out(r).splitlines() if l.startswith("runs:")][0]
    assert "1 non-finite tensor(s), 8 lambda overflow" in line, line
    flags = np.load(work / "sshopm_flag.npy")
    assert (flags[2] == 3).all() and (flags[3] == 4).all()


def test_sshopm_help_names_every_flag():
    r = ok(run("sshopm", "--help"))
    assert "3 the tensor holds a NaN" in out(r) and "4 lambda beyond" in out(r)


@needs_mpi
def test_sh_basis_and_threshold_apply_on_every_rank(work):
    save(work / "sh.npy", sh_image((7,), seed=9))
    opts = ["--sh-basis", "fsl", "--threshold", "0.3", *FAST]
    ok(run("peaks", "--sh", "sh.npy", *opts, "--output", "one"))
    many = mpirun(3, "peaks", "--sh", "sh.npy", *opts, "--output", "many")
    assert many.returncode == 0, err(many)
    same_files(work, PEAKS_FILES)
    ok(run("peaks", "--sh", "sh.npy", *FAST, "--output", "plain"))
    assert (work / "plain_directions.npy").read_bytes() != \
        (work / "one_directions.npy").read_bytes()


@needs_mpi
@pytest.mark.parametrize("extra", [[], ["--mask", "m.nii"], ["--amplitudes", "a.nii"]])
def test_images_and_their_options_run_in_one_process(work, extra):
    header = bytearray(352)
    header[0:4] = (348).to_bytes(4, "little")
    header[344:348] = b"n+1\0"
    (work / "fod.nii").write_bytes(bytes(header))
    save(work / "sh.npy", sh_image((4,)))
    name = "sh.npy" if extra else "fod.nii"
    r = mpirun(2, "peaks", "--sh", name, *extra, "--output", "many", timeout=60)
    assert r.returncode == 2
    assert "images (.nii, .mif) and --mask, --amplitudes run in one process" in \
        one_message(r, "peaks")
    nothing_written(work)
