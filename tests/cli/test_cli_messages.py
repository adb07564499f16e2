"""Usage errors say what was given and what is accepted; a missing value is reported as
missing; an input whose outputs could not be written is refused before the work; long
paths keep the system's reason in the message."""
import numpy as np
import pytest

from conftest import err, out, run

# (command words, option, a value it refuses, words of the accepted values)
REFUSED = [
    ("cp-als", "--rank", "0", "an integer from 1"),
    ("cp-als", "--tol", "-1", "a number >= 0"),
    ("cp-als", "--max-iters", "x", "an integer from 1"),
    ("cp-als", "--seed", "-3", "an integer from 0"),
    ("cp-als", "--mttkrp", "foo", "auto, elem, slice, tile, gemm or blocked"),
    ("cp-als", "--precision", "f16", "f64 or f32"),
    ("cp-als", "--check-fit", "2", "a number from 0 to 1"),
    ("sshopm", "--order", "1", "an integer from 2"),
    ("sshopm", "--dim", "99", "an integer from 1 to 16"),
    ("sshopm", "--starts", "0", "an integer from 1"),
    ("sshopm", "--max-iters", "-1", "an integer from 0"),
    ("sshopm", "--tol", "-1", "a number >= 0"),
    ("sshopm", "--xtol", "nan", "a number >= 0"),
    ("sshopm", "--shift", "foo", "'adaptive' or a finite number"),
    ("sshopm", "--kernel", "x", "auto, generic or unrolled"),
    ("peaks", "--lmax", "3", "an even number from 2 to 16"),
    ("peaks", "--max-peaks", "0", "an integer from 1"),
    ("peaks", "--min-amplitude", "2", "a number from 0 to 1"),
    ("peaks", "--tol", "0", "a number > 0"),
    ("peaks", "--precision", "x", "f64 or f32"),
    ("gen dense", "--rank", "0", "an integer from 1"),
    ("gen dense", "--noise", "-1", "a number >= 0"),
    ("gen dense", "--layout", "up", "right or left"),
    ("gen sparse", "--nnz", "-1", "an integer from 0"),
    ("gen sparse", "--values", "x", "uniform, pareto or ones"),
    ("gen sparse", "--alpha", "0", "a number > 0"),
    ("gen sparse", "--support", "0", "an integer from 1"),
    ("gen sttid", "--kind", "x", "power-law or knowledge"),
    ("gen sttid", "--alpha", "-1", "a number > 0"),
    ("sttid", "--rmax", "0", "an integer from 1"),
    ("sttid", "--eps", "-1", "a number >= 0"),
    ("convert", "--precision", "x", "f64 or f32"),
    ("info", "--device", "x", "an integer from 0"),
]


@pytest.mark.parametrize("words,option,value,accepted", REFUSED)
def test_a_refused_value_says_what_is_accepted(words, option, value, accepted):
    r = run(*words.split(), option, value)
    assert r.returncode == 2
    line = err(r).strip()
    assert f"{option} '{value}' is not valid: expected" in line and accepted in line, line


@pytest.mark.parametrize("words", ["cp-als", "sttid", "convert", "sshopm"])
def test_a_missing_value_is_reported_as_missing(words):
    r = run(*words.split(), "--input", "--rank", "3")
    assert r.returncode == 2
    assert "--input needs a value" in err(r)
    assert "unknown option '3'" not in err(r)


def test_an_unknown_option_is_named():
    r = run("cp-als", "--rnak", "3")
    assert r.returncode == 2 and "unknown option '--rnak'" in err(r)


def test_peaks_refuses_an_input_whose_outputs_exceed_16_dimensions(work):
    np.save(work / "SH16.npy", np.ones((1,) * 15 + (15,)))
    r = run("peaks", "--sh", "SH16.npy", "--output", "p", timeout=30)
    assert r.returncode == 1
    assert "at most 16" in err(r) and out(r) == ""
    assert not list(work.glob("p_*"))


def test_a_long_path_keeps_the_reason(work):
    deep = "/no/such/" + "d" * 200 + "/" + "e" * 3000 + ".npy"
    r = run("cp-als", "--input", deep, "--rank", "2")
    assert r.returncode == 1
    assert err(r).rstrip().endswith(")")  # the whole message, to its source location
    assert "No such file or directory" in err(r)
