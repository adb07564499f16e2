"""tenport cp-als's options beyond plain ALS: --reg, --fix-modes, --init random|nvecs|PREFIX,
--max-seconds, --restarts, --history, --no-line-search, and the options that do not apply
to a sparse input."""
import json

import numpy as np

from conftest import (MPIRUN, built_with_mpi, err, mpirun, ok, out, planted_dense, run,
                      write_tns)


def fit_of(r):
    line = next(l for l in out(r).splitlines() if l.startswith("fit "))
    return float(line.split()[1])


def write_init(prefix, shape, rank, seed=4):
    rng = np.random.default_rng(seed)
    factors = [rng.uniform(0.1, 1.0, (n, rank)) for n in shape]
    for k, f in enumerate(factors):
        np.save(f"{prefix}_factor{k}.npy", f)
    return factors


def test_history_records_every_iteration_and_the_result(work):
    planted_dense(work / "X.npy", (9, 8, 7), rank=3)
    r = ok(run("cp-als", "-i", "X.npy", "-r", "3", "--history", "h.json", "--tol", "1e-8"))
    h = json.loads((work / "h.json").read_text())
    its = h["iterations"]
    assert h["command"] == "cp-als" and h["rank"] == 3 and h["line_search"] is True
    assert len(its) == h["result"]["iterations"] and its[-1]["fit"] == h["result"]["fit"]
    assert [e["iteration"] for e in its] == list(range(1, len(its) + 1))
    assert all(b["fit"] >= a["fit"] - 1e-12 for a, b in zip(its, its[1:]))
    assert abs(h["result"]["fit"] - fit_of(r)) < 1e-9
    assert sum(e["extrapolated"] for e in its) == h["result"]["extrapolations"]
    r = run("cp-als", "-i", "X.npy", "-r", "3", "--history", "h.json")
    assert r.returncode == 1 and "'h.json' exists" in err(r) and "--force" in err(r)


def test_the_line_search_reaches_a_higher_fit_and_can_be_turned_off(work):
    planted_dense(work / "X.npy", (10, 9, 8), rank=4, seed=5)
    on = ok(run("cp-als", "-i", "X.npy", "-r", "4", "-q", "-s", "3"))
    off = ok(run("cp-als", "-i", "X.npy", "-r", "4", "-q", "-s", "3", "--no-line-search"))
    assert "line search: 0 extrapolations kept" in out(off)
    assert fit_of(on) >= fit_of(off) - 1e-6


def test_fixed_modes_keep_the_init_files_values(work):
    planted_dense(work / "X.npy", (6, 5, 7), rank=2)
    init = write_init(work / "start", (6, 5, 7), 2)
    ok(run("cp-als", "-i", "X.npy", "-r", "2", "--init", "start", "--fix-modes", "0,2",
           "-o", "m", "-q"))
    for k in (0, 2):
        assert np.array_equal(np.load(work / f"m_factor{k}.npy"), init[k])
    assert not np.allclose(np.load(work / "m_factor1.npy"), init[1])
    r = run("cp-als", "-i", "X.npy", "-r", "2", "--fix-modes", "1")
    assert r.returncode == 2 and "--fix-modes keeps factors given by --init PREFIX" in err(r)
    r = run("cp-als", "-i", "X.npy", "-r", "2", "--init", "start", "--fix-modes", "0,1,2")
    assert r.returncode == 1 and "fixes every mode" in err(r)
    r = run("cp-als", "-i", "X.npy", "-r", "2", "--init", "start", "--fix-modes", "0,x")
    assert r.returncode == 2 and "mode numbers from 0 separated by commas" in err(r)


def test_ridge_shrinks_the_model(work):
    planted_dense(work / "X.npy", (8, 7, 6), rank=2)
    ok(run("cp-als", "-i", "X.npy", "-r", "2", "-o", "a", "-q"))
    ok(run("cp-als", "-i", "X.npy", "-r", "2", "-o", "b", "-q", "--reg", "50"))
    norm = lambda p: np.linalg.norm(np.load(work / f"{p}_lambda.npy"))
    assert norm("b") < norm("a")
    r = run("cp-als", "-i", "X.npy", "-r", "2", "--reg", "-1")
    assert r.returncode == 2 and "--reg" in err(r)


def test_nvecs_start_and_restarts(work):
    planted_dense(work / "X.npy", (8, 7, 6), rank=3, seed=7)
    r = ok(run("cp-als", "-i", "X.npy", "-r", "3", "--init", "nvecs", "--tol", "1e-10",
               "--max-iters", "500", "-q"))
    assert fit_of(r) > 0.9999
    write_tns(work / "S.tns", (9, 8, 7), 120)
    ok(run("cp-als", "-i", "S.tns", "-r", "2", "--init", "nvecs", "-q"))
    r = ok(run("cp-als", "-i", "X.npy", "-r", "3", "--restarts", "2", "-q"))
    assert "starts: 3, the best start" in out(r)


def test_the_time_limit_stops_the_run(work):
    planted_dense(work / "X.npy", (8, 7, 6), rank=3)
    r = ok(run("cp-als", "-i", "X.npy", "-r", "3", "--max-seconds", "1e-9", "--tol", "0",
               "--max-iters", "100"))
    assert "after 1 iteration (time limit)" in out(r)
    r = run("cp-als", "-i", "X.npy", "-r", "3", "--max-seconds", "0")
    assert r.returncode == 2 and "above 0" in err(r)


def test_dense_only_options_are_refused_on_a_sparse_input(work):
    write_tns(work / "S.tns", (9, 8, 7), 100)
    for extra in (["--mttkrp", "tile"], ["--no-reuse"]):
        r = run("cp-als", "-i", "S.tns", "-r", "2", *extra)
        assert r.returncode == 2
        assert "S.tns is a sparse tensor, whose MTTKRP is FLYCOO's" in err(r)


def test_nonneg_keeps_the_factors_nonnegative_in_every_run(work):
    """--nonneg (HALS): data of both signs gives factors >= 0 from a dense and a sparse
    input, the history says so, and ranks reach the single process's fit."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=(9, 8, 7))
    np.save(work / "X.npy", x)
    with open(work / "X.tns", "w") as f:  # its entries above 0.3, with a header
        f.write("3\n9 8 7\n")
        f.writelines(" ".join(str(i + 1) for i in idx) + f" {float(x[tuple(idx)])!r}\n"
                     for idx in np.argwhere(x > 0.3))
    fits = {}
    for name in ("X.npy", "X.tns"):
        r = ok(run("cp-als", "-i", name, "-r", "3", "--nonneg", "--tol", "0", "--max-iters", "30",
                   "-o", "m", "--history", "h.json", "--force"))
        assert json.loads((work / "h.json").read_text())["nonneg"] is True
        assert all(np.load(work / f"m_factor{k}.npy").min() >= 0 for k in range(3))
        fits[name] = fit_of(r)
    if MPIRUN and built_with_mpi():
        r = ok(mpirun(2, "cp-als", "-i", "X.npy", "-r", "3", "--nonneg", "--tol", "0",
                      "--max-iters", "30", "-o", "d", "--force", timeout=120))
        assert abs(fit_of(r) - fits["X.npy"]) <= 1e-9
        assert all(np.load(work / f"d_factor{k}.npy").min() >= 0 for k in range(3))
