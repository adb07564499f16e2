"""Sparse and dense inputs in the forms other tools write them: gzip-compressed files
(Python's gzip module writes them here), 0-based .tns (detected or given with
--index-base), and headers (sptensor text, order and dims lines); options that do not
apply to the input are refused."""
import gzip

import numpy as np
import pytest

from conftest import (built_with_mpi, err, mpirun, ok, out, planted_dense, read_tns, run,
                      write_tns)


def built_with_zlib():
    return ", zlib" in run("version").stdout.decode()


needs_zlib = pytest.mark.skipif(not built_with_zlib(), reason="a build without zlib")


@pytest.fixture
def tensor(work):
    return write_tns(work / "X.tns", (13, 7, 11), 300, seed=8)


def write_zero_based(path, entries, head=""):
    with open(path, "w") as f:
        f.write(head)
        for idx, v in entries.items():
            f.write(" ".join(str(i) for i in idx) + f" {v!r}\n")


@needs_zlib
def test_gzip_text_reads_as_the_text(work, tensor):
    with open(work / "X.tns", "rb") as src, gzip.open(work / "X.tns.gz", "wb") as dst:
        dst.write(src.read())
    ok(run("convert", "-i", "X.tns.gz", "-o", "Y.tns"))
    assert read_tns(work / "Y.tns") == tensor
    with open(work / "X.tns.gz", "rb") as f:  # from a pipe too
        ok(run("convert", "-i", "-", "-o", "Z.tns", stdin=f))
    assert read_tns(work / "Z.tns") == tensor


@needs_zlib
def test_gzip_npy_gives_the_same_decomposition(work):
    planted_dense(work / "D.npy", (9, 8, 7), rank=2)
    with open(work / "D.npy", "rb") as src, gzip.open(work / "D.npy.gz", "wb") as dst:
        dst.write(src.read())
    ok(run("cp-als", "-i", "D.npy", "-r", "2", "-q", "-o", "a"))
    ok(run("cp-als", "-i", "D.npy.gz", "-r", "2", "-q", "-o", "b"))
    for name in ("lambda", "factor0", "factor1", "factor2"):
        assert (work / f"a_{name}.npy").read_bytes() == (work / f"b_{name}.npy").read_bytes()


@needs_zlib
def test_concatenated_gzip_members_are_read_in_turn(work, tensor):
    text = (work / "X.tns").read_bytes()
    half = text.index(b"\n", len(text) // 2) + 1
    (work / "M.tns.gz").write_bytes(gzip.compress(text[:half]) + gzip.compress(text[half:]))
    ok(run("convert", "-i", "M.tns.gz", "-o", "Y.tns"))
    assert read_tns(work / "Y.tns") == tensor


@needs_zlib
def test_truncated_gzip_is_an_error(work, tensor):
    data = gzip.compress((work / "X.tns").read_bytes())
    (work / "T.tns.gz").write_bytes(data[: len(data) // 2])
    r = run("convert", "-i", "T.tns.gz", "-o", "Y.tns")
    assert r.returncode == 1 and "T.tns.gz: the gzip data ends early" in err(r)
    assert not (work / "Y.tns").exists()


def test_zero_based_text_is_detected_and_can_be_given(work, tensor):
    write_zero_based(work / "Z.tns", tensor)
    r = ok(run("convert", "-i", "Z.tns", "-o", "A.tns"))
    assert "0-based indices" in out(r)
    assert read_tns(work / "A.tns") == tensor
    ok(run("convert", "-i", "Z.tns", "-o", "B.tns", "--index-base", "0", "--dims", "13,7,11"))
    assert read_tns(work / "B.tns") == tensor
    r = run("convert", "-i", "Z.tns", "-o", "C.tns", "--index-base=1")
    assert r.returncode == 1 and "is 0 in a file read with 1-based indices" in err(r)
    r = run("convert", "-i", "Z.tns", "-o", "C.tns", "--index-base", "2")
    assert r.returncode == 2 and "--index-base '2' is not valid: expected 0, 1 or auto" in err(r)


def test_sptensor_and_order_dims_headers_give_the_shape(work, tensor):
    body = (work / "X.tns").read_text()
    (work / "S.tns").write_text(f"sptensor\n3\n20 7 11\n{len(tensor)}\n" + body)
    (work / "P.tns").write_text("3\n20 7 11\n" + body)
    for name in ("S", "P"):
        r = ok(run("convert", "-i", f"{name}.tns", "-o", f"{name}2.tpb"))
        assert "dims 20x7x11" in out(r) and "header: " in out(r)
        r = ok(run("sttid", "-i", f"{name}.tns", "--rmax", "3", "--eps", "0", "-q",
                   "--no-error"))
        assert "20x7x11" in out(r)
    r = run("convert", "-i", "S.tns", "-o", "N.tns", "--no-header")
    assert r.returncode == 1 and "line 1" in err(r)


def test_sparse_text_options_are_refused_where_they_do_not_apply(work, tensor):
    planted_dense(work / "D.npy", (5, 4, 3), rank=1)
    r = run("cp-als", "-i", "D.npy", "-r", "1", "--index-base", "0")
    assert r.returncode == 2
    assert "--index-base and --no-header apply to sparse text (.tns); D.npy is a .npy" in err(r)
    ok(run("convert", "-i", "X.tns", "-o", "X.tpb"))
    r = run("sttid", "-i", "X.tpb", "--rmax", "2", "--eps", "0", "--no-header")
    assert r.returncode == 2 and "X.tpb is a .tpb file" in err(r)


def test_dims_take_commas_and_x_in_every_command(work, tensor):
    for dims in ("13x7x11", "13,7,11"):
        ok(run("convert", "-i", "X.tns", "-o", "Y.tns", "--dims", dims, "--force"))
        ok(run("cp-als", "-i", "X.tns", "-r", "2", "--max-iters", "2", "-q", "--dims", dims))
        ok(run("sttid", "-i", "X.tns", "--rmax", "2", "--eps", "0", "-q", "--dims", dims))


@pytest.mark.skipif(not built_with_mpi(), reason="a build without MPI")
@needs_zlib
def test_gzip_is_refused_by_a_distributed_read(work, tensor):
    with open(work / "X.tns", "rb") as src, gzip.open(work / "X.tns.gz", "wb") as dst:
        dst.write(src.read())
    r = mpirun(2, "cp-als", "-i", "X.tns.gz", "-r", "2", "--max-iters", "1", "-q")
    assert r.returncode != 0 and b"gzip-compressed" in r.stderr and b"decompress it" in r.stderr
