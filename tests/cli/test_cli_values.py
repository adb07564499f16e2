"""Option values and outputs said as users mean them: a subnormal tolerance is a number,
a size beyond 64 bits says so, a seed is digits only, --json - is standard output,
'tenport version' writes its --json, gen dense writes .npy bytes under .npy names only
(gzip-compressed under .npy.gz)."""
import gzip
import json

import pytest

from conftest import err, ok, out, planted_dense, run


def test_a_subnormal_tolerance_is_a_number(work):
    planted_dense("d.npy", (4, 5, 6))
    ok(run("cp-als", "-i", "d.npy", "-r", "2", "--max-iters", "2", "--tol", "1e-320"))


def test_a_size_beyond_64_bits_says_so(work):
    (work / "x.tns").write_text("1 1 1 1.0\n")
    r = run("convert", "-i", "x.tns", "-o", "y.tns", "--dims", "99999999999999999999x2x2")
    assert r.returncode == 2
    assert "mode 0 ('99999999999999999999') does not fit in 64 bits" in err(r)


@pytest.mark.parametrize("seed", [" -1", "-1", "+3", " 7"])
def test_a_seed_is_digits_only(work, seed):
    planted_dense("d.npy", (4, 5, 6))
    r = run("cp-als", "-i", "d.npy", "-r", "2", "--seed", seed)
    assert r.returncode == 2
    assert f"--seed '{seed}' is not valid" in err(r)


def test_json_dash_is_standard_output(work):
    planted_dense("d.npy", (4, 5, 6))
    r = ok(run("cp-als", "-i", "d.npy", "-r", "2", "--max-iters", "2", "-q", "--json", "-"))
    text = out(r)
    summary = json.loads(text[text.index("{\n  \"tenport\""):])
    assert summary["command"] == "cp-als" and summary["exit_code"] == 0
    assert not (work / "-").exists()


def test_version_writes_its_json(work):
    ok(run("version", "--json", "v.json"))
    summary = json.loads((work / "v.json").read_text())
    assert summary["command"] == "version"
    assert summary["results"]["version"]


def test_gen_dense_writes_npy_bytes_under_npy_names_only(work):
    r = run("gen", "dense", "--dims", "3x4", "-o", "X.tns")
    assert r.returncode == 2 and "end the name in .npy" in err(r)
    assert not (work / "X.tns").exists()
    ok(run("gen", "dense", "--dims", "3x4", "-o", "X.npy.gz"))
    with gzip.open(work / "X.npy.gz", "rb") as f:
        assert f.read(6) == b"\x93NUMPY"


@pytest.mark.parametrize("dtype", ["int64", "uint8", "int32"])
def test_an_integer_npy_is_read_as_its_values(work, dtype):
    import numpy as np
    x = np.arange(4 * 5 * 6).reshape(4, 5, 6) % 7
    np.save("i.npy", x.astype(dtype))
    np.save("f.npy", x.astype("float64"))
    a = ok(run("cp-als", "-i", "i.npy", "-r", "2", "--max-iters", "3", "--precision", "f64"))
    b = ok(run("cp-als", "-i", "f.npy", "-r", "2", "--max-iters", "3"))
    def fit(r):
        return [line.split(" after")[0] for line in out(r).splitlines() if line.startswith("fit ")]
    assert fit(a) and fit(a) == fit(b)
