"""tenport cp-als on several ranks (mpirun): the answer of one process from the same
starting factors, the tensor read in shares or drawn in place, rank 0's outputs as one
set, and a failure on one rank ending every rank with its message, without a hang."""

import numpy as np
import pytest

from conftest import MPIRUN, TENPORT, built_with_mpi, err, mpirun, ok, out, run, write_tns

pytestmark = pytest.mark.skipif(not MPIRUN or not built_with_mpi(),
                                reason="needs mpirun and a tenport built with MPI")


def fits(r):
    return [l.split()[3] for l in out(r).splitlines() if l.startswith("iter ")]


@pytest.fixture
def tensor(work):
    write_tns(work / "X.tns", (31, 17, 23), 1500, seed=8)
    ok(run("convert", "--input", "X.tns", "--output", "X.tpb"))
    ok(run("cp-als", "--input", "X.tns", "--rank", "4", "--maxiters", "1", "--quiet",
           "--output", "start", "--seed", "5"))
    return work


@pytest.mark.parametrize("ranks", [2, 3, 4])
@pytest.mark.parametrize("name", ["X.tns", "X.tpb"])
def test_distributed_equals_one_process(tensor, ranks, name):
    args = ["cp-als", "--input", name, "--rank", "4", "--init", "start", "--tol", "0",
            "--maxiters", "6"]
    one = ok(run(*args, "--output", "one"))
    many = mpirun(ranks, *args, "--output", "many")
    assert many.returncode == 0, err(many)
    assert fits(many) == fits(one)  # every iteration's fit, to the digits printed
    for k in range(3):
        a, b = np.load(tensor / f"one_factor{k}.npy"), np.load(tensor / f"many_factor{k}.npy")
        assert np.abs(a - b).max() < 1e-8
    assert "grid" in out(many) and "communication" in out(many)


def test_a_given_grid_is_used(tensor):
    r = mpirun(4, "cp-als", "--input", "X.tns", "--rank", "3", "--maxiters", "2", "--grid",
               "1x4x1")
    assert r.returncode == 0, err(r)
    assert "grid 1x4x1" in out(r)


def test_a_grid_that_does_not_fit_the_ranks_is_refused(tensor):
    r = mpirun(3, "cp-als", "--input", "X.tns", "--rank", "3", "--grid", "2x2x1", timeout=60)
    assert r.returncode != 0
    assert "the grid holds 4 ranks, the communicator 3" in err(r)


def test_a_random_tensor_drawn_on_every_rank(work):
    args = ["cp-als", "--gen-dims", "300x200x100", "--gen-nnz", "5000", "--gen-skew", "2",
            "--rank", "3", "--tol", "0", "--maxiters", "4"]
    two, three = mpirun(2, *args), mpirun(3, *args)
    assert two.returncode == 0 and three.returncode == 0, err(two) + err(three)
    assert [float(f) for f in fits(two)] == pytest.approx([float(f) for f in fits(three)],
                                                          rel=1e-9)


def test_a_failure_on_one_rank_ends_every_rank(tensor):
    script = ('if [ "$OMPI_COMM_WORLD_RANK" = 2 ]; then f=missing.tns; else f=X.tns; fi; '
              'exec "$0" cp-als --input "$f" --rank 3')
    r = mpirun(3, shell=script, timeout=60)
    assert r.returncode != 0
    assert "rank 2: " in err(r) and "cannot open missing.tns" in err(r)


def test_rank_0_writes_the_model_once_as_a_set(tensor):
    r = mpirun(3, "cp-als", "--input", "X.tns", "--rank", "3", "--maxiters", "2",
               "--output", "m")
    assert r.returncode == 0, err(r)
    names = sorted(p.name for p in tensor.iterdir() if p.name.startswith("m_"))
    assert names == ["m_factor0.npy", "m_factor1.npy", "m_factor2.npy", "m_lambda.npy"]
    assert not [p for p in tensor.iterdir() if p.name.endswith(".tenport-tmp")]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("ranks", [2, 3])
def test_dense_distributed_equals_one_process(work, order, ranks):
    rng = np.random.default_rng(3)
    a, b, c, d = (rng.uniform(0.5, 1.5, (n, 3)) for n in (13, 7, 11, 5))
    x = np.einsum("ir,jr,kr,lr->ijkl", a, b, c, d) + 0.01 * rng.normal(size=(13, 7, 11, 5))
    np.save(work / "D.npy", np.asfortranarray(x) if order == "F" else x)
    ok(run("cp-als", "--input", "D.npy", "--rank", "3", "--maxiters", "1", "--quiet",
           "--output", "start", "--seed", "9"))
    args = ["cp-als", "--input", "D.npy", "--rank", "3", "--init", "start", "--tol", "0",
            "--maxiters", "5"]
    one = ok(run(*args, "--output", "one"))
    many = mpirun(ranks, *args, "--output", "many")
    assert many.returncode == 0, err(many)
    assert fits(many) == fits(one)
    for k in range(4):
        assert np.abs(np.load(work / f"one_factor{k}.npy") -
                      np.load(work / f"many_factor{k}.npy")).max() < 1e-8
    assert "dense" in out(many) and "grid" in out(many)


def test_a_planted_dense_tensor_made_on_every_rank(work):
    args = ["cp-als", "--gen-shape", "30x20x10", "--gen-rank", "3", "--gen-noise", "0.01",
            "--rank", "3", "--tol", "0", "--maxiters", "4"]
    two, three = mpirun(2, *args), mpirun(3, *args)
    assert two.returncode == 0 and three.returncode == 0, err(two) + err(three)
    assert [float(f) for f in fits(two)] == pytest.approx([float(f) for f in fits(three)],
                                                          rel=1e-10)
