"""Every reader of the tenport command takes a pipe, a FIFO or standard input as well
as a file: the input is opened once and its format is told from its first bytes, so no
byte is lost and nothing waits for a second open."""
import os
import shutil
import threading

import numpy as np
import pytest

from conftest import (err, kofidis_regalia, ok, out, planted_dense, read_tns, run,
                      sh_voxels, write_tns)

# The commands that read a file, each with the argument that names its input.
READERS = {
    "convert-tns": (["convert", "--output", "out.tpb", "--input"], "X.tns"),
    "cp-als-npy": (["cp-als", "--rank", "2", "--maxiters", "3", "--quiet", "--input"],
                   "D.npy"),
    "cp-als-tns": (["cp-als", "--rank", "2", "--maxiters", "3", "--quiet", "--input"],
                   "X.tns"),
    "sttid": (["sttid", "--rmax", "50", "--eps", "0", "--quiet", "--input"], "X.tns"),
    "sshopm": (["sshopm", "--order", "4", "--dim", "3", "--output", "s", "--input"],
               "A.npy"),
    "peaks": (["peaks", "--output", "p", "--sh"], "SH.npy"),
}


@pytest.fixture
def inputs(work):
    write_tns(work / "X.tns", (7, 9, 11), 120)
    planted_dense(work / "D.npy", (6, 7, 8))
    np.save(work / "A.npy", np.stack([kofidis_regalia(), 2 * kofidis_regalia()]))
    np.save(work / "SH.npy", sh_voxels(5))
    return work


def test_convert_reads_every_nonzero_from_a_pipe(work):
    # A file larger than any look-ahead or first read (4096 bytes were lost before).
    entries = write_tns(work / "X.tns", (50, 60, 70), 1000)
    for name in ["/dev/stdin", "-"]:
        with open(work / "X.tns", "rb") as f:
            ok(run("convert", "--input", name, "--output", "Y.tns", "--force", stdin=f))
        assert read_tns(work / "Y.tns") == entries


@pytest.mark.parametrize("reader", sorted(READERS))
def test_standard_input_works_for_every_reader(inputs, reader):
    args, name = READERS[reader]
    with open(inputs / name, "rb") as f:
        from_stdin = ok(run(*args, "-", stdin=f))
    from_file = ok(run(*args, name, "--force"))  # replaces the first run's outputs
    # The same run prints the same results whatever the source (times aside).
    keep = lambda r: [l for l in out(r).splitlines() if " s" not in l and "read " not in l
                      and "tensor:" not in l and not l.startswith("/") and name not in l
                      and "standard input" not in l]
    assert keep(from_stdin) == keep(from_file)


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_fifo_is_read_once_and_never_hangs(inputs, reader):
    args, name = READERS[reader]
    fifo = inputs / "fifo"
    os.mkfifo(fifo)
    data = (inputs / name).read_bytes()

    def feed():
        with open(fifo, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    ok(run(*args, "fifo", timeout=60))
    writer.join(5)


def test_a_npy_array_given_for_a_sparse_tensor_is_named(work):
    np.save(work / "D.npy", np.zeros((3, 4)))
    r = run("sttid", "--input", "D.npy", "--rmax", "2", "--eps", "0")
    assert r.returncode == 1
    assert "NumPy .npy array" in err(r) and "not a sparse tensor" in err(r)
    assert "not an integer" not in err(r)


def test_binary_data_with_a_wrong_magic_is_not_parsed_as_text(work):
    (work / "bad.tpb").write_bytes(b"TPCOX\0\0\1" + bytes(40))
    r = run("convert", "--input", "bad.tpb", "--output", "Y.tns")
    assert r.returncode == 1
    assert "binary data of no format tenport reads" in err(r)
    assert "54 50 43 4f 58 00 00 01" in err(r)
    assert "line 1" not in err(r)


def test_a_tpb_of_another_version_says_so(work):
    (work / "v2.tpb").write_bytes(b"TPCOO\0\0\2" + bytes(40))
    r = run("convert", "--input", "v2.tpb", "--output", "Y.tns")
    assert r.returncode == 1 and "magic" in err(r) and "line 1" not in err(r)


def test_gzip_data_is_recognised(work):
    (work / "X.tns.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(20))
    r = run("cp-als", "--input", "X.tns.gz", "--rank", "2")
    zlib = ", zlib" in run("version").stdout.decode()
    assert r.returncode == 1 and ("corrupt gzip data" if zlib else "gzip-compressed") in err(r)


def test_a_line_without_end_is_capped(work):
    # 8 MiB of digits and blanks without a line end: refused at the 1 MiB cap, quickly
    # and without reading the rest into memory.
    text = b"1 " * (4 << 20)
    r = run("convert", "--input", "-", "--output", "Y.tns", input=text, timeout=60)
    assert r.returncode == 1
    assert "line 1: longer than 1048576 bytes" in err(r)


def test_dev_zero_is_refused_as_binary(work):
    r = run("convert", "--input", "/dev/zero", "--output", "Y.tns", timeout=30)
    assert r.returncode == 1 and "binary data" in err(r)


@pytest.mark.parametrize("size", [10, 11])
def test_a_short_version_2_npy_is_truncated_not_misread(work, size):
    data = b"\x93NUMPY\x02\x00" + b"\x05\x00\x00"
    (work / "short.npy").write_bytes(data[:size])
    r = run("cp-als", "--input", "short.npy", "--rank", "2")
    assert r.returncode == 1 and "truncated" in err(r)


@pytest.mark.skipif(not shutil.which("valgrind"), reason="needs valgrind")
@pytest.mark.parametrize("size", [10, 11])
def test_a_short_version_2_npy_reads_no_uninitialised_byte(work, size):
    from conftest import TENPORT
    import subprocess
    (work / "short.npy").write_bytes((b"\x93NUMPY\x02\x00" + b"\x05\x00\x00")[:size])
    r = subprocess.run(["valgrind", "-q", "--error-exitcode=99", TENPORT, "cp-als", "--input",
                        "short.npy", "--rank", "2"], capture_output=True, timeout=120,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert r.returncode == 1, r.stderr.decode(errors="replace")


def test_cp_als_from_a_pipe_gives_the_file_s_answer(inputs):
    args = ["cp-als", "--rank", "3", "--tol", "0", "--maxiters", "5", "--quiet"]
    fit = lambda r: [l for l in out(r).splitlines() if l.startswith("fit ")][0].split()[1]
    with open(inputs / "D.npy", "rb") as f:
        piped = ok(run(*args, "--input", "-", stdin=f))
    assert fit(piped) == fit(ok(run(*args, "--input", "D.npy")))
