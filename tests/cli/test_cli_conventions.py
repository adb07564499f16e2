"""The option conventions every command follows (tools/tenport/cli_conventions.h):
--name=value, short forms, one spelling per concept with the old ones still taken, and
--threads, --device and --force on every command; each refusal says what is accepted."""
import numpy as np
import pytest

from conftest import (built_with_mpi, err, kofidis_regalia, mpirun, ok, out, planted_dense,
                      run, sh_voxels, snapshot, write_tns)


@pytest.fixture
def inputs(work):
    planted_dense(work / "D.npy", (12, 10, 8), rank=2)
    write_tns(work / "X.tns", (7, 9, 11), 150, seed=4)
    np.save(work / "SH.npy", sh_voxels(20))
    np.save(work / "A.npy", np.stack([kofidis_regalia()] * 3))
    return work


def results(folder, prefix):
    return {p.name: p.read_bytes() for p in sorted(folder.glob(prefix + "*"))}


# The same run spelled three ways: long options with separate values, --name=value, and
# short forms (attached values too); each writes its results under its own prefix.
SPELLINGS = [
    ["--input", "D.npy", "--rank", "2", "--seed", "5", "--max-iters", "4", "--quiet",
     "--output"],
    ["--input=D.npy", "--rank=2", "--seed=5", "--max-iters=4", "--quiet", "--output"],
    ["-i", "D.npy", "-r2", "-s", "5", "--maxiters", "4", "-q", "-o"],
]


def test_every_spelling_of_a_run_gives_the_same_results(inputs):
    found = []
    for k, args in enumerate(SPELLINGS):
        ok(run("cp-als", *args, f"m{k}"))
        found.append({name[2:]: data for name, data in results(inputs, f"m{k}_").items()})
    assert found[0] and found[0] == found[1] == found[2]


@pytest.mark.parametrize("old,new", [("--maxits", "--max-iters"), ("--max-iter", "--max-iters")])
def test_old_spellings_of_max_iters_are_taken(inputs, old, new):
    for spelling, prefix in ((old, "a"), (new, "b")):
        ok(run("sshopm", "-i", "A.npy", "--order", "4", "--dim", "3", spelling, "300",
               "--output", prefix))
    a, b = results(inputs, "a_"), results(inputs, "b_")
    assert a and [v for v in a.values()] == [v for v in b.values()]


def test_shape_is_taken_for_dims_and_sh_for_input(inputs):
    ok(run("gen", "dense", "--shape", "4x5x6", "--output", "g1.npy"))
    ok(run("gen", "dense", "--dims=4x5x6", "--output", "g2.npy"))
    assert (inputs / "g1.npy").read_bytes() == (inputs / "g2.npy").read_bytes()
    ok(run("peaks", "--sh", "SH.npy", "--starts", "8", "--output", "p1"))
    ok(run("peaks", "-i", "SH.npy", "--starts", "8", "--output", "p2"))
    assert list(results(inputs, "p1_").values()) == list(results(inputs, "p2_").values())


# Every command takes --threads and --device (here the CPU's device 0).
EVERY = [
    ["cp-als", "-i", "D.npy", "-r", "2", "--max-iters", "2", "-q", "-o", "c"],
    ["cp-als", "-i", "X.tns", "-r", "2", "--max-iters", "2", "-q", "-o", "s"],
    ["sttid", "-i", "X.tns", "--rmax", "4", "--eps", "0", "-q", "-o", "t"],
    ["sshopm", "--example"],
    ["peaks", "-i", "SH.npy", "--starts", "8", "-o", "p"],
    ["gen", "dense", "--dims", "3x4x5", "-o", "G.npy"],
    ["convert", "-i", "X.tns", "-o", "Y.tpb"],
]


@pytest.mark.parametrize("args", EVERY, ids=lambda a: " ".join(a[:2]))
def test_threads_and_device_are_taken_by_every_command(inputs, args):
    ok(run(*args, "--threads=2", "--device", "0"))
    ok(run(*args, "-t", "1", "--device=0", "--force"))


@pytest.mark.parametrize("args,message", [
    (["--threads", "0"], "--threads '0' is not valid: expected an integer from 1 to 4096"),
    (["-t", "x"], "--threads 'x' is not valid: expected an integer from 1"),
    (["--device", "64"], "--device '64' is not valid: expected a device from 0 to"),
    (["--force=yes"], "--force takes no value"),
    (["-x"], "unknown option '-x' (short forms: -r rank, -i input, -o output, -s seed"),
    (["-q5"], "unknown option '-q5'"),
    (["--max-iters=0"], "--max-iters '0' is not valid: expected an integer from 1"),
    (["--rank="], "--rank '' is not valid"),
])
def test_a_refused_convention_says_what_is_accepted(inputs, args, message):
    r = run("cp-als", "-i", "D.npy", "-r", "2", *args)
    assert r.returncode == 2, out(r) + err(r)
    assert message in err(r), err(r)
    assert not list(inputs.glob("cp_*"))


def test_an_existing_output_is_kept_without_force(inputs):
    ok(run("gen", "dense", "--dims", "4x5x6", "-o", "G.npy"))
    before = snapshot(inputs)
    r = run("gen", "dense", "--dims", "4x5x6", "--seed", "9", "-o", "G.npy")
    assert r.returncode == 1
    assert "'G.npy' exists; --force replaces it, or name another output" in err(r)
    assert snapshot(inputs) == before
    ok(run("gen", "dense", "--dims", "4x5x6", "--seed", "9", "-o", "G.npy", "--force"))
    assert snapshot(inputs) != before


def test_help_lists_the_conventions_for_every_command():
    for words in (["cp-als"], ["sttid"], ["sshopm"], ["peaks"], ["convert"], ["gen", "dense"],
                  ["gen", "sparse"], ["bench"]):
        r = run(*words, "-h")
        assert r.returncode == 0, words
        assert "--force" in out(r) and "--name=value" in out(r), words


@pytest.mark.skipif(not built_with_mpi(), reason="a build without MPI")
def test_device_is_refused_in_a_distributed_run(inputs):
    r = mpirun(2, "cp-als", "-i", "X.tns", "-r", "2", "--max-iters", "1", "-q", "--device", "0")
    assert r.returncode == 2
    assert b"--device does not apply to a distributed run" in r.stderr
