"""tenport convert between every format: each pair's round trip A -> B -> A gives the
tensor written by this test (compared with numpy, through readers of its own), gzip
outputs read back by Python's gzip module, the summary, dense text in cp-als, and every
refusal: names that say no format, formats the name contradicts, options that do not
apply, dense forms past --max-elements or the memory."""
import gzip
import struct

import numpy as np
import pytest

from conftest import built_with_mpi, err, mpirun, ok, out, run

FORMATS = ("tns", "sptensor", "tpb", "npy", "tensor")
NAMES = {"tns": "tns", "sptensor": "sp.tns", "tpb": "tpb", "npy": "npy", "tensor": "txt"}
SPARSE = ("tns", "sptensor", "tpb")


def built_with_zlib():
    return ", zlib" in run("version").stdout.decode()


needs_zlib = pytest.mark.skipif(not built_with_zlib(), reason="a build without zlib")


# ---- the test's own writers and readers of every format ---------------------------------

def entries_of(x):
    return {tuple(int(i) for i in idx): float(x[idx]) for idx in zip(*np.nonzero(x))}


def write_sparse(path, x, fmt, base=1):
    """x's nonzeros as .tns, sptensor text (the Toolbox's bare word, or GenTen's 0-based
    form) or .tpb."""
    e = entries_of(x)
    if fmt == "tpb":
        idx = np.array(list(e.keys()), dtype=np.int64).reshape(len(e), x.ndim)
        head = b"TPCOO\0\0\1" + struct.pack("<IIII", 1, 8, 8, x.ndim)
        head += struct.pack("<Q", len(e)) + struct.pack(f"<{x.ndim}Q", *x.shape)
        body = b"".join(idx[:, m].astype("<i8").tobytes() for m in range(x.ndim))
        path.write_bytes(head + body + np.array(list(e.values()), "<f8").tobytes())
        return
    lines = []
    if fmt == "sptensor":
        word = "sptensor indices-start-at-zero" if base == 0 else "sptensor"
        lines = [word, str(x.ndim), " ".join(map(str, x.shape)), str(len(e))]
    lines += [" ".join(str(i + base) for i in k) + f" {v!r}" for k, v in e.items()]
    path.write_text("\n".join(lines) + "\n")


def write_dense_text(path, x):
    path.write_text(f"tensor\n{x.ndim}\n" + " ".join(map(str, x.shape)) + "\n" +
                    "".join(f"{v!r}\n" for v in x.ravel(order="F").tolist()))


def write_any(path, x, fmt):
    if fmt == "npy":
        np.save(path, x)
    elif fmt == "tensor":
        write_dense_text(path, x)
    else:
        write_sparse(path, x, fmt)


def lines_of(data):
    return [line.split("#")[0].split() for line in data.decode().splitlines()
            if line.split("#")[0].split()]


def read_sparse_text(data, shape, base=1):
    rows = lines_of(data)
    if rows[0][0] == "sptensor":
        base = 0 if rows[0][1:] == ["indices-start-at-zero"] else 1
        shape = tuple(int(d) for d in rows[2])
        assert int(rows[3][0]) == len(rows) - 4, "the sptensor header's nonzero count"
        rows = rows[4:]
    x = np.zeros(shape)
    for r in rows:
        x[tuple(int(i) - base for i in r[:-1])] += float(r[-1])
    return x


def read_tpb(data):
    assert data[:8] == b"TPCOO\0\0\1"
    version, iw, vw, order = struct.unpack_from("<IIII", data, 8)
    nnz, = struct.unpack_from("<Q", data, 24)
    shape = struct.unpack_from(f"<{order}Q", data, 32)
    pos = 32 + 8 * order
    idx = []
    for _ in range(order):
        idx.append(np.frombuffer(data, f"<u{iw}", nnz, pos).astype(np.int64))
        pos += iw * nnz
    vals = np.frombuffer(data, f"<f{vw}", nnz, pos)
    x = np.zeros(shape)
    np.add.at(x, tuple(idx), vals)
    return x


def read_dense_text(data):
    rows = lines_of(data)
    assert rows[0] == ["tensor"] and int(rows[1][0]) == len(rows[2])
    shape = tuple(int(d) for d in rows[2])
    return np.array([float(r[0]) for r in rows[3:]]).reshape(shape, order="F")


