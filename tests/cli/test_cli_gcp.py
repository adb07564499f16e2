"""tenport gcp: Generalized CP of dense (.npy) and sparse (.tns) tensors written with numpy,
its losses, masks of missing entries, outputs, --history and --json, and its refusals."""
import functools
import json

import numpy as np
import pytest

from conftest import (MPIRUN, built_with_mpi, err, mpirun, ok, out, run,
                      snapshot, temporaries)


@functools.lru_cache(maxsize=None)
def solver_missing(folder):
    """Whether this tenport was built without L-BFGS-B (liblbfgsb), GCP's solver."""
    np.save(folder / "tiny.npy", np.ones((2, 2)))
    r = run("gcp", "-i", folder / "tiny.npy", "-r", "1", "-q")
    return r.returncode != 0 and "without L-BFGS-B" in err(r)


@pytest.fixture(autouse=True)
def lbfgsb(tmp_path_factory):
    if solver_missing(tmp_path_factory.getbasetemp()):
        pytest.skip("this tenport was built without L-BFGS-B")


def counts(shape=(8, 7, 6), rank=2, seed=1):
    """A small tensor of Poisson counts drawn from a planted nonnegative model."""
    rng = np.random.default_rng(seed)
    factors = [rng.uniform(0, 1, (n, rank)) for n in shape]
    return rng.poisson(3 * np.einsum("ir,jr,kr->ijk", *factors)).astype(np.float64)


def write_tns(path, x):
    """x's nonzeros as a .tns (1-based indices), with a header giving the shape."""
    with open(path, "w") as f:
        f.write(f"{x.ndim}\n{' '.join(map(str, x.shape))}\n")
        for idx in zip(*np.nonzero(x)):
            f.write(" ".join(str(i + 1) for i in idx) + f" {float(x[idx])!r}\n")


def model(prefix, order):
    return np.load(f"{prefix}_lambda.npy"), [np.load(f"{prefix}_factor{k}.npy")
                                             for k in range(order)]


def test_poisson_of_counts_from_npy_and_tns(work):
    x = counts()
    np.save(work / "X.npy", x)
    write_tns(work / "X.tns", x)
    r = ok(run("gcp", "-i", "X.npy", "-r", "2", "--loss", "poisson", "--max-iters", "40",
               "-o", "d", "--history", "h.json", "--json", "s.json"))
    assert "iter    1  loss" in out(r) and "loss poisson, factors >= 0" in out(r)
    h = json.loads((work / "h.json").read_text())
    losses = [e["loss"] for e in h["iterations"]]
    assert h["command"] == "gcp" and h["loss"] == "poisson" and h["rank"] == 2
    assert len(losses) == h["result"]["iterations"] >= 5
    assert all(b <= a for a, b in zip(losses, losses[1:]))
    assert losses[-1] == h["result"]["loss"] < h["result"]["initial_loss"]
    s = json.loads((work / "s.json").read_text())["results"]
    assert s["loss_name"] == "poisson" and s["rank"] == 2 and s["dims"] == "8x7x6"
    assert s["loss"] == h["result"]["loss"] and s["initial_loss"] > s["loss"]
    assert s["iterations"] == len(losses) and s["evaluations"] >= s["iterations"]
    assert isinstance(s["converged"], bool) and s["stop_reason"]
    assert s["seconds"] >= s["eval_seconds"] > 0
    lam, factors = model("d", 3)
    assert lam.shape == (2,) and [f.shape for f in factors] == [(8, 2), (7, 2), (6, 2)]
    assert (lam > 0).all() and all((f >= 0).all() for f in factors)
    r = ok(run("gcp", "-i", "X.tns", "-r", "2", "--loss", "poisson", "--max-iters", "40",
               "-o", "s", "-q"))
    assert "iter " not in out(r) and "made dense in memory" in out(r)
    lam_s, factors_s = model("s", 3)  # the same tensor: the same model
    assert np.allclose(lam_s, lam, rtol=1e-8)
    assert all(np.allclose(a, b, atol=1e-8) for a, b in zip(factors_s, factors))


