"""Outputs are written as a set: a run that fails part way (a full disk, here a file-size
limit) leaves the previous results byte for byte; temporaries never follow a link; a
replaced file keeps its permissions; every output location is checked before the work;
no output may replace an input; stale temporaries of killed runs are cleaned up."""
import os
import stat
import subprocess

import numpy as np
import pytest

from conftest import (backend, err, kofidis_regalia, ok, out, planted_dense, run, sh_voxels,
                      snapshot, temporaries, write_tns)


@pytest.fixture
def inputs(work):
    write_tns(work / "X.tns", (7, 9, 11), 150, seed=4)
    write_tns(work / "Z.tns", (7, 9, 11), 150, seed=5)
    planted_dense(work / "D.npy", (60, 50, 40), rank=3)
    np.save(work / "A.npy", np.stack([kofidis_regalia()] * 40))
    np.save(work / "SH.npy", sh_voxels(300))
    return work


# Commands that write several files, the options of a first run and of a second run whose
# results differ, and a file-size limit at which the second run's writing fails after
# its first, small files were written.
SETS = {
    "cp-als dense": (["cp-als", "--input", "D.npy", "--rank", "3", "--maxiters", "2",
                      "--quiet", "--output", "m"], ["--seed", "7"], 1500),
    "cp-als sparse": (["cp-als", "--input", "X.tns", "--rank", "6", "--maxiters", "2",
                       "--quiet", "--output", "m"], ["--seed", "7"], 300),
    "sttid": (["sttid", "--rmax", "100", "--eps", "0", "--quiet", "--output", "t"],
              None, 600),
    "sshopm": (["sshopm", "--input", "A.npy", "--order", "4", "--dim", "3", "--output", "s"],
               ["--seed", "9"], 100000),
    "peaks": (["peaks", "--sh", "SH.npy", "--output", "p"], ["--seed", "9"], 3000),
    "gen dense": (["gen", "dense", "--shape", "20x30x10", "--rank", "2", "--truth", "g",
                   "--output", "G.npy"], ["--seed", "5"], 1000),
}
# The last file each set writes.
LAST = {"cp-als dense": "m_factor2.npy", "cp-als sparse": "m_factor2.npy",
        "sttid": "t.tci", "sshopm": "s_eigenpairs.npy", "peaks": "p_counts.npy",
        "gen dense": "g_factor2.npy"}


def first_and_second(name):
    """A first run, and a second that replaces its outputs (--force)."""
    args, change, _ = SETS[name]
    if name == "sttid":  # another input gives another tensor train
        return args + ["--input", "X.tns"], args + ["--input", "Z.tns", "--force"]
    return args, args + change + ["--force"]


@pytest.mark.parametrize("name", sorted(SETS))
def test_an_existing_output_is_replaced_only_with_force(inputs, name):
    first, second = first_and_second(name)
    ok(run(*first))
    before = snapshot(inputs)
    r = run(*[a for a in second if a != "--force"])
    assert r.returncode == 1, out(r) + err(r)
    assert "exists; --force replaces it" in err(r) and "'" in err(r)
    assert snapshot(inputs) == before
    assert temporaries(inputs) == []


@pytest.mark.parametrize("name", sorted(SETS))
def test_a_failed_write_leaves_the_old_set_untouched(inputs, name):
    first, second = first_and_second(name)
    ok(run(*first))
    before = snapshot(inputs)
    r = run(*second, fsize=SETS[name][2])
    assert r.returncode == 1, out(r) + err(r)
    assert "File too large" in err(r)
    assert snapshot(inputs) == before
    assert temporaries(inputs) == []
    ok(run(*second))  # without the limit the second run replaces the whole set
    assert snapshot(inputs) != before


@pytest.mark.parametrize("name", sorted(SETS))
def test_a_last_file_that_cannot_be_replaced_leaves_the_set_untouched(inputs, name):
    # Every file but the last could be written; the last is a folder now.
    first, second = first_and_second(name)
    ok(run(*first))
    os.remove(inputs / LAST[name])
    os.mkdir(inputs / LAST[name])
    before = snapshot(inputs)
    r = run(*second)
    assert r.returncode == 1 and "is a folder" in err(r)
    assert snapshot(inputs) == before
    assert temporaries(inputs) == []


# The bench measures the machine's ceilings with full-size kernels first: minutes with a
# fiber per work-item (the hip backend on the HIP CPU runtime). The same output set is
# tested on the serial and OpenMP builds.
@pytest.mark.skipif(backend() == "hip", reason="tenport bench takes minutes on the HIP CPU runtime")
def test_bench_json_is_replaced_only_when_complete(work):
    (work / "b.json").write_text("{\"old\": true}\n")
    r = run("bench", "--quick", "--only", "dense", "--quiet", "--json", "b.json", fsize=512)
    assert r.returncode == 1
    assert (work / "b.json").read_text() == "{\"old\": true}\n"
    assert temporaries(work) == []


def test_a_link_at_the_target_is_never_written_through(inputs):
    victim = inputs / "victim.txt"
    victim.write_text("keep me\n")
    os.symlink(victim, inputs / "Y.tns")
    r = run("convert", "--input", "X.tns", "--output", "Y.tns")
    assert r.returncode == 1 and "symbolic link" in err(r)
    assert victim.read_text() == "keep me\n"
    assert os.path.islink(inputs / "Y.tns")