def read_any(path, fmt, shape, opener=open):
    with opener(path, "rb") as f:
        data = f.read()
    if fmt == "npy":
        import io
        return np.load(io.BytesIO(data))
    if fmt == "tensor":
        return read_dense_text(data)
    if fmt == "tpb":
        return read_tpb(data)
    return read_sparse_text(data, shape)


def random_tensor(shape, seed, density=0.4):
    """Values of many spellings and magnitudes, zeros among them, and a nonzero at the last
    index of every mode, so that plain .tns (no dims of its own) keeps the shape."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-5, 6, shape)
    x[rng.random(shape) > density] = 0
    x[tuple(n - 1 for n in shape)] = 0.125
    return x


# ---- round trips -------------------------------------------------------------------------

@pytest.mark.parametrize("a", FORMATS)
@pytest.mark.parametrize("b", FORMATS)
def test_every_pair_goes_there_and_back(work, a, b):
    if a == b:
        pytest.skip("a format into itself")
    shape = (5, 1, 7) if a in SPARSE else (3, 4, 2, 5)
    x = random_tensor(shape, seed=len(a) * 7 + len(b))
    write_any(work / f"A.{NAMES[a]}", x, a)
    fmt_b = ["--format", b] if b in ("sptensor", "tensor") else []
    fmt_a = ["--format", a] if a in ("sptensor", "tensor") else []
    ok(run("convert", "-i", f"A.{NAMES[a]}", "-o", f"B.{NAMES[b]}", *fmt_b))
    np.testing.assert_array_equal(read_any(work / f"B.{NAMES[b]}", b, shape), x)
    ok(run("convert", "-i", f"B.{NAMES[b]}", "-o", f"C.{NAMES[a]}", *fmt_a))
    np.testing.assert_array_equal(read_any(work / f"C.{NAMES[a]}", a, shape), x)


@pytest.mark.parametrize("order", [2, 3, 5])
def test_dense_orders_and_float32_go_through_text(work, order):
    shape = (4, 3, 1, 2, 3)[:order]
    x = random_tensor(shape, seed=order).astype(np.float32)
    np.save(work / "X.npy", np.asfortranarray(x))
    r = ok(run("convert", "-i", "X.npy", "-o", "X.txt", "--format", "tensor"))
    assert "float32" in out(r)
    ok(run("convert", "-i", "X.txt", "-o", "Y.npy", "--precision", "f32"))
    y = np.load(work / "Y.npy")
    assert y.dtype == np.float32
    np.testing.assert_array_equal(x, y)


def test_zero_based_text_is_written_for_genten(work):
    x = random_tensor((4, 6, 3), seed=11)
    np.save(work / "X.npy", x)
    ok(run("convert", "-i", "X.npy", "-o", "S.txt", "--format", "sptensor",
           "--output-index-base", "0"))
    text = (work / "S.txt").read_text()
    assert text.startswith("sptensor indices-start-at-zero\n3\n4 6 3\n")
    np.testing.assert_array_equal(read_sparse_text(text.encode(), None), x)
    ok(run("convert", "-i", "X.npy", "-o", "Z.tns", "--output-index-base=0"))
    np.testing.assert_array_equal(read_sparse_text((work / "Z.tns").read_bytes(), x.shape, 0), x)
    ok(run("convert", "-i", "Z.tns", "-o", "back.npy", "--index-base", "0", "--dims", "4x6x3"))
    np.testing.assert_array_equal(np.load(work / "back.npy"), x)


def test_dense_to_sparse_can_drop_small_values(work):
    x = np.array([[1e-9, 0.5], [0.0, -2e-7], [3.0, -1e-3]])
    np.save(work / "X.npy", x)
    r = ok(run("convert", "-i", "X.npy", "-o", "Y.tns", "--drop-below", "1e-6"))
    assert "nnz 3" in out(r) and "2 nonzeros below 1e-06 left out" in out(r)
    kept = np.where(np.abs(x) >= 1e-6, x, 0)
    np.testing.assert_array_equal(read_sparse_text((work / "Y.tns").read_bytes(), x.shape), kept)


def test_the_summary_says_what_was_read_and_written(work):
    x = random_tensor((3, 4, 5), seed=3)
    write_sparse(work / "S.tns", x, "sptensor")
    r = ok(run("convert", "-i", "S.tns", "-o", "D.txt", "--format", "tensor"))
    lines = out(r).splitlines()
    assert lines[0].startswith("read S.tns (sparse text, ")
    assert "header: sptensor" in lines[0] and "sparse, 3 modes, dims 3x4x5" in lines[0]
    assert f"nnz {np.count_nonzero(x)}" in lines[0]
    assert lines[1].startswith("wrote D.txt (tensor): dense, 3 modes, dims 3x4x5, 60 elements")


# ---- gzip ------------------------------------------------------------------------------------

@needs_zlib
@pytest.mark.parametrize("fmt", FORMATS)
def test_gz_outputs_are_gzip_of_the_plain_output(work, fmt):
    x = random_tensor((6, 5, 4), seed=5)
    np.save(work / "X.npy", x)
    args = ["--format", fmt] if fmt in ("sptensor", "tensor") else []
    ok(run("convert", "-i", "X.npy", "-o", f"Y.{NAMES[fmt]}", *args))
    r = ok(run("convert", "-i", "X.npy", "-o", f"Y.{NAMES[fmt]}.gz", *args))
    assert ", gzip)" in out(r).splitlines()[1]
    with gzip.open(work / f"Y.{NAMES[fmt]}.gz", "rb") as f:
        assert f.read() == (work / f"Y.{NAMES[fmt]}").read_bytes()
    np.testing.assert_array_equal(read_any(work / f"Y.{NAMES[fmt]}.gz", fmt, x.shape, gzip.open), x)
    r = ok(run("convert", "-i", f"Y.{NAMES[fmt]}.gz", "-o", "back.npy"))  # and read back
    assert "gzip" in out(r).splitlines()[0]
    np.testing.assert_array_equal(np.load(work / "back.npy"), x)


@needs_zlib
def test_a_gzip_dense_text_input_from_a_pipe(work):
    x = random_tensor((2, 3, 4), seed=9)
    write_dense_text(work / "X.txt", x)
    data = gzip.compress((work / "X.txt").read_bytes())
    ok(run("convert", "-i", "-", "-o", "Y.npy", input=data))
    np.testing.assert_array_equal(np.load(work / "Y.npy"), x)


# ---- dense text in the other commands --------------------------------------------------------

def test_cp_als_reads_dense_text_as_the_npy(work):
    rng = np.random.default_rng(4)
    a, b, c = (rng.uniform(0.5, 1.5, (n, 2)) for n in (6, 5, 4))
    x = np.asfortranarray(np.einsum("ir,jr,kr->ijk", a, b, c))
    np.save(work / "X.npy", x)
    write_dense_text(work / "X.txt", x)
    ok(run("cp-als", "-i", "X.npy", "-r", "2", "-q", "-o", "n"))
    r = ok(run("cp-als", "-i", "X.txt", "-r", "2", "-q", "-o", "t"))
    assert "tensor: X.txt, 6x5x4 float64" in out(r)
    for name in ("lambda", "factor0", "factor1", "factor2"):
        assert (work / f"n_{name}.npy").read_bytes() == (work / f"t_{name}.npy").read_bytes()
    r = run("cp-als", "-i", "X.txt", "-r", "2", "--dims", "6x5x4")
    assert r.returncode == 2 and "--dims applies to sparse inputs" in err(r)
    r = run("cp-als", "-i", "X.txt", "-r", "2", "--index-base", "0")
    assert r.returncode == 2 and "X.txt is dense 'tensor' text" in err(r)


def test_a_malformed_dense_text_names_its_line(work):
    (work / "X.txt").write_text("tensor\n2\n2 2\n1\n2\n3 4\n4\n")
    for args in (["convert", "-i", "X.txt", "-o", "Y.npy"], ["cp-als", "-i", "X.txt", "-r", "1"]):
        r = run(*args)
        assert r.returncode == 1 and "X.txt, line 6: 2 fields" in err(r), err(r)
    assert not (work / "Y.npy").exists()
    r = run("sttid", "-i", "X.txt", "--rmax", "2", "--eps", "0")
    assert r.returncode == 1 and "X.txt is dense tensor text" in err(r)


@pytest.mark.skipif(not built_with_mpi(), reason="a build without MPI")
def test_a_distributed_run_refuses_dense_text_by_name(work):
    write_dense_text(work / "X.txt", random_tensor((3, 4, 5), seed=6))
    r = mpirun(2, "cp-als", "-i", "X.txt", "-r", "2", "--max-iters", "1", "-q")
    assert r.returncode != 0 and b"X.txt is dense 'tensor' text" in r.stderr
    assert b"convert it first" in r.stderr


# ---- refusals --------------------------------------------------------------------------------

@pytest.fixture
def inputs(work):
    x = random_tensor((4, 5, 6), seed=2)
    np.save(work / "D.npy", x)
    write_sparse(work / "S.tns", x, "tns")
    return x


@pytest.mark.parametrize("args, says", [
    (["-i", "S.tns", "-o", "Y.txt"], "its format cannot be told from the name"),
    (["-i", "S.tns", "-o", "Y.gz"], "its format cannot be told from the name"),
    (["-i", "S.tns", "-o", "Y.tns", "--format", "npy"], "--format npy, but --output 'Y.tns' "
                                                         "names a .tns file"),
    (["-i", "S.tns", "-o", "Y.npy.gz", "--format", "tensor"], "names a .npy file"),
    (["-i", "S.tns", "-o", "Y.txt", "--format", "csv"], "expected tns, sptensor, tpb, npy or "
                                                         "tensor"),
    (["-i", "S.tns", "-o", "Y.npy", "--output-index-base", "0"], "--output-index-base applies "
                                                                  "to sparse text outputs"),
    (["-i", "S.tns", "-o", "Y.tns", "--output-index-base", "2"], "expected 0 or 1"),
    (["-i", "D.npy", "-o", "Y.tns", "--dims", "4x5x6"], "--dims applies to sparse inputs"),
    (["-i", "S.tns", "-o", "Y.tpb", "--drop-below", "0.1"], "--drop-below applies to a dense "
                                                             "input written sparse"),
    (["-i", "D.npy", "-o", "Y.txt", "--format", "tensor", "--drop-below", "0.1"],
     "--drop-below applies"),
    (["-i", "D.npy", "-o", "Y.tns", "--drop-below", "-1"], "expected a number >= 0"),
    (["-i", "D.npy", "-o", "Y.txt", "--format", "tensor", "--max-elements", "9"],
     "--max-elements applies to a sparse input written dense"),
    (["-i", "D.npy", "-o", "Y.tns", "--no-header"], "D.npy is a .npy file"),
])
def test_options_that_do_not_fit_are_usage_errors(work, inputs, args, says):
    r = run("convert", *args)
    assert r.returncode == 2 and says in err(r), err(r)
    assert not any(p.name.startswith("Y") for p in work.iterdir())


def test_a_dense_form_past_the_limit_or_the_memory_is_refused(work, inputs, monkeypatch):
    r = run("convert", "-i", "S.tns", "-o", "Y.npy", "--max-elements", "119")
    assert r.returncode == 1
    assert "the dense form of S.tns, dims 4x5x6, has 120 elements" in err(r)
    assert "more than --max-elements 119" in err(r)
    ok(run("convert", "-i", "S.tns", "-o", "Y.npy", "--max-elements", "120"))
    (work / "big.tns").write_text("sptensor\n3\n100000 100000 1000\n1\n1 1 1 1.0\n")
    r = run("convert", "-i", "big.tns", "-o", "big.npy")
    assert r.returncode == 1 and "dims 100000x100000x1000, has 1e+13 elements (8e+04 GB" in err(r)
    monkeypatch.setenv("TENPORT_HOST_MEMORY_LIMIT", "1G")
    r = run("convert", "-i", "big.tns", "-o", "big.npy", "--max-elements", "10000000000000")
    assert r.returncode == 1 and "does not fit" in err(r) and "100000x100000x1000" in err(r)
    (work / "one.tns").write_text("1 2.0\n3 1.0\n")
    r = run("convert", "-i", "one.tns", "-o", "one.npy")
    assert r.returncode == 1 and "a tensor of 1 mode" in err(r)
    assert not any(p.name.startswith(("big.npy", "one.npy")) for p in work.iterdir())