def test_bernoulli_of_a_binary_sparse_tensor(work):
    rng = np.random.default_rng(3)
    factors = [rng.uniform(0, 1, (n, 2)) for n in (9, 8, 7)]
    p = np.einsum("ir,jr,kr->ijk", *factors)
    write_tns(work / "B.tns", (rng.uniform(size=p.shape) < p / p.max()).astype(float))
    r = ok(run("gcp", "-i", "B.tns", "-r", "2", "--loss", "bernoulli-odds", "-o", "b", "-q",
               "--max-iters", "50"))
    assert "loss bernoulli-odds" in out(r)
    lam, fs = model("b", 3)
    assert lam.shape == (2,) and [f.shape for f in fs] == [(9, 2), (8, 2), (7, 2)]
    assert all((f >= 0).all() for f in fs)
    with open(work / "missing.tns", "w") as f:  # the mask of a sparse tensor
        f.write("1 1 1 0\n9 8 7 1\n")
    r = ok(run("gcp", "-i", "B.tns", "-r", "2", "--loss", "bernoulli-odds", "-q",
               "--max-iters", "5", "--mask", "missing.tns"))
    assert "2 missing entries, 502 observed" in out(r)


def test_gaussian_with_a_mask_never_reads_the_masked_entries(work):
    rng = np.random.default_rng(2)
    x = np.einsum("ir,jr,kr->ijk", *[rng.normal(0, 1, (n, 2)) for n in (8, 7, 6)])
    observed = rng.uniform(size=x.shape) > 0.2
    np.save(work / "W.npy", observed)  # bool
    y = x.copy()
    y[~observed] = np.nan
    np.save(work / "Y.npy", y)
    y[~observed] = 1e6
    np.save(work / "Z.npy", y)
    np.save(work / "Zf.npy", np.asfortranarray(y))
    np.save(work / "Wi.npy", observed.astype(np.int32))
    args = ("-r", "2", "-q", "--max-iters", "30")
    r = ok(run("gcp", "-i", "Y.npy", "--mask", "W.npy", "-o", "a", *args))
    assert f"{observed.sum()} entries observed" in out(r)
    ok(run("gcp", "-i", "Z.npy", "--mask", "W.npy", "-o", "b", *args))
    ok(run("gcp", "-i", "Zf.npy", "--mask", "Wi.npy", "-o", "c", *args))
    for name in ["lambda"] + [f"factor{k}" for k in range(3)]:
        a = (work / f"a_{name}.npy").read_bytes()
        assert a == (work / f"b_{name}.npy").read_bytes() == (work / f"c_{name}.npy").read_bytes()
    r = run("gcp", "-i", "Y.npy", *args)  # without the mask, NaN is refused
    assert r.returncode == 1 and "NaN" in err(r)


def test_refusals(work):
    x = counts()
    np.save(work / "X.npy", x)
    r = run("gcp", "-i", "X.npy", "-r", "2", "--loss", "huber")
    assert r.returncode == 2 and "--loss huber needs --loss-param (its threshold" in err(r)
    r = run("gcp", "-i", "X.npy", "-r", "2", "--loss", "gauss")
    assert r.returncode == 2 and "--loss 'gauss' is not valid" in err(r)
    names = ["gaussian", "poisson", "poisson-log", "bernoulli-odds", "bernoulli-logit", "gamma",
             "rayleigh", "negative-binomial", "huber", "beta", "zt-poisson"]
    assert all(n in err(r) for n in names)
    r = run("gcp", "-i", "X.npy", "-r", "2", "--loss", "poisson", "--loss-param", "2")
    assert r.returncode == 2 and "has no parameter" in err(r)
    r = run("gcp", "-i", "X.npy", "-r", "2", "--loss", "poisson", "--lower", "-1")
    assert r.returncode == 2 and "factors >= 0" in err(r)
    np.save(work / "M.npy", np.ones((8, 7, 5), dtype=bool))
    r = run("gcp", "-i", "X.npy", "-r", "2", "--mask", "M.npy")
    assert r.returncode == 2 and "8x7x5" in err(r) and "8x7x6" in err(r)


def test_a_refused_entry_is_named_and_nothing_is_written(work):
    x = counts()
    x[1, 2, 3] = 2.5
    np.save(work / "X.npy", x)
    before = snapshot(work)
    r = run("gcp", "-i", "X.npy", "-r", "2", "--loss", "poisson", "-o", "m", "--history", "h.json")
    assert r.returncode == 1, err(r)
    assert "X[1, 2, 3] = 2.5" in err(r) and "nonnegative integers" in err(r)
    assert snapshot(work) == before and not temporaries(work)


