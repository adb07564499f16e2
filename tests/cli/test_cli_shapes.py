"""A sparse tensor's shape survives the .tns files tenport writes: gen and convert write
an sptensor header whenever the text without one would read back as another tensor (dims
beyond the largest indices, or 0-based indices without an index 0), and leave it out with
--no-header-out."""
import re

import numpy as np
import pytest

from conftest import built_with_mpi, mpirun, ok, out, run, write_tns


def printed_dims(r):
    """The dims cp-als prints on its 'tensor:' line."""
    m = re.search(r"^tensor: \S+, ([0-9x]+) ", out(r), re.M)
    assert m, out(r)
    return m.group(1)


def planted(work, *extra):
    """A planted sparse tensor whose factors' nonzero rows stop short of the last slices."""
    return ok(run("gen", "sparse", "--dims", "300x400x500", "--rank", "3", "--support", "6",
                  "--seed", "5", "--output", "P.tns", "--truth", "T", *extra))


def test_gen_dims_survive_into_cp_als(work):
    planted(work)
    assert (work / "P.tns").read_text().startswith("sptensor\n3\n300 400 500\n")
    r = ok(run("cp-als", "-i", "P.tns", "-r", "3", "--max-iters", "3", "--quiet", "-o", "M"))
    assert printed_dims(r) == "300x400x500"
    for k, n in enumerate((300, 400, 500)):
        assert np.load(work / f"M_factor{k}.npy").shape == (n, 3)
        assert np.load(work / f"T_factor{k}.npy").shape == (n, 3)


def test_no_header_out_writes_plain_frostt_text(work):
    planted(work, "--no-header-out")
    text = (work / "P.tns").read_text()
    assert re.match(r"\d+ \d+ \d+ \S+\n", text), text[:80]
    r = ok(run("cp-als", "-i", "P.tns", "-r", "3", "--max-iters", "1", "--quiet"))
    assert printed_dims(r) != "300x400x500"  # the largest indices: what the text says
    ok(run("cp-als", "-i", "P.tns", "-r", "3", "--max-iters", "1", "--quiet",
           "--dims", "300x400x500"))


def test_a_shape_of_the_largest_indices_is_written_as_before(work):
    write_tns(work / "A.tns", (5, 6, 7), 60, seed=3)
    ok(run("convert", "-i", "A.tns", "-o", "B.tns", "--dims", "5x6x7"))
    assert not (work / "B.tns").read_text().startswith("sptensor")
    r = ok(run("convert", "-i", "B.tns", "-o", "C.npy"))
    assert np.load(work / "C.npy").shape == (5, 6, 7), out(r)


def test_gen_sttid_keeps_its_dims(work):
    ok(run("gen", "sttid", "--kind", "power-law", "--dims", "50,7,400", "--nnz", "4",
           "--output", "S.tns"))
    ok(run("convert", "-i", "S.tns", "-o", "S.npy"))
    assert np.load(work / "S.npy").shape == (50, 7, 400)


def test_convert_dims_survive_into_the_output(work):
    write_tns(work / "A.tns", (3, 4, 2), 10, seed=4)
    r = ok(run("convert", "-i", "A.tns", "-o", "B.tns", "--dims", "6x9x5"))
    assert "sptensor header" in out(r)
    assert (work / "B.tns").read_text().startswith("sptensor\n3\n6 9 5\n")
    ok(run("convert", "-i", "B.tns", "-o", "C.npy"))
    c = np.load(work / "C.npy")
    assert c.shape == (6, 9, 5)
    ok(run("convert", "-i", "A.tns", "-o", "A.npy"))
    a = np.load(work / "A.npy")
    np.testing.assert_array_equal(c[:a.shape[0], :a.shape[1], :a.shape[2]], a)


@pytest.mark.parametrize("sptensor", [False, True])
def test_zero_based_text_without_an_index_0_reads_back(work, sptensor):
    x = np.zeros((4, 5, 6))
    x[1, 2, 3], x[3, 4, 5], x[2, 1, 1] = 1.5, -2.0, 0.25  # no index 0 in any mode
    np.save(work / "X.npy", x)
    fmt = ["--format", "sptensor"] if sptensor else []
    ok(run("convert", "-i", "X.npy", "-o", "Z.tns", "--output-index-base", "0", *fmt))
    assert (work / "Z.tns").read_text().startswith("sptensor indices-start-at-zero\n")
    ok(run("convert", "-i", "Z.tns", "-o", "back.npy"))
    np.testing.assert_array_equal(np.load(work / "back.npy"), x)


def test_zero_based_text_with_an_index_0_needs_no_header(work):
    x = np.zeros((3, 2, 2))
    x[0, 1, 0], x[2, 0, 1] = 1.0, 2.0
    np.save(work / "X.npy", x)
    ok(run("convert", "-i", "X.npy", "-o", "Z.tns", "--output-index-base", "0"))
    assert (work / "Z.tns").read_text().splitlines()[0] == "0 1 0 1"
    ok(run("convert", "-i", "Z.tns", "-o", "back.npy"))
    np.testing.assert_array_equal(np.load(work / "back.npy"), x)


def test_convert_no_header_out(work):
    write_tns(work / "A.tns", (3, 4, 2), 10, seed=4)
    ok(run("convert", "-i", "A.tns", "-o", "B.tns", "--dims", "6x9x5", "--no-header-out"))
    assert not (work / "B.tns").read_text().startswith("sptensor")
    r = run("convert", "-i", "A.tns", "-o", "B.npy", "--no-header-out")
    assert r.returncode == 2 and b"--no-header-out applies to" in r.stderr


def test_the_usage_texts_name_the_option(work):
    for words in (["gen", "sparse"], ["gen", "sttid"], ["convert"]):
        assert "--no-header-out" in out(ok(run(*words, "--help")))


def test_the_demo_reads_back_the_shape_it_wrote(work):
    r = ok(run("demo", timeout=300))
    section = out(r).split("== 3b.")[1].split("==")[0]
    assert "60x80x70" in section


@pytest.mark.skipif(not built_with_mpi(), reason="a build without MPI")
def test_distributed_runs_read_the_header(work):
    planted(work)
    r = mpirun(3, "cp-als", "-i", "P.tns", "-r", "3", "--max-iters", "2", "--quiet",
               "-o", "M", timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    for k, n in enumerate((300, 400, 500)):
        assert np.load(work / f"M_factor{k}.npy").shape == (n, 3)
