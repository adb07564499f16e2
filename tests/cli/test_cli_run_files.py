"""One run's files are one set: --json and --history go through the same checks as -o
(never an input of the run, never a name twice), and an interrupted or limited run
loses nothing: its temporaries are removed on SIGINT, SIGTERM and SIGHUP, a closed
standard output (| head) does not stop the work, and a file-size limit is an error."""
import os
import signal
import subprocess
import time

import numpy as np
import pytest

from conftest import (MPIRUN, TENPORT, TEST_RANKS, built_with_mpi, err, ok, planted_dense, run,
                      temporaries)


@pytest.fixture
def dense(work):
    planted_dense("d3.npy", (5, 6, 7))
    return (work / "d3.npy").read_bytes()


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_json_never_replaces_an_input(work, dense, force):
    (work / "ji.npy").write_bytes(dense)
    r = run("convert", "-i", "ji.npy", "-o", "x.tns", "--json", "ji.npy", *force)
    assert r.returncode != 0
    assert ("one of this run's" in err(r) or "would replace ji.npy" in err(r)
            or (not force and "exists" in err(r)))
    assert (work / "ji.npy").read_bytes() == dense


def test_json_never_replaces_an_init_file(work, dense):
    ok(run("cp-als", "-i", "d3.npy", "-r", "2", "--max-iters", "2", "-q", "-o", "m"))
    before = (work / "m_factor1.npy").read_bytes()
    r = run("cp-als", "-i", "d3.npy", "-r", "2", "--max-iters", "2", "-q", "--init", "m",
            "--json", "m_factor1.npy", "--force")
    assert r.returncode != 0
    assert (work / "m_factor1.npy").read_bytes() == before


def test_json_and_output_of_one_name_are_refused(work, dense):
    r = run("convert", "-i", "d3.npy", "-o", "jo.tns", "--json", "jo.tns")
    assert r.returncode != 0
    assert "named twice" in err(r)
    assert "wrote jo.tns" not in r.stdout.decode()


def test_history_and_json_of_one_name_are_refused(work, dense):
    r = run("cp-als", "-i", "d3.npy", "-r", "2", "--max-iters", "2", "-q",
            "--history", "h.json", "--json", "./h.json")
    assert r.returncode != 0
    assert "named twice" in err(r)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_leaves_no_temporaries(work, sig):
    planted_dense("big.npy", (60, 50, 40))
    env = dict(os.environ, OMP_WAIT_POLICY="passive", TENPORT_NO_PROGRESS="1")
    p = subprocess.Popen([TENPORT, "cp-als", "-i", "big.npy", "-r", "5", "--max-iters",
                          "1000000", "--tol", "0", "-o", "m", "--history", "h.json", "-q"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not temporaries(work) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert temporaries(work), "the run made no temporaries to look at"
    p.send_signal(sig)
    p.wait(timeout=60)
    assert p.returncode == -sig
    assert temporaries(work) == []
    assert not (work / "m_lambda.npy").exists()


def rank_processes(parent):
    """{rank: pid} of the processes mpirun `parent` started (their OMPI_COMM_WORLD_RANK)."""
    ranks = {}
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != parent:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
            if b"OMPI_COMM_WORLD_RANK" in env:
                ranks[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(pid)
        except (OSError, ValueError, IndexError):
            continue
    return ranks


def test_a_killed_rank_leaves_no_temporaries_on_the_others(work):
    """SIGKILL on rank 1 (which cannot clean up after itself): mpirun ends the others with
    SIGTERM, and rank 0 removes the temporaries of the history it was writing."""
    if not MPIRUN or not built_with_mpi() or TEST_RANKS[-1] < 2:
        pytest.skip("needs a build with MPI and 2 ranks")
    planted_dense("big.npy", (60, 50, 40))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive", TENPORT_NO_PROGRESS="1",
               ASAN_OPTIONS="detect_leaks=0")
    p = subprocess.Popen([MPIRUN, "--oversubscribe", "-np", "2", TENPORT, "cp-als", "-i",
                          "big.npy", "-r", "5", "--max-iters", "1000000", "--tol", "0", "-o",
                          "m", "--history", "h.json", "-q"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    ranks = {}
    while (len(ranks) < 2 or not temporaries(work)) and time.monotonic() < deadline:
        time.sleep(0.05)
        ranks = rank_processes(p.pid)
    assert len(ranks) == 2 and temporaries(work), f"ranks {ranks}, no temporaries seen"
    os.kill(ranks[1], signal.SIGKILL)
    p.wait(timeout=120)
    assert p.returncode != 0
    assert temporaries(work) == []
    assert not (work / "m_lambda.npy").exists()


def test_a_closed_output_pipe_still_writes_the_model(work, dense):
    r = subprocess.run(f"'{TENPORT}' cp-als -i d3.npy -r 2 --max-iters 20 --tol 0 -o m | head -1",
                       shell=True, capture_output=True, timeout=120,
                       env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    assert r.returncode == 0
    for name in ["m_lambda.npy", "m_factor0.npy", "m_factor1.npy", "m_factor2.npy"]:
        assert (work / name).exists(), name


def test_a_file_size_limit_is_reported_as_too_large(work):
    planted_dense("big.npy", (60, 50, 40))
    # the shell's limit with SIGXFSZ at its default action, as a user meets it
    r = subprocess.run(f"ulimit -f 8; exec '{TENPORT}' convert -i big.npy -o big.tns",
                       shell=True, capture_output=True, timeout=120,
                       preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_DFL))
    assert r.returncode == 1, r.returncode
    assert "too large" in err(r).lower()
    assert temporaries(work) == []
    assert not (work / "big.tns").exists()


def test_json_never_replaces_an_input_of_a_run_that_fails_to_start(work, dense):
    (work / "ji.npy").write_bytes(dense)
    r = run("convert", "-i", "ji.npy", "-o", "x.tns", "--json", "ji.npy", "--force", "--bogus")
    assert r.returncode == 2
    assert "would replace ji.npy" in err(r)
    assert (work / "ji.npy").read_bytes() == dense
