"""Inputs the package must take or refuse by name: arrays at odd byte offsets and
byte-swapped arrays (converted, with the results of ordinary ones), zero and zero-column
starts (refused), SS-HOPM starts of any scale (the runs of unit starts)."""

import numpy as np
import pytest

import tenport


def odd_offset_copy(a):
    """The same values in an array that starts one byte into its buffer (not aligned)."""
    buf = bytearray(a.nbytes + 1)
    b = np.frombuffer(buf, dtype=a.dtype, offset=1, count=a.size).reshape(a.shape)
    b[...] = a
    assert not b.flags.aligned
    return b


@pytest.fixture
def tensor():
    rng = np.random.default_rng(5)
    return rng.standard_normal((5, 6, 7))


def test_an_unaligned_tensor_gives_the_aligned_result(tensor):
    w0, f0 = tenport.cp_als(tensor, 2, n_iter_max=5, random_state=1)
    w1, f1 = tenport.cp_als(odd_offset_copy(tensor), 2, n_iter_max=5, random_state=1)
    np.testing.assert_array_equal(w0, w1)
    for a, b in zip(f0, f1):
        np.testing.assert_array_equal(a, b)


def test_a_byte_swapped_tensor_gives_the_native_result(tensor):
    swapped = tensor.astype(tensor.dtype.newbyteorder(">" if tensor.dtype.byteorder != ">"
                                                      else "<"))
    w0, f0 = tenport.cp_als(tensor, 2, n_iter_max=5, random_state=1)
    w1, f1 = tenport.cp_als(swapped, 2, n_iter_max=5, random_state=1)
    np.testing.assert_array_equal(w0, w1)
    for a, b in zip(f0, f1):
        np.testing.assert_array_equal(a, b)


def test_an_unaligned_start_is_copied(tensor):
    rng = np.random.default_rng(2)
    init = [rng.standard_normal((n, 2)) for n in tensor.shape]
    w0, _ = tenport.cp_als(tensor, 2, n_iter_max=3, init=(np.ones(2), init))
    w1, _ = tenport.cp_als(tensor, 2, n_iter_max=3,
                           init=(np.ones(2), [odd_offset_copy(f) for f in init]))
    np.testing.assert_array_equal(w0, w1)


@pytest.mark.parametrize("zeros", ["column", "all"])
def test_zero_starts_are_refused(tensor, zeros):
    rng = np.random.default_rng(2)
    init = [rng.standard_normal((n, 2)) for n in tensor.shape]
    if zeros == "all":
        init = [np.zeros_like(f) for f in init]
    else:
        init[1][:, 1] = 0
    with pytest.raises(Exception, match="column of zeros"):
        tenport.cp_als(tensor, 2, n_iter_max=3, init=(np.ones(2), init))


@pytest.mark.parametrize("scale", [3e-200, 1e200])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sshopm_starts_of_any_scale_converge_as_unit_starts(scale, dtype):
    A = np.array([[0.2883, -0.0031, 0.1973, -0.2485, -0.2939, 0.3847, 0.2972, 0.1862,
                   0.0919, -0.3619, 0.1241, -0.3420, 0.2127, 0.2727, -0.3054]], dtype=dtype)
    starts = np.array([[3.0, 4.0, 0.0], [0.2, -0.5, 0.7]])
    unit = tenport.sshopm(A, 4, 3, starts=starts, max_iter=2000)
    scaled = tenport.sshopm(A, 4, 3, starts=starts * scale, max_iter=2000)
    np.testing.assert_array_equal(scaled.flags, unit.flags)
    np.testing.assert_allclose(scaled.lambdas, unit.lambdas, rtol=1e-5, atol=1e-6)


def test_ctrl_c_stops_cp_als_within_an_iteration():
    import os
    import signal
    import threading
    import time
    X = np.random.default_rng(3).standard_normal((40, 30, 20))
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            tenport.cp_als(X, 4, n_iter_max=10**9, tol=0, max_seconds=60)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 20, "the run went on after Ctrl-C"


@pytest.mark.parametrize("seed", [2**63, 2**64 - 1])
def test_seeds_up_to_2_64_are_taken(tensor, seed):
    w, f = tenport.cp_als(tensor, 2, n_iter_max=2, random_state=seed)
    assert np.all(np.isfinite(w))


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_seeds_outside_64_bits_are_refused_by_value(tensor, seed):
    with pytest.raises(ValueError, match="random_state"):
        tenport.cp_als(tensor, 2, n_iter_max=2, random_state=seed)


def test_load_warns_when_a_first_line_is_taken_as_a_header(tmp_path):
    path = tmp_path / "h.tns"
    path.write_text("2 5 7\n1 1 3\n4 2 1\n5 7 2\n")
    with pytest.warns(UserWarning, match="taken as a header"):
        X = tenport.load(path)
    assert X.shape == (5, 7)
    plain = tmp_path / "p.tns"
    plain.write_text("1 1 3 1.0\n4 2 1 2.0\n")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tenport.load(plain)


def test_an_unsigned_coordinate_beyond_int64_is_refused_by_value():
    coords = np.array([[0, 0], [2**63, 1]], dtype=np.uint64)
    with pytest.raises(ValueError, match="9223372036854775808"):
        tenport.SparseTensor(coords, [1.0, 2.0], (2, 2**63 + 1))
