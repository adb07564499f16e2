"""Sparse text means one tensor, said aloud: a first line taken as a header of the form a
nonzero could have ("N I1 ... IN") is reported, and a distributed read takes every header
form and index base that a one-process read takes, the same way."""
import re

import pytest

from conftest import built_with_mpi, err, mpirun, ok, out, ranks_among, run

needs_mpi = pytest.mark.skipif(not built_with_mpi(), reason="built without MPI")


def fit_of(text):
    return float(re.search(r"fit ([0-9.]+) after", text).group(1))


def test_an_ambiguous_header_is_reported(work):
    (work / "h.tns").write_text("2 5 7\n1 1 3\n4 2 1\n5 7 2\n")
    r = ok(run("cp-als", "-i", "h.tns", "-r", "1", "--max-iters", "2"))
    assert "first line was taken as a header (order 2, dims 5x7)" in err(r)
    r = ok(run("cp-als", "-i", "h.tns", "-r", "1", "--max-iters", "2", "--no-header"))
    assert "taken as a header" not in err(r)


def test_a_plain_file_says_nothing_of_headers(work):
    (work / "p.tns").write_text("1 1 3 1.0\n4 2 1 2.0\n5 7 2 3.0\n")
    r = ok(run("cp-als", "-i", "p.tns", "-r", "1", "--max-iters", "2"))
    assert "header" not in err(r)


CASES = {
    "order and dims line": "3 20 20 20\n1 1 1 1.0\n2 2 2 2.0\n",
    "order and dims lines": "3\n20 20 20\n1 1 1 1.0\n2 2 2 2.0\n3 1 2 0.5\n",
    "sptensor": "sptensor\n3\n20 20 20\n3\n1 1 1 1.0\n2 2 2 2.0\n3 1 2 0.5\n",
    "sptensor 0-based": "sptensor indices-start-at-zero\n3\n20 20 20\n3\n0 0 0 1.0\n1 1 1 2.0\n19 0 1 0.5\n",
    "0-based, no header": "0 0 0 1.0\n1 1 1 2.0\n4 0 1 0.5\n2 3 3 1.5\n",
}


@needs_mpi
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("ranks", ranks_among(2, 3))
def test_distributed_reads_are_one_process_reads(work, name, ranks):
    (work / "x.tns").write_text(CASES[name])
    one = ok(run("cp-als", "-i", "x.tns", "-r", "1", "--max-iters", "3", "--seed", "4"))
    many = mpirun(ranks, "cp-als", "-i", "x.tns", "-r", "1", "--max-iters", "3", "--seed", "4")
    assert many.returncode == 0, err(many)
    shape = re.search(r"tensor: x.tns, (\S+)", out(one)).group(1)
    assert shape in out(many), (shape, out(many))
    assert fit_of(out(many)) == pytest.approx(fit_of(out(one)), abs=1e-9)


def test_a_header_with_a_zero_size_says_so(work):
    (work / "z.tns").write_text("3\n20 0 20\n1 1 1 1.0\n")
    r = run("convert", "-i", "z.tns", "-o", "y.tns")
    assert r.returncode == 1
    assert "line 2: the dims line of a header (after the order 3) has a size 0" in err(r)