def test_json_may_not_name_the_input_or_the_mask(work):
    np.save(work / "X.npy", counts())
    np.save(work / "M.npy", np.ones((8, 7, 6), dtype=np.uint8))
    before = snapshot(work)
    for named in ("X.npy", "M.npy"):
        r = run("gcp", "-i", "X.npy", "-r", "2", "--mask", "M.npy", "--json", named)
        assert r.returncode == 2 and f"--json {named} would replace {named}" in err(r)
        r = run("gcp", "-i", "X.npy", "-r", "2", "--mask", "M.npy", "--history", named)
        assert r.returncode == 1 and "one of this run's inputs" in err(r)
    assert snapshot(work) == before


def one_and_many(work, ranks, args, iterations):
    """gcp ARGS in one process and on `ranks` ranks: the same losses at every one of the
    `iterations` iterations (1e-10) and the same model (1e-8); both runs' results."""
    one = ok(run("gcp", *args, "-o", "one", "--history", "h1.json"))
    many = ok(mpirun(ranks, "gcp", *args, "-o", "many", "--history", "hp.json", timeout=120))
    assert f"distributed: {ranks} ranks" in out(many)
    h1, hp = (json.loads((work / n).read_text())["iterations"] for n in ("h1.json", "hp.json"))
    assert len(h1) == len(hp) == iterations
    for a, b in zip(h1, hp):
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-10)
    for name in ["lambda"] + [f"factor{k}" for k in range(3)]:
        a, b = np.load(work / f"one_{name}.npy"), np.load(work / f"many_{name}.npy")
        assert np.abs(a - b).max() <= 1e-8 * np.abs(a).max()
    return one, many


@pytest.mark.skipif(not MPIRUN or not built_with_mpi(), reason="no MPI")
@pytest.mark.parametrize("ranks", [2, 3])
def test_a_distributed_run_is_the_single_process_run(work, ranks):
    if not built_with_mpi():
        pytest.skip("this tenport was built without MPI")
    rng = np.random.default_rng(9)
    x = rng.normal(0, 1, (9, 8, 7))
    observed = rng.uniform(size=x.shape) > 0.25
    x[~observed] = np.nan
    np.save(work / "X.npy", x)
    np.save(work / "W.npy", observed.astype(np.float64))
    args = ("-i", "X.npy", "--mask", "W.npy", "-r", "2", "--max-iters", "25", "-q")
    one, many = one_and_many(work, ranks, args, 25)
    assert "distributed" not in out(one)


@pytest.mark.skipif(not MPIRUN or not built_with_mpi(), reason="no MPI")
@pytest.mark.parametrize("ranks", [2, 3])
def test_a_distributed_sparse_run_is_the_single_process_run(work, ranks):
    """A .tns of counts with a list of missing coordinates: each rank reads its share,
    the blocks are made dense, and L-BFGS-B takes the single process's steps."""
    x = counts((9, 8, 7))
    write_tns(work / "X.tns", x)
    write_missing(work / "M.tns", [(i, (2 * i) % 8, (3 * i) % 7) for i in range(9)])
    args = ("-i", "X.tns", "--mask", "M.tns", "-r", "2", "--loss", "poisson",
            "--max-iters", "20", "-q")
    _, many = one_and_many(work, ranks, args, 20)
    assert "blocks made dense" in out(many)


