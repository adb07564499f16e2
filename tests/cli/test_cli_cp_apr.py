"""tenport cp-apr: CP-APR of count tensors from .tns and .npy, its outputs and --json, the
same run twice bit for bit, and its refusals."""
import json

import numpy as np
import pytest

from conftest import MPIRUN, built_with_mpi, err, mpirun, ok, out, run


def counts(shape=(12, 9, 7), rank=2, seed=5):
    rng = np.random.default_rng(seed)
    factors = [rng.uniform(0, 1, (n, rank)) for n in shape]
    return rng.poisson(2 * np.einsum("ir,jr,kr->ijk", *factors)).astype(np.float64)


def write_tns(path, x):
    with open(path, "w") as f:
        f.write(f"{x.ndim}\n{' '.join(map(str, x.shape))}\n")
        for idx in np.argwhere(x != 0):
            f.write(" ".join(str(i + 1) for i in idx) + f" {float(x[tuple(idx)])!r}\n")


def test_sparse_and_dense_inputs_give_the_same_model(work):
    x = counts()
    write_tns(work / "X.tns", x)
    np.save(work / "X.npy", x)
    r = ok(run("cp-apr", "-i", "X.tns", "-r", "2", "-o", "a", "--json", "a.json"))
    assert "log-likelihood" in out(r) and "iteration    1" in out(r)
    ok(run("cp-apr", "-i", "X.npy", "-r", "2", "-o", "b", "-q"))
    for name in ["lambda", "factor0", "factor1", "factor2"]:
        assert (work / f"a_{name}.npy").read_bytes() == (work / f"b_{name}.npy").read_bytes()
    s = json.loads((work / "a.json").read_text())["results"]
    lam = np.load(work / "a_lambda.npy")
    fs = [np.load(work / f"a_factor{k}.npy") for k in range(3)]
    assert all(np.allclose(f.sum(0), 1) and (f >= 0).all() for f in fs)
    m = np.einsum("r,ir,jr,kr->ijk", lam, *fs)
    assert s["loglik"] == pytest.approx(np.sum(x[x > 0] * np.log(m[x > 0])) - m.sum(), rel=1e-9)
    assert s["converged"] is True and s["kkt"] < 1e-4 and s["nnz"] == int((x > 0).sum())
    assert 0 < s["setup_seconds"] < s["seconds"]


def test_refusals(work):
    x = counts()
    x[2, 3, 4] = -1.5
    write_tns(work / "bad.tns", x)
    r = run("cp-apr", "-i", "bad.tns", "-r", "2", "-o", "m")
    assert r.returncode == 1 and "X[2, 3, 4] = -1.5" in err(r), err(r)
    assert not list(work.glob("m_*"))
    r = run("cp-apr", "-i", "bad.tns")
    assert r.returncode == 2 and "--rank are required" in err(r)
    r = run("cp-apr", "-i", "bad.tns", "-r", "2", "--max-inner", "0")
    assert r.returncode == 2 and "--max-inner" in err(r)


@pytest.mark.skipif(not MPIRUN or not built_with_mpi(), reason="no MPI")
def test_ranks_take_the_single_process_steps(work):
    x = counts(seed=6)
    write_tns(work / "X.tns", x)
    np.save(work / "X.npy", x)
    args = ("-r", "2", "--max-iters", "30", "-q")
    ok(run("cp-apr", "-i", "X.tns", *args, "-o", "one", "--json", "one.json"))
    r = ok(mpirun(3, "cp-apr", "-i", "X.tns", *args, "-o", "many", "--json", "many.json",
                  timeout=120))
    assert "distributed: 3 ranks" in out(r)
    one, many = (json.loads((work / n).read_text())["results"] for n in ("one.json", "many.json"))
    assert many["iterations"] == one["iterations"] and many["inner"] == one["inner"]
    assert many["loglik"] == pytest.approx(one["loglik"], rel=1e-10)
    for name in ["lambda", "factor0", "factor1", "factor2"]:
        a, b = np.load(work / f"one_{name}.npy"), np.load(work / f"many_{name}.npy")
        assert np.abs(a - b).max() <= 1e-9 * np.abs(a).max()
    r = mpirun(2, "cp-apr", "-i", "X.npy", *args, "-o", "d", timeout=60)
    assert r.returncode == 2 and err(r).count("reads a sparse .tns or .tpb") == 1
    assert not list(work.glob("d_*"))