def test_a_link_planted_at_the_old_temporary_name_is_ignored(inputs):
    # tenport once wrote OUT.tmp.<pid>; a link planted there (the shell keeps its pid
    # through exec) redirected the write into another file.
    victim = inputs / "victim.txt"
    victim.write_text("keep me\n")
    script = f'ln -s {victim} Y.tns.tmp.$$ && exec "$0" convert --input X.tns --output Y.tns'
    from conftest import TENPORT
    r = subprocess.run(["sh", "-c", script, TENPORT], cwd=inputs, capture_output=True)
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "keep me\n"
    assert not os.path.islink(inputs / "Y.tns")


def test_a_replaced_file_keeps_its_permissions(inputs):
    ok(run("convert", "--input", "X.tns", "--output", "Y.tns"))
    os.chmod(inputs / "Y.tns", 0o600)
    ok(run("convert", "--input", "Z.tns", "--output", "Y.tns", "--force"))
    assert stat.S_IMODE(os.stat(inputs / "Y.tns").st_mode) == 0o600


def test_a_new_file_gets_the_umask_s_mode(inputs):
    ok(run("convert", "--input", "X.tns", "--output", "N.tns", umask=0o027))
    assert stat.S_IMODE(os.stat(inputs / "N.tns").st_mode) == 0o640


# Each command with an output in a folder that does not exist: it fails before any work
# (no iteration, no progress, no result lines on stdout).
NOWHERE = "/no/such/folder/out"
EARLY = {
    "cp-als": ["cp-als", "--input", "D.npy", "--rank", "3", "--maxiters", "1000", "--tol",
               "0", "--output", NOWHERE],
    "cp-als sparse": ["cp-als", "--input", "X.tns", "--rank", "3", "--output", NOWHERE],
    "sttid": ["sttid", "--input", "X.tns", "--rmax", "100", "--eps", "0", "--output",
              NOWHERE],
    "sshopm": ["sshopm", "--input", "A.npy", "--order", "4", "--dim", "3", "--output",
               NOWHERE],
    "peaks": ["peaks", "--sh", "SH.npy", "--output", NOWHERE],
    "peaks example": ["peaks", "--example", "--output", NOWHERE],
    "convert": ["convert", "--input", "X.tns", "--output", NOWHERE + ".tns"],
    "gen dense": ["gen", "dense", "--shape", "2000x2000x100", "--output", NOWHERE + ".npy"],
    "gen sparse": ["gen", "sparse", "--dims", "10x10", "--nnz", "5", "--output",
                   NOWHERE + ".tns"],
    "gen sttid": ["gen", "sttid", "--kind", "power-law", "--dims", "10,10", "--nnz", "5",
                  "--output", NOWHERE + ".tns"],
    "bench": ["bench", "--quick", "--json", NOWHERE + ".json"],
}


@pytest.mark.parametrize("name", sorted(EARLY))
def test_an_unwritable_output_stops_the_run_before_any_work(inputs, name):
    r = run(*EARLY[name], timeout=30)
    assert r.returncode == 1
    assert "/no/such/folder" in err(r) and "does not exist" in err(r)
    assert out(r) == ""


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_stops_the_run_before_any_work(inputs):
    ro = inputs / "ro"
    ro.mkdir()
    os.chmod(ro, 0o500)
    r = run("cp-als", "--input", "D.npy", "--rank", "3", "--output", "ro/m")
    assert r.returncode == 1 and "not writable" in err(r) and out(r) == ""


def test_an_output_that_is_the_input_is_refused(inputs):
    before = (inputs / "X.tns").read_bytes()
    r = run("convert", "--input", "X.tns", "--output", "X.tns")
    assert r.returncode == 1 and "one of this run's inputs" in err(r)
    assert (inputs / "X.tns").read_bytes() == before


def test_the_default_prefix_never_replaces_the_input(inputs):
    os.rename(inputs / "A.npy", inputs / "sshopm_lambda.npy")
    before = (inputs / "sshopm_lambda.npy").read_bytes()
    r = run("sshopm", "--input", "sshopm_lambda.npy", "--order", "4", "--dim", "3")
    assert r.returncode == 1 and "inputs" in err(r)
    assert (inputs / "sshopm_lambda.npy").read_bytes() == before
    assert temporaries(inputs) == []


def test_init_files_are_inputs_too(inputs):
    ok(run("cp-als", "--input", "D.npy", "--rank", "3", "--maxiters", "2", "--quiet",
           "--output", "m"))
    r = run("cp-als", "--input", "D.npy", "--rank", "3", "--init", "m", "--output", "m")
    assert r.returncode == 1 and "inputs" in err(r)


def test_an_output_named_twice_is_refused(inputs):
    r = run("gen", "dense", "--shape", "4x5x6", "--rank", "2", "--output", "t_lambda.npy",
            "--truth", "t")
    assert r.returncode == 1 and "twice" in err(r)


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_stale_temporaries_of_dead_runs_are_removed(inputs):
    stale = inputs / f".Y.tns.{dead_pid()}.0123456789abcdef.tenport-tmp"
    alive = inputs / f".Y.tns.{os.getpid()}.fedcba9876543210.tenport-tmp"
    other = inputs / f".W.tns.{dead_pid()}.0123456789abcdef.tenport-tmp"
    for p in (stale, alive, other):
        p.write_text("partial")
    ok(run("convert", "--input", "X.tns", "--output", "Y.tns"))
    assert not stale.exists()
    assert alive.exists()  # its process still runs
    assert other.exists()  # another output's: left to the run that writes W.tns