@pytest.mark.skipif(not MPIRUN or not built_with_mpi(), reason="no MPI")
def test_distributed_adam_samples_every_rank_and_repeats(work):
    """--solver adam over 2 ranks, sparse (each rank samples its block) and dense: the
    estimate falls, the model is as good as one process's, the same seed on the same
    ranks writes the same bytes."""
    x = counts((12, 10, 8))
    write_tns(work / "X.tns", x)
    np.save(work / "X.npy", x)
    adam = ("-r", "2", "--loss", "poisson", "--solver", "adam", "--epochs", "5",
            "--epoch-iters", "20", "--seed", "3", "-q")
    for name in ("X.tns", "X.npy"):
        ok(run("gcp", "-i", name, *adam, "--json", "one.json", "--force"))
        s1 = json.loads((work / "one.json").read_text())["results"]
        r = ok(mpirun(2, "gcp", "-i", name, *adam, "-o", "a", "--json", "s.json", "--force",
                      timeout=120))
        assert "distributed: 2 ranks" in out(r)
        s = json.loads((work / "s.json").read_text())["results"]
        assert s["solver"] == "adam" and s["loss"] < s["initial_loss"]
        assert s["loss_is_estimate"] is (name == "X.tns")
        assert s["loss"] <= 1.2 * s1["loss"], (name, s["loss"], s1["loss"])
        ok(mpirun(2, "gcp", "-i", name, *adam, "-o", "b", "--force", timeout=120))
        for part in ["lambda", "factor0", "factor1", "factor2"]:
            assert (work / f"a_{part}.npy").read_bytes() == (work / f"b_{part}.npy").read_bytes()


def test_what_a_distributed_run_refuses(work):
    if not built_with_mpi():
        pytest.skip("this tenport was built without MPI")
    np.save(work / "X.npy", counts())
    write_tns(work / "X.tns", counts())
    (work / "X.txt").write_text("tensor 2 2 2\n1 2\n3 4\n")
    for args, why in ((("-i", "X.npy", "--max-seconds", "5"), "no --max-seconds"),
                      (("-i", "X.txt",), "reads a dense .npy"),
                      (("-i", "X.npy", "--mask", "X.tns"), "is a .npy of its shape"),
                      (("-i", "X.tns", "--mask", "X.npy"), "missing entries' coordinates"),
                      (("-i", "X.tns", "--mask", "X.tns", "--solver", "adam"),
                       "not supported by GCP-Adam")):
        r = mpirun(2, "gcp", *args, "-r", "2", "-o", "m", timeout=60)
        assert r.returncode in (1, 2) and err(r).count(why) == 1, err(r)
        assert not list(work.glob("m_*"))


def test_adam_on_a_sparse_binary_tensor_repeats_bit_for_bit(work):
    """--solver adam samples a sparse 0/1 tensor with skewed modes (never made dense):
    the loss estimate falls, the same seed writes the same bytes, --json says so."""
    rng = np.random.default_rng(5)
    shape = (60, 40, 30)
    nz = set()
    while len(nz) < 800:  # skewed: low indices far more likely
        nz.add(tuple(int(n * rng.uniform() ** 2) for n in shape))
    with open(work / "kg.tns", "w") as f:
        f.write(f"3\n{' '.join(map(str, shape))}\n")
        for idx in sorted(nz):
            f.write(" ".join(str(i + 1) for i in idx) + " 1\n")
    args = ["gcp", "-i", "kg.tns", "-r", "3", "--loss", "bernoulli-odds", "--solver", "adam",
            "--epochs", "6", "--epoch-iters", "20", "--seed", "7"]
    r = ok(run(*args, "-o", "a", "--json", "a.json", "--history", "h.json"))
    assert "sampled" in out(r) and "epoch    1  loss estimate" in out(r)
    s = json.loads((work / "a.json").read_text())["results"]
    assert s["solver"] == "adam" and s["loss_is_estimate"] is True
    assert s["loss"] < s["initial_loss"] and s["evaluations"] == 20 * s["iterations"]
    h = json.loads((work / "h.json").read_text())
    assert h["solver"] == "adam" and h["epochs"] == 6 and len(h["iterations"]) == s["iterations"]
    ok(run(*args, "-o", "b", "-q"))
    for name in ["lambda", "factor0", "factor1", "factor2"]:
        assert (work / f"a_{name}.npy").read_bytes() == (work / f"b_{name}.npy").read_bytes()
    lam, fs = model("a", 3)
    assert [f.shape for f in fs] == [(60, 3), (40, 3), (30, 3)] and all((f >= 0).all() for f in fs)


