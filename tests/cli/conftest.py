"""Shared helpers of the command-line tests: the tenport binary (TENPORT in the
environment, set by meson), runs with resource limits, and small inputs written with
numpy, independently of tenport's own writers."""
import os
import resource
import shutil
import signal
import subprocess

import numpy as np
import pytest

TENPORT = os.environ.get("TENPORT", "tenport")


MPIRUN = shutil.which("mpirun")

# OpenMPI leaves allocations behind at exit, some in plugins it has unloaded (no names for
# suppressions): in builds with sanitizers the processes mpirun starts skip the leak check
# (their memory errors are still reported); the other suites check tenport's own leaks.
MPI_SANITIZER_ENV = {"ASAN_OPTIONS": ":".join(
    o for o in (os.environ.get("ASAN_OPTIONS", ""), "detect_leaks=0") if o)}


def built_with_mpi():
    r = subprocess.run([TENPORT, "version"], capture_output=True, text=True, timeout=60)
    return ", MPI" in r.stdout


# The rank counts this build's distributed cases use (TENPORT_TEST_RANKS, from the build's
# -Dmpi_test_ranks): every count on one build, a few on the others, where a case written
# for more ranks than the build's most is skipped (the build of every count runs it).
TEST_RANKS = sorted(int(r) for r in
                    os.environ.get("TENPORT_TEST_RANKS", "1,2,3,4,6").split(",") if r.strip())


def ranks_among(*counts):
    """The counts of a parametrised case that this build runs."""
    return [c for c in counts if c in TEST_RANKS] or [TEST_RANKS[-1]]


def mpirun(ranks, *args, timeout=120, shell=None, **env_extra):
    """tenport (or the shell command shell, $0 being tenport) on ranks ranks; skips the
    case when that is more than the build's most (TEST_RANKS)."""
    if ranks > TEST_RANKS[-1]:
        pytest.skip(f"this build runs its distributed cases on at most {TEST_RANKS[-1]} "
                    f"ranks, not {ranks}")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive", TENPORT_NO_PROGRESS="1",
               **MPI_SANITIZER_ENV)
    env.update(env_extra)
    cmd = [MPIRUN, "--oversubscribe", "-np", str(ranks)]
    cmd += ["sh", "-c", shell, TENPORT] if shell else [TENPORT, *map(str, args)]
    return subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)


def backend():
    """The build's backend, as `tenport version` names it (serial, openmp, cuda, hip)."""
    r = subprocess.run([TENPORT, "version"], capture_output=True, text=True, timeout=60)
    return r.stdout.split("(")[1].split()[0] if "(" in r.stdout else "unknown"


def run(*args, stdin=None, input=None, fsize=None, umask=None, timeout=120, cwd=None):
    """Runs tenport with args; fsize caps the bytes any file may grow to (RLIMIT_FSIZE,
    with SIGXFSZ ignored, so a write fails with EFBIG as on a full disk)."""

    def limits():
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if umask is not None:
            os.umask(umask)

    env = dict(os.environ, OMP_WAIT_POLICY="passive", TENPORT_NO_PROGRESS="1")
    return subprocess.run([TENPORT, *map(str, args)], stdin=stdin, input=input,
                          capture_output=True, timeout=timeout, cwd=cwd, env=env,
                          preexec_fn=limits, text=False)


def out(r):
    return r.stdout.decode(errors="replace")


def err(r):
    return r.stderr.decode(errors="replace")


def ok(r):
    assert r.returncode == 0, f"exit {r.returncode}\n{out(r)}\n{err(r)}"
    return r


def write_tns(path, dims, nnz, seed=1):
    """A .tns of nnz distinct nonzeros (1-based indices), returned as a dict."""
    rng = np.random.default_rng(seed)
    entries = {}
    while len(entries) < nnz:
        idx = tuple(int(rng.integers(0, d)) for d in dims)
        entries[idx] = float(rng.uniform(0.5, 1.5))
    with open(path, "w") as f:
        for idx, v in entries.items():
            f.write(" ".join(str(i + 1) for i in idx) + f" {v!r}\n")
    return entries


def read_tns(path):
    entries = {}
    with open(path) as f:
        for line in f:
            fields = line.split("#")[0].split()
            if fields:
                entries[tuple(int(x) - 1 for x in fields[:-1])] = float(fields[-1])
    return entries


def planted_dense(path, shape, rank=3, seed=2):
    rng = np.random.default_rng(seed)
    factors = [rng.uniform(0.5, 1.5, (n, rank)) for n in shape]
    x = np.einsum("ir,jr,kr->ijk", *factors)
    np.save(path, x)
    return x


def kofidis_regalia():
    return np.array([0.2883, -0.0031, 0.1973, -0.2485, -0.2939, 0.3847, 0.2972, 0.1862,
                     0.0919, -0.3619, 0.1241, -0.3420, 0.2127, 0.2727, -0.3054])


def sh_voxels(count, seed=3):
    """count voxels of lmax-4 spherical-harmonic coefficients (15 each): a dominant
    positive l = 0 term and small others, so that each voxel has peaks."""
    rng = np.random.default_rng(seed)
    sh = rng.normal(0, 0.2, (count, 15))
    sh[:, 0] = 1.0
    return sh


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(folder):
    """Every file in folder (not hidden) and its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def temporaries(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tenport-tmp")]
