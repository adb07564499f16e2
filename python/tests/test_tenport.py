"""The tenport Python package against numpy references on small random data of awkward
sizes: results, in-place use of the caller's arrays, errors, the GIL and references."""

import contextlib
import gc
import io
import sys
import threading
import time

import numpy as np
import pytest

import tenport


def planted(shape, rank, rng, dtype=np.float64):
    """A rank-`rank` tensor with Gaussian factors. (Orthogonal components with distinct
    weights are no easier: plain ALS stalls on them from most starts.)"""
    factors = [rng.standard_normal((n, rank)) for n in shape]
    letters = "abcdefgh"[:len(shape)]
    spec = ",".join(f"{c}r" for c in letters) + "->" + letters
    return np.einsum(spec, *factors).astype(dtype), factors


def reconstruct(weights, factors):
    letters = "abcdefgh"[:len(factors)]
    spec = "r," + ",".join(f"{c}r" for c in letters) + "->" + letters
    return np.einsum(spec, np.asarray(weights, dtype=np.float64),
                     *[np.asarray(f, dtype=np.float64) for f in factors])


def mttkrp_reference(X, factors, mode):
    X = np.asarray(X, dtype=np.float64)
    letters = "abcdefgh"[:X.ndim]
    inputs = [letters] + [f"{c}r" for m, c in enumerate(letters) if m != mode]
    spec = ",".join(inputs) + f"->{letters[mode]}r"
    return np.einsum(spec, X, *[np.asarray(f, dtype=np.float64)
                                for m, f in enumerate(factors) if m != mode])


@pytest.fixture
def rng():
    return np.random.default_rng()


def test_version_and_backend():
    assert tenport.__version__.count(".") == 2
    assert tenport.backend() in ("serial", "openmp", "cuda", "hip")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_cp_als_recovers_a_planted_tensor_in_place(rng, dtype, order):
    X, _ = planted((12, 10, 11), 3, rng, dtype)
    X = np.asarray(X, order=order)
    errors = []
    # A random start can end in a local minimum (on some draws of the factors most do);
    # the nvecs start spans the planted factors' columns. Both paths run in place.
    for init, seed in (("nvecs", 1), ("random", 1), ("random", 2)):
        weights, factors, info = tenport.cp_als(X, 3, n_iter_max=1000, tol=1e-12, init=init,
                                                return_info=True, random_state=seed)
        assert weights.dtype == dtype and all(f.dtype == dtype for f in factors)
        assert [f.shape for f in factors] == [(12, 3), (10, 3), (11, 3)]
        assert len(info["fits"]) == info["iterations"]
        if not tenport._tenport.is_gpu():
            assert tenport._tenport.last_input_address() == X.ctypes.data
        errors.append(np.linalg.norm(reconstruct(weights, factors) - X) / np.linalg.norm(X))
    assert min(errors) < (1e-3 if dtype == np.float32 else 1e-5)


def test_a_strided_view_is_copied_and_still_right(rng):
    big, _ = planted((9, 5, 12), 2, rng)
    X = big[::2, :, ::3]
    G = tenport.mttkrp(X, [rng.random((n, 4)) for n in X.shape], 0)
    assert G.shape == (5, 4)
    assert tenport._tenport.last_input_address() != X.ctypes.data


def test_fit_history_and_determinism(rng):
    X, _ = planted((6, 8, 5), 2, rng)
    X += 0.05 * rng.random(X.shape)
    w1, f1, i1 = tenport.cp_als(X, 2, random_state=7, return_info=True)
    w2, f2, _ = tenport.cp_als(X, 2, random_state=7, return_info=True)
    w3, _, _ = tenport.cp_als(X, 2, random_state=8, return_info=True)
    np.testing.assert_array_equal(w1, w2)
    assert all(np.array_equal(a, b) for a, b in zip(f1, f2))
    assert not np.array_equal(w1, w3)
    fits = np.array(i1["fits"])
    assert fits[-1] == pytest.approx(i1["fit"])
    assert i1["iterations"] <= 50 and set(i1) >= {"fit", "fits", "iterations", "seconds",
                                                 "converged"}