def test_adam_on_a_dense_tensor_reports_the_exact_loss(work):
    np.save(work / "X.npy", counts())
    r = ok(run("gcp", "-i", "X.npy", "-r", "2", "--loss", "poisson", "--solver", "adam",
               "--epochs", "4", "--epoch-iters", "10", "--samples", "100", "-q",
               "--json", "s.json"))
    s = json.loads((work / "s.json").read_text())["results"]
    assert s["loss_is_estimate"] is False and s["solver"] == "adam"
    assert "loss estimate" not in out(r) and "epochs of" in out(r)
    r = run("gcp", "-i", "X.npy", "-r", "2", "--solver", "adam", "--rate", "0")
    assert r.returncode != 0 and "--rate" in err(r)
    r = run("gcp", "-i", "X.npy", "-r", "2", "--solver", "sgd")
    assert r.returncode != 0 and "lbfgsb or adam" in err(r)


def write_missing(path, coords):
    """A sparse tensor's missing entries as a .tns (1-based coordinates, values ignored)."""
    with open(path, "w") as f:
        f.writelines(" ".join(str(i + 1) for i in c) + " 1\n" for c in coords)


def test_cp_als_with_a_mask_fits_the_observed_entries_by_cp_wopt(work):
    rng = np.random.default_rng(5)
    x = np.einsum("ir,jr,kr->ijk", *[rng.uniform(0, 1, (n, 2)) for n in (9, 8, 7)])
    observed = rng.uniform(size=x.shape) > 0.3
    np.save(work / "W.npy", observed.astype(np.float64))
    y = x.copy()
    y[~observed] = 1e6  # far off the model: a fit that read them would be poor
    np.save(work / "Y.npy", y)
    y[~observed] = -3.0
    np.save(work / "Z.npy", y)
    args = ("-r", "2", "--mask", "W.npy", "-q", "--seed", "4")
    r = ok(run("cp-als", "-i", "Y.npy", *args, "-o", "a", "--json", "a.json"))
    assert "CP-WOPT" in out(r) and f"{observed.sum()} entries observed" in out(r)
    summary = json.loads((work / "a.json").read_text())
    s = summary["results"]
    assert summary["command"] == "cp-als" and s["loss_name"] == "gaussian" and s["fit"] > 0.999
    assert f"fit {s['fit']:.6f} over the observed entries" in out(r)
    assert s["fit"] == pytest.approx(1 - np.sqrt(s["loss"]) / np.linalg.norm(x[observed]),
                                     rel=1e-12)
    lam, factors = model("a", 3)
    m = np.einsum("r,ir,jr,kr->ijk", lam, *factors)
    assert np.abs(m - x)[observed].max() < 1e-3 * np.abs(x).max()
    # the same run as gcp's Gaussian loss, and the masked values change nothing
    ok(run("gcp", "-i", "Z.npy", "--loss", "gaussian", *args, "-o", "b"))
    for name in ["lambda"] + [f"factor{k}" for k in range(3)]:
        assert (work / f"a_{name}.npy").read_bytes() == (work / f"b_{name}.npy").read_bytes()


def test_cp_als_with_a_mask_of_a_sparse_tensor(work):
    x = counts(seed=6)
    write_tns(work / "X.tns", x)
    gone = [(0, 0, 0), (7, 6, 5), tuple(int(i) for i in np.argwhere(x)[0])]
    write_missing(work / "M.tns", gone)
    r = ok(run("cp-als", "-i", "X.tns", "-r", "2", "--mask", "M.tns", "-q", "--json", "s.json"))
    s = json.loads((work / "s.json").read_text())["results"]
    assert s["observed"] == x.size - 3 and 0 < s["fit"] < 1
    kept = np.ones(x.shape, bool)
    for c in gone:
        kept[c] = False
    assert s["fit"] == pytest.approx(1 - np.sqrt(s["loss"]) / np.linalg.norm(x[kept]), rel=1e-9)
    assert "missing entries" in out(r)


@pytest.mark.parametrize("option", [["--tol", "1e-6"], ["--no-line-search"], ["--reg=0.1"],
                                    ["--loss", "poisson"], ["--restarts", "2"]])
def test_cp_als_with_a_mask_refuses_the_options_of_als(work, option):
    np.save(work / "X.npy", np.ones((3, 4, 5)))
    np.save(work / "W.npy", np.ones((3, 4, 5)))
    r = run("cp-als", "-i", "X.npy", "-r", "1", "--mask", "W.npy", *option, "-o", "m")
    assert r.returncode == 2 and option[0].split("=")[0] in err(r) and "CP-WOPT" in err(r)
    assert not list(work.glob("m_*"))
