"""--json FILE on every command: a summary a pipeline reads instead of the text output
(the command and its arguments, exit code and error, inputs, outputs, phases, results),
written atomically, refused over an existing file without --force, also for failed runs,
and by one process of a distributed run."""
import json

import numpy as np
import pytest

from conftest import (built_with_mpi, err, kofidis_regalia, mpirun, ok, out, planted_dense,
                      run, write_tns)


def summary(path):
    s = json.loads(path.read_text())
    assert s["tenport"].count(".") == 2 and s["backend"] in out(run("version"))
    return s


def fit_of(r):
    return float(next(l for l in out(r).splitlines() if l.startswith("fit ")).split()[1])


def test_cp_als_dense_and_sparse(work):
    planted_dense(work / "X.npy", (9, 8, 7), rank=2)
    r = ok(run("cp-als", "-i", "X.npy", "-r", "2", "-o", "m", "--json", "s.json", "-q"))
    s = summary(work / "s.json")
    assert s["command"] == "cp-als" and s["exit_code"] == 0 and s["error"] is None
    assert s["arguments"] == ["--input", "X.npy", "--rank", "2", "--output", "m", "--quiet"]
    assert s["inputs"] == ["X.npy"]
    assert s["outputs"] == ["m_lambda.npy", "m_factor0.npy", "m_factor1.npy", "m_factor2.npy"]
    assert abs(s["results"]["fit"] - fit_of(r)) < 1e-9
    assert s["results"]["dims"] == "9x8x7" and s["results"]["rank"] == 2
    assert set(s["phases"]) == {"read", "build", "initialisation", "iterations", "write"}
    write_tns(work / "S.tns", (9, 8, 7), 100)
    r = ok(run("cp-als", "-i", "S.tns", "-r", "2", "--json=t.json", "-q"))
    s = summary(work / "t.json")
    assert s["results"]["nnz"] == 100 and abs(s["results"]["fit"] - fit_of(r)) < 1e-9
    assert s["outputs"] == []


def test_sttid_gen_convert_and_sshopm(work):
    ok(run("gen", "sparse", "--dims", "20x30x10", "--nnz", "200", "-o", "G.tns",
           "--json", "g.json"))
    g = summary(work / "g.json")
    assert g["outputs"] == ["G.tns"] and g["results"]["dims"] == "20x30x10"
    ok(run("sttid", "-i", "G.tns", "--rmax", "5", "--eps", "0", "-q", "--json", "t.json"))
    t = summary(work / "t.json")
    assert t["inputs"] == ["G.tns"] and t["results"]["tt_ranks"].startswith("1x")
    assert t["results"]["relative_error"] >= 0
    ok(run("convert", "-i", "G.tns", "-o", "G.tpb", "--json", "c.json"))
    c = summary(work / "c.json")
    assert c["inputs"] == ["G.tns"] and c["outputs"] == ["G.tpb"]
    np.save(work / "A.npy", np.tile(kofidis_regalia(), (3, 1)))
    ok(run("sshopm", "-i", "A.npy", "--order", "4", "--dim", "3", "-o", "e", "--json", "e.json"))
    e = summary(work / "e.json")
    assert e["results"]["tensors"] == 3 and "e_lambda.npy" in e["outputs"]


def test_a_failed_run_writes_its_error(work):
    np.save(work / "bad.npy", np.full((4, 3, 2), np.nan))
    r = run("cp-als", "-i", "bad.npy", "-r", "2", "--json", "f.json")
    assert r.returncode == 1
    s = summary(work / "f.json")
    assert s["exit_code"] == 1 and "is NaN" in s["error"] and s["error"] in err(r)
    r = run("cp-als", "-i", "bad.npy", "--json", "u.json")
    assert r.returncode == 2 and summary(work / "u.json")["exit_code"] == 2


def test_an_existing_summary_is_refused_before_the_work(work):
    planted_dense(work / "X.npy", (5, 4, 3), rank=1)
    (work / "s.json").write_text("keep")
    r = run("cp-als", "-i", "X.npy", "-r", "1", "-o", "m", "--json", "s.json")
    assert r.returncode == 1 and "'s.json' exists" in err(r) and "--force" in err(r)
    assert (work / "s.json").read_text() == "keep" and not (work / "m_lambda.npy").exists()
    ok(run("cp-als", "-i", "X.npy", "-r", "1", "--json", "s.json", "--force", "-q"))
    assert summary(work / "s.json")["exit_code"] == 0
    r = run("cp-als", "-i", "X.npy", "-r", "1", "--json")
    assert r.returncode == 2 and "--json" in err(r)


def test_demo_and_bench(work):
    ok(run("demo", "--json", "d.json"))
    assert summary(work / "d.json")["results"]["checks"] == "passed"


@pytest.mark.skipif(not built_with_mpi(), reason="a build without MPI")
def test_a_distributed_run_writes_one_summary(work):
    write_tns(work / "S.tns", (12, 10, 8), 150)
    r = mpirun(2, "cp-als", "-i", "S.tns", "-r", "2", "--max-iters", "3", "-q", "--json",
               "s.json")
    assert r.returncode == 0, r.stderr
    s = summary(work / "s.json")
    assert s["exit_code"] == 0 and s["inputs"] == ["S.tns"] and "fit" in s["results"]


def test_peaks(work):
    r = ok(run("peaks", "--example", "-o", "p", "--json", "p.json"))
    s = summary(work / "p.json")
    assert s["results"]["voxels"] == 256 and "p_directions.npy" in s["outputs"]
    assert sum(v for k, v in s["results"].items() if k.startswith("voxels_with_")) == 256