def test_verbose_lines_go_through_sys_stdout(rng, capfd):
    X, _ = planted((6, 5, 4), 2, rng)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _, _, info = tenport.cp_als(X, 2, n_iter_max=4, tol=0, verbose=True, return_info=True)
    lines = out.getvalue().splitlines()
    assert len(lines) == info["iterations"] == 4 and lines[0].startswith("iter    1  fit ")
    assert capfd.readouterr().out == ""


def test_init_from_the_true_factors_starts_at_the_answer(rng):
    X, factors = planted((5, 7, 4), 2, rng)
    _, _, info = tenport.cp_als(X, 2, init=(np.ones(2), factors), n_iter_max=1,
                                return_info=True)
    assert info["fits"][0] > 1 - 1e-6  # a random start is far below after one iteration


@pytest.mark.parametrize("scale", [1e-30, 1e-8, 1e8, 1e30])
def test_the_answer_scales_with_the_tensor(rng, scale):
    X, _ = planted((5, 6, 7), 2, rng)
    w, f = tenport.cp_als(X, 2, random_state=5)
    ws, fs = tenport.cp_als(X * scale, 2, random_state=5)
    np.testing.assert_allclose(ws, w * scale, rtol=1e-6)
    for a, b in zip(f, fs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("shape", [(7, 5, 6), (3, 4, 5, 2), (11, 9)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dense_mttkrp_matches_numpy(rng, shape, dtype):
    X = rng.standard_normal(shape).astype(dtype)
    factors = [rng.standard_normal((n, 5)).astype(dtype) for n in shape]
    for mode in range(len(shape)):
        G = tenport.mttkrp(X, factors, mode)
        tol = 1e-4 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(G, mttkrp_reference(X, factors, mode), rtol=tol, atol=tol)


def random_sparse(rng, shape, nnz):
    coords = np.stack([rng.integers(0, n, nnz) for n in shape], axis=1)
    coords[: nnz // 10] = coords[nnz // 10: 2 * (nnz // 10)]  # duplicates add up
    return tenport.SparseTensor(coords, rng.standard_normal(nnz), shape)


@pytest.mark.parametrize("shape", [(13, 7, 9), (5, 6, 4, 3)])
def test_sparse_mttkrp_matches_numpy(rng, shape):
    S = random_sparse(rng, shape, 97)
    dense = S.to_dense()
    factors = [rng.standard_normal((n, 3)) for n in shape]
    for mode in range(len(shape)):
        np.testing.assert_allclose(tenport.mttkrp(S, factors, mode),
                                   mttkrp_reference(dense, factors, mode), atol=1e-12)
    assert tenport._tenport.last_input_address() == S.values.ctypes.data


def test_sparse_cp_als_recovers_a_planted_tensor(rng):
    X, _ = planted((12, 10, 11), 2, rng)
    coords = np.argwhere(X != 0)
    S = tenport.SparseTensor(coords, X[tuple(coords.T)], X.shape)
    best = None
    for init, seed in (("nvecs", 1), ("random", 1), ("random", 2)):
        ws, fs, info = tenport.cp_als(S, 2, init=init, random_state=seed, return_info=True,
                                      n_iter_max=1000, tol=1e-12)
        if best is None or info["fit"] > best[2]["fit"]:
            best = (ws, fs, info)
    assert best[2]["fit"] > 0.9999
    np.testing.assert_allclose(reconstruct(best[0], best[1]), X, atol=1e-3 * np.abs(X).max())


class PydataLikeCOO:
    def __init__(self, coords, data, shape):
        self.coords, self.data, self.shape = coords, data, shape


def test_objects_with_coords_data_and_shape_are_sparse_tensors(rng):
    S = random_sparse(rng, (6, 5, 4), 40)
    like = PydataLikeCOO(S.coords.T.copy(), S.values.copy(), S.shape)
    factors = [rng.standard_normal((n, 2)) for n in S.shape]
    np.testing.assert_allclose(tenport.mttkrp(like, factors, 2), tenport.mttkrp(S, factors, 2))


def test_load_reads_npy_and_tns(tmp_path, rng):
    for order in ("C", "F"):
        for dtype in (np.float32, np.float64):
            a = np.asarray(rng.standard_normal((3, 4, 5)).astype(dtype), order=order)
            np.save(tmp_path / "a.npy", a)
            b = tenport.load(tmp_path / "a.npy")
            assert b.dtype == dtype
            np.testing.assert_array_equal(a, b)
    lines = "1 1 1 1.5\n3 2 1 -2.0\n2 4 2 0.25\n3 2 1 1.0\n"
    (tmp_path / "t.tns").write_text(lines)
    S = tenport.load(tmp_path / "t.tns")
    assert S.shape == (3, 4, 2) and S.nnz == 3
    dense = S.to_dense()
    assert dense[2, 1, 0] == -1.0 and dense[0, 0, 0] == 1.5 and dense[1, 3, 1] == 0.25


def write_dense_text(path, a, head="tensor\n", opener=open):
    """a as the dense text of GenTen and the Tensor Toolbox, written by numpy: the values
    first index fastest, one per line."""
    with opener(path, "wt") as f:
        f.write(head + f"{a.ndim}\n" + " ".join(map(str, a.shape)) + "\n")
        f.writelines(f"{v!r}\n" for v in a.ravel(order="F").tolist())


def test_load_reads_dense_text_by_its_content(tmp_path, rng):
    import gzip
    for shape in ((2, 3), (3, 1, 4), (2, 3, 1, 5), (1, 2, 1, 3, 2)):
        a = rng.standard_normal(shape)
        write_dense_text(tmp_path / "a.txt", a, head="# made by a test\ntensor\n")
        b = tenport.load(tmp_path / "a.txt")
        assert b.dtype == np.float64 and b.shape == shape
        np.testing.assert_array_equal(a, b)
    write_dense_text(tmp_path / "a.txt.gz", a, opener=gzip.open)  # gzip, any name
    np.testing.assert_array_equal(a, tenport.load(tmp_path / "a.txt.gz"))
    np.save(tmp_path / "n.npy", a)
    with open(tmp_path / "n.npy", "rb") as src, gzip.open(tmp_path / "n.npy.gz", "wb") as dst:
        dst.write(src.read())
    np.testing.assert_array_equal(a, tenport.load(tmp_path / "n.npy.gz"))
    (tmp_path / "bad.txt").write_text("tensor\n2\n2 2\n1\n2\nx\n4\n")
    with pytest.raises(tenport.Error, match="line 6: value 'x' is not a number"):
        tenport.load(tmp_path / "bad.txt")


def test_a_malformed_file_raises_the_library_s_message(tmp_path):
    (tmp_path / "bad.tns").write_text("1 1 1 1.0\n1 x 1 2.0\n")
    with pytest.raises(tenport.Error, match="line 2"):
        tenport.load(tmp_path / "bad.tns")
    with pytest.raises(tenport.Error):
        tenport.load(tmp_path / "missing.npy")


def test_bad_arguments(rng):
    X = rng.random((4, 5, 6))
    with pytest.raises(ValueError):
        tenport.cp_als(X, 0)
    with pytest.raises(TypeError):
        tenport.cp_als(X, "3")
    with pytest.raises(ValueError):
        tenport.cp_als(X, 2, init=(None, [np.ones((4, 2)), np.ones((5, 2))]))
    with pytest.raises(ValueError):
        tenport.cp_als(X, 2, mttkrp="fastest")
    with pytest.raises(ValueError):
        tenport.mttkrp(X, [rng.random((n, 2)) for n in X.shape], 3)
    with pytest.raises(TypeError):
        tenport.mttkrp(X.astype(np.complex128), [rng.random((n, 2)) for n in X.shape], 0)
    X[1, 2, 3] = np.nan
    with pytest.raises(tenport.Error, match="finite"):
        tenport.cp_als(X, 2)
    with pytest.raises(tenport.Error):
        tenport.cp_als(np.zeros((3, 4, 5)), 2)


def test_the_gil_is_released_while_the_library_works(rng):
    X = rng.random((80, 70, 60))
    ticks = 0
    running = True

    def count():
        nonlocal ticks
        while running:
            ticks += 1
            time.sleep(0.0005)

    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.01)
    start_ticks, start = ticks, time.perf_counter()
    tenport.cp_als(X, 16, n_iter_max=300, tol=0)
    elapsed = time.perf_counter() - start
    during = ticks - start_ticks
    running = False
    t.join()
    assert elapsed > 0.05, "too fast to tell"
    assert during > 10, f"the other thread ran {during} times in {elapsed:.3f} s"


def test_no_references_or_objects_leak_over_many_calls(rng, tmp_path):
    X = rng.random((4, 3, 5))
    factors = [rng.random((n, 2)) for n in X.shape]
    S = random_sparse(rng, (5, 4, 3), 20)
    S_factors = [rng.random((n, 2)) for n in S.shape]
    A = rng.standard_normal((2, 15))
    sh = rng.standard_normal((3, 6))
    np.save(tmp_path / "x.npy", X)

    def calls():
        tenport.mttkrp(X, factors, 1)
        tenport.cp_als(X, 2, n_iter_max=2)
        tenport.cp_als(S, 2, n_iter_max=2)
        tenport.mttkrp(S, S_factors, 0)
        tenport.sshopm(A, 4, 3, starts=4, max_iter=20)
        tenport.fiber_peaks(sh, 2, starts=4)
        tenport.sttid(S, rmax=2).evaluate([[0, 0, 0]])
        tenport.load(tmp_path / "x.npy")
        try:
            tenport.cp_als(X * np.nan, 2)
        except tenport.Error:
            pass
        with contextlib.redirect_stdout(io.StringIO()):
            tenport.gcp(X, 2, mask=X > 0.2, n_iter_max=2, verbose=True)
        tenport.gcp(S, 2, mask=[[0, 1, 2]], n_iter_max=2, init=(np.ones(2), S_factors))
        for bad in ({"loss": "huber"}, {"loss": "poisson"}):
            try:
                tenport.gcp(X, 2, **bad)
            except (ValueError, tenport.Error):
                pass

    calls()
    gc.collect()
    watched = (X, S, S.values, A, sh, *factors, *S_factors)
    refs = [sys.getrefcount(o) for o in watched]
    objects = len(gc.get_objects())
    for _ in range(1000):
        calls()
    gc.collect()
    assert [sys.getrefcount(o) for o in watched] == refs
    assert len(gc.get_objects()) - objects < 100
    # and no C memory: the resident size settles after the first thousand
    rss = lambda: int(open("/proc/self/statm").read().split()[1]) * 4096
    before = rss()
    for _ in range(1000):
        calls()
    assert rss() - before < 4 << 20, f"resident size grew by {(rss() - before) >> 10} KiB"


def full_symmetric(unique, order, dim):
    """The full tensor of unique values listed by non-decreasing index tuples, in
    lexicographic order (tenport's, symtensor.h)."""
    from itertools import combinations_with_replacement, permutations
    full = np.empty((dim,) * order)
    for value, idx in zip(unique, combinations_with_replacement(range(dim), order)):
        for p in set(permutations(idx)):
            full[p] = value
    return full


@pytest.mark.parametrize("order,dim", [(3, 3), (4, 3), (4, 5), (6, 3)])
def test_sshopm_runs_and_eigenpairs_satisfy_the_eigen_equation(rng, order, dim):
    from math import comb
    A = rng.standard_normal((3, comb(order + dim - 1, order)))
    r = tenport.sshopm(A, order, dim, starts=24, random_state=4)
    assert r.lambdas.shape == (3, 24) and r.vectors.shape == (3, 24, dim)
    for k in range(3):
        full = full_symmetric(A[k], order, dim)

        def axm1(x):
            t = full
            for _ in range(order - 1):
                t = t @ x
            return t

        converged = r.flags[k] == 0
        assert converged.sum() > 12
        for lam, x in zip(r.lambdas[k][converged], r.vectors[k][converged]):
            assert np.linalg.norm(axm1(x) - lam * x) < 1e-4 * np.linalg.norm(full)
        assert r.eigenpairs[k], "no eigenpair"
        for lam, x, kind, runs in r.eigenpairs[k]:
            x = np.array(x)
            assert np.linalg.norm(axm1(x) - lam * x) < 1e-4 * np.linalg.norm(full)
            assert kind in ("maximum", "minimum", "saddle", "degenerate") and runs >= 1


def test_sshopm_in_single_precision_and_bad_shapes(rng):
    A = rng.standard_normal((2, 15)).astype(np.float32)
    r = tenport.sshopm(A, 4, 3, starts=8)
    assert r.lambdas.dtype == np.float32 and (r.flags == 0).any()
    with pytest.raises(ValueError):
        tenport.sshopm(A, 4, 4)
    with pytest.raises(ValueError):
        tenport.sshopm(A, 4, 3, shift="sideways")
    with pytest.raises(tenport.Error):
        tenport.sshopm(A, 4, 3, starts=np.full((3, 3), np.nan))


Y00, Y20_POLE = 0.5 / np.sqrt(np.pi), np.sqrt(5 / (4 * np.pi))


@pytest.mark.parametrize("scale", [1e-20, 1.0, 1e20])
def test_fiber_peaks_of_a_zonal_function_point_along_its_axis(rng, scale):
    sh = np.zeros((2, 3, 15))
    sh[..., 0] = 1.0
    sh[..., 3] = rng.uniform(0.5, 1.5, (2, 3))  # (l, m) = (2, 0): a peak at the poles
    sh[1, 2, :] = np.nan
    sh *= scale
    directions, amplitudes = tenport.fiber_peaks(sh, 4, max_peaks=2, precision="double")
    assert directions.shape == (2, 3, 2, 3) and amplitudes.shape == (2, 3, 2)
    good = np.ones((2, 3), bool)
    good[1, 2] = False
    np.testing.assert_allclose(np.abs(directions[good][:, 0, 2]), 1, atol=1e-6)
    np.testing.assert_allclose(amplitudes[good][:, 0],
                               scale * (Y00 + sh[good][:, 3] / scale * Y20_POLE), rtol=1e-6)
    assert np.isnan(amplitudes[good][:, 1]).all()  # one peak each (x and -x are one)
    assert np.isnan(amplitudes[1, 2]).all() and np.isnan(directions[1, 2]).all()


def test_fiber_peaks_bad_arguments():
    with pytest.raises(ValueError):
        tenport.fiber_peaks(np.zeros((4, 15)), 3)
    with pytest.raises(ValueError):
        tenport.fiber_peaks(np.zeros((4, 14)), 4)
    with pytest.raises(tenport.Error):
        tenport.fiber_peaks(np.ones((4, 15)), 4, min_amplitude=2.0)


def test_sttid_of_a_low_rank_tensor_interpolates_it(rng):
    shape = (5, 6, 7, 4)
    A = [rng.standard_normal((n, 2)) for n in shape]
    X = np.einsum("ar,br,cr,dr->abcd", *A)
    tt = tenport.sttid(X)
    assert tt.shape == shape and max(tt.ranks) <= 2 and tt.ranks[0] == tt.ranks[-1] == 1
    idx = np.stack([rng.integers(0, n, 50) for n in shape], axis=1)
    np.testing.assert_allclose(tt.evaluate(idx), X[tuple(idx.T)], rtol=1e-8, atol=1e-10)
    assert tt.error(X) < 1e-6
    cores = tt.cores
    assert [c.shape for c in cores] == [(tt.ranks[k], n, tt.ranks[k + 1])
                                        for k, n in enumerate(shape)]
    # every stored core entry is an entry of X
    flat = X.reshape(-1)
    assert all(np.isin(np.round(c.values, 12), np.round(flat, 12)).all() for c in cores)


def test_sttid_of_a_sparse_tensor_is_exact_at_full_rank(rng):
    S = random_sparse(rng, (4, 5, 3, 4), 30)
    dense = S.to_dense()
    tt = tenport.sttid(S, eps=0)
    idx = np.argwhere(np.ones(S.shape, bool))
    np.testing.assert_allclose(tt.evaluate(idx), dense[tuple(idx.T)], atol=1e-9)
    low = tenport.sttid(S, rmax=1)
    assert max(low.ranks) == 1 and low.error(S) > 0.01


def test_sttid_save_and_bad_arguments(tmp_path, rng):
    S = random_sparse(rng, (4, 3, 5), 20)
    tenport.sttid(S).save(tmp_path / "tt")
    assert any(p.name.startswith("tt") for p in tmp_path.iterdir())
    with pytest.raises(ValueError):
        tenport.sttid(S, rmax=0)
    with pytest.raises(ValueError):
        tenport.sttid(S, eps=-1)
    with pytest.raises(ValueError):
        tenport.sttid(S).evaluate(np.zeros((2, 4), dtype=np.int64))
    with pytest.raises(tenport.Error):
        tenport.sttid(S).evaluate(np.array([[4, 0, 0]]))


class DLPackOnly:
    """An array that offers nothing but DLPack, as some libraries' arrays do."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def from_dlpack(x):  # what the module of DLPackOnly offers, as array libraries do
    return DLPackOnly(np.from_dlpack(x))


def test_dlpack_only_arrays_are_used_in_place_and_results_come_back_as_their_kind(rng):
    X = rng.standard_normal((5, 6, 4))
    factors = [rng.standard_normal((n, 3)) for n in X.shape]
    G = tenport.mttkrp(DLPackOnly(X), [DLPackOnly(f) for f in factors], 2)
    assert isinstance(G, DLPackOnly)
    if not tenport._tenport.is_gpu():
        assert tenport._tenport.last_input_address() == X.ctypes.data
    np.testing.assert_allclose(G._array, mttkrp_reference(X, factors, 2), atol=1e-12)
    for method in (tenport.cp_als, tenport.gcp):
        weights, fs = method(DLPackOnly(X), 2, n_iter_max=3)
        assert isinstance(weights, DLPackOnly) and all(isinstance(f, DLPackOnly) for f in fs)


def test_cp_als_options_of_the_peers(rng):
    X, _ = planted((9, 8, 7), 3, rng)
    init = [rng.uniform(0.1, 1.0, (n, 3)) for n in X.shape]
    w, f, info = tenport.cp_als(X, 3, init=(None, init), fixed_modes=[0, 2], return_info=True)
    assert np.array_equal(f[0], init[0]) and np.array_equal(f[2], init[2])
    assert not np.allclose(f[1], init[1])
    plain = tenport.cp_als(X, 3, random_state=4)[0]
    ridge = tenport.cp_als(X, 3, random_state=4, l2_reg=10 * np.linalg.norm(X))[0]
    assert np.linalg.norm(ridge) < np.linalg.norm(plain)
    _, _, info = tenport.cp_als(X, 3, restarts=2, n_iter_max=5, return_info=True)
    assert info["starts"] == 3 and 0 <= info["best_start"] < 3
    _, _, info = tenport.cp_als(X, 3, max_seconds=1e-9, tol=0, return_info=True)
    assert info["stopped_by_time"] and info["iterations"] == 1
    _, _, info = tenport.cp_als(X, 3, linesearch=False, tol=1e-9, return_info=True)
    assert info["extrapolations"] == 0
    # With noise: on an exact tensor the fit nears 1, where 1 - |X - M| / |X| is only good
    # to about sqrt(eps) and rounding alone can lower it by 1e-8 between iterations.
    noisy = X + 0.1 * np.std(X) * rng.standard_normal(X.shape)
    _, _, info = tenport.cp_als(noisy, 3, tol=1e-9, return_info=True)
    assert all(b >= a - 1e-12 for a, b in zip(info["fits"], info["fits"][1:]))
    for bad in ({"l2_reg": -1}, {"fixed_modes": [3]}, {"fixed_modes": [0, 1, 2]},
                {"restarts": -1}, {"max_seconds": 0}, {"init": "svdx"}):
        with pytest.raises(ValueError):
            tenport.cp_als(X, 3, **bad)
